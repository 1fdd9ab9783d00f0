"""The robust-estimation study (validation/robust_study.py) runs end to end in --quick mode."""

import math

import numpy as np
import pytest

from validation import robust_study
from validation.harness import read_csv

ROWS = ("tv_naive", "tv_filter", "tv_oracle", "removed_weight")


def test_quick_study_writes_csv_and_figure(tmp_path):
    assert robust_study.main(["--quick", "--out", str(tmp_path), "--seed", "3"]) == 0
    meta, saved = read_csv(tmp_path / "robust_simulate_quick.csv")
    assert (tmp_path / "robust_simulate_quick.png").stat().st_size > 0
    assert meta["study"] == "robust" and meta["seed"] == "3"
    assert meta["mode"] == "simulate" and meta["reps"] == "3" and "n_sim" not in meta
    assert len(saved) == len(robust_study.ADVERSARIES) * len(robust_study.QUICK["contamination"])
    for row in saved:
        assert row["removed_weight"] <= 2 * row["contamination"] + 1e-12
        assert row["rate"] == pytest.approx(
            robust_study.theoretical_rate(row["contamination"], row["d"], row["k"], row["n_batches"],
                                          row["epsilon"]))
        if row["adversary"] == "unprivatized":
            # the gross adversary is removed even at the quick size: the filter is far below naive
            # (ratio over 12 seeds: 0.37-0.61 at contamination 0.05, 0.11-0.17 at 0.2)
            assert row["tv_filter"] < (0.8 if row["contamination"] < 0.1 else 0.5) * row["tv_naive"]


def test_quick_study_is_reproducible(tmp_path):
    saved = []
    for folder in ("a", "b"):
        assert robust_study.main(["--quick", "--out", str(tmp_path / folder), "--reps", "1"]) == 0
        saved.append(read_csv(tmp_path / folder / "robust_simulate_quick.csv")[1])
    assert [[r[k] for k in ROWS] for r in saved[0]] == [[r[k] for k in ROWS] for r in saved[1]]


@pytest.mark.parametrize("k, stem", [(None, "robust_simulate_quick"), (20, "robust_simulate_quick"),
                                     (8, "robust_simulate_k8_quick")])
def test_outputs_are_named_by_mode_k_and_size(tmp_path, k, stem):
    # --quick and a non-default --k get their own files, so they never overwrite the
    # full k = 50 results in the same --out (20 is the quick default k).
    argv = ["--quick", "--out", str(tmp_path), "--reps", "1"] + ([] if k is None else ["--k", str(k)])
    assert robust_study.main(argv) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.csv", f"{stem}.png"]
    meta, rows = read_csv(tmp_path / f"{stem}.csv")
    assert meta["k"] == str(k or 20) and {r["k"] for r in rows} == {k or 20}


def test_mode_exact_is_rejected(capsys):
    with pytest.raises(SystemExit) as exc:
        robust_study.main(["--quick", "--mode", "exact"])
    assert exc.value.code == 2
    assert "argument --mode: invalid choice: 'exact'" in capsys.readouterr().err


def test_quick_calibration_runs(tmp_path):
    assert robust_study.main(["--quick", "--calibrate", "--out", str(tmp_path), "--reps", "20"]) == 0
    meta, saved = read_csv(tmp_path / "robust_calibration_simulate_quick.csv")
    assert meta["mode"] == "simulate" and meta["reps"] == "20"
    assert len(saved) == 2
    assert all(0 < r["q50"] <= r["q99"] <= r["q999"] <= r["max"] for r in saved)
    assert float(meta["largest_q999"]) == max(r["q999"] for r in saved)
    assert float(meta["shipped_threshold_constant"]) == 1.0


@pytest.mark.parametrize(
    "c, expected",
    [
        # (c / eps) sqrt(d log(1/c) / k) + d / (eps sqrt(n k)) at d=10, k=50, n=2000, eps=1
        (0.1, 0.1 * math.sqrt(10 * math.log(10) / 50) + 10 / math.sqrt(100_000)),
        (0.0, 10 / math.sqrt(100_000)),
    ],
)
def test_theoretical_rate(c, expected):
    assert robust_study.theoretical_rate(c, 10, 50, 2000, 1.0) == pytest.approx(expected, rel=1e-14)


def test_adversary_bits():
    gen = np.random.default_rng(0)
    p = robust_study.zipf_law(4)
    bits = robust_study.contaminated_bits("unprivatized", p, 5, 10, 3, 1.0, gen)
    assert bits.shape == (10, 5, 4)
    np.testing.assert_array_equal(bits[:3].sum(axis=1), np.tile([0, 0, 0, 5], (3, 1)))
    assert set(np.unique(bits)) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="`adversary` must be one of"):
        robust_study.contaminated_bits("nope", p, 5, 10, 3, 1.0, gen)
