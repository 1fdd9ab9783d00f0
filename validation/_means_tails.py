"""The numbers behind DP-JIMI's mean warnings: each end's miss rate of the 95% interval, and its coverage.

Part of the ``means`` study.  For each model under its own truth (``normal``:
N(100, 15**2) with the normal model; ``lognormal``: exp(N(0, 0.6**2)) with the
log-normal model), bounds set by ``validation._means_truths.truth_of``, and each
point below, ``reps`` data sets are released by the seeded path of
``MeanReleaser(epsilon, lower, upper, spread=True)`` (budget split half and half)
and each gets the two-sided 95% :func:`dpinfer.mean_jimi_test` interval (199 draws;
the study's kernel ``means_draws``), with the spread released and, at some points,
with the truth's sigma given (``spread = 'known'``: exact up to Monte Carlo error, a
check).

The grid (:func:`points`): n in {30, 80, 100, 500}, epsilon in {0.5, 1, 3} (n = 100 added
later, so that the warning's lookup reads an n = 100 row from n = 100 to 499 instead of
the n = 80 one; each point's seed is its own, so the earlier rows are unchanged); bounds
(columns ``clip_upper``, ``clip_lower``, ``lower_sd``)

* clipping 0 (the 0.9999 quantile), 20%, 30% or 40% above, the lower bound
  ``mu - 4 sigma`` (clipping nothing);
* clipping 30% or 40% above with the lower bound ``mu - 6 sigma``: wider bounds, so
  more noise for the same epsilon (issue 40's setting, ``MeanReleaser(0.5, 10,
  107.866, spread=True)`` at N(100, 15**2), is 30% above with ``lower_sd = 6``);
* clipping both tails, 20% + 20%;
* sigma known (the check): 30% above, ``lower_sd = 6``.

The log-normal model: n in {30, 100}, clipping 0, 5%, 20%, 30% or 40% above (lower
bound 0), 1000 data sets.  Normal: 2000 data sets per point at n <= 100, 1000 at
n = 500.  The two-group counterpart, ``validation/_means_tails_two_group.py``, measures
:func:`dpinfer.mean2_jimi_test` the same way and writes its rows of the same table.

**CSV columns** (``means_tails_simulate.csv``; read by the warning table below and
by the planning guide): ``truth``, ``model`` (the model DP-JIMI fits), ``n``,
``epsilon`` (total; ``split`` the sum's share), ``clip_upper`` and ``clip_lower``
(the truth's share beyond each bound), ``lower_sd`` (``(mu - lower) / sigma`` when
the lower bound clips nothing; empty for the log-normal), ``lower``, ``upper`` (the
bounds), ``spread`` (``'released'``: the released squares used; ``'known'``: the
truth's sigma given), ``reps`` (data sets), ``n_sim`` (draws per interval),
``coverage`` (of the population mean by the two-sided 95% interval), ``mc_se`` (its
Monte Carlo SE, ``sqrt(c (1 - c) / reps)``), ``low_miss`` (share of data sets whose
lower end lies above the mean; nominal 0.025), ``high_miss`` (upper end below it),
``tail_se_at_nominal`` (``sqrt(0.025 0.975 / reps)``), ``median_length`` (of the
interval; infinite ends count as infinitely long), ``near_share`` (share of data
sets whose released clipped mean lies in the outer quarter of the bounds,
``min(m - lower, upper - m) < 0.25 (upper - lower)``), and for those data sets and
the others ``reps_near``, ``coverage_near``, ``low_miss_near``, ``high_miss_near``,
``reps_far``, ``coverage_far``, ``low_miss_far``, ``high_miss_far`` (empty when no
data set is in the group: the error rates *given* where the release fell; not used
by the warning, see ``dpinfer/inference/means/_approx.py``), ``seconds`` (CPU time
of the point, informative only).

The run behind the package's table is kept in ``validation/results/means_tails_simulate.csv``
(the planning guide reads it too).

**The warning table.**  ``--table`` then writes
``dpinfer/inference/means/_spread_table.py`` from the CSV (spread released rows
only; ``--from-csv CSV`` writes it from an earlier run's CSV without measuring; the
two-group table ``SPREAD2_RATES`` in the same module from the two-group part's kept CSV):
for each (model, n, epsilon) the worst one-sided miss rate (``low_miss`` or
``high_miss``) and the worst coverage over the bounds studied, with where they
occurred.  That table is what ``dpinfer/inference/means/_approx.py``'s rule judges.

Run: ``python -m validation._means_tails [--out DIR] [--workers K] [--table]``
(126 points; about 15 min of CPU for the first 102, 16 min on 2 busy cores with
``--workers 2``, and 2.5 min for the 24 at n = 100; seeded, each point from ``SeedSequence(20261128,
spawn_key=point_key(point))``, a key made of the point's own settings, so a point's
result does not depend on the others).  ``--quick`` measures two points with 200
data sets (a smoke test).
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import (  # noqa: E402
    means_bounds,
    means_draws,
    means_release,
    means_tails,
)
from validation._means_tables import (  # noqa: E402,F401 (re-exported)
    KEPT_CSV, TABLE_PATH, grid, table_rows, tails_arguments, write_table)
from validation._means_truths import TRUTHS, truth_of  # noqa: E402

SEED = 20261128
N_SIM = 199
LEVEL = 0.95
NS = (30, 80, 100, 500)
LOGNORMAL_NS = (30, 100)
EPSILONS = (0.5, 1.0, 3.0)
#: (clip above, clip below, lower bound in sd below the mean when it clips nothing)
NORMAL_BOUNDS = ((0.0, 0.0, 4.0), (0.2, 0.0, 4.0), (0.3, 0.0, 4.0), (0.4, 0.0, 4.0), (0.3, 0.0, 6.0),
                 (0.4, 0.0, 6.0), (0.2, 0.2, 4.0))
LOGNORMAL_BOUNDS = ((0.0, 0.0, 4.0), (0.05, 0.0, 4.0), (0.2, 0.0, 4.0), (0.3, 0.0, 4.0), (0.4, 0.0, 4.0))
#: the bounds at which the sigma-known check runs (every n and epsilon)
KNOWN_BOUNDS = ((0.3, 0.0, 6.0),)
#: a released clipped mean within this share of the bounds' width from one is "near" it (columns ``*_near``)
EDGE = 0.25


def points():
    """The measured points ``(truth, model, n, epsilon, clip_upper, clip_lower, lower_sd, spread, reps)``."""
    return grid(NS, LOGNORMAL_NS, EPSILONS, NORMAL_BOUNDS, KNOWN_BOUNDS, LOGNORMAL_BOUNDS)


def point_key(point):
    """The point's seed key: its own settings as integers (independent of the list's order)."""
    truth, model, n, eps, up, low, sd, spread, reps = point
    return (("normal", "lognormal").index(truth), n, round(eps * 100), round(up * 100), round(low * 100),
            round(sd * 10), ("released", "known").index(spread), reps)


def _rates(lo, hi, mean, mask):
    """``(data sets, coverage, low_miss, high_miss)`` among the data sets of ``mask`` (None for the rates if none)."""
    k = int(np.sum(mask))
    if k == 0:
        return 0, None, None, None
    low, high = float(np.mean(lo[mask] > mean)), float(np.mean(hi[mask] < mean))
    return k, 1.0 - low - high, low, high


def tail_point(point, n_sim=N_SIM):
    """The CSV row of one point (see the module notes), seeded by :func:`point_key`."""
    truth, model, n, eps, up, low, sd, spread, reps = point
    start = time.process_time()
    gen = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=point_key(point)))
    mean, lower, upper, sample = truth_of(truth, up, low, sd)
    x = sample(gen, (reps, n))
    rel = dpinfer.MeanReleaser(eps, lower, upper, spread=True).release(x, rng=gen)
    data = means_release(rel, "release", "validation.means")
    position = (np.asarray(data.sum, dtype=float) / n - lower) / (upper - lower)
    near = np.minimum(position, 1.0 - position) < EDGE  # the released clipped mean near a bound
    sigma = TRUTHS[truth][1] if spread == "known" else None
    lo, hi = means_bounds(means_draws(data, sigma, model, n_sim, gen), means_tails(LEVEL, "two-sided"))
    _, cover, low_miss, high_miss = _rates(lo, hi, mean, np.ones(reps, bool))
    with np.errstate(invalid="ignore"):  # an interval with an infinite end is infinitely long
        length = np.where(np.isinf(lo) | np.isinf(hi), np.inf, hi - lo)
    se = lambda p: float(np.sqrt(p * (1.0 - p) / reps))  # noqa: E731
    row = {"truth": truth, "model": model, "n": n, "epsilon": eps, "split": 0.5, "clip_upper": up,
           "clip_lower": low, "lower_sd": sd if truth == "normal" and low == 0 else None, "lower": lower,
           "upper": upper, "spread": spread, "reps": reps, "n_sim": n_sim, "coverage": cover,
           "mc_se": se(cover), "low_miss": low_miss, "high_miss": high_miss,
           "tail_se_at_nominal": se(0.025), "median_length": float(np.median(length)),
           "near_share": float(np.mean(near))}
    for tag, mask in (("near", near), ("far", ~near)):
        row.update(zip((f"reps_{tag}", f"coverage_{tag}", f"low_miss_{tag}", f"high_miss_{tag}"),
                       _rates(lo, hi, mean, mask)))
    row["seconds"] = round(time.process_time() - start, 2)
    return row


def main(argv=None):
    from validation import harness

    args = tails_arguments(__doc__.splitlines()[0], argv, "data sets")
    if args.from_csv is not None:
        print("wrote", write_table(harness.read_csv(args.from_csv)[1], args.from_csv))  # two groups: the kept run
        return 0
    todo = points()
    if args.quick:
        todo = [p[:-1] + (200,) for p in todo if p[2] == 80 and p[3] == 0.5 and p[4] == 0.3 and p[6] == 6.0]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / ("means_tails_simulate_quick.csv" if args.quick else "means_tails_simulate.csv")
    with cf.ProcessPoolExecutor(args.workers) if args.workers > 1 else _Local() as pool:
        rows = []
        for row in pool.map(tail_point, todo):
            rows.append(row)
            print({k: row[k] for k in ("model", "n", "epsilon", "clip_upper", "clip_lower", "lower_sd", "spread",
                                       "coverage", "low_miss", "high_miss", "seconds")}, flush=True)
    harness.write_csv(path, rows, {"study": "means_tails", "seed": SEED, "n_sim": N_SIM, "level": LEVEL,
                                   "quick": args.quick})
    if args.table:
        print("wrote", write_table(rows, path))
    return 0


class _Local:
    """The in-process stand-in for a pool (``map`` only)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, func, items):
        return map(func, items)


if __name__ == "__main__":
    sys.exit(main())
