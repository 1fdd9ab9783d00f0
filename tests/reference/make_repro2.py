"""Reference values for the two-group repro-samples p-value (dpinfer.mean2_repro_test).

Run from the repository root:

    .venv/bin/python tests/reference/make_repro2.py

It writes tests/reference/repro2_values.json.  Nothing here imports dpinfer; the released
law (grid, integer sum, discrete Laplace noise by the inverse cdf at 60 digits) is the one
written out in make_repro.py, imported from there.

For two groups with explicit seeds (each group's normals and noise integers, stored), the
simulated statistic of seed r at the means (mu1, mu2) is ``V1_r(mu1) / n1 - V2_r(mu2) / n2``,
each ``V`` a plain loop over the values; the observed ``t = S1 / n1 - S2 / n2``; the
p-values are the counts of the definition (ties count both ways), one-sided ``(1 + #{T_r
>= t}) / (R + 1)`` ('greater'), ``(1 + #{T_r <= t}) / (R + 1)`` ('less'), two-sided twice
the smaller (at most 1).  For a null difference ``delta`` the p-value is ``sup over mu2 of
p(mu2 + delta, mu2)``, and here it is bracketed without any cleverness:

* **grid maximum** (a lower bound): the largest p-value over a dense grid of ``mu2``
  (4001 points from ``min(a) - 8 max(sigma) - |delta|`` to ``max(b) + 8 max(sigma) +
  |delta|``, and the far points ``-1e6``, ``1e6``);
* **box bound** (an upper bound): on each cell ``[m_i, m_{i+1}]`` of that grid every
  ``V`` is nondecreasing in its mean, so ``T_r`` lies between ``V1(m_i + delta) / n1 -
  V2(m_{i+1}) / n2`` and ``V1(m_{i+1} + delta) / n1 - V2(m_i) / n2``; the p-value of those
  ends bounds the cell's.  Below ``-1e6`` and above ``1e6`` every value is clipped (a
  constant release), so the two far cells are covered by their ends.

The package's p-value must lie between the two.  A scan of differences gives, from the
grid maximum over a coarser grid (401 points), differences certainly accepted at level
0.95 (grid maximum above 0.05): the package's set must contain them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from make_repro import grid_bits, noise_integers, per_step, pvalues, simulated

OUT = Path(__file__).with_name("repro2_values.json")

#: (name, (n1, a1, b1, eps1, sigma1, S1), (n2, a2, b2, eps2, sigma2, S2), R, deltas, seed)
CASES = [
    ("n6n5", (6, 0.0, 10.0, 20.0, 1.0, 37.2), (5, 0.0, 10.0, 20.0, 1.0, 20.5), 39,
     [-1.0, 0.5, 1.0, 2.1, 3.5, 5.0, 9.0], 21),
    ("n7n6_clipped", (7, 0.0, 5.0, 10.0, 1.5, 32.2), (6, -2.0, 6.0, 10.0, 1.0, 6.0), 39,
     [-2.0, 0.0, 2.0, 3.6, 6.0, 12.0], 22),
]
ALTERNATIVES = ("two-sided", "less", "greater")


def bound(his, los, t):
    """The p-values of a cell: 'greater' counted on the upper ends, 'less' on the lower ends."""
    p_greater, p_less = pvalues(his, t)["greater"], pvalues(los, t)["less"]
    return {"greater": p_greater, "less": p_less, "two-sided": min(1.0, 2.0 * min(p_greater, p_less))}


def stat_of(group, mean):
    n, a, b, g, normals, noise, sigma = group
    return [v / n for v in simulated(mean, normals, noise, a, b, sigma, "normal", g)]


def bracket(g1, g2, t, delta, points):
    lo = min(g1[1], g2[1]) - 8 * max(g1[6], g2[6]) - abs(delta)
    hi = max(g1[2], g2[2]) + 8 * max(g1[6], g2[6]) + abs(delta)
    grid = [-1e6] + [lo + (hi - lo) * i / (points - 1) for i in range(points)] + [1e6]
    s1 = [stat_of(g1, m + delta) for m in grid]
    s2 = [stat_of(g2, m) for m in grid]
    best = {alt: 0.0 for alt in ALTERNATIVES}
    top = {alt: 0.0 for alt in ALTERNATIVES}
    for i in range(len(grid)):
        p = pvalues([x - y for x, y in zip(s1[i], s2[i])], t)
        for alt in ALTERNATIVES:
            best[alt] = max(best[alt], p[alt])
        if i + 1 < len(grid):
            his = [x - y for x, y in zip(s1[i + 1], s2[i])]
            los = [x - y for x, y in zip(s1[i], s2[i + 1])]
            p = bound(his, los, t)
            for alt in ALTERNATIVES:
                top[alt] = max(top[alt], p[alt])
    return best, top


def case(name, one, two, r, deltas, seed):
    gen = np.random.default_rng(seed)
    groups, spec = [], {}
    for key, (n, a, b, eps, sigma, s) in (("group1", one), ("group2", two)):
        normals = gen.standard_normal((r, n)).tolist()
        g = grid_bits(n, eps)
        noise = noise_integers(gen, per_step(eps, g), r)
        groups.append((n, a, b, g, normals, noise, sigma))
        spec[key] = {"n": n, "lower": a, "upper": b, "epsilon": eps, "sigma": sigma, "sum": s,
                     "normals": normals, "noise": noise}
    t = one[5] / one[0] - two[5] / two[0]
    rows = []
    for delta in deltas:
        best, top = bracket(groups[0], groups[1], t, delta, 4001)
        rows.append({"delta": delta, "grid_max": best, "box_bound": top})
    scan = []
    for k in range(-40, 41):
        delta = k / 4.0
        best, _ = bracket(groups[0], groups[1], t, delta, 401)
        scan.append({"delta": delta, "grid_max": best})
    return {"name": name, "R": r, **spec, "points": rows, "scan": scan}


def main():
    out = {"cases": [case(*c) for c in CASES]}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
