"""PrivacyBudget: charges before draws, exact sums, composition rules, the ledger and its JSON."""

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpinfer import (
    AdvancedComposition,
    BudgetExceededError,
    KRRReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LedgerEntry,
    LocalLaplaceReleaser,
    ParallelComposition,
    PrivacyBudget,
    RandomizedResponseReleaser,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

# (name, releaser, method name, input, extra positional arguments); every release method of
# every releaser.  `central` ones take `array=`.
CENTRAL = [
    ("tulap", TulapReleaser(1.0, 1e-6), "release", 11, (30,)),
    ("laplace.release", LaplaceReleaser(1.0, 2.0), "release", 3.5, ()),
    ("laplace.proportion", LaplaceReleaser(1.0), "proportion", 11, (30,)),
    ("laplace.count", LaplaceReleaser(1.0), "count", 11, (30,)),
]
LOCAL = [
    ("rr", RandomizedResponseReleaser(1.0), "release", [1, 0, 1], ()),
    ("two_coin", TwoCoinRRReleaser(0.5, 0.5), "release", [1, 0, 1], ()),
    ("krr", KRRReleaser(1.0, 3), "release", [0, 2, 1], ()),
    ("unary", UnaryEncodingReleaser(1.0, 4), "release", [0, 3, 3], ()),
    ("local_laplace", LocalLaplaceReleaser(1.0, 1.0), "release", [0.2, -0.5], ()),
    ("ldp_histogram", LDPHistogramReleaser(1.0, 5), "release", [0.1, 0.9], ()),
]
ALL = CENTRAL + LOCAL


def _call(releaser, method, x, args, **kw):
    return getattr(releaser, method)(x, *args, **kw)


def _state(gen):
    return json.dumps(gen.bit_generator.state, sort_keys=True, default=int)


# ------------------------------------------------------------------ charge before any draw
@pytest.mark.parametrize("name, releaser, method, x, args", ALL, ids=[c[0] for c in ALL])
def test_refused_release_draws_nothing_and_changes_nothing(name, releaser, method, x, args):
    eps = releaser.epsilon
    budget = PrivacyBudget(eps * 1.5, delta=1e-5)
    gen = np.random.default_rng(20261123)
    first = _call(releaser, method, x, args, rng=gen, budget=budget)
    assert first.epsilon == pytest.approx(eps, rel=1e-5)
    before, spent, ledger = _state(gen), (budget.spent_epsilon, budget.spent_delta), budget.ledger
    with pytest.raises(BudgetExceededError, match="Nothing was drawn and nothing was charged"):
        _call(releaser, method, x, args, rng=gen, budget=budget)
    assert _state(gen) == before  # the generator was not touched
    assert (budget.spent_epsilon, budget.spent_delta) == spent and budget.ledger == ledger
    # the same call without the budget does draw (so the check above can fail)
    _call(releaser, method, x, args, rng=gen)
    assert _state(gen) != before


@pytest.mark.parametrize("name, releaser, method, x, args", ALL, ids=[c[0] for c in ALL])
def test_every_release_method_charges_its_parameters(name, releaser, method, x, args):
    budget = PrivacyBudget(10.0, delta=1e-3)
    _call(releaser, method, x, args, rng=1, budget=budget)
    (entry,) = budget.ledger
    assert entry.epsilon == releaser.epsilon
    assert entry.delta == getattr(releaser, "delta", 0.0)
    assert entry.count == 1 and entry.composition == "sequential"
    assert budget.spent_epsilon == releaser.epsilon
    assert type(releaser).__name__ in entry.label


def test_secure_path_charges_too():
    budget = PrivacyBudget(1.0)
    TulapReleaser(0.75).release(3, 10, secure=True, budget=budget)
    assert budget.spent_epsilon == 0.75
    with pytest.raises(BudgetExceededError):
        LaplaceReleaser(0.5).count(3, 10, secure=True, budget=budget)


def test_invalid_input_charges_nothing():
    budget = PrivacyBudget(1.0)
    with pytest.raises(ValueError, match="`x`"):
        TulapReleaser(1.0).release(31, 30, budget=budget)
    with pytest.raises(TypeError, match="`rng`"):
        TulapReleaser(1.0).release(3, 30, rng="seed", budget=budget)
    assert budget.spent_epsilon == 0.0 and budget.ledger == ()


def test_bad_budget_and_array_arguments():
    with pytest.raises(TypeError, match="`budget` must be None, a dpinfer.PrivacyBudget"):
        TulapReleaser(1.0).release(3, 30, budget=1.0)
    with pytest.raises(ValueError, match="`array` must be None, 'separate' or 'disjoint'; got 'each'"):
        TulapReleaser(1.0).release([3, 4], 30, array="each")
    with pytest.raises(TypeError, match="`array`"):
        TulapReleaser(1.0).release([3, 4], 30, array=2)
    with pytest.raises(ValueError, match="`epsilon` must be a positive finite number"):
        PrivacyBudget(-1.0)
    with pytest.raises(ValueError, match=r"`delta` must lie in \[0, 1\)"):
        PrivacyBudget(1.0, delta=1.0)
    with pytest.raises(TypeError, match="`description` must be a string"):
        PrivacyBudget(1.0, description=3)


# ------------------------------------------------------------------ sequential sums
def test_sequential_sums_are_exact():
    # Reference: exact rational sums of the doubles (fractions.Fraction), rounded once.
    rng = np.random.default_rng(5)
    charges = [(float(e), float(d)) for e, d in zip(rng.uniform(1e-3, 0.2, 200), rng.uniform(0, 1e-8, 200))]
    budget = PrivacyBudget(100.0, delta=1e-3)
    for i, (e, d) in enumerate(charges):
        budget.charge(e, d, label=f"charge {i}")
        exact_e = sum(Fraction(c) for c, _ in charges[: i + 1])
        exact_d = sum(Fraction(c) for _, c in charges[: i + 1])
        assert budget.spent_epsilon == float(exact_e)
        assert budget.spent_delta == float(exact_d)
        assert budget.remaining == (float(Fraction(100) - exact_e), float(Fraction(1e-3) - exact_d))
    assert [e.charged_epsilon for e in budget.ledger] == [c for c, _ in charges]


def test_ten_tenths_spend_exactly_one():
    budget = PrivacyBudget(1.0)
    for _ in range(10):
        LaplaceReleaser(0.1).proportion(3, 10, rng=0, budget=budget)
    assert budget.spent_epsilon == 1.0 and budget.remaining.epsilon == 0.0
    with pytest.raises(BudgetExceededError) as info:
        LaplaceReleaser(1e-9).proportion(3, 10, rng=0, budget=budget)
    assert isinstance(info.value, ValueError)
    assert info.value.requested_epsilon == 1e-9 and info.value.remaining_epsilon == 0.0


def test_delta_total_zero_refuses_approximate_dp():
    budget = PrivacyBudget(5.0)
    with pytest.raises(BudgetExceededError, match="delta = 1e-06"):
        TulapReleaser(1.0, 1e-6).release(3, 10, budget=budget)
    assert budget.ledger == ()


def test_manual_charge_count_and_validation():
    budget = PrivacyBudget(1.0)
    entry = budget.charge(0.1, count=3, mechanism="external", label="three SAS queries")
    assert isinstance(entry, LedgerEntry)
    assert entry.charged_epsilon == float(Fraction(0.1) * 3) and entry.count == 3
    with pytest.raises(ValueError, match="`count` must be an integer >= 1"):
        budget.charge(0.1, count=0)
    with pytest.raises(ValueError, match="`mechanism` must be a non-empty string"):
        budget.charge(0.1, mechanism="")


# ------------------------------------------------------------------ arrays
def test_array_without_budget_charges_nothing_and_records_per_element():
    rel = TulapReleaser(1.0).release(np.full(2000, 17), 40, rng=1)
    assert rel.epsilon == 1.0 and rel.value.shape == (2000,)


def test_array_with_budget_needs_an_explicit_argument():
    budget = PrivacyBudget(100.0)
    gen = np.random.default_rng(3)
    before = _state(gen)
    with pytest.raises(ValueError, match="`array` must say what the 2000 values"):
        TulapReleaser(1.0).release(np.full(2000, 17), 40, rng=gen, budget=budget)
    assert _state(gen) == before and budget.ledger == ()


def test_array_separate_and_disjoint_charges():
    budget = PrivacyBudget(100.0, delta=1.0 - 1e-9)
    TulapReleaser(0.5, 1e-4).release([3, 4, 5], 30, rng=1, budget=budget, array="separate")
    assert (budget.spent_epsilon, budget.spent_delta) == (1.5, float(Fraction(1e-4) * 3))
    TulapReleaser(0.5).release([3, 4, 5], 30, rng=1, budget=budget, array="disjoint")
    assert budget.spent_epsilon == 2.0
    LaplaceReleaser(0.25, sensitivity=2.0).release(np.zeros((2, 3)), rng=1, budget=budget, array="separate")
    assert budget.spent_epsilon == 3.5
    # one element is one statistic, whatever `array` says
    LaplaceReleaser(0.25).count([3], 10, rng=1, budget=budget)
    assert budget.spent_epsilon == 3.75
    counts = [e.count for e in budget.ledger]
    assert counts == [3, 1, 6, 1]
    with pytest.raises(BudgetExceededError):
        TulapReleaser(1.0).release(np.full(2000, 17), 40, rng=1, budget=budget, array="separate")


def test_local_array_of_respondents_is_charged_once():
    budget = PrivacyBudget(1.0)
    RandomizedResponseReleaser(1.0).release(np.ones(500, dtype=int), rng=2, budget=budget)
    assert budget.spent_epsilon == 1.0 and budget.ledger[0].count == 1


# ------------------------------------------------------------------ parallel composition
def test_parallel_composition_charges_the_rise_of_the_maximum():
    budget = PrivacyBudget(2.0)
    sites = budget.parallel("response by site")
    assert isinstance(sites, ParallelComposition) and budget.parallel("response by site") is sites
    plan = [("A", 0.5), ("B", 0.3), ("A", 0.25), ("B", 0.6), ("C", 0.75), ("C", 0.5)]
    sums = {}
    for group, eps in plan:
        before = max(sums.values(), default=Fraction(0))
        sums[group] = sums.get(group, Fraction(0)) + Fraction(eps)
        rise = max(sums.values()) - before
        LaplaceReleaser(eps).proportion(4, 20, rng=0, budget=sites.group(group))
        last = budget.ledger[-1]
        assert (last.composition, last.scope, last.group) == ("parallel", "response by site", group)
        assert last.charged_epsilon == float(rise)
    assert budget.spent_epsilon == float(max(sums.values())) == 1.25
    assert sites.spent == {g: (float(s), 0.0) for g, s in sums.items()}
    assert sites.spent_epsilon == 1.25
    # sequential releases of the whole data set add to the parallel set's maximum
    TulapReleaser(0.5).release(9, 60, rng=0, budget=budget)
    assert budget.spent_epsilon == 1.75
    LaplaceReleaser(0.5).proportion(4, 20, rng=0, budget=sites.group("A"))  # A: 0.75 -> 1.25, no rise
    assert budget.spent_epsilon == 1.75 and budget.ledger[-1].charged_epsilon == 0.0
    with pytest.raises(BudgetExceededError):
        LaplaceReleaser(0.5).proportion(4, 20, rng=0, budget=sites.group("C"))  # C: 1.25 -> 1.75, total 2.25
    assert sites.spent["C"] == (1.25, 0.0)  # the refused charge left the group untouched
    LaplaceReleaser(0.6).proportion(4, 20, rng=0, budget=sites.group("B"))  # B: 0.9 -> 1.5, max rises 0.25
    assert budget.spent_epsilon == float(Fraction(0.5) + Fraction(0.3) + Fraction(0.6) + Fraction(0.6))


def test_parallel_labels_are_unique_and_checked():
    budget = PrivacyBudget(1.0, delta=1e-5)
    budget.advanced(10, 0.01, delta_slack=1e-6, label="looks")
    with pytest.raises(ValueError, match="already names an advanced-composition block"):
        budget.parallel("looks")
    with pytest.raises(ValueError, match="`label` must name the partition"):
        budget.parallel("  ")
    with pytest.raises(ValueError, match="`name` of a group"):
        budget.parallel("sites").group("")


# ------------------------------------------------------------------ advanced composition
@pytest.mark.parametrize("k, eps, slack", [(100, 0.01, 1e-6), (1000, 0.005, 1e-9), (50, 0.1, 1e-5),
                                           (10_000, 1e-3, 1e-7), (7, 0.2, 0.01)])
def test_advanced_bound_matches_the_closed_form(k, eps, slack):
    # Closed form of Dwork, Rothblum & Vadhan (2010), Thm. III.3, at 50 digits (mpmath):
    # eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1), delta_total = k delta + delta'.
    with mpmath.workdps(50):
        e = mpmath.mpf(eps)
        exact = mpmath.sqrt(2 * k * mpmath.log(1 / mpmath.mpf(slack))) * e + k * e * mpmath.expm1(e)
    budget = PrivacyBudget(1e6, delta=0.5)
    block = budget.advanced(k, eps, 1e-8, delta_slack=slack, label="block")
    if exact < k * mpmath.mpf(eps):
        assert block.rule == "advanced composition"
        # an upper bound on the exact value, and within 1e-14 of it (a few ulps of rounding up)
        assert mpmath.mpf(budget.spent_epsilon) >= exact
        assert float(mpmath.mpf(budget.spent_epsilon) / exact - 1) < 1e-14
        assert budget.spent_delta == float(Fraction(1e-8) * k + Fraction(slack))
    else:
        assert block.rule == "basic composition"
        assert budget.spent_epsilon == float(Fraction(eps) * k)
        assert budget.spent_delta == float(Fraction(1e-8) * k)
    assert (block.reserved_epsilon, block.reserved_delta) == (budget.spent_epsilon, budget.spent_delta)


def test_advanced_block_in_use():
    budget = PrivacyBudget(1.0, delta=1e-5)
    block = budget.advanced(100, 0.01, delta_slack=1e-6, label="interim looks")
    assert isinstance(block, AdvancedComposition)
    reserved = budget.spent_epsilon
    assert reserved < 100 * 0.01  # cheaper than basic composition
    for _ in range(99):
        LaplaceReleaser(0.01).proportion(5, 40, rng=0, budget=block)
    LaplaceReleaser(0.005).proportion(5, 40, rng=0, budget=block)  # smaller epsilon uses a slot too
    assert block.used == 100 and budget.spent_epsilon == reserved
    gen = np.random.default_rng(1)
    before = _state(gen)
    with pytest.raises(BudgetExceededError, match="reserved for 100 releases and 100 are used"):
        LaplaceReleaser(0.01).proportion(5, 40, rng=gen, budget=block)
    assert _state(gen) == before
    other = budget.advanced(10, 0.02, delta_slack=1e-6, label="safety")
    with pytest.raises(BudgetExceededError, match="holds releases of at most epsilon = 0.02"):
        LaplaceReleaser(0.05).proportion(5, 40, rng=0, budget=other)
    with pytest.raises(ValueError, match="names a block reserved for k = 100"):
        budget.advanced(50, 0.01, delta_slack=1e-6, label="interim looks")
    assert budget.advanced(100, 0.01, delta_slack=1e-6, label="interim looks") is block
    with pytest.raises(BudgetExceededError):
        budget.advanced(1000, 0.05, delta_slack=1e-6, label="too many")


# ------------------------------------------------------------------ labels, printing
def test_labels_and_summary():
    budget = PrivacyBudget(3.0, description="trial X, ITT set")
    TulapReleaser(1.0).release(11, 30, rng=0, budget=budget.with_label("primary endpoint"))
    LaplaceReleaser(0.5).count(4, 30, rng=0, budget=budget.with_label("safety").with_label("grade 3+"))
    assert budget.ledger[0].label == "primary endpoint (TulapReleaser.release, n = 30)"
    assert budget.ledger[1].label == "safety (grade 3+ (LaplaceReleaser.count, n = 30))"
    assert budget.summary() == ("budget: spent epsilon = 1.5 of 3, delta = 0 of 0; remaining epsilon = 1.5, "
                                "delta = 0 (2 ledger entries)")
    text = str(budget)
    assert "trial X, ITT set" in text and "primary endpoint" in text and "tulap" in text
    for entry in budget.ledger:  # the confidential counts (11, 4) never reach the ledger
        assert not {"11", "4"} & set(entry.label.replace(",", " ").replace("(", " ").replace(")", " ").split())


# ------------------------------------------------------------------ JSON
def _busy_budget():
    budget = PrivacyBudget(4.0, delta=1e-4, description="round trip")
    TulapReleaser(0.3, 1e-6).release(5, 20, rng=0, budget=budget.with_label("first"))
    sites = budget.parallel("sites")
    LaplaceReleaser(0.2).count(1, 9, rng=0, budget=sites.group("A"))
    LaplaceReleaser(0.1).count(1, 9, rng=0, budget=sites.group("B"))
    LaplaceReleaser(0.35).count(1, 9, rng=0, budget=sites.group("B"))
    block = budget.advanced(40, 0.01, 1e-7, delta_slack=1e-6, label="looks")
    for _ in range(3):
        LaplaceReleaser(0.01).proportion(1, 9, rng=0, budget=block)
    budget.charge(0.1, count=2, mechanism="external", label="two SAS queries")
    return budget


def test_json_round_trip_is_exact():
    budget = _busy_budget()
    text = budget.to_json()
    again = PrivacyBudget.from_json(text)
    assert again == budget and again.to_json() == text
    assert (again.spent_epsilon, again.spent_delta, again.remaining) == (
        budget.spent_epsilon, budget.spent_delta, budget.remaining)
    assert again.ledger == budget.ledger
    assert again.parallel("sites").spent == budget.parallel("sites").spent
    assert again.advanced(40, 0.01, 1e-7, delta_slack=1e-6, label="looks").used == 3
    # continuing after the reload is the same as continuing before it
    for b in (budget, again):
        LaplaceReleaser(0.3).count(1, 9, rng=0, budget=b.parallel("sites").group("A"))
    assert again.spent_epsilon == budget.spent_epsilon
    assert [e.charged_epsilon for e in again.ledger] == [e.charged_epsilon for e in budget.ledger]


def test_from_json_rejects_tampered_ledgers():
    data = json.loads(_busy_budget().to_json())
    data["ledger"][0]["charged_epsilon"] = 0.0
    with pytest.raises(ValueError, match="`text` holds an invalid budget: ledger entry 1 records charged"):
        PrivacyBudget.from_json(json.dumps(data))
    data = json.loads(_busy_budget().to_json())
    data["spent_epsilon"] = 0.5
    with pytest.raises(ValueError, match="adds up to"):
        PrivacyBudget.from_json(json.dumps(data))
    data = json.loads(_busy_budget().to_json())
    data["epsilon"] = 0.5  # the ledger no longer fits
    with pytest.raises(ValueError, match="`text` holds a ledger that does not fit its totals"):
        PrivacyBudget.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="not a dpinfer privacy budget"):
        PrivacyBudget.from_json('{"format": "other"}')
    with pytest.raises(ValueError, match="is not JSON"):
        PrivacyBudget.from_json("{")
    with pytest.raises(TypeError, match="`text` must be the JSON text"):
        PrivacyBudget.from_json(3)


# ------------------------------------------------------------------ two-sample accounting
def test_two_sample_functions_share_one_rule_per_relation():
    from dpinfer import binom2_jimi_test, binom2_normal_test, rr_two_sample_test

    r1 = LaplaceReleaser(1.0).proportion(20, 40, rng=5)
    r2 = LaplaceReleaser(0.25).proportion(10, 50, rng=6)
    rr1 = RandomizedResponseReleaser(1.0).release(np.ones(60, dtype=int), rng=1)
    rr2 = RandomizedResponseReleaser(0.25).release(np.zeros(80, dtype=int), rng=2)
    results = {
        comp: [binom2_normal_test(r1, pi2=r2, composition=comp),
               binom2_jimi_test(r1, pi2=r2, n_sim=200, rng=1, composition=comp),
               rr_two_sample_test(rr1, rr2, composition=comp)]
        for comp in ("sequential", "parallel")
    }
    assert [r.epsilon for r in results["sequential"]] == [1.25, 1.25, 1.25]
    assert [r.epsilon for r in results["parallel"]] == [1.0, 1.0, 1.0]
    # the rule changes only the record, never the inference
    for a, b in zip(results["sequential"], results["parallel"]):
        assert (a.pvalue, a.conf_int) == (b.pvalue, b.conf_int)
    # and matches what a budget charges for the same two releases
    for method, expected in (("sequential", 1.25), ("parallel", 1.0)):
        budget = PrivacyBudget(2.0)
        arms = budget.parallel("arms")
        target = (lambda g: arms.group(g)) if method == "parallel" else (lambda g: budget)
        LaplaceReleaser(1.0).proportion(20, 40, rng=0, budget=target("A"))
        LaplaceReleaser(0.25).proportion(10, 50, rng=0, budget=target("B"))
        assert budget.spent_epsilon == expected
    with pytest.raises(ValueError, match="`composition` must be 'sequential' or 'parallel'; got 'max'"):
        binom2_normal_test(r1, pi2=r2, composition="max")
    with pytest.raises(TypeError, match="`composition`"):
        rr_two_sample_test(rr1, rr2, composition=None)


# ------------------------------------------------------------------ audits spend 2 x n_samples releases
def test_audit_charges_only_a_budget_it_is_given():
    from dpinfer import audit_releaser

    res = audit_releaser(LaplaceReleaser(1.0).count, 10, 11, args=(30,), n_samples=200, rng=1)
    assert "releases drawn: 2 x 200 on the audit's inputs" in str(res)
    budget = PrivacyBudget(1000.0)
    audit_releaser(LaplaceReleaser(1.0).count, 10, 11, args=(30,), n_samples=200, rng=1, budget=budget)
    (entry,) = budget.ledger
    assert (entry.count, entry.epsilon, entry.charged_epsilon) == (400, 1.0, 400.0)
    assert entry.mechanism == "laplace" and "2 x 200 releases" in entry.label
    audit_releaser(TulapReleaser(0.5, 1e-9), 10, 11, args=(30,), n_samples=100, rng=1,
                   budget=PrivacyBudget(100.0, 1e-6))
    # a refused audit draws nothing
    gen = np.random.default_rng(9)
    before = _state(gen)
    with pytest.raises(BudgetExceededError, match="it would charge epsilon = 800"):
        audit_releaser(LaplaceReleaser(1.0), 0.0, 1.0, n_samples=400, rng=gen, budget=budget)
    assert _state(gen) == before and len(budget.ledger) == 1
    with pytest.raises(TypeError, match="`epsilon` must be given to charge `budget`"):
        audit_releaser(lambda v, rng: v + rng.laplace(size=np.shape(v)), 0.0, 1.0, n_samples=100,
                       rng=1, budget=budget)
