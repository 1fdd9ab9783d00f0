"""The naive comparator against its formula written out here, and mean_test's dispatch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer import MeanReleaser, mean2_naive_test, mean_naive_test, mean_test


def test_one_sample_formula():
    x = np.random.default_rng(1).normal(3.0, 2.0, 40)
    rel = MeanReleaser(0.8, 0.0, 8.0, spread=True, split=0.3).release(x, rng=2)
    s_sum, q = rel.value
    n, mid = 40, 4.0
    mean = s_sum / n
    s2 = (q / n - (mean - mid) ** 2) * n / (n - 1)
    var = s2 / n + 2 * (8.0 / (0.8 * 0.3) / n) ** 2
    res = mean_naive_test(rel, mu0=2.5)
    z = (mean - 2.5) / math.sqrt(var)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    half = stats.norm.ppf(0.975) * math.sqrt(var)
    assert res.conf_int.low == pytest.approx(mean - half, rel=1e-12)
    assert res.conf_int.high == pytest.approx(mean + half, rel=1e-12)
    assert res.estimate == pytest.approx(mean, rel=1e-15)
    known = mean_naive_test(rel, mu0=2.5, sigma=2.0, alternative="greater")
    var_k = 4.0 / n + 2 * (8.0 / (0.8 * 0.3) / n) ** 2
    assert known.conf_int.low == pytest.approx(mean - stats.norm.ppf(0.95) * math.sqrt(var_k), rel=1e-12)
    assert known.conf_int.high == math.inf
    assert known.pvalue == pytest.approx(stats.norm.sf((mean - 2.5) / math.sqrt(var_k)), rel=1e-10)


def test_two_sample_formula_and_dispatch():
    gen = np.random.default_rng(3)
    releaser = MeanReleaser(1.0, 0.0, 10.0)
    a = releaser.release(gen.normal(5.0, 1.0, 30), rng=4)
    b = releaser.release(gen.normal(4.0, 1.5, 20), rng=5)
    var = 1.0 / 30 + 2.25 / 20 + 2 * (10.0 / 30) ** 2 + 2 * (10.0 / 20) ** 2
    diff = a.value / 30 - b.value / 20
    res = mean2_naive_test(a, b, sigma=(1.0, 1.5), alternative="less", confidence_level=0.9)
    assert res.conf_int.high == pytest.approx(diff + stats.norm.ppf(0.9) * math.sqrt(var), rel=1e-12)
    assert res.pvalue == pytest.approx(stats.norm.cdf(diff / math.sqrt(var)), rel=1e-10)
    assert mean_test(a, b, method="naive", sigma=(1.0, 1.5), alternative="less", confidence_level=0.9) == res
    assert mean_test([a, b], method="naive", sigma=(1.0, 1.5), alternative="less", confidence_level=0.9) == res
    assert "ignores the clipping bias" in str(res)


def test_naive_interval_misses_under_one_sided_clipping():
    """Clipping 20% above biases the clipped mean by about -0.14 sd: at n = 2000 the naive
    interval (half-width about 0.05 sd with little noise) misses mu, DP-JIMI (known sigma) does not."""
    q80 = stats.norm.ppf(0.8)
    x = np.random.default_rng(7).normal(0.0, 1.0, 2000)
    rel = MeanReleaser(5.0, -6.0, q80).release(x, rng=8)
    naive = mean_naive_test(rel, sigma=1.0)
    jimi = mean_test(rel, sigma=1.0, n_sim=500, rng=9)
    # the bias of the clipped mean, E min(X, b) for X ~ N(0, 1), by quadrature: -0.1116
    from scipy.integrate import quad

    bias = quad(lambda t: min(t, q80) * stats.norm.pdf(t), -12, 12, points=[q80])[0]
    se = (naive.conf_int.high - naive.estimate) / stats.norm.ppf(0.975)
    assert abs(naive.estimate - bias) < 4 * se  # the naive interval is centred on the clipped mean
    assert naive.conf_int.high < 0.0
    assert jimi.conf_int.low < 0.0 < jimi.conf_int.high
