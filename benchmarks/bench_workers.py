"""Speed-up of ``workers=2`` (two local processes) against ``workers=1`` (issue 43).

Run: ``python benchmarks/bench_workers.py [--pairs 1024] [--n-sim 10000]``.

One simulation-heavy call, timed three ways in the same run: a sweep of DP-JIMI
two-sample tests, ``binom2_jimi_test`` on ``--pairs`` released pairs (n = 200 per group,
epsilon = 1 each) with ``--n-sim`` draws per group, i.e. the DP-JIMI column of a size or
power study.  Baseline: ``workers=1`` (the same fixed blocks of 64 pairs, in this
process).  Printed: ``workers=None`` (the serial stream of earlier releases), ``workers=1``
and ``workers=2`` with their times and the ratio ``t(1) / t(2)``, and whether ``workers=1``
and ``workers=2`` gave the same p-values bit for bit (they must).  The two-process time
includes starting the pool (forkserver) and importing dpinfer in each worker, about a
second; the ratio approaches the number of free cores as the call grows.

On the shared 2-core machine other sessions compete for the cores, so the measured ratio
is a lower bound of what two idle cores give.  No assertion: speed is evidence, not a test.
"""

import argparse
import time

import numpy as np

from dpinfer import LaplaceReleaser, binom2_jimi_test


def releases(pairs, n=200, seed=43):
    gen = np.random.default_rng(seed)
    rel = LaplaceReleaser(epsilon=1.0)
    x1, x2 = gen.binomial(n, 0.35, size=pairs), gen.binomial(n, 0.3, size=pairs)
    p1 = np.array([rel.proportion(int(x), n, rng=gen).value for x in x1])
    p2 = np.array([rel.proportion(int(x), n, rng=gen).value for x in x2])
    return p1, p2, n


def timed(func):
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1024)
    parser.add_argument("--n-sim", type=int, default=10_000, dest="n_sim")
    args = parser.parse_args(argv)
    p1, p2, n = releases(args.pairs)

    def call(workers):
        return binom2_jimi_test(p1, n, p2, n, epsilon=1.0, n_sim=args.n_sim, rng=1, workers=workers)

    t_none, _ = timed(lambda: call(None))
    t_one, one = timed(lambda: call(1))
    t_two, two = timed(lambda: call(2))
    print(f"binom2_jimi_test on {args.pairs} released pairs, n_sim = {args.n_sim} per group")
    print(f"  workers=None (serial stream)   {t_none:7.2f} s")
    print(f"  workers=1    (baseline)        {t_one:7.2f} s")
    print(f"  workers=2    (two processes)   {t_two:7.2f} s   speed-up t(1)/t(2) = {t_one / t_two:.2f}")
    print(f"  same p-values, workers=1 and 2: {bool(np.array_equal(one, two))}")


if __name__ == "__main__":
    main()
