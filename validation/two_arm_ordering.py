"""The two-arm test's ordering chosen by exact power: the difference against the score.

For n per arm in {20, 50, 100, 300} and epsilon in {0.5, 1, 3} (both arms Tulap at that
epsilon, delta = 0), alpha = 0.05, a null of no difference, the exact power of
``binom2_ump_test`` under each ordering (``statistic='difference'``, ``'score'``) at three
alternatives, (theta1, theta2) = (0.45, 0.30), (0.20, 0.08) and (0.60, 0.45), for the one-sided
('greater') and the two-sided test, and the exact size of each at a common rate of 0.1
(``binom2_ump_power``: the rejection region's probability summed exactly, nothing simulated).
The "less" test at the mirrored pair ``(1 - theta1, 1 - theta2)`` has the same power.  This is
the table of ``docs/two_arm.rst`` and of the ``dpinfer.inference.two_arm`` docstring;
``tests/inference/two_arm/test_ordering_power.py`` checks three of its cells against
``tests/reference/make_two_arm_power.py`` (enumeration, no dpinfer).

Run: ``python -m validation.two_arm_ordering [--quick]`` (``--quick``: n = 20, epsilon = 1).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from dpinfer import binom2_ump_power  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "two_arm_ordering"
ALPHA = 0.05
NS, EPSILONS = [20, 50, 100, 300], [0.5, 1.0, 3.0]
#: (column, theta1, theta2): the three alternatives and the common rate of the size column
POINTS = (("power_45_30", 0.45, 0.30), ("power_20_08", 0.20, 0.08), ("power_60_45", 0.60, 0.45),
          ("size_at_10", 0.10, 0.10))
STATISTICS = ("difference", "score")
ALTERNATIVES = ("greater", "two-sided")


def power_cell(cell, seed_sequence):
    """The exact power at the three alternatives and the size at 0.1 (no randomness)."""
    del seed_sequence
    theta1 = np.array([p[1] for p in POINTS])
    theta2 = np.array([p[2] for p in POINTS])
    power = binom2_ump_power(theta1, theta2, cell["n"], cell["n"], epsilon=cell["epsilon"], alpha=ALPHA,
                             alternative=cell["alternative"], statistic=cell["statistic"])
    row = {"n": cell["n"], "epsilon": cell["epsilon"], "alternative": cell["alternative"],
           "statistic": cell["statistic"], "alpha": ALPHA}
    row.update({name: float(p) for (name, _, _), p in zip(POINTS, power)})
    row["size_ok"] = bool(row["size_at_10"] <= ALPHA + 1e-12)
    row["computed"] = "exact"
    return row


def build_cells(args):
    ns, eps = ([20], [1.0]) if args.quick else (NS, EPSILONS)
    # the largest arms first: the slowest cells start while the others fill the workers
    return [{"n": n, "epsilon": e, "alternative": alt, "statistic": s, "reps": args.reps}
            for n in sorted(ns, reverse=True) for e in eps for alt in ALTERNATIVES for s in STATISTICS]


def table(rows):
    """The docs' table (one-sided powers and the size; two-sided powers), as text lines."""
    def cell(n, e, alt, name):
        found = {r["statistic"]: r[name] for r in rows
                 if r["n"] == n and r["epsilon"] == e and r["alternative"] == alt}
        return f"{found['difference']:.3f} / {found['score']:.3f}"

    lines = []
    for n in sorted({r["n"] for r in rows}):
        for e in sorted({r["epsilon"] for r in rows}):
            parts = [cell(n, e, "greater", name) for name, _, _ in POINTS]
            parts += [cell(n, e, "two-sided", name) for name, _, _ in POINTS[:3]]
            lines.append(f"{n:>4}  {e:<5g}  " + "  ".join(parts))
    return lines


def plot(rows, meta, path):
    """Score minus difference power per alternative against n (one panel per alternative)."""
    fig, axes = harness.new_figure(2, sharey=True)
    colours = {0.5: "#D55E00", 1.0: "#0072B2", 3.0: "#009E73"}
    styles = {"power_45_30": "-", "power_20_08": "--", "power_60_45": ":"}
    for ax, alt in zip(axes, ALTERNATIVES):
        for e in sorted({r["epsilon"] for r in rows}):
            for name, t1, t2 in POINTS[:3]:
                sel = sorted((r for r in rows if r["epsilon"] == e and r["alternative"] == alt),
                             key=lambda r: r["n"])
                ns = sorted({r["n"] for r in sel})
                gain = [next(r[name] for r in sel if r["n"] == n and r["statistic"] == "score")
                        - next(r[name] for r in sel if r["n"] == n and r["statistic"] == "difference")
                        for n in ns]
                ax.plot(ns, gain, linestyle=styles[name], marker="o", markersize=3, color=colours.get(e, "k"),
                        label=f"{t1:.2f} vs {t2:.2f}, epsilon = {e:g}")
        ax.axhline(0.0, color="0.5", linewidth=0.8)
        harness.finish_axes(ax, title=f"{alt}, alpha = {ALPHA}", xlabel="n per arm",
                            ylabel="exact power: score minus difference" if alt == "greater" else None)
    harness.add_legend(fig)
    fig.suptitle("Exact power of the two orderings of the two-arm test (Tulap releases)", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``two_arm_ordering_exact[_quick].csv`` and the figure into ``--out``."""
    parser = harness.study_parser(__doc__.splitlines()[0], n_sim_help=None, modes=("exact",),
                                  reps_help="never used: every power is computed exactly (default: 1)")
    args = harness.parse_study_args(parser, argv, reps=1, reps_quick=1)
    cells = build_cells(args)
    stem, rows = harness.run_study_rows(STUDY, args, power_cell, cells)
    meta = harness.study_metadata(STUDY, args, alpha=ALPHA, ns=NS, epsilons=EPSILONS,
                                  points=[p[1:] for p in POINTS])
    out = harness.finish_study(STUDY, args, stem, None, rows, meta, plot)
    print("\n".join(table(rows)))
    return out


if __name__ == "__main__":
    sys.exit(main())
