"""Several strata: exact size, simulated size and power of binom_strata_test (issue 37).

Three parts, alpha = 0.05:

* **exact size** (computed, not simulated) of the test with ``gamma = 0`` (the supremum over
  the whole null): its p-value is a decreasing function of ``T = sum_s (Z_1s - Z_2s)`` alone, so
  it rejects exactly when ``T >= t*`` (``t*`` found by bisection on the p-value), and its size at
  any baseline rates is ``P(T >= t*)``: the pmf of the count part by direct convolution of the
  strata's differences, times the noise tails.  Over a grid of baseline rates (5 per stratum) on
  the null line and inside the null, at margins 0 and 0.2; ``size_ok`` is ``max <= alpha + 1e-12``.
* **simulated size** of the default test (Berger-Boos ``gamma = 0.001``, two-sided) at baseline
  rates the test suite does not use, with the Monte Carlo SE; ``within_4se`` is
  ``rate <= alpha + 4 SE``.
* **power** at a common difference of 0.2, simulated on the same confidential tables: the
  private test (``gamma = 0.001`` and ``gamma = 0``), the test of the same releases with each arm
  pooled (``binom2_pooled_test``, which assumes one rate per arm) and the non-private
  Cochran-Mantel-Haenszel test (statsmodels ``StratifiedTable.test_null_odds``, without
  correction), two-sided.

Run: ``python -m validation.strata [--quick]``; writes ``strata_exact[_quick].csv`` into
``validation/out/`` and prints the rows.
"""

from __future__ import annotations

import argparse
import csv
import sys
from fractions import Fraction
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from dpinfer import TulapReleaser  # noqa: E402
from dpinfer.inference._studies import (  # noqa: E402
    strata_bound as bound, strata_noise_law, strata_pooled2_pvalue, strata_pvalue, strata_upper_tails as upper_tails,
    strata_walk as walk_tails)
from validation.harness import DEFAULT_OUT  # noqa: E402

ALPHA = 0.05


def _pairs(counts, ns, eps, seed):
    rng = np.random.SeedSequence(seed).spawn(2 * len(ns))
    return [(TulapReleaser(epsilon=e).release(int(x1), n, rng=np.random.default_rng(rng[2 * s])),
             TulapReleaser(epsilon=e).release(int(x2), n, rng=np.random.default_rng(rng[2 * s + 1])))
            for s, ((x1, x2), n, e) in enumerate(zip(counts, ns, eps))]


def _law(ns, eps):
    return strata_noise_law(_pairs([(1, 1)] * len(ns), ns, eps, 0))  # public numbers only: values unused


def _critical(law, ns, delta):
    big_n = sum(ns)
    y = np.arange(-2 * big_n, 2 * big_n + 1)
    lo, hi = Fraction(-3 * big_n), Fraction(3 * big_n)
    for _ in range(70):
        mid = (lo + hi) / 2
        walk = walk_tails(upper_tails(law, mid, y), big_n)
        if bound(walk, ns, delta, [(0.0, 1.0)] * len(ns))[0] <= ALPHA:
            hi = mid
        else:
            lo = mid
    return hi


def _size_at(law, ns, t, theta1, theta2):
    pmf, low = np.ones(1), 0
    for n, a, b in zip(ns, theta1, theta2):
        x = np.arange(n + 1)
        pmf = np.convolve(pmf, np.convolve(stats.binom.pmf(x, n, a), stats.binom.pmf(x, n, b)[::-1]))
        low -= n
    return float(pmf @ upper_tails(law, t, np.arange(low, low + pmf.size)))


def exact_size(quick):
    configs = [((8, 10), (0.5, 2.0))] if quick else [((8, 10), (0.5, 2.0)), ((10, 15, 12), (0.5, 1.0, 2.0))]
    rows = []
    grid = np.linspace(0.1, 0.9, 5)
    for ns, eps in configs:
        law = _law(ns, eps)
        for delta in (0.0, 0.2):
            t = _critical(law, list(ns), delta)
            worst, at = 0.0, None
            for point in np.array(np.meshgrid(*[grid] * len(ns))).reshape(len(ns), -1).T:
                if np.any(point + delta > 1.0):
                    continue
                for shrink in (0.0, 0.1):
                    theta1 = np.maximum(point + delta - shrink, 0.0)
                    size = _size_at(law, ns, t, theta1, point)
                    if size > worst:
                        worst, at = size, (tuple(np.round(point, 3)), shrink)
            rows.append({"part": "exact_size", "n": ns, "epsilon": eps, "margin": delta, "gamma": 0.0,
                         "value": worst, "where": at, "size_ok": worst <= ALPHA + 1e-12})
    return rows


def _simulate(ns, eps, theta1, theta2, reps, seed, gammas):
    rng = np.random.default_rng(seed)
    private = {g: 0 for g in gammas}
    if len(gammas) > 1:
        private["pooled"] = 0
    cmh = 0
    from statsmodels.stats.contingency_tables import StratifiedTable

    for r in range(reps):
        x1 = rng.binomial(ns, theta1)
        x2 = rng.binomial(ns, theta2)
        pairs = _pairs(list(zip(x1, x2)), ns, eps, (seed, r))
        for g in gammas:
            private[g] += strata_pvalue(pairs, 0.0, "two-sided", g) <= ALPHA
        if "pooled" in private:  # the same releases, each arm pooled (binom2_pooled_test)
            private["pooled"] += strata_pooled2_pvalue([a for a, _ in pairs], [b for _, b in pairs]) <= ALPHA
        tables = [np.array([[a, n - a], [b, n - b]]) + 0.0 for a, b, n in zip(x1, x2, ns)]
        cmh += StratifiedTable(tables).test_null_odds(correction=False).pvalue <= ALPHA
    return {g: v / reps for g, v in private.items()}, cmh / reps


def simulated(quick):
    reps = 40 if quick else 400
    ns, eps = (30, 30, 30), (1.0, 1.0, 1.0)
    rows = []
    se = float(np.sqrt(ALPHA * (1 - ALPHA) / reps))
    theta2 = np.array([0.15, 0.5, 0.8])
    rates, cmh = _simulate(ns, eps, theta2, theta2, reps, 37, (0.001,))
    rows.append({"part": "simulated_size", "n": ns, "epsilon": eps, "margin": 0.0, "gamma": 0.001,
                 "value": rates[0.001], "mc_se": se, "reps": reps, "within_4se": rates[0.001] <= ALPHA + 4 * se,
                 "cmh_nonprivate": cmh})
    base = np.array([0.2, 0.4, 0.6])
    for e in ((1.0,) if quick else (1.0, 3.0)):
        rates, cmh = _simulate(ns, (e,) * 3, base + 0.2, base, reps // 2, 38, (0.001, 0.0))
        for g, v in rates.items():
            method = "binom2_pooled_test" if g == "pooled" else "binom_strata_test"
            rows.append({"part": "power", "method": method, "n": ns, "epsilon": (e,) * 3, "margin": 0.0,
                         "gamma": 0.001 if g == "pooled" else g, "value": v,
                         "reps": reps // 2, "cmh_nonprivate": cmh, "truth": "theta2 = (0.2, 0.4, 0.6), difference 0.2"})
    return rows


def _figure(rows, path):
    """Bars: the exact and simulated sizes against alpha, the power against the non-private CMH test."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    sizes = [r for r in rows if r["part"] != "power"]
    labels = [f"{'exact' if r['part'] == 'exact_size' else 'simul.'}\nS={len(r['n'])}\nmargin {r['margin']:g}"
              for r in sizes]
    left.bar(range(len(sizes)), [r["value"] for r in sizes], color="#4c72b0")
    left.axhline(ALPHA, color="k", lw=1, ls="--")
    left.set_xticks(range(len(sizes)), labels, fontsize=7)
    left.set_ylabel("size (alpha = 0.05 dashed)")
    power = [r for r in rows if r["part"] == "power"]
    names = [f"eps {r['epsilon'][0]:g}\n" + ("pooled arms" if r["method"] == "binom2_pooled_test"
                                               else f"gamma {r['gamma']:g}") for r in power]
    right.bar(range(len(power)), [r["value"] for r in power], color="#55a868", label="private (binom_strata_test)")
    right.plot(range(len(power)), [r["cmh_nonprivate"] for r in power], "kD", label="non-private CMH")
    right.set_xticks(range(len(power)), names, fontsize=7)
    right.set_ylabel("power, difference 0.2")
    right.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer settings and replicates (about a minute)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-progress", action="store_true", help="accepted for the common interface; this study "
                        "prints no progress line")
    args = parser.parse_args(argv)
    rows = exact_size(args.quick) + simulated(args.quick)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"strata_exact{'_quick' if args.quick else ''}.csv"
    keys = sorted({k for row in rows for k in row})
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        print(row)
    _figure(rows, path.with_suffix(".png"))
    print(f"wrote {path} and {path.with_suffix('.png').name}")
    ok = all(row.get("size_ok", True) and row.get("within_4se", True) for row in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
