"""The supremum of a paired tail over the discordance, located and certified (kernels)."""

from __future__ import annotations

import numpy as np
from scipy import optimize

from ..two_arm._certify import certified_sup
from ._law import expectation, tail_on_line

__all__ = []  # private module

#: grid points on the null line before refinement
GRID = 65
#: Brent's tolerance in psi for each refined maximum
XATOL = 1e-12


def grid_max(F, line):
    """The largest tail on the 65-point grid of the line: a cheap lower bound of the supremum (searches)."""
    grid = np.linspace(line.low, 1.0, GRID)
    return float(np.max(expectation(F, *line.probabilities(grid))))


def sup_tail(F, line, certify=True):
    """``sup_psi p(psi)`` on ``line`` (``psi`` in ``[|margin|, 1]``): the certified bound, or the located value."""
    lo, hi = line.low, 1.0
    if hi - lo < 1e-15:
        return float(tail_on_line(F, line, np.array([hi]))[0][0])
    grid = np.linspace(lo, hi, GRID)
    values, curvature = tail_on_line(F, line, grid)
    found = []
    peaks = [i for i in range(GRID) if values[i] >= values[max(i - 1, 0)] and values[i] >= values[min(i + 1, GRID - 1)]]
    best_value = float(np.max(values))
    for i in peaks:
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, GRID - 1)]
        res = optimize.minimize_scalar(lambda x: -float(expectation(F, *line.probabilities(np.array([x])))[0]),
                                       bounds=(a, b), method="bounded", options={"xatol": XATOL})
        found.append((float(res.x), float(-res.fun)))
    located = max([best_value] + [v for _, v in found])
    if not certify:
        return located
    focus = [x for x, v in found if v >= located * (1 - 1e-6)]
    n = F.shape[0] - 1
    bound, _ = certified_sup(lambda x: tail_on_line(F, line, np.asarray(x, float)), line, 0, n, grid, located,
                             initial=(values, curvature), focus=focus)
    return float(min(bound, 1.0))
