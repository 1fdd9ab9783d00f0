"""Size and power of the private independence tests for an r x c table.

At alpha = 0.05, for tables released by ``ContingencyTableReleaser(epsilon)``
(replace-one, sensitivity 2, Laplace noise of scale 2 / epsilon per cell, n
public):

* ``independence_jimi_test`` (DP-JIMI, fiducial matching);
* ``independence_mc_test`` (the plug-in Monte Carlo test of Gaboardi et al. 2016);
* Pearson's chi-square on the confidential table (non-private reference,
  ``scipy.stats.chi2_contingency(correction=False)``; a table with an empty
  margin counts as not rejected).

Grid: shapes 2 x 2 and 3 x 4, n in {50, 200, 1000, 5000}, epsilon in {0.5, 1,
2}.  Null (``size``): cell probabilities ``p_i q_j`` with ``p`` proportional to
``1, ..., 2`` (linearly spaced over the rows) and ``q`` to ``1, ..., 3`` over
the columns.  Alternative (``power``): ``P_ij`` proportional to
``p_i q_j (1 + 0.3 a_i b_j)`` with ``a_i = +1`` on the first half of the rows
(rounded up) and ``-1`` on the rest, ``b_j`` likewise on the columns.  Each
point is ``--reps`` simulated data sets (confidential multinomial table, then a
release through the seeded path of the releaser), ``--n-sim`` draws per test;
Monte Carlo SE ``sqrt(rate (1 - rate) / reps)``.

Run: ``python -m validation.table_size [--quick | --full]`` (the default run uses 200 data sets
per point and takes under a minute on 2 cores; ``--full`` the 2000 of the full study).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import dpinfer  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "table_size"
ALPHA = 0.05
SHAPES = [(2, 2), (3, 4)]
NS = [50, 200, 1000, 5000]
EPSILONS = [0.5, 1.0, 2.0]
EFFECT = 0.3
METHODS = ("dp_jimi", "gaboardi_mc", "chi2_nonprivate")
REPS, REPS_QUICK = 2000, 200  # the full run (--full) and the --quick cap
#: data sets per point of the default run: every point costs about 0.21 s of CPU per data set
#: summed over the grid, so the default run takes under a minute on 2 cores (issue 28)
REPS_DEFAULT = 200
LABELS = {"dp_jimi": "DP-JIMI (fiducial)", "gaboardi_mc": "Gaboardi et al. MC", "chi2_nonprivate":
          "Pearson chi-square (non-private)"}
COLOURS = {"dp_jimi": "#0072B2", "gaboardi_mc": "#D55E00", "chi2_nonprivate": "0.3"}
DASHES = {0.5: ":", 1.0: "-", 2.0: "--"}


def cell_probabilities(shape, question):
    """The stated null (``'size'``) or alternative (``'power'``) cell probabilities."""
    r, c = shape
    p = np.linspace(1.0, 2.0, r)
    q = np.linspace(1.0, 3.0, c)
    probs = np.outer(p / p.sum(), q / q.sum())
    if question == "power":
        a = np.where(np.arange(r) < (r + 1) // 2, 1.0, -1.0)
        b = np.where(np.arange(c) < (c + 1) // 2, 1.0, -1.0)
        probs = probs * (1.0 + EFFECT * np.outer(a, b))
    return probs / probs.sum()


def _pearson_pvalue(x):
    if (x.sum(axis=0) == 0).any() or (x.sum(axis=1) == 0).any():
        return 1.0  # an empty margin: no evidence of association
    return float(stats.chi2_contingency(x, correction=False).pvalue)


def rate_cell(cell, seed_sequence):
    """Rejection rates of the three tests at one setting (one row per method)."""
    shape, n, eps, reps, n_sim = tuple(cell["shape"]), cell["n"], cell["epsilon"], cell["reps"], cell["n_sim"]
    rng = np.random.default_rng(seed_sequence)
    probs = cell_probabilities(shape, cell["question"])
    releaser = dpinfer.ContingencyTableReleaser(eps)
    tables = rng.multinomial(n, probs.ravel(), size=reps).reshape((reps,) + shape)
    reject = dict.fromkeys(METHODS, 0)
    for x in tables:
        rel = releaser.release(x, rng=rng)
        reject["dp_jimi"] += dpinfer.independence_jimi_test(rel, n_sim=n_sim, rng=rng).pvalue <= ALPHA
        reject["gaboardi_mc"] += dpinfer.independence_mc_test(rel, n_sim=n_sim, rng=rng).pvalue <= ALPHA
        reject["chi2_nonprivate"] += _pearson_pvalue(x) <= ALPHA
    rows = []
    for method in METHODS:
        rate = reject[method] / reps
        rows.append({"question": cell["question"], "shape": f"{shape[0]}x{shape[1]}", "n": n, "epsilon": eps,
                     "method": method, "alpha": ALPHA, "rate": rate,
                     "mc_se": float(harness.mc_se(rate, reps)), "reps": reps, "n_sim": n_sim,
                     "mode": cell["mode"], "computed": "simulated"})
    return rows


def build_cells(args):
    shapes = [(2, 2)] if args.quick else SHAPES
    ns = [200] if args.quick else NS
    eps_grid = [1.0] if args.quick else EPSILONS
    return [{"question": qn, "shape": list(s), "n": n, "epsilon": e, "reps": args.reps, "n_sim": args.n_sim,
             "mode": args.mode}
            for qn in ("size", "power") for s in shapes for n in ns for e in eps_grid]


def plot(rows, meta, path):
    """Size and power against n, one panel per (question, shape); colour = method, dash = epsilon."""
    shapes = sorted({r["shape"] for r in rows})
    panels = [(q, s) for q in ("size", "power") for s in shapes]
    fig, axes = harness.new_figure(len(panels), panel_width=3.0)
    for ax, (question, shape) in zip(axes, panels):
        sel = [r for r in rows if r["question"] == question and r["shape"] == shape]
        for method in METHODS:
            for eps in sorted({r["epsilon"] for r in sel}):
                if method == "chi2_nonprivate" and eps != min(r["epsilon"] for r in sel):
                    continue  # the non-private test does not depend on epsilon: one curve
                pts = sorted((r for r in sel if r["method"] == method and r["epsilon"] == eps),
                             key=lambda r: r["n"])
                ns = np.array([r["n"] for r in pts], dtype=float)
                y = np.array([r["rate"] for r in pts])
                se = np.array([r["mc_se"] for r in pts])
                label = LABELS[method] + ("" if method == "chi2_nonprivate" else f", epsilon = {eps:g}")
                ax.errorbar(ns, y, yerr=2 * se, color=COLOURS[method], marker="o", markersize=2.5, capsize=1.5,
                            linewidth=0.9, linestyle="-." if method == "chi2_nonprivate" else DASHES.get(eps, "-"),
                            label=label)
        if question == "size":
            harness.plot_nominal(ax, ALPHA, label="alpha")
        ax.set_xscale("log")
        ax.set_xticks(NS, [f"{n:g}" for n in NS])
        ax.minorticks_off()
        harness.finish_axes(ax, title=f"{question}, {shape.replace('x', ' x ')} table\n"
                                      f"({harness.computed_label(sel)})", xlabel="n",
                            ylabel="rejection rate" if panels.index((question, shape)) == 0 else None)
    harness.add_legend(fig, ncol=4)
    fig.suptitle(f"Private independence tests at alpha = {ALPHA} (bars: +/- 2 Monte Carlo SE; power at "
                 f"interaction {EFFECT})", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``table_size_simulate.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("simulate",),
        n_sim_help="draws per test (DP-JIMI and the Monte Carlo comparator; default: 1000)",
        reps_help=f"data sets simulated per point (default: {REPS_DEFAULT}; {REPS} with "
                  f"--full; at most {REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK,
                                   reps_default=REPS_DEFAULT)
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, rate_cell, cells)
    meta = harness.study_metadata(STUDY, args, reps=args.reps, n_sim=args.n_sim, alpha=ALPHA, ns=NS,
                                  epsilons=EPSILONS, effect=EFFECT, shapes="2x2,3x4")
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
