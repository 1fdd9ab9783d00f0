"""Two arms, each released in parts (sites or strata), with one rate per arm: the exact comparison."""

from __future__ import annotations

from ..ump import binom_ump_ci
from ._arguments import site_list
from ._pooled import binom_pooled_test
from ._stratified import GAMMA, _test, answer, check_common

__all__ = ["binom2_pooled_test"]

_METHOD = "Exact test of a risk difference from two arms released in parts ({} + {} Tulap releases"


def _pooled_box(gamma):
    """The nuisance box: the arm's exact pooled ``1 - gamma`` interval (the whole range for ``gamma = 0``;
    one release: its DP-UMP interval, as :func:`~dpinfer.binom_strata_test` takes it)."""
    def boxes(sites):
        if gamma == 0.0:
            return [(0.0, 1.0)]
        if len(sites) == 1:
            return [tuple(binom_ump_ci(sites[0].release, confidence_level=1.0 - gamma))]
        return [tuple(binom_pooled_test([s.release for s in sites], confidence_level=1.0 - gamma).conf_int)]
    return boxes


def pooled2_pvalue(releases1, releases2, margin=0.0, alternative="two-sided", gamma=GAMMA):
    """The p-value of :func:`binom2_pooled_test` alone (no interval): the validation study's fast path."""
    arm1 = site_list(releases1, "binom2_pooled_test", minimum=1, name="releases1")
    arm2 = site_list(releases2, "binom2_pooled_test", minimum=1, name="releases2")
    n = sum(s.noise.n for s in arm1)
    return _test(list(arm1), list(arm2), [n], _pooled_box(float(gamma)), float(margin), alternative, float(gamma))[2]


def binom2_pooled_test(releases1, releases2, margin=0.0, *, alternative="two-sided", confidence_level=0.95,
                       gamma=GAMMA, composition=None):
    """Exact test of a risk difference when each arm is released in parts with one rate per arm.

    Arm ``i`` has one rate ``theta_i`` at every site (or stratum) and is released site by site
    with :class:`~dpinfer.TulapReleaser`, each release at its own epsilon.  Pooling each arm's
    releases gives ``T = sum Z_1 - sum Z_2 = X_1 - X_2 + E`` with ``X_i ~ Binomial(N, theta_i)``
    (``N`` the arms' common total) and ``E`` the sum of every noise: the two-arm comparison with a
    convolved noise law.  The test and interval are those of :func:`~dpinfer.binom_strata_test`
    with a single stratum of ``N`` per arm (the supremum over the baseline rate in closed form,
    Berger-Boos box from the arm's exact pooled interval).  It is ordered by that difference of
    totals, not by :func:`~dpinfer.binom2_ump_test`'s default score: the convolved noise law is
    exact for the sum only.

    Parameters
    ----------
    releases1, releases2 : list of Release
        Each arm's Tulap count releases (``delta = 0``), one per site; the totals of ``n`` must
        be equal (the difference of totals is then the statistic with the exact lattice law).
    margin : float, default 0.0
        The null risk difference, in (-1, 1).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95
    gamma : float, default 0.001
        The Berger-Boos allowance (0: the supremum over the whole null).
    composition : {None, 'parallel', 'sequential'}, optional
        How the result's privacy combines the releases (None reads their records).

    Returns
    -------
    HTestResult
        As :func:`~dpinfer.binom_strata_test`; ``parameter`` the total ``N`` per arm.

    Raises
    ------
    TypeError, ValueError
        As :func:`~dpinfer.binom_strata_test`, and unequal totals per arm.

    See Also
    --------
    binom_strata_test : baseline rates free per stratum (safer when sites differ).
    binom2_ump_test : one release per arm.

    Notes
    -----
    Common rates across sites is an assumption: when sites differ, pooling can mislead
    (Simpson's paradox; see the "multi-centre trial" chapter) and
    :func:`~dpinfer.binom_strata_test` is the comparison to make.  With one release per arm this
    is the stratified test with one stratum (checked in the tests).

    Examples
    --------
    >>> from dpinfer import TulapReleaser, binom2_pooled_test
    >>> treated = [TulapReleaser(epsilon=e).release(x, 50, rng=s) for s, (e, x) in enumerate([(0.5, 31), (2.0, 28)])]
    >>> control = [TulapReleaser(epsilon=e).release(x, 50, rng=9 + s) for s, (e, x) in enumerate([(0.5, 20), (2.0, 18)])]
    >>> res = binom2_pooled_test(treated, control)
    >>> res.parameter, round(res.estimate, 2), res.pvalue < 0.05
    (100, 0.29, True)
    """
    method = "binom2_pooled_test"
    arm1 = site_list(releases1, method, minimum=1, name="releases1")
    arm2 = site_list(releases2, method, minimum=1, name="releases2")
    margin, alternative, confidence_level, gamma = check_common(margin, alternative, confidence_level, gamma)
    n1, n2 = sum(s.noise.n for s in arm1), sum(s.noise.n for s in arm2)
    if n1 != n2:
        raise ValueError(f"the arms' totals differ (N1 = {n1}, N2 = {n2}); {method} needs equal totals, where the "
                         "difference of the released totals has an exact lattice law. Use binom_strata_test per "
                         "stratum, or binom2_ump_test with one release per arm.")
    labelled = ([(f"arm 1 release {i + 1}", s) for i, s in enumerate(arm1)]
                + [(f"arm 2 release {i + 1}", s) for i, s in enumerate(arm2)])
    what = (_METHOD.format(len(arm1), len(arm2)), f"sums of released counts out of N = {n1} per arm", n1, "N")
    return answer(list(arm1), list(arm2), [n1], _pooled_box(gamma), margin, alternative, confidence_level, gamma,
                  composition, labelled, what)
