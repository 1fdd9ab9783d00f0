"""Kaplan-Meier curves, pointwise intervals and the median survival from a private life table."""

from __future__ import annotations

import warnings

import numpy as np

from ..._streams import _mc_note, _stream
from ..._validation import _check_choice, _check_confidence_level, _check_n_sim
from .._resolve import provenance
from ._result import KaplanMeierResult
from ._size import coverage_warning
from ._table import consistent, hazards, km, life_table, simulate

__all__ = ["kaplan_meier"]

#: the estimators of the curve (see :func:`kaplan_meier`, Notes)
ESTIMATORS = ("actuarial", "km")
#: the interval methods (see :func:`kaplan_meier`, Notes)
METHODS = ("percentile", "bootstrap")
_METHOD_WORDS = {
    "percentile": "parametric bootstrap percentiles",
    "bootstrap": "bias-corrected parametric bootstrap on the cumulative-hazard scale",
}
#: ``S`` is floored here before its logarithm (a curve at 0 has an infinite cumulative hazard)
_FLOOR = 1e-12


def kaplan_meier(release, *, estimator="actuarial", confidence_level=0.95, method="percentile", n_sim=2000,
                 rng=None):
    """Kaplan-Meier curves per arm from a private life table, with intervals that account for the noise.

    Parameters
    ----------
    release : Release
        A life table from :class:`~dpinfer.LifeTableReleaser` (kind ``'life_table'``).
    estimator : {'actuarial', 'km'}, default 'actuarial'
        ``'actuarial'``: the life-table estimate, the censorings of an interval at risk
        for half of it; ``'km'``: the Kaplan-Meier estimate on the grouped times (the
        censorings at risk through the interval), what ``survfit`` gives on the grouped
        data (see Notes: biased when censoring falls inside wide intervals).
    confidence_level : float, default 0.95
        Level of the pointwise intervals and of the median's interval.
    method : {'percentile', 'bootstrap'}, default 'percentile'
        How the intervals are made from the simulated releases (see Notes).
    n_sim : int, default 2000
        Simulated releases behind the intervals.
    rng : None, int, SeedSequence or numpy.random.Generator, keyword-only
        None (the default): a stream derived from the public release (the same
        intervals on every re-run); otherwise the generator to draw from.

    Returns
    -------
    KaplanMeierResult
        ``time`` (the breaks), ``groups``, ``n``, the consistent table (``n_risk``,
        ``n_event``, ``n_censor``), ``surv``, ``std_err``, ``lower``, ``upper``,
        ``median`` with ``median_lower`` and ``median_upper``, the privacy record;
        prints like R's ``summary(survfit(...))``, :meth:`~KaplanMeierResult.to_frame`.

    Raises
    ------
    TypeError, ValueError
        ``release`` is not one life table; a bad ``confidence_level``, ``method`` or ``n_sim``.

    Warns
    -----
    ApproximationWarning
        With the actuarial estimate, where the validation study ``survival`` measured
        the pointwise coverage of 95% intervals of ``method`` below 0.95 by more than
        the shared rule allows (:mod:`dpinfer.inference._oc_warnings`) for the public
        numbers of this call (the smaller arm size and epsilon).  Percentile (the
        default): at the study's rows n = 50 with epsilon >= 3, n = 200 with epsilon
        in [1, 3), and n >= 1000 with epsilon < 3 (worst breaks 0.87 to 0.885, 200
        data sets each); ``'bootstrap'``: everywhere but n >= 1000 with epsilon >= 1.

    Notes
    -----
    **The curve.**  The integer part of each released cell is the count plus
    discrete-Laplace noise (:class:`~dpinfer.LifeTableReleaser`).  The noisy counts
    are projected onto a consistent life table through their cumulative sums
    (Hay et al. 2010): per arm, the noisy cumulative events and censorings are
    replaced by their isotonic (nondecreasing least-squares) fits, rounded and
    capped so that no more patients leave than the public arm size ``n_a``; the
    differences are the events ``d_j`` and censorings ``c_j``, and
    ``r_j = n_a - sum_(k < j) (d_k + c_k)`` are at risk.  Then
    ``S(t_j) = prod_(k <= j) (1 - d_k / r'_k)``.  ``estimator='km'``: ``r' = r``, the
    product-limit estimate with the events and censorings of an interval placed at
    its end (censorings at risk at ``t_j``, R's convention), which is
    ``statsmodels.duration.SurvfuncRight`` (and ``survival::survfit``) on the
    grouped times; with the noise negligible (large epsilon) the two agree
    exactly, as the test suite checks.  ``estimator='actuarial'`` (the default):
    ``r' = r - c / 2`` (Cutler & Ederer 1958), the standard life-table estimate.
    Placing the censorings at the interval's end overstates the number at risk and
    biases the curve upward when censoring falls inside wide intervals: in the
    validation study, 5 intervals with 40% random censoring at n = 1000 per arm,
    the Greenwood interval of the grouped Kaplan-Meier estimate on the
    *confidential* table covered the true survival 65% of the time at 95%; the
    actuarial estimate removes most of that bias.  Times beyond the last break
    were censored at it by the releaser.

    **The intervals** come from a parametric bootstrap at the released table:
    ``n_sim`` life tables are drawn from the grouped-time model at the
    estimated interval probabilities (events ``Binomial(r_j, d_j / r_j)``, then
    censorings ``Binomial(r_j - d_j, c_j / (r_j - d_j))``: the observed shares of
    each interval's outcomes), each is given fresh noise of
    the release's exact law and goes through the same projection and estimate.
    So the spread covers both the sampling of the patients and the noise, and
    the bias of the projection (the isotonic fit at the boundary 0) is
    reproduced.  ``'percentile'`` (the default): the simulated ``S``'s quantiles.
    ``'bootstrap'``: on the cumulative-hazard scale
    ``H = -log S``, the interval ``H_hat - bias -/+ w`` with the bias
    ``median(H*) - H_hat`` and ``w`` half the central ``confidence_level`` range of
    the simulated ``H*`` (quantiles, not a standard deviation: a simulated curve
    that reaches 0 has ``H* = inf`` and must not blow the interval up), clipped at
    ``H >= 0`` and mapped back.  Either interval is widened to hold the estimate
    where it would not (a curve at 0, whose simulated ``H*`` all sit at the floor).
    The validation study ``survival`` (``validation/survival.py``) measured the
    coverage of both; the percentile interval covered best (mean pointwise
    coverage 0.909 to 0.997 over the study's 108 points, worst break 0.87; the
    bias correction over-corrects at small n with strong noise: mean coverage down
    to 0.814, worst break 0.495, at n = 50 per arm, epsilon = 0.5, 20 intervals),
    hence the default.  Where a cell's true count is 0 (no censoring at all, say)
    the noisy count's isotonic fit is still positive on average, a bias the
    percentile interval does not remove: the worst breaks of the study (0.87 to
    0.885) are there, and calls in those regimes warn (below).  ``std_err`` is the standard deviation of the
    simulated ``S``.

    **The median** is the first break where ``S <= 1/2`` (the curve is known only
    at the breaks); its interval runs from the first break where the lower limit
    reaches 1/2 to the first where the upper limit does (Brookmeyer & Crowley
    1982, as ``survfit`` reports it), NaN where a curve never reaches 1/2.

    References
    ----------
    Kaplan, E. L. and Meier, P. (1958).  Nonparametric estimation from incomplete
    observations.  JASA 53, 457-481.

    Cutler, S. J. and Ederer, F. (1958).  Maximum utilization of the life table
    method in analyzing survival.  Journal of Chronic Diseases 8, 699-712.

    Hay, M., Rastogi, V., Miklau, G. and Suciu, D. (2010).  Boosting the accuracy
    of differentially private histograms through consistency.  PVLDB 3, 1021-1032.

    Brookmeyer, R. and Crowley, J. (1982).  A confidence interval for the median
    survival time.  Biometrics 38, 29-41.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import LifeTableReleaser, kaplan_meier
    >>> gen = np.random.default_rng(1)
    >>> time = gen.exponential(10.0, 150)
    >>> rel = LifeTableReleaser(1.0, breaks=[2, 4, 6, 8, 10]).release(time, np.ones(150), rng=2)
    >>> fit = kaplan_meier(rel)
    >>> fit.surv.round(2)
    array([[0.85, 0.67, 0.57, 0.46, 0.42]])
    >>> float(fit.median[0])
    8.0
    """
    table = life_table(release, "kaplan_meier")
    level = _check_confidence_level(confidence_level)
    method = _check_choice(method, "method", METHODS)
    n_sim = _check_n_sim(n_sim, allow_none=False)
    gen, derived = _stream(rng, "kaplan_meier", table.value, table.epsilon, list(table.breaks),
                           list(table.sizes), method, n_sim, level, estimator)
    actuarial = _check_choice(estimator, "estimator", ESTIMATORS) == "actuarial"
    if actuarial:  # the estimate the study measured
        warning = coverage_warning(min(table.sizes), table.epsilon, method)
        if warning is not None:
            warnings.warn(warning, stacklevel=2)
    d, c, r = consistent(table.counts, table.sizes)
    surv = km(d, r, c if actuarial else None)
    sims = km_draws(gen, d, c, r, table.sizes, table.b, n_sim, actuarial)
    lower, upper = bands(surv, sims, level, method)
    lower, upper = np.minimum(lower, surv), np.maximum(upper, surv)  # an interval holds its estimate
    median = first_below(surv, table.breaks)
    rec = table.record
    note = ("consistent table: isotonic fits of the noisy cumulative events and censorings, capped by the "
            f"public arm sizes; times beyond {table.breaks[-1]:g} censored there. "
            + _mc_note(n_sim, None, derived, what="interval", per="simulated releases"))
    return KaplanMeierResult(
        time=table.breaks, groups=table.groups, n=table.sizes, n_risk=r, n_event=d, n_censor=c, surv=surv,
        std_err=sims.std(axis=0, ddof=1), lower=lower, upper=upper, median=median,
        median_lower=first_below(lower, table.breaks), median_upper=first_below(upper, table.breaks),
        confidence_level=level,
        method=(f"{'Actuarial life-table estimate' if actuarial else 'Kaplan-Meier'} from a private life table "
                f"({_METHOD_WORDS[method]}, {n_sim} draws)"),
        epsilon=rec.epsilon, delta=rec.delta, mechanism=rec.mechanism, n_sim=n_sim, note=note, **provenance(rec))


def km_draws(gen, d, c, r, sizes, b, n_sim, actuarial=True):
    """``S`` of ``n_sim`` releases simulated at the interval probabilities of the consistent table ``(d, c, r)``."""
    h, g = hazards(d, c, r)
    ds, cs, rs = consistent(simulate(gen, h, g, sizes, b, n_sim), sizes)
    return km(ds, rs, cs if actuarial else None)


def bands(surv, sims, level, method):
    """Pointwise ``(lower, upper)`` of ``surv`` from the simulated curves ``sims`` (``n_sim`` first)."""
    tail = (1.0 - level) / 2.0
    if method == "percentile":
        lower, upper = np.quantile(sims, [tail, 1.0 - tail], axis=0)
        return lower, upper
    cumhaz = -np.log(np.maximum(surv, _FLOOR))
    drawn = -np.log(np.maximum(sims, _FLOOR))
    low, mid, high = np.quantile(drawn, [tail, 0.5, 1.0 - tail], axis=0)
    centre = 2.0 * cumhaz - mid
    half = (high - low) / 2.0
    return np.exp(-np.maximum(centre + half, 0.0)), np.exp(-np.maximum(centre - half, 0.0))


def first_below(curves, breaks, p=0.5):
    """Per row of ``curves`` (..., J): the first break where the curve is ``<= p``; NaN if none."""
    below = np.asarray(curves) <= p
    index = np.argmax(below, axis=-1)
    return np.where(below.any(axis=-1), np.asarray(breaks)[index], np.nan)
