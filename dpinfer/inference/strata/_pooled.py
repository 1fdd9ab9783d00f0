"""The pooled proportion of several sites: exact test and interval from the sum of the releases."""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats

from ..._validation import _check_alternative, _check_confidence_level, _check_probability
from ...results import ConfidenceInterval, HTestResult
from .._curves import SidedCurve
from ._arguments import site_list
from ._common import privacy, rejected_end
from ._noise_sum import cell_allowance, check_convolution, noise_law, upper_tails

__all__ = ["binom_pooled_test"]

_METHOD = "Exact test of a pooled proportion from {} Tulap site releases"


def _tails(sites):
    """``(upper, lower)``: ``P(E >= t_up - x)``, ``P(E <= t_lo - x)`` at ``x = 0..N``, and ``N``."""
    law = noise_law(sites)
    total = sum((s.value for s in sites), start=0)
    slack = cell_allowance(law.noises)
    big_n = sum(s.noise.n for s in sites)
    x = np.arange(big_n + 1)
    upper = upper_tails(law, total - slack, x)
    lower = upper_tails(law, -(total + slack), -x)  # E symmetric: P(E <= u) = P(E >= -u)
    return upper, lower, big_n, total


def _pvalues(upper, lower, big_n, p):
    """``(P_p(T >= t), P_p(T <= t))``: the binomial pmf of the pooled count against the noise tails."""
    pmf = stats.binom.pmf(np.arange(big_n + 1), big_n, p)
    return float(min(1.0, pmf @ upper)), float(min(1.0, pmf @ lower))


def binom_pooled_test(releases, p0=0.5, *, alternative="two-sided", confidence_level=0.95, composition=None):
    """Exact test and interval for a proportion common to several sites, each released with its own noise.

    Site ``s`` has ``X_s ~ Binomial(n_s, theta)`` and releases ``Z_s = X_s + N_s`` with
    :class:`~dpinfer.TulapReleaser` at its own ``epsilon_s`` (and sensitivity); the sites are
    independent.  The sum ``T = sum_s Z_s`` has the law of ``Binomial(N, theta)``
    (``N = sum_s n_s``) plus the sum of the ``S`` noises, computed exactly, and is
    stochastically increasing in ``theta``: the one-sided p-values are its tails at ``p0``,
    and the interval inverts them.

    Parameters
    ----------
    releases : list of Release
        One Tulap count release per site (``delta = 0``), at least two.
    p0 : float, default 0.5
        The null proportion, in (0, 1).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'`` tests H0: theta <= p0 against H1: theta > p0.
    confidence_level : float, default 0.95
        Level of the interval in ``conf_int`` (equal-tailed for 'two-sided').
    composition : {None, 'parallel', 'sequential'}, optional
        How the result's ``epsilon`` and ``delta`` combine the sites' budgets.  None reads the
        releases: 'parallel' (the largest epsilon) only when they record disjoint groups of
        one budget scope, else 'sequential' (the sum).

    Returns
    -------
    HTestResult
        ``statistic`` the sum of the released counts, ``parameter`` the total ``N``,
        ``estimate`` the pooled proportion (``T / N`` clipped to [0, 1]; ``estimate_raw``
        unclipped), ``conf_int``, ``pvalue``, and the privacy record; ``note`` lists every
        site's own epsilon and the composition.

    Raises
    ------
    TypeError
        If ``releases`` is not a list of Releases.
    ValueError
        If it holds fewer than two, a Laplace release (its noise law differs: the sum would
        need a Laplace density convolved with the Tulap noises, which is not computed, so
        the call is refused rather than answered with the wrong law), a release with
        ``delta > 0``, noises too wide for the exact convolution (more than 2e9 multiply-adds:
        many sites at small epsilon), or an argument is out of range.

    See Also
    --------
    prop_test : routes a list of three or more releases here (``pooled=True`` for two).
    binom_strata_test : two arms compared within strata.

    Notes
    -----
    With ``E`` the sum of the noises (see ``dpinfer/inference/strata``: an exact discrete
    convolution of the integer parts and the Irwin-Hall law of the uniform parts, in exact
    rationals), ``P_theta(T >= t) = sum_x Binom(x; N, theta) P(E >= t - x)``.  Each release
    stands for its grid cell: the observed sum is moved by ``sum_s h_s / 2`` towards the null
    (about ``S 2**-41``), so the p-value is never below the exact tail of the released law.
    Two-sided: ``min(1, 2 min(p_less, p_greater))``, the test the equal-tailed interval
    inverts.  As every ``epsilon_s`` grows the noise's integer parts vanish and ``T`` is
    the pooled count plus the sum of ``S`` uniforms: the p-value lies between the exact
    binomial tails ``P(X >= ceil(t + S/2))`` and ``P(X >= floor(t - S/2))`` (checked against
    :func:`scipy.stats.binomtest` in the tests).  The test assumes one ``theta`` at every
    site; :func:`binom_homogeneity_test` checks that.

    References
    ----------
    Awan, J. and Slavkovic, A. (2018). Differentially private uniformly most powerful tests
    for binomial data. NeurIPS.  Irwin, J. O. (1927), Hall, P. (1927), Biometrika 19: the
    law of a sum of uniforms.

    Examples
    --------
    >>> from dpinfer import TulapReleaser, binom_pooled_test
    >>> sites = [TulapReleaser(epsilon=e).release(x, n, rng=s)
    ...          for s, (e, x, n) in enumerate([(0.5, 31, 80), (1.0, 45, 120), (2.0, 20, 60)])]
    >>> res = binom_pooled_test(sites, p0=0.25, alternative='greater')
    >>> res.parameter, res.pvalue < 0.01
    (260, True)
    """
    method = "binom_pooled_test"
    sites = site_list(releases, method, minimum=2)
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    epsilon, delta, note, origin = privacy(sites, composition, [f"site {i + 1}" for i in range(len(sites))])
    check_convolution(tuple(s.noise for s in sites), "sites")
    upper, lower, big_n, total = _tails(sites)
    greater, less = _pvalues(upper, lower, big_n, p0)
    pvalue = {"greater": greater, "less": less, "two-sided": min(1.0, 2.0 * min(greater, less))}[alternative]
    level = 1.0 - confidence_level
    side = level / 2.0 if alternative == "two-sided" else level
    low, high = 0.0, 1.0
    if alternative != "less":
        low = rejected_end(lambda p: _pvalues(upper, lower, big_n, p)[0], side, 0.0, 1.0)
    if alternative != "greater":
        high = -rejected_end(lambda p: _pvalues(upper, lower, big_n, -p)[1], side, -1.0, 0.0)
    raw = float(total) / big_n
    return HTestResult(
        statistic=float(total), pvalue=pvalue, null_value=p0, alternative=alternative,
        method=_METHOD.format(len(sites)), estimate=min(max(raw, 0.0), 1.0), estimate_raw=raw,
        conf_int=ConfidenceInterval(low, high, confidence_level), epsilon=epsilon, delta=delta,
        data_name=f"sum of {len(sites)} released counts out of N = {big_n}",
        statistic_name="sum of released counts", parameter=big_n, parameter_name="N",
        estimate_name="pooled proportion", null_name="probability of success", mechanism="tulap",
        note=note, **origin,
        pvalue_function=SidedCurve(functools.partial(_pvalues, upper, lower, big_n), alternative, 0.0, 1.0))
