"""Ties in the two-sample DP-JIMI test: which rule keeps the size closest to alpha.

``theta1* - theta2*`` has atoms (at 0 when both groups draw the point mass 0, or
both 1), so draws can equal the null difference 0.  Three rules for them, applied
to the same fiducial draws of the same simulated release pairs under H0
(theta1 = theta2 = theta, n = 30 per group, epsilon per group in {0.5, 1},
alpha = 0.05):

* ``null_side``: ties count on the null side of both one-sided p-values
  (conservative; the rule before this release);
* ``mid_p``: ties count one half on each side (the rule of ``binom2_jimi_test``);
* ``excluded``: ties count on neither side (liberal).

``package`` is the size of ``binom2_jimi_test`` itself (its own draws), and
``one_sample_max`` the largest exact-limit size of the one-sample test over p0
at the same n and epsilon (the excess over alpha that the two-sample rule should
not outdo).  Always simulated: ``--reps`` release pairs per cell, ``--n-sim``
draws per group and release.

Run: ``python -m validation.jimi_two_sample_ties [--quick]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import jimi_draw_theta, jimi_exact_rejection, jimi_tails  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "jimi_two_sample_ties"
N, ALPHA = 30, 0.05
EPSILONS = [0.5, 1.0]
THETAS = [0.02, 0.05, 0.1, 0.2, 0.5]
THETAS_QUICK = [0.05, 0.5]
REPS, REPS_QUICK = 4000, 300
N_SIM, N_SIM_QUICK = 1000, 300
RULES = ("null_side", "mid_p", "excluded", "package")
ALTERNATIVES = ("greater", "two-sided")


def _reject(le, ge, alternative):
    p = le if alternative == "greater" else np.minimum(1.0, 2.0 * np.minimum(le, ge))
    return p <= ALPHA


def ties_cell(cell, seed_sequence):
    """Sizes of the three rules (same draws) and of binom2_jimi_test, per alternative."""
    n, eps, theta, reps, h = N, cell["epsilon"], cell["theta"], cell["reps"], cell["n_sim"]
    data, g1, g2, pkg = (np.random.default_rng(s) for s in seed_sequence.spawn(4))
    pi1 = data.binomial(n, theta, reps) / n + data.laplace(0.0, 1.0 / (eps * n), reps)
    pi2 = data.binomial(n, theta, reps) / n + data.laplace(0.0, 1.0 / (eps * n), reps)
    counts = {(rule, alt): 0 for rule in RULES for alt in ALTERNATIVES}
    for start in range(0, reps, 200):
        sl = slice(start, start + 200)
        diff = jimi_draw_theta(g1, pi1[sl], n, eps, h) - jimi_draw_theta(g2, pi2[sl], n, eps, h)
        below, tied = np.mean(diff < 0.0, axis=1), np.mean(diff == 0.0, axis=1)
        above = 1.0 - below - tied
        shares = {"null_side": (below + tied, above + tied),
                  "mid_p": (below + tied / 2, above + tied / 2),
                  "excluded": (below, above)}
        for rule, (le, ge) in shares.items():
            for alt in ALTERNATIVES:
                counts[(rule, alt)] += int(np.sum(_reject(le, ge, alt)))
    for alt in ALTERNATIVES:
        p = dpinfer.binom2_jimi_test(pi1, n, pi2, n, epsilon=eps, alternative=alt,
                                     n_sim=h, rng=pkg)
        counts[("package", alt)] = int(np.sum(p <= ALPHA))
    p0 = np.round(np.arange(1, 100) / 100.0, 2)
    rows = []
    for alt in ALTERNATIVES:
        lo, hi = jimi_tails(1.0 - ALPHA, alt)
        one = float(np.max(jimi_exact_rejection(p0, lo, hi, n, eps)))
        for rule in RULES:
            size = counts[(rule, alt)] / reps
            rows.append({"epsilon": eps, "theta": theta, "alternative": alt, "rule": rule,
                         "size": size, "mc_se": harness.mc_se(size, reps), "reps": reps,
                         "n_sim": h, "one_sample_max": one, "computed": "simulated"})
    return rows


def build_cells(args):
    return [{"epsilon": e, "theta": t, "reps": args.reps, "n_sim": args.n_sim}
            for e in EPSILONS for t in (THETAS_QUICK if args.quick else THETAS)]


def plot(rows, meta, path):
    """One panel per (epsilon, alternative): size against theta for each rule."""
    fig, axes = harness.new_figure(2, 2, sharey=True)
    styles = {"null_side": ("#D55E00", "s", "ties on the null side"),
              "mid_p": ("#0072B2", "o", "mid-p (binom2_jimi_test)"),
              "excluded": ("#009E73", "^", "ties excluded"),
              "package": ("black", "x", "binom2_jimi_test itself")}
    for i, eps in enumerate(EPSILONS):
        for j, alt in enumerate(ALTERNATIVES):
            ax = axes[i][j] if hasattr(axes[i], "__len__") else axes[2 * i + j]
            for rule, (colour, marker, label) in styles.items():
                sel = sorted((r for r in rows if r["epsilon"] == eps and r["alternative"] == alt
                              and r["rule"] == rule), key=lambda r: r["theta"])
                ax.errorbar([r["theta"] for r in sel], [r["size"] for r in sel],
                            yerr=[2 * r["mc_se"] for r in sel], color=colour, marker=marker,
                            markersize=3, linewidth=0.9, capsize=2, label=label,
                            linestyle="none" if rule == "package" else "-")
            one = [r["one_sample_max"] for r in rows if r["epsilon"] == eps and r["alternative"] == alt]
            if one:
                ax.axhline(one[0], color="0.5", linestyle=":", linewidth=0.9,
                           label="one-sample DP-JIMI: largest size over p0")
            harness.plot_nominal(ax, ALPHA, label="alpha")
            harness.finish_axes(ax, title=f"epsilon = {eps} per group, {alt}",
                                xlabel="theta1 = theta2" if i == 1 else None,
                                ylabel="size" if j == 0 else None)
    harness.add_legend(fig)
    fig.suptitle(f"Two-sample DP-JIMI under H0, n = {N} per group, alpha = {ALPHA}\n"
                 f"({meta['reps']} release pairs, {meta['n_sim']} draws per group; bars: 2 SE)",
                 fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``jimi_two_sample_ties_simulate.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("simulate",),
        reps_help=f"release pairs simulated per cell (default: {REPS}; at most {REPS_QUICK} with --quick)",
        n_sim_help=f"fiducial draws per group and release (default: {N_SIM}; {N_SIM_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK)
    if args.n_sim is None:
        args.n_sim = N_SIM
    if args.quick:
        args.n_sim = min(args.n_sim, N_SIM_QUICK)
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, ties_cell, cells)
    meta = harness.study_metadata(STUDY, args, n=N, alpha=ALPHA, epsilons=EPSILONS,
                                  thetas=THETAS_QUICK if args.quick else THETAS)
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
