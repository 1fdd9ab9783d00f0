"""Error rates of unary-encoding frequency estimation: log-log slopes in n, 1/epsilon and d.

The unbiased estimate has covariance ``(sigma^2 I + diag(pi) - pi pi^T) / n`` with
``sigma^2 = e^(epsilon/2) / (e^(epsilon/2) - 1)^2 ~ 4 / epsilon^2`` for small
epsilon, so the mean squared L2 error is, exactly,

    E ||pi_hat - pi||_2^2 = (d sigma^2 + 1 - ||pi||^2) / n,

which scales like ``d / (n epsilon^2)`` (Duchi, Jordan & Wainwright 2018, the
minimax rate).  Three sweeps, pi uniform on d categories:

* n in {250, ..., 64000} at epsilon = 1, d = 8: slope -1 (tolerance 0.02);
* epsilon in {0.05, ..., 0.8} at n = 4000, d = 8: slope +2 in 1/epsilon (tolerance 0.05;
  the exact sigma^2 is slightly below 4 / epsilon^2);
* d in {2, ..., 64} at n = 4000, epsilon = 1: slope +1 (tolerance 0.05; the
  ``1 - ||pi||^2`` term bends it below 1 at small d).

Exact mode evaluates the formula; ``--mode simulate`` draws ``--reps`` data sets per
point (bit counts from their exact law, Binomial(n_j, q) + Binomial(n - n_j, 1 - q))
and fits the slopes to the Monte Carlo MSE (tolerance 0.1), and to the mean L1
error (theory: -1/2 in n, +1 in 1/epsilon, +1 in d for large d; reported only).
The CSV holds the points; the slopes and their tolerances are in the metadata and
printed.

Run: ``python -m validation.ldp_unary_rates [--quick] [--mode simulate]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import dpinfer  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "ldp_unary_rates"
SWEEPS = {
    "n": {"values": [250, 1000, 4000, 16000, 64000], "fixed": {"epsilon": 1.0, "d": 8}, "slope": -1.0,
          "tol_exact": 0.02},
    "inv_epsilon": {"values": [0.05, 0.1, 0.2, 0.4, 0.8], "fixed": {"n": 4000, "d": 8}, "slope": 2.0,
                    "tol_exact": 0.05},
    "d": {"values": [2, 4, 8, 16, 32, 64], "fixed": {"n": 4000, "epsilon": 1.0}, "slope": 1.0,
          "tol_exact": 0.05},
}
QUICK_POINTS = 3  # first, middle and last point of each sweep in --quick
TOL_SIMULATE = 0.1
REPS, REPS_QUICK = 4000, 500


def _point(sweep, value):
    cell = dict(SWEEPS[sweep]["fixed"])
    key = "epsilon" if sweep == "inv_epsilon" else sweep
    cell[key] = value
    return cell


def rate_cell(cell, seed_sequence):
    """Exact or simulated mean squared L2 error (and simulated mean L1 error) at one point."""
    n, eps, d = int(cell["n"]), float(cell["epsilon"]), int(cell["d"])
    pi = np.full(d, 1.0 / d)
    h = np.exp(eps / 2)
    sigma2 = h / (h - 1) ** 2
    row = {"sweep": cell["sweep"], "n": n, "epsilon": eps, "d": d, "mode": cell["mode"],
           "mse_exact": float((d * sigma2 + 1 - np.sum(pi**2)) / n)}
    if cell["mode"] == "simulate":
        reps = int(cell["reps"])
        rng = np.random.default_rng(seed_sequence)
        q = h / (1 + h)
        nj = rng.multinomial(n, pi, size=reps)
        s = rng.binomial(nj, q) + rng.binomial(n - nj, 1 - q)
        err = dpinfer.unary_frequency_estimate(bit_counts=s, n=n, epsilon=eps).estimate_raw - pi
        sq = np.sum(err**2, axis=1)
        l1 = np.sum(np.abs(err), axis=1)
        row.update(mse=float(sq.mean()), mse_mc_se=float(sq.std(ddof=1) / np.sqrt(reps)),
                   l1=float(l1.mean()), l1_mc_se=float(l1.std(ddof=1) / np.sqrt(reps)), reps=reps)
    else:
        row.update(mse=row["mse_exact"], mse_mc_se=None, l1=None, l1_mc_se=None, reps=None)
    return row


def slope(rows, sweep, column):
    """Least-squares slope of log(column) on log(x) over one sweep (x = 1/epsilon for that sweep)."""
    sel = [r for r in rows if r["sweep"] == sweep and r[column] is not None]
    if sweep == "inv_epsilon":
        x = [1.0 / r["epsilon"] for r in sel]
    else:
        x = [r[sweep] for r in sel]
    return float(np.polyfit(np.log(x), np.log([r[column] for r in sel]), 1)[0])


def build_cells(args):
    cells = []
    for sweep, spec in SWEEPS.items():
        values = spec["values"]
        if args.quick:
            values = [values[0], values[len(values) // 2], values[-1]]
        for v in values:
            cell = _point(sweep, v)
            cell.update(sweep=sweep, mode=args.mode, reps=args.reps)
            cells.append(cell)
    return cells


def summarise(rows, mode):
    """Slopes, theory and pass/fail per sweep."""
    out = {}
    tol_key = "tol_exact" if mode == "exact" else None
    for sweep, spec in SWEEPS.items():
        fitted = slope(rows, sweep, "mse")
        tol = spec[tol_key] if tol_key else TOL_SIMULATE
        out[sweep] = {"slope": fitted, "theory": spec["slope"], "tolerance": tol,
                      "ok": bool(abs(fitted - spec["slope"]) <= tol)}
        if mode == "simulate":
            out[sweep]["l1_slope"] = slope(rows, sweep, "l1")
    return out


def plot(rows, summary, meta, path):
    fig, axes = harness.new_figure(3)
    labels = {"n": "n", "inv_epsilon": "1 / epsilon", "d": "d (categories)"}
    for ax, sweep in zip(axes, SWEEPS):
        sel = [r for r in rows if r["sweep"] == sweep]
        x = np.array([1.0 / r["epsilon"] if sweep == "inv_epsilon" else r[sweep] for r in sel], float)
        order = np.argsort(x)
        x = x[order]
        ax.plot(x, np.array([r["mse_exact"] for r in sel])[order], color="0.3", linestyle="--",
                label="exact (d sigma^2 + 1 - |pi|^2) / n")
        if meta["mode"] == "simulate":
            y = np.array([r["mse"] for r in sel])[order]
            se = np.array([r["mse_mc_se"] for r in sel])[order]
            ax.plot(x, y, color="#0072B2", marker="o", markersize=3, label="Monte Carlo MSE")
            harness.plot_band(ax, x, y - 2 * se, y + 2 * se, color="#0072B2")
        # Major ticks at the sweep's own values and no minor labels: matplotlib's
        # default labels every minor tick of a short log axis, and they overlap.
        values = SWEEPS[sweep]["values"]
        ticks = [1.0 / v for v in reversed(values)] if sweep == "inv_epsilon" else values
        harness.log_axis(ax, ticks)
        ax.set_yscale("log")
        ax.tick_params(axis="y", which="minor", labelsize=8)  # a short axis labels minor ticks
        s = summary[sweep]
        harness.finish_axes(ax, title=f"slope {s['slope']:.3f} (theory {s['theory']:+g} +/- {s['tolerance']})",
                            xlabel=labels[sweep], ylabel="E ||pi_hat - pi||^2" if sweep == "n" else None)
    harness.add_legend(fig)
    fig.suptitle(f"Unary encoding: mean squared error rates ({meta['mode']})", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``ldp_unary_rates_<mode>.csv`` and the figure; print the slopes."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], n_sim_help=None,
        reps_help=f"data sets simulated per point in simulate mode; exact mode draws none "
                  f"(default: {REPS}; at most {REPS_QUICK} with --quick)")
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK)
    cells = build_cells(args)
    stem, rows = harness.run_study_rows(STUDY, args, rate_cell, cells)
    summary = summarise(rows, args.mode)
    meta = harness.study_metadata(STUDY, args, sweeps={k: v["values"] for k, v in SWEEPS.items()},
                                  **{f"slope_{k}": v["slope"] for k, v in summary.items()},
                                  **{f"tolerance_{k}": v["tolerance"] for k, v in summary.items()},
                                  **{f"ok_{k}": v["ok"] for k, v in summary.items()})
    csv_path = harness.write_csv(args.out / f"{stem}.csv", rows, meta)
    fig_path = plot(rows, summary, {"mode": args.mode}, args.out / f"{stem}.{args.format}")
    for sweep, s in summary.items():
        extra = f", L1 slope {s['l1_slope']:.3f}" if "l1_slope" in s else ""
        print(f"{STUDY}: slope in {sweep}: {s['slope']:.4f} (theory {s['theory']:+g}, "
              f"tolerance {s['tolerance']}) {'OK' if s['ok'] else 'FAIL'}{extra}")
    print(f"{STUDY}: wrote {csv_path} and {fig_path}")
    return 0 if all(s["ok"] for s in summary.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
