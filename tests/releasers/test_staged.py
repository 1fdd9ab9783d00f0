"""The staged release of a design with interim looks (issue 36, item 3)."""

import json

import numpy as np
import pytest

from dpinfer import BudgetExceededError, PrivacyBudget, StagedRelease, TulapReleaser


def _stop_after_first(stage, releases):
    return "stop for futility"


def test_ledger_shows_one_epsilon_for_all_stages_and_arms_with_the_stage_in_each_label():
    budget = PrivacyBudget(2.0, description="two-arm trial")
    run = StagedRelease([(10, 12), (10, 12), (20, 24)], epsilon=0.75, budget=budget, label="GSD",
                        arms=("control", "treatment"))
    for stage, counts in enumerate([(3, 5), (4, 6), (8, 11)], 1):
        rels = run.release(stage, counts, rng=stage)
        assert len(rels) == 2
    assert budget.spent_epsilon == 0.75  # one epsilon for 6 releases: disjoint patients
    assert len(budget.ledger) == 6
    assert [e.charged_epsilon for e in budget.ledger] == [0.75] + [0.0] * 5
    assert all(e.composition == "parallel" and e.scope == "GSD" for e in budget.ledger)
    assert [e.group for e in budget.ledger] == [f"stage {s}, {a}" for s in (1, 2, 3) for a in ("control", "treatment")]
    assert budget.ledger[3].label == "GSD: stage 2 of 3, treatment (TulapReleaser.release, n = 12)"
    assert run.stopped and run.next_stage is None
    assert run.values().shape == (3, 2)
    # the ledger replays (the integrity check of the budget's own file format)
    assert PrivacyBudget.from_json(budget.to_json()) == budget


def test_a_stage_released_twice_is_refused_and_nothing_is_drawn_or_charged():
    budget = PrivacyBudget(1.0)
    run = StagedRelease([10, 19], epsilon=1.0, budget=budget)
    run.release(1, 2, rng=1)
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    before = (budget.spent_epsilon, len(budget.ledger), budget.head_digest)
    with pytest.raises(ValueError, match=r"`stage` = 1 was released already; the next stage is 2.*nothing was drawn"):
        run.release(1, 2, rng=gen)
    assert gen.bit_generator.state == state
    assert (budget.spent_epsilon, len(budget.ledger), budget.head_digest) == before
    assert len(run.releases) == 1


@pytest.mark.parametrize("stage, message", [
    (3, r"`stage` = 3 is out of order: the next stage is 2"),
    (4, r"`stage` = 4 is not a look of this design, which has stages 1 to 3"),
    (0, r"`stage` = 0 is not a look of this design"),
])
def test_stage_out_of_order_or_missing_is_refused_before_any_charge(stage, message):
    budget = PrivacyBudget(1.0)
    run = StagedRelease([5, 5, 5], epsilon=0.5, budget=budget)
    run.release(1, 2, rng=1)
    gen = np.random.default_rng(3)
    state = gen.bit_generator.state
    n_entries = len(budget.ledger)
    with pytest.raises(ValueError, match=message):
        run.release(stage, 1, rng=gen)
    assert gen.bit_generator.state == state and len(budget.ledger) == n_entries


def test_no_look_after_the_rule_stopped_the_trial():
    budget = PrivacyBudget(1.0)
    run = StagedRelease([5, 5], epsilon=0.5, budget=budget, rule=_stop_after_first)
    run.release(1, 0, rng=1)
    assert run.decision == "stop for futility" and run.stopped and run.next_stage is None
    with pytest.raises(ValueError, match=r"not a look of this run: the trial stopped at stage 1 \(stop for futility\)"):
        run.release(2, 1, rng=2)
    assert len(budget.ledger) == 1
    assert "stage 2 (n = 5): not released" in str(run)


def test_the_budget_refusal_draws_nothing():
    budget = PrivacyBudget(0.5)
    run = StagedRelease([5, 5], epsilon=1.0, budget=budget)
    gen = np.random.default_rng(3)
    state = gen.bit_generator.state
    with pytest.raises(BudgetExceededError, match="Nothing was drawn and nothing was charged"):
        run.release(1, 2, rng=gen)
    assert gen.bit_generator.state == state and run.releases == () and run.next_stage == 1


def test_each_stage_is_an_ordinary_tulap_release_of_its_new_count():
    run = StagedRelease([10, 19], epsilon=1.0, delta=1e-6)
    rel = run.release(1, 3, rng=42)
    same = TulapReleaser(1.0, 1e-6).release(3, 10, rng=42)
    assert rel.value == same.value and rel.n == 10 and rel.epsilon == 1.0 and rel.delta == 1e-6
    assert run.decision is None and not run.stopped


def test_rule_sees_the_releases_and_its_words_are_checked():
    seen = []

    def rule(stage, releases):
        seen.append((stage, len(releases)))
        return "continue"

    run = StagedRelease([5, 5], epsilon=1.0, rule=rule)
    run.release(1, 1, rng=1)
    assert seen == [(1, 1)] and run.decision == "continue"
    with pytest.raises(ValueError, match=r"`rule` returned 'continue' after the last stage \(2\)"):
        run.release(2, 1, rng=1)
    bad = StagedRelease([5, 5], epsilon=1.0, rule=lambda s, r: "go on")
    with pytest.raises(ValueError, match=r"`rule` returned 'go on' after stage 1; it must return one of"):
        bad.release(1, 1, rng=1)


def test_to_dict_is_json_safe_and_holds_the_public_design():
    run = StagedRelease([(4, 4), (6, 6)], epsilon=1.0, rule=lambda s, r: "continue" if s == 1 else "stop for efficacy")
    run.release(1, [1, 2], rng=1)
    d = json.loads(json.dumps(run.to_dict()))
    assert d["stage_sizes"] == [[4, 4], [6, 6]] and d["arms"] == ["arm 1", "arm 2"]
    assert d["decisions"] == ["continue"] and d["next_stage"] == 2 and len(d["released"][0]) == 2


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(stage_sizes=[]), TypeError, r"`stage_sizes` must be a non-empty sequence"),
    (dict(stage_sizes="10"), TypeError, r"`stage_sizes` must be a non-empty sequence"),
    (dict(stage_sizes=[10, 0]), ValueError, r"`stage_sizes\[1\]`"),
    (dict(stage_sizes=[10, "a"]), TypeError, r"`stage_sizes` entry 2 must be a whole number"),
    (dict(stage_sizes=[(5, 5), (5,)]), ValueError, r"same number of arms at every stage"),
    (dict(stage_sizes=[5], arms=("a", "b")), ValueError, r"`arms` must name the 1 arm"),
    (dict(stage_sizes=[5], arms="a"), TypeError, r"`arms` must be None or a sequence"),
    (dict(stage_sizes=[5], label=""), ValueError, r"`label` must be a non-empty string"),
    (dict(stage_sizes=[5], label=3), TypeError, r"`label` must be a non-empty string"),
    (dict(stage_sizes=[5], budget=1.0), TypeError, r"`budget` of a staged release must be None or"),
    (dict(stage_sizes=[5], rule=3), TypeError, r"`rule` must be None or a callable"),
    (dict(stage_sizes=[5], epsilon=-1.0), ValueError, r"`epsilon`"),
])
def test_bad_designs_are_refused(kwargs, error, message):
    kwargs = {"epsilon": 1.0, **kwargs}
    with pytest.raises(error, match=message):
        StagedRelease(**kwargs)


def test_a_label_already_charged_in_the_budget_is_refused():
    budget = PrivacyBudget(2.0)
    StagedRelease([5], epsilon=1.0, budget=budget, label="trial").release(1, 2, rng=1)
    with pytest.raises(ValueError, match=r"`label` 'trial' names a parallel set of this budget whose charges "
                                         r"\(stage 1\) are not those of the 0 stage\(s\) in `released` \(none\)"):
        StagedRelease([5], epsilon=1.0, budget=budget, label="trial")


def test_bad_counts_are_refused_by_position_never_by_value():
    budget = PrivacyBudget(1.0)
    run = StagedRelease([(5, 5)], epsilon=1.0, budget=budget)
    with pytest.raises(ValueError, match=r"`x\[1\]` must lie between 0 and") as info:
        run.release(1, [2, 17], rng=1)
    assert "17" not in str(info.value)
    with pytest.raises(TypeError, match=r"`x` must hold one count per arm \(2: arm 1, arm 2\)"):
        run.release(1, 3, rng=1)
    with pytest.raises(TypeError, match=r"`stage` must be a whole number"):
        run.release(1.0, [1, 1], rng=1)
    one = StagedRelease([5], epsilon=1.0)
    with pytest.raises(TypeError, match=r"`x` must be one count"):
        one.release(1, [1, 2], rng=1)
    assert budget.ledger == ()


def test_a_run_continues_in_a_later_session_from_its_earlier_releases_and_the_ledger():
    budget = PrivacyBudget(1.0)
    first = StagedRelease([10, 19], epsilon=1.0, budget=budget, label="trial", rule=lambda s, r: "continue"
                          if s == 1 else "stop for futility")
    rel1 = first.release(1, 4, rng=1)
    # a later session (e.g. the command line): the ledger read back from its file, the stage-1 release
    later_budget = PrivacyBudget.from_json(budget.to_json())
    later = StagedRelease([10, 19], epsilon=1.0, budget=later_budget, label="trial", released=[rel1],
                          rule=lambda s, r: "continue" if s == 1 else "stop for futility")
    assert later.next_stage == 2 and later.decisions == ("continue",)
    gen = np.random.default_rng(2)
    state = gen.bit_generator.state
    with pytest.raises(ValueError, match=r"`stage` = 1 was released already"):
        later.release(1, 4, rng=gen)
    assert gen.bit_generator.state == state
    later.release(2, 7, rng=2)
    assert later_budget.spent_epsilon == 1.0 and [e.group for e in later_budget.ledger] == ["stage 1", "stage 2"]
    # without the earlier release the ledger says stage 1 was charged: refused
    with pytest.raises(ValueError, match=r"whose charges \(stage 1\) are not those of the 0 stage"):
        StagedRelease([10, 19], epsilon=1.0, budget=PrivacyBudget.from_json(budget.to_json()), label="trial")


def test_released_stages_must_be_the_designs():
    rel = TulapReleaser(1.0).release(3, 12, rng=1)
    with pytest.raises(ValueError, match=r"`released\[0\]` must be the stage's Tulap count release \(n = 10"):
        StagedRelease([10, 19], epsilon=1.0, released=[rel])
    with pytest.raises(ValueError, match=r"`released` holds 3 stages; the design has 2"):
        StagedRelease([10, 19], epsilon=1.0, released=[rel, rel, rel])
    with pytest.raises(TypeError, match=r"`released` must be a sequence"):
        StagedRelease([10, 19], epsilon=1.0, released=3)
    stop = TulapReleaser(1.0).release(3, 10, rng=1)
    with pytest.raises(ValueError, match=r"`released` holds stage 2, but the rule stopped the trial at stage 1"):
        StagedRelease([10, 19], epsilon=1.0, released=[stop, stop], rule=_stop_after_first)
