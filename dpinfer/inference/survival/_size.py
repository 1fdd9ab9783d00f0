"""When the private log-rank test warns: the ``survival`` study's measured sizes and the shared rule.

The validation study ``survival`` (``validation/survival.py --full``) measured the
size of the level-0.05 two-sided test, :func:`~dpinfer.logrank_test`, over n per arm
in {50, 200, 1000}, epsilon in {0.5, 1, 3}, 5, 10 and 20 intervals, exponential and
Weibull truths and 0-40% censoring.  :data:`SIZES` holds the worst measured size per
(n per arm, epsilon) over the other settings, with the number of data sets behind it.

The rule (:func:`size_warning`), decided from public numbers only (the smaller
arm size and epsilon): the study row at the largest study n at or below the call's
(the smallest study n if none) and the largest study epsilon at or below its
epsilon (the smallest if none) speaks for the call; it warns when that row's size
is beyond :func:`~dpinfer.inference._oc_warnings.measured_rate_message`'s rule.
"""

from __future__ import annotations

from ..._warnings import ApproximationWarning
from .._oc_warnings import measured_rate_message

__all__ = []  # package-internal

#: Nominal level of the study's tests.
ALPHA = 0.05

#: (n per arm, epsilon) -> (worst measured size, data sets, where), from the study.
SIZES = {}


def size_row(n, epsilon):
    """The study row that speaks for ``(n, epsilon)`` (see the module notes), or None without a study."""
    if not SIZES:
        return None
    ns = sorted({k[0] for k in SIZES})
    eps = sorted({k[1] for k in SIZES})
    pick_n = max([m for m in ns if m <= n], default=ns[0])
    pick_e = max([e for e in eps if e <= epsilon], default=eps[0])
    return (pick_n, pick_e) + SIZES[(pick_n, pick_e)]


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
