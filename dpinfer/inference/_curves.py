"""P-value functions (confidence curves) that several test families share, as picklable objects.

* :class:`WaldCurve` -- the p-value function whose inversion is a Wald interval
  ``centre +- z se`` (the curve of the interval's own construction, for tests whose printed
  p-value comes from another statistic, e.g. a pooled z test with an unpooled interval).
* :class:`SidedCurve` -- a test given by its two one-sided p-values, two-sided as
  ``min(1, 2 min(p_greater, p_less))``.

Both are module-level classes (not closures), so results that carry them pickle.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

__all__ = ["SidedCurve", "WaldCurve"]


class WaldCurve:
    """``p(m)`` of the Wald test of ``effect = m`` with a fixed standard error ``se``.

    With ``z = (centre - m) / se``: ``'greater'`` ``P(Z >= z)``, ``'less'`` ``P(Z <= z)``,
    two-sided ``min(1, 2 P(Z >= |z|))``, so ``{m: p(m) > 1 - level}`` is exactly
    ``centre +- z_crit se`` (before any clipping to the parameter range ``[low, high]``,
    outside which the curve is NaN).
    """

    #: the legend's name of the curve (read by :func:`dpinfer.plot.confidence_curve`)
    curve_label = "confidence curve of the Wald interval"

    def __init__(self, centre, se, alternative, low=-1.0, high=1.0):
        self.centre, self.se, self.alternative = float(centre), float(se), alternative
        self.low, self.high = float(low), float(high)

    def __call__(self, value):
        values = np.asarray(value, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (self.centre - values) / self.se
        if self.alternative == "greater":
            p = norm.sf(z)
        elif self.alternative == "less":
            p = norm.cdf(z)
        else:
            p = np.minimum(1.0, 2.0 * norm.sf(np.abs(z)))
        p = np.where((values >= self.low) & (values <= self.high), p, np.nan)
        return p if values.ndim else float(p)


class SidedCurve:
    """``p(x)`` of a test given by ``sides(x) = (p_greater, p_less)`` at one null value.

    ``'greater'`` and ``'less'`` take their side; two-sided is ``min(1, 2 min(...))``, the
    rule whose inversion is the equal-tailed interval (each side at ``(1 - level) / 2``).
    NaN outside ``[low, high]``.  ``label`` is the legend's name of the curve (say so when
    it is not the printed test's p-value); ``axis``, when given, the x axis label
    :func:`dpinfer.plot.confidence_curve` uses instead of the one it reads from the result.
    """

    def __init__(self, sides, alternative, low, high, label="p-value", axis=None):
        self.sides, self.alternative, self.low, self.high = sides, alternative, float(low), float(high)
        self.curve_label, self.axis_label = label, axis

    def one(self, x):
        if not self.low <= x <= self.high:
            return float("nan")
        greater, less = self.sides(x)
        if self.alternative == "greater":
            return float(greater)
        if self.alternative == "less":
            return float(less)
        return float(min(1.0, 2.0 * min(greater, less)))

    def __call__(self, value):
        values = np.asarray(value, dtype=float)
        out = np.array([self.one(float(v)) for v in values.reshape(-1)]).reshape(values.shape)
        return out if values.ndim else float(out)
