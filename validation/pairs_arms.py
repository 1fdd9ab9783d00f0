"""Paired and multi-arm trials: exact size and coverage of the private McNemar test, family-wise error of many-to-one.

At alpha = 0.05:

* ``mcnemar_size``: the exact rejection probability of ``mcnemar_test`` (one-sided
  ``'greater'`` and two-sided) at points ``p01 = p10 = psi / 2`` of the null line, psi in
  {0.05, 0.2, 0.4, 0.7, 1.0}, n in {15, 40, 80} pairs, epsilon in {0.5, 1, 3}: computed
  (``mcnemar_power`` at the null: a finite multinomial sum), not simulated.
* ``mcnemar_coverage``: the exact coverage of the two-sided 95% interval for ``p10 - p01``,
  ``1 - P(the test of the true difference rejects)``, n = 30, epsilon = 1, on a grid of
  ``(p01, p10)``.
* ``fwer``: the family-wise error of ``binom_many_to_one_test(adjust='dunnett')`` under the
  global null at three settings the tests do not use (3 arms of 25 against 50 at epsilon 1,
  theta 0.15; 2 arms of 60 and 30 against 45 at epsilon 0.5, theta 0.5; 4 arms of 20 against
  20 at epsilon 2, theta 0.85), one-sided: *computed* (the exact tail at the true theta beyond
  the critical value ``u*``, the smallest standardized statistic whose supremum tail is at
  most alpha) and *simulated* (``--reps`` seeded global-null trials released by
  ``TulapReleaser``, a rejection whenever some arm's statistic, moved by half a grid cell,
  reaches ``u*``: the procedure's own rule), with the Monte Carlo SE.

Run: ``python -m validation.pairs_arms [--quick] [--reps R]`` (default 20 000 trials per FWER
setting; the whole run a few minutes on 2 cores, ``--quick`` seconds).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.distributions._tulap_law import tulap_grid  # noqa: E402
from dpinfer.inference.pairs._dunnett import certified_sup_max_tail, located_sup_max_tail, max_tail  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "pairs_arms"
ALPHA = 0.05
SIZE_NS = [15, 40, 80]
SIZE_EPS = [0.5, 1.0, 3.0]
PSIS = [0.05, 0.2, 0.4, 0.7, 1.0]
COVERAGE_CELLS = [(0.02, 0.1), (0.05, 0.3), (0.1, 0.1), (0.3, 0.05), (0.2, 0.5), (0.4, 0.4)]
FWER_SETTINGS = [((25, 25, 25), 50, 1.0, 0.15), ((60, 30), 45, 0.5, 0.5), ((20, 20, 20, 20), 20, 2.0, 0.85)]


def critical(sizes, n0, epsilon):
    """``u*``: bisection (to 1e-9) for the smallest u whose global-null supremum tail is at most alpha.

    The bisection reads the located supremum (fast); the end it returns is then checked with the
    certified one, the procedure's own, and moved up in steps of 1e-9 until that is at most alpha too.
    """
    eps = [epsilon] * (len(sizes) + 1)
    lo, hi = 0.0, 8.0
    for _ in range(33):
        mid = (lo + hi) / 2
        if located_sup_max_tail(list(sizes), n0, eps, 0.0, mid, False)[0] <= ALPHA:
            hi = mid
        else:
            lo = mid
    while certified_sup_max_tail(list(sizes), n0, eps, 0.0, hi, False)[0] > ALPHA:
        hi += 1e-9
    return hi


def simulate_fwer(sizes, n0, epsilon, theta, u_star, trials, rng):
    """The share of ``trials`` global-null trials in which the single-step procedure rejects some arm.

    Arm ``i`` is rejected iff its adjusted p-value is at most alpha, i.e. iff its standardized
    statistic, moved by half a grid cell towards the null, reaches ``u_star`` (the adjusted
    p-value decreases in it); the releases are drawn by ``TulapReleaser`` from ``rng``.
    """
    rel = dpinfer.TulapReleaser(epsilon)
    z0 = rel.release(rng.binomial(n0, theta, trials), n0, rng=rng).value
    h0 = tulap_grid(n0, epsilon, 0.0).step / 2
    reject = np.zeros(trials, bool)
    for n in sizes:
        zk = rel.release(rng.binomial(n, theta, trials), n, rng=rng).value
        s = math.sqrt(1 / n + 1 / n0)
        reject |= (zk / n - z0 / n0) / s - (tulap_grid(n, epsilon, 0.0).step / 2 / n + h0 / n0) / s >= u_star
    return float(reject.mean())


def _size_rows(cell):
    rows = []
    for psi in cell["psis"]:
        for alt in ("greater", "two-sided"):
            size = dpinfer.mcnemar_power(psi / 2, psi / 2, cell["n"], epsilon=cell["epsilon"], alpha=ALPHA,
                                         alternative=alt)
            rows.append({"part": "mcnemar_size", "n": cell["n"], "epsilon": cell["epsilon"], "psi": psi,
                         "alternative": alt, "rate": size, "se": 0.0, "ok": bool(size <= ALPHA + 1e-12),
                         "computed": "exact"})
    return rows


def _coverage_rows(cell):
    rows = []
    for p01, p10 in cell["points"]:
        miss = dpinfer.mcnemar_power(p01, p10, cell["n"], epsilon=cell["epsilon"], margin=p10 - p01, alpha=0.05,
                                     alternative="two-sided")
        rows.append({"part": "mcnemar_coverage", "n": cell["n"], "epsilon": cell["epsilon"], "p01": p01, "p10": p10,
                     "rate": 1.0 - miss, "se": 0.0, "ok": bool(1.0 - miss >= 0.95 - 1e-12), "computed": "exact"})
    return rows


def _fwer_rows(cell, seed_sequence):
    sizes, n0, eps, theta = cell["sizes"], cell["control"], cell["epsilon"], cell["theta"]
    u_star = critical(sizes, n0, eps)
    exact = max_tail(list(sizes), n0, [eps] * (len(sizes) + 1), theta, 0.0, u_star, False)
    rate = simulate_fwer(sizes, n0, eps, theta, u_star, cell["reps"], np.random.default_rng(seed_sequence))
    trials = cell["reps"]
    se = math.sqrt(max(rate * (1 - rate), ALPHA * (1 - ALPHA)) / trials)
    base = {"part": "fwer", "n": n0, "epsilon": eps, "arms": "/".join(map(str, sizes)), "theta": theta,
            "critical": u_star}
    return [{**base, "rate": exact, "se": 0.0, "ok": bool(exact <= ALPHA + 1e-9), "computed": "exact"},
            {**base, "rate": rate, "se": se, "ok": bool(rate <= ALPHA + 4 * se), "computed": "simulated"}]


def study_cell(cell, seed_sequence):
    if cell["part"] == "mcnemar_size":
        return _size_rows(cell)
    if cell["part"] == "mcnemar_coverage":
        return _coverage_rows(cell)
    return _fwer_rows(cell, seed_sequence)


def build_cells(args):
    q = args.quick
    ns, eps, psis = ([15], [1.0], [0.2, 1.0]) if q else (SIZE_NS, SIZE_EPS, PSIS)
    cells = [{"part": "mcnemar_size", "n": n, "epsilon": e, "psis": psis, "reps": args.reps} for n in ns for e in eps]
    cells.append({"part": "mcnemar_coverage", "n": 15 if q else 30, "epsilon": 1.0,
                  "points": COVERAGE_CELLS[:2] if q else COVERAGE_CELLS, "reps": args.reps})
    cells += [{"part": "fwer", "sizes": s, "control": c, "epsilon": e, "theta": t, "reps": args.reps}
              for s, c, e, t in (FWER_SETTINGS[:1] if q else FWER_SETTINGS)]
    return cells


def plot(rows, meta, path):
    """Exact McNemar size, exact coverage, family-wise error (computed and simulated)."""
    fig, axes = harness.new_figure(3)
    ax = axes[0]
    for alt, style in (("greater", "-"), ("two-sided", ":")):
        for n in sorted({r["n"] for r in rows if r["part"] == "mcnemar_size"}):
            sel = sorted((r for r in rows if r["part"] == "mcnemar_size" and r["n"] == n and r["alternative"] == alt
                          and r["epsilon"] == max(x["epsilon"] for x in rows if x["part"] == "mcnemar_size")),
                         key=lambda r: r["psi"])
            ax.plot([r["psi"] for r in sel], [r["rate"] for r in sel], linestyle=style, marker="o", markersize=3,
                    label=f"size, n = {n}, {alt}")
    harness.plot_nominal(ax, ALPHA, label="alpha")
    harness.finish_axes(ax, title="exact size of mcnemar_test (largest epsilon)", xlabel="discordance psi",
                        ylabel="rejection probability")
    ax = axes[1]
    sel = [r for r in rows if r["part"] == "mcnemar_coverage"]
    ax.plot([r["p10"] - r["p01"] for r in sel], [r["rate"] for r in sel], "o", markersize=3, label="coverage")
    harness.plot_nominal(ax, 0.95, label="0.95")
    harness.finish_axes(ax, title="exact coverage, 95% interval", xlabel="p10 - p01", ylabel="coverage")
    ax = axes[2]
    sel = [r for r in rows if r["part"] == "fwer"]
    labels = sorted({r["arms"] for r in sel})
    for how, marker in (("exact", "o"), ("simulated", "x")):
        pts = [r for r in sel if r["computed"] == how]
        ax.errorbar([labels.index(r["arms"]) for r in pts], [r["rate"] for r in pts],
                    yerr=[4 * r["se"] for r in pts], fmt=marker, markersize=4, label=f"FWER, {how}")
    harness.plot_nominal(ax, ALPHA, label="alpha")
    harness.finish_axes(ax, title="family-wise error, Dunnett-type (4 SE bars)", xlabel="setting (arm sizes)",
                        ylabel="P(any rejection)")
    harness.add_legend(fig)
    fig.suptitle("Paired (McNemar) and many-to-one (Dunnett-type) private tests", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``pairs_arms_exact[_quick].csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("exact",), n_sim_help=None,
        reps_help="global-null trials simulated per family-wise error setting (default: 20000; "
                  "2000 with --quick)")
    args = harness.parse_study_args(parser, argv, reps=20_000, reps_quick=2000)
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, study_cell, cells)
    meta = harness.study_metadata(STUDY, args, alpha=ALPHA, size_ns=SIZE_NS, size_epsilons=SIZE_EPS, psis=PSIS,
                                  fwer_settings=[list(map(str, s)) for s in FWER_SETTINGS])
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
