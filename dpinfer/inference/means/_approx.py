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
0.6**2))), at n in {30, 80, 100, 500} (log-normal: 30 and 100) and epsilon in {0.5, 1, 3}
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
two-sided ones too when e >= 1; from n = 80 to 99, both warn when e < 1 (issue 40's
setting), one-sided ones when 1 <= e < 3, none when e >= 3; from n = 100 to 499, both
warn when e < 1, one-sided ones when e >= 1 (the n = 100 row's worst end: 0.0425 at e =
1, 0.040 at e = 3, 2000 data sets; before that row was measured n = 100 to 499 read
the n = 80 row); from n = 500 nothing warns.  With the log-normal model only
one-sided calls below n = 100 with e < 1 warn.  The rows are not monotone in epsilon
(at n = 30 the epsilon-0.5 row covers 0.9345, the epsilon-3 row 0.9115): the lean
comes from the clipping, not the noise.
A given ``sigma`` never warns (the test is then exact; the
study's ``spread = 'known'`` rows, 30% clipped above with the wide lower bound,
covered 0.945 to 0.962 with no end beyond 0.031).

**Two groups** (:func:`spread2_warning`, read by :func:`~dpinfer.mean2_jimi_test`).
The study's two-group tails part (``python -m validation._means_tails_two_group
--table``, which writes :data:`SPREAD2_RATES` into the same module through the same
generator) measured the 95% interval for the difference of the means the same way,
with each group clipped 0%, 20%, 30% or 40% above (lower bound 4 or 6 sd below the
mean), 20% in each tail, groups of different laws clipped differently (40% against
20%, 30% against 10%: the difference's interval can lean as one group's draws do) and
the log-normal model on log-normal data (0%, 20%, 40%), at n in {30, 80, 500} per
group (log-normal: 30 and 80) and epsilon in {0.5, 1, 3} per group: no row is beyond
the rule (normal model: two-sided coverage 0.941 to 0.995, no end beyond 0.035; groups
of different laws 0.95 or more, no end beyond 0.033; log-normal 0.939 to 0.99, no end
beyond 0.035), so :func:`~dpinfer.mean2_jimi_test` is silent wherever the study looked.
Heavy clipping of the same law in both groups makes the difference's interval
conservative (coverage up to 0.995 at n = 30 and 80 with 30-40% clipped), not short.
The row that speaks for a call is read as above at the smaller group's n and the
smaller of the two groups' effective epsilons; both groups' ``sigma`` given never
warns (each group's draws are then exact), one given reads the table (the other
group's draws are approximate).  Groups of different sizes, or with different
bounds, were not studied: the smaller n and epsilon stand for them.

Beyond the study: bounds wider than about 8 standard deviations of the data, or
more than 40% clipped, were not measured; the table's row is then the nearest
measured one, not a bound.
"""

from __future__ import annotations

from ..._validation import _arg, _setting
from ..._warnings import ApproximationWarning
from .._oc_warnings import measured_rate_message
from ._spread_table import SPREAD2_RATES, SPREAD_RATES

__all__ = []  # package-internal

#: Nominal error of each end of a two-sided 95% interval, and of the interval.
NOMINAL_TAIL, NOMINAL_MISS = 0.025, 0.05

_MODEL_WORDS = {"normal": "normal", "lognormal": "log-normal"}


def effective_epsilon(epsilon, split):
    """``2 min(split) epsilon``: the total whose even split gives the weaker part's epsilon."""
    return 2.0 * min(split) * epsilon if split else epsilon


def spread_row(n, epsilon, model, rates=SPREAD_RATES):
    """The study row for ``(n, epsilon)``: the largest study n and epsilon at or below them (else the smallest).

    ``rates``: :data:`SPREAD_RATES` (one group) or :data:`SPREAD2_RATES` (two groups).
    """
    rows = rates[model]

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
    return _measured(SPREAD_RATES, data.n, effective_epsilon(data.release.epsilon, data.release.split),
                     f"n = {data.n}, epsilon = {data.release.epsilon:g}", model, alternative, "mean",
                     "the test is then exact")


def spread2_warning(d1, d2, model, s1, s2, alternative):
    """The warning for :func:`~dpinfer.mean2_jimi_test`, or None: the rule on the two-group table.

    Silent when both groups' ``sigma`` is given; otherwise the row of :data:`SPREAD2_RATES`
    at the smaller group's n and the smaller of the two groups' effective epsilons
    (public numbers only).
    """
    if s1 is not None and s2 is not None:
        return None
    eps = min(effective_epsilon(d.release.epsilon, d.release.split) for d in (d1, d2))
    return _measured(SPREAD2_RATES, min(d1.n, d2.n), eps,
                     f"n = {d1.n} and {d2.n}, epsilon = {d1.release.epsilon:g} and {d2.release.epsilon:g}",
                     model, alternative, "difference of the means",
                     "each group's draws are then exact")


def _measured(rates, n, epsilon, setting, model, alternative, target, exact):
    study_n, study_eps, reps, tail, tail_where, cover, cover_where = spread_row(n, epsilon, model, rates)
    if alternative == "two-sided":
        clause = measured_rate_message(1.0 - cover, NOMINAL_MISS, reps)
        what, where = f"the share of two-sided 95% intervals missing the {target}", cover_where
        lean = "the two ends' errors no longer offset, and the interval covers too little"
    else:
        clause = measured_rate_message(tail, NOMINAL_TAIL, reps)
        what, where = f"the share of interval ends missing the {target}", tail_where
        lean = "a one-sided test toward that side rejects too often"
    if clause is None:
        return None
    per = " per group" if rates is SPREAD2_RATES else ""
    return ApproximationWarning(
        f"DP-JIMI with the spread released is approximate here: for {setting}, the "
        f"{_MODEL_WORDS[model]} model and ", _setting("alternative", alternative),
        f", the validation study 'means' measured {what} (n = {study_n}, epsilon = {study_eps:g}{per}, {where}) "
        f"at {clause}. How much the bounds clip is not public, so this warns whatever they are; where they clip "
        f"much of one tail the interval leans toward the clipped side, and {lean}. Give ", _arg("sigma"),
        f" if the standard deviation is known ({exact}), or choose bounds that clip less of the data.")
