"""Speed of the stratified and pooled exact tests against the goals of issue 37.

Run: ``python benchmarks/bench_strata.py`` (under a minute).

The baseline is measured in the same run, on the same machine: ``binom2_ump_test`` (the exact
two-arm test with its interval) on one stratum's two releases at n = 100 per arm.  Each line
prints our time, the baseline's, the ratio, the goal and the verdict (``ok`` or ``MISSED``):

* ``binom_strata_test`` (p-value and two-sided interval) on 4 strata x 100 per arm, epsilon 1:
  under 10 s (the issue's goal, absolute), printed also as a ratio to the baseline;
* ``binom_pooled_test`` on 4 sites of 100 at epsilons 0.5, 1, 2, 3: under 1x the baseline.

Times are the best of three repeats; a busy machine inflates both sides alike.
"""

from __future__ import annotations

import time

from dpinfer import TulapReleaser, binom2_ump_test, binom_pooled_test, binom_strata_test


def _best(func, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    rel = TulapReleaser(epsilon=1.0)
    pairs = [(rel.release(55 + s, 100, rng=2 * s), rel.release(45, 100, rng=2 * s + 1)) for s in range(4)]
    sites = [TulapReleaser(epsilon=e).release(30 + i, 100, rng=10 + i) for i, e in enumerate((0.5, 1.0, 2.0, 3.0))]
    base = _best(lambda: binom2_ump_test(*pairs[0]))
    strata = _best(lambda: binom_strata_test(pairs))
    pooled = _best(lambda: binom_pooled_test(sites, 0.3))
    print(f"baseline binom2_ump_test, one stratum of 100 per arm: {base:.3f} s")
    for name, value, goal_s, goal_x in (("binom_strata_test, 4 strata x 100 per arm", strata, 10.0, None),
                                        ("binom_pooled_test, 4 sites of 100", pooled, None, 1.0)):
        ratio = value / base
        ok = (goal_s is None or value <= goal_s) and (goal_x is None or ratio <= goal_x)
        goal = f"< {goal_s:g} s" if goal_s is not None else f"<= {goal_x:g}x"
        print(f"{name}: {value:.3f} s, {ratio:.2f}x baseline, goal {goal}: {'ok' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
