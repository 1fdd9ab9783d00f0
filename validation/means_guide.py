"""The tables of the guide "Choosing the bounds, epsilon and the method" (docs/means.rst), computed.

Three tables, in standard-deviation units (data N(mu, 1); every number scales with sigma):

* ``width``: the width-versus-clipping trade-off.  Bounds of half-width k sd (k in {1, 1.5, 2,
  3, 4, 6}) centred 0.5 sd away from the true mean (a protocol's guess that is off), n in {50,
  200, 1000}, epsilon = 1: the share clipped, the clipped mean's bias, the naive 95% interval's
  half-width (sigma known) and its coverage of the true mean, exact (``1 - mean_power`` at the
  true mean: the law of the released clipped mean computed, nothing simulated).
* ``epsilon``: what epsilon costs in records: ``mean_sample_size`` for a one-sample two-sided
  test of an effect of 0.5 sd at power 0.8, bounds +-3 sd about the true mean, against the same
  test without noise, epsilon in {0.25, 0.5, 1, 2, 4} (exact).
* ``methods``: the decision table's coverage.  DP-JIMI's from the kept run of the tails part of
  the means study (``validation/results/means_tails_simulate.csv``, normal truth: the range over
  n and epsilon per clipping setting), and the naive interval's at the same settings, exact.

Run: ``python -m validation.means_guide [--quick]`` (``--quick``: n = 50 and epsilon = 1 only;
a few seconds).  Writes ``means_guide_{width,epsilon,methods}[_quick].csv`` and
``means_guide[_quick].png`` under ``--out`` and prints the tables.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy import stats  # noqa: E402

from dpinfer import mean_power, mean_sample_size  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "out"
TAILS = Path(__file__).resolve().parent / "results" / "means_tails_simulate.csv"
HALF_WIDTHS = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
OFFSET = 0.5
EPSILONS = [0.25, 0.5, 1.0, 2.0, 4.0]
#: the tails study's normal truth (validation/_means_tails.py)
MU, SD = 100.0, 15.0


def width_rows(quick):
    rows = []
    for n in ([50] if quick else [50, 200, 1000]):
        for k in HALF_WIDTHS:
            lower, upper = OFFSET - k, OFFSET + k
            res = mean_power(0.0, n, mu0=0.0, sigma=1.0, lower=lower, upper=upper, epsilon=1.0)
            clipped = stats.norm.cdf(lower) + stats.norm.sf(upper)
            # the clipped mean of N(0, 1) (closed form: a E[atoms] + the truncated part)
            bias = (lower * stats.norm.cdf(lower) + upper * stats.norm.sf(upper)
                    + stats.norm.pdf(lower) - stats.norm.pdf(upper))
            half = stats.norm.isf(0.025) * (1.0 / n + 2.0 * (2.0 * k / n) ** 2) ** 0.5
            rows.append({"n": n, "epsilon": 1.0, "half_width_bounds_sd": k, "centre_offset_sd": OFFSET,
                         "clipped_share": clipped, "bias_sd": bias, "naive_half_width_sd": half,
                         "naive_coverage": 1.0 - float(res), "computed": "exact"})
    return rows


def epsilon_rows(quick):
    rows = []
    for eps in ([1.0] if quick else EPSILONS):
        res = mean_sample_size(0.5, mu0=0.0, sigma=1.0, lower=-3.0, upper=3.0, epsilon=eps)
        rows.append({"epsilon": eps, "effect_sd": 0.5, "bounds_sd": 3.0, "power": 0.8, "n": int(res),
                     "n_without_noise": res.nonprivate_n, "ratio": int(res) / res.nonprivate_n,
                     "exact_power": res.exact_power, "computed": "exact"})
    return rows


def _tails():
    with TAILS.open() as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return [row for row in csv.DictReader(lines) if row["truth"] == "normal"]


def methods_rows(quick):
    groups = {}
    for row in _tails():
        key = (row["spread"], float(row["clip_upper"]), float(row["clip_lower"]), row["lower_sd"] or "")
        groups.setdefault(key, []).append(row)
    rows = []
    for (spread, up, low, lower_sd), cells in sorted(groups.items()):
        cov = [float(c["coverage"]) for c in cells]
        se = max(float(c["mc_se"]) for c in cells)
        naive = []
        for c in cells:
            n, eps = int(c["n"]), float(c["epsilon"])
            if quick and (n != 30 or eps != 1.0):
                continue
            # the study's bounds in sd units (its normal truth is N(MU, SD**2))
            lower, upper = ((float(c[k]) - MU) / SD for k in ("lower", "upper"))
            naive.append(1.0 - float(mean_power(0.0, n, mu0=0.0, sigma=1.0, lower=lower, upper=upper,
                                                epsilon=eps)))
        rows.append({"spread": spread, "clip_upper": up, "clip_lower": low, "lower_sd": float(lower_sd) if lower_sd else None,
                     "settings": len(cells), "jimi_coverage_min": min(cov), "jimi_coverage_max": max(cov),
                     "jimi_mc_se_max": se, "naive_coverage_min": min(naive) if naive else None,
                     "naive_coverage_max": max(naive) if naive else None,
                     "naive_computed": "exact (sigma known)", "jimi_source": TAILS.name})
    return rows


def _write(path, rows):
    rows[:] = [{k: (float(v) if hasattr(v, "dtype") else v) for k, v in row.items()} for row in rows]
    keys = list(rows[0])
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def _figure(rows, path):
    from validation import _figures

    fig, axes = _figures.new_figure(panel_width=4.6, panel_height=3.2)
    ax = axes[0]
    for n in sorted({r["n"] for r in rows}):
        sub = [r for r in rows if r["n"] == n]
        ax.plot([r["half_width_bounds_sd"] for r in sub], [r["naive_coverage"] for r in sub], marker="o",
                label=f"n = {n}")
    _figures.plot_nominal(ax, 0.95)
    _figures.finish_axes(ax, title="Naive interval, bounds 0.5 sd off-centre, epsilon 1",
                         xlabel="half-width of the bounds (sd)", ylabel="coverage of the mean (exact)")
    _figures.add_legend(ax)
    _figures.save_figure(fig, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 50 and epsilon = 1 only (a few seconds)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-progress", action="store_true", help="accepted for the common interface; this study "
                        "prints no progress line")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    tag = "_quick" if args.quick else ""
    tables = {"width": width_rows(args.quick), "epsilon": epsilon_rows(args.quick),
              "methods": methods_rows(args.quick)}
    for name, rows in tables.items():
        path = args.out / f"means_guide_{name}{tag}.csv"
        _write(path, rows)
        print(f"# {name} ({path.name})")
        for row in rows:
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()})
    png = args.out / f"means_guide{tag}.png"
    _figure(tables["width"], png)
    print(f"wrote the tables and {png.name} under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
