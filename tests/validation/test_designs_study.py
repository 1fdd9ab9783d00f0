"""The designs validation study runs (--quick) and shows exact size at most alpha and the coverage table."""

from __future__ import annotations

from validation import designs
from validation._csv import read_csv


def test_designs_quick(tmp_path):
    assert designs.main(["--quick", "--reps", "20", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "designs_exact_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "designs_exact_quick.csv")
    assert meta["study"] == "designs" and len(rows) == 12
    assert all(r["size_at_most_alpha"] in (True, "true", "True") for r in rows)
    assert all(float(r["size_independent"]) <= 0.05 for r in rows)
    simon = [r for r in rows if r["epsilon"] == "none" and float(r["p0"]) == 0.1 and r["design"] == "optimal"]
    assert [(int(r["r1"]), int(r["n1"]), int(r["r"]), int(r["n"])) for r in simon] == [(1, 10, 5, 29)]
    _, cov = read_csv(tmp_path / "designs_coverage_exact_quick.csv")
    naive = {float(r["p"]): float(r["naive_exact"]) for r in cov}
    assert naive[0.3] < 0.945  # the naive interval undercovers after the interim look (exactly 0.9423)
