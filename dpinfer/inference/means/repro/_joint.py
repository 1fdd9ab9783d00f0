"""Repro samples for two groups from the pair of released sums (sigma known): the joint rectangle test.

Private kernels of :func:`mean2_repro_test` (``statistic='joint'``); they assume valid input.

Each group's seeds give the one-group roots of :func:`mean_repro_test` (``m_r``: the
first mean at which seed ``r``'s release reaches the group's observed sum, ``M_r`` the
last at which it is still at most it; sorted).  Group ``i``'s rank p-value at a mean is
a count of these roots, so its level sets are intervals read off order statistics: the
means where the count is at least ``c`` form ``A_i(c) = [m_i(c), M_i^(c)]`` (``m_i(c)``
the ``c``-th smallest ``m``, ``M_i^(c)`` the ``c``-th largest ``M``; one end only for a
one-sided count, the whole line for ``c = 0``).

The joint test of ``(mu1, mu2)`` ranks the pair of released sums by the smaller of the
two groups' p-values, combined by Sidak: ``p = 1 - (1 - min(p1, p2))**2``.  The groups'
data and seeds are independent, so at the true pair ``p1`` and ``p2`` are independent
and each is valid (``P(p_i <= u) <= u``): ``P(p <= alpha) = 1 - P(p1 > v) P(p2 > v) <=
alpha`` with ``v = 1 - sqrt(1 - alpha)``, for every ``R``.  It is a rectangle (the
coordinatewise halfspace depth of the pair), so large differences are excluded as soon
as each group's mean is.

**The supremum over the nuisance, exactly.**  ``p`` is a nondecreasing function of
``min(c1, c2)`` (the groups' counts; both groups have ``R`` seeds, so one scale of
counts), so ``sup_mu2 p(mu2 + delta, mu2)`` is ``p`` at the largest ``c`` with ``A_1(c)
- delta`` meeting ``A_2(c)``, that is with ``delta`` in the Minkowski difference
``D(c) = A_1(c) - A_2(c)``.  The ``D(c)`` are nested (they shrink as ``c`` grows), so
the count at ``delta`` is the number of ``c = 1..R`` with ``delta`` in ``D(c)`` and the
confidence set ``{delta : p > alpha}`` is ``D(c_alpha)``, ``c_alpha`` the smallest count
whose ``p`` exceeds ``alpha``: one interval, no search.  The ends of ``D(c)`` are
differences of doubles, rounded outwards (one double each way), so the set can only be
wider and the p-value only larger than the exact ones.
"""

from __future__ import annotations

import numpy as np

from ._one_group import draw_roots

__all__ = []  # package-internal


def joint_roots(d1, d2, sigma1, sigma2, n_sim, gen, workers=None):
    """Both groups' sorted roots ``((m1, M1), (m2, M2))``, each group from its own child stream of ``gen``
    (its seeds run where ``workers`` says: :func:`draw_roots`)."""
    return tuple(draw_roots(d, s, "normal", n_sim, g, workers=workers)
                 for d, s, g in zip((d1, d2), (sigma1, sigma2), gen.spawn(2)))


def _level_sets(roots, direction):
    """``(lo, hi)`` of ``A(c)`` for ``c = 0..R`` (``direction``: 'up' the count of ``m``, 'down' of ``M``, 'both')."""
    m, big_m = roots
    r = m.size
    lo = np.concatenate([[-np.inf], m]) if direction != "down" else np.full(r + 1, -np.inf)
    hi = np.concatenate([[np.inf], big_m[::-1]]) if direction != "up" else np.full(r + 1, np.inf)
    return lo, hi


def differences(roots1, roots2, alternative):
    """``(low, high)`` of ``D(c) = A_1(c) - A_2(c)``, ``c = 0..R``, rounded outwards (``nan``: empty)."""
    # delta above the null ('greater') is shown by group 1 above its mean and group 2 below its own
    up, down = {"greater": ("up", "down"), "less": ("down", "up"), "two-sided": ("both", "both")}[alternative]
    lo1, hi1 = _level_sets(roots1, up)
    lo2, hi2 = _level_sets(roots2, down)
    # an end at +-inf where the set has none (a seed whose release never reaches the sum): the set is empty
    empty = (lo1 > hi1) | (lo2 > hi2) | (lo1 == np.inf) | (hi1 == -np.inf) | (lo2 == np.inf) | (hi2 == -np.inf)
    with np.errstate(invalid="ignore"):
        low = np.nextafter(lo1 - hi2, -np.inf)
        high = np.nextafter(hi1 - lo2, np.inf)
    low[empty], high[empty] = np.nan, np.nan
    return low, high


def joint_pvalue_of_count(c, r, alternative):
    """The Sidak-combined p-value when the smaller of the groups' counts is ``c`` (``R = r`` seeds each)."""
    share = (1.0 + np.asarray(c, dtype=float)) / (r + 1)
    v = share if alternative != "two-sided" else np.minimum(1.0, 2.0 * share)
    return v * (2.0 - v)


def joint_pvalues(bounds, r, delta, alternative):
    """``sup_mu2 p(mu2 + delta, mu2)`` at each ``delta`` from :func:`differences`' ``bounds`` (vectorised)."""
    low, high = bounds
    delta = np.asarray(delta, dtype=float)
    inside = (low[1:] <= delta[..., None]) & (delta[..., None] <= high[1:])
    return joint_pvalue_of_count(inside.sum(axis=-1), r, alternative)


def joint_set(bounds, r, alpha, alternative):
    """``(low, high)``: the set ``{delta : p > alpha}`` (``D(c_alpha)``; ``nan`` ends when empty)."""
    low, high = bounds
    c = int(np.argmax(joint_pvalue_of_count(np.arange(r + 1), r, alternative) > alpha))
    return float(low[c]), float(high[c])


def joint_estimate(roots1, roots2):
    """The difference of the groups' seed-median roots (each group's most plausible mean); None when not finite."""
    with np.errstate(invalid="ignore"):
        value = float(np.median(0.5 * roots1[0] + 0.5 * roots1[1]) - np.median(0.5 * roots2[0] + 0.5 * roots2[1]))
    return value if np.isfinite(value) else None
