"""Tests of the studies' CSV files (validation/_csv.py): exact round trip, refusals."""

import json

import numpy as np
import pytest

from validation._csv import read_csv, write_csv


def test_csv_round_trip(tmp_path):
    rows = [
        {"method": "dp_ump", "n": 30, "size": 0.05000000000000001, "ok": True, "se": None},
        {"method": "wald", "n": 8, "size": np.float64(1 / 3), "extra": "x,y"},
    ]
    path = write_csv(tmp_path / "sub" / "s.csv", rows, {"study": "size", "seed": 1,
                                                        "grid": {"p0": [0.1, 0.2]}})
    text = path.read_text()
    assert text.startswith("# study: size\n# seed: 1\n# grid: {\"p0\": [0.1, 0.2]}\n")
    meta, back = read_csv(path)
    assert meta["study"] == "size" and meta["seed"] == "1"
    assert json.loads(meta["grid"]) == {"p0": [0.1, 0.2]}
    assert meta["numpy_version"] == np.__version__
    for key in ("dpinfer_version", "scipy_version", "python_version", "date"):
        assert meta[key]
    assert back[0] == {"method": "dp_ump", "n": 30, "size": 0.05000000000000001, "ok": True,
                       "se": None, "extra": None}
    assert back[1]["size"] == 1 / 3  # repr round-trips floats exactly
    assert back[1]["extra"] == "x,y"
    assert not list(tmp_path.glob("sub/*.tmp"))


@pytest.mark.parametrize(
    "metadata, match",
    [({"bad key": 1}, "metadata keys must be identifiers"),
     ({"note": "two\nlines"}, "metadata values must fit on one line")],
)
def test_write_csv_rejects_bad_metadata(tmp_path, metadata, match):
    with pytest.raises(ValueError, match=match):
        write_csv(tmp_path / "s.csv", [{"a": 1}], metadata)


def test_write_csv_rejects_unwritable_field(tmp_path):
    with pytest.raises(TypeError, match="CSV fields must be numbers, strings or None"):
        write_csv(tmp_path / "s.csv", [{"a": {"nested": 1}}], {})
