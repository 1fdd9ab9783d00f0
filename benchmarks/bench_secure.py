"""Speed of the hardened (OS bits) release path against the seeded one and numpy's float sampler.

Run: ``python benchmarks/bench_secure.py [--n N] [--repeat R]``.  Every ratio is
measured in the same run on the same machine: the hardened ``TulapReleaser``
release of N counts (exact integer noise from ``os.urandom``) against (a) the
seeded release of the same N counts (the same exact sampler on a numpy
Generator's bits) and (b) ``Tulap.sample`` of N draws (numpy's floating-point
sampler: the baseline the issue names, "a seeded draw of the same size").  The
goal (issue 14) is at most 20x (b) for 10**6 draws at epsilon = 1.  Also: the
truncated law at epsilon = 1e-4, delta = 0.5 (acceptance 1 - q would be 1e-4 for
plain rejection) and the Laplace proportion.  No assertion: speed is evidence,
not a test.
"""

import argparse
import time

import numpy as np

from dpinfer import LaplaceReleaser, Tulap, TulapReleaser


def best_time(func, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="draws per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best is kept")
    args = parser.parse_args(argv)
    n, repeat = args.n, args.repeat
    counts = np.full(n, 11)
    rows = []
    for label, epsilon, delta in (("Tulap, epsilon = 1", 1.0, 0.0), ("Tulap, epsilon = 0.1", 0.1, 0.0),
                                  ("Tulap, epsilon = 1, delta = 0.01", 1.0, 0.01),
                                  ("Tulap, epsilon = 1e-4, delta = 0.5", 1e-4, 0.5)):
        rel = TulapReleaser(epsilon, delta)
        law = Tulap.from_privacy(epsilon, delta)
        float_draw = best_time(lambda: law.sample(n, rng=1), repeat)
        seeded = best_time(lambda: rel.release(counts, 30, rng=1), repeat)
        hardened = best_time(lambda: rel.release(counts, 30), repeat)
        rows.append((label, hardened, seeded, float_draw))
    lap = LaplaceReleaser(1.0)
    gen = np.random.default_rng(1)
    float_draw = best_time(lambda: gen.laplace(0.0, 1.0 / 30, size=n), repeat)
    seeded = best_time(lambda: lap.proportion(counts, 30, rng=1), repeat)
    hardened = best_time(lambda: lap.proportion(counts, 30), repeat)
    rows.append(("Laplace proportion, epsilon = 1", hardened, seeded, float_draw))

    print(f"{n} releases per run, best of {repeat}")
    print(f"{'release':36s} {'hardened s':>11s} {'/ seeded':>9s} {'/ float':>8s}  verdict (<= 20x float)")
    for label, hardened, seeded, float_draw in rows:
        ratio = hardened / float_draw
        verdict = "met" if ratio <= 20 else "NOT met"
        print(f"{label:36s} {hardened:11.3f} {hardened / seeded:9.2f} {ratio:8.1f}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
