"""Throughput of the Tulap sampler against numpy's Laplace sampler (same run, same machine).

Run: ``python benchmarks/bench_tulap.py [--n N] [--repeat R]``.  Prints draws per
second (best of R runs of N draws) for the untruncated law (q = 0), the truncated
law through the public sampler (rejection for q <= 0.35, inversion above) and through
pure inversion (the previous method), each with its ratio to
``numpy.random.Generator.laplace``.  No assertion: speed is evidence, not a test.
"""

import argparse
import time

import numpy as np

from dpinfer import Tulap
from dpinfer.distributions._tulap_law import quantile


def best_rate(func, n, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return n / best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2_000_000, help="draws per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs; the best is kept")
    args = parser.parse_args(argv)
    n, repeat = args.n, args.repeat
    gen = np.random.default_rng(20261121)

    base = best_rate(lambda: gen.laplace(0.0, 1.0, size=n), n, repeat)
    print(f"numpy Generator.laplace: {base:12.3e} draws/s (baseline)")
    print(f"{'law':44s} {'draws/s':>12s} {'/ laplace':>10s}")
    cases = [(1.0, 0.0), (1.0, 1e-6), (1.0, 0.01), (0.5, 0.2), (0.1, 0.05), (0.1, 0.2)]
    for epsilon, delta in cases:
        law = Tulap.from_privacy(epsilon, delta)
        rate = best_rate(lambda law=law: law.sample(n, rng=gen), n, repeat)
        label = f"sample  epsilon={epsilon:<4} delta={delta:<6g} q={law.q:.3g}"
        print(f"{label:44s} {rate:12.3e} {rate / base:10.2f}")
        if law.q > 0:
            inv = best_rate(
                lambda law=law, log_b=-epsilon: law.median + quantile(gen.random(n), log_b, law.q), n, repeat
            )
            label = f"  inversion only (previous method)"
            print(f"{label:44s} {inv:12.3e} {inv / base:10.2f}")


if __name__ == "__main__":
    main()
