"""P-value functions (confidence curves) that several test families share, as picklable objects.

* :class:`WaldCurve` -- the p-value function whose inversion is a Wald interval
  ``centre +- z se`` (the curve of the interval's own construction, for tests whose printed
  p-value comes from another statistic, e.g. a pooled z test with an unpooled interval).
* :class:`SidedCurve` -- a test given by its two one-sided p-values, two-sided as
  ``min(1, 2 min(p_greater, p_less))``.
* :class:`SpreadCurve` -- the curve of a simulated interval ``exp(centre -/+ h(L))`` on a log
  scale, ``h(L)`` half the spread of the draws' central quantiles at level ``L`` (the
  log-rank test's hazard-ratio interval), built from the same draws.

Both are module-level classes (not closures), so results that carry them pickle.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

__all__ = ["SidedCurve", "SpreadCurve", "WaldCurve"]


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


class SpreadCurve:
    """``p(x)`` of the interval ``exp(centre -/+ H(t))``, ``H(t) = (Q(1 - t) - Q(t)) / 2``, from draws.

    ``Q`` is ``numpy.quantile`` of the draws (linear interpolation), so with the sorted draws
    ``s_0 <= ... <= s_{m-1}``, ``H`` is piecewise linear in ``t`` with knots at ``t_k = k / (m - 1)``,
    ``H(t_k) = (s_{m-1-k} - s_k) / 2``, non-increasing from ``(s_{m-1} - s_0) / 2`` to its negative.
    The interval at level ``L`` takes ``t = 1 - L`` one-sided (``'greater'``: ``[exp(centre - H(t)),
    inf)``; ``'less'``: ``(0, exp(centre + H(t))]``) and ``t = (1 - L) / 2`` two-sided (both ends).
    With ``g(y) = max{t in [0, 1]: H(t) >= y}`` (0 when no ``t``), ``x`` lies in the interval at
    level ``L`` exactly when ``p(x) >= 1 - L`` for

    * ``'greater'``: ``p(x) = g(centre - log x)``;
    * ``'less'``: ``p(x) = g(log x - centre)``;
    * two-sided: ``p(x) = min(1, 2 g(|log x - centre|))``,

    so the curve crosses ``1 - L`` at the printed ends.  It is the interval's own curve (the
    draws are releases simulated at the estimated hazards), not the p-value of a test at each
    null value; ``curve_label`` says so.  NaN for ``x <= 0``.  ``axis``, when given, is the x
    axis label :func:`dpinfer.plot.confidence_curve` uses.
    """

    curve_label = "confidence curve of the simulated interval (not the log-rank p-value)"

    def __init__(self, centre, draws, alternative, axis=None):
        self.centre, self.alternative, self.axis_label = float(centre), alternative, axis
        s = np.sort(np.asarray(draws, dtype=float))
        self.knots = (s[::-1] - s) / 2.0  # H(t_k), k = 0..m-1, non-increasing

    def _g(self, y):
        """``max{t in [0, 1]: H(t) >= y}`` (0 when ``y > H(0)``), elementwise."""
        knots, last = self.knots, self.knots.size - 1
        if last == 0:  # one draw: H = 0, a point interval at every level
            return np.where(y <= 0.0, 1.0, 0.0)
        # j: the last knot with H(t_j) >= y (-1 when none), found on the non-decreasing -H
        j = np.searchsorted(-knots, -y, side="right") - 1
        jj = np.clip(j, 0, last - 1)
        step = knots[jj] - knots[jj + 1]  # > 0 whenever H(t_j) >= y > H(t_j+1)
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.clip(np.where(step > 0, (knots[jj] - y) / step, 0.0), 0.0, 1.0)
        return np.where(j < 0, 0.0, np.where(j >= last, 1.0, (jj + frac) / last))

    def __call__(self, value):
        values = np.asarray(value, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_x = np.log(np.where(values > 0, values, np.nan))
        y = log_x - self.centre
        if self.alternative == "greater":
            p = self._g(-y)
        elif self.alternative == "less":
            p = self._g(y)
        else:
            p = np.minimum(1.0, 2.0 * self._g(np.abs(y)))
        p = np.where(np.isnan(log_x), np.nan, p)
        return p if values.ndim else float(p)
