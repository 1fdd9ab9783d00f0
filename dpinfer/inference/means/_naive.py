"""The naive comparator: the clipped mean plus or minus z standard errors, noise variance added.

What libraries of the Google / OpenDP kind report for a private mean: a normal
interval around the noisy clipped mean whose width accounts for the noise (and here
also for the sampling variance), but whose centre is the mean of the *clipped*
values.  When the bounds clip the data this interval is centred on the wrong
quantity, and its coverage of the population mean falls as n grows; it is here to
show what clipping costs (``dpinfer validate means``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._validation import _check_alternative, _check_confidence_level, _check_real
from ...results import ConfidenceInterval, HTestResult
from .._resolve import composed, provenance
from ._common import check_sigma, check_sigmas, clipped

__all__ = ["mean2_naive_test", "mean_naive_test"]


def naive_moments(data, sigma):
    """``(clipped mean, its variance)``: sampling variance ``s**2 / n`` plus the noise variance.

    ``s**2`` is ``sigma**2`` when known, else the plug-in from the released squares,
    ``n / (n - 1) (Q / n - (S / n - m)**2)`` floored at 0 (n = 1: 0).  The noise on the mean
    has variance ``2 ((b - a) / (epsilon_1 n))**2``.  Vectorised over the release's values.
    """
    n = data.n
    mean = np.asarray(data.sum, dtype=float) / n
    if sigma is not None:
        s2 = np.full(np.shape(mean), float(sigma) ** 2)
    else:
        mid = 0.5 * (data.lower + data.upper)
        s2 = np.maximum(np.asarray(data.squares, dtype=float) / n - (mean - mid) ** 2, 0.0)
        s2 = s2 * (n / (n - 1)) if n > 1 else np.zeros(np.shape(mean))
    noise = 2.0 * (data.sum_scale / n) ** 2
    return mean, s2 / n + noise


def _normal_pvalues(estimate, se, alternative, values):
    """The normal test's p-value at each null value in ``values`` (the confidence curve, which
    lies above ``1 - confidence_level`` exactly on the reported interval)."""
    from scipy.stats import norm

    values = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate - values) / se if se > 0 else np.where(estimate == values, 0.0, np.sign(estimate - values) * np.inf)
    if alternative == "two-sided":
        p = np.minimum(2.0 * norm.sf(np.abs(z)), 1.0)
    else:
        p = norm.sf(z) if alternative == "greater" else norm.cdf(z)
    return p if values.ndim else float(p)


def _normal_result(estimate, var, null, alternative, confidence_level, *, epsilon, rec, data_name, method, names,
                   composition=None):
    from scipy.stats import norm

    se = math.sqrt(var)
    z = (estimate - null) / se if se > 0 else math.copysign(math.inf, estimate - null) if estimate != null else 0.0
    if alternative == "two-sided":
        p = 2.0 * norm.sf(abs(z))
        q = norm.isf(0.5 * (1.0 - confidence_level))
        lo, hi = estimate - q * se, estimate + q * se
    elif alternative == "greater":
        p = norm.sf(z)
        lo, hi = estimate - norm.isf(1.0 - confidence_level) * se, math.inf
    else:
        p = norm.cdf(z)
        lo, hi = -math.inf, estimate + norm.isf(1.0 - confidence_level) * se
    estimate_name, null_name = names
    return HTestResult(
        statistic=z, pvalue=float(min(p, 1.0)), null_value=null, alternative=alternative, method=method,
        estimate=estimate, conf_int=ConfidenceInterval(float(lo), float(hi), confidence_level),
        epsilon=epsilon, delta=0.0, data_name=data_name, statistic_name="z", estimate_name=estimate_name,
        null_name=null_name, mechanism=rec[0].mechanism,
        note="normal interval around the clipped mean (noise variance added); it ignores the clipping bias",
        composition=composition, **provenance(*rec),
        pvalue_function=functools.partial(_normal_pvalues, estimate, se, alternative))


def mean_naive_test(release, mu0=0.0, *, sigma=None, alternative="two-sided", confidence_level=0.95):
    """The naive z test and interval for a mean from a clipped sum (what clipping costs).

    Parameters
    ----------
    release : Release
        A clipped sum from :class:`~dpinfer.MeanReleaser`.
    mu0 : float, default 0.0
        Null value of the mean.
    sigma : float, optional
        Known standard deviation; None (the default) plugs in the one from the
        released squares (required then).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95

    Returns
    -------
    HTestResult
        ``statistic`` the z value, ``estimate`` the clipped mean ``S / n``,
        ``conf_int`` ``S / n +- z_(1 - a/2) sqrt(s**2 / n + 2 ((b - a) / (epsilon_1 n))**2)``.

    See Also
    --------
    mean_jimi_test : the interval for the population mean, clipping modelled.

    Notes
    -----
    Google's differential-privacy library and OpenDP report a confidence interval
    for the noise around the released clipped statistic; adding the sampling
    variance (as here, and as DPrivStats-style plug-in methods do) still leaves
    the interval centred on the mean of the clipped values.  It covers the
    population mean only when the bounds clip (almost) nothing; with clipping its
    coverage falls as n grows, because its width shrinks and its bias does not.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean_naive_test
    >>> x = np.random.default_rng(3).normal(130.0, 15.0, size=200)
    >>> rel = MeanReleaser(1.0, lower=80.0, upper=180.0, spread=True).release(x, rng=4)
    >>> res = mean_naive_test(rel, mu0=125.0)
    >>> round(res.conf_int.low, 1), round(res.conf_int.high, 1)
    (128.3, 134.6)
    """
    data = clipped(release, "release", "mean_naive_test")
    if not data.scalar:
        raise ValueError(f"`release` must be one release (a scalar clipped sum); got {np.size(data.sum)} values.")
    mu0 = _check_real(mu0, "mu0")
    sigma = check_sigma(sigma, data)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    mean, var = naive_moments(data, sigma)
    return _normal_result(float(mean), float(var), mu0, alternative, confidence_level, epsilon=data.release.epsilon,
                          rec=(data.rec,), data_name=data.data_name(),
                          method="Naive z test of a clipped mean (noise variance added)", names=("mean of x", "mean"))


def mean2_naive_test(release1, release2, margin=0.0, *, sigma=None, alternative="two-sided",
                     confidence_level=0.95, composition=None):
    """The naive z test of ``mean1 - mean2 = margin`` from two clipped sums.

    Parameters
    ----------
    release1, release2 : Release
        Clipped sums of two independent groups.
    margin : float, default 0.0
    sigma : float or pair of floats, optional
        Known standard deviations; None plugs in each group's from its squares.
    alternative, confidence_level
        As in :func:`mean_naive_test`.
    composition : {None, 'sequential', 'parallel'}, default None
        How the two groups' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation); the one rule of every method (see :func:`~dpinfer.prop_test`).

    Returns
    -------
    HTestResult
        The difference of the clipped means, its variance the sum of the two.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean2_naive_test
    >>> gen = np.random.default_rng(5)
    >>> releaser = MeanReleaser(1.0, 80.0, 180.0, spread=True)
    >>> a = releaser.release(gen.normal(125.0, 15.0, 150), rng=6)
    >>> b = releaser.release(gen.normal(135.0, 15.0, 150), rng=7)
    >>> mean2_naive_test(a, b).pvalue < 0.05
    True
    """
    d1 = clipped(release1, "release1", "mean2_naive_test")
    d2 = clipped(release2, "release2", "mean2_naive_test")
    for d, name in ((d1, "release1"), (d2, "release2")):
        if not d.scalar:
            raise ValueError(f"`{name}` must be one release (a scalar clipped sum); got {np.size(d.sum)} values.")
    margin = _check_real(margin, "margin")
    s1, s2 = check_sigmas(sigma, d1, d2)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    composition, eps, _ = composed(composition, (d1.rec, d2.rec))
    m1, v1 = naive_moments(d1, s1)
    m2, v2 = naive_moments(d2, s2)
    return _normal_result(float(m1 - m2), float(v1 + v2), margin, alternative, confidence_level, epsilon=eps,
                          composition=composition,
                          rec=(d1.rec, d2.rec), data_name=d1.data_name("x") + "; " + d2.data_name("y"),
                          method="Naive two-sample z test of clipped means (noise variance added)",
                          names=("difference in means", "difference in means"))
