"""Same releases, same privacy line: every method and door states one composition (issue 35, item 1).

The rule (dpinfer/_composition_rule.py) is a fact of the design, read from the
releases: two releases charged to two groups of one ``parallel()`` set of one
budget are composed in parallel (the larger epsilon and delta); any other pair
(no budget, a budget charged directly, two budgets, one group twice) sequentially
(the sums).  The expected numbers are computed here from the releasers' epsilons
(max and exact sum), never read from a result.

Each pair below (two Tulap counts, two Laplace counts, two Laplace proportions,
two clipped means) is given to every method that takes it, to ``prop_test`` /
``mean_test`` with each ``method``, and to the command's ``test`` / ``mean-test``
through release files; all must print the same ``privacy:`` line up to the
mechanism.  R's ``dp_prop_test`` is checked in r/tests/testthat/test-composition.R.
"""

import json
from fractions import Fraction

import pytest

import dpinfer
from dpinfer import (
    LaplaceReleaser,
    MeanReleaser,
    PrivacyBudget,
    TulapReleaser,
    binom2_jimi_test,
    binom2_normal_test,
    binom2_ump_test,
    mean2_jimi_test,
    mean2_naive_test,
    mean2_repro_test,
    mean_test,
    prop_test,
)

#: the two groups' epsilons: different, so that max and sum differ (1 and 1.5)
EPS = (1.0, 0.5)

#: pair kind -> (release function, the methods that take it: name -> call)
FAST_JIMI = dict(n_sim=2000, rng=3)


def _tulap(eps, i, budget):
    return TulapReleaser(eps).release((23, 12)[i], 60, rng=11 + i, budget=budget)


def _laplace_count(eps, i, budget):
    return LaplaceReleaser(eps).count((23, 12)[i], 60, rng=11 + i, budget=budget)


def _laplace_proportion(eps, i, budget):
    return LaplaceReleaser(eps).proportion((23, 12)[i], 60, rng=11 + i, budget=budget)


def _mean(eps, i, budget):
    data = ([2.0, 3.5, 4.0, 6.5, 5.0, 3.0, 4.5, 7.0], [1.0, 2.5, 3.0, 4.0, 2.0, 3.5, 1.5, 2.0])[i]
    return MeanReleaser(eps, 0.0, 10.0, spread=True).release(data, rng=21 + i, budget=budget)


BINOM_LAPLACE = {
    "binom2_ump_test": lambda a, b: binom2_ump_test(a, b),
    "binom2_jimi_test": lambda a, b: binom2_jimi_test(a, b, **FAST_JIMI),
    "binom2_normal_test": lambda a, b: binom2_normal_test(a, b),
    "prop_test": lambda a, b: prop_test(a, b),
    "prop_test-ump": lambda a, b: prop_test(a, b, method="ump"),
    "prop_test-jimi": lambda a, b: prop_test(a, b, method="jimi", **FAST_JIMI),
    "prop_test-normal": lambda a, b: prop_test(a, b, method="normal"),
}
PAIRS = {
    "tulap": (_tulap, {
        "binom2_ump_test": lambda a, b: binom2_ump_test(a, b),
        "prop_test": lambda a, b: prop_test(a, b),
        "prop_test-ump": lambda a, b: prop_test([a, b], method="ump"),
    }),
    "laplace-count": (_laplace_count, BINOM_LAPLACE),
    "laplace-proportion": (_laplace_proportion, BINOM_LAPLACE),
    "mean": (_mean, {
        "mean2_jimi_test": lambda a, b: mean2_jimi_test(a, b, n_sim=200, rng=3),
        "mean2_naive_test": lambda a, b: mean2_naive_test(a, b),
        "mean2_repro_test": lambda a, b: mean2_repro_test(a, b, sigma=2.0, n_sim=19, rng=3),
        "mean_test-jimi": lambda a, b: mean_test(a, b, method="jimi", n_sim=200, rng=3),
        "mean_test-naive": lambda a, b: mean_test(a, b, method="naive"),
        "mean_test-repro": lambda a, b: mean_test(a, b, method="repro", sigma=2.0, n_sim=19, rng=3),
    }),
}

#: how the two releases are charged -> the composition every result must state
DESIGNS = {
    "two groups of one parallel set": "parallel",
    "no budget": "sequential",
}


def _pair(kind, design):
    make = PAIRS[kind][0]
    if design == "no budget":
        return make(EPS[0], 0, None), make(EPS[1], 1, None)
    arms = PrivacyBudget(3.0).parallel("arms")
    return make(EPS[0], 0, arms.group("treatment")), make(EPS[1], 1, arms.group("control"))


def _expected(composition):
    """(epsilon, delta, the privacy line's start) from the releasers' epsilons, by hand."""
    if composition == "parallel":
        eps, text = max(EPS), "parallel composition (disjoint groups)"
    else:
        eps, text = float(sum(map(Fraction, EPS))), "sequential composition"
    return eps, 0.0, f"privacy: epsilon = {eps:g}, delta = 0, {text}, "


def _privacy_line(text):
    (line,) = [ln for ln in text.splitlines() if ln.startswith("privacy:")]
    return line


CASES = [(kind, method, design) for kind, (_, methods) in PAIRS.items() for method in methods
         for design in DESIGNS]


@pytest.mark.parametrize("kind, method, design", CASES, ids=["-".join(c) for c in CASES])
def test_every_method_states_the_composition_the_releases_record(kind, method, design):
    a, b = _pair(kind, design)
    composition = DESIGNS[design]
    result = PAIRS[kind][1][method](a, b)
    eps, delta, line = _expected(composition)
    assert (result.epsilon, result.delta, result.composition) == (eps, delta, composition)
    assert (result.privacy.epsilon, result.privacy.delta, result.privacy.composition) == (eps, delta, composition)
    assert _privacy_line(str(result)).startswith(line)
    record = result.to_dict()
    assert (record["epsilon"], record["delta"], record["composition"]) == (eps, delta, composition)
    assert result.to_htest()["composition"] == composition and record["neighbours"] == "replace-one"


@pytest.mark.parametrize("design", DESIGNS)
def test_the_command_reads_the_releases_recorded_group(design, tmp_path, capsys):
    from dpinfer.cli import main

    eps, delta, line = _expected(DESIGNS[design])
    for kind, command in (("tulap", "test"), ("laplace-proportion", "test"), ("laplace-count", "test"),
                          ("mean", "mean-test")):
        paths = []
        for i, rel in enumerate(_pair(kind, design)):
            path = tmp_path / f"{kind}-{i}.json"
            path.write_text(json.dumps(rel.to_dict()))
            paths.append(str(path))
        extra = ["--method", "naive"] if command == "mean-test" else []
        assert main([command, "--release", paths[0], "--release", paths[1], "--format", "json", *extra]) == 0
        record = json.loads(capsys.readouterr().out)
        record = record[0] if isinstance(record, list) else record
        assert (record["epsilon"], record["delta"], record["composition"]) == (eps, delta, DESIGNS[design]), kind
        assert main([command, "--release", paths[0], "--release", paths[1], *extra]) == 0
        assert _privacy_line(capsys.readouterr().out).startswith(line), kind


def test_the_command_charges_a_parallel_group_and_reads_it_back_from_csv(tmp_path, capsys):
    from dpinfer.cli import main

    ledger = tmp_path / "ledger.json"
    for i, (x, group, fmt) in enumerate(((23, "treatment", "json"), (12, "control", "csv"))):
        code = main(["release", "--x", str(x), "--n", "60", "--epsilon", str(EPS[i]), "--seed", str(11 + i),
                     "--budget", str(ledger), "--total-epsilon", "3", "--parallel", "arms", "--group", group,
                     "--format", fmt])
        assert code == 0
        (tmp_path / f"arm{i}.{fmt}").write_text(capsys.readouterr().out)
    assert main(["test", "--release", str(tmp_path / "arm0.json"), "--release", str(tmp_path / "arm1.csv"),
                 "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["epsilon"], record["composition"]) == (max(EPS), "parallel")
    assert PrivacyBudget.from_json(ledger.read_text()).spent_epsilon == max(EPS)


def test_the_command_refuses_a_group_without_its_set(capsys):
    from dpinfer.cli import main

    assert main(["release", "--x", "3", "--n", "10", "--epsilon", "1", "--group", "A"]) == 2
    assert "--parallel LABEL and --group NAME go together" in capsys.readouterr().err


def test_the_scope_survives_a_saved_and_reloaded_ledger():
    budget = PrivacyBudget(3.0)
    first = _tulap(EPS[0], 0, budget.parallel("arms").group("treatment"))
    again = PrivacyBudget.from_json(budget.to_json())
    second = _tulap(EPS[1], 1, again.parallel("arms").group("control"))
    assert first.disjoint[0] == second.disjoint[0] == f"{budget.id}/arms"
    assert binom2_ump_test(first, second).composition == "parallel"


def test_two_budgets_or_one_group_twice_are_not_disjoint():
    one, two = PrivacyBudget(3.0), PrivacyBudget(3.0)
    a = _tulap(EPS[0], 0, one.parallel("arms").group("treatment"))
    b = _tulap(EPS[1], 1, two.parallel("arms").group("control"))  # same label, another budget
    assert a.disjoint[0] != b.disjoint[0]
    assert binom2_ump_test(a, b).composition == "sequential"
    c = _tulap(EPS[1], 1, one.parallel("arms").group("treatment"))  # the same people again
    assert prop_test(a, c).composition == "sequential"
    with pytest.raises(ValueError, match="'parallel' contradicts the releases: two of them record the same group"):
        prop_test(a, c, composition="parallel")
    d = _tulap(EPS[1], 1, one)  # the budget itself: sequential composition
    assert d.disjoint is None and binom2_ump_test(a, d).epsilon == 1.5


def test_a_stated_composition_applies_to_typed_numbers_and_is_checked():
    typed = prop_test([23.5, 12.25], [60, 60], epsilon=1.0)
    assert (typed.composition, typed.epsilon) == ("sequential", 2.0)
    stated = prop_test([23.5, 12.25], [60, 60], epsilon=1.0, composition="parallel")
    assert (stated.composition, stated.epsilon) == ("parallel", 1.0)
    with pytest.raises(ValueError, match="`composition` must be None, 'sequential' or 'parallel'; got 'max'"):
        binom2_normal_test(0.4013, 60, 0.2013, 60, epsilon=1.0, composition="max")
    with pytest.raises(TypeError, match="`composition` must be None, 'sequential' or 'parallel'; got 1"):
        mean2_naive_test(*_pair("mean", "no budget"), composition=1)


def test_a_one_release_result_states_no_composition():
    result = prop_test(_tulap(1.0, 0, None), 0.3)
    assert result.composition is None and result.privacy.composition is None
    assert _privacy_line(str(result)) == ("privacy: epsilon = 1, delta = 0, Tulap mechanism, seeded path "
                                          "(research only)")


def test_a_release_records_its_group_in_its_file_and_repr():
    budget = PrivacyBudget(3.0)
    rel = _laplace_proportion(1.0, 0, budget.parallel("arms").group("treatment").with_label("primary"))
    assert rel.disjoint == (f"{budget.id}/arms", "treatment")
    assert rel.to_dict()["disjoint"] == [f"{budget.id}/arms", "treatment"]
    assert f"charged to:  group 'treatment' of parallel set '{budget.id}/arms'" in str(rel)
    with pytest.raises(ValueError, match=r"`disjoint` must be None or a pair \(scope, group\)"):
        dpinfer.Release(0.3, "laplace", 1.0, 0.0, 1 / 30, 30, "proportion", disjoint=("arms",))


def test_the_command_releases_two_groups_means_and_mean_test_reads_them(tmp_path, capsys):
    from dpinfer.cli import main

    ledger = tmp_path / "ledger.json"
    for i, group in enumerate(("drug", "placebo")):
        data = tmp_path / f"{group}.csv"
        data.write_text("sbp\n" + "\n".join(str(v) for v in (120 + 3 * j + i for j in range(12))) + "\n")
        assert main(["mean-release", "--csv", str(data), "--column", "sbp", "--epsilon", str(EPS[i]),
                     "--lower", "90", "--upper", "170", "--spread", "--seed", str(5 + i), "--budget", str(ledger),
                     "--total-epsilon", "3", "--parallel", "SBP by arm", "--group", group, "--format", "json"]) == 0
        (tmp_path / f"{group}.json").write_text(capsys.readouterr().out)
    assert main(["mean-test", "--release", str(tmp_path / "drug.json"), "--release", str(tmp_path / "placebo.json"),
                 "--method", "naive", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["epsilon"], record["composition"]) == (max(EPS), "parallel")


def test_the_tutorials_parallel_path_still_prints_epsilon_1():
    """docs/two_arm.rst's releases (two arms charged to one parallel set) and its printed line."""
    from pathlib import Path

    arms = PrivacyBudget(epsilon=1.0).parallel("responders by arm")
    releaser = TulapReleaser(epsilon=1.0)
    drug = releaser.release(41, 60, rng=11, budget=arms.group("drug"))
    placebo = releaser.release(27, 60, rng=12, budget=arms.group("placebo"))
    line = _privacy_line(str(prop_test(drug, placebo)))
    assert line.startswith("privacy: epsilon = 1, delta = 0, parallel composition (disjoint groups)")
    page = (Path(__file__).resolve().parents[1] / "docs" / "two_arm.rst").read_text()
    assert line in page  # the page's doctest (tests/test_docs.py) prints this very line


def test_the_rule_itself_on_records():
    from types import SimpleNamespace as Rec

    from dpinfer._composition_rule import combined_privacy, composition_rule

    a, b, c = Rec(disjoint=("s1", "A")), Rec(disjoint=("s1", "B")), Rec(disjoint=("s2", "C"))
    assert composition_rule(None, [a, b]) == "parallel"
    assert composition_rule(None, [a, b, Rec(disjoint=None)]) == "sequential"  # one proves nothing
    assert composition_rule(None, [a, c]) == "sequential"  # two scopes
    assert composition_rule(None, [a]) == "sequential" and composition_rule("sequential", [a, b]) == "sequential"
    assert composition_rule("parallel", [None, None]) == "parallel"  # the user's statement for numbers
    # exact: one rounding of the exact sum (1/3 + 1/3 + 1/3 of the doubles is not 1 in floating point order)
    third = 1 / 3
    assert combined_privacy([third] * 3, [0.0] * 3, "sequential") == (float(3 * Fraction(third)), 0.0)
    assert combined_privacy([1.0, 0.5], [1e-6, 1e-7], "parallel") == (1.0, 1e-6)
