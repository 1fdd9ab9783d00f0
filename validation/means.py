"""Coverage and length of private intervals for a mean from clipped data: DP-JIMI, repro samples, naive.

For data released by ``MeanReleaser(epsilon, lower, upper, spread=True)`` (clipped
sum and centred sum of squares, the budget split half and half; replace-one, n and
the bounds public), the coverage of the population mean and the median length of
95% intervals:

* ``dp_jimi``: :func:`dpinfer.mean_jimi_test`'s interval, normal model, spread
  released (the clipping modelled);
* ``dp_jimi_lognormal``: the same with ``model='lognormal'`` (log-normal truth only; in
  the ``--full`` and ``--quick`` runs, left out of the default run to keep it under a
  minute);
* ``repro``: :func:`dpinfer.mean_repro_test`'s interval (repro samples, Awan & Wang;
  at n = 500 only in the ``--full`` run: there it cost four fifths of the default
  run's repro time),
  normal model with the truth's standard deviation known (the released squares unused),
  ``R = n_sim - 1`` seeds simulating the released law exactly (grid and discrete noise);
  valid in finite samples with the Monte Carlo error included,
  so under the model (normal truth) its coverage is at least 0.95 at every point;
  the log-normal truth shows it under a wrong model;
* ``repro_lognormal``: the same with ``model='lognormal'`` and ``sigma`` of ``log x``
  known (log-normal truth only: there it is under the model);
* ``naive``: the clipped mean plus or minus ``z`` standard errors with the noise
  variance added (:func:`dpinfer.mean_naive_test`; what Google / OpenDP-style
  reports do), which ignores the clipping bias.

Truths: ``normal`` N(100, 15**2) and ``lognormal`` exp(N(0, 0.6**2)) (skewed; the
mean is exp(0.18)), the second analysed with the normal model to show how a wrong
model behaves.  Bounds clip one tail: the upper bound is the truth's ``1 - clip``
quantile, ``clip`` in {0 (the 0.9999 quantile), 0.05, 0.2}; the lower bound is the
normal's ``mu - 4 sigma`` and 0 for the log-normal (clipping nothing).  The clipped
location-scale family is equivariant (bounds set by the truth's quantiles), so one
(mu, sigma) per truth covers all of them.  Grid: n in {30, 100, 500}, epsilon in
{0.5, 1, 3}.  Each point is ``--reps`` data sets (each released through the seeded
path) with ``--n-sim`` DP-JIMI draws each; the Monte Carlo SE of a coverage is
``sqrt(c (1 - c) / reps)``.

Run: ``python -m validation.means [--quick | --full]`` (the default run, 100 data
sets and 200 draws per point, repro samples at n = 30 and 100 only, takes 52 s of
CPU with the two-group part, about 53 s on an idle 2-core machine; ``--full`` uses
1000 data sets and 1000 draws and repro samples at every n).  The run then does the
study's two-group part, size and power of the private two-group comparison
(``validation/_means_two_group.py``).  The tails part behind DP-JIMI's warning
(``validation/_means_tails.py``: 30-40% clipping, the table the warning reads) runs
on its own, ``python -m validation._means_tails`` (about 17 min of CPU), and so does its
two-group counterpart behind ``mean2_jimi_test``'s warning
(``validation/_means_tails_two_group.py``: each group clipped 0-40%, equal and unequal
groups), ``python -m validation._means_tails_two_group``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import (  # noqa: E402
    means_bounds,
    means_draws,
    means_naive,
    means_release,
    means_repro_bounds,
    means_repro_roots,
    means_tails,
)
from validation import _means_two_group, harness  # noqa: E402
from validation._means_truths import CLIPS, EPSILONS, NS, TRUTHS, truth_of  # noqa: E402

STUDY = "means"
LEVEL = 0.95
METHODS = ("dp_jimi", "dp_jimi_lognormal", "repro", "repro_lognormal", "naive")
REPS, REPS_QUICK, REPS_DEFAULT = 1000, 60, 100
N_SIM, N_SIM_DEFAULT = 1000, 200
COLOURS = {"dp_jimi": "#0072B2", "dp_jimi_lognormal": "#009E73", "repro": "#CC79A7", "repro_lognormal": "#E69F00",
           "naive": "#D55E00"}
DASHES = {0.5: ":", 1.0: "--", 3.0: "-"}


def known_sigma(truth, model):
    """The truth's standard deviation as the repro method's known ``sigma`` (log-normal model: of log x)."""
    a, b = TRUTHS[truth]
    if truth == "normal" or model == "lognormal":
        return b
    return float(stats.lognorm(b, scale=np.exp(a)).std())


def coverage_cell(cell, seed_sequence):
    """Coverage and median length of each method's interval at one point (one row per method)."""
    truth, n, eps, clip, reps, n_sim = (cell[k] for k in ("truth", "n", "epsilon", "clip", "reps", "n_sim"))
    gen = np.random.default_rng(seed_sequence)
    mean, lower, upper, sample = truth_of(truth, clip)
    x = sample(gen, (reps, n))
    rel = dpinfer.MeanReleaser(eps, lower, upper, spread=True).release(x, rng=gen)
    data = means_release(rel, "release", "validation.means")
    tails = means_tails(LEVEL, "two-sided")
    intervals = {}
    for method, model in (("dp_jimi", "normal"), ("dp_jimi_lognormal", "lognormal")):
        if model == "lognormal" and (truth != "lognormal" or not cell["lognormal_model"]):
            continue
        draws = means_draws(data, None, model, n_sim, gen)
        intervals[method] = means_bounds(draws, tails)
    for method, model in (("repro", "normal"), ("repro_lognormal", "lognormal")):
        if (model == "lognormal" and truth != "lognormal") or not cell.get("repro", True):
            continue
        lows, highs = means_repro_roots(data, known_sigma(truth, model), model, n_sim - 1, gen)
        intervals[method] = means_repro_bounds(lows, highs, LEVEL, "two-sided")
    centre, var = means_naive(data, None)
    half = stats.norm.ppf(0.5 + LEVEL / 2) * np.sqrt(var)
    intervals["naive"] = (centre - half, centre + half)
    rows = []
    for method, (lo, hi) in intervals.items():
        c = float(np.mean((lo <= mean) & (mean <= hi)))
        with np.errstate(invalid="ignore"):  # an interval with an infinite end is infinitely long
            length = np.where(np.isinf(lo) | np.isinf(hi), np.inf, hi - lo)
        rows.append({"truth": truth, "n": n, "epsilon": eps, "clip": clip, "lower": lower, "upper": upper,
                     "clipped_share": float(np.mean(x > upper)), "method": method, "level": LEVEL,
                     "coverage": c, "mc_se": float(harness.mc_se(c, reps)),
                     "median_length": float(np.median(length)), "infinite_share": float(np.mean(np.isinf(length))),
                     "reps": reps, "n_sim": 0 if method == "naive" else n_sim - 1 if method.startswith("repro")
                     else n_sim, "mode": cell["mode"],
                     "computed": "simulated"})
    return rows


def build_cells(args):
    truths = ["normal", "lognormal"]
    ns, eps_grid, clips = (([100], [1.0], [0.0, 0.2]) if args.quick else (NS, EPSILONS, CLIPS))
    return [{"truth": t, "n": n, "epsilon": e, "clip": c, "reps": args.reps, "n_sim": args.n_sim,
             "mode": args.mode, "lognormal_model": bool(args.full or args.quick),
             "repro": bool(args.full or args.quick or n < max(NS))}
            for t in truths for c in clips for e in eps_grid for n in ns]


def plot(rows, meta, path):
    """Coverage against n; one panel per (truth, clip); colour = method, dash = epsilon."""
    truths = [t for t in TRUTHS if any(r["truth"] == t for r in rows)]
    clips = sorted({r["clip"] for r in rows})
    fig, axes = harness.new_figure(len(clips), len(truths), panel_width=3.0, panel_height=2.5, sharey=True)
    labelled = set()  # each (method, epsilon) named once in the legend, where it first appears
    for i, truth in enumerate(truths):
        for j, clip in enumerate(clips):
            ax = axes[i * len(clips) + j]
            sel = [r for r in rows if r["truth"] == truth and r["clip"] == clip]
            for method in METHODS:
                for eps in sorted({r["epsilon"] for r in sel}):
                    pts = sorted((r for r in sel if r["method"] == method and r["epsilon"] == eps),
                                 key=lambda r: r["n"])
                    if not pts:
                        continue
                    ns = np.array([r["n"] for r in pts], float)
                    ax.errorbar(ns, [r["coverage"] for r in pts], yerr=[2 * r["mc_se"] for r in pts],
                                color=COLOURS[method], linestyle=DASHES.get(eps, "-"), marker="o", markersize=2.5,
                                capsize=1.5, linewidth=0.9,
                                label="_" if (method, eps) in labelled else f"{harness.readable_label(method)}, epsilon = {eps:g}")
                    labelled.add((method, eps))
            harness.plot_nominal(ax, LEVEL, label="nominal 0.95" if i == 0 and j == 0 else "_")
            harness.log_axis(ax, NS)
            ax.set_ylim(0.0, 1.0)
            harness.finish_axes(ax, title=f"{truth} truth, clip {clip:g} above\n({harness.computed_label(sel)})",
                                xlabel="n" if i == len(truths) - 1 else None,
                                ylabel="coverage" if j == 0 else None)
    harness.add_legend(fig, ncol=4)
    fig.suptitle("Private means of clipped data: coverage of 95% intervals for the population mean "
                 "(bars +/- 2 Monte Carlo SE)", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``means_simulate.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("simulate",),
        n_sim_help=f"DP-JIMI draws per data set (default: {N_SIM_DEFAULT}; {N_SIM} with --full)",
        reps_help=f"data sets simulated per point (default: {REPS_DEFAULT}; {REPS} with --full; at most "
                  f"{REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK, reps_default=REPS_DEFAULT)
    given = sys.argv[1:] if argv is None else list(argv)
    if not any(str(a).startswith("--n-sim") for a in given):  # the harness filled its own default
        args.n_sim = N_SIM if args.full else N_SIM_DEFAULT
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, coverage_cell, cells)
    meta = harness.study_metadata(STUDY, args, level=LEVEL, ns=NS, epsilons=EPSILONS, clips=CLIPS,
                                  truths="; ".join(f"{k} {v}" for k, v in TRUTHS.items()))
    harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)
    return _means_two_group.run(args, given)  # the two-group part: size and power


if __name__ == "__main__":
    sys.exit(main())
