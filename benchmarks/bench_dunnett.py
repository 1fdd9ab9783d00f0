"""Cost of certifying the Dunnett-type supremum against locating it, in the same run.

Run: ``python benchmarks/bench_dunnett.py``.

``binom_many_to_one_test`` reports, per arm, the supremum over the common rate of an exact tail.
Until this round it was located (a 65-point grid and Brent's method); now the located value is
certified (``dpinfer/inference/pairs/_dunnett.py``: curvature-bounded cells refined until every
bound is within 1e-9 relative of the best value).  Printed per setting: the located time (the
baseline), the certified time, their ratio and the relative gap between the bound and the
located value.  No assertion: speed is evidence, not a test.
"""

import time

from dpinfer.inference.pairs._dunnett import certified_sup_max_tail, located_sup_max_tail, max_tail

SETTINGS = [
    # arms, control, epsilon, margin, statistic, two-sided
    ([100, 100], 100, 1.0, 0.0, 1.0, True),
    ([20, 40], 30, 2.0, 0.0, 1.2, False),
    ([50] * 5, 60, 0.5, 0.0, 0.8, True),
    ([200, 150], 180, 1.0, -0.05, 2.0, True),
]


def timed(func, *args):
    start = time.perf_counter()
    out = func(*args)
    return out, time.perf_counter() - start


def main():
    max_tail([10, 10], 10, [1.0] * 3, 0.5, 0.0, 1.0, True)  # warm up (imports, caches)
    print(f"{'setting':<44} {'located s':>10} {'certified s':>12} {'ratio':>6} {'gap':>9}")
    for arms, control, eps, margin, u, two in SETTINGS:
        args = (arms, control, [eps] * (len(arms) + 1), margin, u, two)
        (located, _), t_loc = timed(located_sup_max_tail, *args)
        (bound, _), t_cert = timed(certified_sup_max_tail, *args)
        name = f"K={len(arms)} n={arms[0]} n0={control} eps={eps:g} margin={margin:g}"
        print(f"{name:<44} {t_loc:>10.3f} {t_cert:>12.3f} {t_cert / t_loc:>6.1f} {(bound - located) / located:>9.1e}")


if __name__ == "__main__":
    main()
