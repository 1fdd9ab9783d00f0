"""Throughput of ``logistic_jimi`` against a naive per-draw loop (same run, same machine).

Run: ``python benchmarks/bench_logistic.py [--n-sim H] [--naive K]``.

For three designs (2 x 2 main effects, 3 x 2 main effects, 2 x 2 saturated) prints the
time of one ``logistic_jimi`` call with ``n_sim = H`` (default 1e4) and the ratio
against the textbook loop, measured on K draws (default 200) and extrapolated to H:
one Python iteration per draw (fresh Laplace noise per cell, one Beta draw per cell,
then a plain numpy Newton fit of the weighted logistic model for that draw alone).

No assertion: speed is evidence, not a test.
"""

import argparse
import time

import numpy as np
from scipy import special

from dpinfer import logistic_jimi
from dpinfer.inference._studies import design_matrix

DESIGNS = {
    "2 x 2, main effects": ((("a", ("0", "1")), ("b", ("0", "1"))), "main-effects"),
    "3 x 2, main effects": ((("a", ("1", "2", "3")), ("b", ("0", "1"))), "main-effects"),
    "2 x 2, saturated": ((("a", ("0", "1")), ("b", ("0", "1"))), "saturated"),
}


def naive(z, b, x, n_draws, gen):
    """One Python iteration per draw: noise, Beta draws, a per-draw Newton fit."""
    out = []
    for _ in range(n_draws):
        c = np.maximum(z - gen.laplace(0.0, b, size=z.shape), 0.0)
        theta = np.array([gen.beta(c1 + 0.5, c0 + 0.5) for c0, c1 in c])
        w = c.sum(axis=1) + 1.0
        beta = np.zeros(x.shape[1])
        for _ in range(50):
            p = special.expit(x @ beta)
            step = np.linalg.solve(x.T @ (x * (w * p * (1 - p))[:, None]), x.T @ (w * (theta - p)))
            beta += step
            if np.max(np.abs(step)) < 1e-10:
                break
        out.append(beta)
    return np.quantile(np.array(out), [0.025, 0.975], axis=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-sim", type=int, default=10_000)
    parser.add_argument("--naive", type=int, default=200)
    args = parser.parse_args(argv)
    gen = np.random.default_rng(1)
    for label, (factors, model) in DESIGNS.items():
        names = tuple(f for f, _ in factors)
        levels = tuple(v for _, v in factors)
        x, _ = design_matrix(names, levels, model)
        z = gen.uniform(20, 80, size=(x.shape[0], 2))
        design = {f: list(v) for f, v in factors}
        logistic_jimi(z, design=design, model=model, epsilon=1.0, n_sim=100, rng=0)  # warm-up
        t0 = time.perf_counter()
        logistic_jimi(z, design=design, model=model, epsilon=1.0, n_sim=args.n_sim, rng=0)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        naive(z, 2.0, x, args.naive, gen)
        base = (time.perf_counter() - t0) / args.naive * args.n_sim
        print(f"{label:22s} logistic_jimi {ours * 1e3:8.1f} ms   naive loop {base * 1e3:9.1f} ms "
              f"(extrapolated from {args.naive} draws)   speed-up {base / ours:6.1f}x")


if __name__ == "__main__":
    main()
