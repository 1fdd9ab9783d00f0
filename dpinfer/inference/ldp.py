"""Inference on local-DP reports: randomized response, k-RR, unary encoding, local Laplace.

The privacy parameter is called ``epsilon`` throughout (``alpha`` in Duchi, Jordan &
Wainwright 2018 and in the issue that specified this module: the same quantity).

**Estimands.**  Two targets are possible and the variances differ:

* the *population* proportion (frequency, mean) ``p``, when respondents are an iid
  sample: the variance includes the sampling variability of the true answers;
* the *sample's own* proportion ``p_bar = sum(x_i) / n`` (the respondents are the
  population of interest, e.g. a census of a trial's participants): only the
  privacy noise is random.

The debiased estimators are unbiased for both.  Functions that return a variance or
an interval take ``estimand='population'`` (default) or ``'sample'``.

**Input forms.**  Functions take the privatized reports (an array whose last axis
holds the respondents, or the :class:`~dpinfer.Release` a local releaser returned)
or, where stated, sufficient summaries (counts).  Leading axes of an array are
independent data sets (for simulation): a single data set gives a result object or
a float, several give arrays.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import special, stats

from .._validation import (
    _as_real_array,
    _check_alternative,
    _check_choice,
    _check_confidence_level,
    _check_counts,
    _check_epsilon,
    _check_int,
    _check_positive,
    _check_probability,
    _check_real,
    _show,
)
from ..budget import _check_two_sample_composition, _two_sample_privacy
from ..releasers.local import _unary_keep_prob
from ..releasers.randomized_response import _check_binary, _two_coin_epsilon
from ..releasers.release import Release
from .._warnings import ApproximationWarning
from ..results import ConfidenceInterval, HTestResult
from ._release_args import _release_first

__all__ = [
    "krr_frequency_ci",
    "krr_frequency_cov",
    "krr_frequency_estimate",
    "krr_gof_test",
    "ldp_histogram_bins",
    "ldp_histogram_density",
    "local_laplace_mean_ci",
    "local_laplace_mean_estimate",
    "local_laplace_mean_se",
    "project_to_simplex",
    "rr_proportion_ci",
    "rr_proportion_estimate",
    "rr_proportion_se",
    "rr_proportion_test",
    "rr_two_sample_test",
    "unary_frequency_ci",
    "unary_frequency_cov",
    "unary_frequency_estimate",
    "unary_gof_test",
]

_ESTIMANDS = ("population", "sample")
# Below this gap between the channel's rows, 1 / gap^2 (the variance factor) overflows.
_MIN_SIGNAL = 1e-150


# --------------------------------------------------------------------------- kernels
def _unary_debias(bits, epsilon):
    """Unbiased estimate of the one-hot vector from unary-encoding reports.

    ``(bits - (1 - q)) / (2 q - 1)`` with ``q = e^(eps/2) / (1 + e^(eps/2))``;
    ``2q - 1 = tanh(eps/4)``, computed that way for accuracy at small ``eps``.
    Each debiased coordinate has variance ``q (1 - q) / (2q - 1)^2 =
    e^(eps/2) / (e^(eps/2) - 1)^2`` (plus the sampling variance of the indicator).
    Linear, so it also debiases mean bit rates.  Private: assumes ``bits`` holds
    0/1 values (or their means) and ``epsilon`` a positive float.
    """
    epsilon = np.asarray(epsilon, dtype=float)
    flip = _unary_keep_prob(-epsilon)  # 1 - q, without cancellation
    return (np.asarray(bits, dtype=float) - flip) / np.tanh(0.25 * epsilon)


def _unary_noise_var(epsilon):
    """``e^(eps/2) / (e^(eps/2) - 1)^2 = q (1 - q) / (2q - 1)^2`` (private)."""
    h = 0.5 * float(epsilon)
    # e^-h / (1 - e^-h)^2: the same quantity, without overflow at large epsilon
    return float(np.exp(-h) / np.expm1(-h) ** 2)


def _project_simplex(v):
    """Euclidean projection of each vector along the last axis onto the probability simplex.

    Sort-based algorithm (Held, Wolfe & Crowder 1974; Wang & Carreira-Perpinan 2013):
    ``u`` sorted decreasingly, ``rho = max{j : u_j - (sum_{i<=j} u_i - 1) / j > 0}``,
    ``theta = (sum_{i<=rho} u_i - 1) / rho``, result ``max(v - theta, 0)``.
    Private: assumes a finite float array with last axis >= 1.
    """
    v = np.asarray(v, dtype=float)
    # the projection commutes with adding a constant to every coordinate: subtract the
    # largest so that the cumulative sums below keep full precision for huge inputs
    v = v - v.max(axis=-1, keepdims=True)
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    j = np.arange(1, v.shape[-1] + 1)
    cond = u - css / j > 0
    rho = v.shape[-1] - np.argmax(cond[..., ::-1], axis=-1)  # last index where cond holds, 1-based
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(v - theta, 0.0)


def _check_estimand(estimand):
    return _check_choice(estimand, "estimand", _ESTIMANDS)


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False; got {_show(value)}.")
    return bool(value)


def _release_of(reports, mechanisms, name="reports"):
    """The Release if ``reports`` is one (checking mechanism and kind), else None."""
    if not isinstance(reports, Release):
        return None
    if reports.mechanism not in mechanisms or reports.kind != "reports":
        raise ValueError(
            f"`{name}` is a Release of mechanism {reports.mechanism!r} (kind {reports.kind!r}); this function "
            f"needs local-DP reports from mechanism {' or '.join(map(repr, mechanisms))}."
        )
    return reports


def _not_again(name, value, why):
    if value is not None:
        raise ValueError(f"`{name}` must not be given when {why}; got {_show(value)}.")


def _ci_out(low, high, level, scalar):
    if scalar:
        return ConfidenceInterval(float(low), float(high), level)
    return np.stack(np.broadcast_arrays(low, high), axis=-1)


def _pvalues_one_two(p_less, p_greater, alternative):
    if alternative == "less":
        return p_less
    if alternative == "greater":
        return p_greater
    return np.minimum(1.0, 2.0 * np.minimum(p_less, p_greater))


# ----------------------------------------------------------------- binary randomized response
def _rr_setup(reports, yes_count, n, epsilon, p1, p2, *, suffix=""):
    """Resolve the inputs of a binary-RR function.

    Returns ``(yes, n, a0, a1, b, eps, label, scalar)``: yes counts (float
    array), respondents per data set, ``P(yes | 0)``, ``P(yes | 1)``, their
    difference ``b = a1 - a0`` computed without cancellation, the level, a
    mechanism label and whether a single data set was given.
    """
    rname = "reports" + suffix
    rel = _release_of(reports, ("randomized_response", "two_coin_rr"), rname)
    if rel is not None:
        _not_again("yes_count" + suffix, yes_count, f"`{rname}` is a Release")
        _not_again("n" + suffix, n, f"`{rname}` is a Release (n comes from it)")
        _not_again("epsilon", epsilon, f"`{rname}` is a Release (epsilon comes from it)")
        if rel.mechanism == "randomized_response":
            _not_again("p1", p1, f"`{rname}` is a Warner randomized-response Release")
            _not_again("p2", p2, f"`{rname}` is a Warner randomized-response Release")
            epsilon = rel.epsilon
        else:
            if p1 is None or p2 is None:
                raise ValueError(
                    f"`{rname}` is a two-coin Release, which records epsilon but not the coins: "
                    "give `p1` and `p2` as used by the TwoCoinRRReleaser."
                )
        values = np.atleast_1d(np.asarray(rel.value))
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
        label = "two-coin randomized response"
    else:
        if epsilon is None:
            raise ValueError("give `epsilon` (Warner's RR) or `p1` and `p2` (two-coin protocol).")
        eps = _check_epsilon(epsilon)
        a0, a1, b = float(special.expit(-eps)), float(special.expit(eps)), float(np.tanh(0.5 * eps))
        label = "randomized response"
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
    return yes, n, a0, a1, b, eps, label, scalar


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


def rr_proportion_estimate(reports=None, *, yes_count=None, n=None, epsilon=None, p1=None, p2=None):
    """Unbiased estimate of the proportion of "yes" answers from randomized-response reports.

    Parameters
    ----------
    {params}

    Returns
    -------
    float or ndarray
        ``p_hat = (y / n - a0) / (a1 - a0)`` with ``a0 = P(yes | 0)``,
        ``a1 = P(yes | 1)``; one per data set.  Not clipped to [0, 1] (clipping
        would bias it).

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
    >>> round(rr_proportion_estimate(yes_count=620, n=1000, epsilon=1.0), 4)
    0.7597
    """
    yes, n, a0, a1, b, _, _, scalar = _rr_setup(reports, yes_count, n, epsilon, p1, p2)
    est = (yes / n - a0) / b
    return float(est) if scalar else est


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
    yes, n, a0, a1, b, _, _, scalar = _rr_setup(reports, yes_count, n, epsilon, p1, p2)
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


#: Warn when an approximate interval's exact coverage falls below
#: ``level - _RATE_TOLERANCE (1 - level)`` (0.94 at 95%), as for the normal approximation.
_RATE_TOLERANCE = 0.2

#: Widest window of yes counts summed for an exact coverage (beyond it, no check).
_MAX_COVERAGE_WINDOW = 2_000_000


def _rr_wald_bounds(yes, n, a0, a1, b, level, alternative, estimand):
    est = (yes / n - a0) / b
    se = _rr_se(yes, n, a0, a1, b, estimand)
    z = stats.norm.ppf(1.0 - (1.0 - level) / (2.0 if alternative == "two-sided" else 1.0))
    low = np.clip(est - z * se, 0.0, 1.0) if alternative != "less" else np.zeros_like(est)
    high = np.clip(est + z * se, 0.0, 1.0) if alternative != "greater" else np.ones_like(est)
    return low, high


def _rr_wald_coverage(p, n, a0, a1, b, level, alternative):
    """Exact coverage of the (population) Wald interval at ``p``, or None if too costly.

    The yes count is Binomial(n, a0 + b p); the sum runs over the counts holding all
    but 1e-15 of the mass on each side (so it is exact to about 2e-15).
    """
    lam = a0 + b * p
    lo = stats.binom.ppf(1e-15, n, lam)
    hi = stats.binom.isf(1e-15, n, lam)
    lo = 0.0 if not np.isfinite(lo) else max(lo - 1.0, 0.0)
    hi = float(n) if not np.isfinite(hi) else min(hi + 1.0, float(n))
    if hi - lo > _MAX_COVERAGE_WINDOW:
        return None
    y = np.arange(lo, hi + 1.0)
    low, high = _rr_wald_bounds(y, n, a0, a1, b, level, alternative, "population")
    covered = (low <= p) & (p <= high)
    return float(np.sum(stats.binom.pmf(y[covered], n, lam)))


def _rr_wald_message(lows, highs, n, a0, a1, b, level, alternative):
    """ApproximationWarning text when the Wald interval's exact coverage falls short, else None.

    Coverage is computed at 7 values of p spread evenly inside the interval (its
    ends excluded; on the lattice 0, 0.001, ..., 1): the proportions the data do
    not rule out.
    """
    grid = np.unique(np.round(np.linspace(float(np.min(lows)), float(np.max(highs)), 9)[1:-1], 3))
    worst_p, worst = None, 1.0
    for p in grid:
        cov = _rr_wald_coverage(float(p), n, a0, a1, b, level, alternative)
        if cov is not None and cov < worst:
            worst_p, worst = float(p), cov
    if worst_p is None or worst >= level - _RATE_TOLERANCE * (1.0 - level):
        return None
    return (
        f"The Wald interval covers too little here: for n = {n} and P(yes|1) = {a1:.6g}, "
        f"P(yes|0) = {a0:.6g} its exact coverage at p = {worst_p:.4g}, inside the interval, is "
        f"{worst:.4g}, below the nominal {level:g} by more than {_RATE_TOLERANCE * (1.0 - level):.3g} "
        "(20% of 1 - level). The exact interval (method='exact', the default) has guaranteed coverage."
    )


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
        (seven values, ends excluded) is below ``level - 0.2 (1 - level)``, 0.94 at
        95%.  Example: 0.73 at p = 0.98, n = 20, epsilon = 3.

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
    yes, n, a0, a1, b, _, _, scalar = _rr_setup(reports, yes_count, n, epsilon, p1, p2)
    if method == "exact":
        low, high = _rr_exact_ci(yes, n, a0, b, level, alternative)
    else:
        low, high = _rr_wald_bounds(yes, n, a0, a1, b, level, alternative, estimand)
        if estimand == "population":
            message = _rr_wald_message(low, high, n, a0, a1, b, level, alternative)
            if message is not None:
                warnings.warn(message, ApproximationWarning, stacklevel=2)
    return _ci_out(low, high, level, scalar)


@_release_first(("reports",))
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
    yes, n, a0, a1, b, eps, label, scalar = _rr_setup(reports, yes_count, n, epsilon, p1, p2)
    lam0 = a0 + b * p0
    p_less = stats.binom.cdf(yes, n, lam0)
    p_greater = stats.binom.sf(yes - 1, n, lam0)
    pvalue = _pvalues_one_two(p_less, p_greater, alternative)
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
        mechanism=label, parameter=n, parameter_name="number of trials",
    )


@_release_first(("reports1", "reports2"))
def rr_two_sample_test(reports1=None, reports2=None, *, yes_count1=None, n1=None, yes_count2=None, n2=None,
                       epsilon=None, p1=None, p2=None, alternative="two-sided", confidence_level=0.95,
                       composition="sequential"):
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
    composition : {'sequential', 'parallel'}, default 'sequential'
        How the two releases' privacy adds up in the result's ``epsilon``, by
        the rules of :class:`~dpinfer.PrivacyBudget`: ``'sequential'`` records
        the sum of the two groups' levels, which holds under any neighbouring relation (a
        person may be in both samples, or group membership is confidential);
        ``'parallel'`` records the larger level, which holds when the
        groups are disjoint sets of people, membership and sizes are public, and
        a neighbouring data set changes one person's record within their group.

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
    both groups), or with ``composition='parallel'`` the larger level: when every
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
    composition = _check_two_sample_composition(composition)
    # a Warner Release carries its own channel: the channel arguments then serve the other group
    own = [isinstance(r, Release) and r.mechanism == "randomized_response" for r in (reports1, reports2)]
    if all(own) and not (epsilon is None and p1 is None and p2 is None):
        raise ValueError("`epsilon`, `p1` and `p2` must not be given when both groups are Warner RR Releases.")
    ch1 = (None, None, None) if own[0] else (epsilon, p1, p2)
    ch2 = (None, None, None) if own[1] else (epsilon, p1, p2)
    y1, m1, a01, a11, b1, eps1, label, sc1 = _rr_setup(reports1, yes_count1, n1, *ch1, suffix="1")
    y2, m2, a02, a12, b2, eps2, _, sc2 = _rr_setup(reports2, yes_count2, n2, *ch2, suffix="2")
    e1 = (y1 / m1 - a01) / b1
    e2 = (y2 / m2 - a02) / b2
    pooled = np.clip((m1 * e1 + m2 * e2) / (m1 + m2), 0.0, 1.0)
    lam1 = a01 + b1 * pooled
    lam2 = a02 + b2 * pooled
    se0 = np.sqrt(lam1 * (1 - lam1) / (m1 * b1 ** 2) + lam2 * (1 - lam2) / (m2 * b2 ** 2))
    diff = e1 - e2
    z = diff / se0
    pvalue = _pvalues_one_two(stats.norm.cdf(z), stats.norm.sf(z), alternative)
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
        epsilon=_two_sample_privacy(eps1, 0.0, eps2, 0.0, composition)[0], delta=0.0,
        data_name=f"{int(y1)} of {m1} vs {int(y2)} of {m2} yes reports",
        statistic_name="z", estimate_name="difference in proportions",
        null_name="difference in proportions", mechanism=label,
    )


def _fill_doc(func, **parts):
    # shared parameter text; skipped under python -OO, where docstrings are None
    if func.__doc__:
        doc = func.__doc__
        for key, text in parts.items():
            doc = doc.replace("{" + key + "}", text.strip())
        func.__doc__ = doc.replace("{{", "{").replace("}}", "}")


for _f in (rr_proportion_estimate, rr_proportion_se, rr_proportion_ci, rr_proportion_test):
    _fill_doc(_f, params=_RR_PARAMS_DOC)
_fill_doc(rr_two_sample_test)


# ----------------------------------------------------------------------------- k-RR
def _krr_setup(reports, counts, epsilon, k):
    """Resolve k-RR inputs: ``(counts (..., k) float, n (...), eps, k, scalar)``."""
    rel = _release_of(reports, ("krr",))
    if k is None:
        raise ValueError("`k` (the number of categories) must be given; a k-RR Release does not record it.")
    k = _check_int(k, "k", minimum=2)
    if rel is not None:
        _not_again("counts", counts, "`reports` is a Release")
        _not_again("epsilon", epsilon, "`reports` is a Release (epsilon comes from it)")
        eps = rel.epsilon
        labels = np.atleast_1d(np.asarray(rel.value)).astype(np.int64)
        if labels.max() > k - 1:
            raise ValueError(f"the Release holds label {labels.max()}, which needs `k` > {k}; got k = {k}.")
    else:
        if epsilon is None:
            raise ValueError("`epsilon` must be given with k-RR reports or counts.")
        eps = _check_epsilon(epsilon)
        if reports is not None:
            _not_again("counts", counts, "`reports` is given")
            from ..releasers.local import _check_categories

            labels = np.atleast_1d(_check_categories(reports, k, "reports"))
        elif counts is not None:
            c = _as_real_array(counts, "counts")
            if c.ndim == 0 or c.shape[-1] != k:
                raise ValueError(f"`counts` must have last axis of length k = {k}; got shape {c.shape}.")
            if np.any(c < 0) or np.any(c != np.floor(c)):
                raise ValueError(f"`counts` must hold non-negative whole numbers; got {_show(c)}.")
            n = c.sum(axis=-1)
            if np.any(n < 1):
                raise ValueError("`counts` must hold at least one report per data set; got a total of 0.")
            return c, n, eps, k, c.ndim == 1
        else:
            raise ValueError("give `reports` (k-RR reports or Release) or `counts`.")
    flat = labels.reshape(-1, labels.shape[-1])
    offsets = (np.arange(flat.shape[0]) * k)[:, None]
    c = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * k).reshape(labels.shape[:-1] + (k,))
    c = c.astype(float)
    return c, c.sum(axis=-1), eps, k, labels.ndim == 1


def _krr_probs(eps, k):
    """``(q_t, q_o, q_t - q_o)`` of the k-RR channel, the gap without cancellation.

    Raises ValueError when the gap is so small that 1 / gap^2 overflows.
    """
    e = np.exp(-eps)
    q_true = 1.0 / (1.0 + (k - 1) * e)
    q_other = e / (1.0 + (k - 1) * e)
    gap = float(-np.expm1(-eps) / (1.0 + (k - 1) * e))
    if gap < _MIN_SIGNAL:
        raise ValueError(
            f"`epsilon` = {eps!r} is too small: the k-RR channel's rows differ by {gap!r}, so the "
            "variance factor overflows a double and no estimate is meaningful."
        )
    return q_true, q_other, gap


def _krr_debias(c, n, eps, k):
    """Unbiased frequencies ``(c / n - q_o) / (q_t - q_o)`` from report counts ``c``."""
    _, q_o, gap = _krr_probs(eps, k)
    return (c / n[..., None] - q_o) / gap


def krr_frequency_estimate(reports=None, *, counts=None, epsilon=None, k=None, project=False):
    """Unbiased category frequencies from k-RR reports.

    Parameters
    ----------
    reports : array_like of int or Release, optional
        Reported labels in {0..k-1}, respondents on the last axis, or the
        Release of a :class:`~dpinfer.KRRReleaser`.
    counts : array_like, optional
        Instead of reports: counts of each reported label (last axis of length k).
    epsilon : float, optional
        The k-RR level (taken from a Release when one is given).
    k : int
        Number of categories (always required: a Release does not record it).
    project : bool, default False
        Return the Euclidean projection onto the probability simplex (biased but
        a proper distribution) instead of the unbiased estimate.

    Returns
    -------
    ndarray
        Shape ``(..., k)``: ``(c / n - q_o) / (q_t - q_o)`` with
        ``q_t = e^epsilon / (e^epsilon + k - 1)`` and ``q_o = 1 / (e^epsilon + k - 1)``.
        The unbiased estimates sum to 1 but can be negative.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    krr_frequency_cov, krr_frequency_ci, krr_gof_test, project_to_simplex

    Examples
    --------
    >>> from dpinfer import krr_frequency_estimate
    >>> krr_frequency_estimate(counts=[50, 30, 20], epsilon=2.0, k=3).round(4)
    array([0.5783, 0.2843, 0.1374])
    """
    project = _check_bool(project, "project")
    c, n, eps, k, _ = _krr_setup(reports, counts, epsilon, k)
    est = _krr_debias(c, n, eps, k)
    return _project_simplex(est) if project else est


#: Most entries of a covariance matrix (or stack of them) built at once: 2**29
#: doubles are 4 GiB.  Decided from the shape before anything is allocated.
_MAX_COV_ENTRIES = 1 << 29


def _check_cov_size(batch, k, what):
    """Refuse a (batch..., k, k) covariance beyond _MAX_COV_ENTRIES, before allocating it."""
    entries = int(np.prod(batch, dtype=object)) * k * k
    if entries > _MAX_COV_ENTRIES:
        raise ValueError(
            f"the covariance matrix would have {entries:_} entries ({what} = {k}, "
            f"{8 * entries / 2**30:.3g} GiB); at most {_MAX_COV_ENTRIES:_} are built. "
            "Use fewer categories (merge rare ones) or the per-category variances "
            "(the diagonal, see the Notes)."
        )


def _krr_cov(c, n, eps, k, estimand):
    """Covariance of the k-RR estimate, built in place (peak memory ~ one output array).

    Sample estimand: with ``Q = q_o 1 1^T + gap I``, ``Q diag(p) Q^T = q_o^2 S 1 1^T
    + q_o gap (p 1^T + 1 p^T) + gap^2 diag(p)`` (``S = sum p``), so no k x k
    channel matrix is formed.
    """
    _check_cov_size(c.shape[:-1], k, "k")
    q_t, q_o, gap = _krr_probs(eps, k)
    lam = c / n[..., None]
    idx = np.arange(k)
    if estimand == "population":
        cov = lam[..., :, None] * -lam[..., None, :]
        cov[..., idx, idx] += lam
    else:
        pbar = _project_simplex(_krr_debias(c, n, eps, k))
        total = pbar.sum(axis=-1)
        lam_bar = q_o * total[..., None] + gap * pbar
        cov = pbar[..., :, None] + pbar[..., None, :]
        cov *= -q_o * gap
        cov -= (q_o**2 * total)[..., None, None]
        cov[..., idx, idx] += lam_bar - gap**2 * pbar
    cov /= (n * gap**2)[..., None, None]
    return cov


def krr_frequency_cov(reports=None, *, counts=None, epsilon=None, k=None, estimand="population"):
    """Estimated covariance matrix of :func:`krr_frequency_estimate`.

    Parameters
    ----------
    reports, counts, epsilon, k
        As in :func:`krr_frequency_estimate`.
    estimand : {'population', 'sample'}, default 'population'

    Returns
    -------
    ndarray
        Shape ``(..., k, k)``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    krr_frequency_estimate, krr_frequency_ci

    Notes
    -----
    With ``Q`` the channel and ``lambda = Q pi`` the report probabilities:
    population ``(diag(lambda) - lambda lambda^T) / (n (q_t - q_o)^2)``, plug-in
    ``lambda_hat = c / n``; sample (answers fixed, frequencies ``p_bar``)
    ``(diag(Q p_bar) - Q diag(p_bar) Q^T) / (n (q_t - q_o)^2)`` with ``p_bar``
    the simplex projection of the estimate.  Both have rank ``k - 1`` because the
    estimates sum to 1 exactly.

    Examples
    --------
    >>> from dpinfer import krr_frequency_cov
    >>> krr_frequency_cov(counts=[50, 30, 20], epsilon=2.0, k=3).shape
    (3, 3)
    """
    estimand = _check_estimand(estimand)
    c, n, eps, k, _ = _krr_setup(reports, counts, epsilon, k)
    return _krr_cov(c, n, eps, k, estimand)


def _simultaneous(est, cov, level, method, df):
    m = est.shape[-1]
    if method == "bonferroni":
        crit = stats.norm.ppf(1.0 - (1.0 - level) / (2.0 * m))
    else:
        crit = np.sqrt(stats.chi2.ppf(level, df))
    se = np.sqrt(np.clip(np.diagonal(cov, axis1=-2, axis2=-1), 0.0, None))
    low = np.clip(est - crit * se, 0.0, 1.0)
    high = np.clip(est + crit * se, 0.0, 1.0)
    return np.stack([low, high], axis=-1)


_SIM_NOTES = """
    Simultaneous intervals ``pi_hat_j -/+ c se_j``, clipped to [0, 1]:
    ``method='bonferroni'`` uses ``c = z_{1 - (1 - level) / (2m)}`` over the ``m``
    categories; ``method='scheffe'`` uses ``c = sqrt(chi2_{r, level})`` with ``r``
    the rank of the covariance, which covers every linear combination at once
    (projections of the normal confidence ellipsoid) and is wider for small
    ``m``.  Both are asymptotic (normal approximation of the frequency vector)."""


def krr_frequency_ci(reports=None, *, counts=None, epsilon=None, k=None, confidence_level=0.95,
                     method="bonferroni", estimand="population"):
    """Simultaneous confidence intervals for the k category frequencies (k-RR).

    Parameters
    ----------
    reports, counts, epsilon, k
        As in :func:`krr_frequency_estimate`.
    confidence_level : float, default 0.95
        Joint coverage of the k intervals.
    method : {'bonferroni', 'scheffe'}, default 'bonferroni'
    estimand : {'population', 'sample'}, default 'population'

    Returns
    -------
    ndarray
        Shape ``(..., k, 2)``: ``[low, high]`` per category.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    krr_frequency_cov, unary_frequency_ci

    Notes
    -----
    {sim}  Here ``r = k - 1``.

    Examples
    --------
    >>> from dpinfer import krr_frequency_ci
    >>> krr_frequency_ci(counts=[500, 300, 200], epsilon=2.0, k=3).round(3)
    array([[0.523, 0.634],
           [0.233, 0.335],
           [0.093, 0.182]])
    """
    level = _check_confidence_level(confidence_level)
    method = _check_choice(method, "method", ("bonferroni", "scheffe"))
    estimand = _check_estimand(estimand)
    c, n, eps, k, _ = _krr_setup(reports, counts, epsilon, k)
    est = _krr_debias(c, n, eps, k)
    return _simultaneous(est, _krr_cov(c, n, eps, k, estimand), level, method, k - 1)


def _check_p0_vector(p0, name="p0"):
    arr = _as_real_array(p0, name)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"`{name}` must be a 1-d vector of at least 2 probabilities; got shape {arr.shape}.")
    if np.any(arr < 0) or abs(arr.sum() - 1.0) > 1e-9:
        raise ValueError(f"`{name}` must be non-negative and sum to 1; got {_show(arr)} (sum {arr.sum()!r}).")
    return arr


@_release_first(("reports",))
def krr_gof_test(reports=None, p0=None, *, counts=None, epsilon=None, k=None):
    """Chi-square goodness-of-fit test of ``H0: pi = p0`` from k-RR reports.

    Parameters
    ----------
    reports, counts, epsilon
        As in :func:`krr_frequency_estimate`.
    p0 : array_like
        Null category frequencies (length k, non-negative, summing to 1).
    k : int, optional
        Number of categories; defaults to ``len(p0)`` and must match it.

    Returns
    -------
    HTestResult or ndarray
        ``statistic`` = Pearson's X-squared, ``pvalue`` from chi-square with
        ``k - 1`` degrees of freedom.  An array of p-values for several data sets.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    unary_gof_test, krr_frequency_estimate

    Notes
    -----
    The reports are a multinomial sample with probabilities ``lambda = Q pi``;
    under ``H0`` these are ``lambda0 = Q p0`` (the *privatized* null), every
    entry at least ``1 / (e^epsilon + k - 1) > 0``.  Pearson's statistic
    ``sum_j (c_j - n lambda0_j)^2 / (n lambda0_j)`` is asymptotically
    chi-square(k - 1) (Gaboardi & Rogers 2018, section on generalized randomized
    response).  Its size is checked by simulation in the tests and in
    ``validation/ldp_gof_size.py``.

    References
    ----------
    Gaboardi, M. & Rogers, R. (2018). Local private hypothesis testing:
    chi-square tests. ICML, PMLR 80, 1626-1635.

    Examples
    --------
    >>> from dpinfer import krr_gof_test
    >>> res = krr_gof_test(counts=[500, 300, 200], p0=[1/3, 1/3, 1/3], epsilon=2.0)
    >>> round(res.statistic, 3), res.pvalue < 1e-10
    (140.0, True)
    """
    if p0 is None:
        raise ValueError("`p0` (the null category frequencies) must be given.")
    p0 = _check_p0_vector(p0)
    if k is None:
        k = p0.size
    else:
        k = _check_int(k, "k", minimum=2)
        if k != p0.size:
            raise ValueError(f"`p0` must have length k = {k}; got length {p0.size}.")
    c, n, eps, k, scalar = _krr_setup(reports, counts, epsilon, k)
    q_t, q_o, gap = _krr_probs(eps, k)
    lam0 = q_o + gap * p0
    expected = n[..., None] * lam0
    stat = np.sum((c - expected) ** 2 / expected, axis=-1)
    pvalue = stats.chi2.sf(stat, k - 1)
    if not scalar:
        return pvalue
    return HTestResult(
        statistic=float(stat), pvalue=float(pvalue), null_value=0.0, alternative="greater",
        method="Chi-square goodness-of-fit test on k-RR reports (privatized null)", estimate=None,
        conf_int=None, epsilon=eps, delta=0.0,
        data_name=f"k-RR report counts out of n = {int(n)}, k = {k}",
        statistic_name="X-squared", null_name="distance between the category frequencies and p0",
        mechanism="k-ary randomized response", parameter=k - 1, parameter_name="df",
    )


# ----------------------------------------------------------------------- unary encoding
def _unary_setup(reports, bit_counts, n, epsilon):
    """Resolve unary-encoding inputs: ``(bit sums (..., d), n, eps, d, scalar)``."""
    out = _unary_setup_raw(reports, bit_counts, n, epsilon)
    eps = out[2]
    if np.tanh(0.25 * eps) < _MIN_SIGNAL:
        raise ValueError(
            f"`epsilon` = {eps!r} is too small: 2q - 1 = tanh(epsilon / 4) is below {_MIN_SIGNAL}, so the "
            "noise variance overflows a double and no estimate is meaningful."
        )
    return out


def _unary_setup_raw(reports, bit_counts, n, epsilon):
    rel = _release_of(reports, ("unary_encoding",))
    if rel is not None:
        _not_again("bit_counts", bit_counts, "`reports` is a Release")
        _not_again("n", n, "`reports` is a Release (n comes from it)")
        _not_again("epsilon", epsilon, "`reports` is a Release (epsilon comes from it)")
        bits = np.asarray(rel.value)
        if bits.ndim == 1:
            bits = bits[None, :]
        return bits.sum(axis=-2), int(bits.shape[-2]), rel.epsilon, int(bits.shape[-1]), bits.ndim == 2
    if epsilon is None:
        raise ValueError("`epsilon` must be given with unary-encoding reports or bit counts.")
    eps = _check_epsilon(epsilon)
    if reports is not None:
        _not_again("bit_counts", bit_counts, "`reports` is given")
        _not_again("n", n, "`reports` is given (n is its second-to-last axis)")
        bits = _check_binary(reports, "reports")
        if bits.ndim < 2 or bits.shape[-1] < 2:
            raise ValueError(
                f"`reports` must have shape (..., n, d) with d >= 2 (one 0/1 vector per respondent); "
                f"got shape {bits.shape}."
            )
        return bits.sum(axis=-2, dtype=float), int(bits.shape[-2]), eps, int(bits.shape[-1]), bits.ndim == 2
    if bit_counts is None or n is None:
        raise ValueError("give `reports` (unary-encoding reports or Release) or both `bit_counts` and `n`.")
    n = _check_int(n, "n", minimum=1)
    s = _as_real_array(bit_counts, "bit_counts")
    if s.ndim == 0 or s.shape[-1] < 2:
        raise ValueError(f"`bit_counts` must have a last axis of length d >= 2; got shape {s.shape}.")
    if np.any(s < 0) or np.any(s > n) or np.any(s != np.floor(s)):
        raise ValueError(f"`bit_counts` must hold whole numbers between 0 and `n` = {n}; got {_show(s)}.")
    return s, n, eps, int(s.shape[-1]), s.ndim == 1


def unary_frequency_estimate(reports=None, *, bit_counts=None, n=None, epsilon=None, project=False):
    """Unbiased category frequencies from unary-encoding (RAPPOR-style) reports.

    Parameters
    ----------
    reports : array_like of {0, 1} or Release, optional
        Reports of shape ``(..., n, d)`` or the Release of a
        :class:`~dpinfer.UnaryEncodingReleaser`.
    bit_counts, n : optional
        Instead of reports: the number of 1-bits in each coordinate (last axis d)
        out of ``n`` respondents.
    epsilon : float, optional
        The level (taken from a Release when one is given).
    project : bool, default False
        Return the Euclidean projection onto the probability simplex instead.

    Returns
    -------
    ndarray
        Shape ``(..., d)``: ``(s / n - (1 - q)) / (2q - 1)`` with
        ``q = e^(epsilon/2) / (1 + e^(epsilon/2))``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    unary_frequency_cov, unary_frequency_ci, unary_gof_test

    Notes
    -----
    The flip probability and the debiasing use the same ``e^(epsilon/2)``;
    mixing ``e^epsilon`` and ``e^(epsilon/2)`` (a bug in public RAPPOR-style
    code) biases the estimate.  Unbiasedness is checked by simulation in the
    tests.  The unbiased estimates need not sum to 1.

    Examples
    --------
    >>> from dpinfer import unary_frequency_estimate
    >>> unary_frequency_estimate(bit_counts=[600, 400, 300], n=1000, epsilon=2.0).round(4)
    array([0.7164, 0.2836, 0.0672])
    """
    project = _check_bool(project, "project")
    s, n, eps, _, _ = _unary_setup(reports, bit_counts, n, epsilon)
    est = _unary_debias(s / n, eps)
    return _project_simplex(est) if project else est


def _unary_cov(s, n, eps, estimand):
    """Covariance of the unary estimate, built in place (peak memory ~ one output array)."""
    d = s.shape[-1]
    _check_cov_size(s.shape[:-1], d, "d")
    sigma2 = _unary_noise_var(eps)
    idx = np.arange(d)
    if estimand == "population":
        pbar = _project_simplex(_unary_debias(s / n, eps))
        cov = pbar[..., :, None] * -pbar[..., None, :]
        cov[..., idx, idx] += sigma2 + pbar
    else:
        cov = np.zeros(s.shape[:-1] + (d, d))
        cov[..., idx, idx] = sigma2
    cov /= n  # n is an int: one count of respondents for every data set
    return cov


def unary_frequency_cov(reports=None, *, bit_counts=None, n=None, epsilon=None, estimand="population"):
    """Covariance matrix of :func:`unary_frequency_estimate`.

    Parameters
    ----------
    reports, bit_counts, n, epsilon
        As in :func:`unary_frequency_estimate`.
    estimand : {'population', 'sample'}, default 'population'

    Returns
    -------
    ndarray
        Shape ``(..., d, d)``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    unary_frequency_estimate, unary_frequency_ci

    Notes
    -----
    The bits of one report are independent given the category, each with
    variance ``q (1 - q)``, so one debiased report has covariance
    ``sigma^2 I + (diag(pi) - pi pi^T)`` over the population, with
    ``sigma^2 = e^(epsilon/2) / (e^(epsilon/2) - 1)^2``; the estimate's is that
    over ``n``.  For the sample's own frequencies only ``sigma^2 I / n`` remains
    (exact, no plug-in).  The population version plugs in the simplex
    projection of the estimate (positive semi-definite by construction).
    Checked by simulation in the tests.

    Examples
    --------
    >>> from dpinfer import unary_frequency_cov
    >>> unary_frequency_cov(bit_counts=[600, 400, 300], n=1000, epsilon=2.0, estimand='sample').round(6)
    array([[0.00092, 0.     , 0.     ],
           [0.     , 0.00092, 0.     ],
           [0.     , 0.     , 0.00092]])
    """
    estimand = _check_estimand(estimand)
    s, n, eps, _, _ = _unary_setup(reports, bit_counts, n, epsilon)
    return _unary_cov(s, n, eps, estimand)


def unary_frequency_ci(reports=None, *, bit_counts=None, n=None, epsilon=None, confidence_level=0.95,
                       method="bonferroni", estimand="population"):
    """Simultaneous confidence intervals for the d category frequencies (unary encoding).

    Parameters
    ----------
    reports, bit_counts, n, epsilon
        As in :func:`unary_frequency_estimate`.
    confidence_level : float, default 0.95
    method : {'bonferroni', 'scheffe'}, default 'bonferroni'
    estimand : {'population', 'sample'}, default 'population'

    Returns
    -------
    ndarray
        Shape ``(..., d, 2)``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    unary_frequency_cov, krr_frequency_ci

    Notes
    -----
    {sim}  Here ``r = d`` (the covariance is of full rank).

    Examples
    --------
    >>> from dpinfer import unary_frequency_ci
    >>> unary_frequency_ci(bit_counts=[600, 400, 300], n=1000, epsilon=2.0).round(3)
    array([[0.636, 0.797],
           [0.204, 0.363],
           [0.   , 0.142]])
    """
    level = _check_confidence_level(confidence_level)
    method = _check_choice(method, "method", ("bonferroni", "scheffe"))
    estimand = _check_estimand(estimand)
    s, n, eps, d, _ = _unary_setup(reports, bit_counts, n, epsilon)
    est = _unary_debias(s / n, eps)
    return _simultaneous(est, _unary_cov(s, n, eps, estimand), level, method, d)


_fill_doc(krr_frequency_ci, sim=_SIM_NOTES)
_fill_doc(unary_frequency_ci, sim=_SIM_NOTES)


@_release_first(("reports",))
def unary_gof_test(reports=None, p0=None, *, bit_counts=None, n=None, epsilon=None, projected=True):
    """Chi-square goodness-of-fit test of ``H0: pi = p0`` from unary-encoding reports.

    Parameters
    ----------
    reports, bit_counts, n, epsilon
        As in :func:`unary_frequency_estimate`.
    p0 : array_like
        Null category frequencies (length d, non-negative, summing to 1).
    projected : bool, default True
        Use the projected statistic (``d - 1`` degrees of freedom); False uses
        the full null covariance (``d`` degrees of freedom, less power).

    Returns
    -------
    HTestResult or ndarray
        ``statistic`` = the chi-square statistic ``T``, ``parameter`` = its
        degrees of freedom, ``pvalue`` from the chi-square law.  An array of
        p-values for several data sets.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    krr_gof_test, unary_frequency_estimate

    Notes
    -----
    The chi-square test of Gaboardi & Rogers (2018) for bit-flipping (unary
    encoding) reports, in the projected form of Kifer & Rogers (2017).  With
    ``v = pi_hat - p0`` and the null covariance of one debiased report
    ``Sigma0 = diag(p0) - p0 p0^T + sigma^2 I``
    (``sigma^2 = e^(epsilon/2) / (e^(epsilon/2) - 1)^2``):
    ``T = n v^T (P Sigma0 P)^+ v`` with ``P = I - 1 1^T / d`` the projection
    onto the vectors summing to 0 and ``^+`` the Moore-Penrose inverse.  The
    projection discards the direction ``1``, in which ``pi_hat`` carries only
    privacy noise (``sum(pi) = 1`` under both hypotheses), so ``T`` is
    asymptotically chi-square with ``d - 1`` degrees of freedom under ``H0``
    (the rank of ``P Sigma0 P``).  Because ``Sigma0 1 = sigma^2 1``, the
    unprojected ``n v^T Sigma0^{-1} v`` (``projected=False``) equals ``T`` plus
    an independent chi-square(1) noise term ``n (1^T v)^2 / (d sigma^2)``:
    chi-square(d) under ``H0``, same non-centrality, less power.  Size is
    checked by simulation in the tests and in ``validation/ldp_gof_size.py``.

    References
    ----------
    Gaboardi, M. & Rogers, R. (2018). Local private hypothesis testing:
    chi-square tests. ICML, PMLR 80, 1626-1635.
    Kifer, D. & Rogers, R. (2017). A new class of private chi-square hypothesis
    tests. AISTATS, PMLR 54, 991-1000.

    Examples
    --------
    >>> from dpinfer import unary_gof_test
    >>> res = unary_gof_test(bit_counts=[600, 400, 300], n=1000, p0=[1/3, 1/3, 1/3], epsilon=2.0)
    >>> round(res.statistic, 2), res.pvalue < 1e-6
    (174.26, True)
    """
    if p0 is None:
        raise ValueError("`p0` (the null category frequencies) must be given.")
    p0 = _check_p0_vector(p0)
    projected = _check_bool(projected, "projected")
    s, n, eps, d, scalar = _unary_setup(reports, bit_counts, n, epsilon)
    if d != p0.size:
        raise ValueError(f"`p0` must have length d = {d} (the report length); got length {p0.size}.")
    sigma0 = np.diag(p0) - np.outer(p0, p0) + _unary_noise_var(eps) * np.eye(d)
    if projected:
        proj = np.eye(d) - 1.0 / d
        prec, df = np.linalg.pinv(proj @ sigma0 @ proj, hermitian=True), d - 1
    else:
        prec, df = np.linalg.inv(sigma0), d
    v = _unary_debias(s / n, eps) - p0
    stat = n * np.einsum("...i,ij,...j->...", v, prec, v)
    pvalue = stats.chi2.sf(stat, df)
    if not scalar:
        return pvalue
    return HTestResult(
        statistic=float(stat), pvalue=float(pvalue), null_value=0.0, alternative="greater",
        method=("Projected chi-square" if projected else "Chi-square")
        + " goodness-of-fit test on unary-encoding reports", estimate=None,
        conf_int=None, epsilon=eps, delta=0.0,
        data_name=f"unary-encoding bit counts out of n = {n}, d = {d}",
        statistic_name="T", null_name="distance between the category frequencies and p0",
        mechanism="unary encoding", parameter=df, parameter_name="df",
    )


def project_to_simplex(v):
    """Euclidean projection onto the probability simplex (along the last axis).

    Parameters
    ----------
    v : array_like
        Finite real vector(s), last axis of length >= 1.

    Returns
    -------
    ndarray
        ``argmin_w ||w - v||_2`` over ``w >= 0``, ``sum(w) = 1``, for each vector.

    Raises
    ------
    TypeError, ValueError
        For a non-numeric, empty or non-finite input.

    Notes
    -----
    The sort-based O(d log d) algorithm (Held, Wolfe & Crowder 1974; Duchi et al.
    2008; Wang & Carreira-Perpinan 2013).  Checked against a direct solver in
    the tests.

    Examples
    --------
    >>> from dpinfer import project_to_simplex
    >>> project_to_simplex([0.6, 0.5, -0.1])
    array([0.55, 0.45, 0.  ])
    """
    arr = _as_real_array(v, "v")
    if np.max(np.abs(arr)) > 1e300:
        # Partial sums of such entries overflow; no frequency estimate comes near this.
        raise ValueError(f"`v` must lie within +-1e300; got {float(arr.flat[np.argmax(np.abs(arr))])!r}.")
    return _project_simplex(np.atleast_1d(arr))


# ----------------------------------------------------------------------- local Laplace
def _laplace_setup(reports, epsilon, bound):
    rel = _release_of(reports, ("local_laplace",))
    if rel is not None:
        _not_again("epsilon", epsilon, "`reports` is a Release (epsilon comes from it)")
        _not_again("bound", bound, "`reports` is a Release (bound = sensitivity / 2 comes from it)")
        z = np.atleast_1d(np.asarray(rel.value))
        eps, m = rel.epsilon, rel.sensitivity / 2.0
    else:
        if reports is None:
            raise ValueError("`reports` (local Laplace reports or Release) must be given.")
        if epsilon is None or bound is None:
            raise ValueError("`epsilon` and `bound` must be given with local Laplace reports.")
        eps = _check_epsilon(epsilon)
        m = _check_positive(bound, "bound")
        z = np.atleast_1d(_as_real_array(reports, "reports"))
    if z.shape[-1] < 2:
        raise ValueError(f"`reports` must hold at least 2 respondents (last axis); got shape {z.shape}.")
    if np.max(np.abs(z)) > 1e150:
        # Squares of such reports overflow the sample variance.
        raise ValueError(
            f"`reports` must lie within +-1e150 (an answer in [-bound, bound] plus Laplace noise); "
            f"got {float(z.flat[np.argmax(np.abs(z))])!r}."
        )
    if not np.isfinite(2.0 * m / eps):  # Python floats: overflow gives inf, no warning
        raise ValueError(
            f"`bound` / `epsilon` = {m!r} / {eps!r} gives a Laplace scale 2M/epsilon that overflows a double."
        )
    return z, eps, m, z.ndim == 1


def local_laplace_mean_estimate(reports, *, epsilon=None, bound=None, project=False):
    """Unbiased mean of bounded data from local Laplace reports: the mean of the reports.

    Parameters
    ----------
    reports : array_like or Release
        Reports ``Z_i = X_i + (2M/epsilon) W_i`` (respondents on the last axis) or
        the Release of a :class:`~dpinfer.LocalLaplaceReleaser`.
    epsilon, bound : float, optional
        Needed with raw reports (not with a Release); used for validation only.
    project : bool, default False
        Return the projection onto the parameter space ``[-bound, bound]`` (the
        mean clipped; biased but a possible mean) instead of the unbiased mean,
        which can lie outside it.  The same switch as ``project`` of
        :func:`krr_frequency_estimate` and :func:`unary_frequency_estimate`.

    Returns
    -------
    float or ndarray

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    local_laplace_mean_se, local_laplace_mean_ci

    Examples
    --------
    >>> from dpinfer import local_laplace_mean_estimate
    >>> local_laplace_mean_estimate([0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0)
    0.5
    >>> local_laplace_mean_estimate([3.5, 1.5, 2.0, 5.7], epsilon=1.0, bound=1.0, project=True)
    1.0
    """
    project = _check_bool(project, "project")
    z, _, m, scalar = _laplace_setup(reports, epsilon, bound)
    mean = z.mean(axis=-1)
    if project:
        mean = np.clip(mean, -m, m)
    return float(mean) if scalar else mean


def _laplace_se(z, eps, m, estimand):
    n = z.shape[-1]
    if estimand == "population":
        return z.std(axis=-1, ddof=1) / np.sqrt(n)
    return np.full(z.shape[:-1], np.sqrt(2.0) * (2.0 * m / eps) / np.sqrt(n))


def local_laplace_mean_se(reports, *, epsilon=None, bound=None, estimand="population"):
    """Standard error of the local Laplace mean.

    Parameters
    ----------
    reports, epsilon, bound
        As in :func:`local_laplace_mean_estimate`.
    estimand : {'population', 'sample'}, default 'population'

    Returns
    -------
    float or ndarray

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    local_laplace_mean_ci

    Notes
    -----
    Population: ``Var(Z_bar) = (Var(X) + 2 (2M/epsilon)^2) / n``, estimated by the
    sample variance of the reports over ``n``.  Sample's own mean: only the noise
    is random, ``Var(Z_bar | x) = 2 (2M/epsilon)^2 / n`` exactly.

    Examples
    --------
    >>> from dpinfer import local_laplace_mean_se
    >>> local_laplace_mean_se([0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0, estimand='sample')
    1.4142135623730951
    """
    estimand = _check_estimand(estimand)
    z, eps, m, scalar = _laplace_setup(reports, epsilon, bound)
    se = _laplace_se(z, eps, m, estimand)
    return float(se) if scalar else se


def local_laplace_mean_ci(reports, *, epsilon=None, bound=None, confidence_level=0.95,
                          alternative="two-sided", estimand="population"):
    """Confidence interval for the mean of data in ``[-M, M]`` from local Laplace reports.

    Parameters
    ----------
    reports, epsilon, bound
        As in :func:`local_laplace_mean_estimate`.
    confidence_level : float, default 0.95
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    estimand : {'population', 'sample'}, default 'population'

    Returns
    -------
    ConfidenceInterval or ndarray
        Shape ``(..., 2)`` for several data sets.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    local_laplace_mean_se

    Notes
    -----
    Population: ``Z_bar -/+ t_{n-1} s / sqrt(n)``; sample: ``Z_bar -/+ z sqrt(2) (2M/epsilon) / sqrt(n)``.
    Both clipped to ``[-M, M]``.  Normal approximations (the reports are iid with
    finite variance); coverage is checked by simulation in the tests.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import LocalLaplaceReleaser, local_laplace_mean_ci
    >>> rel = LocalLaplaceReleaser(epsilon=1.0, bound=1.0).release(np.full(2000, 0.3), rng=5)
    >>> ci = local_laplace_mean_ci(rel)
    >>> ci.contains(0.3)
    True
    """
    level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    estimand = _check_estimand(estimand)
    z, eps, m, scalar = _laplace_setup(reports, epsilon, bound)
    n = z.shape[-1]
    tail = (1.0 - level) / (2.0 if alternative == "two-sided" else 1.0)
    crit = stats.t.ppf(1.0 - tail, n - 1) if estimand == "population" else stats.norm.ppf(1.0 - tail)
    mean = z.mean(axis=-1)
    se = _laplace_se(z, eps, m, estimand)
    low = np.clip(mean - crit * se, -m, m) if alternative != "less" else np.full_like(mean, -m)
    high = np.clip(mean + crit * se, -m, m) if alternative != "greater" else np.full_like(mean, m)
    return _ci_out(low, high, level, scalar)


# ------------------------------------------------------------------------ LDP histogram
#: 96 / R for the reference roughness R = int f'^2 = 12 (see ldp_histogram_bins).
_BINS_REFERENCE = 8.0


def ldp_histogram_bins(n, epsilon, beta=1.0):
    """Number of bins for the locally private histogram density estimator.

    Parameters
    ----------
    n : int
        Number of respondents, >= 1.
    epsilon : float
        Privacy level, > 0.
    beta : float, default 1.0
        Smoothness of the density (Holder / Sobolev order), in (0, 1].

    Returns
    -------
    int
        ``K = round((n epsilon^2 / 8)^(1 / (2 beta + 2)))``, kept between 1 and ``n``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments, including ``beta > 1``.

    Notes
    -----
    **Rate.**  Balancing the histogram's squared bias ``O(K^(-2 beta))`` against
    its privatized variance ``O(K^2 / (n epsilon^2))`` gives ``K ~ (n
    epsilon^2)^(1/(2 beta + 2))`` and the minimax rate ``(n
    epsilon^2)^(-beta/(beta + 1))`` of Duchi, Jordan & Wainwright (2018, section
    5.2).  A histogram cannot exploit smoothness beyond ``beta = 1`` (its bias is
    first order), hence the restriction; for smoother densities use a
    trigonometric-series estimator instead.

    **Constant (a reference rule).**  For a differentiable density f on [0, 1]
    the estimator of :func:`ldp_histogram_density` has mean integrated squared
    error ``MISE(K) = int f^2 - K S + K (1 - S) / n + 8 K^2 / (n epsilon^2)``
    exactly, ``S = sum_j p_j^2``, and asymptotically ``8 K^2 / (n epsilon^2) +
    R / (12 K^2)`` with ``R = int f'^2`` (the histogram bias of Scott 1979 plus
    the Laplace variance ``2 (2/epsilon)^2`` per bin), minimised by ``K* = (n
    epsilon^2 R / 96)^(1/4)``.  Like Scott's normal-reference bandwidth, the rule
    plugs in a reference value of R instead of estimating it: ``R = 12``, which
    lies between ``R = 4`` for the linear density ``f(x) = 2x`` and ``R = 30.5``
    for the normal-shaped density ``N(1/2, (1/6)^2)`` truncated to [0, 1] (its
    +-3 sd span the interval), so that ``K = (n epsilon^2 / 8)^(1/4)``.  Against the
    grid-minimal exact MISE over ``K = 1, 2, ...`` this choice costs at most
    1.29 times the minimum for ``f(x) = 2x`` and 1.28 times for the normal shape
    whenever ``n epsilon^2 >= 500`` (n from 100 to 1e8, epsilon from 0.1 to 8;
    checked in the tests); the earlier constant 1, ``K = (n epsilon^2)^(1/4)``,
    cost 2.6 times for ``2x``.  Below ``n epsilon^2 = 500`` (three bins or fewer)
    integer effects dominate: two bins cannot show a central hump, and at ``n
    epsilon^2 = 250`` no K is within 1.5 times the minimum for both shapes (1.54
    at best), so the rule can cost up to 2.1 times there.  The same constant is
    used for ``beta < 1``.  A data-driven choice of K would need R
    from the privatized data, i.e. a second release and more budget: this rule
    uses only the public n and epsilon and **spends no privacy**.

    References
    ----------
    Duchi, J. C., Jordan, M. I. & Wainwright, M. J. (2018). Minimax optimal
    procedures for locally private estimation. JASA 113, 182-201.
    Scott, D. W. (1979). On optimal and data-based histograms. Biometrika 66,
    605-610.

    Examples
    --------
    >>> from dpinfer import ldp_histogram_bins
    >>> ldp_histogram_bins(10_000, 1.0)
    6
    >>> ldp_histogram_bins(20_000, 1.0)
    7
    """
    n = _check_int(n, "n", minimum=1)
    epsilon = _check_epsilon(epsilon)
    beta = _check_real(beta, "beta")
    if not (0.0 < beta <= 1.0):
        raise ValueError(
            f"`beta` must lie in (0, 1] (a histogram cannot use more smoothness); got {beta!r}."
        )
    # log scale: n epsilon^2 may overflow; more bins than respondents is never useful
    # (math.log accepts Python ints of any size)
    log_k = (math.log(n) + 2.0 * math.log(epsilon) - math.log(_BINS_REFERENCE)) / (2.0 * beta + 2.0)
    if log_k >= math.log(n):
        return n
    return max(1, round(math.exp(log_k)))


def ldp_histogram_density(reports, *, epsilon=None, project=False):
    """Histogram density estimate on [0, 1] from locally private bin-indicator reports.

    Parameters
    ----------
    reports : array_like or Release
        Reports of shape ``(..., n, K)`` (indicator + Laplace(2/epsilon) noise), or
        the Release of a :class:`~dpinfer.LDPHistogramReleaser`.
    epsilon : float, optional
        Needed with raw reports (validation only; the estimate does not use it).
    project : bool, default False
        Project the bin probabilities onto the simplex first (a proper density).

    Returns
    -------
    ndarray
        Shape ``(..., K)``: density heights ``K * mean_i(Z_ij)`` on the bins
        ``[j/K, (j+1)/K)``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments.

    See Also
    --------
    ldp_histogram_bins

    Notes
    -----
    Unbiased for ``K P(X in bin j)``; each height has variance
    ``K^2 (p_j (1 - p_j) + 8 / epsilon^2) / n``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import LDPHistogramReleaser, ldp_histogram_density
    >>> x = np.random.default_rng(0).beta(2, 2, size=20_000)
    >>> rel = LDPHistogramReleaser(epsilon=2.0, bins=4).release(x, rng=1)
    >>> ldp_histogram_density(rel).round(1)
    array([0.6, 1.4, 1.4, 0.6])
    """
    project = _check_bool(project, "project")
    rel = _release_of(reports, ("ldp_histogram",))
    if rel is not None:
        _not_again("epsilon", epsilon, "`reports` is a Release")
        z = np.asarray(rel.value)
    else:
        if epsilon is None:
            raise ValueError("`epsilon` must be given with raw LDP histogram reports.")
        _check_epsilon(epsilon)
        z = _as_real_array(reports, "reports")
    if z.ndim < 2:
        z = z.reshape(1, -1) if rel is not None else z
    if z.ndim < 2:
        raise ValueError(f"`reports` must have shape (..., n, K); got shape {z.shape}.")
    k = z.shape[-1]
    probs = z.mean(axis=-2)
    if project:
        probs = _project_simplex(probs)
    return k * probs
