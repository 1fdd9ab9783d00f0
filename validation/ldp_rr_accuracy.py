"""Accuracy of randomized response against epsilon (the privacy / accuracy trade-off).

For Warner's epsilon-RR at n in {100, 500, 2000}, true proportion p = 0.3 and
epsilon on a grid from 0.1 to 5:

* the standard error of the unbiased estimator (exact: the yes count is
  Binomial(n, lambda(p)), so ``SE = sqrt(lambda (1 - lambda) / n) / (a1 - a0)``),
  next to the non-private ``sqrt(p (1 - p) / n)`` it tends to as epsilon grows;
* the expected width of the exact (Clopper-Pearson through the channel) 95%
  interval, computed exactly by summing over every possible yes count;
* one illustrative data set per n: the estimate and its interval against epsilon.

``--mode simulate`` replaces the exact SE and width by ``--reps`` simulated releases
(through :class:`dpinfer.RandomizedResponseReleaser`) and reports the Monte Carlo
bias of the estimator too.

Run: ``python -m validation.ldp_rr_accuracy [--quick] [--mode simulate]``.
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

STUDY = "ldp_rr_accuracy"
NS = [100, 500, 2000]
EPSILONS = [0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0]
EPSILONS_QUICK = [0.25, 1.0, 4.0]
P_TRUE = 0.3
REPS, REPS_QUICK = 2000, 200


def _channel(eps):
    return 1.0 / (1.0 + np.exp(eps)), 1.0 / (1.0 + np.exp(-eps))


def accuracy_cell(cell, seed_sequence):
    """SE, expected interval width (exact or simulated) and one illustrative release."""
    n, eps, p = cell["n"], cell["epsilon"], cell["p"]
    a0, a1 = _channel(eps)
    lam = a0 + (a1 - a0) * p
    rng = np.random.default_rng(seed_sequence)
    row = {"n": n, "epsilon": eps, "p": p, "mode": cell["mode"],
           "se_nonprivate": float(np.sqrt(p * (1 - p) / n))}
    if cell["mode"] == "exact":
        y = np.arange(n + 1)
        pmf = stats.binom.pmf(y, n, lam)
        ci = dpinfer.rr_proportion_ci(yes_count=y, n=n, epsilon=eps)
        row.update(se=float(np.sqrt(lam * (1 - lam) / n) / (a1 - a0)), bias=0.0,
                   mean_width=float(np.sum(pmf * (ci[:, 1] - ci[:, 0]))), reps=None)
    else:
        reps = cell["reps"]
        x = (rng.random((reps, n)) < p).astype(np.int8)
        rel = dpinfer.RandomizedResponseReleaser(eps).release(x, rng=rng)
        est = dpinfer.rr_proportion_estimate(rel).estimate_raw  # the unbiased estimate: its bias is studied
        ci = dpinfer.rr_proportion_ci(rel)
        row.update(se=float(est.std(ddof=1)), bias=float(est.mean() - p),
                   bias_mc_se=float(est.std(ddof=1) / np.sqrt(reps)),
                   mean_width=float(np.mean(ci[:, 1] - ci[:, 0])), reps=reps)
    # one illustrative data set (the same true answers at every epsilon for a given n)
    x_ill = (np.random.default_rng(n).random(n) < p).astype(np.int8)
    rel = dpinfer.RandomizedResponseReleaser(eps).release(x_ill, rng=rng)
    ci = dpinfer.rr_proportion_ci(rel)
    row.update(example_estimate=float(dpinfer.rr_proportion_estimate(rel).estimate_raw),
               example_low=ci.low, example_high=ci.high, example_truth=float(x_ill.mean()))
    return row


def build_cells(args):
    eps = EPSILONS_QUICK if args.quick else EPSILONS
    return [{"n": n, "epsilon": e, "p": P_TRUE, "mode": args.mode, "reps": args.reps}
            for n in NS for e in eps]


def plot(rows, meta, path):
    """Three panels: SE vs epsilon, expected 95% width vs epsilon, one data set per n."""
    fig, axes = harness.new_figure(3)
    colours = {100: "#D55E00", 500: "#0072B2", 2000: "#009E73"}
    for n in NS:
        sel = sorted((r for r in rows if r["n"] == n), key=lambda r: r["epsilon"])
        e = [r["epsilon"] for r in sel]
        axes[0].plot(e, [r["se"] for r in sel], color=colours[n], marker="o", markersize=3, label=f"n = {n}")
        axes[0].axhline(sel[0]["se_nonprivate"], color=colours[n], linewidth=0.8, linestyle=":")
        axes[1].plot(e, [r["mean_width"] for r in sel], color=colours[n], marker="o", markersize=3)
        est = np.array([r["example_estimate"] for r in sel])
        lo = np.array([r["example_low"] for r in sel])
        hi = np.array([r["example_high"] for r in sel])
        x = np.array(e) * {100: 0.97, 500: 1.0, 2000: 1.03}[n]
        # The interval as the interval, the estimate as its own marker: the unbiased
        # estimate can lie outside its (clipped) interval.
        axes[2].errorbar(x, (lo + hi) / 2, yerr=(hi - lo) / 2, fmt="none", ecolor=colours[n],
                         elinewidth=0.9, capsize=2)
        axes[2].plot(x, est, color=colours[n], marker="o", markersize=3, linestyle="none")
    for ax in axes:
        ax.set_xscale("log")
    axes[0].set_yscale("log")
    axes[2].axhline(P_TRUE, color="black", linewidth=0.8, linestyle=(0, (4, 3)), label="true p")
    harness.finish_axes(axes[0], title="SE of the unbiased estimate (dotted: non-private)",
                        xlabel="epsilon", ylabel="standard error")
    harness.finish_axes(axes[1], title="expected width of the exact 95% interval", xlabel="epsilon")
    harness.finish_axes(axes[2], title="one release: estimate (dot), exact 95% CI",
                        xlabel="epsilon")
    harness.add_legend(fig)
    how = "exact" if meta["mode"] == "exact" else f"simulated, {meta['reps']} releases per point"
    fig.suptitle(f"Randomized response, p = {P_TRUE} (SE and width: {how})", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``ldp_rr_accuracy_<mode>.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], n_sim_help=None,
        reps_help=f"releases simulated per point in simulate mode, for the SE, bias and mean width "
                  f"(default: {REPS}; at most {REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK)
    cells = build_cells(args)
    stem, rows = harness.run_study_rows(STUDY, args, accuracy_cell, cells)
    meta = harness.study_metadata(STUDY, args, p=P_TRUE, ns=NS,
                                  epsilons=EPSILONS_QUICK if args.quick else EPSILONS)
    return harness.finish_study(STUDY, args, stem, None, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
