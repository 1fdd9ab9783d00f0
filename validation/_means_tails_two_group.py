"""The numbers behind two-group DP-JIMI's warnings: the difference's 95% interval under heavy clipping.

Part of the ``means`` study, beside the one-group tails part (``validation/_means_tails.py``,
whose table generator writes this part's table too).  For each point below, ``reps``
pairs of independent groups of ``n`` each are released by the seeded path of
``MeanReleaser(epsilon, lower, upper, spread=True)`` with the same public bounds
(budget split half and half), and each pair gets :func:`dpinfer.mean2_jimi_test`'s
two-sided 95% interval for ``mean1 - mean2`` (199 draws per group, through the
study's kernel ``means_draws``: the test's own draws, batched over the data sets,
no Python loop per data set), with the spread released and, at some points, with the
truth's sigma given (``spread = 'known'``: each group's draws exact up to Monte Carlo
error, a check).  The size is that of the two-sided level-0.05 test of the true
difference (``margin`` the truth's ``mean1 - mean2``), from the test's p-value.

The grid (:func:`points`): n per group in {30, 80, 500}, epsilon per group in {0.5, 1, 3};

* ``groups = 'equal'`` (the same law in both groups; columns ``clip_upper`` =
  ``clip_upper2``): the normal truth N(100, 15**2) clipped 0 (the 0.9999 quantile),
  20%, 30% or 40% above with the lower bound ``mu - 4 sigma``; 30% or 40% above with the
  lower bound ``mu - 6 sigma`` (issue 40's geometry); 20% in each tail;
* ``groups = 'unequal'`` (group 1 shifted up, so clipped more: its law is N(100 + s, 15**2)
  with ``s`` chosen so that it is clipped ``clip_upper`` above while group 2 is clipped
  ``clip_upper2``): 40% against 20%, and 30% against 10%, lower bound 4 sd below group 2's
  mean; the true difference is ``s``;
* the log-normal model on log-normal data exp(N(0, 0.6**2)) in both groups, n in {30,
  80}: 0%, 20% or 40% clipped above (lower bound 0);
* sigma known (the check): equal groups, 30% above, lower bound 6 sd below.

2000 pairs per point at n <= 80 with the normal model, 1000 at n = 500 and for the
log-normal model.  Seeded: each point from ``SeedSequence(SEED, spawn_key=point_key(point))``,
a key made of the point's own settings.

**CSV columns** (``means_tails_two_group_simulate.csv``): ``truth``, ``model``, ``n``
(per group), ``epsilon`` (per group; ``split`` the sum's share), ``groups``,
``clip_upper`` and ``clip_upper2`` (group 1's and group 2's share above the upper
bound), ``clip_lower`` (each group's share below the lower bound, equal groups only),
``lower_sd`` (``(mu2 - lower) / sigma`` when the lower bound clips nothing; empty for
the log-normal), ``lower``, ``upper``, ``delta`` (the true ``mean1 - mean2``),
``spread``, ``reps`` (pairs), ``n_sim`` (draws per group), ``coverage`` (of ``delta`` by
the two-sided 95% interval), ``mc_se`` (``sqrt(c (1 - c) / reps)``), ``low_miss``
(share of pairs whose lower end lies above ``delta``; nominal 0.025), ``high_miss``
(upper end below it), ``tail_se_at_nominal`` (``sqrt(0.025 0.975 / reps)``), ``size``
(rejection rate of the two-sided level-0.05 test of ``margin = delta``), ``size_se``
(``sqrt(0.05 0.95 / reps)``, at the nominal level), ``z_size`` (``(size - 0.05) /
size_se``), ``median_length``, ``seconds`` (CPU time, informative only).

**The warning table.**  ``--table`` then rewrites ``dpinfer/inference/means/_spread_table.py``
(both tables: this part's ``SPREAD2_RATES`` from this CSV, the one-group
``SPREAD_RATES`` from the kept one-group CSV) through ``validation._means_tables.write_table``:
per (model, n, epsilon), over the bounds and groups studied with the spread
released, the worst one-sided miss rate and the worst coverage, with where they
occurred; ``--from-csv CSV`` writes it from an earlier run's CSV without measuring.

Run: ``python -m validation._means_tails_two_group [--out DIR] [--workers K] [--table]``
(108 points; the kept run took 1197 s of CPU, about 22 min of wall time with ``--workers 2`` at
load 3 to 4).  ``--quick`` measures two points (n = 80, epsilon 0.5, equal groups 30%
clipped above with the lower bound 6 sd below, spread released and sigma known) with
200 pairs and writes ``means_tails_two_group_simulate_quick.csv`` and ``.png``.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import dpinfer  # noqa: E402
from dpinfer.inference._studies import (  # noqa: E402
    means_bounds,
    means_draws,
    means_pvalue,
    means_release,
    means_shares,
    means_tails,
)
from validation import _means_tables, _means_tails  # noqa: E402
from validation._means_tables import where2 as where  # noqa: E402
from validation._means_truths import TRUTHS, truth_of  # noqa: E402

SEED = _means_tails.SEED
N_SIM = _means_tails.N_SIM
LEVEL = 0.95
ALPHA = 0.05
NS = (30, 80, 500)
LOGNORMAL_NS = (30, 80)
EPSILONS = (0.5, 1.0, 3.0)
#: (groups, clip above of group 1, of group 2, clip below, lower bound in sd below group 2's mean)
NORMAL_SETTINGS = (("equal", 0.0, 0.0, 0.0, 4.0), ("equal", 0.2, 0.2, 0.0, 4.0), ("equal", 0.3, 0.3, 0.0, 4.0),
                   ("equal", 0.4, 0.4, 0.0, 4.0), ("equal", 0.3, 0.3, 0.0, 6.0), ("equal", 0.4, 0.4, 0.0, 6.0),
                   ("equal", 0.2, 0.2, 0.2, 4.0), ("unequal", 0.4, 0.2, 0.0, 4.0), ("unequal", 0.3, 0.1, 0.0, 4.0))
LOGNORMAL_SETTINGS = (("equal", 0.0, 0.0, 0.0, 4.0), ("equal", 0.2, 0.2, 0.0, 4.0), ("equal", 0.4, 0.4, 0.0, 4.0))
KNOWN_SETTINGS = (("equal", 0.3, 0.3, 0.0, 6.0),)
CSV_NAME = "means_tails_two_group_simulate.csv"
KEPT_CSV = _means_tables.KEPT_CSV2


def points():
    """The measured points ``(truth, model, n, epsilon, groups, clip1, clip2, clip_lower, lower_sd, spread, reps)``."""
    return _means_tables.grid(NS, LOGNORMAL_NS, EPSILONS, NORMAL_SETTINGS, KNOWN_SETTINGS, LOGNORMAL_SETTINGS)


def point_key(point):
    """The point's seed key: 2 (this part) then its own settings as integers (independent of the list's order)."""
    truth, model, n, eps, groups, c1, c2, low, sd, spread, reps = point
    return (2, ("normal", "lognormal").index(truth), n, round(eps * 100), ("equal", "unequal").index(groups),
            round(c1 * 100), round(c2 * 100), round(low * 100), round(sd * 10), ("released", "known").index(spread),
            reps)


def pair_of(truth, clip1, clip2, clip_lower=0.0, lower_sd=4.0):
    """``(delta, lower, upper, sampler1, sampler2)``: the two groups' truths under one pair of bounds.

    The bounds are group 2's (``truth_of(truth, clip2, ...)``); group 1 is group 2
    shifted up by ``s = sigma (z(1 - clip2) - z(1 - clip1))`` so that it is clipped
    ``clip1`` above (normal truth; equal groups otherwise), ``delta = s``.
    """
    _, lower, upper, sample = truth_of(truth, clip2, clip_lower, lower_sd)
    if clip1 == clip2:
        return 0.0, lower, upper, sample, sample
    if truth != "normal":
        raise ValueError("unequal groups are studied with the normal truth only")
    q = lambda c: 1.0 - (c if c > 0 else 1e-4)  # noqa: E731  (as truth_of)
    shift = TRUTHS[truth][1] * float(stats.norm.isf(1.0 - q(clip2)) - stats.norm.isf(1.0 - q(clip1)))
    return shift, lower, upper, (lambda gen, shape: sample(gen, shape) + shift), sample


def tail_point(point, n_sim=N_SIM):
    """The CSV row of one point (see the module notes), seeded by :func:`point_key`."""
    truth, model, n, eps, groups, c1, c2, low, sd, spread, reps = point
    start = time.process_time()
    gen = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=point_key(point)))
    delta, lower, upper, sample1, sample2 = pair_of(truth, c1, c2, low, sd)
    sigma = TRUTHS[truth][1] if spread == "known" else None
    draws = []
    for sample in (sample1, sample2):
        rel = dpinfer.MeanReleaser(eps, lower, upper, spread=True).release(sample(gen, (reps, n)), rng=gen)
        draws.append(means_draws(means_release(rel, "release", "validation.means"), sigma, model, n_sim, gen))
    with np.errstate(invalid="ignore"):  # inf - inf: an undefined draw, as mean2_jimi_test counts it
        diff = draws[0] - draws[1]
    lo, hi = means_bounds(diff, means_tails(LEVEL, "two-sided"))
    size = float(np.mean(means_pvalue(*means_shares(diff, delta), "two-sided") <= ALPHA))
    _, cover, low_miss, high_miss = _means_tails._rates(lo, hi, delta, np.ones(reps, bool))
    with np.errstate(invalid="ignore"):  # an interval with an infinite end is infinitely long
        length = np.where(np.isinf(lo) | np.isinf(hi), np.inf, hi - lo)
    se = lambda p: float(np.sqrt(p * (1.0 - p) / reps))  # noqa: E731
    return {"truth": truth, "model": model, "n": n, "epsilon": eps, "split": 0.5, "groups": groups,
            "clip_upper": c1, "clip_upper2": c2, "clip_lower": low,
            "lower_sd": sd if truth == "normal" and low == 0 else None, "lower": lower, "upper": upper,
            "delta": delta, "spread": spread, "reps": reps, "n_sim": n_sim, "coverage": cover, "mc_se": se(cover),
            "low_miss": low_miss, "high_miss": high_miss, "tail_se_at_nominal": se(0.025), "size": size,
            "size_se": se(ALPHA), "z_size": (size - ALPHA) / se(ALPHA), "median_length": float(np.median(length)),
            "seconds": round(time.process_time() - start, 2)}


def plot(rows, path):
    """Coverage of the difference's 95% interval against n: one panel per epsilon, one line per setting."""
    from validation import harness

    eps_grid = sorted({r["epsilon"] for r in rows})
    fig, axes = harness.new_figure(len(eps_grid), 1, panel_width=3.2, panel_height=2.6, sharey=True)
    for ax, eps in zip(axes, eps_grid):
        sel = [r for r in rows if r["epsilon"] == eps]
        for label in sorted({f"{r['model']}, {r['spread']}: {where(r)}" for r in sel}):
            pts = sorted((r for r in sel if f"{r['model']}, {r['spread']}: {where(r)}" == label),
                         key=lambda r: r["n"])
            ax.errorbar([r["n"] for r in pts], [r["coverage"] for r in pts], yerr=[2 * r["mc_se"] for r in pts],
                        marker="o", markersize=2.5, capsize=1.5, linewidth=0.9,
                        label=label if eps == eps_grid[0] else "_")
        harness.plot_nominal(ax, LEVEL, label="nominal 0.95" if eps == eps_grid[0] else "_")
        harness.log_axis(ax, sorted({r["n"] for r in sel}))
        harness.finish_axes(ax, title=f"epsilon = {eps:g} per group", xlabel="n per group",
                            ylabel="coverage" if eps == eps_grid[0] else None)
    harness.add_legend(fig, ncol=2)
    fig.suptitle("mean2_jimi_test under clipping: coverage of the 95% interval for the difference "
                 "(bars +/- 2 Monte Carlo SE)", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    from validation import harness

    args = _means_tables.tails_arguments(__doc__.splitlines()[0], argv, "pairs")
    if args.from_csv is not None:
        print("wrote", _means_tables.write_table(None, None, rows2=harness.read_csv(args.from_csv)[1],
                                                csv2_path=args.from_csv))
        return 0
    todo = points()
    if args.quick:
        todo = [p[:-1] + (200,) for p in todo
                if p[2] == 80 and p[3] == 0.5 and p[4] == "equal" and p[5] == 0.3 and p[8] == 6.0]
    args.out.mkdir(parents=True, exist_ok=True)
    stem = CSV_NAME[:-4] + ("_quick" if args.quick else "")
    path = args.out / f"{stem}.csv"
    with cf.ProcessPoolExecutor(args.workers) if args.workers > 1 else _means_tails._Local() as pool:
        rows = []
        for row in pool.map(tail_point, todo):
            rows.append(row)
            print({k: row[k] for k in ("model", "n", "epsilon", "groups", "clip_upper", "clip_upper2",
                                       "clip_lower", "lower_sd", "spread", "coverage", "low_miss", "high_miss",
                                       "size", "seconds")}, flush=True)
    harness.write_csv(path, rows, {"study": "means_tails_two_group", "seed": SEED, "n_sim": N_SIM,
                                   "level": LEVEL, "alpha": ALPHA, "quick": args.quick})
    plot(rows, args.out / f"{stem}.png")
    if args.table:
        print("wrote", _means_tables.write_table(None, None, rows2=rows, csv2_path=path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
