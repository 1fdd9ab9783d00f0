"""k-ary randomized response (k-RR): frequencies, covariance, simultaneous intervals, GOF test."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ... import _mechanisms
from ..._validation import (
    _as_real_array,
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
    _check_cov_size,
    _check_estimand,
    _check_p0_vector,
    _estimate_result,
    _fill_doc,
    _not_again,
    _project_simplex,
    _simultaneous,
)

__all__ = [
    "krr_frequency_ci",
    "krr_frequency_cov",
    "krr_frequency_estimate",
    "krr_gof_test",
]


#: the releases the k-RR functions take (their number forms are raw reports and counts)
ACCEPTS = accepts({(_mechanisms.KRR, "reports")},
                  ("krr_frequency_estimate", "krr_frequency_cov", "krr_frequency_ci", "krr_gof_test"),
                  "k-ary randomized-response reports (KRRReleaser(epsilon, categories).release(x))")


def _krr_setup(reports, counts, epsilon, k, *, method):
    """Resolve k-RR inputs: ``(counts (..., k) float, n (...), eps, k, scalar, record or None)``."""
    rel = resolve(reports, epsilon=epsilon, accepts=ACCEPTS, method=method, name="reports", numbers=False)
    if k is None:
        raise ValueError("`k` (the number of categories) must be given; a k-RR Release does not record it.")
    k = _check_int(k, "k", minimum=2)
    if rel is not None:
        _not_again("counts", counts, "`reports` is a Release")
        eps = rel.epsilon
        labels = np.atleast_1d(rel.value).astype(np.int64)
        if labels.max() > k - 1:
            raise ValueError(f"the Release holds label {labels.max()}, which needs `k` > {k}; got k = {k}.")
    else:
        if epsilon is None:
            raise ValueError("`epsilon` must be given with k-RR reports or counts.")
        eps = _check_epsilon(epsilon)
        if reports is not None:
            _not_again("counts", counts, "`reports` is given")
            from ..._validation import _check_categories

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
            return c, n, eps, k, c.ndim == 1, None
        else:
            raise ValueError("give `reports` (k-RR reports or Release) or `counts`.")
    flat = labels.reshape(-1, labels.shape[-1])
    offsets = (np.arange(flat.shape[0]) * k)[:, None]
    c = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * k).reshape(labels.shape[:-1] + (k,))
    c = c.astype(float)
    return c, c.sum(axis=-1), eps, k, labels.ndim == 1, rel


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


def krr_frequency_estimate(reports=None, *, counts=None, epsilon=None, k=None):
    """Category frequencies from k-RR reports: on the simplex, with the unbiased estimate beside.

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

    Returns
    -------
    PointEstimate
        ``estimate_raw``, shape ``(..., k)``: the unbiased
        ``(c / n - q_o) / (q_t - q_o)`` with ``q_t = e^epsilon / (e^epsilon + k - 1)``
        and ``q_o = 1 / (e^epsilon + k - 1)``; it sums to 1 but can be negative.
        ``estimate``: its Euclidean projection onto the probability simplex (a
        distribution; equal to ``estimate_raw`` when that has no negative entry).
        ``np.asarray(result)`` is ``estimate``.

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
    >>> est = krr_frequency_estimate(counts=[50, 30, 20], epsilon=2.0, k=3)
    >>> est.estimate.round(4)
    array([0.5783, 0.2843, 0.1374])
    >>> est = krr_frequency_estimate(counts=[50, 30, 20], epsilon=1.0, k=3)
    >>> est.estimate_raw.round(4), est.estimate.round(4)
    (array([ 0.791 ,  0.2418, -0.0328]), array([0.7746, 0.2254, 0.    ]))
    """
    c, n, eps, k, _, _ = _krr_setup(reports, counts, epsilon, k, method="krr_frequency_estimate")
    raw = _krr_debias(c, n, eps, k)
    return _estimate_result(raw, _project_simplex(raw), n, False,
                            estimate_name="category frequencies",
                            parameter_space="the probability simplex",
                            method="k-ary randomized response estimate of category frequencies",
                            epsilon=eps, mechanism=_mechanisms.KRR)


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
    c, n, eps, k, _, _ = _krr_setup(reports, counts, epsilon, k, method="krr_frequency_cov")
    return _krr_cov(c, n, eps, k, estimand)


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
    c, n, eps, k, _, _ = _krr_setup(reports, counts, epsilon, k, method="krr_frequency_ci")
    est = _krr_debias(c, n, eps, k)
    return _simultaneous(est, _krr_cov(c, n, eps, k, estimand), level, method, k - 1)


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
    c, n, eps, k, scalar, rec = _krr_setup(reports, counts, epsilon, k, method="krr_gof_test")
    q_t, q_o, gap = _krr_probs(eps, k)
    lam0 = q_o + gap * p0
    expected = n[..., None] * lam0
    stat = np.sum((c - expected) ** 2 / expected, axis=-1)
    pvalue = stats.chi2.sf(stat, k - 1)
    if not scalar:
        return pvalue
    return HTestResult(
        statistic=float(stat), pvalue=float(pvalue), null_value=None, alternative="greater",
        method="Chi-square goodness-of-fit test on k-RR reports (privatized null)", estimate=None,
        conf_int=None, epsilon=eps, delta=0.0,
        data_name=f"k-RR report counts out of n = {int(n)}, k = {k}",
        statistic_name="X-squared", null_name="distance between the category frequencies and p0",
        mechanism=_mechanisms.KRR, parameter=k - 1, parameter_name="df",
        **provenance(rec),
    )


_fill_doc(krr_frequency_ci, sim=_SIM_NOTES)
