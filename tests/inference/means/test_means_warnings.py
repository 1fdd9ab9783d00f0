"""DP-JIMI for a mean warns where the means study measured error rates beyond the shared rule.

The rule (``dpinfer.inference.means._approx``) is decided from public numbers only:
n, the effective epsilon, whether the released clipped mean lies near a bound, the
model, spread released (no ``sigma``) and the alternative, judged against the
study's table (``_spread_table.py``, written by ``python -m validation._means_tails
--table``).  The numbers behind the issue-40 row are re-measured in the slow test
below.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpinfer import ApproximationWarning, MeanReleaser, mean2_jimi_test, mean_jimi_test, mean_test
from dpinfer.inference._oc_warnings import measured_rate_bar, measured_rate_message
from dpinfer.inference.means._approx import effective_epsilon, spread_row
from dpinfer.inference.means._spread_table import SPREAD2_RATES, SPREAD_RATES


def _issue_release(seed=40, n=80, epsilon=0.5, bounds=(10.0, 107.866), mean=100.0):
    # issue 40: N(100, 15**2), n = 80, MeanReleaser(0.5, 10, 107.866, spread=True) (30% clipped above)
    x = np.random.default_rng(seed).normal(mean, 15.0, n)
    return MeanReleaser(epsilon, *bounds, spread=True).release(x, rng=seed + 1)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


def test_issue_40_setting_warns_two_sided_naming_the_measured_rate():
    rel = _issue_release()
    row = spread_row(80, 0.5, "normal")
    assert row[:3] == (80, 0.5, 2000) and row[6] == "30% clipped above, lower bound 6 sd below the mean"
    miss, reps = 1.0 - row[5], row[2]
    assert miss > measured_rate_bar(0.05, reps)  # beyond the shared rule (the row's own numbers)
    with pytest.warns(ApproximationWarning, match=r"two-sided 95% intervals missing the mean \(n = 80, "
                      r"epsilon = 0\.5, 30% clipped above, lower bound 6 sd below the mean") as caught:
        mean_jimi_test(rel, mu0=100.0, n_sim=50, rng=1)
    text = str(caught[0].message)
    assert f"at {miss:.3g} (Monte Carlo SE {math.sqrt(0.05 * 0.95 / reps):.2g}, {reps} data sets) where 0.05 " \
           "is nominal" in text
    assert "Give `sigma`" in text and caught[0].filename == __file__
    # public numbers only: the same text for other data with the same public settings
    other = _issue_release(seed=41)
    with pytest.warns(ApproximationWarning) as again:
        mean_jimi_test(other, mu0=100.0, n_sim=50, rng=1)
    assert str(again[0].message) == text


def test_mean_test_warns_at_the_callers_line():
    with pytest.warns(ApproximationWarning, match="two-sided 95% intervals") as caught:
        mean_test(_issue_release(), mu0=100.0, n_sim=50, rng=1)
    assert caught[0].filename == __file__


@pytest.mark.parametrize("call", [
    # the issue's release with the standard deviation known: exact, never warns
    lambda: mean_jimi_test(_issue_release(), mu0=100.0, sigma=15.0, n_sim=50, rng=1),
    lambda: mean_jimi_test(_issue_release(), mu0=100.0, sigma=15.0, alternative="greater", n_sim=50, rng=1),
    # n = 80, epsilon = 1, two-sided: worst coverage 0.937 at 2000 data sets, within the rule
    lambda: mean_jimi_test(_issue_release(epsilon=1.0), mu0=100.0, n_sim=50, rng=1),
    # n = 80, epsilon = 3, one-sided: worst end 0.0355, within the rule
    lambda: mean_jimi_test(_issue_release(epsilon=3.0), mu0=100.0, alternative="greater", n_sim=50, rng=1),
    # n = 500, epsilon = 3, either way
    lambda: mean_jimi_test(_issue_release(n=500, epsilon=3.0), mu0=100.0, n_sim=20, rng=1),
    lambda: mean_jimi_test(_issue_release(n=500, epsilon=3.0), mu0=100.0, alternative="less", n_sim=20, rng=1),
    # the log-normal model at n = 100, epsilon 1, one-sided
    lambda: mean_jimi_test(_issue_release(n=100, epsilon=1.0), mu0=100.0, model="lognormal",
                           alternative="greater", n_sim=20, rng=1),
    lambda: mean2_jimi_test(_issue_release(), _issue_release(seed=8), n_sim=50, rng=1),
    lambda: mean_test(_issue_release(), mu0=100.0, alternative="greater", method="naive"),
])
def test_silent_where_the_study_found_no_shortfall(call):
    _quiet(call)


def test_the_silent_points_are_the_studys_fine_rows():
    # the rows that speak for the silent calls above lie within the shared rule (the table's own numbers)
    for n, eps in ((80, 1.0), (500, 3.0)):
        row = spread_row(n, eps, "normal")
        assert measured_rate_message(1.0 - row[5], 0.05, row[2]) is None
    for n, eps, model in ((80, 3.0, "normal"), (500, 3.0, "normal"), (100, 1.0, "lognormal")):
        row = spread_row(n, eps, model)
        assert measured_rate_message(row[3], 0.025, row[2]) is None


@pytest.mark.parametrize("n, epsilon, alternative", [(80, 1.0, "greater"), (30, 1.0, "less"), (30, 3.0, "two-sided")])
def test_warns_where_the_study_measured_beyond_the_rule(n, epsilon, alternative):
    row = spread_row(n, epsilon, "normal")
    rate, nominal = (1.0 - row[5], 0.05) if alternative == "two-sided" else (row[3], 0.025)
    assert rate > measured_rate_bar(nominal, row[2])
    with pytest.warns(ApproximationWarning, match=rf"for n = {n}, epsilon = {epsilon:g}, the normal model"):
        mean_jimi_test(_issue_release(n=n, epsilon=epsilon), mu0=100.0, alternative=alternative, n_sim=20, rng=1)


def test_measured_rate_rule():
    # se = sqrt(0.025 * 0.975 / 2000) = 0.003491; the bar is 0.025 + max(0.005, 4 se) = 0.038964
    se = math.sqrt(0.025 * 0.975 / 2000)
    assert math.isclose(se, 0.0034910600109, rel_tol=1e-9)
    assert math.isclose(measured_rate_bar(0.025, 2000), 0.025 + 4 * se, rel_tol=1e-12)
    assert measured_rate_message(0.0389, 0.025, 2000) is None
    assert measured_rate_message(0.0390, 0.025, 2000).startswith("0.039 (Monte Carlo SE 0.0035, 2000 data sets)")
    # with many data sets the 20% tolerance is the bar: 0.025 * 1.2 = 0.03
    assert measured_rate_message(0.0299, 0.025, 10**7) is None and measured_rate_message(0.0301, 0.025, 10**7)


def test_the_row_that_speaks_for_a_call():
    assert [spread_row(n, 1.0, "normal")[0] for n in (5, 30, 79, 80, 99, 100, 499, 500, 10**6)] == \
        [30, 30, 30, 80, 80, 100, 100, 500, 500]
    assert [spread_row(80, e, "normal")[1] for e in (0.1, 0.5, 0.99, 1.0, 2.9, 3.0, 50.0)] == \
        [0.5, 0.5, 0.5, 1.0, 1.0, 3.0, 3.0]
    assert [spread_row(n, 1.0, "lognormal")[0] for n in (5, 99, 100, 10**6)] == [30, 30, 100, 100]
    # the weaker part as if split evenly: 80% of epsilon 1 on the sum leaves 0.2 to the squares
    assert math.isclose(effective_epsilon(1.0, (0.8, 0.2)), 0.4) and effective_epsilon(2.0, (0.5, 0.5)) == 2.0
    for rows in SPREAD_RATES.values():
        keys = [r[:2] for r in rows]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_an_uneven_split_reads_a_noisier_row():
    # epsilon 3 split 0.9 / 0.1: the squares get 0.3, below every study epsilon, so the epsilon-0.5 row speaks
    rel = MeanReleaser(3.0, 10.0, 107.866, spread=True, split=0.9).release(
        np.random.default_rng(40).normal(100.0, 15.0, 80), rng=41)
    with pytest.warns(ApproximationWarning, match=r"\(n = 80, epsilon = 0\.5, "):
        mean_jimi_test(rel, mu0=100.0, n_sim=20, rng=1)
    _quiet(lambda: mean_jimi_test(_issue_release(epsilon=3.0), mu0=100.0, n_sim=20, rng=1))  # even split: silent


def test_the_table_picks_the_worst_by_the_rules_bar():
    from validation import _means_tails

    def row(rate, reps, up):
        return {"model": "normal", "spread": "released", "n": 80, "epsilon": 1.0, "clip_upper": up,
                "clip_lower": 0.0, "lower_sd": 4.0, "reps": reps, "coverage": 1 - rate, "low_miss": rate,
                "high_miss": 0.0}

    # 0.1 of 20 data sets is 0.145 below its bar (0.05 + 4 sqrt(0.0475 / 20) = 0.2449); 0.06 of 2000 only
    # 0.0095 below its (0.0695): the second is the worse
    (entry,) = _means_tails.table_rows([row(0.1, 20, 0.2), row(0.06, 2000, 0.3)])["normal"]
    assert entry[:3] == (80, 1.0, 20) and entry[5:] == (0.94, "30% clipped above")


@pytest.mark.slow
def test_the_issue_row_is_measured_beyond_the_rule():
    # the issue's point re-measured by the study (2000 data sets, 199 draws; seeded by its settings)
    from validation import _means_tails

    point = ("normal", "normal", 80, 0.5, 0.3, 0.0, 6.0, "released", 2000)
    assert point in _means_tails.points()
    got = _means_tails.tail_point(point)
    assert got["coverage"] < 0.95 - 4 * math.sqrt(0.95 * 0.05 / 2000)  # short beyond 4 SE
    row = spread_row(80, 0.5, "normal")
    assert row[6] == "30% clipped above, lower bound 6 sd below the mean"
    assert got["coverage"] == row[5] and got["low_miss"] == row[3] and got["reps"] == row[2]


def test_the_command_spells_the_warning_in_its_options(capsys, tmp_path):
    from dpinfer.cli import main

    x = np.random.default_rng(40).normal(100.0, 15.0, 80).round(1)
    data = tmp_path / "x.csv"
    data.write_text("x\n" + "".join(f"{v}\n" for v in x))
    assert main(["mean-release", "--csv", str(data), "--column", "x", "--lower", "10", "--upper", "107.866",
                 "--epsilon", "0.5", "--spread", "--seed", "41", "--format", "json"]) == 0
    release = tmp_path / "rel.json"
    release.write_text(capsys.readouterr().out)
    assert main(["mean-test", "--release", str(release), "--mu0", "100", "--n-sim", "50"]) == 0
    err = capsys.readouterr().err
    assert "dpinfer mean-test: warning: DP-JIMI with the spread released is approximate" in err
    assert "--alternative two-sided" in err and "Give --sigma if" in err


def test_the_n_100_row_speaks_from_100_to_499():
    # one-sided, n = 150, epsilon 3: the n = 100 row's worst end (0.040 at 2000 data sets) is beyond the bar
    # 0.025 + 4 sqrt(0.025 0.975 / 2000) = 0.03896; the n = 80 row (0.0355), read before it was measured, was not
    row = spread_row(150, 3.0, "normal")
    assert row[:2] == (100, 3.0) and row[3] > 0.025 + 4 * math.sqrt(0.025 * 0.975 / row[2])
    with pytest.warns(ApproximationWarning, match=r"ends missing the mean \(n = 100, epsilon = 3, "):
        mean_jimi_test(_issue_release(n=150, epsilon=3.0), mu0=100.0, alternative="greater", n_sim=20, rng=1)
    _quiet(lambda: mean_jimi_test(_issue_release(n=150, epsilon=3.0), mu0=100.0, n_sim=20, rng=1))


# -- two groups: mean2_jimi_test reads the two-group table (SPREAD2_RATES) by the same rule

def _bar(nominal, reps):
    # the shared rule's bar, written out: nominal + max(20% of it, 4 Monte Carlo SE at the nominal rate)
    return nominal + max(0.2 * nominal, 4.0 * math.sqrt(nominal * (1.0 - nominal) / reps))


def _pair(n, epsilon, seed=50, shift=0.0):
    gen = np.random.default_rng(seed)
    releaser = MeanReleaser(epsilon, 10.0, 107.866, spread=True)
    return (releaser.release(gen.normal(100.0 + shift, 15.0, n), rng=seed + 1),
            releaser.release(gen.normal(100.0, 15.0, n), rng=seed + 2))


def _two_group_cases():
    cases = []
    for model, rows in SPREAD2_RATES.items():
        for n, eps, reps, tail, _, cover, _ in rows:
            cases.append((model, n, eps, "two-sided", 1.0 - cover, 0.05, reps))
            cases.append((model, n, eps, "greater", tail, 0.025, reps))
    return cases


def test_the_two_group_study_found_no_setting_beyond_the_rule():
    # the kept run (108 points): every row of the two-group table lies within the shared rule, so
    # mean2_jimi_test is silent at every n and epsilon (the parametrized test below checks each call)
    assert all(rate <= _bar(nominal, reps) for *_, rate, nominal, reps in _two_group_cases())


def test_a_two_group_row_beyond_the_rule_warns_naming_it(monkeypatch):
    # the warning path itself, on a table with one row beyond the bar (0.05 + 4 sqrt(0.0475 / 2000) = 0.06950)
    from dpinfer.inference.means import _approx

    row = (80, 1.0, 2000, 0.02, "each group: nothing clipped", 0.92, "group 1 40% and group 2 20% clipped above")
    monkeypatch.setattr(_approx, "SPREAD2_RATES", {"normal": (row,), "lognormal": (row,)})
    rel1, rel2 = _pair(120, 2.0)
    with pytest.warns(ApproximationWarning, match=r"for n = 120 and 120, epsilon = 2 and 2, the normal") as caught:
        mean2_jimi_test(rel1, rel2, n_sim=10, rng=1)
    text = str(caught[0].message)
    assert "missing the difference of the means (n = 80, epsilon = 1 per group, group 1 40% and group 2 20% " \
           "clipped above) at 0.08 (Monte Carlo SE 0.0049, 2000 data sets) where 0.05 is nominal" in text
    assert "each group's draws are then exact" in text and caught[0].filename == __file__
    # one group's sigma given: the other's draws are still approximate, so it warns; both given: silent
    with pytest.warns(ApproximationWarning):
        mean2_jimi_test(rel1, rel2, sigma=(15.0, None), n_sim=10, rng=1)
    _quiet(lambda: mean2_jimi_test(rel1, rel2, sigma=15.0, n_sim=10, rng=1))
    # the one-sided end, 0.02, is within its bar (0.0390): silent; the smaller group and epsilon speak
    _quiet(lambda: mean2_jimi_test(rel1, rel2, alternative="less", n_sim=10, rng=1))
    small = _pair(40, 2.0)[1]
    assert _approx.spread_row(40, 2.0, "normal", _approx.SPREAD2_RATES) == row  # the smallest study n below it
    with pytest.warns(ApproximationWarning, match=r"for n = 120 and 40, "):
        mean2_jimi_test(rel1, small, n_sim=10, rng=1)


@pytest.mark.parametrize("model, n, epsilon, alternative, rate, nominal, reps", _two_group_cases())
def test_two_groups_warn_exactly_where_the_table_is_beyond_the_rule(model, n, epsilon, alternative, rate, nominal,
                                                                    reps):
    rel1, rel2 = _pair(n, epsilon)
    call = lambda: mean2_jimi_test(rel1, rel2, model=model, alternative=alternative, n_sim=10, rng=1)  # noqa: E731
    if rate > _bar(nominal, reps):
        se = math.sqrt(nominal * (1.0 - nominal) / reps)
        with pytest.warns(ApproximationWarning, match=rf"for n = {n} and {n}, epsilon = {epsilon:g} and "
                          rf"{epsilon:g}, ") as caught:
            call()
        text = str(caught[0].message)
        assert f"at {rate:.3g} (Monte Carlo SE {se:.2g}, {reps} data sets) where {nominal:g} is nominal" in text
        assert f"(n = {n}, epsilon = {epsilon:g} per group, " in text and caught[0].filename == __file__
        # both groups' sigma given: each group's draws exact, silent
        _quiet(lambda: mean2_jimi_test(rel1, rel2, sigma=15.0 if model == "normal" else 0.6, model=model,
                                       alternative=alternative, n_sim=10, rng=1))
    else:
        _quiet(call)
