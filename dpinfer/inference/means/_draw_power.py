"""Power of DP-JIMI's test of a mean (``mean_power(method='jimi')``): exact for one group with sigma known,
simulated through the test's own kernel otherwise.

**One group, sigma known: a Monte Carlo test, so its power is exact.**  Draw ``h`` of
:func:`~dpinfer.mean_jimi_test` solves ``F_h(mu) + L_h = S`` for ``mu_h`` (``F_h`` the clipped
mean of ``mu + sigma e_h``, nondecreasing in ``mu``; ``L_h`` the Laplace noise on the mean; ``S``
the released clipped mean), so ``mu_h <= mu0`` exactly when ``T_h = F_h(mu0) + L_h >= S`` (ties
have probability 0: both sides are continuous in the draws).  ``T_h`` is a draw of the released
mean's law at ``mu0``, independent of ``S``: given ``S``, the count ``k = #{h: mu_h <= mu0}`` of
``H`` draws is ``Binomial(H, V)`` with ``V = P_mu0(T >= S)``.  The test rejects against
``'greater'`` when ``(k + 1) / (H + 1) <= alpha``, i.e. ``k <= c``, so its power is
``E[P(Binomial(H, V) <= c)]`` over ``S``'s law at ``mu1``.  Since ``P(Binomial(H, v) <= c) =
P(Q >= v)`` for ``Q ~ Beta(c + 1, H - c)``, the power is

    ``P(V <= Q) = E_Q[G(Q)]``,  ``G(q) = P_mu1(S >= x_q)``,  ``P_mu0(T >= x_q) = q``,

a one-dimensional integral over ``Q``'s quantiles (Gauss-Legendre), each ``x_q`` a root of the
null law's cdf, and both laws the exact clipped-normal-plus-Laplace law of
:mod:`._law` (Gil-Pelaez, to 1e-8).  ``'less'`` mirrors it (``k' = H - k``, ``V' = P_mu0(T <=
S)``); two-sided rejects when ``2 min(k, k') + 2 <= alpha (H + 1)``, the union of the two
one-sided events with ``c`` for ``alpha / 2``, which are disjoint (``k + k' = H``).  The
continuous Laplace law stands for the released discrete one, as in the naive test's exact power.

**Otherwise (two groups, or the spread released) simulated:** data sets drawn ``N(mu, sigma)``,
released through :class:`~dpinfer.MeanReleaser` (the law actually released), and DP-JIMI's
draws made by the test's own vectorised kernel for a block of releases at once
(:func:`._common.mean_draws`), the p-value by the test's rule: no loop per data set.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ...releasers.mean import MeanReleaser
from .._draw_summary import draw_share
from .._roots import find_roots
from ._common import clipped, mean_draws, pvalue, shares
from ._law import Group, clipped_moments, difference_cdf

__all__ = []  # package-internal

#: draws of DP-JIMI's test (``mean_jimi_test``'s and ``mean2_jimi_test``'s default ``n_sim``)
JIMI_DRAWS = 2000
#: data sets simulated by default where the power is simulated (Monte Carlo SE at most 0.016)
JIMI_DATA_SETS = 1000
#: the most seed values (data sets x draws x values per data set, both groups) one simulated power takes
MAX_SEED_VALUES = 2e9
#: Gauss-Legendre nodes over the Beta quantiles (the integrand is smooth: 1e-10 is reached well before)
_NODES = 96
#: releases whose draws are made at once (memory: draws x releases doubles, plus the kernel's blocks)
_BLOCK_SETS = 100


def rejection_count(draws, alpha, two_sided):
    """The largest count ``c`` of draws on the null side whose p-value is at most ``alpha`` (-1: none).

    The p-value is the test's: ``(c + 1) / (H + 1)`` one-sided, ``min(1, 2 (c + 1) / (H + 1))``
    two-sided (:func:`~dpinfer.inference._draw_summary.draw_share`), computed as the test computes it.
    """
    c = int(math.floor(alpha * (draws + 1))) + 1
    while c >= 0:
        share = draw_share(c, draws)
        if (min(1.0, 2.0 * share) if two_sided else share) <= alpha:
            return c
        c -= 1
    return -1


def _null_quantiles(group0, tails, upper):
    """``x`` with ``P_mu0(T >= x) = tail`` (``upper``) or ``P_mu0(T <= x) = tail``, per tail (array)."""
    mean, sd = _moments(group0)
    target = 1.0 - tails if upper else tails

    def cdf(x):
        values, err = difference_cdf(np.atleast_1d(x), [group0])
        if values is None:
            raise ValueError("the exact law is out of reach for this question (the characteristic function's "
                             "integral did not reach 1e-8); give `n_sim` to simulate the power.")
        return values

    # a bracket: the Laplace tail decays as exp(-|x| / lam), the clipped mean's as a normal's
    lo, hi = mean - 8.0 * sd, mean + 8.0 * sd
    for _ in range(60):
        f_lo, f_hi = cdf([lo, hi])
        if f_lo <= target.min() and f_hi > target.max():
            break
        lo, hi = mean - 2.0 * (mean - lo), mean + 2.0 * (hi - mean)
    else:
        raise ValueError("the null law's quantiles could not be bracketed for this question.")
    return find_roots(lambda x, r: cdf(x) - target[r], np.full(target.size, hi), np.full(target.size, lo),
                      np.full(target.size, f_hi) - target, np.full(target.size, f_lo) - target, ftol=1e-15,
                      xrtol=1e-15)


def _moments(group):
    m, v = clipped_moments(group.mu, group.sigma, group.lower, group.upper)
    return m, math.sqrt(v / group.n + 2.0 * group.lam ** 2)


def exact_power(mu1, mu0, sigma, lower, upper, n, epsilon, alpha, alternative, draws=JIMI_DRAWS):
    """``(power, numerical error bound)`` of DP-JIMI's one-group test with sigma known (module Notes)."""
    lam = (upper - lower) / (epsilon * n)
    null = Group(mu0, sigma, lower, upper, n, lam)
    alt = Group(mu1, sigma, lower, upper, n, lam)
    two = alternative == "two-sided"
    c = rejection_count(draws, alpha, two)
    if c < 0:
        return 0.0, 0.0
    nodes, weights = np.polynomial.legendre.leggauss(_NODES)
    u = 0.5 * (nodes + 1.0)
    q = stats.beta.ppf(u, c + 1, draws - c)
    power, err = 0.0, 0.0
    for side in (("greater", "less") if two else (alternative,)):
        upper_side = side == "greater"
        x = _null_quantiles(null, q, upper_side)
        cdf1, e1 = difference_cdf(x, [alt])
        if cdf1 is None:
            raise ValueError("the exact law is out of reach for this question (the characteristic function's "
                             "integral did not reach 1e-8); give `n_sim` to simulate the power.")
        g = (1.0 - cdf1) if upper_side else cdf1  # P(V <= q): S beyond the null's q-quantile
        power += 0.5 * float(weights @ g)
        err += e1
    return float(min(max(power, 0.0), 1.0)), float(err)


def group_streams(gen):
    """One stream per group: the two children of ``gen``'s seed (``gen`` itself for both if it has none)."""
    seeds = gen.bit_generator.seed_seq.spawn(2) if hasattr(gen.bit_generator, "seed_seq") else None
    return [np.random.default_rng(s) for s in seeds] if seeds else [gen, gen]


def released_blocks(q, ns, n_sim, streams, block):
    """``(m, releases)`` per block of at most ``block`` simulated data sets: data drawn ``N(mu, sigma)`` and
    released through :class:`~dpinfer.MeanReleaser` (the law actually released) as one array release per
    group (:class:`._common.Clipped`), each group from its own stream, data then noise."""
    k = 2 if q["two"] else 1
    releasers = [MeanReleaser(q["epsilon"][i], q["lower"], q["upper"], spread=q["spread"], split=q["split"])
                 for i in range(k)]
    mus = (q["mu1"], q["mu2"])
    done = 0
    while done < n_sim:
        m = min(block, n_sim - done)
        releases = []
        for i in range(k):
            data = streams[i].normal(mus[i], q["sigma"][i], size=(m, ns[i]))
            releases.append(clipped(releasers[i].release(data, rng=streams[i]), "release", "mean_power"))
        yield m, releases
        done += m


def simulated_power(q, ns, n_sim, streams, draws=JIMI_DRAWS):
    """``(power, Monte Carlo SE)`` of DP-JIMI's test, simulated (module Notes); ``streams`` one per group."""
    k = 2 if q["two"] else 1
    total = float(n_sim) * draws * sum(ns[:k])
    if total > MAX_SEED_VALUES:
        raise ValueError(f"simulating DP-JIMI's power with {n_sim} data sets of n = {' and '.join(map(str, ns[:k]))} "
                         f"and {draws} draws each takes {total:.3g} seed values, over {MAX_SEED_VALUES:g}; give a "
                         "smaller `n_sim` (each data set costs draws x n), or plan one group with sigma known "
                         "(exact).")
    sigma = None if q["spread"] else q["sigma"]
    rejected = 0
    for _, releases in released_blocks(q, ns, n_sim, streams, _BLOCK_SETS):
        est = None
        for i, rel in enumerate(releases):
            group_draws = mean_draws(rel, None if sigma is None else sigma[i], "normal", draws, streams[i])
            with np.errstate(invalid="ignore"):  # inf - inf: an undefined draw, counted on both sides
                est = group_draws if est is None else est - group_draws
        le, ge = shares(est, q["null"])
        rejected += int(np.count_nonzero(pvalue(le, ge, q["alternative"]) <= q["alpha"]))
    p = rejected / n_sim
    return p, math.sqrt(max(p * (1.0 - p), 0.25 / n_sim) / n_sim)
