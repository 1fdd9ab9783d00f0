"""Reference exact power of the two-arm test under both orderings, by enumeration (no dpinfer).

Three cells of the power table of ``docs/two_arm.rst`` (``validation/two_arm_ordering.py``):
n = 20 per arm, epsilon = 1 per arm (delta = 0), alpha = 0.05, the one-sided ('greater') test
of no difference.  Computed here from the model alone:

* a release is ``Z_i = X_i + D_i + U_i`` with ``X_i ~ Bin(n, theta_i)``, ``D_i`` the discrete
  Laplace integer part of the untruncated Tulap noise, ``P(D = d) = (1 - b)/(1 + b) b^|d|``,
  ``b = exp(-epsilon)`` (``|d| <= 40`` kept: the rest is below 1e-17), ``U_i ~ U(-1/2, 1/2)``;
  ``K_i = X_i + D_i``, so ``P(K_i = k)`` is the binomial pmf convolved with that of ``D_i``;
* the difference ordering: ``T = Z1/n - Z2/n``; given ``(K1, K2)``,
  ``P(T >= t) = G(n t - K1 + K2)`` with ``G(s) = P(U1 - U2 >= s)`` the triangular tail;
* the score ordering: ``T = (g(clip K1, clip K2), Z1/n - Z2/n)`` ordered lexicographically,
  ``g`` Barnard's pooled z with the noise variance ``v = 2 b / (1 - b)^2`` added to each arm,
  ``g = (p1 - p2) / sqrt(pbar (1 - pbar) (2 / n) + 2 v / n^2)``, computed at 40 digits (mpmath)
  and made monotone (smallest majorant nondecreasing in ``j1``, nonincreasing in ``j2``; ties
  decided at tolerance 1e-25);
* the critical region ``{T >= c}`` is the largest whose supremum over the null line
  ``theta1 = theta2 = nu`` of its probability is at most alpha: for the score, the most extreme
  level whose whole tail (ties included) exceeds alpha, then the linear cut-off among its ties
  (root search); the supremum over ``nu`` on a 2001-point grid, every grid maximum within 1e-3
  of the largest refined by a bounded scalar search (the tail is a polynomial of degree 2n in
  ``nu``);
* the power is the region's probability at ``(theta1, theta2)``.

The package's release grid (a release is an odd multiple of ``2**-41`` away from the cell
edges) moves these powers by less than 1e-10 and is ignored.

Run: ``python tests/reference/make_two_arm_power.py`` (about a minute); writes
``two_arm_power_values.json``.
"""

import json
import math
import pathlib

import mpmath as mp
import numpy as np
from scipy import optimize, stats

mp.mp.dps = 40
N, EPSILON, ALPHA, REACH = 20, 1.0, 0.05, 40
CELLS = [("difference", 0.45, 0.30), ("score", 0.20, 0.08), ("score", 0.60, 0.45)]
NU = np.linspace(0.0, 1.0, 2001)


def noise_pmf(epsilon):
    b = math.exp(-epsilon)
    d = np.arange(-REACH, REACH + 1)
    return (1.0 - b) / (1.0 + b) * b ** np.abs(d)


def k_pmfs(theta, n, epsilon):
    """Rows ``P(K = k)`` for ``k = -REACH .. n + REACH``, one row per ``theta``."""
    theta = np.atleast_1d(theta)
    binom = stats.binom.pmf(np.arange(n + 1)[None, :], n, theta[:, None])
    noise = noise_pmf(epsilon)
    return np.array([np.convolve(row, noise) for row in binom])


def triangular_tail(s):
    """``P(U1 - U2 >= s)`` for independent ``U(-1/2, 1/2)``."""
    s = np.clip(s, -1.0, 1.0)
    return np.where(s >= 0.0, (1.0 - s) ** 2 / 2.0, 1.0 - (1.0 + s) ** 2 / 2.0)


def score_levels(n, epsilon):
    """The monotone pooled score on ``[0, n]^2`` as integers of tie classes (0 = lowest level)."""
    b = mp.exp(-mp.mpf(epsilon))
    v = 2 * b / (1 - b) ** 2
    g = [[None] * (n + 1) for _ in range(n + 1)]
    for j1 in range(n + 1):
        for j2 in range(n + 1):
            pbar = mp.mpf(j1 + j2) / (2 * n)
            g[j1][j2] = (mp.mpf(j1 - j2) / n) / mp.sqrt(pbar * (1 - pbar) * 2 / n + 2 * v / n**2)
    h = [[max(g[i1][i2] for i1 in range(j1 + 1) for i2 in range(j2, n + 1)) for j2 in range(n + 1)]
         for j1 in range(n + 1)]
    values = sorted({x for row in h for x in row})
    classes = []  # merge values within 1e-25 (equal exact values)
    for x in values:
        if classes and x - classes[-1][-1] <= mp.mpf(10) ** -25:
            classes[-1].append(x)
        else:
            classes.append([x])
    index = {x: i for i, cls in enumerate(classes) for x in cls}
    return np.array([[index[x] for x in row] for row in h])


def sup_over_null(matrix, n, epsilon):
    """``sup_nu p(nu)' M p(nu)`` on the null line ``theta1 = theta2 = nu``."""
    def tail(nu):
        p = k_pmfs(nu, n, epsilon)
        return np.einsum("mi,ij,mj->m", p, matrix, p)

    values = tail(NU)
    best = float(values.max())
    for i in range(len(NU)):
        left, right = values[max(i - 1, 0)], values[min(i + 1, len(NU) - 1)]
        if values[i] >= left and values[i] >= right and values[i] >= best - 1e-3:
            lo, hi = NU[max(i - 1, 0)], NU[min(i + 1, len(NU) - 1)]
            res = optimize.minimize_scalar(lambda x: -float(tail(x)[0]), bounds=(lo, hi), method="bounded",
                                           options={"xatol": 1e-13})
            best = max(best, -float(res.fun))
    return best


def region(statistic, n, epsilon):
    """The matrix ``M[k1, k2]``: the rejection probability given ``(K1, K2)``, as a function of the cut."""
    k = np.arange(-REACH, n + REACH + 1)
    diff = k[:, None] - k[None, :]
    if statistic == "difference":
        return lambda level, u: triangular_tail(n * u - diff)
    levels = score_levels(n, epsilon)
    clipped = np.clip(k, 0, n)
    cls = levels[clipped[:, None], clipped[None, :]]
    return lambda level, u: (cls > level) + (cls == level) * triangular_tail(n * u - diff)


def critical(statistic, n, epsilon, alpha):
    """``(level, u)``: the largest rejection region with supremum at most ``alpha``."""
    m_of = region(statistic, n, epsilon)
    span = (n + 2 * REACH + 2) / n
    if statistic == "difference":
        level = 0
    else:
        top = int(score_levels(n, epsilon).max())
        # the first level from the top whose whole tail (ties in) exceeds alpha: bisection
        lo, hi = top + 1, 0  # sup(level lo, ties in) <= alpha (nothing), sup(level hi) > alpha
        while lo - hi > 1:
            mid = (lo + hi) // 2
            if sup_over_null(m_of(mid, -span), n, epsilon) > alpha:
                hi = mid
            else:
                lo = mid
        level = hi
    u = optimize.brentq(lambda u: sup_over_null(m_of(level, u), n, epsilon) - alpha, -span, span,
                        xtol=1e-14, rtol=1e-14)
    return level, u, m_of(level, u)


def main():
    out = []
    for statistic in ("difference", "score"):
        level, u, matrix = critical(statistic, N, EPSILON, ALPHA)
        for stat, theta1, theta2 in CELLS:
            if stat != statistic:
                continue
            power = float(k_pmfs(theta1, N, EPSILON)[0] @ matrix @ k_pmfs(theta2, N, EPSILON)[0])
            row = {"statistic": statistic, "n": N, "epsilon": EPSILON, "alpha": ALPHA, "alternative": "greater",
                   "theta1": theta1, "theta2": theta2, "power": power, "level_class": int(level), "cut": u}
            print(row, flush=True)
            out.append(row)
    path = pathlib.Path(__file__).with_name("two_arm_power_values.json")
    path.write_text(json.dumps({"cells": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
