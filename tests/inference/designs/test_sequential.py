"""Two-arm group-sequential designs (issue 36): the exact law, the boundaries, running, refusals.

Expected values come from ``tests/reference/``: ``group_sequential_rpact.json`` (R rpact's
``getDesignGroupSequential``, the call in ``make_group_sequential_rpact.R``) and
``group_sequential_values.json`` (direct summation in mpmath, ``make_group_sequential.py``,
which does not import dpinfer).  Monte Carlo checks are seeded and assert within 4 SE.
"""

import json
import math
import pathlib

import numpy as np
import pytest

from dpinfer import PrivacyBudget, SequentialDesign, sequential_design
from dpinfer.inference.designs import _walk_law as gs
from dpinfer.inference.designs._spending import spending_values
from validation._sequential_coverage import run_trials

REFERENCE = pathlib.Path(__file__).resolve().parents[2] / "reference"
RPACT = json.loads((REFERENCE / "group_sequential_rpact.json").read_text())
SUMMED = json.loads((REFERENCE / "group_sequential_values.json").read_text())
NAMES = {"asOF": "obrien-fleming", "asP": "pocock"}


@pytest.fixture(scope="module")
def design():
    return sequential_design(0.5, 0.3, looks=3, epsilon=1.0)


@pytest.mark.parametrize("ref", RPACT, ids=lambda r: f"{r['typeOfDesign']}-{r['kMax']}")
def test_spending_matches_rpact(ref):
    got = spending_values(NAMES[ref["typeOfDesign"]], ref["informationRates"], ref["alpha"])
    # rpact's interim values agree to its own precision (near 1e-8 relative: its normal
    # quantile); its last value is alpha within its 1e-8 tolerance
    np.testing.assert_allclose(got[:-1], ref["alphaSpent"][:-1], rtol=1e-7)
    assert got[-1] == ref["alpha"]
    assert abs(ref["alphaSpent"][-1] - ref["alpha"]) < 1e-7


@pytest.mark.parametrize("name", ["obrien-fleming", "pocock"])
def test_spending_closed_forms_mpmath(name):
    # Lan & DeMets (1983): 2 - 2 Phi(z_{1 - alpha/2} / sqrt(t)) and alpha log(1 + (e - 1) t)
    import mpmath as mp

    mp.mp.dps = 30
    alpha, fractions = 0.025, [0.1, 0.25, 0.5, 0.8, 1.0]
    z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(alpha) / 2 - 1)  # z_{1 - alpha/2}
    if name == "obrien-fleming":
        want = [mp.erfc(z / mp.sqrt(t) / mp.sqrt(2)) for t in fractions]
    else:
        want = [alpha * mp.log(1 + (mp.e - 1) * t) for t in fractions]
    np.testing.assert_allclose(spending_values(name, fractions, alpha), [float(w) for w in want], rtol=1e-12)


@pytest.mark.parametrize("case", SUMMED, ids=lambda c: c["name"])
def test_law_matches_direct_summation(case):
    stages = case["stages"]
    n1 = tuple(np.cumsum([s[0] for s in stages]).tolist())
    n2 = tuple(np.cumsum([s[1] for s in stages]).tolist())
    lat = gs._Lattice(n1, n2, case["a"], case["b"], case["sign"], case["epsilon"], 0.0)
    theta1 = [r[0] for r in case["rates"]]
    theta2 = [r[1] for r in case["rates"]]
    path = gs.propagate(lat, theta1, theta2, case["efficacy"])
    np.testing.assert_allclose(path.efficacy, case["values"], rtol=1e-10, atol=1e-14)


def test_cumulative_alpha_within_spending_and_boundaries_smallest(design):
    lat = design._lattice
    assert design.cumulative_alpha == pytest.approx(design.cumulative_alpha)
    assert all(a <= s for a, s in zip(design.cumulative_alpha, design.spent))
    # a fine grid on the common rate never exceeds the certified supremum
    nu = np.linspace(0.0, 1.0, 2001)
    eff = gs.propagate(lat, nu, nu, design.efficacy).efficacy.cumsum(axis=1)
    assert np.all(eff.max(axis=0) <= np.array(design.cumulative_alpha) * (1 + 1e-12))
    # and the same grid shows that one less at each look would spend too much
    for k in range(design.looks):
        lower = list(design.efficacy)
        lower[k] -= 1
        cum = gs.propagate(lat, nu, nu, lower, looks=k + 1).efficacy.sum(axis=1)
        assert cum.max() > design.spent[k]


def test_null_region_sup_is_on_the_line(design):
    # theta1 < theta2 (inside the null) rejects less than the common rate theta2
    lat = design._lattice
    inside = gs.propagate(lat, [0.2, 0.35, 0.6], [0.3, 0.4, 0.65], design.efficacy).efficacy.sum(axis=1)
    assert np.all(inside <= design.cumulative_alpha[-1])


def test_power_and_expected_n_at_planned_rates(design):
    assert design.exact_power >= 0.8
    oc = design.operating_characteristics(0.5, 0.3)
    assert oc.reject == pytest.approx(design.exact_power, rel=1e-12)
    assert oc.expected_n == pytest.approx(design.expected_n1, rel=1e-12)
    assert sum(oc.efficacy) + sum(oc.futility) == pytest.approx(1.0, abs=1e-12)
    # expected n from the stopping probabilities, written out
    sizes = np.array(design.n1) + np.array(design.n2)
    assert oc.expected_n == pytest.approx(float(np.dot(np.add(oc.efficacy, oc.futility), sizes)))
    assert design.nonprivate.epsilon is None
    assert design.nonprivate.max_n <= design.max_n


@pytest.mark.parametrize("ref", [r for r in RPACT if r["kMax"] == 3], ids=lambda r: r["typeOfDesign"])
def test_normal_limit_near_rpact(ref):
    # large arms, no noise (and epsilon = 30: D is 0 but for 2e-13): z = c / sd(W) at nu = 1/2
    fractions = ref["informationRates"]
    spent = spending_values(NAMES[ref["typeOfDesign"]], fractions, 0.025)
    for eps in (None, 30.0):
        lat = gs.lattice(900, fractions, 1, 1, 1, eps, 0.0)
        eff, _ = gs.efficacy_boundaries(lat, spent)
        z = [(c - 0.5) / math.sqrt(n / 2.0) for c, n in zip(eff, lat.n1)]  # continuity: the lattice midpoint
        np.testing.assert_allclose(z, ref["criticalValues"], atol=0.06)


def test_ratio_and_less():
    d = sequential_design(0.25, 0.45, looks=2, epsilon=2.0, ratio=2.0, spending="pocock")
    assert d.alternative == "less"
    assert all(n2 == 2 * n1 for n1, n2 in zip(d.n1, d.n2))
    assert all(a <= s for a, s in zip(d.cumulative_alpha, d.spent))
    assert d.efficacy_difference[0] < 0
    assert d.exact_power >= 0.8


def test_futility_non_binding():
    d = sequential_design(0.5, 0.3, looks=3, epsilon=1.0, futility="non-binding")
    plain = sequential_design(0.5, 0.3, looks=3, epsilon=1.0)
    assert d.futility_bounds[-1] is None and all(f is not None for f in d.futility_bounds[:-1])
    # non-binding: the efficacy boundaries ignore futility, at the same sizes they are the same
    if d.n1 == plain.n1:
        assert d.efficacy == plain.efficacy
    oc = d.operating_characteristics(0.3, 0.3)
    assert oc.reject <= d.cumulative_alpha[-1]
    assert d.expected_n0 < plain.expected_n0


def test_custom_spending_and_information():
    d = sequential_design(0.6, 0.3, looks=2, epsilon=None, spending=lambda t, a: a * t ** 2,
                          information=[0.4, 1.0])
    assert d.spending == "custom" and d.epsilon is None and d.nonprivate is None
    assert d.spent[0] == pytest.approx(0.025 * 0.16)
    assert d.n1[0] / d.n1[-1] == pytest.approx(0.4, abs=0.02)


def test_print_and_dict(design):
    text = str(design)
    assert "privacy: epsilon = 1" in text and "non-private design: maximum n" in text
    assert "O'Brien-Fleming" in text
    d = design.to_dict()
    json.dumps(d)
    assert d["n1"] == list(design.n1) and d["nonprivate"]["epsilon"] is None
    assert "P(reject H0)" in str(design.operating_characteristics(0.4, 0.3))
    assert isinstance(design, SequentialDesign)


def test_run_ledger_one_epsilon(design):
    budget = PrivacyBudget(1.0, description="trial")
    run = design.staged_release(budget=budget, label="trial")
    rng = np.random.default_rng(3)
    for stage, (m1, m2) in enumerate(design.stage_sizes(), 1):
        run.release(stage, [int(rng.binomial(m1, 0.5)), int(rng.binomial(m2, 0.3))], rng=rng)
        if run.stopped:
            break
    assert budget.spent_epsilon == 1.0
    assert len(budget.ledger) == 2 * len(run.releases)
    with pytest.raises(ValueError, match="nothing was drawn or charged"):
        run.release(len(run.releases), [1, 1], rng=1)
    assert budget.spent_epsilon == 1.0


@pytest.mark.parametrize("theta1, theta2", [(0.5, 0.3), (0.5, 0.5)])
def test_monte_carlo_through_staged_releases(design, theta1, theta2):
    runs = 1200
    exact = design.operating_characteristics(theta1, theta2).reject
    se = math.sqrt(exact * (1 - exact) / runs)
    runs_ = run_trials(design, theta1, theta2, runs, np.random.SeedSequence(20261128))
    rejected = np.mean([run.decision == "stop for efficacy" for run in runs_])
    assert abs(rejected - exact) <= 4 * se


def test_decide_refuses_whole_numbers(design):
    with pytest.raises(ValueError, match="confidential count"):
        design.decide(1, [20.0], [10.5])
    with pytest.raises(ValueError, match="non-finite"):
        design.decide(1, [np.nan], [10.5])
    with pytest.raises(ValueError, match="one released value for each of looks 1..2"):
        design.decide(2, [20.5], [10.5, 11.5])
    with pytest.raises(TypeError, match="sequence of released values"):
        design.decide(1, ["a"], [10.5])
    with pytest.raises(ValueError, match="look"):
        design.decide(4, [20.5] * 4, [10.5] * 4)
    assert design.decide(1, [40.2], [0.3]) == "stop for efficacy"
    assert design.decide(1, [20.2], [20.3]) == "continue"
    assert design.decide(3, [20.2, 20.1, 20.4], [20.3, 20.2, 20.1]) == "stop for futility"


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(theta1=0.3, theta2=0.3), ValueError, "must differ"),
    (dict(theta1=1.0), ValueError, "theta1"),
    (dict(theta1="a"), TypeError, "theta1"),
    (dict(looks=1), ValueError, "looks"),
    (dict(looks=7), ValueError, "looks"),
    (dict(alpha=0.6), ValueError, "one-sided"),
    (dict(alpha=1e-7), ValueError, r"\[1e-6, 0.5\)"),
    (dict(power=0.01), ValueError, "must exceed"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
    (dict(epsilon=None, delta=1e-6), ValueError, "non-private"),
    (dict(spending="linear"), ValueError, "spending"),
    (dict(spending=lambda t, a: "x"), TypeError, "must return a number"),
    (dict(spending=lambda t, a: 2 * a * t), ValueError, r"values in \[0, alpha\]"),
    (dict(spending=lambda t, a: a if t < 0.5 or t == 1.0 else a / 2), ValueError, "non-decreasing"),
    (dict(spending=lambda t, a: a * t / 2), ValueError, "all of alpha"),
    (dict(futility="binding"), ValueError, "futility"),
    (dict(ratio=0.7), ValueError, "ratio"),
    (dict(ratio=-1.0), ValueError, "ratio"),
    (dict(information=[0.5, 0.4, 1.0]), ValueError, "information"),
    (dict(information=[0.5, 1.0]), ValueError, "information"),
    (dict(information=3), TypeError, "information"),
    (dict(theta1=0.31, theta2=0.3), ValueError, "no design with at most 1000"),
    (dict(epsilon=0.015, theta1=0.95, theta2=0.05, looks=6), ValueError, "lattice"),
    (dict(epsilon=0.005, theta1=0.9, theta2=0.1), ValueError, "no design with at most 1000"),
])
def test_refusals(kwargs, error, match):
    args = dict(theta1=0.5, theta2=0.3, looks=3, epsilon=1.0)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        sequential_design(args.pop("theta1"), args.pop("theta2"), **args)


def test_run_refused_without_privacy():
    d = sequential_design(0.6, 0.3, looks=2, epsilon=None)
    with pytest.raises(ValueError, match="non-private design"):
        d.staged_release()


@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.0), (1.0, 1e-6), (0.5, 0.01)])
def test_rounded_release_law_from_the_tulap_cdf(epsilon, delta):
    # P(round(Z) = k) = sum_x Binom(x) [F(k - x + 1/2) - F(k - x - 1/2)], F the (truncated) Tulap cdf
    from scipy import stats

    from dpinfer import Tulap

    n, theta = 7, 0.4
    k0, pmf = gs.count_pmf(n, epsilon, delta, [theta])
    law = Tulap.from_privacy(epsilon, delta)
    x = np.arange(n + 1)
    binom = stats.binom.pmf(x, n, theta)
    want = [float(np.sum(binom * (law.cdf(k - x + 0.5) - law.cdf(k - x - 0.5))))
            for k in range(k0, k0 + pmf.shape[1])]
    np.testing.assert_allclose(pmf[0], want, rtol=0, atol=1e-13)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-15)


def test_approximate_dp_design():
    d = sequential_design(0.6, 0.3, looks=2, epsilon=1.0, delta=1e-6)
    assert d.delta == 1e-6 and all(a <= s for a, s in zip(d.cumulative_alpha, d.spent))
    assert d.exact_power >= 0.8


def test_fft_convolution_error_below_the_slack():
    # the walk's densities at 300 per arm, epsilon = 0.5, by FFT against numpy's direct sums
    lat = gs.lattice(300, (0.25, 0.5, 0.75, 1.0), 1, 1, 1, 0.5, 0.0)
    density, direct = np.ones((1, 1)), np.ones(1)
    for k in range(lat.looks):
        _, inc = gs.increment(lat, k, [0.4], [0.4])
        _, p1 = gs.count_pmf(lat.stage(k)[0], 0.5, 0.0, [0.4])
        _, p2 = gs.count_pmf(lat.stage(k)[1], 0.5, 0.0, [0.4])
        step = np.convolve(p1[0], p2[0][::-1])
        np.testing.assert_allclose(inc[0], step, rtol=0, atol=1e-16)
        density, direct = gs._convolve(density, inc), np.convolve(direct, step)
        assert np.abs(density[0] - direct).max() < gs.FFT_SLACK / 100
