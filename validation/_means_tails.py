"""The numbers behind DP-JIMI's mean warnings: each end's miss rate of the 95% interval, spread released.

For each model under its own truth (``normal``: N(100, 15**2) with the normal
model; ``lognormal``: exp(N(0, 0.6**2)) with the log-normal model), the bounds of
``validation._means_truths.truth_of`` (clip 0, 0.05 or 0.2 above), n in {30, 100, 500},
epsilon in {0.5, 1, 3}: the share of two-sided 95% :func:`dpinfer.mean_jimi_test`
intervals (199 draws; the study's kernel, ``means_draws``) whose lower end lies above
the population mean (``low_miss``) and whose upper end lies below it
(``high_miss``), nominal 0.025 each, over 2000 data sets per point (the log-normal
model 1000, at n = 30 and 100 only).  The worst ``low_miss`` or
``high_miss`` per (model, n) is what ``dpinfer/inference/means/_approx.py`` holds
(``SPREAD_TAILS``) and what its warning rule judges.

Run: ``python -m validation._means_tails [OUT.csv]`` (about 5 min of CPU; seeded, the
point ``i`` of the list below drawing from ``SeedSequence(20261125, spawn_key=(i,))``).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import means_bounds, means_draws, means_release, means_tails  # noqa: E402
from validation._means_truths import truth_of  # noqa: E402

SEED = 20261125
N_SIM = 199


def points():
    """The measured points ``(truth, model, n, epsilon, clip, reps)``, in seed order."""
    out = []
    for truth, model in (("normal", "normal"), ("lognormal", "lognormal")):
        for n in (30, 100, 500):
            for eps in (0.5, 1.0, 3.0):
                for clip in (0.0, 0.05, 0.2):
                    reps = 2000 if truth == "normal" else (1000 if n < 500 else 0)
                    if reps:
                        out.append((truth, model, n, eps, clip, reps))
    return out


def tail_point(truth, model, n, eps, clip, reps, seed_sequence, n_sim=N_SIM):
    """``(low_miss, high_miss)`` of the 95% DP-JIMI interval at one point (spread released)."""
    gen = np.random.default_rng(seed_sequence)
    mean, lower, upper, sample = truth_of(truth, clip)
    x = sample(gen, (reps, n))
    rel = dpinfer.MeanReleaser(eps, lower, upper, spread=True).release(x, rng=gen)
    data = means_release(rel, "release", "validation.means")
    lo, hi = means_bounds(means_draws(data, None, model, n_sim, gen), means_tails(0.95, "two-sided"))
    return float(np.mean(lo > mean)), float(np.mean(hi < mean))


def main(argv=None):
    from validation import harness

    argv = sys.argv[1:] if argv is None else list(argv)
    path = Path(argv[0]) if argv else harness.DEFAULT_OUT / "means_tails_simulate.csv"
    rows = []
    for i, (truth, model, n, eps, clip, reps) in enumerate(points()):
        low, high = tail_point(truth, model, n, eps, clip, reps, np.random.SeedSequence(SEED, spawn_key=(i,)))
        cover = 1.0 - low - high
        rows.append({"truth": truth, "model": model, "n": n, "epsilon": eps, "clip": clip, "reps": reps,
                     "n_sim": N_SIM, "coverage": cover, "mc_se": float(harness.mc_se(cover, reps)),
                     "low_miss": low, "high_miss": high, "tail_se_at_nominal": float(harness.mc_se(0.025, reps))})
        print(rows[-1], flush=True)
    harness.write_csv(path, rows, {"study": "means_tails", "seed": SEED, "n_sim": N_SIM, "level": 0.95})
    return 0


if __name__ == "__main__":
    sys.exit(main())
