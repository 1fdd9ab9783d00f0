"""When the survival methods warn: the ``survival`` study's measured rates and the shared rule.

The validation study ``survival`` (``python -m validation.survival --full --reps 200``;
``validation/README.md``) measured, over n per arm in {50, 200, 1000}, epsilon in
{0.5, 1, 3}, 5 and 20 intervals, exponential and Weibull truths and 0, 20 and 40%
random censoring (200 data sets per point, 199 simulated releases per test and
interval):

* :data:`SIZES`: the size of the level-0.05 two-sided :func:`~dpinfer.logrank_test`,
  the worst per (n per arm, epsilon) over the other settings;
* :data:`COVERAGES`: the pointwise coverage of the 95% intervals of
  :func:`~dpinfer.kaplan_meier` (the default: actuarial estimate, percentile
  interval), the smallest over the breaks, the worst per (n per arm, epsilon);
  :data:`COVERAGES_BOOTSTRAP` the same for ``method='bootstrap'``.

The rule (:func:`size_warning`, :func:`coverage_warning`), decided from public
numbers only (the smaller arm size and epsilon): the study row at the largest study
n at or below the call's (the smallest study n if none) and the largest study
epsilon at or below its epsilon (the smallest if none) speaks for the call; it warns
when that row's error rate (the size, or one minus the coverage) is beyond
:func:`~dpinfer.inference._oc_warnings.measured_rate_message`'s rule: more than 4
Monte Carlo SE and 20% above its nominal 0.05.  With 200 data sets per point, the
log-rank test's size never is (largest 0.085, 2.3 SE above 0.05), so the test does
not warn; the default Kaplan-Meier intervals' worst break is at four rows (coverage
0.87 to 0.885 where 0.95 is nominal), the bias-corrected bootstrap's at every row but
n = 1000 with epsilon >= 1 (0.495 at worst), so those calls warn.
"""

from __future__ import annotations

from ..._warnings import ApproximationWarning
from .._oc_warnings import measured_rate_message

__all__ = []  # package-internal

#: Nominal level of the study's tests, and nominal miss rate of its 95% intervals.
ALPHA = 0.05

#: (n per arm, epsilon) -> (worst measured size, data sets, where), from the study.
SIZES = {
    (50, 0.5): (0.075, 200, "exponential, 5 intervals, 0% censored"),
    (50, 1.0): (0.07, 200, "exponential, 5 intervals, 40% censored"),
    (50, 3.0): (0.085, 200, "weibull, 5 intervals, 0% censored"),
    (200, 0.5): (0.07, 200, "exponential, 20 intervals, 40% censored"),
    (200, 1.0): (0.065, 200, "exponential, 5 intervals, 0% censored"),
    (200, 3.0): (0.07, 200, "weibull, 5 intervals, 0% censored"),
    (1000, 0.5): (0.065, 200, "weibull, 20 intervals, 40% censored"),
    (1000, 1.0): (0.075, 200, "exponential, 5 intervals, 0% censored"),
    (1000, 3.0): (0.075, 200, "weibull, 20 intervals, 20% censored"),
}

#: (n per arm, epsilon) -> (worst measured pointwise coverage of 95% intervals, data sets, where).
COVERAGES = {
    (50, 0.5): (0.945, 200, "exponential, 5 intervals, 0% censored"),
    (50, 1.0): (0.905, 200, "exponential, 5 intervals, 0% censored"),
    (50, 3.0): (0.87, 200, "weibull, 20 intervals, 0% censored"),
    (200, 0.5): (0.9, 200, "exponential, 20 intervals, 0% censored"),
    (200, 1.0): (0.87, 200, "weibull, 20 intervals, 0% censored"),
    (200, 3.0): (0.89, 200, "weibull, 20 intervals, 20% censored"),
    (1000, 0.5): (0.88, 200, "weibull, 5 intervals, 0% censored"),
    (1000, 1.0): (0.885, 200, "weibull, 20 intervals, 0% censored"),
    (1000, 3.0): (0.9, 200, "weibull, 5 intervals, 40% censored"),
}


#: The same for ``method='bootstrap'`` (the bias-corrected interval, actuarial estimate).
COVERAGES_BOOTSTRAP = {
    (50, 0.5): (0.495, 200, "exponential, 20 intervals, 40% censored"),
    (50, 1.0): (0.635, 200, "weibull, 20 intervals, 40% censored"),
    (50, 3.0): (0.745, 200, "weibull, 20 intervals, 0% censored"),
    (200, 0.5): (0.69, 200, "exponential, 20 intervals, 40% censored"),
    (200, 1.0): (0.82, 200, "weibull, 20 intervals, 20% censored"),
    (200, 3.0): (0.855, 200, "weibull, 20 intervals, 40% censored"),
    (1000, 0.5): (0.87, 200, "weibull, 20 intervals, 20% censored"),
    (1000, 1.0): (0.895, 200, "exponential, 20 intervals, 20% censored"),
    (1000, 3.0): (0.9, 200, "weibull, 20 intervals, 0% censored"),
}


def _row(table, n, epsilon):
    """``(study n, study epsilon, *row)`` of ``table`` that speaks for ``(n, epsilon)``; None if empty."""
    if not table:
        return None
    ns = sorted({k[0] for k in table})
    eps = sorted({k[1] for k in table})
    pick_n = max([m for m in ns if m <= n], default=ns[0])
    pick_e = max([e for e in eps if e <= epsilon], default=eps[0])
    return (pick_n, pick_e) + table[(pick_n, pick_e)]


def size_row(n, epsilon):
    """The size row that speaks for ``(n, epsilon)`` (see the module notes)."""
    return _row(SIZES, n, epsilon)


def coverage_row(n, epsilon, method="percentile"):
    """The coverage row of ``method``'s intervals that speaks for ``(n, epsilon)`` (see the module notes)."""
    return _row(COVERAGES if method == "percentile" else COVERAGES_BOOTSTRAP, n, epsilon)


def size_warning(n, epsilon):
    """The :class:`~dpinfer.ApproximationWarning` for a log-rank call, or None (the module's rule)."""
    row = size_row(n, epsilon)
    if row is None:
        return None
    study_n, study_eps, rate, reps, where = row
    clause = measured_rate_message(rate, ALPHA, reps)
    if clause is None:
        return None
    return ApproximationWarning(
        f"The private log-rank test is approximate (its null law is simulated at estimated hazards): for "
        f"{n} patients in the smaller arm and epsilon = {epsilon:g}, the validation study 'survival' measured "
        f"the size of the level-{ALPHA:g} test (n = {study_n} per arm, epsilon = {study_eps:g}, {where}) at "
        f"{clause}. Read small p-values with care; more patients or a larger epsilon shrink the gap.")


def coverage_warning(n, epsilon, method="percentile"):
    """The :class:`~dpinfer.ApproximationWarning` for a Kaplan-Meier call, or None (the module's rule)."""
    row = coverage_row(n, epsilon, method)
    if row is None:
        return None
    study_n, study_eps, coverage, reps, where = row
    clause = measured_rate_message(1.0 - coverage, ALPHA, reps)
    if clause is None:
        return None
    return ApproximationWarning(
        f"The private survival intervals are approximate (a parametric bootstrap): for {n} patients in the "
        f"smaller arm and epsilon = {epsilon:g}, the validation study 'survival' measured the pointwise 95% "
        f"intervals missing the true survival at their worst break (n = {study_n} per arm, epsilon = "
        f"{study_eps:g}, {where}) at a rate of {clause}. The noise biases the consistent table where a cell's "
        "true count is 0 (e.g. no censoring); read the intervals as approximate.")
