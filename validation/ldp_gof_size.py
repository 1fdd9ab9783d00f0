"""Size of the local-DP tests: goodness of fit (k-RR, unary encoding) and the RR two-sample test.

At alpha = 0.05, under the null:

* ``krr_gof_test`` (Pearson chi-square on the privatized counts against the
  privatized null Q p0, df k - 1);
* ``unary_gof_test`` (projected chi-square of Gaboardi & Rogers 2018, df d - 1);
* ``rr_two_sample_test`` (z test, both groups at p = 0.3, n1 = n, n2 = 3n/4);
* ``rr_proportion_test`` (exact binomial, H0: p = 0.3): its size is computed
  exactly (a finite sum) and is at most alpha by construction.

Settings: k = d in {3, 10}, n in {500, 2000}, epsilon in {0.5, 1, 3}; null
frequencies increasing linearly (p0_j proportional to 1 + j).  The chi-square tests
are asymptotic, so their size is simulated with ``--reps`` data sets per cell drawn
from the exact law of the sufficient statistics (multinomial report counts for
k-RR; Binomial(n_j, q) + Binomial(n - n_j, 1 - q) bit counts for unary
encoding; binomial yes counts for RR).  ``--mode simulate`` draws the k-RR and RR
data through the releasers instead.

Run: ``python -m validation.ldp_gof_size [--quick] [--mode simulate]``.
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

STUDY = "ldp_gof_size"
ALPHA = 0.05
KS = [3, 10]
NS = [500, 2000]
EPSILONS = [0.5, 1.0, 3.0]
P_TWO_SAMPLE = 0.3
CHUNK = 2000  # data sets simulated at once through a releaser (memory)
REPS, REPS_QUICK = 10_000, 1000


def _null(k):
    p0 = 1.0 + np.arange(k)
    return p0 / p0.sum()


def size_cell(cell, seed_sequence):
    """Rejection rate under H0 (simulated, or exact for the exact binomial test)."""
    test, k, n, eps, reps, mode = cell["test"], cell["k"], cell["n"], cell["epsilon"], cell["reps"], cell["mode"]
    rng = np.random.default_rng(seed_sequence)
    # `mode` is the run mode; `computed` says how this row's size was obtained.
    row = {"test": test, "k": k, "n": n, "epsilon": eps, "alpha": ALPHA, "mode": mode,
           "computed": "simulated"}
    if test == "rr_exact_binomial":
        a0, a1 = 1 / (1 + np.exp(eps)), 1 / (1 + np.exp(-eps))
        y = np.arange(n + 1)
        pv = dpinfer.rr_proportion_test(yes_count=y, n=n, p0=P_TWO_SAMPLE, epsilon=eps)
        size = float(np.sum(stats.binom.pmf(y, n, a0 + (a1 - a0) * P_TWO_SAMPLE) * (pv <= ALPHA)))
        row.update(computed="exact", size=size, mc_se=None, reps=None)
        return row
    if test == "krr_gof":
        p0 = _null(k)
        if mode == "simulate":
            pv = np.concatenate([
                dpinfer.krr_gof_test(dpinfer.KRRReleaser(eps, k).release(
                    rng.choice(k, size=(m, n), p=p0), rng=rng), p0, k=k)
                for m in _chunks(reps)])
        else:
            e = np.exp(eps)
            q = np.where(np.eye(k, dtype=bool), e / (e + k - 1), 1 / (e + k - 1))
            pv = dpinfer.krr_gof_test(counts=rng.multinomial(n, q @ p0, size=reps), p0=p0, epsilon=eps)
    elif test == "unary_gof":
        p0 = _null(k)
        keep = 1 / (1 + np.exp(-eps / 2))
        nj = rng.multinomial(n, p0, size=reps)
        s = rng.binomial(nj, keep) + rng.binomial(n - nj, 1 - keep)
        pv = dpinfer.unary_gof_test(bit_counts=s, n=n, p0=p0, epsilon=eps)
    else:  # rr_two_sample
        n2 = (3 * n) // 4
        if mode == "simulate":
            rr = dpinfer.RandomizedResponseReleaser(eps)
            pv = np.concatenate([
                dpinfer.rr_two_sample_test(
                    rr.release((rng.random((m, n)) < P_TWO_SAMPLE).astype(np.int8), rng=rng),
                    rr.release((rng.random((m, n2)) < P_TWO_SAMPLE).astype(np.int8), rng=rng))
                for m in _chunks(reps)])
        else:
            a0, a1 = 1 / (1 + np.exp(eps)), 1 / (1 + np.exp(-eps))
            lam = a0 + (a1 - a0) * P_TWO_SAMPLE
            pv = dpinfer.rr_two_sample_test(yes_count1=rng.binomial(n, lam, reps), n1=n,
                                            yes_count2=rng.binomial(n2, lam, reps), n2=n2, epsilon=eps)
    size = float(np.mean(pv <= ALPHA))
    row.update(size=size, mc_se=float(np.sqrt(ALPHA * (1 - ALPHA) / reps)), reps=reps)
    return row


def _chunks(reps):
    full, rest = divmod(reps, CHUNK)
    return [CHUNK] * full + ([rest] if rest else [])


def build_cells(args):
    ks = [3] if args.quick else KS
    ns = [500] if args.quick else NS
    eps_grid = [1.0] if args.quick else EPSILONS
    cells = []
    for test in ("krr_gof", "unary_gof"):
        cells += [{"test": test, "k": k, "n": n, "epsilon": e} for k in ks for n in ns for e in eps_grid]
    for test in ("rr_two_sample", "rr_exact_binomial"):
        cells += [{"test": test, "k": 2, "n": n, "epsilon": e} for n in ns for e in eps_grid]
    for cell in cells:
        cell.update(mode=args.mode, reps=args.reps)
    return cells


def plot(rows, meta, path):
    fig, axes = harness.new_figure(4, sharey=True, panel_width=3.0)
    titles = {"krr_gof": "k-RR goodness of fit", "unary_gof": "unary-encoding GOF (projected)",
              "rr_two_sample": "RR two-sample z test", "rr_exact_binomial": "RR exact binomial test"}
    colours = {(3, 500): "#0072B2", (3, 2000): "#56B4E9", (10, 500): "#D55E00", (10, 2000): "#E69F00",
               (2, 500): "#009E73", (2, 2000): "#CC79A7"}
    for ax, test in zip(axes, titles):
        sel = [r for r in rows if r["test"] == test]
        for key in sorted({(r["k"], r["n"]) for r in sel}):
            pts = sorted((r for r in sel if (r["k"], r["n"]) == key), key=lambda r: r["epsilon"])
            e = np.array([r["epsilon"] for r in pts])
            s = np.array([r["size"] for r in pts])
            se = np.array([r["mc_se"] or 0.0 for r in pts])
            lab = f"n = {key[1]}" + (f", k = d = {key[0]}" if key[0] > 2 else "")
            ax.errorbar(e, s, yerr=2 * se, color=colours[key], marker="o", markersize=3, capsize=2,
                        linewidth=0.9, label=lab)
        ax.set_xscale("log")
        ax.set_xticks(EPSILONS, [f"{e:g}" for e in EPSILONS])
        ax.minorticks_off()
        harness.plot_nominal(ax, ALPHA, label="alpha")
        harness.finish_axes(ax, title=f"{titles[test]}\n({harness.computed_label(sel)})", xlabel="epsilon",
                            ylabel="size" if test == "krr_gof" else None)
    harness.add_legend(fig, ncol=4)
    fig.suptitle(f"Size of the local-DP tests at alpha = {ALPHA} (bars: +/- 2 Monte Carlo SE of the "
                 "simulated points)", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``ldp_gof_size_<mode>.csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], n_sim_help=None,
        reps_help=f"data sets simulated per point, in either mode, for the chi-square and two-sample "
                  f"tests; the exact binomial test's size is always exact "
                  f"(default: {REPS}; at most {REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK)
    cells = build_cells(args)
    stem, rows = harness.run_study_rows(STUDY, args, size_cell, cells)
    meta = harness.study_metadata(STUDY, args, reps=args.reps, alpha=ALPHA, ks=KS, ns=NS, epsilons=EPSILONS,
                                  p_two_sample=P_TWO_SAMPLE)
    return harness.finish_study(STUDY, args, stem, None, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
