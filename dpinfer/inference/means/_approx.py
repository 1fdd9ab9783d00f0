"""When DP-JIMI for a mean warns: the ``means`` study's measured error rates and the shared rule.

With the spread released (``sigma`` not given) DP-JIMI for a mean is approximate:
its fiducial draws of ``(mu, sigma)`` come from a noisy sum of squares, and where the
bounds clip the data the draws of the mean lean toward the clipped side, so one
end of the interval misses the population mean more often than its nominal tail,
and with 30% clipped above and bounds reaching far below the data the two ends'
errors no longer offset: issue 40 measured two-sided 95% coverage 0.924 at N(100,
15**2), n = 80, ``MeanReleaser(0.5, 10, 107.866, spread=True)`` (30% clipped above).

**The measurements.**  The ``means`` study's tails part (``python -m
validation._means_tails --table``, which writes :data:`SPREAD_RATES` into
``_spread_table.py``; the grid and the CSV columns are in that module) measured,
for each model under its own truth (normal N(100, 15**2); log-normal exp(N(0,
0.6**2))), at n in {30, 80, 500} (log-normal: 30 and 100) and epsilon in {0.5, 1, 3}
(split half and half), the two-sided 95% interval's coverage and each end's miss
rate (nominal 0.025) over bounds clipping 0%, 20%, 30% or 40% above with the lower
bound 4 sd below the mean, 30% or 40% above with it 6 sd below (issue 40's
geometry), and 20% in each tail (log-normal: 0%, 5%, 20%, 30%, 40% above); 199
draws per interval, 2000 data sets per point (1000 at n = 500 and for the
log-normal model).  Each row of the table is the worst over those bounds.

**Why not read the release.**  How much the bounds clip is not public (the clipped
share is not released).  The released clipped mean is, and heavy one-tail clipping
puts it near the clipping bound, but a rule that waits for it judges the interval
*given* its release: the study records, per data set, whether the released mean
lay in the outer quarter of the bounds (CSV columns ``*_near``, ``*_far``), and
among the data sets whose release the noise pushed there the coverage was far
below 0.95 even with nothing clipped (0.71 at n = 30, epsilon 0.5), a selection
effect, not clipping.  So the rule judges the bounds the study measured, whatever
the release.

**The rule** (:func:`spread_warning`), decided from public numbers only: ``n``,
``epsilon`` and its ``split`` (the noise), the model, whether the spread is
released and the alternative; each row of the table is the worst over the bounds
studied.  The row that speaks for a call: the largest study n at or below its n
(the smallest study n below it), then the largest study epsilon at or below its
*effective* epsilon ``2 min(split, 1 - split) epsilon`` (the weaker of the sum and
the squares, as if the budget were split evenly; the smallest study epsilon below
it).  It warns when :func:`~dpinfer.inference._oc_warnings.measured_rate_message`
finds the row's rate beyond the shared rule: for a two-sided test, ``1 -
coverage`` against 0.05; for a one-sided one, the worse end's miss rate against
0.025 (clipping below mirrors clipping above, so either end counts).  So, with the
normal model (effective epsilon written e): below n = 80, one-sided calls warn, and
two-sided ones too when e >= 1; from n = 80 to 499, both warn when e < 1 (issue 40's
setting), one-sided ones when 1 <= e < 3, none when e >= 3; from n = 500 nothing
warns.  With the log-normal model only one-sided calls below n = 100 with e < 1
warn.  The rows are not monotone in epsilon (at n = 30 the epsilon-0.5 row covers
0.9345, the epsilon-3 row 0.9115): the lean comes from the clipping, not the noise.
A given ``sigma`` never warns (the test is then exact; the
study's ``spread = 'known'`` rows, 30% clipped above with the wide lower bound,
covered 0.945 to 0.9565 with no end beyond 0.031).  Nor does
:func:`~dpinfer.mean2_jimi_test`: under equal laws in both groups the study's
two-group part found its size within 4 SE of 0.05 (up to 20% clipped; heavier
clipping was not studied for two groups).

Beyond the study: bounds wider than about 8 standard deviations of the data, or
more than 40% clipped, were not measured; the table's row is then the nearest
measured one, not a bound.
"""

from __future__ import annotations

from ..._validation import _arg, _setting
from ..._warnings import ApproximationWarning
from .._oc_warnings import measured_rate_message
from ._spread_table import SPREAD_RATES

__all__ = []  # package-internal

#: Nominal error of each end of a two-sided 95% interval, and of the interval.
NOMINAL_TAIL, NOMINAL_MISS = 0.025, 0.05

_MODEL_WORDS = {"normal": "normal", "lognormal": "log-normal"}


def effective_epsilon(epsilon, split):
    """``2 min(split) epsilon``: the total whose even split gives the weaker part's epsilon."""
    return 2.0 * min(split) * epsilon if split else epsilon


def spread_row(n, epsilon, model):
    """The study row for ``(n, epsilon)``: the largest study n and epsilon at or below them (else the smallest)."""
    rows = SPREAD_RATES[model]

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
    epsilon = data.release.epsilon
    study_n, study_eps, reps, tail, tail_where, cover, cover_where = spread_row(
        data.n, effective_epsilon(epsilon, data.release.split), model)
    if alternative == "two-sided":
        clause = measured_rate_message(1.0 - cover, NOMINAL_MISS, reps)
        what, where = "the share of two-sided 95% intervals missing the mean", cover_where
        lean = "the two ends' errors no longer offset, and the interval covers too little"
    else:
        clause = measured_rate_message(tail, NOMINAL_TAIL, reps)
        what, where = "the share of interval ends missing the mean", tail_where
        lean = "a one-sided test toward that side rejects too often"
    if clause is None:
        return None
    return ApproximationWarning(
        f"DP-JIMI with the spread released is approximate here: for n = {data.n}, epsilon = {epsilon:g}, the "
        f"{_MODEL_WORDS[model]} model and ", _setting("alternative", alternative),
        f", the validation study 'means' measured {what} (n = {study_n}, epsilon = {study_eps:g}, {where}) at "
        f"{clause}. How much the bounds clip is not public, so this warns whatever they are; where they clip "
        f"much of one tail the interval leans toward the clipped side, and {lean}. Give ", _arg("sigma"),
        " if the standard deviation is known (the test is then exact), or choose bounds that clip less of "
        "the data.")
