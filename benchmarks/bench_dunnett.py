"""Cost of certifying the Dunnett-type supremum over theta_0, against the located supremum.

Run: ``python benchmarks/bench_dunnett.py`` (about a minute).

The baseline is measured in the same run: the located supremum (65-point grid and Brent,
``certify=False``, the value printed before the certificate) of the same tail.  Each line
prints the setting, the located and certified values, their relative difference, both times
and the ratio.  Times are one run each (the certified one repeats the located search first).
"""

from __future__ import annotations

import time

from dpinfer.inference.pairs._dunnett import sup_max_tail

CASES = [  # arms, control, epsilons, margin, u, two-sided
    ((30, 30, 30), 30, [1.0] * 4, 0.0, 1.5, False),
    ((30, 30, 30), 30, [1.0] * 4, 0.0, 2.0, True),
    ((20,) * 5, 30, [0.1] * 6, 0.0, 1.0, True),
    ((60, 30), 45, [0.5] * 3, 0.05, 1.8, False),
    ((100, 100), 100, [5.0] * 3, 0.0, 2.2, False),
]


def main():
    for case in CASES:
        start = time.perf_counter()
        located = sup_max_tail(*case, certify=False)
        t_loc = time.perf_counter() - start
        start = time.perf_counter()
        certified = sup_max_tail(*case)
        t_cert = time.perf_counter() - start
        arms, n0, eps, margin, u, two = case
        print(f"arms {arms} vs {n0}, eps {eps[0]}, margin {margin}, u {u}, {'two' if two else 'one'}-sided: "
              f"located {located:.15g}, certified {certified:.15g} (+{(certified - located) / located:.2e} rel); "
              f"{t_loc:.2f} s vs {t_cert:.2f} s: {t_cert / t_loc:.1f}x")


if __name__ == "__main__":
    main()
