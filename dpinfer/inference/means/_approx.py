"""When DP-JIMI for a mean warns: the ``means`` study's measured error rates and the shared rule.

With the spread released (``sigma`` not given) DP-JIMI for a mean is approximate:
its fiducial draws of ``(mu, sigma)`` come from a noisy sum of squares, and where the
bounds clip the data the draws of the mean lean toward the clipped side, so one
end of the interval misses the population mean more often than its nominal tail,
and with much clipped (30-40%) and wide bounds (much noise) the two ends' errors no
longer offset: issue 40 measured two-sided 95% coverage 0.924 at N(100, 15**2),
n = 80, ``MeanReleaser(0.5, 10, 107.866, spread=True)`` (30% clipped above).

**The measurements.**  The ``means`` study's tails part (``python -m
validation._means_tails --table``, which writes :data:`SPREAD_RATES` into
``_spread_table.py``) measured, for each model under its own truth (normal
N(100, 15**2); log-normal exp(N(0, 0.6**2))), at n in {30, 80, 100, 500} (log-normal:
30, 80, 100) and epsilon in {0.5, 1, 3} (split half and half), the two-sided 95%
interval's coverage and each end's miss rate (nominal 0.025) over bounds clipping
0%, 5%, 20%, 30% and 40% above, 20-40% above with a lower bound 6 (not 4) sd below
the mean (wider bounds: more noise), and 15% + 15% or 20% + 20% in both tails; 199
draws per interval, 2000 data sets per point (1000 at n = 500 and for the
log-normal model).  Each row of the table is the worst over those bounds.

**Near a bound.**  How much the bounds clip is not public (the clipped share is not
released), but the released clipped mean is, and heavy one-tail clipping puts it
near the bound that clips: :func:`near_bound` is true when it lies in the outer
quarter of the bounds (``min(m - lower, upper - m) < EDGE (upper - lower)``, ``m =
sum / n`` the released clipped mean, ``EDGE = 0.25``); 20-40% clipped above puts
it at 0.82 to 0.94 of the way up (plus the noise), no clipping or both tails
clipped alike near the middle.  The study records it for every data set and
measures the error rates separately among the data sets near a bound and among
the others; each row of the table is the worst, over the bounds studied, of one
group (the worst by how far its rate lies beyond the bar below, which accounts for
the group's size).  A warning that reads the release is post-processing of it:
no privacy cost, no confidential value.

**The rule** (:func:`spread_warning`), decided from public numbers only: ``n``,
``epsilon`` and its ``split`` (the noise), the bounds and the released clipped mean
(near a bound or not), the model, whether the spread is released and the
alternative.  The row that speaks for a call: the largest study n at or below its
n (the smallest study n below it), then the largest study epsilon at or below its
*effective* epsilon ``2 min(split, 1 - split) epsilon`` (the weaker of the sum and
the squares, as if the budget were split evenly; the smallest study epsilon below
it): fewer data and more noise only make the lean larger.  It warns when
:func:`~dpinfer.inference._oc_warnings.measured_rate_message` finds the row's rate
beyond the shared rule: for a two-sided test, ``1 - coverage`` against 0.05; for a
one-sided one, the worse end's miss rate against 0.025 (clipping below mirrors
clipping above, so either end counts).  A given ``sigma`` never warns (the test is
then exact; the study's ``spread = 'known'`` rows check it).  Nor does
:func:`~dpinfer.mean2_jimi_test`: under equal laws in both groups the study's
two-group part found its size within 4 SE of 0.05 (up to 20% clipped; heavier
clipping was not studied for two groups).

Beyond the study: bounds wider than about 10 standard deviations of the data, or
more than 40% clipped, were not measured; the table's row is then the nearest
measured one, not a bound.
"""

from __future__ import annotations

import numpy as np

from ..._validation import _arg, _setting
from ..._warnings import ApproximationWarning
from .._oc_warnings import measured_rate_message
from ._spread_table import SPREAD_RATES

__all__ = []  # package-internal

#: Nominal error of each end of a two-sided 95% interval, and of the interval.
NOMINAL_TAIL, NOMINAL_MISS = 0.025, 0.05

#: A released clipped mean within this share of the bounds' width from one bound is "near" it.
EDGE = 0.25

_MODEL_WORDS = {"normal": "normal", "lognormal": "log-normal"}


def near_bound(data):
    """Per release of ``data`` (a resolved clipped sum): its clipped mean lies in the outer ``EDGE`` of the bounds."""
    position = (np.asarray(data.sum, dtype=float) / data.n - data.lower) / (data.upper - data.lower)
    return np.minimum(position, 1.0 - position) < EDGE


def effective_epsilon(epsilon, split):
    """``2 min(split) epsilon``: the total whose even split gives the weaker part's epsilon."""
    return 2.0 * min(split) * epsilon if split else epsilon


def spread_row(n, epsilon, model, near):
    """The study row for ``(n, epsilon, near)``: the largest study n and epsilon at or below them (else the smallest)."""
    rows = [r for r in SPREAD_RATES[model] if r[2] == near]

    def at_or_below(values, x):
        below = [v for v in values if v <= x]
        return max(below) if below else min(values)

    study_n = at_or_below({r[0] for r in rows}, n)
    study_eps = at_or_below({r[1] for r in rows if r[0] == study_n}, epsilon)
    return next(r for r in rows if r[0] == study_n and r[1] == study_eps)


def spread_warning(data, model, sigma, alternative):
    """The :class:`~dpinfer.ApproximationWarning` for a DP-JIMI call on one release, or None (the module's rule)."""
    if sigma is not None:
        return None
    near = bool(near_bound(data))
    epsilon = data.release.epsilon
    study_n, study_eps, _, tail, tail_reps, tail_where, cover, cover_reps, cover_where = spread_row(
        data.n, effective_epsilon(epsilon, data.release.split), model, near)
    if alternative == "two-sided":
        clause = measured_rate_message(1.0 - cover, NOMINAL_MISS, cover_reps)
        what, where = "the share of two-sided 95% intervals missing the mean", cover_where
        lean = "the two ends' errors no longer offset, and the interval covers too little"
    else:
        clause = measured_rate_message(tail, NOMINAL_TAIL, tail_reps)
        what, where = "the share of interval ends missing the mean", tail_where
        lean = "a one-sided test toward that side rejects too often"
    if clause is None:
        return None
    place = "near a bound" if near else "away from the bounds"
    return ApproximationWarning(
        f"DP-JIMI with the spread released is approximate here: for n = {data.n}, epsilon = {epsilon:g}, the "
        f"{_MODEL_WORDS[model]} model, ", _setting("alternative", alternative),
        f" and a released clipped mean {place} (in the outer {EDGE:.0%} of the bounds or not), the "
        f"validation study 'means' measured {what} (n = {study_n}, epsilon = {study_eps:g}, {where}, "
        f"data sets with the released mean {place}) at {clause}. Where the bounds clip much of one tail the "
        f"interval leans toward the clipped side, and {lean}. Give ", _arg("sigma"),
        " if the standard deviation is known (the test is then exact), or choose bounds that clip less of "
        "the data.")
