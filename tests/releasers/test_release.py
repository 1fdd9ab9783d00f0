"""Release: frozen record, read-only array value, printing and JSON."""

import dataclasses
import json

import numpy as np
import pytest

from dpinfer import LaplaceReleaser, Release, TulapReleaser


def test_release_is_frozen_and_value_read_only():
    x = np.array([1, 2, 3])
    rel = TulapReleaser(1.0).release(x, 10, rng=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rel.epsilon = 2.0
    with pytest.raises(ValueError, match="read-only"):
        rel.value[0] = 0.0
    # the value is a private copy: changing the caller's array leaves it alone
    arr = np.array([1.5, 2.5])
    direct = Release(arr, "laplace", 1.0, 0.0, 1.0, None, "value")
    arr[0] = 99.0
    assert direct.value[0] == 1.5


def test_str_scalar_and_array():
    rel = Release(11.2345678, "tulap", 1.0, 0.01, 1.0, 30, "count")
    assert str(rel).splitlines()[:4] == [
        "dpinfer release (tulap mechanism)",
        "  value:       11.2345678 (noisy count out of n = 30)",  # every digit: typed back, the release
        "  privacy:     epsilon = 1, delta = 0.01",
        "  sensitivity: 1",
    ]
    many = LaplaceReleaser(0.5).proportion([1, 2, 3], 10, rng=1)
    text = str(many)
    # a short released vector prints its values, as R prints a short vector (issue 40: the text output kept
    # none), every digit of each (issue 35: a printed release types back as itself)
    shown = ", ".join(repr(float(v)) for v in many.value)
    assert f"c({shown})" in text and "noisy proportion out of n = 10" in text
    long = LaplaceReleaser(0.5).proportion(list(range(8)), 10, rng=1)
    assert "array of 8 values, shape (8,)" in str(long)
    assert "laplace mechanism" in text
    value = LaplaceReleaser(0.5, 2.0).release(1.0, rng=1)
    assert "noisy value)" in str(value) and "out of n" not in str(value)


@pytest.mark.parametrize(
    "rel",
    [
        TulapReleaser(1.0, 0.01).release(11, 30, rng=1),
        TulapReleaser(1.0).release([[1, 2], [3, 4]], 30, rng=1),
        LaplaceReleaser(2.0).release(0.25, rng=1),
        LaplaceReleaser(2.0).proportion(np.array([3, 4]), 8, rng=1),
    ],
)
def test_to_dict_json_safe(rel):
    d = rel.to_dict()
    assert {"value", "mechanism", "epsilon", "delta", "sensitivity", "n", "kind"} <= set(d)
    back = json.loads(json.dumps(d, allow_nan=False))
    np.testing.assert_array_equal(np.asarray(back["value"]), rel.value)
    assert back["epsilon"] == rel.epsilon and back["n"] == rel.n
    assert all(not isinstance(v, np.generic) for v in d.values())
