"""Repro samples for two groups (mean2_repro_test): reference values, size, the set, the entry points.

The reference (tests/reference/make_repro2.py, no dpinfer) brackets the p-value's supremum
over the nuisance between a dense grid's maximum and a monotone box bound, with explicit
seeds; the package's value must lie between them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpinfer import MeanReleaser, Release, mean2_repro_test, mean_test
from dpinfer.inference.means._common import clipped
from dpinfer.inference.means.repro._two_groups import confidence_set
from dpinfer.inference.means.repro._simulator import GridSeeds
from dpinfer.inference.means.repro._nuisance_lattice import TwoGroups, draw_seeds

REF = json.loads((Path(__file__).parents[2] / "reference" / "repro2_values.json").read_text())
ALTERNATIVES = ("two-sided", "less", "greater")


def _release(total, n, lower, upper, epsilon):
    return Release(float(total), "laplace", float(epsilon), 0.0, upper - lower, n, "clipped_sum",
                   bounds=(float(lower), float(upper)))


def _two(case):
    data, seeds = [], []
    for key in ("group1", "group2"):
        g = case[key]
        d = clipped(_release(g["sum"], g["n"], g["lower"], g["upper"], g["epsilon"]), "release", "x")
        data.append(d)
        seeds.append(GridSeeds(d.grid(), np.array(g["normals"]), np.array(g["noise"], dtype=np.int64), g["sigma"],
                               "normal"))
    return TwoGroups(data[0], data[1], seeds)


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_pvalue_lies_between_the_reference_grid_maximum_and_box_bound(case, alternative):
    two = _two(case)
    for row in case["points"]:
        bound, best = two.supremum(row["delta"], alternative)
        assert row["grid_max"][alternative] <= bound + 1e-12
        assert bound <= row["box_bound"][alternative] + 1e-12
        assert best <= bound


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_set_contains_every_difference_the_reference_accepts(case, alternative):
    two = _two(case)
    pieces = confidence_set(two, 0.05, alternative)
    accepted = [row["delta"] for row in case["scan"] if row["grid_max"][alternative] > 0.05]
    rejected = [row["delta"] for row in case["scan"] if row["grid_max"][alternative] <= 0.05]
    assert accepted
    if alternative == "less":
        # the observed t is matched from below at every delta (both groups clipped at the same bound: T = 0 < t)
        assert not rejected and pieces == [(-math.inf, math.inf)]
    else:
        assert rejected and pieces[0][0] > -10.0  # the scan crosses the set's lower end
    for delta in accepted:
        assert any(lo <= delta <= hi for lo, hi in pieces), delta


def test_pieces_are_sorted_and_disjoint_and_the_exact_points_inside():
    case = REF["cases"][1]
    two = _two(case)
    pieces = confidence_set(two, 0.05, "two-sided")
    assert pieces[-1][1] == math.inf
    for (lo1, hi1), (lo2, _) in zip(pieces, pieces[1:]):
        assert lo1 < hi1 < lo2
    for delta in np.linspace(-2.0, 4.0, 49):
        _, best = two.supremum(float(delta), "two-sided")
        if best > 0.05:
            assert any(lo <= delta <= hi for lo, hi in pieces)


def test_size_at_most_the_level_with_few_seeds():
    # 300 pairs of groups of 10 from the same normal law, clipped at [0, 3] (about 2% below, 16% above);
    # R = 19 seeds: (R + 1) 0.05 = 1, an integer.  The supremum over the nuisance is conservative, so the
    # rejection rate at delta = 0 is at most 0.1 up to Monte Carlo error: SE sqrt(0.1 0.9 / 300) = 0.0173
    reps, n, r = 300, 10, 19
    gen = np.random.default_rng(31)
    x = gen.normal(2.0, 1.0, (reps, 2, n))
    releaser = MeanReleaser(1.0, 0.0, 3.0)
    rejected = 0
    for i in range(reps):
        d1 = clipped(releaser.release(x[i, 0], rng=1000 + i), "release", "x")
        d2 = clipped(releaser.release(x[i, 1], rng=5000 + i), "release", "x")
        two = TwoGroups(d1, d2, draw_seeds(d1, d2, 1.0, 1.0, r, gen), points=32)
        rejected += two.supremum(0.0, "two-sided")[0] <= 0.1
    rate = rejected / reps  # 0.080 measured
    se = math.sqrt(0.1 * 0.9 / reps)
    assert rate <= 0.1 + 4 * se


def _pair(mu1=125.0, mu2=135.0, n=100):
    gen = np.random.default_rng(5)
    releaser = MeanReleaser(1.0, 80.0, 180.0)
    return (releaser.release(gen.normal(mu1, 15.0, n), rng=6), releaser.release(gen.normal(mu2, 15.0, n), rng=7))


def test_result_and_unidentifiable_end_reported_as_infinite():
    a, b = _pair()
    res = mean2_repro_test(a, b, sigma=15.0, statistic="difference", n_sim=99, rng=1)
    assert res.method == "Repro-samples test of two clipped means (normal model, sigma known)"
    assert res.n_sim == 99 and res.estimate is None
    assert res.statistic == pytest.approx(float(a.value) / 100 - float(b.value) / 100)
    # group 1 far below 80 releases 80 exactly; some group-2 mean then matches the observed difference
    assert res.conf_int.low == -math.inf
    assert -20.0 < res.conf_int.high < 0.0
    assert res.pvalue < 0.05
    assert res.pvalue_function(res.conf_int.high + 1.0) <= 0.05
    assert res.pvalue_function(res.conf_int.high - 3.0) > 0.05
    assert "certified" in res.note and "Monte Carlo" in res.note


def test_mean_test_dispatches_two_releases():
    a, b = _pair()
    via = mean_test(a, b, margin=-5.0, method="repro", sigma=(15.0, 15.0), n_sim=59, rng=2)
    direct = mean2_repro_test(a, b, -5.0, sigma=(15.0, 15.0), n_sim=59, rng=2)
    assert via.pvalue == direct.pvalue
    assert via.conf_int.low == direct.conf_int.low and via.conf_int.high == direct.conf_int.high


def test_same_answer_on_every_call_without_rng():
    a, b = _pair()
    one = mean2_repro_test(a, b, sigma=15.0, n_sim=39)
    two = mean2_repro_test(a, b, sigma=15.0, n_sim=39)
    assert one.pvalue == two.pvalue and one.conf_int.high == two.conf_int.high


@pytest.mark.parametrize("kwargs, match", [
    ({}, "`sigma` is needed"),
    ({"sigma": 15.0, "model": "lognormal"}, "`model` must be 'normal'"),
    ({"sigma": -1.0}, "`sigma`"),
    ({"sigma": (15.0, 15.0, 1.0)}, "`sigma` must be None, a number or a pair"),
    ({"sigma": 15.0, "n_sim": 5}, "`n_sim`"),
    ({"sigma": 15.0, "alternative": "up"}, "`alternative`"),
])
def test_errors_name_the_argument(kwargs, match):
    a, b = _pair()
    with pytest.raises(ValueError, match=match):
        mean2_repro_test(a, b, **kwargs)


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
def test_releases_are_constant_beyond_the_lattice(case):
    # the table look-ups beyond the lattice rely on it: every simulated value is clipped there
    two = _two(case)
    for table in two.table:
        np.testing.assert_array_equal(table[0], table[1])
        np.testing.assert_array_equal(table[-1], table[-2])
    far = np.array([-1e300, (two.qlo - 5) * two.h, (two.qhi + 5) * two.h, 1e300])
    for k in (0, 1):
        got = two.stat(k, far)
        np.testing.assert_array_equal(got[:2], np.broadcast_to(two.table[k][0], (2, two.r)))
        np.testing.assert_array_equal(got[2:], np.broadcast_to(two.table[k][-1], (2, two.r)))


def test_progress_callback_counts_the_sweep():
    a, b = _pair()
    calls = []
    mean2_repro_test(a, b, sigma=15.0, statistic="difference", n_sim=19, rng=1,
                     progress=lambda done, total, msg: calls.append((done, total)))
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1] > 100
    assert all(x[0] <= y[0] for x, y in zip(calls, calls[1:]))
