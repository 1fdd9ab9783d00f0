"""The exact private McNemar test: reference values, the non-private limit, exact size and coverage, errors."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import gammaln, xlogy

from dpinfer import (
    PairedTableReleaser,
    TulapReleaser,
    mcnemar_power,
    mcnemar_sample_size,
    mcnemar_test,
    prop_test,
)
from dpinfer.inference.pairs import _law
from dpinfer.inference.pairs._mcnemar import _Observation

REFERENCE = json.loads((Path(__file__).parents[2] / "reference" / "mcnemar_values.json").read_text())
H = 2.0**-40


@pytest.mark.parametrize("case", REFERENCE, ids=lambda c: f"n{c['n']}-eps{c['epsilon']}-z{c['z_difference']}")
def test_pvalues_and_tails_match_the_mpmath_reference(case):
    # tests/reference/make_mcnemar.py: direct summation over the counts and the noises (mpmath)
    n, eps, zd, zs, margin = case["n"], case["epsilon"], case["z_difference"], case["z_discordant"], case["margin"]
    epsilon_1 = eps / 2
    obs = _Observation(zd, zs, n, epsilon_1, H / 2)
    assert obs.level == case["level"]
    line = _law._Line(margin)
    for upper, name in ((True, "greater"), (False, "less")):
        ref = case["tails"][name]
        psi = [p for p in ref["psi"] if p >= abs(margin)]
        values, _ = _law.tail_on_line(obs.counts[upper], line, np.array(psi))
        np.testing.assert_allclose(values, [float(v) for v in ref["values"]], rtol=1e-10, atol=1e-14)
        res = mcnemar_test([zd, zs], n, epsilon=eps, margin=margin, alternative=name)
        assert res.pvalue == pytest.approx(float(ref["sup"]), rel=1e-10)
        assert res.pvalue >= float(ref["sup"]) * (1 - 1e-13)  # the certificate never undershoots


def test_two_sided_is_twice_the_smaller_one_sided():
    case = REFERENCE[3]
    args = ([case["z_difference"], case["z_discordant"]], case["n"])
    res = mcnemar_test(*args, epsilon=case["epsilon"])
    assert res.pvalue == pytest.approx(min(1.0, 2 * float(case["tails"]["greater"]["sup"])), rel=1e-10)


def _exact_unconditional(table, grid=2001):
    """The non-private exact unconditional McNemar test, enumerated: sup over psi of P(M >= M_obs, d >= d_obs).

    The order is McNemar's ``d / sqrt(max(s, 1))`` closed as dpinfer's (on the counts' lattice
    ``|d| <= s`` the closure only involves possible cells; see the module docstring of ``_law``),
    ties broken by ``d``; the supremum over a grid of 2001 points plus the grid's maximum.
    """
    n = int(np.sum(table))
    d_obs, s_obs = table[1][0] - table[0][1], table[1][0] + table[0][1]
    M = _law.ordering(n, 60.0 / 2)  # at epsilon = 60, v = 2 b / (1 - b)^2 ~ 2e-13: McNemar's own statistic
    m_obs = M[d_obs + n, s_obs]
    a, m = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = a + m <= n
    level = M[np.clip(m - a + n, 0, 2 * n), np.clip(a + m, 0, n)]
    beyond = ok & ((level > m_obs) | ((level == m_obs) & (m - a >= d_obs)))
    psi = np.linspace(0, 1, grid)[:, None, None]
    rest = np.where(ok, n - a - m, 0)
    logc = gammaln(n + 1) - gammaln(a + 1) - gammaln(m + 1) - gammaln(rest + 1)
    logp = logc + xlogy(a + m, psi / 2) + xlogy(rest, 1 - psi)
    probs = np.exp(logp) * beyond
    return float(np.max(probs.sum(axis=(1, 2))))


@pytest.mark.parametrize("table", [[[10, 2], [9, 11]], [[20, 7], [1, 12]], [[5, 3], [3, 9]], [[30, 4], [12, 14]]])
def test_non_private_limit_is_the_exact_unconditional_mcnemar_test(table):
    # epsilon = 60: the integer noise is 0 but for 2e-13, and z_D at d - (1/2 - 1e-6) puts every
    # tie with d >= d_obs in the tail: the test is the exact unconditional McNemar test
    from statsmodels.stats.contingency_tables import mcnemar

    n = int(np.sum(table))
    d, s = table[1][0] - table[0][1], table[1][0] + table[0][1]
    res = mcnemar_test([d - (0.5 - 1e-6), s + 0.25], n, epsilon=60.0, alternative="greater")
    expected = _exact_unconditional(table)
    assert res.pvalue == pytest.approx(expected, abs=2e-6)  # the share 1 - 1e-6 of the tied cell d = d_obs
    # statsmodels' exact conditional test (binomial on the discordant pairs) is a comparison, not a
    # reference (another test): its one-sided p-value is half the two-sided one when d > 0, at least
    # 1/2 otherwise; on these tables both tests reach the same decision at 0.05 (docs/pairs.rst)
    conditional = mcnemar(table, exact=True).pvalue / 2 if d > 0 else 1.0
    assert (res.pvalue <= 0.05) == (conditional <= 0.05)


@pytest.mark.parametrize("n, epsilon", [(12, 0.5), (20, 1.0), (30, 3.0)])
def test_exact_size_is_at_most_alpha_on_the_null_line(n, epsilon):
    for psi in (0.05, 0.2, 0.5, 0.9):
        for alternative in ("greater", "two-sided"):
            size = mcnemar_power(psi / 2, psi / 2, n, epsilon=epsilon, alpha=0.05, alternative=alternative)
            assert size <= 0.05 + 1e-12


@pytest.mark.parametrize("p01, p10", [(0.05, 0.15), (0.3, 0.1), (0.02, 0.4)])
def test_exact_coverage_of_the_interval_is_at_least_the_level(p01, p10):
    # the interval misses the true difference exactly when the two-sided test of that margin rejects:
    # coverage = 1 - P(reject H0: p10 - p01 = true value), computed exactly
    miss = mcnemar_power(p01, p10, 20, epsilon=1.0, margin=p10 - p01, alpha=0.1, alternative="two-sided")
    assert 1 - miss >= 0.9 - 1e-12


def test_size_by_monte_carlo_agrees_with_the_exact_size():
    # 400 seeded releases at p01 = p10 = 0.2, n = 12, epsilon = 1: the share with p <= 0.1 (one-sided)
    # is within 4 standard errors of the exact size mcnemar_power computes
    rng = np.random.default_rng(38)
    counts = rng.multinomial(12, [0.2, 0.2, 0.6], size=400)
    tables = np.stack([np.stack([counts[:, 2], counts[:, 0]], -1), np.stack([counts[:, 1], counts[:, 2] * 0], -1)], 1)
    rel = PairedTableReleaser(1.0).release(tables, rng=5)
    rejected = 0
    for zd, zs in rel.value:
        obs = _Observation(zd, zs, 12, 0.5, H / 2)
        rejected += obs.pvalue(0.0, True) <= 0.1
    exact = mcnemar_power(0.2, 0.2, 12, epsilon=1.0, alpha=0.1, alternative="greater")
    se = math.sqrt(exact * (1 - exact) / 400)
    assert abs(rejected / 400 - exact) <= 4 * se


def test_interval_ends_are_where_the_one_sided_pvalues_cross():
    rel = PairedTableReleaser(2.0).release([[15, 3], [9, 13]], rng=11)
    res = mcnemar_test(rel, confidence_level=0.9)
    low, high = res.conf_int
    assert mcnemar_test(rel, margin=low + 1e-6, alternative="greater").pvalue > 0.05
    assert mcnemar_test(rel, margin=low - 1e-4, alternative="greater").pvalue <= 0.05
    assert mcnemar_test(rel, margin=high - 1e-6, alternative="less").pvalue > 0.05
    assert mcnemar_test(rel, margin=high + 1e-4, alternative="less").pvalue <= 0.05


def test_result_prints_like_mcnemar_test_with_the_privacy_lines():
    rel = PairedTableReleaser(1.0).release([[12, 2], [9, 10]], rng=7)
    res = mcnemar_test(rel)
    text = str(res)
    assert "McNemar" in text and "p10 - p01" in text and "privacy: epsilon = 1, delta = 0" in text
    assert "one pair" in text
    assert res.to_htest()["null.value"] == {"p10 - p01": 0.0}
    assert prop_test(rel).pvalue == res.pvalue  # routing of a paired release


def test_power_grows_and_sample_size_reaches_the_power():
    low = mcnemar_power(0.05, 0.4, 10, epsilon=2.0, alternative="greater")
    high = mcnemar_power(0.05, 0.4, 20, epsilon=2.0, alternative="greater")
    assert low < high
    n = mcnemar_sample_size(0.05, 0.4, epsilon=2.0, power=0.8, alternative="greater")
    assert mcnemar_power(0.05, 0.4, n, epsilon=2.0, alternative="greater") >= 0.8
    assert mcnemar_power(0.05, 0.4, n - 1, epsilon=2.0, alternative="greater") < 0.8


def test_errors_name_the_argument_and_the_rule():
    count = TulapReleaser(1.0).release(5, 20, rng=1)
    with pytest.raises(ValueError, match="which mcnemar_test does not take"):
        mcnemar_test(count)
    with pytest.raises(TypeError, match="`n` is required"):
        mcnemar_test([1.5, 2.5], epsilon=1.0)
    with pytest.raises(ValueError, match="confidential count"):
        mcnemar_test([3.0, 5.5], 20, epsilon=1.0)
    with pytest.raises(ValueError, match="one released pair"):
        mcnemar_test([1.5, 2.5, 3.5], 20, epsilon=1.0)
    with pytest.raises(ValueError, match="at most 1000 pairs"):
        mcnemar_test([1.5, 2.5], 1001, epsilon=1.0)
    rel = PairedTableReleaser(1.0).release([[4, 1], [2, 3]], rng=1)
    with pytest.raises(ValueError, match=r"`margin` must be in \(-1, 1\)"):
        mcnemar_test(rel, margin=1.0)
    with pytest.raises(ValueError, match="`epsilon` must not be given"):
        mcnemar_test(rel, epsilon=1.0)
    with pytest.raises(ValueError, match="`alternative`"):
        mcnemar_test(rel, alternative="bigger")
    with pytest.raises(ValueError, match="must be at most 1"):
        mcnemar_power(0.6, 0.5, 20, epsilon=1.0)
    with pytest.raises(ValueError, match="`n` must be at most 1000"):
        mcnemar_power(0.1, 0.2, 2000, epsilon=1.0)
    with pytest.raises(ValueError, match="`epsilon` must be at least 0.02"):
        mcnemar_power(0.1, 0.2, 20, epsilon=1e-3)
    with pytest.raises(ValueError, match="`epsilon` must be at least 0.02"):
        mcnemar_test([1.5, 2.5], 20, epsilon=0.01)
