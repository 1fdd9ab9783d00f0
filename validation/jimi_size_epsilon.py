"""DP-JIMI's exact-limit size against epsilon, with the warning threshold drawn.

For n in {30, 100}, alpha = 0.05 and epsilon on a grid from 0.25 to 10, the
largest and smallest size of the DP-JIMI test (``binom_jimi_test``, exact
infinite-draw limit) over p0 in {0.01, 0.02, ..., 0.99}, for the one-sided
('greater'; 'less' is its mirror image p0 -> 1 - p0) and the two-sided test.

Each size is exact: the test's rejection region is a half-line of the release
(two half-lines two-sided), found by root finding on the exact p-value, and its
probability is a finite binomial sum with the closed-form Laplace tail (the
computation behind the ApproximationWarning of ``binom_jimi_test``).  The figure
draws the warning band alpha (1 +- 0.2): outside it ``binom_jimi_test`` warns.

Run: ``python -m validation.jimi_size_epsilon [--quick]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from dpinfer.inference.jimi import _common as _jimi_common, _exact as _jimi_exact  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "jimi_size_epsilon"
NS = [30, 100]
EPSILONS = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0]
EPSILONS_QUICK = [1.0, 5.0]
ALTERNATIVES = ("greater", "two-sided")
ALPHA = 0.05


def size_cell(cell, seed_sequence):
    """Largest and smallest exact-limit size over the p0 grid (no randomness)."""
    del seed_sequence
    p0 = np.round(np.arange(1, 100, cell["p0_step"]) / 100.0, 2)
    lo, hi = _jimi_common._tails(1.0 - ALPHA, cell["alternative"])
    size = _jimi_exact._exact_rejection(p0, lo, hi, cell["n"], cell["epsilon"])
    i_max, i_min = int(np.argmax(size)), int(np.argmin(size))
    return {"n": cell["n"], "epsilon": cell["epsilon"], "alternative": cell["alternative"],
            "alpha": ALPHA, "max_size": float(size[i_max]), "p0_at_max": float(p0[i_max]),
            "min_size": float(size[i_min]), "p0_at_min": float(p0[i_min]),
            "warns": bool(np.any(np.abs(size - ALPHA) > _jimi_exact._RATE_TOLERANCE * ALPHA)),
            "computed": "exact"}


def build_cells(args):
    eps = EPSILONS_QUICK if args.quick else EPSILONS
    step = 7 if args.quick else 1
    return [{"n": n, "epsilon": e, "alternative": alt, "p0_step": step, "reps": args.reps}
            for alt in ALTERNATIVES for n in NS for e in eps]


def plot(rows, meta, path):
    """One panel per alternative: max and min size over p0 against epsilon, the band drawn."""
    fig, axes = harness.new_figure(2, sharey=True)
    colours = {30: "#D55E00", 100: "#0072B2"}
    titles = {"greater": "one-sided (H1: theta > p0)", "two-sided": "two-sided"}
    for ax, alt in zip(axes, ALTERNATIVES):
        for n in NS:
            sel = sorted((r for r in rows if r["alternative"] == alt and r["n"] == n),
                         key=lambda r: r["epsilon"])
            e = [r["epsilon"] for r in sel]
            ax.plot(e, [r["max_size"] for r in sel], color=colours[n], marker="o", markersize=3,
                    label=f"n = {n}: largest size over p0")
            ax.plot(e, [r["min_size"] for r in sel], color=colours[n], marker="o", markersize=3,
                    linestyle=":", label=f"n = {n}: smallest size over p0")
        harness.plot_nominal(ax, ALPHA, label="alpha")
        ax.axhspan(ALPHA * 0.8, ALPHA * 1.2, color="0.85", zorder=0,
                   label="no warning: alpha (1 +- 0.2)")
        harness.log_axis(ax, [0.25, 0.5, 1, 2, 5, 10])
        harness.finish_axes(ax, title=titles[alt], xlabel="epsilon",
                            ylabel="exact size (infinite draws)" if alt == "greater" else None)
    harness.add_legend(fig)
    fig.suptitle(f"DP-JIMI exact-limit size over p0 in [0.01, 0.99], alpha = {ALPHA}", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``jimi_size_epsilon_exact.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(__doc__.splitlines()[0], n_sim_help=None, modes=("exact",),
                                  reps_help="never used: every size is computed exactly (default: 1)")
    args = harness.parse_study_args(parser, argv, reps=1, reps_quick=1)
    cells = build_cells(args)
    stem, rows = harness.run_study_rows(STUDY, args, size_cell, cells)
    meta = harness.study_metadata(STUDY, args, ns=NS, alpha=ALPHA,
                                  epsilons=EPSILONS_QUICK if args.quick else EPSILONS)
    return harness.finish_study(STUDY, args, stem, None, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
