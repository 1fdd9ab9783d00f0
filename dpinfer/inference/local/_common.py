"""Kernels shared by the local-DP inference: debiasing, simplex projection, checks.

Private helpers assume valid input unless they say otherwise.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..._ldp_channels import _unary_keep_prob
from ..._validation import _as_real_array, _check_choice, _show
from ...results import ConfidenceInterval, PointEstimate

__all__ = [
    "project_to_simplex",
]


_ESTIMANDS = ("population", "sample")
# Below this gap between the channel's rows, 1 / gap^2 (the variance factor) overflows.
_MIN_SIGNAL = 1e-150


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


def _estimate_result(raw, projected, n, scalar, **fields):
    """A :class:`~dpinfer.PointEstimate` of ``projected`` (in the parameter space) and ``raw``
    (unbiased); ``n`` the number of reports per data set (kept when it is one number)."""
    n_arr = np.asarray(n)
    one_n = n_arr.size > 0 and bool(np.all(n_arr == n_arr.flat[0]))
    if scalar:
        raw, projected = float(np.asarray(raw).reshape(())), float(np.asarray(projected).reshape(()))
    return PointEstimate(estimate=projected, estimate_raw=raw, n=int(n_arr.flat[0]) if one_n else None,
                         **fields)


def _check_estimand(estimand):
    return _check_choice(estimand, "estimand", _ESTIMANDS)


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False; got {_show(value)}.")
    return bool(value)


def _not_again(name, value, why):
    if value is not None:
        raise ValueError(f"`{name}` must not be given when {why}; got {_show(value)}.")


def _ci_out(low, high, level, scalar):
    if scalar:
        return ConfidenceInterval(float(low), float(high), level)
    return np.stack(np.broadcast_arrays(low, high), axis=-1)


def _fill_doc(func, **parts):
    # shared parameter text; skipped under python -OO, where docstrings are None
    if func.__doc__:
        doc = func.__doc__
        for key, text in parts.items():
            doc = doc.replace("{" + key + "}", text.strip())
        func.__doc__ = doc.replace("{{", "{").replace("}}", "}")


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


def _check_p0_vector(p0, name="p0"):
    arr = _as_real_array(p0, name)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"`{name}` must be a 1-d vector of at least 2 probabilities; got shape {arr.shape}.")
    if np.any(arr < 0) or abs(arr.sum() - 1.0) > 1e-9:
        raise ValueError(f"`{name}` must be non-negative and sum to 1; got {_show(arr)} (sum {arr.sum()!r}).")
    return arr


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
