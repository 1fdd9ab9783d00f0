"""Coverage of the local-DP confidence intervals (nominal 95%).

Intervals and how their coverage is obtained:

* randomized response, exact (Clopper-Pearson through the channel) and Wald, for
  the population proportion at p in {0.05, 0.2, 0.5}, n = 2000, epsilon in
  {0.5, 1, 3}: **exact** (the yes count is Binomial(n, lambda(p)); coverage is a
  finite sum over every yes count);
* Wald for the sample's own proportion: exact too (the yes count is then
  Binomial(n p, a1) + Binomial(n (1 - p), a0), a convolution);
* the two-coin protocol (p1 = 0.6, p2 = 0.3), exact interval: exact;
* k-RR and unary-encoding simultaneous intervals (Bonferroni and Scheffe, joint
  coverage of all categories), k = d = 5, n = 2000: simulated, ``--reps`` data
  sets per cell drawn from the exact law of the report counts;
* the local Laplace mean (population and sample estimands), n = 500, data
  uniform on [-1, 0.5] in [-1, 1]: simulated through the releaser.

In ``--mode simulate`` the exact rows are replaced by simulations through the
releasers.  Simulated rows carry their Monte Carlo standard error ``mc_se``.

Run: ``python -m validation.ldp_coverage [--quick] [--mode simulate]``.
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

STUDY = "ldp_coverage"
LEVEL = 0.95
EPSILONS = [0.5, 1.0, 3.0]
PS = [0.05, 0.2, 0.5]
N_RR, N_FREQ, N_LAPLACE = 2000, 2000, 500
PI = [0.4, 0.25, 0.2, 0.1, 0.05]
TWO_COIN = (0.6, 0.3)
EXACT_CAPABLE = {"rr_exact", "rr_wald", "rr_wald_sample", "two_coin_exact"}
REPS, REPS_QUICK = 10_000, 400


def _rr_channel(cell):
    if cell["method"] == "two_coin_exact":
        p1, p2 = TWO_COIN
        return p1 * p2, 1 - p1 + p1 * p2, {"p1": p1, "p2": p2}
    eps = cell["epsilon"]
    return 1 / (1 + np.exp(eps)), 1 / (1 + np.exp(-eps)), {"epsilon": eps}


def coverage_cell(cell, seed_sequence):
    """Coverage of one interval at one setting (exact where the law of the data allows)."""
    method, mode = cell["method"], cell["mode"]
    rng = np.random.default_rng(seed_sequence)
    # `mode` is the run mode; `computed` says how this row's coverage was obtained.
    row = {"method": method, "epsilon": cell["epsilon"], "p": cell.get("p"), "n": cell["n"], "mode": mode,
           "computed": "simulated"}
    reps = int(cell["reps"])
    if method in EXACT_CAPABLE:
        a0, a1, channel = _rr_channel(cell)
        n, p = cell["n"], cell["p"]
        method_arg = "exact" if method in ("rr_exact", "two_coin_exact") else "wald"
        estimand = "sample" if method == "rr_wald_sample" else "population"
        n1 = int(round(n * p))
        if mode == "exact":
            y = np.arange(n + 1)
            if estimand == "population":
                pmf = stats.binom.pmf(y, n, a0 + (a1 - a0) * p)
            else:
                pmf = np.convolve(stats.binom.pmf(np.arange(n1 + 1), n1, a1),
                                  stats.binom.pmf(np.arange(n - n1 + 1), n - n1, a0))
            ci = dpinfer.rr_proportion_ci(yes_count=y, n=n, method=method_arg, estimand=estimand, **channel)
            cover = float(np.sum(pmf * ((ci[:, 0] <= p) & (p <= ci[:, 1]))))
            row.update(computed="exact", coverage=cover, mc_se=None, reps=None)
            return row
        releaser = (dpinfer.RandomizedResponseReleaser(cell["epsilon"]) if "epsilon" in channel
                    else dpinfer.TwoCoinRRReleaser(*TWO_COIN))
        extra = {} if "epsilon" in channel else channel
        truth = p if estimand == "population" else n1 / n
        hits = []
        for m in _chunks(reps):  # bounded memory: m x n reports at a time
            if estimand == "population":
                x = (rng.random((m, n)) < p).astype(np.int8)
            else:
                x = np.broadcast_to((np.arange(n) < n1).astype(np.int8), (m, n))
            ci = dpinfer.rr_proportion_ci(releaser.release(x, rng=rng), method=method_arg, estimand=estimand,
                                          **extra)
            hits.append((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
        hit = np.concatenate(hits)
    elif method.startswith(("krr", "ue")):
        eps, n, k = cell["epsilon"], cell["n"], len(PI)
        pi = np.array(PI)
        ci_method = method.split("_")[1]
        if method.startswith("krr"):
            e = np.exp(eps)
            q = np.where(np.eye(k, dtype=bool), e / (e + k - 1), 1 / (e + k - 1))
            counts = rng.multinomial(n, q @ pi, size=reps)
            ci = dpinfer.krr_frequency_ci(counts=counts, epsilon=eps, k=k, method=ci_method)
        else:
            keep = 1 / (1 + np.exp(-eps / 2))
            nj = rng.multinomial(n, pi, size=reps)
            s = rng.binomial(nj, keep) + rng.binomial(n - nj, 1 - keep)
            ci = dpinfer.unary_frequency_ci(bit_counts=s, n=n, epsilon=eps, method=ci_method)
        hit = np.all((ci[..., 0] <= pi) & (pi <= ci[..., 1]), axis=-1)
    else:  # local Laplace mean
        eps, n = cell["epsilon"], cell["n"]
        estimand = method.split("_")[-1]
        hits = []
        for m in _chunks(reps):
            if estimand == "population":
                x = rng.uniform(-1.0, 0.5, size=(m, n))
            else:
                x = np.broadcast_to(np.linspace(-1.0, 0.5, n), (m, n))
            ci = dpinfer.local_laplace_mean_ci(dpinfer.LocalLaplaceReleaser(eps, 1.0).release(x, rng=rng),
                                               estimand=estimand)
            truth = -0.25 if estimand == "population" else x.mean(axis=-1)
            hits.append((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
        hit = np.concatenate(hits)
    cover = float(np.mean(hit))
    row.update(coverage=cover, mc_se=float(np.sqrt(max(cover * (1 - cover), LEVEL * (1 - LEVEL)) / reps)),
               reps=reps)
    return row


def _chunks(reps, size=2000):
    full, rest = divmod(reps, size)
    return [size] * full + ([rest] if rest else [])


def build_cells(args):
    eps_grid = [1.0] if args.quick else EPSILONS
    p_grid = [0.05, 0.5] if args.quick else PS
    cells = []
    for method in ("rr_exact", "rr_wald", "rr_wald_sample"):
        cells += [{"method": method, "epsilon": e, "p": p, "n": N_RR} for e in eps_grid for p in p_grid]
    two_coin_eps = float(dpinfer.TwoCoinRRReleaser(*TWO_COIN).epsilon)
    cells += [{"method": "two_coin_exact", "epsilon": two_coin_eps, "p": p, "n": N_RR} for p in p_grid]
    for method in ("krr_bonferroni", "krr_scheffe", "ue_bonferroni", "ue_scheffe"):
        cells += [{"method": method, "epsilon": e, "n": N_FREQ} for e in eps_grid]
    for method in ("laplace_population", "laplace_sample"):
        cells += [{"method": method, "epsilon": e, "n": N_LAPLACE} for e in eps_grid]
    for cell in cells:
        cell.update(mode=args.mode, reps=args.reps)
    return cells


def plot(rows, meta, path):
    """Coverage per interval and epsilon, with +/- 2 MC SE bars for simulated rows.

    Each panel's title says whether its points are exact or simulated (``computed``).
    """
    fig, axes = harness.new_figure(3, sharey=True, panel_width=3.8)
    groups = [("binary randomized response", ("rr_exact", "rr_wald", "rr_wald_sample", "two_coin_exact")),
              ("k-RR / unary encoding (joint)", ("krr_bonferroni", "krr_scheffe", "ue_bonferroni", "ue_scheffe")),
              ("local Laplace mean", ("laplace_population", "laplace_sample"))]
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999",
               "#8C510A", "#01665E"]
    colours = {m: palette[i] for i, m in enumerate(m for _, ms in groups for m in ms)}
    for ax, (title, methods) in zip(axes, groups):
        labels = []
        pos = 0
        for method in methods:
            sel = [r for r in rows if r["method"] == method]
            for j, r in enumerate(sel):
                err = 2 * r["mc_se"] if r["mc_se"] is not None else 0.0
                ax.errorbar(pos, r["coverage"], yerr=err, color=colours[method], marker="o", markersize=3,
                            capsize=2, linewidth=0.9, label=harness.readable_label(method) if j == 0 else "_nolegend_")
                tag = f"e={r['epsilon']:.2g}" + (f", p={r['p']}" if r["p"] is not None else "")
                labels.append(tag)
                pos += 1
        ax.set_xticks(range(pos))
        ax.set_xticklabels(labels, rotation=90, fontsize=5.5)
        harness.plot_nominal(ax, LEVEL, label="nominal 95%")
        ax.axhspan(0.93, 0.97, color="0.85", alpha=0.4, linewidth=0, zorder=0)
        panel_rows = [r for r in rows if r["method"] in methods]
        harness.finish_axes(ax, title=f"{title}\n({harness.computed_label(panel_rows)})",
                            ylabel="coverage" if ax is axes[0] else None)
    harness.add_legend(fig, ncol=4)
    fig.suptitle("Coverage of the local-DP 95% intervals (bars: +/- 2 Monte Carlo SE of the simulated "
                 "points; grey band [0.93, 0.97])", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``ldp_coverage_<mode>.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], n_sim_help=None,
        reps_help=f"data sets simulated per point, in either mode, for the k-RR, unary-encoding and "
                  f"Laplace-mean intervals, and in simulate mode for the randomized-response ones "
                  f"(default: {REPS}; at most {REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK)
    cells = build_cells(args)
    stem, rows = harness.run_study_rows(STUDY, args, coverage_cell, cells)
    meta = harness.study_metadata(STUDY, args, reps=args.reps, level=LEVEL, n_rr=N_RR, n_freq=N_FREQ,
                                  n_laplace=N_LAPLACE, pi=PI, two_coin=list(TWO_COIN))
    return harness.finish_study(STUDY, args, stem, None, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
