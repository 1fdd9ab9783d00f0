"""The shared operating-characteristic warning rule and its theta grid (inference/_oc_warnings.py)."""

import math

import numpy as np
import pytest

from dpinfer.inference._oc_warnings import (
    MAX_STEPS,
    MIN_STEPS,
    RATE_TOLERANCE,
    coverage_floor,
    coverage_thetas,
    size_message,
    worst_coverage,
)


def test_the_rule():
    assert RATE_TOLERANCE == 0.2
    assert coverage_floor(0.95) == pytest.approx(0.94, abs=1e-15)
    assert size_message(0.0599, 0.05) is None and size_message(0.0401, 0.05) is None
    assert "liberal" in size_message(0.0601, 0.05)
    assert "conservative" in size_message(0.0399, 0.05)


@pytest.mark.parametrize("low, high, n", [(0.0, 0.3126, 10), (0.37, 0.43, 1000), (0.1, 0.9, 30),
                                          (0.2, 0.2001, 10**6), (0.0, 1.0, 10**5)])
def test_grid_spans_the_closed_interval_at_the_stated_resolution(low, high, n):
    thetas, resolution = coverage_thetas(low, high, n)
    assert thetas[0] == low and thetas[-1] == high
    assert np.all((thetas >= low) & (thetas <= high))
    steps = thetas.size - 1
    assert MIN_STEPS <= steps <= MAX_STEPS
    assert np.max(np.diff(thetas)) <= resolution + 4 * np.spacing(high)
    if 4 * n * (high - low) <= MAX_STEPS:
        assert resolution <= 1.0 / (4 * n) * (1 + 1e-12)
    assert steps == min(MAX_STEPS, max(MIN_STEPS, math.ceil(4 * n * (high - low))))


def test_a_zero_length_interval_is_judged_at_its_point():
    thetas, resolution = coverage_thetas(0.0, 0.0, 100)
    assert thetas.tolist() == [0.0] and resolution == 0.0
    seen = []
    assert worst_coverage(lambda t: seen.append(t.copy()) or np.full(t.size, 0.5), 0.0, 0.0, 100, 0.95) == (0.0, 0.5)
    assert seen[0].tolist() == [0.0]


@pytest.mark.parametrize("centre", [0.1234, 0.2871, 0.4019])
def test_a_dip_as_wide_as_the_resolution_is_found(centre):
    # a coverage that is 0.95 except on a stretch exactly one resolution wide
    low, high, n = 0.0, 0.5, 30
    _, resolution = coverage_thetas(low, high, n)

    def coverage(t):
        return np.where(np.abs(t - centre) <= 0.5 * resolution, 0.90, 0.95)

    theta, value = worst_coverage(coverage, low, high, n, 0.95)
    assert value == 0.90 and abs(theta - centre) <= 0.5 * resolution


def test_quiet_when_coverage_holds_and_nan_is_skipped():
    assert worst_coverage(lambda t: np.full(t.size, 0.9401), 0.2, 0.4, 30, 0.95) is None
    assert worst_coverage(lambda t: np.full(t.size, np.nan), 0.2, 0.4, 30, 0.95) is None
    found = worst_coverage(lambda t: np.where(t > 0.35, np.nan, 0.93), 0.2, 0.4, 30, 0.95)
    assert found is not None and found[0] <= 0.35
