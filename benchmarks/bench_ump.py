"""Speed of the exact DP-UMP binomial inference (run: python benchmarks/bench_ump.py).

Prints, in one run:
* the time of one p-value at n = 1e3, 1e6, 1e9 (it should be flat in n);
* the ratio against a plain full-sum numpy implementation at n = 1e6, measured in the
  same run (the baseline sums Binom(x; n, p0) F(x - z) over all n + 1 counts);
* two-sided (asymptotically unbiased) intervals per second at n = 50 and n = 1e6, one
  at a time and vectorised over 1000 releases, and for releases up to 4 counts outside
  [0, n] (where the accepted set is scanned next to the edge) as a ratio to those.
"""

import time

import numpy as np
from scipy import stats

from dpinfer import Tulap, binom_ump_ci, binom_ump_test


def best_time(func, repeat=7, number=5):
    """Best of ``repeat`` averages over ``number`` calls (seconds per call)."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def plain_pvalue(z, n, p0, epsilon):
    """Baseline: the full sum over x = 0..n in numpy (what binomialDP does in R)."""
    x = np.arange(n + 1)
    return float(np.sum(stats.binom.pmf(x, n, p0) * Tulap.from_privacy(epsilon).cdf(x - z)))


def main():
    epsilon, p0 = 1.0, 0.3
    print("DP-UMP p-value ('greater'), one release, epsilon = 1, p0 = 0.3")
    times = {}
    for n in (10**3, 10**6, 10**9):
        z = n * p0 + 2.0 * np.sqrt(n * p0 * (1 - p0)) + 0.37
        times[n] = best_time(lambda: binom_ump_test(z, n, p0, epsilon=epsilon, alternative="greater"))
        print(f"  n = {n:>10.0e}: {times[n] * 1e3:8.3f} ms per test (p-value and interval)")
        zz = np.array([z])
        t_p = best_time(lambda: binom_ump_test(zz, n, p0, epsilon=epsilon, alternative="greater"))
        print(f"  {'':15} {t_p * 1e3:8.3f} ms per p-value alone")
    n = 10**6
    z = n * p0 + 2.0 * np.sqrt(n * p0 * (1 - p0)) + 0.37
    zz = np.array([z])
    ours = best_time(lambda: binom_ump_test(zz, n, p0, epsilon=epsilon, alternative="greater"))
    plain = best_time(lambda: plain_pvalue(z, n, p0, epsilon), repeat=3, number=2)
    mine = float(binom_ump_test(zz, n, p0, epsilon=epsilon, alternative="greater")[0])
    base = plain_pvalue(z, n, p0, epsilon)
    print(f"  n = 1e6 plain full-sum numpy: {plain * 1e3:.1f} ms; windowed: {ours * 1e3:.3f} ms; "
          f"speed-up x{plain / ours:.0f} (p-values {mine:.15g} vs {base:.15g})")
    print("Two-sided intervals (asymptotically unbiased), epsilon = 1, level 0.95")
    rng = np.random.default_rng(1)
    for n in (50, 10**6):
        z_one = n * 0.4 + 0.37
        t_one = best_time(lambda: binom_ump_ci(z_one, n, epsilon=epsilon), repeat=3, number=3)
        z_many = n * 0.4 + rng.normal(0, np.sqrt(n * 0.24) + 1.5, size=1000)
        start = time.perf_counter()
        binom_ump_ci(z_many, n, epsilon=epsilon)
        t_many = time.perf_counter() - start
        print(f"  n = {n:>8}: {1 / t_one:8.1f} intervals/s one at a time; "
              f"{z_many.size / t_many:8.1f} intervals/s vectorised over {z_many.size} releases")
        # releases just outside [0, n]: the accepted set is scanned next to the edge
        z_out = np.where(rng.random(200) < 0.5, -rng.uniform(0, 4, 200), n + rng.uniform(0, 4, 200))
        t_out_one = best_time(lambda: binom_ump_ci(n + 1.3, n, epsilon=epsilon), repeat=3, number=3)
        start = time.perf_counter()
        binom_ump_ci(z_out, n, epsilon=epsilon)
        t_out = time.perf_counter() - start
        print(f"  n = {n:>8}, z within 4 counts outside [0, n]: {1 / t_out_one:8.1f} intervals/s one "
              f"at a time (x{t_out_one / t_one:.1f} the inside time); {z_out.size / t_out:8.1f} "
              f"intervals/s vectorised (x{(t_out / z_out.size) / (t_many / z_many.size):.1f})")


if __name__ == "__main__":
    main()
