"""Coverage and mean length of 95% confidence intervals for a proportion under DP.

Two panels each for coverage and mean length:

* over theta in {0.10, 0.11, ..., 0.98} at n = 30, epsilon = 1;
* over n in {8, 16, ..., 512, 700, 900, 1200} at theta = 0.2, epsilon = 1.

Methods: the DP-UMP two-sided interval (Tulap-noised count; Awan & Slavkovic
2018/2020), the DP-JIMI interval (Laplace-noised proportion; Romanus et al. 2025;
exact infinite-draw limit, or ``--n-sim`` draws in simulate mode), and the
non-private Clopper-Pearson and Wald intervals as yardsticks.

Exact mode: coverage = P(a <= T <= b) under the exact law of the release T, where
[a, b] is the set of releases whose interval covers theta (root search on the
interval's own endpoints); mean length by quadrature over the exact law of T (see
``validation/_methods.py``; the neglected tail mass is in the CSV).  ``--mode
simulate``: ``--reps`` releases per point.

Run: ``python -m validation.coverage [--quick] [--mode simulate] [--executor dask]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import _intervals  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "coverage"
METHODS = ("dp_ump", "dp_jimi", "clopper_pearson", "wald")
LEVEL = 0.95
THETAS = [round(0.10 + 0.01 * k, 2) for k in range(89)]
THETAS_QUICK = [0.1, 0.3, 0.5, 0.98]
NS = [8, 16, 32, 64, 128, 256, 512, 700, 900, 1200]
NS_QUICK = [8, 64, 512]
N_FIXED, EPSILON, THETA_FIXED = 30, 1.0, 0.2


def _cell(args, panel, method, n, thetas):
    return {"method": method, "n": n, "epsilon": args.epsilon, "confidence_level": args.level,
            "thetas": thetas, "mode": args.mode, "reps": args.reps, "n_sim": args.n_sim,
            "extra": {"panel": panel}}


def build_cells(args):
    """Exact mode: the theta panel is one cell per method (the DP-JIMI endpoint
    interpolant is shared across theta); simulate mode: one cell per point."""
    thetas = THETAS_QUICK if args.quick else THETAS
    ns = NS_QUICK if args.quick else NS
    cells = []
    for method in args.methods:
        if args.mode == "exact":
            cells.append(_cell(args, "theta", method, N_FIXED, list(thetas)))
        else:
            cells += [_cell(args, "theta", method, N_FIXED, [th]) for th in thetas]
        cells += [_cell(args, "n", method, n, [THETA_FIXED]) for n in ns]
    return cells


def plot(rows, meta, path):
    """Coverage and mean length against theta (n = 30) and against n (theta = 0.2)."""
    fig, axes = harness.new_figure(2, 2, panel_height=2.5)
    level = float(meta["confidence_level"])
    for col, (panel, var) in enumerate((("theta", "theta"), ("n", "n"))):
        sel = [r for r in rows if r["panel"] == panel]
        for row_i, (y, se, label) in enumerate((("coverage", "mc_se_coverage", "coverage"),
                                                ("mean_length", "mc_se_length", "mean length"))):
            ax = axes[2 * row_i + col]
            harness.plot_curves(ax, sel, var, y, key="method", se=se)
            if y == "coverage":
                harness.plot_nominal(ax, level, label="nominal level")
                ax.set_ylim(max(0.0, min(r["coverage"] for r in sel) - 0.02), 1.005)
            if var == "n":
                harness.log_axis(ax, [8, 32, 128, 512, 1200])
            title = None
            if row_i == 0:
                title = (f"n = {N_FIXED}, epsilon = {meta['epsilon']}" if panel == "theta"
                         else f"theta = {THETA_FIXED}, epsilon = {meta['epsilon']}")
            harness.finish_axes(ax, title=title,
                                xlabel=("true theta" if var == "theta" else "n (log scale)")
                                if row_i == 1 else None,
                                ylabel=label if col == 0 else None)
    if meta["mode"] == "simulate":
        for ax in axes:
            for line in ax.get_lines():
                if line.get_label() == harness.METHOD_STYLES["dp_jimi"]["label"]:
                    line.set_label(f"DP-JIMI (Laplace), H = {meta['n_sim']} draws")
    harness.add_legend(fig)
    fig.suptitle(f"{level:.0%} intervals: coverage and mean length ({meta['mode']})",
                 fontsize=9.5)
    return harness.save_figure(fig, path)


def build_parser():
    """The study's argument parser (the shared options plus its own settings)."""
    parser = harness.study_parser(__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=harness.positive_float, default=EPSILON,
                        help="privacy budget (default: %(default)s)")
    parser.add_argument("--level", type=harness.open_unit_float, default=LEVEL,
                        help="confidence level (default: %(default)s)")
    return harness.add_methods_argument(parser, METHODS)


def main(argv=None):
    """Run the coverage study; write ``coverage_<mode>.csv`` and the figure into ``--out``."""
    parser = build_parser()
    args = harness.resolve_common(parser.parse_args(argv))
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, _intervals.interval_cell, cells)
    meta = harness.study_metadata(
        STUDY, args, confidence_level=args.level, epsilon=args.epsilon,
        thetas=THETAS_QUICK if args.quick else THETAS, n_theta_panel=N_FIXED,
        ns=NS_QUICK if args.quick else NS, theta_n_panel=THETA_FIXED,
        methods=list(args.methods))
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
