"""The two-group tails part of the means study: its quick run, its truths, and the table written from its kept run."""

import math
from pathlib import Path

from scipy import stats

from validation import _means_tails, _means_tails_two_group as two
from validation.harness import read_csv


def test_quick_run_writes_csv_and_figure(tmp_path):
    assert two.main(["--quick", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "means_tails_two_group_simulate_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "means_tails_two_group_simulate_quick.csv")
    assert [(r["spread"], r["reps"], r["n"], r["clip_upper"], r["clip_upper2"], r["lower_sd"]) for r in rows] == \
        [("released", 200, 80, 0.3, 0.3, 6.0), ("known", 200, 80, 0.3, 0.3, 6.0)]
    for r in rows:
        assert math.isclose(r["coverage"], 1 - r["low_miss"] - r["high_miss"], abs_tol=1e-12)
        assert math.isclose(r["mc_se"], math.sqrt(r["coverage"] * (1 - r["coverage"]) / 200), rel_tol=1e-12)
        assert math.isclose(r["size_se"], math.sqrt(0.05 * 0.95 / 200), rel_tol=1e-12) and r["delta"] == 0.0
    # sigma known: each group's draws exact, so the size is within 4 SE (0.062) of 0.05
    assert abs(rows[1]["size"] - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 200)


def test_unequal_groups_are_clipped_as_stated():
    # group 1 shifted so that 40% lies above the upper bound set at group 2's 80% quantile (scipy, not dpinfer)
    delta, lower, upper, _, _ = two.pair_of("normal", 0.4, 0.2)
    assert math.isclose(stats.norm.sf(upper, 100.0, 15.0), 0.2, rel_tol=1e-9)
    assert math.isclose(stats.norm.sf(upper, 100.0 + delta, 15.0), 0.4, rel_tol=1e-9)
    assert math.isclose(delta, 15.0 * (stats.norm.ppf(0.8) - stats.norm.ppf(0.6)), rel_tol=1e-12)
    assert lower == 100.0 - 4 * 15.0


def test_the_seed_keys_are_distinct_and_own_the_point():
    keys = [two.point_key(p) for p in two.points()]
    assert len(set(keys)) == len(keys) == len(two.points())
    assert not set(keys) & {_means_tails.point_key(p) for p in _means_tails.points()}


def test_the_warning_table_is_the_kept_runs(tmp_path):
    # dpinfer/inference/means/_spread_table.py is what the generator writes from the two kept CSVs, unedited
    meta, rows = read_csv(two.KEPT_CSV)
    assert int(meta["seed"]) == two.SEED and len(rows) == len(two.points())
    assert [two.point_key((r["truth"], r["model"], r["n"], r["epsilon"], r["groups"], r["clip_upper"],
                           r["clip_upper2"], r["clip_lower"], r["lower_sd"] if r["lower_sd"] is not None else 4.0,
                           r["spread"], r["reps"])) for r in rows] == [two.point_key(p) for p in two.points()]
    written = _means_tails.write_table(None, None, tmp_path / "table.py")
    committed = Path(_means_tails.TABLE_PATH)
    assert written.read_text() == committed.read_text()
    from dpinfer.inference.means._spread_table import SPREAD2_RATES

    assert _means_tails.table_rows(rows, two.where) == SPREAD2_RATES  # where: _means_tables.where2
