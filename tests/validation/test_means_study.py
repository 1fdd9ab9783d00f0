"""The means study runs with --quick, its numbers are sane, and its truths are what it says."""

import math

import numpy as np
from scipy import integrate, stats

from validation import means
from validation.harness import read_csv


def test_means_study_quick(tmp_path):
    assert means.main(["--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "means_simulate_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "means_simulate_quick.csv")
    # normal truth: DP-JIMI, repro and naive; log-normal truth: both models of both and naive; clip 0 and 0.2
    assert len(rows) == 2 * 3 + 2 * 5
    for r in rows:
        assert r["reps"] == 60 and abs(r["mc_se"] - math.sqrt(r["coverage"] * (1 - r["coverage"]) / 60)) < 1e-12
        if r["truth"] == "normal" and r["method"] == "dp_jimi":
            # under the model: within 4 SE (sqrt(.95 .05 / 60) = 0.028) of 0.95
            assert abs(r["coverage"] - 0.95) < 4 * math.sqrt(0.95 * 0.05 / 60)
        if (r["truth"], r["method"]) in {("normal", "repro"), ("lognormal", "repro_lognormal")}:
            # repro samples under the model: coverage at least the level (valid with R = 199 seeds)
            assert r["coverage"] >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / 60) and r["n_sim"] == 199
    by = {(r["truth"], r["clip"], r["method"]): r for r in rows}
    # the share clipped is what the bounds promise (60 x 100 values; SE sqrt(.2 .8 / 6000) = 0.005)
    assert abs(by[("normal", 0.2, "naive")]["clipped_share"] - 0.2) < 4 * math.sqrt(0.16 / 6000)
    # one-sided clipping of a skewed truth: the naive interval misses, the right model does not
    assert by[("lognormal", 0.2, "naive")]["coverage"] < 0.7
    assert abs(by[("lognormal", 0.2, "dp_jimi_lognormal")]["coverage"] - 0.95) < 4 * math.sqrt(0.95 * 0.05 / 60)


def test_truths_against_quadrature():
    # the log-normal mean exp(sigma**2 / 2) and the bounds' clipped share, by quadrature
    mean, lower, upper, _ = means.truth_of("lognormal", 0.05)
    pdf = stats.lognorm(0.6).pdf
    assert math.isclose(mean, integrate.quad(lambda t: t * pdf(t), 0, np.inf)[0], rel_tol=1e-9)
    assert math.isclose(mean, math.exp(0.18), rel_tol=1e-12)
    assert math.isclose(integrate.quad(pdf, upper, np.inf)[0], 0.05, rel_tol=1e-8) and lower == 0.0
    mean, lower, upper, _ = means.truth_of("normal", 0.2)
    assert (mean, lower) == (100.0, 40.0) and math.isclose(upper, 100 + 15 * 0.8416212335729143, rel_tol=1e-12)


def test_default_run_leaves_repro_out_at_n_500_only():
    # the default run's time (issue 40: 103 s): repro samples at n = 500 are four fifths of it, kept by --full
    import argparse

    def cells(**kw):
        args = argparse.Namespace(**{"quick": False, "full": False, "reps": 100, "n_sim": 200, "mode": "simulate", **kw})
        return means.build_cells(args)

    default = cells()
    assert {c["n"] for c in default if not c["repro"]} == {500} and all(c["repro"] for c in default if c["n"] < 500)
    assert all(c["repro"] for c in cells(full=True)) and all(c["repro"] for c in cells(quick=True))


def test_tails_quick_and_table_from_csv(tmp_path):
    # the tails part's smoke run (two points, 200 data sets) and the table written from its CSV
    from validation import _means_tails

    assert _means_tails.main(["--quick", "--out", str(tmp_path)]) == 0
    meta, rows = read_csv(tmp_path / "means_tails_simulate_quick.csv")
    assert [(r["spread"], r["reps"], r["n"], r["clip_upper"], r["lower_sd"]) for r in rows] == \
        [("released", 200, 80, 0.3, 6.0), ("known", 200, 80, 0.3, 6.0)]
    for r in rows:
        assert r["reps_near"] + r["reps_far"] == 200
        assert math.isclose(r["coverage"], 1 - r["low_miss"] - r["high_miss"], abs_tol=1e-12)
    table = tmp_path / "table.py"
    _means_tails.write_table(rows, tmp_path / "means_tails_simulate_quick.csv", table)
    namespace = {}
    exec(table.read_text(), namespace)
    (entry,) = namespace["SPREAD_RATES"]["normal"]  # the spread-released row only
    assert entry[:4] == (80, 0.5, 200, max(rows[0]["low_miss"], rows[0]["high_miss"]))
    assert entry[5] == rows[0]["coverage"] and namespace["SPREAD_RATES"]["lognormal"] == ()


def test_the_warning_table_is_the_kept_runs():
    # dpinfer/inference/means/_spread_table.py is written from the kept CSV of the tails part, unedited
    from pathlib import Path

    from validation import _means_tails

    root = Path(_means_tails.__file__).resolve().parents[1]
    meta, rows = read_csv(root / "validation" / "results" / "means_tails_simulate.csv")
    assert int(meta["seed"]) == _means_tails.SEED and len(rows) == len(_means_tails.points())
    assert [_means_tails.point_key((r["truth"], r["model"], r["n"], r["epsilon"], r["clip_upper"], r["clip_lower"],
                                    r["lower_sd"] if r["lower_sd"] is not None else 4.0, r["spread"], r["reps"]))
            for r in rows] == [_means_tails.point_key(p) for p in _means_tails.points()]
    from dpinfer.inference.means._spread_table import SPREAD_RATES

    assert _means_tails.table_rows(rows) == SPREAD_RATES
