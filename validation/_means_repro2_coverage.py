"""Coverage of the two-group repro-samples interval with the joint statistic (``mean2_repro_test``).

``mean2_repro_test(..., statistic='joint')`` (the default) ranks the pair of released
clipped sums: each group's repro-samples p-value (its own seeds, the released law
simulated exactly) and the smaller of the two Sidak-combined; the p-value for the
difference is the supremum over the nuisance ``mu2``, computed exactly from the seeds'
roots.  This study draws ``--reps`` pairs of data sets per point under the model
(normal data, sigma known), releases each group with ``MeanReleaser`` (seeded path),
and computes the package's two-sided 95% interval for ``mu1 - mu2`` from ``R``
seeds per group (``--n-sim``; 1999 by default, the function's default; 399 with
``--quick``), by the kernels ``mean2_repro_test`` itself calls.

Points (``n`` per group, bounds, means, sigma, epsilon per release; ``spread``: the
release also holds the squares, so the sum gets half the epsilon):

* ``docs``: the example of ``docs/means.rst`` (150 per group, [90, 170], means 128 and
  136, sigma 14, epsilon 1 with the spread);
* ``both_tails``: 100 per group, [-1, 1], means 0 and 0.3, sigma 1, epsilon 1 (16-27%
  clipped at each bound);
* ``small_n``: 50 per group, [0, 3], means 1.5 and 1.5, sigma 1.5, epsilon 0.5 (16% at
  each bound);
* ``narrow``: 200 per group, [120, 140], means 125 and 135, sigma 15, epsilon 2 (a
  third or more clipped at one bound, 16% or more at the other).

Columns: ``coverage``, its Monte Carlo SE ``sqrt(c (1 - c) / reps)``, ``z`` = (coverage -
0.95) / sqrt(0.95 0.05 / reps), the misses on each side, ``finite`` the share of
intervals with both ends finite, and the median width.  Validity: coverage at or above
0.95 within 4 SE (``z > -4``).

Run: ``python -m validation._means_repro2_coverage [--quick]`` (1000 pairs per point by
default; 100 with ``--quick``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import means_release, means_repro2_set, means_repro_roots  # noqa: E402

LEVEL = 0.95
#: name: (n, lower, upper, mu1, mu2, sigma, epsilon, spread)
POINTS = {
    "docs": (150, 90.0, 170.0, 128.0, 136.0, 14.0, 1.0, True),
    "both_tails": (100, -1.0, 1.0, 0.0, 0.3, 1.0, 1.0, False),
    "small_n": (50, 0.0, 3.0, 1.5, 1.5, 1.5, 0.5, False),
    "narrow": (200, 120.0, 140.0, 125.0, 135.0, 15.0, 2.0, False),
}


def point(name, reps, r, seed):
    """The coverage row of one point: ``reps`` pairs of data sets, ``r`` seeds per group."""
    n, lower, upper, mu1, mu2, sigma, eps, spread = POINTS[name]
    data_gen, seed_gen = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    releaser = dpinfer.MeanReleaser(eps, lower, upper, spread=spread)
    roots = []
    clipped_share = []
    for k, mu in enumerate((mu1, mu2)):
        x = data_gen.normal(mu, sigma, (reps, n))
        clipped_share.append(float(np.mean((x < lower) | (x > upper))))
        data = means_release(releaser.release(x, rng=data_gen), "release", "validation")
        roots.append(means_repro_roots(data, sigma, "normal", r, seed_gen))
    truth = mu1 - mu2
    lows, highs = np.empty(reps), np.empty(reps)
    for i in range(reps):
        lows[i], highs[i] = means_repro2_set((roots[0][0][i], roots[0][1][i]), (roots[1][0][i], roots[1][1][i]),
                                             r, 1.0 - LEVEL, "two-sided")
    low_miss, high_miss = float(np.mean(lows > truth)), float(np.mean(highs < truth))
    cov = 1.0 - low_miss - high_miss
    finite = np.isfinite(lows) & np.isfinite(highs)
    return {"point": name, "n": n, "bounds": f"{lower:g}..{upper:g}", "delta": truth, "epsilon": eps,
            "clipped1": clipped_share[0], "clipped2": clipped_share[1], "reps": reps, "R": r,
            "coverage": cov, "mc_se": math.sqrt(cov * (1 - cov) / reps),
            "z": (cov - LEVEL) / math.sqrt(LEVEL * (1 - LEVEL) / reps), "low_miss": low_miss,
            "high_miss": high_miss, "finite": float(np.mean(finite)),
            "median_width": float(np.median(highs[finite] - lows[finite])) if finite.any() else math.inf}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 pairs per point and R = 399")
    parser.add_argument("--reps", type=int, default=None, help="pairs of data sets per point (default 1000)")
    parser.add_argument("--n-sim", type=int, default=None, help="seeds per group (default 1999)")
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args(argv)
    reps = args.reps or (100 if args.quick else 1000)
    r = args.n_sim or (399 if args.quick else 1999)
    keys = ("point", "n", "bounds", "delta", "epsilon", "clipped1", "clipped2", "reps", "R", "coverage", "mc_se",
            "z", "low_miss", "high_miss", "finite", "median_width")
    print(",".join(keys))
    worst = math.inf
    for k, name in enumerate(POINTS):
        start = time.perf_counter()
        row = point(name, reps, r, [args.seed, k])
        worst = min(worst, row["z"])
        print(",".join(f"{row[key]:.4g}" if isinstance(row[key], float) else str(row[key]) for key in keys)
              + f"  # {time.perf_counter() - start:.0f} s", flush=True)
    print(f"# smallest z = {worst:.2f} (valid: > -4)")
    return 0 if worst > -4 else 1


if __name__ == "__main__":
    sys.exit(main())
