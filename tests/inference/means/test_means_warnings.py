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
from dpinfer.inference.means._spread_table import SPREAD_RATES


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
    assert [spread_row(n, 1.0, "normal")[0] for n in (5, 30, 79, 80, 499, 500, 10**6)] == \
        [30, 30, 30, 80, 80, 500, 500]
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
