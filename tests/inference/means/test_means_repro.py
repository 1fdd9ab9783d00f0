"""Repro samples for the mean of clipped data (mean_repro_test), against independent references.

* ``tests/reference/make_repro.py`` (does not import dpinfer) recomputes the p-value from
  its definition with plain loops on explicit seeds, simulating the released law (grid,
  integer sum, discrete Laplace integer, the release's affine map) written out again: the
  package, reading its p-values off the seeds' roots, must give the same counts exactly,
  and its interval must be the set the reference's scan accepts.
* The R -> infinity limit at n = 1 is the released value's tail probability, computed
  there from the grid law of one clipped normal value and the discrete noise's tail; the
  package's p-value with R = 20000 seeds is within 4 SE of it.
* Validity with the Monte Carlo error included: with R = 39 seeds the size of the
  two-sided 10% test is exactly 0.1 ((R + 1) 0.05 is an integer), checked on 600 data
  sets within 4 SE.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpinfer import MeanReleaser, Release, mean_jimi_test, mean_repro_test, mean_test
from dpinfer.inference.means._common import clipped
from dpinfer.inference.means.repro._one_group import repro_interval, repro_pvalues, seed_roots
from dpinfer.inference.means.repro._simulator import GridSeeds, draw_noise, from_key, to_key
from dpinfer.distributions._mean_grid import release_grid

REF = json.loads((Path(__file__).parents[2] / "reference" / "repro_values.json").read_text())
ALTERNATIVES = ("two-sided", "less", "greater")


def _release(total, n, lower, upper, epsilon):
    return Release(float(total), "laplace", float(epsilon), 0.0, upper - lower, n, "clipped_sum",
                   bounds=(float(lower), float(upper)))


def _roots(case):
    rel = _release(case["sum"], case["n"], case["lower"], case["upper"], case["epsilon"])
    data = clipped(rel, "release", "mean_repro_test")
    lows, highs = seed_roots(data, case["sigma"], case["model"], np.array(case["normals"]),
                             np.array(case["noise"], dtype=np.int64))
    return np.sort(lows), np.sort(highs)


@pytest.mark.parametrize("case", REF["small"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_pvalues_equal_the_definition_on_explicit_seeds(case, alternative):
    got = repro_pvalues(*_roots(case), case["nulls"], alternative)
    np.testing.assert_allclose(got, case["pvalues"][alternative], rtol=0, atol=1e-15)


@pytest.mark.parametrize("case", REF["small"], ids=lambda c: c["name"])
def test_roots_are_the_first_and_last_doubles_of_the_step(case):
    # each seed's release is a step function of the mean: >= S from m on (not at the double before),
    # <= S up to M (not at the double after); with S on the grid most seeds tie S on [m, M]
    rel = _release(case["sum"], case["n"], case["lower"], case["upper"], case["epsilon"])
    data = clipped(rel, "release", "mean_repro_test")
    normals, noise = np.array(case["normals"]), np.array(case["noise"], dtype=np.int64)
    seeds = GridSeeds(data.grid(), normals, noise, case["sigma"], case["model"])
    m, big = seeds.roots(case["sum"])
    s = case["sum"]
    rows = np.flatnonzero(np.isfinite(m) & (m > 0) if case["model"] == "lognormal" else np.isfinite(m))
    assert rows.size >= case["R"] // 3
    assert (seeds.released(m[rows], rows) >= s).all()
    assert (seeds.released(from_key(to_key(m[rows]) - 1), rows) < s).all()
    rows = np.flatnonzero(np.isfinite(big) & (big > 0))
    assert (seeds.released(big[rows], rows) <= s).all()
    assert (seeds.released(from_key(to_key(big[rows]) + 1), rows) > s).all()
    # an infinite root: the release is beyond S at every mean
    top = np.full(m.size, np.finfo(float).max)
    assert (seeds.released(top[m == np.inf], np.flatnonzero(m == np.inf)) < s).all()
    assert (seeds.released(-top[m == -np.inf], np.flatnonzero(m == -np.inf)) >= s).all()
    ties = int(((big >= m) & np.isfinite(m) & np.isfinite(big) & (m != 0)).sum())
    assert ties >= case["R"] // 2 if case["name"] == "n2_on_grid" else ties == 0


def test_the_simulator_is_the_releaser_bit_for_bit():
    # data mean + sigma e with mean 0, sigma 1 and e the data themselves, and the noise drawn from the
    # same seeded generator by the same sampler: the simulated releases are the released values exactly
    x = np.random.default_rng(5).normal(3.0, 2.0, (40, 25))
    rel = MeanReleaser(0.7, 0.0, 5.0).release(x, rng=9)
    grid = release_grid(0.7, 0.0, 5.0, 25)
    seeds = GridSeeds(grid, x, draw_noise(np.random.default_rng(9), grid.lams[0], 40), 1.0, "normal")
    assert np.array_equal(seeds.released(np.zeros(40), np.arange(40)), rel.value)


@pytest.mark.parametrize("case", REF["small"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("level", [0.5, 0.8, 0.95])
def test_interval_is_the_acceptance_set_of_the_definition(case, alternative, level):
    low, high = repro_interval(*_roots(case), level, alternative)
    accepted = np.array(case["pvalues"][alternative]) > 1 - level + 1e-12
    nulls = np.array(case["nulls"])
    assert np.array_equal(accepted, (low <= nulls) & (nulls <= high))


def test_public_function_uses_the_checked_kernel_on_its_seeds():
    case = REF["small"][1]
    rel = _release(case["sum"], case["n"], case["lower"], case["upper"], case["epsilon"])
    res = mean_repro_test(rel, 1.5, sigma=case["sigma"], n_sim=50, rng=7, confidence_level=0.8)
    gen = np.random.default_rng(7)
    normals = gen.standard_normal((50, case["n"]))
    noise = draw_noise(gen, release_grid(case["epsilon"], case["lower"], case["upper"], case["n"]).lams[0], 50)
    lows, highs = (np.sort(v) for v in seed_roots(clipped(rel, "release", "x"), case["sigma"], "normal", normals,
                                                   noise))
    assert res.pvalue == float(repro_pvalues(lows, highs, 1.5, "two-sided"))
    assert tuple(res.conf_int) == tuple(float(v) for v in repro_interval(lows, highs, 0.8, "two-sided"))
    assert res.n_sim == 50 and "R = 50 seeds" in res.note and "Monte Carlo error included" in res.note
    assert res.pvalue_function(1.5) == res.pvalue


@pytest.mark.parametrize("ref", REF["limit_n1"], ids=lambda r: f"mu0={r['mu0']}")
def test_many_seeds_reach_the_release_tail_probability(ref):
    n_sim = 20_000
    rel = _release(ref["sum"], 1, ref["lower"], ref["upper"], ref["epsilon"])
    p = mean_repro_test(rel, ref["mu0"], sigma=ref["sigma"], alternative="greater", n_sim=n_sim, rng=3).pvalue
    target = ref["p_greater"]
    se = math.sqrt(target * (1 - target) / n_sim)  # about 0.0035
    assert abs(p - target) <= 4 * se + 1 / (n_sim + 1)


@pytest.mark.parametrize("model, mu, sigma, lower, upper", [
    ("normal", 2.0, 1.0, 0.0, 3.0),          # clips about 2% below and 16% above
    ("lognormal", 0.0, 0.5, 0.5, 1.5),       # clips about 8% below and 21% above
])
def test_size_is_the_level_with_few_seeds(model, mu, sigma, lower, upper):
    # the seeds of all 600 releases in one batch (the kernel mean_repro_test calls, checked above)
    reps, n, r = 600, 10, 39
    gen = np.random.default_rng(11)
    truth = mu if model == "normal" else math.exp(mu + sigma**2 / 2)
    x = gen.normal(mu, sigma, (reps, n))
    x = x if model == "normal" else np.exp(x)
    rel = MeanReleaser(1.0, lower, upper).release(x, rng=12)
    grid = release_grid(1.0, lower, upper, n)
    seeds = GridSeeds(grid, gen.standard_normal((reps * r, n)), draw_noise(gen, grid.lams[0], reps * r), sigma,
                      model)
    lows, highs = (v.reshape(reps, r) for v in seeds.roots(np.repeat(rel.value, r)))
    rejected = sum(repro_pvalues(np.sort(lo), np.sort(hi), truth, "two-sided") <= 0.1 for lo, hi in zip(lows, highs))
    rate = rejected / reps
    se = math.sqrt(0.1 * 0.9 / reps)  # 0.0122: the test is exact, size 0.1 ((R + 1) 0.05 = 2, an integer)
    assert abs(rate - 0.1) <= 4 * se


def test_close_to_dp_jimi_with_known_sigma():
    x = np.random.default_rng(3).normal(130.0, 15.0, 200)
    rel = MeanReleaser(1.0, 80.0, 150.0).release(x, rng=4)
    repro = mean_repro_test(rel, 125.0, sigma=15.0, n_sim=4000, rng=1)
    jimi = mean_jimi_test(rel, 125.0, sigma=15.0, n_sim=4000, rng=1)
    # nearly the same roots (the repro seeds simulate the released grid and discrete noise, DP-JIMI the
    # continuous law), read with (R + 1) ranks instead of shares: the ends move by much less than the length
    assert abs(repro.conf_int.low - jimi.conf_int.low) < 0.05 * (jimi.conf_int.high - jimi.conf_int.low)
    assert abs(repro.conf_int.high - jimi.conf_int.high) < 0.05 * (jimi.conf_int.high - jimi.conf_int.low)


def test_one_sided_intervals_and_the_entry_point():
    x = np.random.default_rng(5).normal(1.0, 1.0, 40)
    rel = MeanReleaser(2.0, -1.0, 2.0, spread=True).release(x, rng=6)
    two = mean_repro_test(rel, 0.5, sigma=1.0, rng=2)
    greater = mean_repro_test(rel, 0.5, sigma=1.0, alternative="greater", rng=2)
    less = mean_repro_test(rel, 0.5, sigma=1.0, alternative="less", rng=2)
    assert greater.conf_int.high == math.inf and less.conf_int.low == -math.inf
    assert two.conf_int.low < greater.conf_int.low < less.conf_int.high < two.conf_int.high
    assert "released squares are not used" in two.note
    assert mean_test(rel, mu0=0.5, sigma=1.0, method="repro", n_sim=1999, rng=2).pvalue == two.pvalue
    # a few seeds cannot reject at 5% two-sided: the set is the whole line
    few = mean_repro_test(rel, 0.5, sigma=1.0, n_sim=30, rng=2)
    assert tuple(few.conf_int) == (-math.inf, math.inf) and few.pvalue >= 2 / 31


def test_errors():
    rel = MeanReleaser(1.0, 0.0, 1.0, spread=True).release(np.full(20, 0.5), rng=1)
    with pytest.raises(ValueError, match="`sigma` is needed for the repro-samples method when the release holds"):
        mean_repro_test(MeanReleaser(1.0, 0.0, 1.0).release(np.full(20, 0.5), rng=1))
    with pytest.raises(ValueError, match="covers the normal model and the two-sided test; got model = 'lognormal'"):
        mean_repro_test(rel, 1.0, model="lognormal")
    with pytest.raises(ValueError, match="alternative = 'less'"):
        mean_repro_test(rel, alternative="less")
    with pytest.raises(ValueError, match="`sigma` is needed for the two-group repro-samples test"):
        mean_test(rel, rel, method="repro")
    with pytest.raises(ValueError, match="`release` must be one release"):
        mean_repro_test(MeanReleaser(1.0, 0.0, 1.0).release(np.full((2, 5), 0.5), rng=1), sigma=1.0)
    with pytest.raises(ValueError, match="`n_sim` must be at least 10"):
        mean_repro_test(rel, sigma=1.0, n_sim=5)
    with pytest.raises(TypeError, match="`release` must be a Release"):
        mean_repro_test(3.0, sigma=1.0)


# -- sigma unknown, spread released: the projection certified on boxes

def _spread(case):
    from dpinfer.inference.means.repro._unknown_spread import Spread

    grid = release_grid(case["epsilon"], case["lower"], case["upper"], case["n"], case["split"])
    return Spread(grid, case["sum"], case["squares"], np.array(case["normals"]),
                  np.array(case["sum_noise"], dtype=np.int64), np.array(case["squares_noise"], dtype=np.int64))


def test_joint_pvalue_equals_the_definition_at_points():
    case = REF["spread"]
    sp = _spread(case)
    mu, sg = np.meshgrid(case["mus"], case["sigmas"], indexing="ij")
    got = sp.upper(mu.ravel(), mu.ravel(), sg.ravel(), sg.ravel()).reshape(mu.shape)
    np.testing.assert_allclose(got, case["pvalues"], rtol=0, atol=1e-15)


def test_box_bounds_hold_every_point_of_the_box():
    case = REF["spread"]
    sp = _spread(case)
    mus, sigmas, table = np.array(case["mus"]), np.array(case["sigmas"]), np.array(case["pvalues"])
    for i0, i1, j0, j1 in [(18, 22, 2, 6), (20, 30, 0, 10), (25, 27, 9, 11), (0, 60, 0, 18), (30, 33, 5, 8)]:
        bound = sp.upper(mus[i0], mus[i1], sigmas[j0], sigmas[j1])[0]
        assert table[i0:i1 + 1, j0:j1 + 1].max() <= bound
    # infinite ends: the whole plane bounds everything
    assert sp.upper(-np.inf, np.inf, 0.0, np.inf)[0] >= table.max()


def test_projected_set_and_pvalue_contain_the_definitions_projection():
    from dpinfer.inference.means.repro._unknown_spread import acceptance_set, projected_pvalue

    case = REF["spread"]
    sp = _spread(case)
    table, mus = np.array(case["pvalues"]), np.array(case["mus"])
    pieces = acceptance_set(sp, 0.2)
    for mu, row in zip(mus, table):
        if row.max() > 0.2:  # some sigma of the grid accepts mu: the set must hold it
            assert any(lo <= mu <= hi for lo, hi in pieces)
        assert projected_pvalue(sp, mu) >= row.max()
    # and it is not the whole line: the far means are rejected
    assert pieces[0][0] > mus[0] and pieces[-1][1] < mus[-1]


def _spread_coverage(reps, seed):
    gen = np.random.default_rng(seed)
    n, covered, finite = 8, 0, 0
    for _ in range(reps):
        x = gen.normal(5.5, 1.5, n)
        rel = MeanReleaser(20.0, 0.0, 7.0, spread=True).release(x, rng=gen)  # clips about 16% above
        res = mean_repro_test(rel, 5.5, n_sim=99, confidence_level=0.8, rng=gen)
        covered += res.conf_int.low <= 5.5 <= res.conf_int.high
        finite += np.isfinite(res.conf_int.low) and np.isfinite(res.conf_int.high)
    assert "spread released" in res.method and "R = 99 seeds" in res.note and res.estimate is None
    return covered / reps, finite / reps


def test_spread_released_result_and_coverage():
    coverage, finite = _spread_coverage(6, 21)
    assert finite == 1.0  # the set is informative, not the whole line
    assert coverage >= 0.8 - 4 * math.sqrt(0.8 * 0.2 / 6)  # 4 SE = 0.65: a smoke check; the slow test measures


@pytest.mark.slow
def test_spread_released_coverage_is_at_least_the_level():
    # valid at every R: coverage at least 0.8 within 4 SE (4 sqrt(.8 .2 / 80) = 0.18); measured 0.947 with
    # 150 data sets (seed 22): the projection and the Bonferroni step are conservative
    coverage, _ = _spread_coverage(80, 22)
    assert coverage >= 0.8 - 4 * math.sqrt(0.8 * 0.2 / 80)
