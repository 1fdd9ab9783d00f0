"""DP-UMP inference for a Tulap release of count sensitivity k > 1: exact for the released law.

References: ``tests/reference/make_ump_sensitivity.py`` (mpmath, 40 digits: the
convolution Binomial(n, p0) (+) Tulap(0, exp(-epsilon / k), q_1) on the release grid,
with the unit parameters computed there from their definition).
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from dpinfer import (
    ConfidenceInterval,
    Release,
    Tulap,
    TulapReleaser,
    binom_ump_ci,
    binom_ump_phi,
    binom_ump_power,
    binom_ump_sample_size,
    binom_ump_test,
    prop_test,
)

REF = json.loads((Path(__file__).parents[2] / "reference" / "ump_sensitivity_values.json").read_text())



def _at(z, n, epsilon, sensitivity):
    """z as a Tulap release record of sensitivity k: root searches visit whole z too, which
    typed as numbers are refused as confidential counts (a Release is never judged by its digits)."""
    return Release(z, "tulap", epsilon, 0.0, float(sensitivity), n, "count")

def _groups():
    groups = {}
    for case in REF["pvalues"]:
        key = (case["sensitivity"], case["n"], case["p0"], case["epsilon"], case["delta"])
        groups.setdefault(key, []).append(case)
    return sorted(groups.items())


@pytest.mark.parametrize("key,cases", _groups(),
                         ids=lambda v: "-".join(map(str, v)) if isinstance(v, tuple) else "")
def test_pvalues_match_mpmath(key, cases):
    """Relative 1e-12, as for k = 1 (the package's double q_1 differs from the 40-digit one
    by about 1e-16 relative)."""
    k, n, p0, epsilon, delta = key
    z = np.array([c["z"] for c in cases])
    for alternative, field in (("greater", "greater"), ("less", "less"), ("two-sided", "two_sided")):
        got = binom_ump_test(z, n, p0, epsilon=epsilon, delta=delta, alternative=alternative,
                             sensitivity=k)
        want = np.array([float(c[field]) for c in cases])
        ok = np.abs(got - want) <= np.maximum(1e-12 * want, 1e-300)
        assert ok.all(), (alternative, z[~ok], got[~ok], want[~ok])


def test_reference_is_not_the_sensitivity_one_law():
    """The check has teeth: the k = 1 p-values miss the reference by far."""
    case = next(c for c in REF["pvalues"] if c["sensitivity"] == 3 and c["n"] == 30
                and c["epsilon"] == 1.0 and c["delta"] == 0.0 and c["p0"] == 0.5)
    got = binom_ump_test(case["z"], 30, 0.5, epsilon=1.0, alternative="greater").pvalue
    assert abs(got - float(case["greater"])) > 1e-3


@pytest.mark.parametrize("case", REF["intervals"], ids=lambda c: "{sensitivity}-{n}-{epsilon}-{delta}-{z}-{alternative}".format(**c))
def test_intervals_match_mpmath(case):
    ci = binom_ump_ci(case["z"], case["n"], epsilon=case["epsilon"], delta=case["delta"],
                      confidence_level=case["level"], alternative=case["alternative"],
                      sensitivity=case["sensitivity"])
    assert isinstance(ci, ConfidenceInterval)
    assert ci.low == pytest.approx(float(case["low"]), abs=1e-9)
    assert ci.high == pytest.approx(float(case["high"]), abs=1e-9)


# -- size and coverage, exactly -------------------------------------------------------------

SIZE_GRID = [(k, n, p0, eps, delta) for k in (2, 3) for n in (1, 10, 30, 100, 1000)
             for p0 in (0.1, 0.5, 0.9) for eps in (0.5, 1.0, 3.0) for delta in (0.0, 0.01)]


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_size_is_alpha_at_k_2_and_3(alternative):
    worst = 0.0
    for k, n, p0, eps, delta in SIZE_GRID:
        size = binom_ump_power(p0, n, p0, epsilon=eps, delta=delta, alpha=0.05,
                               alternative=alternative, sensitivity=k)
        worst = max(worst, abs(size - 0.05))
    assert worst <= 1e-10


@pytest.mark.parametrize("k,n,p0,eps,delta", SIZE_GRID[::9])
def test_phi_is_the_epsilon_over_k_tulap_cdf_with_size_alpha(k, n, p0, eps, delta):
    """phi(x) = F(x - m) for F the Tulap(exp(-eps / k), q_1) cdf (built here), size alpha by a
    plain sum, and the decision is epsilon-DP for counts up to k apart:
    phi(x + j) <= e^eps phi(x) and 1 - phi(x) <= e^eps (1 - phi(x + j)), j <= k
    (Awan & Slavkovic 2018, Def. 3.1, at distance k), to 1e-12 relative."""
    phi = binom_ump_phi(n, p0, epsilon=eps, delta=delta, alpha=0.05, sensitivity=k,
                        alternative="greater")
    x = np.arange(n + 1)
    assert float(np.sum(stats.binom.pmf(x, n, p0) * phi)) == pytest.approx(0.05, abs=1e-10)
    b = math.exp(-eps / k)
    delta_1 = delta / sum(math.exp(j * eps / k) for j in range(k))
    law = Tulap(0.0, b, 2 * delta_1 * b / (1 - b + 2 * delta_1 * b))
    inner = phi[(phi > 1e-9) & (phi < 1 - 1e-9)]
    if inner.size:  # recover m from one interior value, then every phi(x) is F(x - m)
        i = int(np.flatnonzero((phi > 1e-9) & (phi < 1 - 1e-9))[0])
        m = i - law.icdf(phi[i])
        np.testing.assert_allclose(phi, law.cdf(x - m), rtol=1e-9, atol=1e-12)
    if delta == 0.0:
        bound = math.exp(eps) * (1 + 1e-12)
        for j in range(1, k + 1):
            assert np.all(phi[j:] <= bound * phi[:-j] + 1e-300)
            assert np.all(1 - phi[:-j] <= bound * (1 - phi[j:]) + 1e-15)


# sweeps releases however implausible: the InputWarning about a single slip does not apply
@pytest.mark.filterwarnings("ignore::dpinfer.InputWarning")
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("theta", [0.1, 0.37, 0.8])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_interval_coverage_is_exact(k, theta, alternative):
    """P_theta(theta in CI(Z)) as a finite sum over x of Binom(x) P(x + N in {z: theta in CI(z)}),
    N the (continuous) Tulap law of epsilon / k built here; the grid of 2**-40 moves it by
    less than 1e-11, so 1e-8 is generous."""
    n, eps = 30, 1.0
    law = Tulap(0.0, math.exp(-eps / k), 0.0)
    end = "low" if alternative == "greater" else "high"

    def g(z):
        return getattr(binom_ump_ci(_at(z, n, eps, k), alternative=alternative), end) - theta

    z_star = optimize.brentq(g, -80.0, n + 80.0, xtol=1e-12)
    x = np.arange(n + 1)
    pmf = stats.binom.pmf(x, n, theta)
    if alternative == "greater":
        coverage = float(np.sum(pmf * law.cdf(z_star - x)))
    else:
        coverage = float(np.sum(pmf * law.ccdf(z_star - x)))
    assert coverage == pytest.approx(0.95, abs=1e-8)


# sweeps releases however implausible: the InputWarning about a single slip does not apply
@pytest.mark.filterwarnings("ignore::dpinfer.InputWarning")
@pytest.mark.parametrize("k,theta", [(2, 0.2), (3, 0.5), (3, 0.93)])
def test_two_sided_interval_coverage(k, theta):
    """{z : theta in CI(z)} = [a, b] (both ends monotone in z), found by bisection; the
    coverage sum_x Binom(x) (F(b - x) - F(a - x)) is at least the level (exactly the level
    for the accepted set; the estimate kept next to an edge adds a sliver)."""
    n, eps = 20, 1.0
    law = Tulap(0.0, math.exp(-eps / k), 0.0)

    def first_true(pred, lo, hi):
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if pred(mid) else (mid, hi)
        return hi

    def ci(z):
        return binom_ump_ci(_at(z, n, eps, k))

    a = first_true(lambda z: ci(z).high >= theta, -80.0, n + 80.0)
    b = first_true(lambda z: ci(z).low > theta, -80.0, n + 80.0)
    x = np.arange(n + 1)
    coverage = float(np.sum(stats.binom.pmf(x, n, theta) * (law.cdf(b - x) - law.cdf(a - x))))
    assert 0.95 - 1e-11 <= coverage <= 0.951


# -- the release carries k ------------------------------------------------------------------

def test_release_supplies_the_sensitivity_and_conflicts_are_refused():
    rel = TulapReleaser(1.0, 0.01, sensitivity=3).release(11, 30, rng=5)
    res = binom_ump_test(rel, 0.2, alternative="greater")
    plain = binom_ump_test(rel.value, 30, 0.2, epsilon=1.0, delta=0.01, alternative="greater",
                           sensitivity=3)
    assert res.pvalue == plain.pvalue and res.conf_int == plain.conf_int
    assert binom_ump_test(rel, 0.2, alternative="greater", sensitivity=3).pvalue == res.pvalue
    assert binom_ump_ci(rel) == binom_ump_ci(rel.value, 30, epsilon=1.0, delta=0.01, sensitivity=3)
    with pytest.raises(ValueError, match=r"`sensitivity` = 1 conflicts with the release's sensitivity 3"):
        binom_ump_test(rel, 0.2, sensitivity=1)
    with pytest.raises(ValueError, match="`sensitivity` = 2 conflicts"):
        binom_ump_ci(rel, sensitivity=2)
    # a hand-made Release whose sensitivity is not a whole number is refused by name
    odd = Release(11.0, "tulap", 1.0, 0.0, 1.5, 30, "count")
    with pytest.raises(ValueError, match="`sensitivity` must be a whole number; got 1.5"):
        binom_ump_test(odd, 0.2)


def test_result_mentions_the_sensitivity():
    rel = TulapReleaser(1.0, sensitivity=2).release(11, 30, rng=5)
    res = binom_ump_test(rel, 0.2)
    assert "sensitivity 2" in res.method and "sensitivity 2" in str(res)
    assert "sensitivity 2" in res.to_htest()["method"]
    assert res.privacy_unit == "one person, moving the count by up to 2 (n public)"
    assert res.epsilon == 1.0  # what the release spent, not epsilon / k
    one = binom_ump_test(TulapReleaser(1.0).release(11, 30, rng=5), 0.2)
    assert "sensitivity" not in one.method


def test_prop_test_follows_the_release():
    rel = TulapReleaser(1.0, sensitivity=3).release(11, 30, rng=9)
    a = prop_test(rel, p0=0.2, alternative="greater")
    b = binom_ump_test(rel, 0.2, alternative="greater")
    assert a.pvalue == b.pvalue and a.method == b.method


def test_k_with_epsilon_equals_epsilon_over_k_at_k_1_when_pure():
    """Cross-check: with delta = 0 and k a power of two (epsilon / k exact) every function
    equals the k = 1 function at epsilon / k, except for the recorded epsilon."""
    z = np.array([-2.5, 4.25, 13.125, 33.5])
    for alternative in ("greater", "less", "two-sided"):
        np.testing.assert_array_equal(
            binom_ump_test(z, 30, 0.3, epsilon=2.0, alternative=alternative, sensitivity=4),
            binom_ump_test(z, 30, 0.3, epsilon=0.5, alternative=alternative))
    np.testing.assert_array_equal(binom_ump_ci(z, 30, epsilon=2.0, sensitivity=4),
                                  binom_ump_ci(z, 30, epsilon=0.5))
    assert (binom_ump_power(0.5, 30, 0.3, epsilon=2.0, sensitivity=4)
            == binom_ump_power(0.5, 30, 0.3, epsilon=0.5))
    assert (binom_ump_sample_size(0.4, 0.2, epsilon=2.0, sensitivity=4)
            == binom_ump_sample_size(0.4, 0.2, epsilon=0.5))


@pytest.mark.parametrize("k", [2, 3])
def test_sample_size_is_the_smallest_n(k):
    kw = dict(epsilon=1.0, delta=0.01, alpha=0.05, sensitivity=k)
    n = binom_ump_sample_size(0.45, 0.2, power=0.8, **kw)
    assert binom_ump_power(0.45, n, 0.2, **kw) >= 0.8 > binom_ump_power(0.45, n - 1, 0.2, **kw)
    # a wider sensitivity needs more records
    assert n > binom_ump_sample_size(0.45, 0.2, power=0.8, epsilon=1.0, delta=0.01)


@pytest.mark.parametrize(("bad", "error", "match"), [
    (0, ValueError, "`sensitivity` must be an integer >= 1; got 0"),
    (2.5, ValueError, "`sensitivity` must be a whole number; got 2.5"),
    ("3", TypeError, "`sensitivity` must be an integer"),
])
def test_bad_sensitivity_is_refused_everywhere(bad, error, match):
    with pytest.raises(error, match=match):
        binom_ump_test(3.0, 10, 0.5, epsilon=1.0, sensitivity=bad)
    with pytest.raises(error, match=match):
        binom_ump_ci(3.0, 10, epsilon=1.0, sensitivity=bad)
    with pytest.raises(error, match=match):
        binom_ump_power(0.5, 10, 0.3, epsilon=1.0, sensitivity=bad)
    with pytest.raises(error, match=match):
        binom_ump_phi(10, 0.3, epsilon=1.0, sensitivity=bad)
    with pytest.raises(error, match=match):
        binom_ump_sample_size(0.5, 0.3, epsilon=1.0, sensitivity=bad)


def test_epsilon_per_unit_too_small_is_refused():
    with pytest.raises(ValueError, match=r"`epsilon` must be at least 0.0001 \(per unit of count"):
        binom_ump_test(3.25, 10, 0.5, epsilon=0.01, sensitivity=1000)


def test_releases_drawn_by_the_releaser_give_uniform_pvalues_end_to_end():
    """Releaser and inference agree on the law: under H0 the one-sided p-value of the grid
    law, P(Z >= z), is uniform up to one grid atom (2**-40), so the share of p <= 0.05 is
    0.05 within 4 SE (SE = sqrt(0.05 * 0.95 / N) = 6.9e-4 for N = 100,000) and KS against
    U(0, 1) passes at level 1e-6.  Analysing the same releases as if k were 1 (too little
    noise) rejects far too often: the check has teeth."""
    n_rel, n, p0, k = 100_000, 30, 0.3, 3
    gen = np.random.default_rng(2028)
    x = gen.binomial(n, p0, size=n_rel)
    rel = TulapReleaser(1.0, sensitivity=k).release(x, n, rng=gen)
    p = binom_ump_test(rel, p0, alternative="greater")
    se = math.sqrt(0.05 * 0.95 / n_rel)
    assert abs(np.mean(p <= 0.05) - 0.05) <= 4 * se
    assert stats.kstest(p, "uniform").pvalue > 1e-6
    wrong = binom_ump_test(rel.value, n, p0, epsilon=1.0, alternative="greater")
    assert np.mean(wrong <= 0.05) > 0.05 + 20 * se
