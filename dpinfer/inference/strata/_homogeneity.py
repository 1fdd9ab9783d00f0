"""Do the sites share one proportion?  Exact pairwise tests, combined by Bonferroni."""

from __future__ import annotations


from ...results import HTestResult
from ..two_arm import binom2_ump_test
from ._arguments import site_list
from ._common import privacy

__all__ = ["binom_homogeneity_test"]

#: the most sites tested (pairs grow as S(S - 1)/2, each an exact two-arm test of about a second)
MAX_SITES = 8


def binom_homogeneity_test(releases, *, composition=None):
    """Exact test that several sites share one proportion (the check before pooling them).

    Every pair of sites ``(r, s)`` is compared by the exact two-arm test of equal proportions
    (:func:`~dpinfer.binom2_ump_test`, two-sided, margin 0, its default ordering: the score, or
    the difference beyond 4e6 lattice cells; Bonferroni needs no particular ordering, so this
    follows the two-arm default), and the ``K = S(S - 1)/2`` p-values
    are combined by Bonferroni: ``p = min(1, K min_{r<s} p_rs)``.  Each pairwise p-value is exact
    for the released law (size at most alpha), so the combined test has size at most alpha
    exactly, whatever the common proportion; for two sites it is the two-arm test itself.

    Parameters
    ----------
    releases : list of Release
        One Tulap count release per site (any ``delta``: no sum is formed), two to eight.
    composition : {None, 'parallel', 'sequential'}, optional
        How the result's privacy combines the sites' budgets (None reads the releases' records).

    Returns
    -------
    HTestResult
        ``pvalue``, ``statistic`` the smallest pairwise p-value, ``parameter`` the number of
        pairs ``K``; ``note`` lists each pair's p-value and every site's epsilon.

    Raises
    ------
    TypeError, ValueError
        As :func:`~dpinfer.binom_pooled_test` (but ``delta > 0`` is allowed), and for more than
        eight sites (28 exact two-arm tests, about half a minute).

    Notes
    -----
    Bonferroni is conservative: with ``S`` sites it spends ``alpha / K`` on each pair.  A test
    built on one statistic of all the sites (a chi-squared of the released counts) would need
    the joint law of ``S`` releases, an ``S``-dimensional sum that is not computed; its
    asymptotic chi-squared law would be an approximation with no size guarantee at small ``n``
    or small ``epsilon``.  This test keeps the exact guarantee instead.

    Examples
    --------
    >>> from dpinfer import TulapReleaser, binom_homogeneity_test
    >>> sites = [TulapReleaser(epsilon=e).release(x, n, rng=s)
    ...          for s, (e, x, n) in enumerate([(0.5, 31, 80), (1.0, 45, 120), (2.0, 20, 60)])]
    >>> res = binom_homogeneity_test(sites)
    >>> res.parameter, res.pvalue > 0.05
    (3, True)
    """
    method = "binom_homogeneity_test"
    sites = site_list(releases, method, minimum=2, summed=False)
    if len(sites) > MAX_SITES:
        raise ValueError(f"`releases` holds {len(sites)} sites; binom_homogeneity_test takes at most {MAX_SITES} "
                         f"({MAX_SITES * (MAX_SITES - 1) // 2} exact pairwise tests).")
    epsilon, delta, note, origin = privacy(sites, composition, [f"site {i + 1}" for i in range(len(sites))])
    pairs = [(r, s) for r in range(len(sites)) for s in range(r + 1, len(sites))]
    pvalues = [binom2_ump_test(sites[r].release, sites[s].release, composition="sequential").pvalue
               for r, s in pairs]
    smallest = min(pvalues)
    listed = ", ".join(f"{r + 1}-{s + 1}: {p:.4g}" for (r, s), p in zip(pairs, pvalues))
    return HTestResult(
        statistic=smallest, pvalue=min(1.0, len(pairs) * smallest), null_value=0.0, alternative="two-sided",
        method=f"Exact test of one proportion at {len(sites)} sites (pairwise exact tests, Bonferroni)",
        estimate=None, conf_int=None, epsilon=epsilon, delta=delta,
        data_name=f"{len(sites)} released counts out of n = c({', '.join(str(s.record.n) for s in sites)})",
        statistic_name="smallest pairwise p-value", parameter=len(pairs), parameter_name="pairs",
        null_name="difference between two sites' proportions", mechanism="tulap",
        note=f"pairwise p-values {listed}; {note}", **origin)
