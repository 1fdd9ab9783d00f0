"""validation/means_guide.py: its quick run writes the tables and the figure the guide cites, and its
numbers follow from their definitions (computed here independently)."""

import csv
import math

import pytest
from scipy import stats

from validation import means_guide


def _read(path):
    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_quick_run_writes_the_tables_and_figure(tmp_path, capsys):
    assert means_guide.main(["--quick", "--out", str(tmp_path)]) == 0
    for name in ("width", "epsilon", "methods"):
        assert (tmp_path / f"means_guide_{name}_quick.csv").stat().st_size > 0
    assert (tmp_path / "means_guide_quick.png").stat().st_size > 0
    width = _read(tmp_path / "means_guide_width_quick.csv")
    for row in width:
        k, n = float(row["half_width_bounds_sd"]), int(row["n"])
        lower, upper = 0.5 - k, 0.5 + k
        assert float(row["clipped_share"]) == pytest.approx(stats.norm.cdf(lower) + stats.norm.sf(upper), rel=1e-12)
        # the naive half-width: 1.96 sqrt(1/n + 2 (width / (epsilon n))^2)
        assert float(row["naive_half_width_sd"]) == pytest.approx(
            stats.norm.isf(0.025) * math.sqrt(1 / n + 2 * (2 * k / n) ** 2), rel=1e-12)
    # n = 50: bounds +-1 sd clip 38% and the naive interval covers 0.88; +-3 sd clip 0.6% and it covers near 0.95
    cover = {float(r["half_width_bounds_sd"]): float(r["naive_coverage"]) for r in width}
    assert cover[1.0] < 0.9 and abs(cover[3.0] - 0.95) < 0.01
    # DP-JIMI's column is the kept study run's range (read here from the CSV directly)
    kept = [r for r in _read_kept() if r["truth"] == "normal" and r["spread"] == "known"]
    methods = [r for r in _read(tmp_path / "means_guide_methods_quick.csv") if r["spread"] == "known"]
    assert float(methods[0]["jimi_coverage_min"]) == min(float(r["coverage"]) for r in kept)


def _read_kept():
    with means_guide.TAILS.open() as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))
