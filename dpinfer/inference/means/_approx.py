"""When DP-JIMI for a mean warns: the ``means`` study's measured error rates and the shared rule.

With the spread released (``sigma`` not given) DP-JIMI for a mean is approximate:
its fiducial draws of ``(mu, sigma)`` come from a noisy sum of squares, and where the
bounds clip the data the draws of the mean lean toward the clipped side, so one
end of the interval misses the population mean more often than its nominal tail.
The validation study ``means`` (``dpinfer validate means``) measured, for each model
under its own truth (normal N(100, 15**2); log-normal exp(N(0, 0.6**2))), the share of
95% two-sided intervals whose lower end lies above the population mean and whose
upper end lies below it (nominal 0.025 each), over epsilon in {0.5, 1, 3} and bounds
clipping 0%, 5% or 20% above, 199 draws per interval.  :data:`SPREAD_TAILS` holds
the worst of those per (model, n).

The rule (:func:`spread_warning`), decided from public numbers only (n, the
model, whether the spread is released, the alternative): a one-sided test or
interval with the spread released warns when the measured worst tail for its
model at the largest study n at or below its n (the smallest study n below it)
is beyond :func:`~dpinfer.inference._oc_warnings.measured_rate_message`'s rule.
Whether the data are clipped is not public, so the warning cannot wait for it.
So one-sided calls warn below n = 500 with the normal model and below n = 100
with the log-normal model.  Two-sided intervals do not warn: their measured
coverage stays within 4 Monte Carlo SE of 0.95 everywhere in the study (normal
model 0.940 at worst, SE 0.005; log-normal model 0.925 at n = 30, epsilon 0.5,
20% clipped, 3.6 SE at 1000 data sets), the two ends' errors offsetting.  Nor
does :func:`~dpinfer.mean2_jimi_test`: under equal laws in both groups the
study's two-group part found its size within 4 SE of 0.05 everywhere and the
ends of its intervals for a difference within 4 SE of 0.025.
"""

from __future__ import annotations

from ..._validation import _arg, _setting
from ..._warnings import ApproximationWarning
from .._oc_warnings import measured_rate_message

__all__ = []  # package-internal

#: Nominal error of each end of a two-sided 95% interval.
NOMINAL_TAIL = 0.025

#: model -> rows ``(n, worst one-sided miss rate, data sets, where)`` measured by the
#: ``means`` study with the spread released (see the module notes; validation/README.md).
SPREAD_TAILS = {
    "normal": ((30, 0.047, 2000, "epsilon = 3, 20% clipped"),
               (100, 0.050, 2000, "epsilon = 0.5, 20% clipped"),
               (500, 0.0315, 2000, "epsilon = 3, 5% clipped")),
    "lognormal": ((30, 0.060, 1000, "epsilon = 0.5, 20% clipped"),
                  (100, 0.037, 1000, "epsilon = 0.5, 5% clipped")),
}

_MODEL_WORDS = {"normal": "normal", "lognormal": "log-normal"}


def spread_row(n, model):
    """The study row that speaks for ``n``: the largest study n at or below it (the smallest if none)."""
    rows = SPREAD_TAILS[model]
    below = [r for r in rows if r[0] <= n]
    return max(below, key=lambda r: r[0]) if below else min(rows, key=lambda r: r[0])


def spread_warning(n, model, sigma, alternative):
    """The :class:`~dpinfer.ApproximationWarning` for a DP-JIMI mean call, or None (the module's rule)."""
    if sigma is not None or alternative == "two-sided":
        return None
    study_n, rate, reps, where = spread_row(n, model)
    clause = measured_rate_message(rate, NOMINAL_TAIL, reps)
    if clause is None:
        return None
    return ApproximationWarning(
        f"DP-JIMI with the spread released is approximate for a one-sided test: for n = {n}, the "
        f"{_MODEL_WORDS[model]} model and ", _setting("alternative", alternative),
        f", the validation study 'means' measured the share of interval ends missing the mean (n = {study_n}, "
        f"{where}) at {clause}. Where the bounds clip the data the interval leans toward the clipped "
        "side, and a one-sided test in that direction rejects too often. Give ", _arg("sigma"),
        " if the standard deviation is known (the test is then exact), or test two-sided (its coverage "
        "stays within 4 SE of the level in the study).")
