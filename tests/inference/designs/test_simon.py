"""Simon's two-stage design made private (issue 36, items 1, 3 and 4 for one arm)."""

import json
import math
import pathlib

import numpy as np
import pytest
from scipy import stats

from dpinfer import PrivacyBudget, SimonDesign, simon_design, simon_test

REF = json.loads((pathlib.Path(__file__).parents[2] / "reference" / "simon_oc_values.json").read_text())

# Simon, R. (1989), Controlled Clinical Trials 10, 1-10, Table 1 (alpha = 0.05):
# (p0, p1, power, design, r1, n1, r, n, EN0, PET0) as printed (EN0 to 0.1, PET0 to 0.01).
SIMON_TABLE_1 = [
    (0.05, 0.25, 0.8, "optimal", 0, 9, 2, 17, 12.0, 0.63),
    (0.05, 0.25, 0.8, "minimax", 0, 12, 2, 16, 13.8, 0.54),
    (0.10, 0.30, 0.8, "optimal", 1, 10, 5, 29, 15.0, 0.74),
    (0.10, 0.30, 0.8, "minimax", 1, 15, 5, 25, 19.5, 0.55),
    (0.20, 0.40, 0.8, "optimal", 3, 13, 12, 43, 20.6, 0.75),
    (0.20, 0.40, 0.8, "minimax", 4, 18, 10, 33, 22.3, 0.72),
    (0.30, 0.50, 0.8, "optimal", 5, 15, 18, 46, 23.6, 0.72),
    (0.30, 0.50, 0.8, "minimax", 6, 19, 16, 39, 25.7, 0.67),
    (0.10, 0.30, 0.9, "optimal", 2, 18, 6, 35, 22.5, 0.73),
    (0.10, 0.30, 0.9, "minimax", 2, 22, 6, 33, 26.2, 0.62),
]


@pytest.mark.parametrize("p0, p1, power, design, r1, n1, r, n, en0, pet0", SIMON_TABLE_1)
def test_without_noise_the_search_is_simons_published_design(p0, p1, power, design, r1, n1, r, n, en0, pet0):
    d = simon_design(p0, p1, alpha=0.05, power=power, epsilon=None, design=design)
    assert (d.r1, d.n1, d.r, d.n) == (r1, n1, r, n)
    assert round(d.en0, 1) == en0 and round(d.pet0, 2) == pet0
    assert d.size <= 0.05 and d.power >= power and d.reference is None


def _brute_force(p0, p1, alpha, power, design, max_n):
    """Simon's search by plain loops over (n, n1, r1, r) with exact binomial pmfs (math.comb)."""
    def pmf(m, p):
        return [math.comb(m, x) * p ** x * (1 - p) ** (m - x) for x in range(m + 1)]

    def sf(f, k):  # P(X > k)
        return sum(f[max(k + 1, 0):]) if k < len(f) - 1 else 0.0

    best = None
    for n in range(2, max_n + 1):
        for n1 in range(1, n):
            f0, g0 = pmf(n1, p0), pmf(n - n1, p0)
            f1, g1 = pmf(n1, p1), pmf(n - n1, p1)
            for r1 in range(0, n1):
                for r in range(r1, n):
                    size = sum(f0[x] * sf(g0, r - x) for x in range(r1 + 1, n1 + 1))
                    if size <= alpha:
                        pw = sum(f1[x] * sf(g1, r - x) for x in range(r1 + 1, n1 + 1))
                        if pw >= power:
                            en0 = n1 + (1 - sum(f0[:r1 + 1])) * (n - n1)
                            key = (en0, n) if design == "optimal" else (n, en0)
                            if best is None or key < best[0]:
                                best = (key, (r1, n1, r, n))
                        break  # larger r: smaller size and power
    return best[1]


@pytest.mark.parametrize("p0, p1, design", [(0.1, 0.3, "optimal"), (0.1, 0.3, "minimax"),
                                             (0.05, 0.25, "optimal"), (0.15, 0.4, "minimax")])
def test_without_noise_the_search_agrees_with_a_brute_force_search(p0, p1, design):
    d = simon_design(p0, p1, epsilon=None, design=design, max_n=30)
    assert (d.r1, d.n1, d.r, d.n) == _brute_force(p0, p1, 0.05, 0.8, design, 30)


def _design(n1, n2, r1, r, epsilon, delta=0.0, p0=0.1):
    return SimonDesign(p0=p0, p1=0.3, alpha=0.05, target_power=0.8, epsilon=epsilon, delta=delta, design="optimal",
                       n1=n1, n=n1 + n2, r1=r1, r=r, size=0.0, power=0.0, pet0=0.0, en0=0.0, max_n=60)


def test_private_operating_characteristics_match_the_mpmath_reference():
    # tests/reference/make_simon_oc.py: direct summation over the stage counts, noise cells integrated
    for e in REF["oc"]:
        d = _design(*e and REF["designs"][e["design"]])
        oc = d.operating_characteristics(e["theta"])
        assert abs(float(oc.reject) - e["reject"]) < 1e-10 and abs(float(oc.pet) - e["pet"]) < 1e-10
        n1, n = d.n1, d.n
        assert float(oc.en) == pytest.approx(n1 + (1 - e["pet"]) * (n - n1), abs=1e-9)


def test_operating_characteristics_are_vectorised_over_p():
    d = _design(17, 24, 2, 8, 1.0)
    p = np.array([[0.1, 0.3], [0.55, 0.3]])
    oc = d.operating_characteristics(p)
    assert oc.reject.shape == oc.pet.shape == oc.en.shape == (2, 2)
    assert oc.reject[0, 1] == oc.reject[1, 1] and oc.reject[0, 0] < oc.reject[0, 1] < oc.reject[1, 0]


def _independent_size(d):
    """Exact size by numpy convolution of the binomial with the discrete Laplace pmf (delta = 0)."""
    b = math.exp(-d.epsilon)
    reach = int(60 / d.epsilon) + 5
    dk = np.arange(-reach, reach + 1)
    noise = (1 - b) / (1 + b) * b ** np.abs(dk)

    def k_pmf(m):
        return -reach, np.convolve(stats.binom.pmf(np.arange(m + 1), m, d.p0), noise)

    k1_min, f1 = k_pmf(d.n1)
    k2_min, f2 = k_pmf(d.n2)
    size = 0.0
    for i, v in enumerate(f1):
        k1 = k1_min + i
        if k1 > d.r1:
            start = d.r - k1 + 1 - k2_min
            size += v * (f2[max(start, 0):].sum() if start < f2.size else 0.0)
    return size


@pytest.mark.parametrize("p0, p1, epsilon, design", [
    (0.1, 0.3, 1.0, "optimal"), (0.1, 0.3, 2.0, "minimax"), (0.2, 0.45, 3.0, "optimal"),
    (0.3, 0.6, 0.7, "minimax"), (0.05, 0.3, 1.5, "optimal"),
])
def test_every_private_design_returned_has_exact_size_at_most_alpha(p0, p1, epsilon, design):
    d = simon_design(p0, p1, epsilon=epsilon, design=design, max_n=50)
    size = _independent_size(d)
    assert size <= 0.05 and d.size == pytest.approx(size, abs=1e-12)
    assert d.power >= 0.8
    assert d.reference is not None and d.reference.epsilon is None
    assert d.en0 >= d.reference.en0 - 1e-9 if design == "optimal" else d.n >= d.reference.n


def test_with_delta_the_design_still_keeps_its_size_and_power():
    d = simon_design(0.1, 0.3, epsilon=1.0, delta=1e-4, max_n=50)
    assert d.size <= 0.05 and d.power >= 0.8 and d.delta == 1e-4
    oc = d.operating_characteristics([d.p0, d.p1])
    assert oc.reject[0] == d.size and oc.reject[1] == d.power


def test_large_epsilon_is_the_non_private_design():
    d = simon_design(0.1, 0.3, epsilon=40.0)
    assert (d.r1, d.n1, d.r, d.n) == (1, 10, 5, 29)
    assert abs(d.en0 - d.reference.en0) < 1e-9


def test_printout_and_dict_show_the_price_of_privacy():
    d = simon_design(0.1, 0.3, epsilon=2.0, max_n=60)
    text = str(d)
    assert "Simon 2-stage Phase II design (private stages)" in text
    assert "Optimal (no privacy)  1 10 5 29  15.01  0.7361" in text
    assert "privacy: epsilon = 2, delta = 0 for the whole design" in text and "price of privacy: EN(p0) +" in text
    data = json.loads(d.to_json())
    assert data["reference"]["n"] == 29 and data["n"] == d.n and data["epsilon"] == 2.0


def test_running_the_design_charges_epsilon_once_and_follows_its_rule():
    d = simon_design(0.1, 0.3, epsilon=2.0, max_n=60)
    budget = PrivacyBudget(2.0, description="phase II")
    run = d.staged_release(budget=budget)
    run.release(1, 4, rng=3)
    assert run.decision == ("continue" if round(run.releases[0][0].value) > d.r1 else "stop for futility")
    if run.decision == "continue":
        run.release(2, 8, rng=4)
        k = sum(round(s[0].value) for s in run.releases)
        assert run.decision == ("stop for efficacy" if k > d.r else "stop for futility")
    assert budget.spent_epsilon == 2.0 and all("stage" in e.label for e in budget.ledger)
    res = simon_test(d, run)
    assert res.epsilon == 2.0 and res.mechanism == "tulap" and res.secure is False
    with pytest.raises(ValueError, match=r"`epsilon` of the design is None"):
        simon_design(0.1, 0.3, epsilon=None).staged_release()


@pytest.mark.parametrize("e", REF["tails"], ids=lambda e: f"d{e['design']}-s{e['stage']}-{e['theta']}")
def test_end_of_trial_tails_match_the_mpmath_reference(e):
    design = _design(*REF["designs"][e["design"]], p0=e["theta"])
    values = [e["z1"]] + ([e["z2"]] if e["z2"] is not None else [])
    for alternative, key in (("greater", "upper"), ("less", "lower")):
        res = simon_test(design, values, alternative=alternative)
        assert abs(res.pvalue - e[key]) < 1e-10


def test_interval_ends_are_where_the_tails_cross_the_level_and_estimate_is_median_unbiased():
    design = _design(17, 24, 2, 8, 1.0)
    values = [4.75, 5.3125]
    res = simon_test(design, values, alternative="two-sided", confidence_level=0.9)
    low, high = res.conf_int
    assert 0 < low < res.estimate < high < 1
    assert simon_test(_design(17, 24, 2, 8, 1.0, p0=low), values).pvalue == pytest.approx(0.05, abs=1e-9)
    assert simon_test(_design(17, 24, 2, 8, 1.0, p0=high), values, alternative="less").pvalue == pytest.approx(
        0.05, abs=1e-9)
    # the one-sided 95% interval has the two-sided 90% interval's lower end; two-sided p is twice the smaller tail
    g = simon_test(design, values, alternative="greater", confidence_level=0.95)
    assert g.conf_int.high == 1.0 and g.conf_int.low == pytest.approx(low, abs=1e-11)
    less = simon_test(design, values, alternative="less").pvalue
    assert res.pvalue == pytest.approx(min(1.0, 2 * min(g.pvalue, less)), rel=1e-14)
    assert "stage-wise ordering" in str(res) and "number of trials = 41" in str(res)


def test_p_value_is_at_most_alpha_exactly_when_the_design_rejects():
    d = simon_design(0.1, 0.3, epsilon=1.0, max_n=50)
    for k in range(d.r - 1, d.r + 3):
        # a stage-2 outcome with round(z1) + round(z2) = k (stage 1 continued: round(z1) = r1 + 1)
        z1 = d.r1 + 1 + 0.4375
        z2 = k - (d.r1 + 1) - 0.4375
        p = simon_test(d, [z1, z2]).pvalue
        assert (p <= 0.05) == (k > d.r)


def test_the_trial_must_be_passed_as_the_design_ran_it():
    d = _design(10, 19, 1, 5, 2.0)
    with pytest.raises(ValueError, match=r"the design continues after it \(round\(z1\) > r1 = 1\)"):
        simon_test(d, [3.25])
    with pytest.raises(ValueError, match=r"stopped for futility after stage 1"):
        simon_test(d, [0.25, 3.5])
    with pytest.raises(ValueError, match=r"`releases\[0\]` is a whole number"):
        simon_test(d, [3.0, 2.5])
    with pytest.raises(TypeError, match=r"`design` must be a SimonDesign"):
        simon_test("design", [0.25])
    with pytest.raises(ValueError, match=r"non-private design"):
        simon_test(_design(10, 19, 1, 5, None), [0.25])
    with pytest.raises(ValueError, match=r"`releases` must hold the releases of stage 1, or of stages 1 and 2"):
        simon_test(d, [])
    with pytest.raises(TypeError, match=r"`releases` must be a StagedRelease or a sequence"):
        simon_test(d, 0.25)
    from dpinfer import TulapReleaser
    with pytest.raises(ValueError, match=r"`releases\[0\]` records n = 30"):
        simon_test(d, [TulapReleaser(2.0).release(1, 30, rng=1)])


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(p0=0.0), ValueError, r"`p0` must lie in \(0, 1\)"),
    (dict(p1=0.05), ValueError, r"`p1` must be larger than `p0`"),
    (dict(alpha=1.5), ValueError, r"`alpha` must lie in the open interval"),
    (dict(power=0.01), ValueError, r"`power` must be larger than `alpha`"),
    (dict(epsilon=-1.0), ValueError, r"`epsilon`"),
    (dict(epsilon=None, delta=0.1), ValueError, r"`delta` must be 0 without privacy"),
    (dict(design="best"), ValueError, r"`design` must be one of 'optimal', 'minimax'"),
    (dict(max_n=1), ValueError, r"`max_n`"),
    (dict(max_n=12), ValueError, r"no optimal two-stage design with n <= `max_n` = 12"),
])
def test_bad_arguments_are_refused(kwargs, error, message):
    args = {"p0": 0.1, "p1": 0.3, "epsilon": 1.0, **kwargs}
    p0, p1 = args.pop("p0"), args.pop("p1")
    with pytest.raises(error, match=message):
        simon_design(p0, p1, **args)


def test_operating_characteristics_refuse_a_p_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"`p` must lie in \[0, 1\]"):
        _design(10, 19, 1, 5, 2.0).operating_characteristics([0.2, 1.5])


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_operating_characteristics_agree_with_simulated_releases_within_4_se(delta):
    # the releases as TulapReleaser makes them (the staged release's law, tests/releasers/test_staged.py),
    # the design's rule on their integer parts; seeded, 20000 trials at p0 and at p1
    d = _design(17, 24, 2, 8, 1.0, delta=delta)
    from dpinfer import TulapReleaser

    gen = np.random.default_rng(36)
    m = 20_000
    for p in (0.1, 0.3):
        z1 = TulapReleaser(1.0, delta).release(gen.binomial(d.n1, p, m), d.n1, rng=gen).value
        z2 = TulapReleaser(1.0, delta).release(gen.binomial(d.n2, p, m), d.n2, rng=gen).value
        k1, k2 = np.floor(z1 + 0.5), np.floor(z2 + 0.5)
        reject = np.mean((k1 > d.r1) & (k1 + k2 > d.r))
        stop = np.mean(k1 <= d.r1)
        oc = d.operating_characteristics(p)
        for sim, exact in ((reject, float(oc.reject)), (stop, float(oc.pet))):
            se = math.sqrt(exact * (1 - exact) / m)
            assert abs(sim - exact) < 4 * se
    # and the end-of-trial tails of a truncated law are complementary (a continuous ordering)
    g = simon_test(d, [4.75, 5.3125], alternative="greater").pvalue
    lo = simon_test(d, [4.75, 5.3125], alternative="less").pvalue
    assert g + lo == pytest.approx(1.0, abs=1e-10)
