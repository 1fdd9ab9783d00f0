"""Reference values for the two-group repro-samples p-value with the joint statistic (mean2_repro_test).

Run from the repository root (after make_repro2.py, whose cases and explicit seeds it reads):

    .venv/bin/python tests/reference/make_repro2_joint.py

It writes tests/reference/repro2_joint_values.json.  Nothing here imports dpinfer; the
simulated release of a seed is make_repro.py's plain loop.

The joint statistic's definition: group ``i``'s repro p-value ``p_i(mu_i)`` (the counts
of make_repro.pvalues on its own seeds and released sum; 'greater' uses group 1's
'greater' and group 2's 'less', 'less' the reverse, two-sided both two-sided), and
``p(mu1, mu2) = 1 - (1 - min(p1, p2))**2``.  The p-value for a difference ``delta`` is
``sup over mu2 of p(mu2 + delta, mu2)``, bracketed without cleverness:

* **grid maximum** (a lower bound): the largest value over a grid of ``mu2`` (4001
  points from ``min(a) - 8 max(sigma) - |delta|`` to ``max(b) + 8 max(sigma) + |delta|``,
  and the far points ``-1e6``, ``1e6``);
* **box bound** (an upper bound): on each cell of that grid each group's release is
  nondecreasing in its mean, so its 'greater' count is at most the count at the cell's
  upper end and its 'less' count at most that at the lower end; the p-value of those
  counts bounds the cell's.

A scan of differences at confidence level 0.8 (R = 39: at 0.95 nothing can be
rejected) gives differences certainly accepted (grid maximum above 0.2) and certainly
rejected (box bound at most 0.2).
"""

from __future__ import annotations

import json
from pathlib import Path

from make_repro import grid_bits, pvalues, simulated

HERE = Path(__file__).parent
OUT = HERE / "repro2_joint_values.json"
ALTERNATIVES = ("two-sided", "less", "greater")
FLIP = {"greater": "less", "less": "greater", "two-sided": "two-sided"}
ALPHA_SCAN = 0.2


def sims(spec, mean, g):
    return simulated(mean, spec["normals"], spec["noise"], spec["lower"], spec["upper"], spec["sigma"], "normal", g)


def joint(p1, p2):
    v = min(p1, p2)
    return v * (2.0 - v)


def bracket(one, two, g1, g2, delta, points):
    lo = min(one["lower"], two["lower"]) - 8 * max(one["sigma"], two["sigma"]) - abs(delta)
    hi = max(one["upper"], two["upper"]) + 8 * max(one["sigma"], two["sigma"]) + abs(delta)
    grid = [-1e6] + [lo + (hi - lo) * i / (points - 1) for i in range(points)] + [1e6]
    p1 = [pvalues(sims(one, m + delta, g1), one["sum"]) for m in grid]
    p2 = [pvalues(sims(two, m, g2), two["sum"]) for m in grid]
    best, top = {}, {}
    for alt in ALTERNATIVES:
        a2 = FLIP[alt]
        best[alt] = max(joint(x[alt], y[a2]) for x, y in zip(p1, p2))
        top[alt] = 0.0
        for i in range(len(grid) - 1):
            # 'greater' count largest at the cell's upper end, 'less' count at its lower end
            c1 = {"greater": p1[i + 1]["greater"], "less": p1[i]["less"]}
            c2 = {"greater": p2[i + 1]["greater"], "less": p2[i]["less"]}
            for c in (c1, c2):
                c["two-sided"] = min(1.0, 2.0 * min(c["greater"], c["less"]))
            top[alt] = max(top[alt], joint(c1[alt], c2[a2]))
    return best, top


def main():
    cases = json.loads((HERE / "repro2_values.json").read_text())["cases"]
    out = []
    for case in cases:
        one, two = case["group1"], case["group2"]
        g1, g2 = grid_bits(one["n"], one["epsilon"]), grid_bits(two["n"], two["epsilon"])
        points = []
        for row in case["points"]:
            best, top = bracket(one, two, g1, g2, row["delta"], 4001)
            points.append({"delta": row["delta"], "grid_max": best, "box_bound": top})
        scan = []
        for k in range(-40, 41):
            delta = k / 4.0
            best, top = bracket(one, two, g1, g2, delta, 401)
            scan.append({"delta": delta, "grid_max": best, "box_bound": top})
        out.append({"name": case["name"], "points": points, "scan": scan})
    OUT.write_text(json.dumps({"alpha_scan": ALPHA_SCAN, "cases": out}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
