"""Unary encoding: frequencies, covariance, simultaneous intervals, projected GOF test."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ... import _mechanisms
from ..._validation import (
    _as_real_array,
    _check_binary,
    _check_choice,
    _check_confidence_level,
    _check_epsilon,
    _check_int,
    _show,
)
from ...results import HTestResult
from .._resolve import accepts, provenance, resolve
from ._common import (
    _MIN_SIGNAL,
    _SIM_NOTES,
    _check_bool,
    _check_cov_size,
    _check_estimand,
    _check_p0_vector,
    _estimate_result,
    _fill_doc,
    _not_again,
    _project_simplex,
    _simultaneous,
    _unary_debias,
    _unary_noise_var,
)

__all__ = [
    "unary_frequency_ci",
    "unary_frequency_cov",
    "unary_frequency_estimate",
    "unary_gof_test",
]


#: the releases the unary-encoding functions take (their number forms are raw bits and bit counts)
ACCEPTS = accepts({(_mechanisms.UNARY_ENCODING, "reports")},
                  ("unary_frequency_estimate", "unary_frequency_cov", "unary_frequency_ci", "unary_gof_test"),
                  "unary-encoding reports (UnaryEncodingReleaser(epsilon, categories).release(x))")


def _unary_setup(reports, bit_counts, n, epsilon, *, method):
    """Resolve unary-encoding inputs: ``(bit sums (..., d), n, eps, d, scalar, record or None)``."""
    out = _unary_setup_raw(reports, bit_counts, n, epsilon, method)
    eps = out[2]
    if np.tanh(0.25 * eps) < _MIN_SIGNAL:
        raise ValueError(
            f"`epsilon` = {eps!r} is too small: 2q - 1 = tanh(epsilon / 4) is below {_MIN_SIGNAL}, so the "
            "noise variance overflows a double and no estimate is meaningful."
        )
    return out


def _unary_setup_raw(reports, bit_counts, n, epsilon, method):
    rel = resolve(reports, n, epsilon=epsilon, accepts=ACCEPTS, method=method, name="reports", numbers=False)
    if rel is not None:
        _not_again("bit_counts", bit_counts, "`reports` is a Release")
        bits = rel.value
        if bits.ndim == 1:
            bits = bits[None, :]
        return bits.sum(axis=-2), int(bits.shape[-2]), rel.epsilon, int(bits.shape[-1]), bits.ndim == 2, rel
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
        return bits.sum(axis=-2, dtype=float), int(bits.shape[-2]), eps, int(bits.shape[-1]), bits.ndim == 2, None
    if bit_counts is None or n is None:
        raise ValueError("give `reports` (unary-encoding reports or Release) or both `bit_counts` and `n`.")
    n = _check_int(n, "n", minimum=1)
    s = _as_real_array(bit_counts, "bit_counts")
    if s.ndim == 0 or s.shape[-1] < 2:
        raise ValueError(f"`bit_counts` must have a last axis of length d >= 2; got shape {s.shape}.")
    if np.any(s < 0) or np.any(s > n) or np.any(s != np.floor(s)):
        raise ValueError(f"`bit_counts` must hold whole numbers between 0 and `n` = {n}; got {_show(s)}.")
    return s, n, eps, int(s.shape[-1]), s.ndim == 1, None


def unary_frequency_estimate(reports=None, *, bit_counts=None, n=None, epsilon=None):
    """Category frequencies from unary-encoding (RAPPOR-style) reports, with the unbiased estimate.

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

    Returns
    -------
    PointEstimate
        ``estimate_raw``, shape ``(..., d)``: the unbiased
        ``(s / n - (1 - q)) / (2q - 1)`` with ``q = e^(epsilon/2) / (1 + e^(epsilon/2))``
        (entries can be negative, and need not sum to 1).  ``estimate``: its
        Euclidean projection onto the probability simplex.  ``np.asarray(result)``
        is ``estimate``.

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
    >>> est = unary_frequency_estimate(bit_counts=[600, 400, 300], n=1000, epsilon=2.0)
    >>> est.estimate_raw.round(4)
    array([0.7164, 0.2836, 0.0672])
    >>> est.estimate.round(4)
    array([0.694 , 0.2612, 0.0448])
    """
    s, n, eps, _, _, _ = _unary_setup(reports, bit_counts, n, epsilon, method="unary_frequency_estimate")
    raw = _unary_debias(s / n, eps)
    return _estimate_result(raw, _project_simplex(raw), n, False,
                            estimate_name="category frequencies",
                            parameter_space="the probability simplex",
                            method="Unary-encoding (RAPPOR-style) estimate of category frequencies",
                            epsilon=eps, mechanism=_mechanisms.UNARY_ENCODING)


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
    s, n, eps, _, _, _ = _unary_setup(reports, bit_counts, n, epsilon, method="unary_frequency_cov")
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
    s, n, eps, d, _, _ = _unary_setup(reports, bit_counts, n, epsilon, method="unary_frequency_ci")
    est = _unary_debias(s / n, eps)
    return _simultaneous(est, _unary_cov(s, n, eps, estimand), level, method, d)


_fill_doc(unary_frequency_ci, sim=_SIM_NOTES)


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
    s, n, eps, d, scalar, rec = _unary_setup(reports, bit_counts, n, epsilon, method="unary_gof_test")
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
        statistic=float(stat), pvalue=float(pvalue), null_value=None, alternative="greater",
        method=("Projected chi-square" if projected else "Chi-square")
        + " goodness-of-fit test on unary-encoding reports", estimate=None,
        conf_int=None, epsilon=eps, delta=0.0,
        data_name=f"unary-encoding bit counts out of n = {n}, d = {d}",
        statistic_name="T", null_name="distance between the category frequencies and p0",
        mechanism=_mechanisms.UNARY_ENCODING, parameter=df, parameter_name="df",
        **provenance(rec),
    )
