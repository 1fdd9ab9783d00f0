"""The local Laplace mechanism for a bounded mean: estimate, SE, CI."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ... import _mechanisms
from ..._validation import (
    _as_real_array,
    _check_alternative,
    _check_confidence_level,
    _check_epsilon,
    _check_positive,
)
from .._resolve import accepts, resolve
from ._common import _check_estimand, _ci_out, _estimate_result, _not_again

__all__ = [
    "local_laplace_mean_ci",
    "local_laplace_mean_estimate",
    "local_laplace_mean_se",
]


#: the releases the local-Laplace functions take (their number form is raw reports)
ACCEPTS = accepts({(_mechanisms.LOCAL_LAPLACE, "reports")},
                  ("local_laplace_mean_estimate", "local_laplace_mean_se", "local_laplace_mean_ci"),
                  "local Laplace reports (LocalLaplaceReleaser(epsilon, bound).release(x))")


def _laplace_setup(reports, epsilon, bound, *, method):
    rel = resolve(reports, epsilon=epsilon, accepts=ACCEPTS, method=method, name="reports", numbers=False)
    if rel is not None:
        _not_again("bound", bound, "`reports` is a Release (bound = sensitivity / 2 comes from it)")
        z = np.atleast_1d(rel.value)
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


def local_laplace_mean_estimate(reports, *, epsilon=None, bound=None):
    """Mean of bounded data from local Laplace reports: the mean of the reports, clipped.

    Parameters
    ----------
    reports : array_like or Release
        Reports ``Z_i = X_i + (2M/epsilon) W_i`` (respondents on the last axis) or
        the Release of a :class:`~dpinfer.LocalLaplaceReleaser`.
    epsilon, bound : float, optional
        Needed with raw reports (not with a Release); ``bound`` also gives the
        parameter space ``[-bound, bound]``.

    Returns
    -------
    PointEstimate
        ``estimate_raw``: the mean of the reports (unbiased; it can lie outside
        ``[-bound, bound]``), one per data set; ``estimate``: it clipped to
        ``[-bound, bound]``.  ``float(result)`` is ``estimate`` for one data set.

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
    >>> float(local_laplace_mean_estimate([0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0))
    0.5
    >>> est = local_laplace_mean_estimate([3.5, 1.5, 2.0, 5.7], epsilon=1.0, bound=1.0)
    >>> est.estimate, est.estimate_raw
    (1.0, 3.175)
    """
    z, eps, m, scalar = _laplace_setup(reports, epsilon, bound, method="local_laplace_mean_estimate")
    raw = z.mean(axis=-1)
    space = f"[-{m:.7g}, {m:.7g}]"
    return _estimate_result(raw, np.clip(raw, -m, m), z.shape[-1], scalar,
                            estimate_name="mean", parameter_space=space,
                            method="Local Laplace estimate of a mean", epsilon=eps,
                            mechanism=_mechanisms.LOCAL_LAPLACE)


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
    z, eps, m, scalar = _laplace_setup(reports, epsilon, bound, method="local_laplace_mean_se")
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
    z, eps, m, scalar = _laplace_setup(reports, epsilon, bound, method="local_laplace_mean_ci")
    n = z.shape[-1]
    tail = (1.0 - level) / (2.0 if alternative == "two-sided" else 1.0)
    crit = stats.t.ppf(1.0 - tail, n - 1) if estimand == "population" else stats.norm.ppf(1.0 - tail)
    mean = z.mean(axis=-1)
    se = _laplace_se(z, eps, m, estimand)
    low = np.clip(mean - crit * se, -m, m) if alternative != "less" else np.full_like(mean, -m)
    high = np.clip(mean + crit * se, -m, m) if alternative != "greater" else np.full_like(mean, m)
    return _ci_out(low, high, level, scalar)
