"""Exact two-arm inference: size, power and coverage of binom2_ump_test and binom2_ump_ci.

Three parts, alpha = 0.05, risk difference, H0: theta1 = theta2 unless said otherwise, each for
both orderings of the exact test (``statistic``: ``'score'``, the default since issue 41, rows
``dp_ump2_score``; ``'difference'``, rows ``dp_ump2``):

* **size** (computed, not simulated): for n per arm in {20, 50, 100, 300} and epsilon in
  {0.5, 1, 3} (both arms), the largest rejection probability over the null line
  theta1 = theta2 = nu, for the one-sided ('greater') and the two-sided test.  The test
  rejects on ``T >= u + s`` (and ``T <= l - s``), with ``u`` the critical value
  (``two_arm._critical``) and ``s`` the release cells' shift; the largest rejection
  probability is the located supremum over nu (one-sided, difference ordering) or the maximum
  over a 201-point grid of nu (two-sided, and the score ordering).  ``size_ok`` checks ``max_size <= alpha + 1e-12``.
* **power** at theta2 = 0.3, theta1 in {0.3, 0.45, 0.6, 0.75}, one-sided ('greater'), for n
  per arm in {20, 50, 100} and epsilon in {0.5, 1, 3}: the exact test (``dp_ump2``, exact:
  ``binom2_ump_power``), the normal approximation ``binom2_normal_test`` and DP-JIMI
  ``binom2_jimi_test`` on Laplace-noised proportions at the same epsilon per arm (simulated:
  ``--reps`` release pairs per point, DP-JIMI with ``--n-sim`` draws, Monte Carlo SE in
  ``mc_se``), and the non-private ``scipy.stats.boschloo_exact`` (exact: its rejection
  region is found table by table, then summed; n = 20 and 50 only, as it is slow).
* **coverage** of the 95% two-sided risk-difference interval (``binom2_ump_ci``), exactly:
  it misses the true difference only when one of the two one-sided tests at it rejects, so
  its coverage is one minus the exact two-sided rejection probability of the true
  difference; n per arm in {20, 50}, epsilon = 1, theta1, theta2 in {0.1, 0.3, 0.5, 0.7, 0.9}.
  The same for the odds-ratio interval (``effect='odds-ratio'``, its score ordering; rows
  ``dp_ump2_odds_ratio``, ``effect`` column): one minus the exact two-sided rejection
  probability of the true odds ratio.

Run: ``python -m validation.two_arm [--quick]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from dpinfer import LaplaceReleaser, binom2_jimi_test, binom2_normal_test, binom2_ump_power  # noqa: E402
from dpinfer.inference._studies import (  # noqa: E402
    two_arm_arm, two_arm_critical, two_arm_exact_power, two_arm_null, two_arm_sup_tail)
from validation import harness  # noqa: E402

STUDY = "two_arm"
ALPHA = 0.05
SIZE_NS, SIZE_EPS = [20, 50, 100, 300], [0.5, 1.0, 3.0]
POWER_NS, POWER_EPS = [20, 50, 100], [0.5, 1.0, 3.0]
THETA2, THETA1S = 0.3, [0.3, 0.45, 0.6, 0.75]
BOSCHLOO_NS = [20, 50]
COVERAGE_NS, COVERAGE_THETAS = [20, 50], [0.1, 0.3, 0.5, 0.7, 0.9]
#: the exact test's orderings (``statistic=``), the default first; rows name them in ``method``
STATISTICS = {"score": "dp_ump2_score", "difference": "dp_ump2"}


def _size_rows(cell):
    n, eps = cell["n"], cell["epsilon"]
    arm = two_arm_arm(n, eps, 0.0, 1)
    null = two_arm_null("difference", 0.0)
    shift = 2.0 * arm.half_step / n
    rows = []
    for statistic, method in STATISTICS.items():
        for alternative in ("greater", "two-sided"):
            if alternative == "greater" and statistic == "difference":
                u = two_arm_critical(arm, arm, null, ALPHA, True)
                sup = two_arm_sup_tail(arm, arm, null, u + shift, True)
                size, nu = sup.value, sup.nu
            else:  # the exact rejection probability on 201 points of the null line
                nus = np.linspace(0.0, 1.0, 201)
                power = binom2_ump_power(nus, nus, n, n, epsilon=eps, alpha=ALPHA, alternative=alternative,
                                         statistic=statistic)
                size, nu = float(np.max(power)), float(nus[int(np.argmax(power))])
            rows.append({"part": "size", "n": n, "epsilon": eps, "alternative": alternative, "alpha": ALPHA,
                         "method": method, "statistic": statistic, "max_size": size, "nu_at_max": nu,
                         "size_ok": bool(size <= ALPHA + 1e-12), "computed": "exact"})
    return rows


def _boschloo_power(n, theta1s, theta2):
    """Exact power of the one-sided non-private Boschloo test (region found table by table)."""
    cut = np.full(n + 1, n + 1)
    for x2 in range(n + 1):
        lo, hi = x2, n + 1  # smallest x1 >= x2 that rejects (the region is monotone in x1)
        while lo < hi:
            mid = (lo + hi) // 2
            p = stats.boschloo_exact([[mid, x2], [n - mid, n - x2]], alternative="greater").pvalue
            if p <= ALPHA:
                hi = mid
            else:
                lo = mid + 1
        cut[x2] = lo
    x = np.arange(n + 1)
    out = []
    for th1 in theta1s:
        sf1 = np.array([stats.binom.sf(c - 1, n, th1) if c <= n else 0.0 for c in cut])
        out.append(float(np.sum(stats.binom.pmf(x, n, theta2) * sf1)))
    return out


def _power_rows(cell, seed_sequence):
    n, eps, reps, n_sim = cell["n"], cell["epsilon"], cell["reps"], cell["n_sim"]
    rng = np.random.default_rng(seed_sequence)
    rows = []
    exact = {statistic: binom2_ump_power(np.array(THETA1S), THETA2, n, n, epsilon=eps, alpha=ALPHA,
                                         alternative="greater", statistic=statistic)
             for statistic in STATISTICS}
    laplace = LaplaceReleaser(eps, 1.0)
    boschloo = _boschloo_power(n, THETA1S, THETA2) if cell["boschloo"] else None
    for i, th1 in enumerate(THETA1S):
        base = {"part": "power", "n": n, "epsilon": eps, "alternative": "greater", "alpha": ALPHA,
                "theta1": th1, "theta2": THETA2}
        for statistic, method in STATISTICS.items():
            rows.append({**base, "method": method, "statistic": statistic, "power": float(exact[statistic][i]),
                         "computed": "exact"})
        pi1 = laplace.proportion(rng.binomial(n, th1, reps), n, rng=rng).value
        pi2 = laplace.proportion(rng.binomial(n, THETA2, reps), n, rng=rng).value
        normal = binom2_normal_test(pi1, n, pi2, n, epsilon=eps, alternative="greater")
        jimi = binom2_jimi_test(pi1, n, pi2, n, epsilon=eps, alternative="greater",
                                n_sim=n_sim, rng=rng)
        for method, p in (("normal", normal), ("dp_jimi", jimi)):
            rate = float(np.mean(p <= ALPHA))
            rows.append({**base, "method": method, "power": rate, "computed": "simulated",
                         "reps": reps, "mc_se": float(np.sqrt(rate * (1 - rate) / reps)),
                         "n_sim": n_sim if method == "dp_jimi" else None})
        if boschloo is not None:
            rows.append({**base, "method": "boschloo_nonprivate", "power": boschloo[i],
                         "computed": "exact"})
    return rows


def _coverage_rows(cell):
    n, eps = cell["n"], cell["epsilon"]
    arm = two_arm_arm(n, eps, 0.0, 1)
    rows = []
    for th1 in cell["thetas"]:
        for th2 in cell["thetas"]:
            null = two_arm_null("difference", th1 - th2)
            for statistic, method in STATISTICS.items():
                miss = float(two_arm_exact_power(arm, arm, null, th1, th2, 1.0 - 0.95, "two-sided",
                                                 statistic)[0])
                rows.append({"part": "coverage", "n": n, "epsilon": eps, "theta1": th1, "theta2": th2,
                             "method": method, "statistic": statistic, "effect": "difference",
                             "coverage": 1.0 - miss, "level": 0.95,
                             "coverage_ok": bool(1.0 - miss >= 0.95 - 1e-12), "computed": "exact"})
            # the odds ratio (its only ordering, the score)
            psi = th1 * (1.0 - th2) / (th2 * (1.0 - th1))
            miss = float(two_arm_exact_power(arm, arm, two_arm_null("odds-ratio", psi), th1, th2, 1.0 - 0.95,
                                             "two-sided", "score")[0])
            rows.append({"part": "coverage", "n": n, "epsilon": eps, "theta1": th1, "theta2": th2,
                         "method": "dp_ump2_odds_ratio", "statistic": "score", "effect": "odds-ratio",
                         "coverage": 1.0 - miss, "level": 0.95,
                         "coverage_ok": bool(1.0 - miss >= 0.95 - 1e-12), "computed": "exact"})
    return rows


def study_cell(cell, seed_sequence):
    if cell["part"] == "size":
        return _size_rows(cell)
    if cell["part"] == "power":
        return _power_rows(cell, seed_sequence)
    return _coverage_rows(cell)


def build_cells(args):
    q = args.quick
    size_ns, size_eps = ([20], [1.0]) if q else (SIZE_NS, SIZE_EPS)
    power_ns, power_eps = ([20], [1.0]) if q else (POWER_NS, POWER_EPS)
    cov_ns = [20] if q else COVERAGE_NS
    thetas = [0.1, 0.5, 0.9] if q else COVERAGE_THETAS
    cells = [{"part": "size", "n": n, "epsilon": e, "reps": args.reps, "n_sim": args.n_sim}
             for n in size_ns for e in size_eps]
    cells += [{"part": "power", "n": n, "epsilon": e, "reps": args.reps, "n_sim": args.n_sim,
               "boschloo": n in BOSCHLOO_NS and e == power_eps[0]}
              for n in power_ns for e in power_eps]
    cells += [{"part": "coverage", "n": n, "epsilon": 1.0, "thetas": thetas, "reps": args.reps,
               "n_sim": args.n_sim} for n in cov_ns]
    return cells


def plot(rows, meta, path):
    """Size against n (per epsilon), power against theta1 (n = 20 or the first n), coverage."""
    fig, axes = harness.new_figure(3)
    colours = {0.5: "#D55E00", 1.0: "#0072B2", 3.0: "#009E73"}
    ax = axes[0]
    for alt, style in (("greater", "-"), ("two-sided", ":")):
        for eps in sorted({r["epsilon"] for r in rows if r["part"] == "size"}):
            sel = sorted((r for r in rows if r["part"] == "size" and r["epsilon"] == eps
                          and r["alternative"] == alt and r["method"] == "dp_ump2"), key=lambda r: r["n"])
            ax.plot([r["n"] for r in sel], [r["max_size"] for r in sel], linestyle=style, marker="o",
                    markersize=3, color=colours.get(eps, "k"), label=f"size, epsilon = {eps:g}, {alt}")
    harness.plot_nominal(ax, ALPHA, label="alpha")
    ax.set_ylim(0.0, 0.07)
    ax.ticklabel_format(axis="y", useOffset=False)
    harness.finish_axes(ax, title="exact size (max over the nuisance; CSV: to 1e-12)",
                        xlabel="n per arm", ylabel="largest rejection probability")
    ax = axes[1]
    power_rows = [r for r in rows if r["part"] == "power"]
    n0 = 50 if any(r["n"] == 50 for r in power_rows) else min(r["n"] for r in power_rows)
    e0 = 1.0 if any(r["epsilon"] == 1.0 for r in power_rows) else power_rows[0]["epsilon"]
    for method, colour in (("dp_ump2", "#0072B2"), ("dp_ump2_score", "#56B4E9"),
                           ("normal", "#E69F00"), ("dp_jimi", "#CC79A7"),
                           ("boschloo_nonprivate", "0.3")):
        sel = sorted((r for r in power_rows if r["method"] == method and r["n"] == n0
                      and (r["epsilon"] == e0 or method == "boschloo_nonprivate")),
                     key=lambda r: r["theta1"])
        if sel:
            ax.plot([r["theta1"] for r in sel], [r["power"] for r in sel], marker="o", markersize=3,
                    color=colour, label=f"power: {harness.readable_label(method)}")
    harness.finish_axes(ax, title=f"power, n = {n0} per arm, epsilon = {e0:g}, theta2 = {THETA2}",
                        xlabel="theta1", ylabel="rejection probability")
    ax = axes[2]
    for n in sorted({r["n"] for r in rows if r["part"] == "coverage"}):
        for method, marker, what in (("dp_ump2", "o", "difference"), ("dp_ump2_odds_ratio", "x", "odds ratio")):
            sel = [r for r in rows if r["part"] == "coverage" and r["n"] == n and r["method"] == method]
            ax.plot([r["theta1"] - r["theta2"] for r in sel], [r["coverage"] for r in sel], marker,
                    markersize=3, label=f"coverage ({what}), n = {n}")
    harness.plot_nominal(ax, 0.95, label="0.95")
    harness.finish_axes(ax, title="exact coverage of the 95% interval", xlabel="theta1 - theta2",
                        ylabel="coverage")
    harness.add_legend(fig)
    fig.suptitle("Exact two-arm inference from Tulap releases (binom2_ump_test / binom2_ump_ci)",
                 fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``two_arm_exact[_quick].csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("exact",),
        n_sim_help="DP-JIMI draws per test in the power part (default: 1000)",
        reps_help="release pairs simulated per point for the approximate tests in the power part "
                  "(default: 2000; 200 with --quick)")
    args = harness.parse_study_args(parser, argv, reps=2000, reps_quick=200)
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, study_cell, cells)
    meta = harness.study_metadata(STUDY, args, alpha=ALPHA, size_ns=SIZE_NS, size_epsilons=SIZE_EPS,
                                  power_ns=POWER_NS, theta2=THETA2, coverage_ns=COVERAGE_NS)
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
