"""Coverage of the DP-JIMI logistic-regression intervals (``logistic_jimi``).

For tables released by ``ContingencyTableReleaser(epsilon)`` (replace-one,
sensitivity 2, Laplace noise of scale 2 / epsilon per cell, n public), the
coverage and mean length of the 95% interval of every coefficient of a
main-effects logistic model with categorical predictors (treatment contrasts):

* ``logistic_jimi`` (DP-JIMI, fiducial matching, 1000 draws by default);
* the Wald interval of the MLE on the confidential table (non-private
  yardstick, ``beta_hat +/- 1.96 SE`` from the inverse Fisher information; a
  data set whose MLE does not exist (separation: no convergence, or a
  coefficient beyond 20 in absolute value) counts as covering with infinite
  length, and is counted in the ``wald_undefined`` column).

Scenarios (cells of the predictors equally likely; ``Y`` from the model):

* ``1 binary``: ``logit P(Y=1) = 0.5 + 1.0 x`` (2 cells; the coefficients are
  closed-form log-odds contrasts);
* ``2 binary``: ``0.5 + 1.0 a - 1.0 b`` (2 x 2 cells, batched Newton fit);
* ``3-level x binary``: ``-0.5 + 0.5 [a=2] + 1.0 [a=3] - 0.7 b`` (3 x 2 cells).

Grid: n in {100, 400, 2000}, epsilon in {0.5, 1, 2}.  Each point is ``--reps``
data sets (multinomial table, then a release through the seeded path of the
releaser); Monte Carlo SE of a coverage ``sqrt(c (1 - c) / reps)``.

Run: ``python -m validation.logistic_coverage [--quick | --full]`` (the default run uses 400
data sets per point and takes under a minute on 2 cores; ``--full`` the 2000 of the full study).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import special, stats  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import check_design, design_matrix  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "logistic_coverage"
LEVEL = 0.95
NS = [100, 400, 2000]
EPSILONS = [0.5, 1.0, 2.0]
SCENARIOS = {
    "1 binary": ({"x": ["0", "1"]}, [0.5, 1.0]),
    "2 binary": ({"a": ["0", "1"], "b": ["0", "1"]}, [0.5, 1.0, -1.0]),
    "3-level x binary": ({"a": ["1", "2", "3"], "b": ["0", "1"]}, [-0.5, 0.5, 1.0, -0.7]),
}
METHODS = ("dp_jimi", "wald_nonprivate")
REPS, REPS_QUICK = 2000, 200  # the full run (--full) and the --quick cap
#: data sets per point of the default run: every point costs about 0.11 s of CPU per data set
#: summed over the grid, so the default run takes under a minute on 2 cores (issue 28)
REPS_DEFAULT = 400
TERM_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"]
DASHES = {"dp_jimi": "-", "wald_nonprivate": ":"}


def design_of(scenario):
    """``(design dict, true beta, design matrix, term names)`` of a scenario."""
    design, beta = SCENARIOS[scenario]
    k = int(np.prod([len(v) for v in design.values()]))
    names, levels = check_design(design, k)
    x, terms = design_matrix(names, levels, "main-effects")
    return design, np.array(beta, float), x, terms


def wald_interval(x, counts, level=LEVEL):
    """Wald interval of the grouped-binomial MLE (Newton-Raphson); None when it does not exist."""
    successes, totals = counts[:, 1].astype(float), counts.sum(axis=1).astype(float)
    beta = np.zeros(x.shape[1])
    for _ in range(60):
        p = special.expit(x @ beta)
        info = x.T @ (x * (totals * p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(info, x.T @ (successes - totals * p))
        except np.linalg.LinAlgError:
            return None
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        return None
    if not np.all(np.isfinite(beta)) or np.max(np.abs(beta)) > 20:
        return None
    p = special.expit(x @ beta)
    info = x.T @ (x * (totals * p * (1 - p))[:, None])
    se = np.sqrt(np.diag(np.linalg.inv(info)))
    z = stats.norm.ppf(0.5 + level / 2)
    return beta - z * se, beta + z * se


def coverage_cell(cell, seed_sequence):
    """Coverage and mean length of each coefficient's interval at one setting (one row per method x term)."""
    scenario, n, eps, reps, n_sim = cell["scenario"], cell["n"], cell["epsilon"], cell["reps"], cell["n_sim"]
    design, beta, x, terms = design_of(scenario)
    rng = np.random.default_rng(seed_sequence)
    k = x.shape[0]
    p1 = special.expit(x @ beta)
    probs = np.stack([(1 - p1) / k, p1 / k], axis=1).ravel()
    tables = rng.multinomial(n, probs, size=reps).reshape(reps, k, 2)
    releaser = dpinfer.ContingencyTableReleaser(eps)
    cover = {m: np.zeros(len(beta)) for m in METHODS}
    length = {m: np.zeros(len(beta)) for m in METHODS}
    undefined = 0
    for t in tables:
        fit = dpinfer.logistic_jimi(releaser.release(t, rng=rng), design=design, n_sim=n_sim,
                                    confidence_level=LEVEL, rng=rng)
        lo, hi = np.array(fit.conf_low), np.array(fit.conf_high)
        cover["dp_jimi"] += (lo <= beta) & (beta <= hi)
        length["dp_jimi"] += hi - lo
        wald = wald_interval(x, t)
        if wald is None:
            undefined += 1
            cover["wald_nonprivate"] += 1.0
            length["wald_nonprivate"] += np.inf
        else:
            cover["wald_nonprivate"] += (wald[0] <= beta) & (beta <= wald[1])
            length["wald_nonprivate"] += wald[1] - wald[0]
    rows = []
    for method in METHODS:
        for j, term in enumerate(terms):
            c = cover[method][j] / reps
            rows.append({"scenario": scenario, "n": n, "epsilon": eps, "method": method, "term": term,
                         "true_value": float(beta[j]), "level": LEVEL, "coverage": float(c),
                         "mc_se": float(harness.mc_se(c, reps)), "mean_length": float(length[method][j] / reps),
                         "wald_undefined": undefined, "reps": reps, "n_sim": n_sim, "mode": cell["mode"],
                         "computed": "simulated"})
    return rows


def build_cells(args):
    scenarios = ["2 binary"] if args.quick else list(SCENARIOS)
    ns = [400] if args.quick else NS
    eps_grid = [1.0] if args.quick else EPSILONS
    return [{"scenario": s, "n": n, "epsilon": e, "reps": args.reps, "n_sim": args.n_sim, "mode": args.mode}
            for s in scenarios for e in eps_grid for n in ns]


def plot(rows, meta, path):
    """Coverage against n; one panel per (scenario, epsilon); colour = coefficient, dash = method."""
    scenarios = [s for s in SCENARIOS if any(r["scenario"] == s for r in rows)]
    eps_grid = sorted({r["epsilon"] for r in rows})
    fig, axes = harness.new_figure(len(eps_grid), len(scenarios), panel_width=3.0, panel_height=2.5,
                                   sharey=True)
    for i, scenario in enumerate(scenarios):
        for j, eps in enumerate(eps_grid):
            ax = axes[i * len(eps_grid) + j]
            sel = [r for r in rows if r["scenario"] == scenario and r["epsilon"] == eps]
            terms = list(dict.fromkeys(r["term"] for r in sel))
            for method in METHODS:
                for t, term in enumerate(terms):
                    pts = sorted((r for r in sel if r["method"] == method and r["term"] == term),
                                 key=lambda r: r["n"])
                    ns = np.array([r["n"] for r in pts], float)
                    y = np.array([r["coverage"] for r in pts])
                    se = np.array([r["mc_se"] for r in pts])
                    label = (f"coefficient {t}" if method == "dp_jimi"
                             else "_" if t else "non-private Wald (dotted)")
                    ax.errorbar(ns * (1 + 0.04 * (t - 1.5)), y, yerr=2 * se, color=TERM_COLOURS[t % 4],
                                marker="o" if method == "dp_jimi" else None, markersize=2.5, capsize=1.5,
                                linewidth=0.9, linestyle=DASHES[method], label=label)
            harness.plot_nominal(ax, LEVEL, label="nominal 0.95")
            harness.log_axis(ax, NS)
            ax.set_ylim(0.9, 1.0)
            harness.finish_axes(ax, title=f"{scenario}, epsilon = {eps:g}\n({harness.computed_label(sel)})",
                                xlabel="n" if i == len(scenarios) - 1 else None,
                                ylabel="coverage" if j == 0 else None)
    harness.add_legend(fig, ncol=6)
    fig.suptitle("DP-JIMI logistic regression: coverage of 95% intervals per coefficient "
                 "(0 = intercept; bars +/- 2 Monte Carlo SE)", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``logistic_coverage_simulate.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("simulate",),
        n_sim_help="fiducial draws per fit (default: 1000)",
        reps_help=f"data sets simulated per point (default: {REPS_DEFAULT}; {REPS} with "
                  f"--full; at most {REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK,
                                   reps_default=REPS_DEFAULT)
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, coverage_cell, cells)
    meta = harness.study_metadata(STUDY, args, reps=args.reps, n_sim=args.n_sim, level=LEVEL, ns=NS,
                                  epsilons=EPSILONS, scenarios="; ".join(SCENARIOS))
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
