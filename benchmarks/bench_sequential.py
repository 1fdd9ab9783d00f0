"""Speed of the exact two-arm group-sequential designs (issue 36, item 2).

Run: ``python benchmarks/bench_sequential.py`` (under a minute).

The baseline is measured in the same run: one exact fixed-sample power of the two-arm test
(``binom2_ump_power``, one-sided, alpha = 0.025) at the design's final size and epsilon,
i.e. what planning the same trial without interim looks costs.  Each line prints our time,
the baseline's, the ratio and, where the issue sets one, the goal and the verdict:

* the exact operating characteristics of one design (3 looks, 122 per arm, epsilon = 1) at
  one pair of rates: under 0.1 s (the issue's goal, absolute);
* the boundaries of one design with their certified suprema (3 looks at 122 per arm; 4
  looks at 300 per arm, epsilon = 0.5: the upper end of the sizes the assignment names);
* ``sequential_design`` end to end (the search over the maximum size, the private and the
  non-private design);
* ``sequential_test`` at the end of a run (p-value certified, interval and estimate).

Times are the best of a few repeats (the pmf caches emptied before each).

**Where the time goes** (cProfile of ``sequential_design(0.5, 0.3, looks=3, epsilon=1)``,
about 1 s on the 2 shared cores): the row-wise FFT convolutions of the increments
(``scipy.signal.fftconvolve`` over the whole grid of common rates at once, no loop over
rates or outcomes) and the increments' pmfs (``two_arm._law._component_pmfs``, geometric
filters) take most of it; the certificate closes in one or two rounds because the grid's
corner bounds (the rejection probability is monotone in each arm's rate) cap the cells far
from the maximum.  The search evaluates about 6-10 maximum sizes with located suprema and
certifies only the answer.
"""

from __future__ import annotations

import time

from dpinfer import binom2_ump_power, sequential_design, sequential_test
from dpinfer.inference._studies import (sequential_boundaries, sequential_design_lattice, sequential_lattice,
                                       sequential_spending, two_arm_clear_cache)


def best_time(func, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        two_arm_clear_cache()
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def line(what, ours, base, goal=None):
    ratio = ours / base
    verdict = "" if goal is None else (f"goal < {goal * 1e3:.0f} ms  " + ("ok" if ours < goal else "MISSED"))
    print(f"{what:<60} {ours * 1e3:9.1f} ms  baseline {base * 1e3:8.1f} ms  ratio {ratio:7.2f}  {verdict}")


def main():
    design = sequential_design(0.5, 0.3, looks=3, epsilon=1.0)
    n = design.n1[-1]
    base = best_time(lambda: binom2_ump_power(0.5, 0.3, n, n, epsilon=1.0, alpha=0.025, alternative="greater"))
    print(f"baseline: binom2_ump_power(0.5, 0.3, {n}, {n}, epsilon = 1, one-sided 0.025)")
    line("operating characteristics, 3 looks, 122 per arm",
         best_time(lambda: design.operating_characteristics(0.45, 0.3)), base, goal=0.1)
    spent = sequential_spending("obrien-fleming", (1 / 3, 2 / 3, 1), 0.025)
    lat = sequential_design_lattice(design)
    line("certified boundaries, 3 looks, 122 per arm, epsilon 1",
         best_time(lambda: sequential_boundaries(lat, spent)), base)
    big = sequential_lattice(300, (0.25, 0.5, 0.75, 1.0), 1, 1, 1, 0.5, 0.0)
    spent4 = sequential_spending("pocock", (0.25, 0.5, 0.75, 1.0), 0.025)
    line("certified boundaries, 4 looks, 300 per arm, epsilon 0.5",
         best_time(lambda: sequential_boundaries(big, spent4), repeat=1), base)
    line("sequential_design(0.5, 0.3, looks=3, epsilon=1)",
         best_time(lambda: sequential_design(0.5, 0.3, looks=3, epsilon=1.0), repeat=1), base)
    run = design.staged_release()
    run.release(1, [24, 10], rng=1)
    run.release(2, [21, 13], rng=2)
    line("sequential_test after an efficacy stop at look 2",
         best_time(lambda: sequential_test(design, run), repeat=1), base)


if __name__ == "__main__":
    main()
