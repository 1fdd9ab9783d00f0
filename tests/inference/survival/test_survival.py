"""Kaplan-Meier and the log-rank test from a private life table.

Reference values: R's survival package on the grouped data (tests/reference/make_survival.R:
``survdiff(Surv(time, status) ~ group)`` and ``summary(survfit(...), times = breaks)``, R 4.2.2,
survival 3.5.3), statsmodels' ``SurvfuncRight`` on the same grouped times, and a direct
summation written here.  With epsilon = 100 the noise per cell is 0 except with probability
about 2 exp(-50) (the Tulap law at epsilon / 2 = 50), so the released table is the true one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from statsmodels.duration.survfunc import SurvfuncRight

from dpinfer import (ApproximationWarning, HTestResult, KaplanMeierResult, LifeTableReleaser, Release,
                     kaplan_meier, logrank_test)
from dpinfer.inference.survival import _size
from dpinfer.inference.survival._table import consistent, discrete_laplace, simulate

REF = json.loads((Path(__file__).parents[2] / "reference" / "survival_values.json").read_text())
BREAKS = tuple(REF["breaks"])


def _patients(tables, breaks, inside=0.5):
    """Patients whose times lie inside their intervals (``t_j - inside``); the rest beyond the last break."""
    time, event, group = [], [], []
    for g, tb in tables.items():
        for j, end in enumerate(breaks):
            time += [end - inside] * (tb["events"][j] + tb["censored"][j])
            event += [1] * tb["events"][j] + [0] * tb["censored"][j]
        left = tb["n"] - sum(tb["events"]) - sum(tb["censored"])
        time += [breaks[-1] + 3.0] * left
        event += [1] * left  # an event after the last break: administratively censored there
        group += [g] * tb["n"]
    return np.array(time), np.array(event), np.array(group)


TIME, EVENT, GROUP = _patients(REF["tables"], BREAKS)
EXACT = LifeTableReleaser(100.0, BREAKS).release(TIME, EVENT, GROUP, rng=1)


def test_the_large_epsilon_release_is_the_true_table():
    for a, g in enumerate("AB"):
        assert np.rint(EXACT.value[a, :, 0]).tolist() == REF["tables"][g]["events"]
        assert np.rint(EXACT.value[a, :, 1]).tolist() == REF["tables"][g]["censored"]


def test_kaplan_meier_equals_r_survfit_and_statsmodels_on_the_grouped_data():
    fit = kaplan_meier(EXACT, estimator="km", n_sim=200)
    assert isinstance(fit, KaplanMeierResult)
    np.testing.assert_allclose(fit.surv[0], REF["surv_A"], rtol=1e-13)
    np.testing.assert_allclose(fit.surv[1], REF["surv_B"], rtol=1e-13)
    assert fit.n_risk[0].tolist() == REF["n_risk_A"] and fit.n_risk[1].tolist() == REF["n_risk_B"]
    # statsmodels on the grouped times: each time moved to its interval's end, beyond 10 censored at 10
    grouped = np.minimum(np.asarray(BREAKS)[np.minimum(np.searchsorted(BREAKS, TIME), len(BREAKS) - 1)], 10.0)
    status = np.where(TIME > BREAKS[-1], 0, EVENT)
    for a, g in enumerate("AB"):
        sf = SurvfuncRight(grouped[GROUP == g], status[GROUP == g])
        at = np.searchsorted(sf.surv_times, BREAKS, side="right") - 1
        np.testing.assert_allclose(fit.surv[a], sf.surv_prob[at], rtol=1e-13)
    # the median: the first break where S <= 1/2, as survfit reports it
    assert fit.median.tolist() == REF["median"] == [10.0, 8.0]


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # the coverage rule: next test
def test_the_actuarial_estimate_is_the_cutler_ederer_life_table():
    """S(t_j) = prod (1 - d_k / (r_k - c_k / 2)), summed here from the reference tables."""
    fit = kaplan_meier(EXACT, n_sim=200)
    assert fit.method.startswith("Actuarial life-table estimate")
    for a, g in enumerate("AB"):
        tb = REF["tables"][g]
        at_risk, surv, expected = tb["n"], 1.0, []
        for d, c in zip(tb["events"], tb["censored"]):
            surv *= 1.0 - d / (at_risk - c / 2.0)
            expected.append(surv)
            at_risk -= d + c
        np.testing.assert_allclose(fit.surv[a], expected, rtol=1e-14)
    # without censoring the two estimates agree
    rel = LifeTableReleaser(100.0, (1.0, 2.0)).release([0.5, 1.5, 1.7, 3.0], [1, 1, 1, 1], rng=1)
    assert np.array_equal(kaplan_meier(rel, n_sim=50).surv, kaplan_meier(rel, estimator="km", n_sim=50).surv)


def _logrank_by_hand(tables, breaks):
    """The grouped log-rank chi-square by direct summation (arm B's O - E; survdiff's hypergeometric V)."""
    u = v = 0.0
    r = {g: tb["n"] for g, tb in tables.items()}
    for j in range(len(breaks)):
        dA, dB = tables["A"]["events"][j], tables["B"]["events"][j]
        d, n = dA + dB, r["A"] + r["B"]
        u += dB - r["B"] * d / n
        v += r["A"] * r["B"] * d * (n - d) / (n * n * (n - 1))
        for g in "AB":
            r[g] -= tables[g]["events"][j] + tables[g]["censored"][j]
    return u * u / v, v


def test_logrank_statistic_equals_r_survdiff_and_a_direct_sum():
    res = logrank_test(EXACT, n_sim=500)
    assert isinstance(res, HTestResult)
    chisq, v = _logrank_by_hand(REF["tables"], BREAKS)
    assert res.statistic == pytest.approx(REF["chisq"], rel=1e-12) and chisq == pytest.approx(REF["chisq"], rel=1e-12)
    assert res.variance == pytest.approx(REF["variance"], rel=1e-12) == v
    np.testing.assert_allclose(res.observed, REF["observed"], rtol=1e-14)
    np.testing.assert_allclose(res.expected, REF["expected"], rtol=1e-12)
    # the Mantel-Haenszel hazard ratio of B to A, summed here
    r = {g: tb["n"] for g, tb in REF["tables"].items()}
    top = bottom = 0.0
    for j in range(len(BREAKS)):
        n = r["A"] + r["B"]
        top += REF["tables"]["B"]["events"][j] * r["A"] / n
        bottom += REF["tables"]["A"]["events"][j] * r["B"] / n
        for g in "AB":
            r[g] -= REF["tables"][g]["events"][j] + REF["tables"][g]["censored"][j]
    assert res.estimate == pytest.approx(top / bottom, rel=1e-12)
    assert res.conf_int.low < res.estimate < res.conf_int.high
    text = str(res)
    # R's print(survdiff(Surv(time, status) ~ group, data = rows)) on these data shows these lines
    assert ("         N Observed Expected (O-E)^2/E (O-E)^2/V\n"
            "group=A 60       30     36.6      1.19       2.8\n"
            "group=B 70       45     38.4      1.14       2.8\n") in text
    assert "Chisq = 2.8044" in text and "privacy: epsilon = 100" in text


def test_one_sided_statistics_and_intervals():
    two = logrank_test(EXACT, n_sim=400)
    greater = logrank_test(EXACT, alternative="greater", n_sim=400)
    less = logrank_test(EXACT, alternative="less", n_sim=400)
    assert greater.statistic == pytest.approx(math.sqrt(two.statistic)) == -less.statistic
    assert greater.conf_int.high == math.inf and less.conf_int.low == 0.0
    assert greater.pvalue < two.pvalue < less.pvalue


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # the coverage rule: next test
def test_the_default_stream_is_derived_from_the_release():
    a, b = logrank_test(EXACT, n_sim=300), logrank_test(EXACT, n_sim=300)
    assert (a.pvalue, a.conf_int) == (b.pvalue, b.conf_int) and "derived from the release" in a.note
    c = logrank_test(EXACT, n_sim=300, rng=5)
    assert "from the given rng" in c.note
    f1, f2 = kaplan_meier(EXACT, n_sim=200), kaplan_meier(EXACT, n_sim=200)
    assert np.array_equal(f1.lower, f2.lower) and not np.array_equal(f1.lower, kaplan_meier(EXACT, n_sim=200,
                                                                                               rng=3).lower)


def test_consistent_projection_by_hand():
    # one arm of 20; cumulative events 3, 1, 6 -> isotonic 2, 2, 6; censorings -2, 2, 7 -> 0, 2, 7
    noisy = np.array([[[3, -2], [-2, 4], [5, 5]]])
    d, c, r = consistent(noisy, (20,))
    assert d.tolist() == [[2, 0, 4]] and c.tolist() == [[0, 2, 5]] and r.tolist() == [[20, 18, 16]]
    # capped: cumulative events 12, 24, 23 -> 12, 23.5 (rounds to 24), 23.5 -> capped at n = 10
    d, c, r = consistent(np.array([[[12, 1], [12, 1], [-1, 1]]]), (10,))
    assert d.tolist() == [[10, 0, 0]] and c.tolist() == [[0, 0, 0]] and r.tolist() == [[10, 0, 0]]


def test_isotonic_fit_equals_pool_adjacent_violators():
    from scipy.optimize import isotonic_regression

    from dpinfer.inference.survival._table import isotonic

    y = np.random.default_rng(4).normal(size=(300, 9)).cumsum(axis=-1) * 2 - np.arange(9)
    fit = isotonic(y.reshape(3, 100, 9))
    expected = np.array([isotonic_regression(row).x for row in y])
    np.testing.assert_allclose(fit.reshape(300, 9), expected, rtol=0, atol=1e-12)


def test_simulated_tables_follow_the_grouped_model_and_the_release_noise():
    gen = np.random.default_rng(8)
    h = np.array([[0.2, 0.5]])
    g = np.array([[0.1, 0.0]])
    sims = simulate(gen, h, g, (50,), 0.0, 20_000)
    # events in interval 1 ~ Binomial(50, 0.2): mean 10, SE sqrt(8 / 20000)
    assert abs(sims[:, 0, 0, 0].mean() - 10.0) < 4 * math.sqrt(8.0 / 20_000)
    # censorings ~ Binomial(50 - D, 0.1): mean 4, variance E[Var] + Var[E] = 3.6 + 0.08
    assert abs(sims[:, 0, 0, 1].mean() - 4.0) < 4 * math.sqrt(3.68 / 20_000)
    b = math.exp(-0.5)
    noise = discrete_laplace(gen, b, 100_000)
    for d in (-2, 0, 1):
        p = (1 - b) / (1 + b) * b ** abs(d)
        assert abs(np.mean(noise == d) - p) < 4 * math.sqrt(p * (1 - p) / 100_000)


def test_result_frames_and_dicts():
    fit = kaplan_meier(EXACT, estimator="km", n_sim=200)
    frame = fit.to_frame()
    assert list(frame.columns) == ["group", "time", "n_risk", "n_event", "n_censor", "estimate", "std_error",
                                   "conf_low", "conf_high", "conf_level"]
    assert len(frame) == 10 and frame["estimate"].iloc[0] == pytest.approx(REF["surv_A"][0])
    json.dumps(fit.to_dict())
    text = str(fit)
    assert "time n.risk n.event survival std.err lower 95% CI upper 95% CI" in text
    flat = " ".join(text.split())
    assert "group=A" in text and "median survival (95% CI):" in text and "times beyond 10 censored" in flat
    assert "unit of privacy: one patient" in text
    json.dumps(logrank_test(EXACT, n_sim=100).to_dict())


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # the coverage rule: next test
def test_intervals_contain_the_estimate_and_widen_with_the_noise():
    rel = LifeTableReleaser(0.5, BREAKS).release(TIME, EVENT, GROUP, rng=2)
    noisy, exact = kaplan_meier(rel, n_sim=400), kaplan_meier(EXACT, n_sim=400)
    assert np.all(noisy.lower <= noisy.surv) and np.all(noisy.surv <= noisy.upper)
    assert np.mean(noisy.upper - noisy.lower) > 1.5 * np.mean(exact.upper - exact.lower)
    corrected = kaplan_meier(rel, method="bootstrap", n_sim=400)
    assert np.array_equal(corrected.surv, noisy.surv) and "bias-corrected" in corrected.method
    assert np.all(corrected.lower <= corrected.surv) and np.all(corrected.surv <= corrected.upper)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: kaplan_meier([[1.5, 2.5]]), TypeError, "`release` must be a dpinfer Release of kind 'life_table'"),
    (lambda: kaplan_meier(LifeTableReleaser(1.0, (1, 2)).release([0.5, 1.5], [1, 1], rng=1), method="greenwood"),
     ValueError, "`method` must be one of 'percentile', 'bootstrap'"),
    (lambda: kaplan_meier(EXACT, confidence_level=95), ValueError, r"give 0.95, not 95"),
    (lambda: kaplan_meier(EXACT, estimator="kaplan-meier"), ValueError, "`estimator` must be one of 'actuarial', 'km'"),
    (lambda: logrank_test(EXACT, n_sim=0), ValueError, "`n_sim`"),
    (lambda: logrank_test(EXACT, alternative="two.sided"), ValueError, "`alternative` must be one of"),
    (lambda: logrank_test(LifeTableReleaser(1.0, (1, 2)).release([0.5, 1.5], [1, 1], rng=1)), ValueError,
     "a life table of two arms for a log-rank test; it has 1 \\(all\\)"),
    (lambda: logrank_test(Release(3.5, "tulap", 1.0, 0.0, 1.0, 10, "count")), ValueError,
     "which logrank_test does not take.*For this release use binom2_ump_test, binom_many_to_one_test, binom_pooled_test, binom_ump_test"),
    (lambda: kaplan_meier(LifeTableReleaser(1.0, (1, 2)).release(np.ones((2, 3)), np.ones((2, 3)), rng=1)),
     ValueError, "must hold one life table; got a stack"),
    (lambda: logrank_test(Release(np.full((2, 2, 2), 0.25), "tulap", 1.0, 0.01, 2.0, 6, "life_table", breaks=[1, 2],
                                  groups=["a", "b"], group_sizes=[3, 3])),
     ValueError, r"sensitivity 2, delta 0.*got sensitivity 2.0 and delta 0.01"),
])
def test_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_the_size_warning_follows_the_shared_rule(monkeypatch):
    """The rule's mechanics on a planted study row (the real rows: next test)."""
    planted = {(50, 1.0): (0.13, 200, "planted"), (200, 1.0): (0.06, 200, "planted")}
    monkeypatch.setattr(_size, "SIZES", planted)
    # 0.13 > 0.05 + max(0.2 * 0.05, 4 sqrt(0.05 0.95 / 200) = 0.0616): beyond the rule
    with pytest.warns(ApproximationWarning, match=r"measured the size of the level-0.05 test \(n = 50 per arm, "
                                                  r"epsilon = 1, planted\) at 0.13 \(Monte Carlo SE 0.015, 200"):
        logrank_test(EXACT, n_sim=50)  # 60 in the smaller arm, epsilon 100: the row (50, 1) speaks
    monkeypatch.setattr(_size, "SIZES", {(50, 1.0): (0.06, 200, "planted")})
    logrank_test(EXACT, n_sim=50)  # within the rule: no warning (warnings are errors here)
    assert _size.size_row(10, 0.1)[:2] == (50, 1.0)  # below every study point: the smallest


def test_kaplan_meier_warns_where_the_study_measured_low_coverage():
    # 60 patients in the smaller arm, epsilon 100: the study row (50, 3) (worst break 0.87 of 200)
    with pytest.warns(ApproximationWarning, match=r"missing the true survival at their worst break \(n = 50 "
                                                  r"per arm, epsilon = 3, weibull, 20 intervals, 0% censored\) "
                                                  r"at a rate of 0.13"):
        kaplan_meier(EXACT, n_sim=50)
    kaplan_meier(EXACT, estimator="km", n_sim=50)  # not the setting the study measured: quiet
    quiet = LifeTableReleaser(0.5, BREAKS).release(TIME, EVENT, GROUP, rng=2)  # row (50, 0.5): 0.945
    kaplan_meier(quiet, n_sim=50)
    with pytest.warns(ApproximationWarning, match=r"at a rate of 0.505"):  # the bootstrap's row (50, 0.5)
        kaplan_meier(quiet, method="bootstrap", n_sim=50)


def test_the_study_rows_speak_for_calls_at_other_settings():
    ns = sorted({k[0] for k in _size.SIZES})
    eps = sorted({k[1] for k in _size.SIZES})
    assert ns == [50, 200, 1000] and eps == [0.5, 1.0, 3.0]
    assert _size.size_row(120, 2.0)[:2] == (50, 1.0)
    assert _size.size_row(5000, 10.0)[:2] == (1000, 3.0)
    assert _size.size_row(30, 0.2)[:2] == (50, 0.5)
    for n, e in [(120, 2.0), (5000, 10.0), (30, 0.2), (700, 0.7)]:
        study_n, study_eps, rate, reps, _ = _size.size_row(n, e)
        flagged = _size.measured_rate_message(rate, _size.ALPHA, reps) is not None
        assert (_size.size_warning(n, e) is not None) == flagged
        assert not flagged  # the study measured no size beyond the rule: the test never warns
    # the coverage rows: flagged at (50, 3), (200, 1), (1000, 0.5), (1000, 1) and nowhere else
    flagged = {k for k, (cov, reps, _) in _size.COVERAGES.items()
               if _size.measured_rate_message(1 - cov, _size.ALPHA, reps) is not None}
    assert flagged == {(50, 3.0), (200, 1.0), (1000, 0.5), (1000, 1.0)}
    assert _size.coverage_warning(120, 2.0) is None and _size.coverage_warning(30, 0.2) is None
    assert _size.coverage_warning(400, 1.5) is not None and _size.coverage_warning(5000, 0.7) is not None
    flagged = {k for k, (cov, reps, _) in _size.COVERAGES_BOOTSTRAP.items()
               if _size.measured_rate_message(1 - cov, _size.ALPHA, reps) is not None}
    assert flagged == set(_size.COVERAGES_BOOTSTRAP) - {(1000, 1.0), (1000, 3.0)}
    assert _size.coverage_warning(120, 2.0, "bootstrap") is not None
