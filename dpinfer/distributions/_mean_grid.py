"""The law of a clipped-sum release (:class:`~dpinfer.MeanReleaser`) on its integer grid.

Package-internal interface: the releaser draws with :class:`ReleaseGrid`, and the
repro-samples simulator (:mod:`dpinfer.inference.means.repro`) reproduces the released
law with it, so the two cannot drift apart.  The grid and the per-step ratio are those of
a count out of ``n`` (:mod:`dpinfer.distributions._laplace_grid`).  Public numbers only;
arguments assumed valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._exact_noise import _clip_to_int64
from ._laplace_grid import INT_LIMIT, grid_bits, per_step

__all__ = []  # package-internal: the names below are imported explicitly


@dataclass(frozen=True)
class ReleaseGrid:
    """The integer grid and noise of a :class:`~dpinfer.MeanReleaser` release at a public ``n``.

    Statistic ``k = 0`` is the clipped sum, ``k = 1`` the centred sum of squares.
    """

    n: int
    lower: float
    upper: float
    g: int
    epsilons: tuple
    lams: tuple

    def units(self, clipped, k):
        """Each clipped value's integer on the grid of statistic ``k`` (a function of that value alone)."""
        width = self.upper - self.lower
        if k == 0:
            t = (clipped - self.lower) / width
        else:
            half = 0.5 * width
            t = ((clipped - (self.lower + half)) / half) ** 2
        return np.clip(np.rint(t * 2.0**self.g), 0, 2**self.g).astype(np.int64)

    def values(self, noisy, k):
        """The released value of statistic ``k`` from the noisy integer sum (clipped to 64 bits first)."""
        noisy = _clip_to_int64(np.asarray(noisy), -INT_LIMIT, INT_LIMIT)
        width = self.upper - self.lower
        if k == 0:
            return self.n * self.lower + width * (noisy / 2.0**self.g)
        return (0.5 * width) ** 2 * (noisy / 2.0**self.g)


def split_epsilons(epsilon, split=None):
    """The epsilons of the sum and of the squares (``split`` of ``epsilon`` to the sum), adding to at most ``epsilon``.

    ``split=None``: the sum alone, ``(epsilon,)``.  The squares' share is rounded down
    until the two add up to at most ``epsilon`` in exact arithmetic.
    """
    if split is None:
        return (epsilon,)
    e1 = epsilon * split
    e2 = epsilon - e1
    while Fraction(e1) + Fraction(e2) > Fraction(epsilon):
        e2 = math.nextafter(e2, 0.0)
    return e1, e2


def release_grid(epsilon, lower, upper, n, split=None):
    """The :class:`ReleaseGrid` of ``MeanReleaser(epsilon, lower, upper)`` at ``n`` (``split``: with the spread)."""
    epsilons = split_epsilons(float(epsilon), split)
    g = min(grid_bits(n, e) for e in epsilons)
    return ReleaseGrid(n, float(lower), float(upper), g, epsilons, tuple(per_step(e, 2**g) for e in epsilons))
