"""Robust frequency estimation from contaminated batches under local DP: accuracy study.

Reproduces the evidence of :func:`dpinfer.robust_frequency_estimate` (Chhor &
Sentenac, ALT 2023): the total-variation (TV) error of

* the naive mean of all batches (projected onto the simplex),
* the spectral filter, and
* the oracle (projected mean of the good batches only),

against the contamination ``c`` in {0.05, 0.1, 0.2} at d = 10 categories, k = 50
answers per batch, n = 2000 batches, epsilon = 1, under three adversaries, with
the theoretical rate ``(c/eps) sqrt(d log(1/c) / k) + d / (eps sqrt(n k))`` and the
log-log slope of the filter's error in ``c``.

Adversaries (the bad batches are the first ``round(c n)``):

``point_mass``
    every answer of a bad batch is the rarest category, privatized honestly by
    the unary-encoding releaser (a fake answer, a genuine report);
``unprivatized``
    every answer of a bad batch reports the rarest category's one-hot bit pattern
    without privatization noise (bit of the rarest category 1, all others 0);
``subtle_shift``
    bad batches answer honestly from ``p`` with the whole mass of the most common
    category moved onto the rarest one: each bad batch mean lies about 1.7
    good-batch standard deviations from ``p`` and looks plausible on its own.

The true law is ``p_j`` proportional to ``1/(j+1)`` (rarest category ``d-1``).
Data are made with :class:`dpinfer.UnaryEncodingReleaser`.

``--calibrate`` instead reruns the clean-data calibration of the filter's
threshold constant (see the Notes of :func:`dpinfer.robust_frequency_estimate`).

``--k K`` reruns the grid with ``K`` answers per batch (the robust term of the rate
falls like ``1/sqrt(k)``; the naive mean's error under the point mass stays near
``c``).  Since the filter's tail step, its error under the point mass is within
1.02-1.16 x the oracle's already at ``k = 50`` (it was 1.6-3.1 x with the soft step
alone).

The study is always a simulation: ``--mode`` accepts only ``simulate`` (the CSV
metadata says so).  It writes ``robust_simulate.csv`` and ``robust_simulate.png``
into ``--out``, with ``_kK`` added when ``--k`` differs from the default (e.g.
``robust_simulate_k400.csv``) and ``_quick`` with ``--quick``; ``--calibrate``
writes ``robust_calibration_simulate[_quick].csv``.

The BLAS thread count is set to 1 before numpy is imported when this file is run as
a script (``python -m validation.robust_study``; importing it from a test changes
nothing).  The work is small ``(n x d)`` products and ``d x d`` eigenproblems, for
which threads bring nothing: on the shared 2-core machine the full study took
4.5 s with 1 thread and 4.9-5.2 s with 2 (about 3 s of it in the cells, the rest
start-up), and 1 thread avoids oversubscription under ``--executor processes``.

Run ``python -m validation.robust_study`` (full: 9 cells x 20 replicates, about 5 s)
or with ``--quick`` (about 2 s, most of it start-up; used by the test suite).
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # only effective before numpy is first imported
    for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import math
import sys
import time

import numpy as np

from dpinfer import UnaryEncodingReleaser, robust_frequency_estimate
from dpinfer.inference.local._common import _project_simplex, _unary_debias, _unary_noise_var
from dpinfer.inference.local._robust import _THRESHOLD_CONSTANT, _expected_covariance, _threshold_scale
from dpinfer._ldp_channels import _unary_keep_prob

from .harness import (
    add_legend,
    finish_axes,
    log_axis,
    method_style,
    new_figure,
    positive_int,
    resolve_common,
    run_cells,
    save_figure,
    study_metadata,
    study_parser,
    study_stem,
    write_csv,
)

ADVERSARIES = ("point_mass", "unprivatized", "subtle_shift")
FULL = {"d": 10, "k": 50, "n_batches": 2000, "epsilon": 1.0, "contamination": (0.05, 0.1, 0.2), "reps": 20}
QUICK = {"d": 10, "k": 20, "n_batches": 300, "epsilon": 1.0, "contamination": (0.05, 0.2), "reps": 3}
CALIBRATION_REPS, CALIBRATION_REPS_QUICK = 1000, 20


def zipf_law(d):
    """``p_j`` proportional to ``1/(j+1)``, ``j = 0..d-1``: category ``d-1`` is the rarest."""
    p = 1.0 / np.arange(1, d + 1)
    return p / p.sum()


def theoretical_rate(contamination, d, k, n_batches, epsilon):
    """``(c/eps) sqrt(d log(1/c) / k) + d / (eps sqrt(n k))`` (Chhor & Sentenac 2023), constant 1."""
    c = np.asarray(contamination, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        robust = np.where(c > 0, c / epsilon * np.sqrt(d * np.log(1.0 / np.where(c > 0, c, 1.0)) / k), 0.0)
    return robust + d / (epsilon * math.sqrt(n_batches * k))


def tv(a, b):
    """Total-variation distance ``sum |a - b| / 2`` along the last axis."""
    return 0.5 * np.abs(np.asarray(a) - np.asarray(b)).sum(axis=-1)


def contaminated_bits(adversary, p, k, n_batches, n_bad, epsilon, gen):
    """Report bits, shape (n_batches, k, d), whose first ``n_bad`` batches are bad."""
    d = p.size
    releaser = UnaryEncodingReleaser(epsilon, d)
    rare, common = d - 1, int(np.argmax(p))
    good = releaser.release(gen.choice(d, size=(n_batches - n_bad, k), p=p), rng=gen).value
    if adversary == "point_mass":
        bad = releaser.release(np.full((n_bad, k), rare), rng=gen).value
    elif adversary == "unprivatized":
        bad = np.zeros((n_bad, k, d))
        bad[:, :, rare] = 1.0
    elif adversary == "subtle_shift":
        shifted = p.copy()
        shifted[rare] += shifted[common]
        shifted[common] = 0.0
        bad = releaser.release(gen.choice(d, size=(n_bad, k), p=shifted), rng=gen).value
    else:
        raise ValueError(f"`adversary` must be one of {', '.join(map(repr, ADVERSARIES))}; got {adversary!r}.")
    return np.concatenate([bad, good], axis=0)


def study_cell(cell, seed_sequence):
    """TV errors of naive, filter and oracle over ``cell['reps']`` contaminated data sets."""
    gen = np.random.default_rng(seed_sequence)
    d, k, n, eps, c = cell["d"], cell["k"], cell["n_batches"], cell["epsilon"], cell["contamination"]
    p = zipf_law(d)
    n_bad = int(round(c * n))
    errors = {"naive": [], "filter": [], "oracle": []}
    removed_weight, bad_caught, good_lost, seconds = [], [], [], []
    for _ in range(cell["reps"]):
        bits = contaminated_bits(cell["adversary"], p, k, n, n_bad, eps, gen)
        start = time.perf_counter()
        res = robust_frequency_estimate(bits, epsilon=eps, contamination=c)
        seconds.append(time.perf_counter() - start)
        oracle = _project_simplex(_unary_debias(bits[n_bad:].mean(axis=(0, 1)), eps))
        errors["naive"].append(tv(res.naive_estimate, p))
        errors["filter"].append(tv(res.estimate, p))
        errors["oracle"].append(tv(oracle, p))
        removed_weight.append(res.removed_weight)
        bad_caught.append(1.0 - res.weights[:n_bad].mean() if n_bad else float("nan"))
        good_lost.append(1.0 - res.weights[n_bad:].mean())
    row = dict(cell)
    reps = cell["reps"]
    for method, values in errors.items():
        values = np.asarray(values)
        row[f"tv_{method}"] = float(values.mean())
        row[f"tv_{method}_se"] = float(values.std(ddof=1) / math.sqrt(reps)) if reps > 1 else float("nan")
    rate = float(theoretical_rate(c, d, k, n, eps))
    row["rate"] = rate
    row["filter_over_rate"] = row["tv_filter"] / rate
    row["naive_over_rate"] = row["tv_naive"] / rate
    row["removed_weight"] = float(np.mean(removed_weight))
    row["bad_weight_removed"] = float(np.mean(bad_caught))
    row["good_weight_removed"] = float(np.mean(good_lost))
    row["seconds_per_fit"] = float(np.mean(seconds))
    return row


def calibration_cell(cell, seed_sequence):
    """Clean data: quantiles of (top eigenvalue excess) / ``_threshold_scale`` over replicates.

    Per-batch sums are drawn exactly (``Binomial(c_j, q) + Binomial(k - c_j, 1 - q)``
    for the ``c_j`` answers in category ``j``), the same law as summing released bits.
    """
    gen = np.random.default_rng(seed_sequence)
    d, n, k, eps = cell["d"], cell["n_batches"], cell["k"], cell["epsilon"]
    p = np.full(d, 1.0 / d) if cell["law"] == "uniform" else zipf_law(d)
    q = float(_unary_keep_prob(eps))
    sigma2 = _unary_noise_var(eps)
    ratios = []
    chunk = 50
    for start in range(0, cell["reps"], chunk):
        size = min(chunk, cell["reps"] - start)
        counts = gen.multinomial(k, p, size=(size, n))
        sums = gen.binomial(counts, q) + gen.binomial(k - counts, 1.0 - q)
        means = _unary_debias(sums / k, eps)
        centred = means - means.mean(axis=1, keepdims=True)
        cov = np.einsum("rni,rnj->rij", centred, centred) / n
        expected = [_expected_covariance(pr, sigma2, k) for pr in _project_simplex(means.mean(axis=1))]
        excess = np.linalg.eigvalsh(cov - np.stack(expected))[:, -1]
        ratios.extend(excess / np.array([_threshold_scale(e, n) for e in expected]))
    ratios = np.asarray(ratios)
    row = dict(cell)
    row["q50"], row["q99"], row["q999"] = (float(x) for x in np.quantile(ratios, [0.5, 0.99, 0.999]))
    row["max"] = float(ratios.max())
    return row


def calibration_cells(reps, quick=False):
    if quick:
        return [{"d": d, "n_batches": 200, "k": 10, "epsilon": 1.0, "law": "zipf", "reps": reps} for d in (2, 10)]
    return [
        {"d": d, "n_batches": n, "k": k, "epsilon": eps, "law": law, "reps": reps}
        for d in (2, 5, 10, 30)
        for n in (200, 2000)
        for k in (1, 50)
        for eps in (0.5, 1.0, 4.0)
        for law in ("uniform", "zipf")
    ]


def log_slope(x, y):
    """Least-squares slope of log(y) on log(x)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _figure(rows, path, settings):
    fig, axes = new_figure(ncols=len(ADVERSARIES), panel_height=3.0)
    styles = {"naive": "normal", "filter": "dp_ump", "oracle": "clopper_pearson"}
    labels = {"naive": "naive mean", "filter": "spectral filter", "oracle": "oracle (good batches)"}
    for ax, adversary in zip(axes, ADVERSARIES):
        sub = sorted((r for r in rows if r["adversary"] == adversary), key=lambda r: r["contamination"])
        c = np.array([r["contamination"] for r in sub])
        for method in ("naive", "filter", "oracle"):
            style = method_style(styles[method])
            style["label"] = labels[method]
            mean = np.array([r[f"tv_{method}"] for r in sub])
            se = np.array([r[f"tv_{method}_se"] for r in sub])
            ax.errorbar(c, mean, yerr=2 * np.nan_to_num(se), capsize=2, **style)
        ax.plot(c, [r["rate"] for r in sub], color="black", linestyle=(0, (4, 3)), linewidth=0.8,
                label="rate (constant 1)")
        log_axis(ax, c)
        ax.set_yscale("log")
        ax.tick_params(axis="y", which="minor", labelsize=8)  # as large as the major labels
        finish_axes(ax, title=adversary.replace("_", " "), xlabel="contamination", ylabel="TV error")
    add_legend(fig, ncol=4)
    fig.suptitle(
        f"d = {settings['d']}, k = {settings['k']}, n = {settings['n_batches']} batches, "
        f"epsilon = {settings['epsilon']:g}", fontsize=9)
    return save_figure(fig, path)


def build_parser():
    """The study's argument parser (the shared options, always simulated, plus its own)."""
    parser = study_parser(
        __doc__.splitlines()[0], n_sim_help=None, modes=("simulate",),
        reps_help=(f"contaminated data sets per cell (default: {FULL['reps']}, {QUICK['reps']} with "
                   f"--quick); with --calibrate, clean data sets per cell (default: "
                   f"{CALIBRATION_REPS}, {CALIBRATION_REPS_QUICK} with --quick)"))
    parser.add_argument("--calibrate", action="store_true",
                        help="rerun the clean-data calibration of the threshold constant")
    parser.add_argument("--k", type=positive_int, default=None,
                        help=f"answers per batch (default: {FULL['k']}, or {QUICK['k']} with --quick); "
                             "a non-default K is part of the file names (robust_simulate_kK); "
                             "not used by --calibrate")
    return parser


def main(argv=None):
    """Run the study; write ``robust_simulate[_kK][_quick].csv`` and the figure into ``--out``."""
    args = build_parser().parse_args(argv)
    settings = dict(QUICK if args.quick else FULL)
    tags = []
    if args.k is not None and args.k != settings["k"]:
        settings["k"] = args.k
        tags.append(f"k{args.k}")
    if args.calibrate:
        args = resolve_common(args, reps=CALIBRATION_REPS_QUICK if args.quick else CALIBRATION_REPS)
        cells = calibration_cells(args.reps, quick=args.quick)
        rows = run_cells(calibration_cell, cells, seed=args.seed, executor=args.executor,
                         scheduler=args.scheduler, progress=args.progress, max_workers=args.workers,
                         desc="robust calibration")
        largest = max(r["q999"] for r in rows)
        meta = study_metadata("robust_calibration", args, largest_q999=largest,
                              shipped_threshold_constant=_THRESHOLD_CONSTANT)
        path = write_csv(args.out / f"{study_stem('robust_calibration', args)}.csv", rows, meta)
        print(f"largest 99.9th percentile of excess / scale {largest:.3f}; largest ratio seen "
              f"{max(r['max'] for r in rows):.3f}; shipped threshold constant {_THRESHOLD_CONSTANT} "
              f"({'covers' if largest <= _THRESHOLD_CONSTANT else 'DOES NOT cover'} the grid)")
        print(f"wrote {path}")
        return 0
    args = resolve_common(args, reps=settings["reps"])
    cells = [
        {"adversary": adv, "contamination": c, "d": settings["d"], "k": settings["k"],
         "n_batches": settings["n_batches"], "epsilon": settings["epsilon"], "reps": args.reps}
        for adv in ADVERSARIES
        for c in settings["contamination"]
    ]
    start = time.perf_counter()
    rows = run_cells(study_cell, cells, seed=args.seed, executor=args.executor, scheduler=args.scheduler,
                     progress=args.progress, max_workers=args.workers, desc="robust study")
    elapsed = time.perf_counter() - start
    slopes = {}
    for adv in ADVERSARIES:
        sub = sorted((r for r in rows if r["adversary"] == adv), key=lambda r: r["contamination"])
        c = [r["contamination"] for r in sub]
        slopes[adv] = log_slope(c, [r["tv_filter"] for r in sub])
    c_grid = list(settings["contamination"])
    rate_slope = log_slope(c_grid, theoretical_rate(c_grid, settings["d"], settings["k"],
                                                    settings["n_batches"], settings["epsilon"]))
    meta = study_metadata(
        "robust", args, d=settings["d"], k=settings["k"], n_batches=settings["n_batches"],
        epsilon=settings["epsilon"], law="p_j proportional to 1/(j+1)",
        filter_slope_in_contamination=slopes, rate_slope_in_contamination=rate_slope,
        seconds_total=round(elapsed, 2),
    )
    stem = study_stem("robust", args, *tags)
    path = write_csv(args.out / f"{stem}.csv", rows, meta)
    fig_path = _figure(rows, args.out / f"{stem}.{args.format}", settings)
    for r in rows:
        print(f"{r['adversary']:>13} c={r['contamination']:<5} TV naive {r['tv_naive']:.4f}  "
              f"filter {r['tv_filter']:.4f} (+/-{r['tv_filter_se']:.4f})  oracle {r['tv_oracle']:.4f}  "
              f"rate {r['rate']:.4f}  filter/rate {r['filter_over_rate']:.2f}  "
              f"removed {r['removed_weight']:.3f} (bad {r['bad_weight_removed']:.2f}, "
              f"good {r['good_weight_removed']:.3f})  {r['seconds_per_fit'] * 1e3:.0f} ms/fit")
    print("log-log slope of the filter's TV in contamination: "
          + ", ".join(f"{a} {s:.2f}" for a, s in slopes.items()) + f"; rate {rate_slope:.2f}")
    print(f"total {elapsed:.1f} s; wrote {path} and {fig_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
