"""Cost of the non-private comparators of the planning results (issue 41, item 2).

Run: ``python benchmarks/bench_price.py``.

Baseline, measured in the same run: the private sample-size search itself
(``binom2_ump_sample_size`` / ``binom_ump_sample_size``, which returns before any comparator
is computed: they are computed when first read).  Printed per case: that time, the time of
reading the comparators (``result.comparators``: the search of the same test without noise,
started from the private answer less the normal model's noise cost, and the closed-form
normal approximation), and their ratio.  The goal of the issue's assignment: the
comparators must not double the planning time (ratio below 1).  Best of 2 repeats, each
on a fresh call (the comparators are cached per result).

No assertion: speed is evidence, not a test.
"""

import time

from dpinfer import binom2_ump_sample_size, binom_ump_sample_size

CASES = [
    ("two arms 0.35 v 0.20, difference", binom2_ump_sample_size, (0.35, 0.20), dict(statistic="difference")),
    ("two arms 0.35 v 0.20, score", binom2_ump_sample_size, (0.35, 0.20), dict(statistic="score")),
    ("two arms 0.60 v 0.40, score", binom2_ump_sample_size, (0.60, 0.40), dict(statistic="score")),
    ("two arms 0.30 v 0.10, score", binom2_ump_sample_size, (0.30, 0.10), dict(statistic="score")),
    ("two arms 0.35 v 0.20, eps 0.5", binom2_ump_sample_size, (0.35, 0.20), dict(epsilon=0.5)),
    ("two arms 0.35 v 0.20, ratio 2", binom2_ump_sample_size, (0.35, 0.20), dict(ratio=2.0)),
    ("two arms 0.52 v 0.50, n ~ 1e4", binom2_ump_sample_size, (0.52, 0.50), dict(statistic="difference")),
    ("one arm 0.40 v 0.20", binom_ump_sample_size, (0.40, 0.20), {}),
    ("one arm 0.21 v 0.20 (n ~ 1e4)", binom_ump_sample_size, (0.21, 0.20), {}),
]


def _best(case):
    _, fn, args, kw = case
    kw = {"epsilon": 1.0, **kw}
    plan, compare = [], []
    for _ in range(2):
        t = time.perf_counter()
        result = fn(*args, **kw)
        plan.append(time.perf_counter() - t)
        t = time.perf_counter()
        result.comparators  # noqa: B018 -- computed on first read
        compare.append(time.perf_counter() - t)
    return result, min(plan), min(compare)


def main():
    print(f"{'case':<34} {'answer':>14} {'no noise':>14} {'plan s':>8} {'compare s':>10} {'ratio':>6}")
    for case in CASES:
        result, plan, compare = _best(case)
        answer = result if isinstance(result, tuple) else (int(result),)
        plain = result.nonprivate_n if isinstance(result, tuple) else (result.nonprivate_n,)
        print(f"{case[0]:<34} {str(tuple(answer)):>14} {str(tuple(plain)):>14} {plan:8.3f} {compare:10.3f} "
              f"{compare / plan:6.2f}")


if __name__ == "__main__":
    main()
