"""Binary randomized response (Warner 1965) and the two-coin protocol: estimate, SE, CI, tests."""

from __future__ import annotations

import functools

import numpy as np
from scipy import special, stats

from ..._ldp_channels import _two_coin_epsilon
from ...distributions._binomial_rows import bernstein_window, binomial_rows
from ... import _mechanisms
from ..._validation import (
    _check_alternative,
    _check_binary,
    _check_choice,
    _check_confidence_level,
    _check_counts,
    _check_epsilon,
    _check_int,
    _check_probability,
    _show,
)
from ..._warnings import ApproximationWarning, warn
from .._draw_summary import pvalue_from_shares
from ...releasers.release import Release
from ...results import ConfidenceInterval, HTestResult
from .._oc_warnings import coverage_message, worst_coverage
from .._resolve import accepts, composed, provenance, resolve
from ._common import (
    _MIN_SIGNAL,
    _check_estimand,
    _ci_out,
    _estimate_result,
    _fill_doc,
    _not_again,
)

__all__ = [
    "rr_proportion_ci",
    "rr_proportion_estimate",
    "rr_proportion_se",
    "rr_proportion_test",
    "rr_two_sample_test",
]


#: the releases the binary randomized-response functions take (number forms: reports, yes counts)
ACCEPTS = accepts({(_mechanisms.RANDOMIZED_RESPONSE, "reports"), (_mechanisms.TWO_COIN_RR, "reports")},
                  ("rr_proportion_estimate", "rr_proportion_se", "rr_proportion_ci", "rr_proportion_test",
                   "rr_two_sample_test"),
                  "binary randomized-response reports (RandomizedResponseReleaser(epsilon).release(x) or "
                  "TwoCoinRRReleaser(p1, p2).release(x))")


def _rr_setup(reports, yes_count, n, epsilon, p1, p2, *, method, suffix=""):
    """Resolve the inputs of a binary-RR function.

    Returns ``(yes, n, a0, a1, b, eps, label, scalar)``: yes counts (float
    array), respondents per data set, ``P(yes | 0)``, ``P(yes | 1)``, their
    difference ``b = a1 - a0`` computed without cancellation, the level, a
    mechanism label, whether a single data set was given and the resolved
    release (None for numbers).
    """
    rname = "reports" + suffix
    rel = resolve(reports, n, epsilon=epsilon, accepts=ACCEPTS, method=method, name=rname, suffix=suffix,
                  names={"epsilon": "epsilon"}, numbers=False)
    if rel is not None:
        _not_again("yes_count" + suffix, yes_count, f"`{rname}` is a Release")
        if rel.mechanism == _mechanisms.RANDOMIZED_RESPONSE:
            _not_again("p1", p1, f"`{rname}` is a Warner randomized-response Release")
            _not_again("p2", p2, f"`{rname}` is a Warner randomized-response Release")
            epsilon = rel.epsilon
        else:
            if p1 is None or p2 is None:
                raise ValueError(
                    f"`{rname}` is a two-coin Release, which records epsilon but not the coins: "
                    "give `p1` and `p2` as used by the TwoCoinRRReleaser."
                )
        values = np.atleast_1d(rel.value)
    elif reports is not None:
        _not_again("yes_count" + suffix, yes_count, f"`{rname}` is given")
        _not_again("n" + suffix, n, f"`{rname}` is given (n is its last axis)")
        values = np.atleast_1d(_check_binary(reports, rname))
    else:
        if yes_count is None or n is None:
            raise ValueError(f"give either `{rname}` or both `yes_count{suffix}` and `n{suffix}`.")
        n = _check_int(n, "n" + suffix, minimum=1)
        yes = _check_counts(yes_count, n, "yes_count" + suffix, "n" + suffix).astype(float)
        values = None

    if p1 is not None or p2 is not None:
        if p1 is None or p2 is None:
            raise ValueError("give both `p1` and `p2` for the two-coin protocol (or `epsilon` for Warner's RR).")
        if epsilon is not None and rel is None:
            raise ValueError(
                "give either `epsilon` (Warner's RR) or `p1` and `p2` (two-coin), not both; "
                f"got epsilon={_show(epsilon)}."
            )
        p1 = _check_probability(p1, "p1", open_low=True, open_high=True)
        p2 = _check_probability(p2, "p2", open_low=True, open_high=True)
        eps = float(_two_coin_epsilon(p1, p2))
        if rel is not None and not np.isclose(eps, rel.epsilon, rtol=1e-9, atol=0.0):
            raise ValueError(
                f"`p1` = {p1!r}, `p2` = {p2!r} give epsilon = {eps!r}, but the Release records "
                f"epsilon = {rel.epsilon!r}; pass the coins the releaser used."
            )
        a0, a1, b = p1 * p2, 1.0 - p1 + p1 * p2, 1.0 - p1
        label = _mechanisms.printed(_mechanisms.TWO_COIN_RR)
    else:
        if epsilon is None:
            raise ValueError("give `epsilon` (Warner's RR) or `p1` and `p2` (two-coin protocol).")
        eps = _check_epsilon(epsilon)
        a0, a1, b = float(special.expit(-eps)), float(special.expit(eps)), float(np.tanh(0.5 * eps))
        label = _mechanisms.printed(_mechanisms.RANDOMIZED_RESPONSE)
    if values is not None:
        yes = values.sum(axis=-1).astype(float)
        n = int(values.shape[-1])
        scalar = values.ndim == 1
    else:
        scalar = yes.ndim == 0
    if b < _MIN_SIGNAL:
        raise ValueError(
            f"`epsilon` = {eps!r} is too small: P(yes|1) - P(yes|0) = {b!r}, so the variance "
            "factor 1 / (P(yes|1) - P(yes|0))^2 overflows a double and no estimate is meaningful."
        )
    return yes, n, a0, a1, b, eps, label, scalar, rel


_RR_PARAMS_DOC = """
    reports : array_like of {0, 1} or Release, optional
        Privatized yes/no reports, respondents along the last axis (leading axes
        are independent data sets), or the Release of a
        :class:`~dpinfer.RandomizedResponseReleaser` / :class:`~dpinfer.TwoCoinRRReleaser`.
    yes_count, n : int or array_like of int, optional
        Instead of ``reports``: the number of "yes" reports out of ``n``.
    epsilon : float, optional
        Warner's RR level (truth with probability ``e^epsilon / (1 + e^epsilon)``).
    p1, p2 : float, optional
        The two coins of the forced-response protocol (instead of ``epsilon``)."""


#: the mechanism code of each randomized-response variant's printed name


def rr_proportion_estimate(reports=None, *, yes_count=None, n=None, epsilon=None, p1=None, p2=None):
    """Proportion of "yes" answers from randomized-response reports, with the unbiased estimate.

    Parameters
    ----------
    {params}

    Returns
    -------
    PointEstimate
        ``estimate_raw``: the unbiased ``p_hat = (y / n - a0) / (a1 - a0)`` with
        ``a0 = P(yes | 0)``, ``a1 = P(yes | 1)``, one per data set (it can fall
        outside [0, 1]); ``estimate``: ``p_hat`` clipped to [0, 1].
        ``float(result)`` is ``estimate`` for one data set.

    Raises
    ------
    TypeError, ValueError
        For invalid reports, counts or channel parameters, or a mismatched Release.

    See Also
    --------
    rr_proportion_se, rr_proportion_ci, rr_proportion_test

    Notes
    -----
    The yes-rate is linear in the proportion, ``E[y / n] = a0 + (a1 - a0) p``,
    so ``p_hat`` is unbiased both for the population proportion and for the
    sample's own proportion (checked by simulation in the test suite).

    Examples
    --------
    >>> from dpinfer import rr_proportion_estimate
    >>> round(float(rr_proportion_estimate(yes_count=620, n=1000, epsilon=1.0)), 4)
    0.7597
    >>> est = rr_proportion_estimate(yes_count=10, n=100, epsilon=0.5)
    >>> est.estimate, round(est.estimate_raw, 4)
    (0.0, -1.1332)
    """
    yes, n, a0, a1, b, eps, label, scalar, _ = _rr_setup(reports, yes_count, n, epsilon, p1, p2,
                                                         method="rr_proportion_estimate")
    raw = (yes / n - a0) / b
    return _estimate_result(raw, np.clip(raw, 0.0, 1.0), n, scalar, estimate_name="proportion",
                            parameter_space="[0, 1]",
                            method=f"{label[0].upper()}{label[1:]} estimate of a proportion",
                            epsilon=eps, mechanism=_mechanisms.code(label))


def _rr_se(yes, n, a0, a1, b, estimand):
    lam = yes / n
    if estimand == "population":
        var = lam * (1.0 - lam) / n
    else:
        pbar = np.clip((lam - a0) / b, 0.0, 1.0)
        var = (pbar * a1 * (1.0 - a1) + (1.0 - pbar) * a0 * (1.0 - a0)) / n
    return np.sqrt(var) / b


def rr_proportion_se(reports=None, *, yes_count=None, n=None, epsilon=None, p1=None, p2=None,
                     estimand="population"):
    """Estimated standard error of :func:`rr_proportion_estimate`.

    Parameters
    ----------
    {params}
    estimand : {{'population', 'sample'}}, default 'population'
        Population proportion (iid respondents) or the sample's own proportion.

    Returns
    -------
    float or ndarray
        The plug-in standard error (see Notes).

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    rr_proportion_estimate, rr_proportion_ci

    Notes
    -----
    With ``lambda = a0 + (a1 - a0) p`` the yes-probability:

    * population: ``Var(p_hat) = lambda (1 - lambda) / (n (a1 - a0)^2)``, estimated
      with ``lambda_hat = y / n``;
    * sample (the answers fixed): ``Var(p_hat | x) = [p_bar a1 (1 - a1) +
      (1 - p_bar) a0 (1 - a0)] / (n (a1 - a0)^2)``, estimated with ``p_hat``
      clipped to [0, 1].

    The two differ by exactly ``p_bar (1 - p_bar) / n``, the sampling variance
    of the true answers.  Both formulas are checked by simulation in the tests.

    Examples
    --------
    >>> from dpinfer import rr_proportion_se
    >>> round(rr_proportion_se(yes_count=620, n=1000, epsilon=1.0), 4)
    0.0332
    >>> round(rr_proportion_se(yes_count=620, n=1000, epsilon=1.0, estimand='sample'), 4)
    0.0303
    """
    estimand = _check_estimand(estimand)
    yes, n, a0, a1, b, _, _, scalar, _ = _rr_setup(reports, yes_count, n, epsilon, p1, p2, method="rr_proportion_se")
    se = _rr_se(yes, n, a0, a1, b, estimand)
    return float(se) if scalar else se


def _cp_bounds(yes, n, tail):
    """Clopper-Pearson bounds for a binomial rate with tail probability ``tail`` each side."""
    with np.errstate(invalid="ignore"):
        low = np.where(yes > 0, stats.beta.ppf(tail, np.maximum(yes, 1e-300), n - yes + 1), 0.0)
        high = np.where(yes < n, stats.beta.ppf(1.0 - tail, yes + 1, np.maximum(n - yes, 1e-300)), 1.0)
    return low, high


def _rr_exact_ci(yes, n, a0, b, level, alternative):
    tail = (1.0 - level) / (2.0 if alternative == "two-sided" else 1.0)
    lam_lo, lam_hi = _cp_bounds(yes, n, tail)
    low = np.clip((lam_lo - a0) / b, 0.0, 1.0)
    high = np.clip((lam_hi - a0) / b, 0.0, 1.0)
    if alternative == "less":
        low = np.zeros_like(high)
    elif alternative == "greater":
        high = np.ones_like(low)
    return low, high


#: Widest window of yes counts summed for an exact coverage (beyond it, no check).
_MAX_COVERAGE_WINDOW = 2_000_000

#: Largest (values of p) x (yes counts) block summed at once by the coverage check.
_COVERAGE_BLOCK = 1 << 22


def _rr_wald_bounds(yes, n, a0, a1, b, level, alternative, estimand):
    est = (yes / n - a0) / b
    se = _rr_se(yes, n, a0, a1, b, estimand)
    z = _wald_z(level, alternative)
    low = np.clip(est - z * se, 0.0, 1.0) if alternative != "less" else np.zeros_like(est)
    high = np.clip(est + z * se, 0.0, 1.0) if alternative != "greater" else np.ones_like(est)
    return low, high


@functools.lru_cache(maxsize=64)
def _wald_z(level, alternative):
    """The Wald interval's normal quantile (cached by the public level and side)."""
    return float(stats.norm.ppf(1.0 - (1.0 - level) / (2.0 if alternative == "two-sided" else 1.0)))


def _rr_wald_coverage(p, n, a0, a1, b, level, alternative):
    """Exact coverage of the (population) Wald interval at each ``p`` of an array (NaN: too costly).

    The yes count is Binomial(n, a0 + b p); the sum runs over the counts holding all
    but 1e-15 of the mass on each side (Bernstein's bound,
    :func:`~dpinfer.distributions._binomial_rows.bernstein_window`, so it is exact to
    about 2e-15 plus the closed-form pmf rows' rounding,
    :func:`~dpinfer.distributions._binomial_rows.binomial_rows`), each row over its own
    window.  A ``p`` whose window is wider than ``_MAX_COVERAGE_WINDOW`` counts gets NaN.
    """
    p = np.atleast_1d(np.asarray(p, dtype=float))
    lam = a0 + b * p
    lo, hi = bernstein_window(n, lam, 1e-15)
    out = np.full(p.size, np.nan)
    fits = np.flatnonzero(hi - lo <= _MAX_COVERAGE_WINDOW)
    if fits.size == 0:
        return out
    first = np.min(lo[fits])
    y = np.arange(first, np.max(hi[fits]) + 1.0)
    low, high = _rr_wald_bounds(y, n, a0, a1, b, level, alternative, "population")
    width = int(np.max(hi[fits] - lo[fits])) + 1
    step = np.arange(width, dtype=float)
    rows = max(1, _COVERAGE_BLOCK // width)
    for start in range(0, fits.size, rows):
        idx = fits[start:start + rows]
        x = np.minimum(lo[idx, None] + step, hi[idx, None])  # each row's own window (repeats masked below)
        at = (x - first).astype(np.int64)
        pi = p[idx, None]
        covered = (low[at] <= pi) & (pi <= high[at]) & (lo[idx, None] + step <= hi[idx, None])
        out[idx] = np.sum(np.where(covered, binomial_rows(n, lam[idx], x), 0.0), axis=1)
    return out


def _rr_wald_message(lows, highs, n, a0, a1, b, level, alternative):
    """ApproximationWarning text when the Wald interval's exact coverage falls short, else None.

    Judged by the shared rule over the interval's values of p
    (:mod:`dpinfer.inference._oc_warnings`); values whose yes-count window is too
    wide to sum are skipped.
    """
    found = worst_coverage(lambda t: _rr_wald_coverage(t, n, a0, a1, b, level, alternative),
                           lows, highs, n, level)
    if found is None:
        return None
    return coverage_message(
        f"The Wald interval covers too little here: for n = {n} and P(yes|1) = {a1:.6g}, "
        f"P(yes|0) = {a0:.6g} its exact coverage", *found, level,
        "The exact interval (method='exact', the default) has guaranteed coverage.", name="p")


def rr_proportion_ci(reports=None, *, yes_count=None, n=None, epsilon=None, p1=None, p2=None,
                     confidence_level=0.95, alternative="two-sided", method="exact", estimand="population"):
    """Confidence interval for the proportion behind randomized-response reports.

    Parameters
    ----------
    {params}
    confidence_level : float, default 0.95
    alternative : {{'two-sided', 'less', 'greater'}}, default 'two-sided'
        ``'less'`` gives an upper bound ``[0, high]``, ``'greater'`` a lower bound ``[low, 1]``.
    method : {{'exact', 'wald'}}, default 'exact'
        ``'exact'``: Clopper-Pearson interval for the yes-probability mapped
        through the channel and clipped to [0, 1]; ``'wald'``:
        ``p_hat -/+ z se`` clipped to [0, 1].
    estimand : {{'population', 'sample'}}, default 'population'
        Which standard error the Wald interval uses (see :func:`rr_proportion_se`).
        The exact interval is the same for both (see Notes).

    Returns
    -------
    ConfidenceInterval or ndarray
        One interval per data set; an array of shape ``(..., 2)`` holding
        ``[low, high]`` when several data sets are given.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    Warns
    -----
    ApproximationWarning
        For ``method='wald'`` (population estimand): when the interval's exact
        coverage (a sum over the binomial yes count) at a proportion inside it
        (a grid over the closed interval that cannot miss a shortfall wider than
        1/(4n) or 1/256 of the interval, see ``dpinfer.inference._oc_warnings``) is
        below ``level - 0.2 (1 - level)``, 0.94 at 95%.  Example: 0.73 at p = 0.98, n = 20, epsilon = 3.

    See Also
    --------
    rr_proportion_test, rr_proportion_estimate

    Notes
    -----
    Under iid sampling the number of yes reports is exactly
    ``Binomial(n, lambda(p))`` with ``lambda(p) = a0 + (a1 - a0) p`` increasing
    in ``p``, so the Clopper-Pearson interval ``[L, U]`` for ``lambda`` maps to
    ``[(L - a0)/(a1 - a0), (U - a0)/(a1 - a0)]`` with coverage at least the
    nominal level; clipping to [0, 1] cannot lose coverage because ``p`` lies
    there.  It is the inversion of :func:`rr_proportion_test`.  For the
    sample's own proportion (answers fixed) the yes count is
    ``Binomial(n p_bar, a1) + Binomial(n (1 - p_bar), a0)``: same mean, lighter
    tails than the binomial (Hoeffding 1956), so the exact interval is
    conservative for that estimand too (exact coverage at least 0.955 over
    ``n`` in {{30, 100, 2000}} and ``epsilon`` in {{0.5, 1, 3}}, checked in the
    tests).  Coverage at
    ``p`` in {{0.05, 0.2, 0.5}}, ``n = 2000``, epsilon in {{0.5, 1, 3}} is
    computed exactly (a sum over every yes count) in the tests and in
    ``validation/ldp_coverage.py``: 0.951-0.955 for the exact interval,
    0.948-0.949 for Wald.

    References
    ----------
    Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.
    Hoeffding, W. (1956). On the distribution of the number of successes in
    independent trials. Ann. Math. Statist. 27, 713-721.

    Examples
    --------
    >>> from dpinfer import rr_proportion_ci
    >>> print(rr_proportion_ci(yes_count=620, n=1000, epsilon=1.0))
    95 percent confidence interval: [0.6928044, 0.8250106]
    """
    level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    method = _check_choice(method, "method", ("exact", "wald"))
    estimand = _check_estimand(estimand)
    yes, n, a0, a1, b, _, _, scalar, _ = _rr_setup(reports, yes_count, n, epsilon, p1, p2, method="rr_proportion_ci")
    if method == "exact":
        low, high = _rr_exact_ci(yes, n, a0, b, level, alternative)
    else:
        low, high = _rr_wald_bounds(yes, n, a0, a1, b, level, alternative, estimand)
        if estimand == "population":
            message = _rr_wald_message(low, high, n, a0, a1, b, level, alternative)
            if message is not None:
                warn(message, ApproximationWarning)
    return _ci_out(low, high, level, scalar)


def rr_proportion_test(reports=None, p0=0.5, *, yes_count=None, n=None, epsilon=None, p1=None, p2=None,
                       alternative="two-sided", confidence_level=0.95):
    """Exact binomial test of ``H0: p = p0`` from randomized-response reports.

    Parameters
    ----------
    {params}
    p0 : float, default 0.5
        Null proportion in [0, 1].
    alternative : {{'two-sided', 'less', 'greater'}}, default 'two-sided'
    confidence_level : float, default 0.95
        Level of the exact interval returned in ``conf_int``.

    Returns
    -------
    HTestResult or ndarray
        For one data set: ``statistic`` = number of yes reports, ``pvalue``,
        ``estimate`` = ``p_hat`` clipped to [0, 1], ``estimate_raw`` = the unbiased
        ``p_hat`` (which can leave [0, 1]), ``conf_int`` = the exact
        interval of :func:`rr_proportion_ci` with the same alternative.  For
        several data sets: the array of p-values.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    rr_proportion_ci, rr_two_sample_test

    Notes
    -----
    Under ``H0`` (iid respondents) the yes count is ``Binomial(n, lambda0)`` with
    ``lambda0 = a0 + (a1 - a0) p0``, so the p-value is an exact binomial tail:
    ``P(Y >= y)`` for ``'greater'``, ``P(Y <= y)`` for ``'less'``, and twice the
    smaller tail (capped at 1) for ``'two-sided'`` (the central test, whose
    inversion is the Clopper-Pearson interval; R's ``binom.test`` uses a
    likelihood-ordered two-sided p-value instead).  The test is valid (size at
    most alpha) at every ``p0``.

    Examples
    --------
    >>> from dpinfer import rr_proportion_test
    >>> res = rr_proportion_test(yes_count=620, n=1000, p0=0.5, epsilon=1.0)
    >>> res.pvalue < 1e-10, round(res.estimate, 4)
    (True, 0.7597)
    >>> print(res.conf_int)
    95 percent confidence interval: [0.6928044, 0.8250106]

    The unbiased estimate can leave [0, 1]; ``estimate`` is then projected onto it
    and the unbiased value kept in ``estimate_raw``:

    >>> res = rr_proportion_test(yes_count=10, n=100, epsilon=0.5)
    >>> res.estimate, round(res.estimate_raw, 3)
    (0.0, -1.133)
    """
    p0 = _check_probability(p0, "p0")
    alternative = _check_alternative(alternative)
    level = _check_confidence_level(confidence_level)
    yes, n, a0, a1, b, eps, label, scalar, rec = _rr_setup(reports, yes_count, n, epsilon, p1, p2,
                                                           method="rr_proportion_test")
    lam0 = a0 + b * p0
    p_less = stats.binom.cdf(yes, n, lam0)
    p_greater = stats.binom.sf(yes - 1, n, lam0)
    pvalue = pvalue_from_shares(p_greater, p_less, alternative)
    if not scalar:
        return pvalue
    low, high = _rr_exact_ci(yes, n, a0, b, level, alternative)
    return HTestResult(
        statistic=float(yes), pvalue=float(pvalue), null_value=p0, alternative=alternative,
        method=f"Exact binomial test on {label} reports", estimate=float(np.clip((yes / n - a0) / b, 0.0, 1.0)),
        estimate_raw=float((yes / n - a0) / b),
        conf_int=ConfidenceInterval(float(low), float(high), level), epsilon=eps, delta=0.0,
        data_name=f"{int(yes)} yes reports out of n = {n} (P(yes|1) = {a1:.6g}, P(yes|0) = {a0:.6g})",
        statistic_name="number of yes reports", estimate_name="proportion", null_name="proportion",
        mechanism=label, parameter=n, parameter_name="number of trials", **provenance(rec),
        pvalue_function=functools.partial(_rr_pvalues, float(yes), n, a0, b, alternative),
    )


def _rr_pvalues(yes, n, a0, b, alternative, values):
    """The exact binomial test's p-value at each null proportion in ``values`` (the confidence
    curve): the yes count is Binomial(n, a0 + b p) under ``p``."""
    values = np.asarray(values, dtype=float)
    lam = a0 + b * np.clip(values, 0.0, 1.0)
    p = pvalue_from_shares(stats.binom.sf(yes - 1, n, lam), stats.binom.cdf(yes, n, lam), alternative)
    p = np.where((values >= 0.0) & (values <= 1.0), p, np.nan)
    return p if values.ndim else float(p)


def rr_two_sample_test(reports1=None, reports2=None, *, yes_count1=None, n1=None, yes_count2=None, n2=None,
                       epsilon=None, p1=None, p2=None, alternative="two-sided", confidence_level=0.95,
                       composition=None):
    """Compare two groups' proportions from randomized-response reports (z test).

    Parameters
    ----------
    reports1, reports2 : array_like of {{0, 1}} or Release, optional
        The two groups' reports (respondents on the last axis) or their Releases
        (each then carries its own channel).
    yes_count1, n1, yes_count2, n2 : int, optional
        Instead of reports: yes counts out of group sizes.
    epsilon, p1, p2 : float, optional
        The channel of every group given as an array, as counts or as a
        two-coin Release (Warner's ``epsilon`` or the two coins ``p1``,
        ``p2``); a Warner Release carries its own.
    alternative : {{'two-sided', 'less', 'greater'}}, default 'two-sided'
        About ``d = p_group1 - p_group2`` versus 0.
    confidence_level : float, default 0.95
        Level of the Wald interval for ``d`` in ``conf_int``.
    composition : {None, 'sequential', 'parallel'}, default None
        How the two groups' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation); the one rule of every method (see :func:`~dpinfer.prop_test`).

    Returns
    -------
    HTestResult or ndarray
        ``statistic`` = z, ``estimate`` = ``p_hat1 - p_hat2`` clipped to [-1, 1],
        ``estimate_raw`` = the unclipped (unbiased) difference, ``null_value`` = 0,
        ``conf_int`` = unpooled Wald interval for the difference, ``epsilon``
        the two groups' together by ``composition`` (their sum by default).
        Arrays of p-values when several data sets are given.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    rr_proportion_test

    Notes
    -----
    ``z = (p_hat1 - p_hat2) / se0`` where ``se0`` is the population standard
    error under ``H0: p_group1 = p_group2 = p``, with ``p`` estimated by the
    pooled ``(n1 p_hat1 + n2 p_hat2) / (n1 + n2)`` clipped to [0, 1]:
    ``se0^2 = sum_g lambda_g(p) (1 - lambda_g(p)) / (n_g (a1_g - a0_g)^2)``.
    The groups may use different channels (e.g. different epsilons; pass the
    groups as Releases then).  The result's ``epsilon`` is the sum of the two
    groups' levels (sequential composition, valid even if a person answered in
    both groups), or the larger level when the releases record disjoint groups of
    one budget's parallel set (or ``composition='parallel'`` states it): when every
    person is in one group only and membership is public, each report depends on
    its own respondent only, so nobody loses more than their group's level.
    Normal approximation: its size is checked by simulation in the tests and in
    ``validation/ldp_gof_size.py`` (0.047-0.054 at n = 500 and 2000).

    Examples
    --------
    >>> from dpinfer import rr_two_sample_test
    >>> res = rr_two_sample_test(yes_count1=330, n1=500, yes_count2=280, n2=500, epsilon=1.0)
    >>> round(res.statistic, 3), round(res.estimate, 3)
    (3.242, 0.216)
    """
    alternative = _check_alternative(alternative)
    level = _check_confidence_level(confidence_level)
    # a Warner Release carries its own channel: the channel arguments then serve the other group
    own = [isinstance(r, Release) and r.mechanism == _mechanisms.RANDOMIZED_RESPONSE for r in (reports1, reports2)]
    if all(own) and not (epsilon is None and p1 is None and p2 is None):
        raise ValueError("`epsilon`, `p1` and `p2` must not be given when both groups are Warner RR Releases.")
    ch1 = (None, None, None) if own[0] else (epsilon, p1, p2)
    ch2 = (None, None, None) if own[1] else (epsilon, p1, p2)
    y1, m1, a01, a11, b1, eps1, label, sc1, rec1 = _rr_setup(reports1, yes_count1, n1, *ch1, suffix="1",
                                                         method="rr_two_sample_test")
    y2, m2, a02, a12, b2, eps2, _, sc2, rec2 = _rr_setup(reports2, yes_count2, n2, *ch2, suffix="2",
                                                     method="rr_two_sample_test")
    composition, epsilon, _ = composed(composition, (rec1, rec2), (eps1, eps2), (0.0, 0.0))
    e1 = (y1 / m1 - a01) / b1
    e2 = (y2 / m2 - a02) / b2
    pooled = np.clip((m1 * e1 + m2 * e2) / (m1 + m2), 0.0, 1.0)
    lam1 = a01 + b1 * pooled
    lam2 = a02 + b2 * pooled
    se0 = np.sqrt(lam1 * (1 - lam1) / (m1 * b1 ** 2) + lam2 * (1 - lam2) / (m2 * b2 ** 2))
    diff = e1 - e2
    z = diff / se0
    pvalue = pvalue_from_shares(stats.norm.sf(z), stats.norm.cdf(z), alternative)
    if not (sc1 and sc2):
        return pvalue
    se1 = _rr_se(y1, m1, a01, a11, b1, "population")
    se2 = _rr_se(y2, m2, a02, a12, b2, "population")
    se = float(np.hypot(se1, se2))
    crit = stats.norm.ppf(1.0 - (1.0 - level) / (2.0 if alternative == "two-sided" else 1.0))
    # Both ends clipped to the parameter space [-1, 1]: a raw difference outside it
    # (possible, the estimates are unbiased, not clipped) then gives a boundary point.
    low = float(np.clip(diff - crit * se, -1.0, 1.0)) if alternative != "less" else -1.0
    high = float(np.clip(diff + crit * se, -1.0, 1.0)) if alternative != "greater" else 1.0
    return HTestResult(
        statistic=float(z), pvalue=float(pvalue), null_value=0.0, alternative=alternative,
        method="Two-sample z test on randomized-response reports",
        estimate=float(np.clip(diff, -1.0, 1.0)), estimate_raw=float(diff),
        conf_int=ConfidenceInterval(low, high, level),
        epsilon=epsilon, delta=0.0, composition=composition,
        data_name=f"{int(y1)} of {m1} vs {int(y2)} of {m2} yes reports",
        statistic_name="z", estimate_name="difference in proportions",
        null_name="difference in proportions", mechanism=label, **provenance(rec1, rec2),
    )


for _f in (rr_proportion_estimate, rr_proportion_se, rr_proportion_ci, rr_proportion_test):
    _fill_doc(_f, params=_RR_PARAMS_DOC)
_fill_doc(rr_two_sample_test)
