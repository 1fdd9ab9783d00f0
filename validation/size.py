"""Size of the one-sided tests of a proportion under differential privacy.

For p0 in {0.1, ..., 0.9}, n = 30, epsilon = 1, alpha = 0.05 and both one-sided
alternatives, the probability that each test rejects when theta = p0:

* DP-UMP (Tulap-noised count; Awan & Slavkovic 2018): size alpha exactly;
* the normal approximation for a Laplace-noised proportion (Vu & Slavkovic 2009):
  its size drifts away from alpha at extreme p0;
* DP-JIMI (Laplace-noised proportion; Romanus et al. 2025): in its exact
  infinite-draw limit, and exactly at the finite number of draws ``--n-sim``;
* the non-private randomised UMP test (size alpha) and exact binomial test
  (conservative) as yardsticks.

Exact mode computes every size as a finite sum (plus, for the private tests, the
root of the p-value on the release axis); ``--mode simulate`` draws ``--reps``
releases per cell (DP-JIMI with ``--n-sim`` draws per test).

Run: ``python -m validation.size [--quick] [--mode simulate] [--executor dask]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import _methods as M  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "size"
P0 = [round(0.1 * k, 1) for k in range(1, 10)]
P0_QUICK = [0.1, 0.5, 0.9]
METHODS = ("dp_ump", "normal", "dp_jimi", "ump_nonprivate", "exact_binomial")
ALTERNATIVES = ("greater", "less")
N, EPSILON, ALPHA = 30, 1.0, 0.05


def build_cells(args):
    """One cell per (method, alternative, p0)."""
    grid = P0_QUICK if args.quick else P0
    return [
        {"method": method, "alternative": alt, "p0": p0, "thetas": [p0], "n": args.n,
         "epsilon": args.epsilon, "alpha": args.alpha, "mode": args.mode, "reps": args.reps,
         "n_sim": args.n_sim, "value_name": "size"}
        for method in args.methods for alt in ALTERNATIVES for p0 in grid
    ]


def _style(row):
    if row["method"] == "dp_jimi" and row["n_sim"] is not None and row["mc_se"] is None:
        return "dp_jimi_draws"
    return row["method"]


def plot(rows, meta, path):
    """Two panels (one per alternative): size against p0, the nominal alpha dashed."""
    fig, axes = harness.new_figure(2, sharey=True)
    titles = {"greater": "H0: theta <= p0 vs H1: theta > p0",
              "less": "H0: theta >= p0 vs H1: theta < p0"}
    for ax, alt in zip(axes, ALTERNATIVES):
        sel = [r for r in rows if r["alternative"] == alt]
        # Key by method and draw count so the exact finite-draw DP-JIMI is its own curve.
        harness.plot_curves(ax, [dict(r, _curve=_style(r)) for r in sel], "p0", "size",
                            key="_curve")
        harness.plot_nominal(ax, float(meta["alpha"]), label="alpha")
        harness.finish_axes(ax, title=titles[alt], xlabel="p0 (true theta = p0)",
                            ylabel="size" if alt == "greater" else None)
    for ax in axes:
        for line in ax.get_lines():
            if line.get_label() == harness.METHOD_STYLES["dp_jimi_draws"]["label"]:
                line.set_label(f"DP-JIMI, H = {meta.get('n_sim_exact', '?')} draws (exact)")
            elif (meta["mode"] == "simulate"
                  and line.get_label() == harness.METHOD_STYLES["dp_jimi"]["label"]):
                line.set_label(f"DP-JIMI (Laplace), H = {meta['n_sim']} draws")
    harness.add_legend(fig)
    fig.suptitle(f"Size at n = {meta['n']}, epsilon = {meta['epsilon']}, alpha = {meta['alpha']} "
                 f"({meta['mode']})", fontsize=9.5)
    return harness.save_figure(fig, path)


def build_parser():
    """The study's argument parser (the shared options plus its own settings)."""
    parser = harness.study_parser(__doc__.splitlines()[0], n_sim_help=harness.N_SIM_HELP_TESTS)
    parser.add_argument("--n", type=harness.positive_int, default=N,
                        help="sample size (default: %(default)s)")
    parser.add_argument("--epsilon", type=harness.positive_float, default=EPSILON,
                        help="privacy budget (default: %(default)s)")
    parser.add_argument("--alpha", type=harness.open_unit_float, default=ALPHA,
                        help="significance level (default: %(default)s)")
    return harness.add_methods_argument(parser, METHODS)


def main(argv=None):
    """Run the size study; write ``size_<mode>.csv`` and the figure into ``--out``."""
    parser = build_parser()
    args = harness.resolve_common(parser.parse_args(argv))
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, M.one_sided_cell, cells)
    meta = harness.study_metadata(
        STUDY, args, n=args.n, epsilon=args.epsilon, alpha=args.alpha,
        p0=P0_QUICK if args.quick else P0, methods=list(args.methods),
        n_sim_exact=args.n_sim if args.mode == "exact" else None)
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
