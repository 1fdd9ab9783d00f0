"""DP-JIMI for a mean warns where the means study measured one-sided errors beyond the shared rule.

The rule (``dpinfer.inference.means._approx``) is decided from public numbers only:
spread released (no ``sigma``), one-sided alternative, and the study's measured worst
tail for the model at the call's n.  The numbers behind the rows are re-measured in
the slow test below (and by ``python -m validation._means_tails``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpinfer import ApproximationWarning, MeanReleaser, mean2_jimi_test, mean_jimi_test, mean_test
from dpinfer.inference._oc_warnings import measured_rate_message
from dpinfer.inference.means._approx import SPREAD_TAILS, spread_row


def _release(n, spread=True, seed=3):
    x = np.random.default_rng(seed).normal(130.0, 15.0, n)
    return MeanReleaser(1.0, 80.0, 140.0, spread=spread).release(x, rng=seed + 1)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_warns_one_sided_with_the_spread_released_at_small_n(alternative):
    with pytest.warns(ApproximationWarning, match=r"one-sided test: for n = 30, the normal model") as caught:
        mean_jimi_test(_release(30), mu0=125.0, alternative=alternative, n_sim=100, rng=1)
    text = str(caught[0].message)
    assert "0.047 (Monte Carlo SE 0.0035, 2000 data sets) where 0.025 is nominal" in text
    assert "Give `sigma`" in text and "130" not in text  # public numbers only: no data value
    assert caught[0].filename == __file__


def test_warns_for_the_lognormal_model_below_n_100():
    with pytest.warns(ApproximationWarning, match=r"n = 99, the log-normal model and alternative='greater'.*0.06 "):
        mean_jimi_test(_release(99), mu0=125.0, model="lognormal", alternative="greater", n_sim=20, rng=1)


def test_mean_test_warns_at_the_callers_line():
    with pytest.warns(ApproximationWarning, match="one-sided test") as caught:
        mean_test(_release(100), mu0=125.0, alternative="greater", n_sim=100, rng=1)
    assert caught[0].filename == __file__


@pytest.mark.parametrize("call", [
    lambda: mean_jimi_test(_release(30), mu0=125.0, n_sim=100, rng=1),  # two-sided
    lambda: mean_jimi_test(_release(30), mu0=125.0, sigma=15.0, alternative="greater", n_sim=100, rng=1),
    lambda: mean_jimi_test(_release(30, spread=False), mu0=125.0, sigma=15.0, alternative="less", n_sim=100, rng=1),
    lambda: mean_jimi_test(_release(500), mu0=125.0, alternative="greater", n_sim=20, rng=1),  # n = 500 passes
    lambda: mean2_jimi_test(_release(30), _release(30, seed=8), alternative="greater", n_sim=100, rng=1),
    lambda: mean_test(_release(30), mu0=125.0, alternative="greater", method="naive"),
    lambda: mean_jimi_test(_release(100), mu0=125.0, model="lognormal", alternative="less", n_sim=20, rng=1),
])
def test_silent_where_the_study_found_no_shortfall(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call()


def test_measured_rate_rule():
    # se = sqrt(0.025 * 0.975 / 2000) = 0.003491; the bar is 0.025 + max(0.005, 4 se) = 0.038964
    se = math.sqrt(0.025 * 0.975 / 2000)
    assert math.isclose(se, 0.0034910600109, rel_tol=1e-9)
    assert measured_rate_message(0.0389, 0.025, 2000) is None
    assert measured_rate_message(0.0390, 0.025, 2000).startswith("0.039 (Monte Carlo SE 0.0035, 2000 data sets)")
    # with many data sets the 20% tolerance is the bar: 0.025 * 1.2 = 0.03
    assert measured_rate_message(0.0299, 0.025, 10**7) is None and measured_rate_message(0.0301, 0.025, 10**7)


def test_the_row_that_speaks_for_n():
    assert [spread_row(n, "normal")[0] for n in (5, 30, 99, 100, 499, 500, 10**6)] == [30, 30, 30, 100, 100, 500, 500]
    assert [spread_row(n, "lognormal")[0] for n in (5, 99, 100, 10**6)] == [30, 30, 100, 100]
    for rows in SPREAD_TAILS.values():
        assert [r[0] for r in rows] == sorted(r[0] for r in rows)


@pytest.mark.slow
def test_the_warned_regime_is_measured_beyond_the_rule():
    # the table's n = 30 row re-measured (point 8 of validation._means_tails: epsilon 3, 20% clipped above):
    # 2000 data sets, SE of a nominal 0.025 tail sqrt(0.025 0.975 / 2000) = 0.0035
    from validation import _means_tails

    point = _means_tails.points()[8]
    assert point == ("normal", "normal", 30, 3.0, 0.2, 2000)
    low, high = _means_tails.tail_point(*point, np.random.SeedSequence(_means_tails.SEED, spawn_key=(8,)))
    assert low > 0.025 + 4 * math.sqrt(0.025 * 0.975 / 2000)  # the lower end misses beyond 4 SE
    assert low == SPREAD_TAILS["normal"][0][1]  # the number the warning cites


def test_the_command_spells_the_warning_in_its_options(capsys, tmp_path):
    from dpinfer.cli import main

    x = np.random.default_rng(1).normal(130.0, 15.0, 40).round(1)
    data = tmp_path / "sbp.csv"
    data.write_text("sbp\n" + "".join(f"{v}\n" for v in x))
    assert main(["mean-release", "--csv", str(data), "--column", "sbp", "--lower", "90", "--upper", "140",
                 "--epsilon", "1", "--spread", "--seed", "3", "--format", "json"]) == 0
    release = tmp_path / "rel.json"
    release.write_text(capsys.readouterr().out)
    assert main(["mean-test", "--release", str(release), "--mu0", "125", "--alternative", "greater",
                 "--n-sim", "100"]) == 0
    err = capsys.readouterr().err
    assert "dpinfer mean-test: warning: DP-JIMI with the spread released is approximate" in err
    assert "--alternative greater" in err and "Give --sigma if" in err
