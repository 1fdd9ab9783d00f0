"""The ``means`` study's second part: size and power of the private two-group comparison of means.

Two independent groups of ``n`` each, each released by ``MeanReleaser(epsilon,
lower, upper, spread=True)`` with the same public bounds; the two-sided level-0.05
test of equal population means by

* ``dp_jimi``: :func:`dpinfer.mean2_jimi_test` (normal model, spread released;
  the p-value from the differences of the two groups' DP-JIMI draws);
* ``naive``: :func:`dpinfer.mean2_naive_test` (the difference of the clipped
  means, its variance the sum of the two, noise variance added);
* ``t_test_nonprivate``: the pooled two-sample t-test on the unclipped data
  without noise, its power exact (non-central t), the yardstick for what privacy
  and clipping cost.

Truths: ``normal``, control N(100, 15**2) and treated N(100 + d 15, 15**2) with the
standardised difference d in {0 (size), 0.25, 0.5} (power); ``lognormal``, both
groups exp(N(0, 0.6**2)) (size only: the normal model on skewed data, a wrong
model).  The bounds are the one-group part's, set by the control group's truth
(``validation._means_truths.truth_of``): the upper bound clips ``clip`` in {0, 0.05, 0.2}
of the control group, and more of a treated group shifted up.  Grid: n per group in
{30, 100, 500}, epsilon per group in {0.5, 1, 3}.

Each point is ``--reps`` pairs of data sets (50 in the default run, to keep the
study's default run near a minute of CPU; 1000 with ``--full``, 60 with ``--quick``) (each released through the seeded
path; the control group's releases are shared by the point's differences, each
rate is still a proportion of independent pairs), with ``--n-sim`` DP-JIMI draws
per group.  The Monte Carlo SE of a rate r is ``sqrt(r (1 - r) / reps)``
(``mc_se``); ``z_size`` is ``(size - 0.05) / sqrt(0.05 0.95 / reps)`` on the size
rows.  ``coverage`` is that of the method's 95% interval for the difference of the
means; ``low_miss`` is the share of intervals lying wholly above the true difference,
``high_miss`` wholly below it.  DP-JIMI's p-value from ``H`` draws rejects when at most ``m = floor(0.025 H)``
draws lie on one side of 0, so an exactly calibrated p-value rejects with
probability ``2 (m + 1) / (H + 1)`` (``draws_level``): 0.05 exactly when ``H + 1``
is a multiple of 40, hence the draws 79 (default), 399 (``--full``) and 39
(``--quick``); ``--n-sim`` sets another count and ``draws_level`` records its level.

Writes ``means_two_group_simulate.csv`` and its figure; runs after the coverage
part of ``python -m validation.means`` (about 17 s of CPU in the default run).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import stats

import dpinfer
from dpinfer.inference._studies import (
    means_bounds,
    means_draws,
    means_naive,
    means_pvalue,
    means_release,
    means_shares,
    means_tails,
)

from . import harness
from ._means_truths import CLIPS, EPSILONS, NS, truth_of

STUDY = "means_two_group"
ALPHA = 0.05
SD = 15.0
EFFECTS = (0.0, 0.25, 0.5)
#: DP-JIMI draws per group: default, --full, --quick (H + 1 a multiple of 40: the size of
#: an exactly calibrated p-value is 0.05 at H draws, see the module notes)
N_SIM_DEFAULT, N_SIM_FULL, N_SIM_QUICK = 79, 399, 39
#: pairs per point of the default run (the study's --reps when given; --full and --quick as the study)
REPS_DEFAULT = 50
COLOURS = {"dp_jimi": "#0072B2", "naive": "#D55E00", "t_test_nonprivate": "0.35"}
LABELS = {"dp_jimi": "DP-JIMI (mean2_jimi_test)", "naive": "naive (mean2_naive_test)",
          "t_test_nonprivate": "t-test, no privacy, no clipping"}
DASHES = {0.5: ":", 1.0: "--", 3.0: "-"}


def draws_level(n_sim, alpha=ALPHA):
    """Rejection rate of the two-sided draw-count test with ``n_sim`` draws when the p-value is exact.

    The test rejects when at most ``m = floor(alpha / 2 n_sim)`` draws are on one side
    of the null; with ``p`` the exact-limit share that count is Binomial(n_sim, p),
    and ``P(Binomial(H, U) <= m) = (m + 1) / (H + 1)`` for ``U`` uniform.
    """
    m = math.floor(alpha / 2 * n_sim + 1e-9)
    return 2.0 * (m + 1) / (n_sim + 1)


def t_test_power(d, n, alpha=ALPHA):
    """Exact power of the two-sided pooled two-sample t-test, ``n`` per group, standardised difference ``d``."""
    df = 2 * n - 2
    crit = stats.t.isf(alpha / 2, df)
    law = stats.nct(df, d * math.sqrt(n / 2.0))
    return float(law.sf(crit) + law.cdf(-crit))


def _group(truth, delta, clip, eps, reps, n, n_sim, gen, means_truth):
    """One group's releases: ``(DP-JIMI draws of the mean, naive centre, naive variance, share clipped)``."""
    mean, lower, upper, sample = means_truth(truth, clip)
    x = sample(gen, (reps, n)) + delta
    rel = dpinfer.MeanReleaser(eps, lower, upper, spread=True).release(x, rng=gen)
    data = means_release(rel, "release", "validation.means")
    centre, var = means_naive(data, None)
    return means_draws(data, None, "normal", n_sim, gen), centre, var, float(np.mean(x > upper))


def two_group_cell(cell, seed_sequence):
    """Rejection rates at one point (truth, n, epsilon, clip): one row per (difference, method)."""
    truth, n, eps, clip, reps, n_sim = (cell[k] for k in ("truth", "n", "epsilon", "clip", "reps", "n_sim"))
    gen = np.random.default_rng(seed_sequence)
    _, lower, upper, _ = truth_of(truth, clip)
    control = _group(truth, 0.0, clip, eps, reps, n, n_sim, gen, truth_of)
    rows = []
    for effect in EFFECTS if truth == "normal" else (0.0,):
        treated = _group(truth, effect * SD, clip, eps, reps, n, n_sim, gen, truth_of)
        with np.errstate(invalid="ignore"):  # inf - inf: an undefined draw, as mean2_jimi_test counts it
            diff = treated[0] - control[0]
        jimi_p = means_pvalue(*means_shares(diff, 0.0), "two-sided")
        centre, se = treated[1] - control[1], np.sqrt(treated[2] + control[2])
        naive_p = 2.0 * stats.norm.sf(np.abs(centre / se))
        half = stats.norm.isf(ALPHA / 2) * se
        intervals = {"dp_jimi": means_bounds(diff, means_tails(1.0 - ALPHA, "two-sided")),
                     "naive": (centre - half, centre + half)}
        delta = effect * SD if truth == "normal" else 0.0
        common = {"truth": truth, "n": n, "epsilon": eps, "clip": clip, "lower": lower, "upper": upper,
                  "effect": effect, "delta": delta, "alpha": ALPHA,
                  "clipped_share_control": control[3], "clipped_share_treated": treated[3]}
        for method, p in (("dp_jimi", jimi_p), ("naive", naive_p)):
            rate = float(np.mean(p <= ALPHA))
            lo, hi = intervals[method]
            low_miss, high_miss = float(np.mean(lo > delta)), float(np.mean(hi < delta))
            rows.append({**common, "method": method, "kind": "size" if effect == 0 else "power",
                         "rejection_rate": rate, "mc_se": float(harness.mc_se(rate, reps)),
                         "z_size": (rate - ALPHA) / math.sqrt(ALPHA * (1 - ALPHA) / reps) if effect == 0 else None,
                         "coverage": 1.0 - low_miss - high_miss, "low_miss": low_miss, "high_miss": high_miss,
                         "reps": reps, "n_sim": n_sim if method == "dp_jimi" else 0,
                         "draws_level": draws_level(n_sim) if method == "dp_jimi" else None,
                         "mode": cell["mode"], "computed": "simulated"})
        if effect > 0:
            rows.append({**common, "method": "t_test_nonprivate", "kind": "power",
                         "rejection_rate": t_test_power(effect, n), "mc_se": None, "z_size": None,
                         "coverage": None, "low_miss": None, "high_miss": None, "reps": None,
                         "n_sim": 0, "draws_level": None, "mode": cell["mode"], "computed": "exact"})
    return rows


def build_cells(args, n_sim):
    ns, eps_grid, clips = (([100], [1.0], [0.0, 0.2]) if args.quick else (NS, EPSILONS, CLIPS))
    return [{"truth": t, "n": n, "epsilon": e, "clip": c, "reps": args.reps, "n_sim": n_sim, "mode": args.mode}
            for t in ("normal", "lognormal") for c in clips for e in eps_grid for n in ns]


def plot(rows, meta, path):
    """Rejection rate against n: rows of panels size (normal), power at each d, size (log-normal); columns clip."""
    clips = sorted({r["clip"] for r in rows})
    panels = [("normal", e) for e in EFFECTS] + [("lognormal", 0.0)]
    panels = [p for p in panels if any(r["truth"] == p[0] and r["effect"] == p[1] for r in rows)]
    fig, axes = harness.new_figure(len(clips), len(panels), panel_width=3.0, panel_height=2.3)
    for i, (truth, effect) in enumerate(panels):
        for j, clip in enumerate(clips):
            ax = axes[i * len(clips) + j]
            sel = [r for r in rows if r["truth"] == truth and r["effect"] == effect and r["clip"] == clip]
            for method in COLOURS:
                for eps in sorted({r["epsilon"] for r in sel}):
                    pts = sorted((r for r in sel if r["method"] == method and r["epsilon"] == eps),
                                 key=lambda r: r["n"])
                    if not pts:
                        continue
                    if method == "t_test_nonprivate" and eps != min(r["epsilon"] for r in sel):
                        continue  # no epsilon: one line
                    ns = np.array([r["n"] for r in pts], float)
                    label = (LABELS[method] if method == "t_test_nonprivate" else f"{LABELS[method]}, epsilon = {eps:g}")
                    ax.errorbar(ns, [r["rejection_rate"] for r in pts],
                                yerr=[2 * (r["mc_se"] or 0.0) for r in pts], color=COLOURS[method],
                                linestyle="-" if method == "t_test_nonprivate" else DASHES.get(eps, "-"),
                                marker="o", markersize=2.5, capsize=1.5, linewidth=0.9, label=label)
            if effect == 0:
                harness.plot_nominal(ax, ALPHA, label="alpha = 0.05" if i == 0 else "_")
                ax.set_ylim(0.0, 0.2)
            else:
                ax.set_ylim(0.0, 1.02)
            harness.log_axis(ax, NS)
            what = "size" if effect == 0 else f"power, d = {effect:g} sd"
            harness.finish_axes(ax, title=f"{truth}, {what}, clip {clip:g}\n"
                                          f"({harness.computed_label([r for r in sel if r['reps']], 'pairs')})",
                                xlabel="n per group" if i == len(panels) - 1 else None,
                                ylabel="rejection rate" if j == 0 else None)
    harness.add_legend(fig, ncol=3)
    fig.suptitle("Private two-group comparison of means (clipped, spread released):\nsize and power of the "
                 "level-0.05 two-sided test (bars +/- 2 Monte Carlo SE)", fontsize=9.5)
    return harness.save_figure(fig, path)


def run(args, given=()):
    """Run the two-group part with the study's parsed ``args``; write its CSV and figure; return 0.

    ``given``: the command line; where it has no ``--n-sim`` (``--reps``) this part
    uses its own default draws (pairs), see the module notes.
    """
    def on_line(option):
        return any(str(a).startswith(option) for a in given)

    n_sim = (args.n_sim if on_line("--n-sim") else N_SIM_QUICK if args.quick else N_SIM_FULL if args.full
             else N_SIM_DEFAULT)
    reps = args.reps if on_line("--reps") or args.quick or args.full else REPS_DEFAULT
    args = argparse.Namespace(**{**vars(args), "n_sim": n_sim, "reps": reps})  # this part's, in its CSV
    cells = build_cells(args, n_sim)
    stem, cache, rows = harness.run_study_cells(STUDY, args, two_group_cell, cells)
    meta = harness.study_metadata(STUDY, args, alpha=ALPHA, effects=list(EFFECTS), sd=SD,
                                  draws_level=draws_level(n_sim))
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)
