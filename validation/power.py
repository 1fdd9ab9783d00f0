"""Power of the one-sided tests of a proportion under differential privacy.

Three panels, each one question, alpha = 0.05, alternative theta > p0:

* (a) H0: theta <= 0.2 at n = 30, epsilon = 1, true theta in {0.2, ..., 0.9};
* (b) H0: theta <= 0.9 at theta = 0.95, epsilon = 1, over n in
  {16, 30, 50, 100, 150, 200, 350, 400, 500};
* (c) H0: theta <= 0.8 at theta = 0.9, n = 30, over epsilon in {2^-6, ..., 2}.

Methods: DP-UMP (Tulap), the normal approximation and DP-JIMI (Laplace; exact limit,
and exactly at ``--n-sim`` draws), the non-private randomised UMP and exact binomial
tests.  Exact mode: finite sums (see ``validation/_methods.py``); ``--mode simulate``:
``--reps`` releases per point.

Run: ``python -m validation.power [--quick] [--mode simulate] [--executor dask]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import _methods as M  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "power"
METHODS = ("dp_ump", "normal", "dp_jimi", "ump_nonprivate", "exact_binomial")
ALPHA = 0.05
PANELS = {
    # name: (fixed settings, the swept variable, full grid, quick grid)
    "theta": ({"n": 30, "epsilon": 1.0, "p0": 0.2}, "theta",
              [round(0.1 * k, 1) for k in range(2, 10)], [0.2, 0.5, 0.9]),
    "n": ({"epsilon": 1.0, "p0": 0.9, "theta": 0.95}, "n",
          [16, 30, 50, 100, 150, 200, 350, 400, 500], [16, 100, 500]),
    "epsilon": ({"n": 30, "p0": 0.8, "theta": 0.9}, "epsilon",
                [2.0 ** k for k in range(-6, 2)], [2.0 ** -6, 2.0 ** -2, 2.0]),
}
TITLES = {
    "theta": "(a) H0: theta <= 0.2; n = 30, epsilon = 1",
    "n": "(b) H0: theta <= 0.9, theta = 0.95; epsilon = 1",
    "epsilon": "(c) H0: theta <= 0.8, theta = 0.9; n = 30",
}
XLABELS = {"theta": "true theta", "n": "n (log scale)", "epsilon": "epsilon (log scale)"}


def _cell(args, panel, method, settings, thetas):
    return {"method": method, "alternative": "greater", "p0": settings["p0"], "thetas": thetas,
            "n": int(settings["n"]), "epsilon": float(settings["epsilon"]), "alpha": args.alpha,
            "mode": args.mode, "reps": args.reps, "n_sim": args.n_sim, "value_name": "power",
            "extra": {"panel": panel}}


def build_cells(args):
    """Exact mode: one cell per (panel, method, null); simulate mode: one per point."""
    cells = []
    for panel, (fixed, var, grid, quick) in PANELS.items():
        values = quick if args.quick else grid
        for method in args.methods:
            if var == "theta":
                if args.mode == "exact":
                    cells.append(_cell(args, panel, method, fixed, list(values)))
                else:
                    cells += [_cell(args, panel, method, fixed, [v]) for v in values]
            else:
                for v in values:
                    settings = dict(fixed, **{var: v})
                    cells.append(_cell(args, panel, method, settings, [settings["theta"]]))
    return cells


def _style(row):
    if row["method"] == "dp_jimi" and row["n_sim"] is not None and row["mc_se"] is None:
        return "dp_jimi_draws"
    return row["method"]


def plot(rows, meta, path):
    """Three panels: power against theta, against n and against epsilon."""
    fig, axes = harness.new_figure(3)
    for ax, panel in zip(axes, PANELS):
        sel = [r for r in rows if r["panel"] == panel]
        var = PANELS[panel][1]
        # Key by method and draw count so the exact finite-draw DP-JIMI is its own curve.
        harness.plot_curves(ax, [dict(r, _curve=_style(r)) for r in sel], var, "power",
                            key="_curve")
        harness.plot_nominal(ax, float(meta["alpha"]), label="alpha")
        if var == "n":
            harness.log_axis(ax, [16, 30, 50, 100, 200, 500])
        elif var == "epsilon":
            ticks = [2.0 ** k for k in range(-6, 2)]
            harness.log_axis(ax, ticks, base=2,
                             labels=[f"1/{int(1 / t)}" if t < 1 else f"{t:g}" for t in ticks])
        ax.set_ylim(-0.02, 1.02)
        harness.finish_axes(ax, title=TITLES[panel], xlabel=XLABELS[panel],
                            ylabel="power" if panel == "theta" else None)
    for ax in axes:
        for line in ax.get_lines():
            if line.get_label() == harness.METHOD_STYLES["dp_jimi_draws"]["label"]:
                line.set_label(f"DP-JIMI, H = {meta.get('n_sim_exact', '?')} draws (exact)")
            elif (meta["mode"] == "simulate"
                  and line.get_label() == harness.METHOD_STYLES["dp_jimi"]["label"]):
                line.set_label(f"DP-JIMI (Laplace), H = {meta['n_sim']} draws")
    harness.add_legend(fig)
    fig.suptitle(f"Power of one-sided tests, alpha = {meta['alpha']} ({meta['mode']})",
                 fontsize=9.5)
    return harness.save_figure(fig, path)


def build_parser():
    """The study's argument parser (the shared options plus its own settings)."""
    parser = harness.study_parser(__doc__.splitlines()[0], n_sim_help=harness.N_SIM_HELP_TESTS)
    parser.add_argument("--alpha", type=harness.open_unit_float, default=ALPHA,
                        help="significance level (default: %(default)s)")
    return harness.add_methods_argument(parser, METHODS)


def main(argv=None):
    """Run the power study; write ``power_<mode>.csv`` and the figure into ``--out``."""
    parser = build_parser()
    args = harness.resolve_common(parser.parse_args(argv))
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, M.one_sided_cell, cells)
    grids = {p: (v[3] if args.quick else v[2]) for p, v in PANELS.items()}
    meta = harness.study_metadata(
        STUDY, args, alpha=args.alpha, alternative="greater", panels=grids,
        fixed={p: v[0] for p, v in PANELS.items()}, methods=list(args.methods),
        n_sim_exact=args.n_sim if args.mode == "exact" else None)
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
