"""The two-arm validation study runs (--quick) and shows exact size and coverage."""

from __future__ import annotations

from validation import two_arm
from validation._csv import read_csv


def test_two_arm_quick(tmp_path):
    assert two_arm.main(["--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "two_arm_exact_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "two_arm_exact_quick.csv")
    assert meta["study"] == "two_arm"
    sizes = [r for r in rows if r["part"] == "size"]
    assert sizes and all(r["size_ok"] in (True, "true", "True") for r in sizes)
    assert all(float(r["max_size"]) <= 0.05 + 1e-12 for r in sizes)
    cover = [r for r in rows if r["part"] == "coverage"]
    assert cover and min(float(r["coverage"]) for r in cover) >= 0.95 - 1e-12
    assert {r["effect"] for r in cover} == {"difference", "odds-ratio"}
    methods = {r["method"] for r in rows if r["part"] == "power"}
    assert methods == {"dp_ump2", "dp_ump2_score", "normal", "dp_jimi", "boschloo_nonprivate"}
    assert {r["statistic"] for r in sizes} == {"score", "difference"}
