"""The audit's statistics (dpinfer/audit/_bounds.py): Clopper-Pearson bounds against scipy and
closed forms, bounds recomputable from the counts, the false-alarm rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer import LaplaceReleaser, RandomizedResponseReleaser, audit_releaser
from dpinfer.audit._bounds import _cp_lower, _cp_upper

from _audit_cases import N


# -- the statistics --------------------------------------------------------------


@pytest.mark.parametrize("k, m", [(0, 50), (1, 50), (17, 50), (49, 50), (50, 50), (12345, 20000)])
@pytest.mark.parametrize("tail", [0.025, 0.1])
def test_clopper_pearson_matches_scipy(k, m, tail):
    # scipy's binomtest finds the endpoints by root finding (about 1e-10 relative)
    ci = stats.binomtest(k, m).proportion_ci(confidence_level=1 - 2 * tail, method="exact")
    assert float(_cp_lower(k, m, tail)) == pytest.approx(ci.low, rel=1e-8, abs=1e-300)
    assert float(_cp_upper(k, m, tail)) == pytest.approx(ci.high, rel=1e-8)


@pytest.mark.parametrize("m", [1, 50, 20_000])
def test_clopper_pearson_closed_forms(m):
    tail = 0.025
    # k = 1: 1 - (1 - p)**m = tail;  k = m - 1 upper: mirror;  k = 0: upper 1 - tail**(1/m)
    assert float(_cp_lower(1, m, tail)) == pytest.approx(-math.expm1(math.log1p(-tail) / m), rel=1e-13)
    assert float(_cp_upper(0, m, tail)) == pytest.approx(-math.expm1(math.log(tail) / m), rel=1e-13)
    assert float(_cp_lower(m, m, tail)) == pytest.approx(math.exp(math.log(tail) / m), rel=1e-13)
    assert float(_cp_lower(0, m, tail)) == 0.0 and float(_cp_upper(m, m, tail)) == 1.0


def test_reported_bound_is_recomputable_from_the_counts():
    res = audit_releaser(RandomizedResponseReleaser(2.0), 1, 0, n_samples=N, rng=5)
    tail = (1 - res.confidence_level) / 2
    k_num, k_den = res.counts
    m = res.n_eval
    lo = stats.beta.ppf(tail, k_num, m - k_num + 1)
    hi = stats.beta.ppf(1 - tail, k_den + 1, m - k_den)
    assert res.p_lower == pytest.approx(lo, rel=1e-9)
    assert res.p_upper == pytest.approx(hi, rel=1e-9)
    assert res.epsilon_lower == pytest.approx(math.log((lo - res.delta) / hi), rel=1e-9)
    assert res.n_eval == N // 2 and res.n_samples == N


def test_false_alarm_rate_is_at_most_one_minus_confidence():
    """400 audits of Warner RR (whose best event has ratio exactly e^epsilon) at level 0.8.

    Each audit flags a violation with probability <= 0.2 (the guarantee); budget:
    0.2 + 4 SE with SE = sqrt(0.2 * 0.8 / 400) = 0.02.
    """
    seeds = np.random.SeedSequence(99).spawn(400)
    rr = RandomizedResponseReleaser(1.0)
    flags = [
        audit_releaser(rr, 0, 1, n_samples=2_000, confidence_level=0.8, rng=np.random.default_rng(s)).violation
        for s in seeds
    ]
    assert np.mean(flags) <= 0.2 + 4 * 0.02


def test_no_loss_gives_zero():
    res = audit_releaser(LaplaceReleaser(1.0), 0.5, 0.5, n_samples=4_000, rng=1)
    assert res.epsilon_lower < 0.2 and not res.violation
