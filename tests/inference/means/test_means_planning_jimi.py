"""mean_power / mean_sample_size for DP-JIMI (method='jimi').

Expected values: the Monte Carlo test's exact size at the null, ``(c + 1) / (H + 1)`` one-sided and
``2 (c + 1) / (H + 1)`` two-sided with ``c`` counted here from the p-value's formula (a closed form
that does not go through the laws); the real ``mean_jimi_test`` on releases of ``MeanReleaser``
(simulated, within 4 Monte Carlo SE); the batched kernel the simulated power uses checked to give
``mean_jimi_test``'s p-value bit for bit.
"""

import math

import numpy as np
import pytest

from dpinfer import MeanReleaser, mean_jimi_test, mean_power, mean_sample_size
from dpinfer.inference.means._common import clipped, mean_draws, pvalue, shares
from dpinfer.inference.means._draw_power import rejection_count

H = 2000  # mean_jimi_test's default draws


def _count(alpha, two_sided):
    """The largest count of draws on the null side that rejects, enumerated from the p-value's formula."""
    ks = np.arange(H + 1)
    p = (ks + 1) / (H + 1)
    p = np.minimum(1.0, 2 * p) if two_sided else p
    return int(ks[p <= alpha].max()) if np.any(p <= alpha) else -1


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1, 1e-4])
def test_rejection_count_is_the_formulas(alpha):
    for two in (False, True):
        assert rejection_count(H, alpha, two) == _count(alpha, two)


@pytest.mark.parametrize("alternative, size", [("two-sided", 2 * 50 / 2001), ("greater", 100 / 2001),
                                               ("less", 100 / 2001)])
@pytest.mark.parametrize("bounds", [(80.0, 180.0), (110.0, 135.0)])  # little and heavy clipping
def test_size_at_the_null_is_the_monte_carlo_tests_exactly(alternative, size, bounds):
    # at mu1 = mu0 the count of draws on the null side is Binomial(H, U), U uniform: P(k <= c) = (c + 1) / (H + 1);
    # the quadrature and the roots (1e-15) and Gil-Pelaez (1e-8 per cdf) keep the computed size within 1e-7
    res = mean_power(120.0, 40, mu0=120.0, sigma=15.0, lower=bounds[0], upper=bounds[1], epsilon=1.0,
                     alternative=alternative, method="jimi")
    assert float(res) == pytest.approx(size, abs=1e-7)
    assert "(2000 draws; exact)" in res.method


def test_the_batched_kernel_gives_mean_jimi_tests_p_value():
    gen = np.random.default_rng(8)
    releaser = MeanReleaser(1.0, 80.0, 180.0)
    for seed in range(5):
        rel = releaser.release(gen.normal(126.0, 15.0, 40), rng=100 + seed)
        draws = mean_draws(clipped(rel, "release", "test"), 15.0, "normal", H, np.random.default_rng(seed))
        p = float(pvalue(*shares(draws, 120.0), "two-sided"))
        assert p == mean_jimi_test(rel, 120.0, sigma=15.0, rng=seed).pvalue


# (call, data sets): exact powers checked against the real test's rejection rate
SETTINGS = [
    (dict(mu1=128.0, n=30, mu0=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0), 1500),
    (dict(mu1=126.0, n=25, mu0=120.0, sigma=12.0, lower=110.0, upper=135.0, epsilon=2.0, alternative="greater"), 1500),
]


@pytest.mark.parametrize("call, sets", SETTINGS)
def test_exact_power_against_the_real_test(call, sets):
    call = dict(call)
    power = float(mean_power(method="jimi", **call))
    n, mu1 = call.pop("n"), call.pop("mu1")
    mu0, sigma, alt = call["mu0"], call["sigma"], call.get("alternative", "two-sided")
    gen = np.random.default_rng(21)
    releaser = MeanReleaser(call["epsilon"], call["lower"], call["upper"])
    rejected = 0
    for i in range(sets):  # the real test, one release at a time (its own default stream)
        rel = releaser.release(gen.normal(mu1, sigma, n), rng=gen)
        rejected += mean_jimi_test(rel, mu0, sigma=sigma, alternative=alt).pvalue <= 0.05
    se = math.sqrt(power * (1 - power) / sets)  # 0.013 at power 0.5
    assert abs(rejected / sets - power) <= 4 * se


def test_sample_size_is_the_smallest_n_and_prints_dp_jimis_comparator():
    kw = dict(mu0=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0, method="jimi")
    res = mean_sample_size(130.0, **kw)
    n = int(res)
    assert float(mean_power(130.0, n, **kw)) >= 0.8 > float(mean_power(130.0, n - 1, **kw))
    assert res.exact_power == float(mean_power(130.0, n, **kw))
    text = str(res)
    assert "Sample size of the DP-JIMI test of a clipped mean (2000 draws; exact)" in text
    assert "the same DP-JIMI test without noise (clipping kept, epsilon = Inf)" in text
    # without noise the same test needs fewer; the price is the difference
    assert res.nonprivate_n < n and res.price == n - res.nonprivate_n


def test_two_groups_are_simulated_reproducibly_with_the_se_stated():
    kw = dict(mu2=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0, method="jimi", n_sim=200)
    a = mean_power(130.0, 40, **kw)
    b = mean_power(130.0, 40, **kw)
    assert float(a) == float(b)
    d = a.to_dict()
    assert d["n_sim"] == 200 and d["mc_se"] == pytest.approx(math.sqrt(float(a) * (1 - float(a)) / 200))
    assert "simulated, 200 data sets" in a.method and "DP-JIMI's stand-in" in str(a)


def test_simulated_cost_is_refused_from_public_numbers():
    with pytest.raises(ValueError, match="seed values, over 2e\\+09"):
        mean_power(130.0, 10**5, mu2=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0, method="jimi",
                   n_sim=10**4)
