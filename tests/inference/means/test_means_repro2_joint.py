"""The joint statistic of mean2_repro_test (the default): reference values, finiteness, coverage.

The reference (tests/reference/make_repro2_joint.py, no dpinfer) brackets the joint
p-value's supremum over the nuisance between a dense grid's maximum and a monotone box
bound, on the explicit seeds of tests/reference/repro2_values.json; the package's exact
value must lie between them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpinfer import MeanReleaser, Release, mean2_repro_test
from dpinfer.inference.means._common import clipped
from dpinfer.inference.means.repro._joint import differences, joint_pvalues, joint_set
from dpinfer.inference.means.repro._one_group import seed_roots

HERE = Path(__file__).parents[2] / "reference"
SEEDS = {c["name"]: c for c in json.loads((HERE / "repro2_values.json").read_text())["cases"]}
REF = json.loads((HERE / "repro2_joint_values.json").read_text())
ALTERNATIVES = ("two-sided", "less", "greater")


def _roots(case):
    out = []
    for key in ("group1", "group2"):
        g = SEEDS[case["name"]][key]
        release = Release(float(g["sum"]), "laplace", float(g["epsilon"]), 0.0, g["upper"] - g["lower"], g["n"],
                          "clipped_sum", bounds=(float(g["lower"]), float(g["upper"])))
        d = clipped(release, "release", "x")
        m, big_m = seed_roots(d, g["sigma"], "normal", np.array(g["normals"]), np.array(g["noise"], dtype=np.int64))
        out.append((np.sort(m), np.sort(big_m)))
    return out


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_pvalue_lies_between_the_reference_grid_maximum_and_box_bound(case, alternative):
    roots1, roots2 = _roots(case)
    bounds = differences(roots1, roots2, alternative)
    r = roots1[0].size
    for row in case["points"] + case["scan"]:
        p = float(joint_pvalues(bounds, r, row["delta"], alternative))
        assert row["grid_max"][alternative] - 1e-12 <= p <= row["box_bound"][alternative] + 1e-12, row["delta"]


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_set_holds_what_the_reference_accepts_and_not_what_it_rejects(case, alternative):
    roots1, roots2 = _roots(case)
    low, high = joint_set(differences(roots1, roots2, alternative), roots1[0].size, REF["alpha_scan"], alternative)
    alpha = REF["alpha_scan"]
    accepted = [row["delta"] for row in case["scan"] if row["grid_max"][alternative] > alpha]
    rejected = [row["delta"] for row in case["scan"] if row["box_bound"][alternative] <= alpha]
    assert accepted and rejected
    assert all(low <= d <= high for d in accepted)
    assert not any(low <= d <= high for d in rejected)
    # one-sided sets are half-lines, the two-sided set is finite on both sides (no unidentifiable end)
    assert (low == -math.inf) == (alternative == "less") and (high == math.inf) == (alternative == "greater")


def _docs_pair():
    gen = np.random.default_rng(2026)
    drug, placebo = gen.normal(128.0, 14.0, 150), gen.normal(136.0, 14.0, 150)
    releaser = MeanReleaser(epsilon=1.0, lower=90.0, upper=170.0, spread=True)
    return releaser.release(drug, rng=21), releaser.release(placebo, rng=22)


@pytest.mark.parametrize("setting", [
    # (n, lower, upper, mu1, mu2, sigma, epsilon): both tails clipped often in each group
    (100, -1.0, 1.0, 0.0, 0.3, 1.0, 1.0),
    (50, 0.0, 3.0, 1.5, 1.5, 1.5, 0.5),
    (200, 120.0, 140.0, 125.0, 135.0, 15.0, 2.0),
])
def test_interval_finite_where_the_difference_statistic_is_not(setting):
    n, lower, upper, mu1, mu2, sigma, eps = setting
    gen = np.random.default_rng(int(n))
    releaser = MeanReleaser(eps, lower, upper)
    a = releaser.release(gen.normal(mu1, sigma, n), rng=gen)
    b = releaser.release(gen.normal(mu2, sigma, n), rng=gen)
    joint = mean2_repro_test(a, b, sigma=sigma, n_sim=399, rng=1)
    assert math.isfinite(joint.conf_int.low) and math.isfinite(joint.conf_int.high)
    assert joint.conf_int.low <= mu1 - mu2 <= joint.conf_int.high
    assert joint.pvalue_function(joint.conf_int.low - 1e-9) <= 0.05 < joint.pvalue_function(joint.conf_int.low)
    old = mean2_repro_test(a, b, sigma=sigma, statistic="difference", n_sim=39, rng=1)
    assert not (math.isfinite(old.conf_int.low) and math.isfinite(old.conf_int.high))


def test_docs_example_finite_and_the_default():
    a, b = _docs_pair()
    res = mean2_repro_test(a, b, sigma=14.0)
    assert res.n_sim == 1999 and "joint statistic" in res.method
    assert -30.0 < res.conf_int.low < -8.0 < res.conf_int.high < 5.0
    assert res.pvalue == res.pvalue_function(0.0)
    assert res.estimate == pytest.approx(-8.0, abs=5.0)
    assert res.conf_int.low < res.estimate < res.conf_int.high


def test_coverage_seeded_under_the_model():
    # 200 pairs of groups of 40 clipped at [0, 2] on both sides (16% each tail), R = 199 seeds per group;
    # coverage at least 0.95 up to Monte Carlo error: SE sqrt(0.95 0.05 / 200) = 0.0154, 4 SE = 0.062
    reps, n, r = 200, 40, 199
    gen = np.random.default_rng(8)
    releaser = MeanReleaser(1.0, 0.0, 2.0)
    covered = 0
    for i in range(reps):
        a = releaser.release(gen.normal(1.0, 1.0, n), rng=gen)
        b = releaser.release(gen.normal(1.2, 1.0, n), rng=gen)
        ci = mean2_repro_test(a, b, sigma=1.0, n_sim=r, rng=i).conf_int
        covered += ci.low <= -0.2 <= ci.high
    rate = covered / reps
    assert rate >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / reps)


def test_statistic_is_checked():
    a, b = _docs_pair()
    with pytest.raises(ValueError, match="`statistic` must be one of 'joint', 'difference'; got 'sum'"):
        mean2_repro_test(a, b, sigma=14.0, statistic="sum")
    with pytest.raises(TypeError, match="`statistic`"):
        mean2_repro_test(a, b, sigma=14.0, statistic=1)
