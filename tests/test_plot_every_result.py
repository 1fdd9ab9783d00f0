"""Every public test with an interval draws its figure, or says why not (issue 42, item 1).

The first test enumerates the public functions of ``dpinfer.__all__`` whose documented return
(the numpydoc ``Returns`` section) is an :class:`~dpinfer.HTestResult` (or a subclass, or the
:class:`~dpinfer.results.HTestResults` of :func:`~dpinfer.map_results`) and requires each to
appear in one of three tables: ``PLOTS`` (``result.plot()`` draws: the axis labels are checked,
and for a confidence curve its crossing of ``1 - level`` at the printed ends, within the grid's
tolerance), ``NO_INTERVAL`` (the test has no confidence interval: ``plot()`` says so) and
``REFUSALS`` (an interval, but no curve: empty since every such result draws its curve).

The other figures with an interval (a logistic fit's coefficients, the planning results' power
against ``n``) are checked against independent computations: each interval as the single test
gives it, the fiducial draws' order statistics and their ``exp``, the randomized UMP binomial test's power from
scipy's binomial law, and the textbook z test's power from the normal law.
"""

import inspect
import math
import pickle
import re
from statistics import NormalDist

import numpy as np
import pytest
from scipy.stats import binom

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import dpinfer as d  # noqa: E402
# the pooled and stratified releases, and the autouse fixture closing every figure
from test_plot_results import _close_figures, _sites, _strata  # noqa: E402, F401

_T, _L = d.TulapReleaser(1.0), d.LaplaceReleaser(1.0)


def _mean_release(shift, spread=True, seed=4):
    x = np.random.default_rng(3).normal(130.0, 15.0, size=200) + shift
    return d.MeanReleaser(1.0, lower=80.0, upper=180.0, spread=spread).release(x, rng=seed)


def _simon():
    design = d.simon_design(0.1, 0.3, alpha=0.05, power=0.8, epsilon=1.0, max_n=60)
    run = design.staged_release(budget=d.PrivacyBudget(1.0))
    run.release(1, 5, rng=2026)
    run.release(2, 9, rng=2027)
    return d.simon_test(design, run)


def _sequential():
    design = d.sequential_design(0.5, 0.3, looks=3, alpha=0.025, power=0.8, epsilon=1.0)
    run = design.staged_release(budget=d.PrivacyBudget(1.0))
    for look, counts, seed in ((1, [22, 13], 21), (2, [23, 15], 22), (3, [20, 12], 23)):
        run.release(look, counts, rng=seed)
    return d.sequential_test(design, run)


def _life_table():
    gen = np.random.default_rng(3)
    time = np.concatenate([gen.exponential(10.0, 150), gen.exponential(6.0, 150)])
    return d.LifeTableReleaser(1.0, breaks=[2, 4, 6, 8]).release(time, np.ones(300), ["control"] * 150
                                                                  + ["treated"] * 150, rng=4)


def _mcnemar_theta(res):
    """McNemar's p-value takes 0.2 s: the ends, the estimate and a neighbour outside each end."""
    low, high = res.conf_int.low, res.conf_int.high
    return {"theta": [low - 0.02, low, res.estimate, high, high + 0.02]}


P, RD, MEAN = "proportion p", "risk difference p1 - p2", "mean mu"
#: function -> (builder, expected x label, tolerance of the crossing in p, plot arguments from the result);
#: the tolerance is 1e-6 for exact p-values and the Monte Carlo granularity for simulated ones
PLOTS = {
    "binom_ump_test": (lambda: d.binom_ump_test(_T.release(41, 60, rng=1), p0=0.5), P, 1e-6, None),
    "binom_normal_test": (lambda: d.binom_normal_test(_L.proportion(41, 60, rng=1), p0=0.5), P, 1e-6, None),
    "binom_jimi_test": (lambda: d.binom_jimi_test(_L.proportion(41, 60, rng=1), p0=0.5, rng=1), P, 1e-3, None),
    "prop_test": (lambda: d.prop_test(_T.release(41, 60, rng=1), p0=0.5), P, 1e-6, None),
    "binom2_ump_test": (lambda: d.binom2_ump_test(_T.release(41, 60, rng=1), _T.release(27, 60, rng=2),
                                                  statistic="difference"), RD, 1e-6, None),
    "binom2_normal_test": (lambda: d.binom2_normal_test(0.62, 80, 0.45, 75, epsilon=1.0), RD, 1e-12, None),
    "binom2_jimi_test": (lambda: d.binom2_jimi_test(_L.proportion(41, 60, rng=1), _L.proportion(27, 60, rng=2),
                                                    rng=1), RD, 2e-3, None),
    "binom_pooled_test": (lambda: d.binom_pooled_test(_sites(), p0=0.25), P, 1e-6, None),
    "binom_strata_test": (lambda: d.binom_strata_test(_strata()), "common risk difference p1 - p2", 1e-6, None),
    "binom2_pooled_test": (lambda: d.binom2_pooled_test(*zip(*_strata())), "common risk difference p1 - p2",
                           1e-6, None),
    "mean_naive_test": (lambda: d.mean_naive_test(_mean_release(0.0), mu0=125.0), MEAN, 1e-6, None),
    "mean_jimi_test": (lambda: d.mean_jimi_test(_mean_release(0.0), mu0=125.0, rng=1), MEAN, 2e-3, None),
    "mean_repro_test": (lambda: d.mean_repro_test(_mean_release(0.0), mu0=125.0, sigma=15.0, rng=1), MEAN, 2e-3,
                        None),
    "mean_test": (lambda: d.mean_test(_mean_release(0.0), mu0=125.0, rng=1), MEAN, 2e-3, None),
    "mean2_naive_test": (lambda: d.mean2_naive_test(_mean_release(0.0), _mean_release(5.0, seed=5)),
                         "difference in means mu1 - mu2", 1e-6, None),
    "mean2_jimi_test": (lambda: d.mean2_jimi_test(_mean_release(0.0), _mean_release(5.0, seed=5), rng=1),
                        "difference in means mu1 - mu2", 2e-3, None),
    "mean2_repro_test": (lambda: d.mean2_repro_test(_mean_release(0.0), _mean_release(5.0, seed=5), sigma=15.0,
                                                    rng=1), "difference in means mu1 - mu2", 2e-3, None),
    "mcnemar_test": (lambda: d.mcnemar_test(d.PairedTableReleaser(epsilon=1.0).release([[40, 5], [15, 40]], rng=7)),
                     "difference of paired proportions p10 - p01", 1e-6, _mcnemar_theta),
    "rr_proportion_test": (lambda: d.rr_proportion_test(d.RandomizedResponseReleaser(1.0).release(
        np.random.default_rng(8).binomial(1, 0.7, 500), rng=9), p0=0.5), P, 1e-6, None),
    "rr_two_sample_test": (lambda: d.rr_two_sample_test(yes_count1=330, n1=500, yes_count2=280, n2=500,
                                                        epsilon=1.0), RD, 1e-12, None),
    "simon_test": (_simon, "probability of response p", 1e-6, None),
    "sequential_test": (_sequential, RD, 1e-6, None),
    "logrank_test": (lambda: d.logrank_test(_life_table(), n_sim=2000, rng=7),
                     "hazard ratio treated / control (log scale)", 1e-12, None),
    "map_results": (lambda: d.map_results(d.binom_ump_test, [3.04, 11.2], 30, p0=0.2, epsilon=1.0), P, None,
                    None),
}

#: tests without a confidence interval: ``plot()`` raises a TypeError saying so
NO_INTERVAL = {
    "binom_homogeneity_test": lambda: d.binom_homogeneity_test(_sites()),
    "independence_jimi_test": lambda: d.independence_jimi_test(
        d.ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3), n_sim=200, rng=1),
    "independence_mc_test": lambda: d.independence_mc_test(
        d.ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3), n_sim=200, rng=1),
    "krr_gof_test": lambda: d.krr_gof_test(counts=[500, 300, 200], p0=[1 / 3, 1 / 3, 1 / 3], epsilon=2.0),
    "unary_gof_test": lambda: d.unary_gof_test(bit_counts=[600, 400, 300], n=1000, p0=[1 / 3, 1 / 3, 1 / 3],
                                               epsilon=2.0),
}

#: an interval but no curve: (function, builder, the reason the TypeError gives), one line each
REFUSALS = {}


def _returns_a_test_result(func):
    """Whether the numpydoc Returns section of ``func`` names an HTestResult (or a subclass, or a collection)."""
    doc = inspect.getdoc(func) or ""
    match = re.search(r"^Returns\n-+\n(.+)$", doc, re.M)
    return bool(match) and re.match(r"(HTestResults?|\w+Result)\b", match.group(1).strip()) is not None and \
        match.group(1).split()[0] not in ("LogisticJimiResult", "PowerResult", "SampleSizeResult",
                                          "SampleSizesResult", "KaplanMeierResult", "AuditResult",
                                          "ManyToOneResult")


def test_every_public_test_is_in_a_table():
    tests = {name for name in d.__all__ if inspect.isfunction(getattr(d, name))
             and _returns_a_test_result(getattr(d, name))}
    refused = {entry[0] for entry in REFUSALS.values()}
    assert len(tests) >= 28  # the enumeration found the package's tests (not an empty set by a broken regex)
    assert tests == set(PLOTS) | set(NO_INTERVAL) | refused
    assert not set(PLOTS) & set(NO_INTERVAL)
    assert len(REFUSALS) <= 2  # the refusals stay few and explicit


def _crossing(ax, res, tol):
    """The drawn curve meets ``1 - level`` at each finite printed end inside the grid (a grid point)."""
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    x, p = np.asarray(curve.get_xdata(), float), np.asarray(curve.get_ydata(), float)
    alpha = 1.0 - res.conf_int.level
    ends = [e for e in (res.conf_int.low, res.conf_int.high) if np.isfinite(e) and x[0] < e < x[-1]]
    assert ends, "the grid reaches at least one end"
    for end in ends:
        (at,) = p[x == end]
        assert at == pytest.approx(alpha, abs=tol)
        i = int(np.flatnonzero(x == end)[0])
        outside = i - 1 if end == res.conf_int.low else i + 1
        assert p[outside] <= alpha + tol  # just beyond the end the test rejects


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_every_result_with_an_interval_draws(name):
    build, xlabel, tol, extra = PLOTS[name]
    res = build()
    ax = res.plot(**(extra(res) if extra else {}))
    assert ax.get_xlabel() == xlabel and ax.get_title()
    if name == "map_results":  # a forest plot of the results' intervals
        for i, r in enumerate(res):
            (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == f"interval {i}"]
            assert list(line.get_xdata()) == [r.conf_int.low, r.conf_int.high]
        return
    assert ax.get_ylabel() == "p-value"
    _crossing(ax, res, tol)


@pytest.mark.parametrize("name", sorted(NO_INTERVAL))
def test_a_test_without_an_interval_says_so(name):
    res = NO_INTERVAL[name]()
    assert res.conf_int is None
    with pytest.raises(TypeError, match=r"carries no p-value function \(it has no confidence interval\)"):
        res.plot()


def test_no_result_with_an_interval_refuses_to_plot():
    # every function returning a result with an interval is in PLOTS: none is left refusing
    assert REFUSALS == {}


# ---------------------------------------------------------------- forest plots
def test_map_results_forest_plot_matches_each_test_run_alone():
    values = [3.04, 11.2, 19.7]
    res = d.map_results(d.binom_ump_test, values, 30, p0=0.2, epsilon=1.0)
    ax = res.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"Z = {v:g}, n = 30" for v in values]
    assert ax.get_yticks().tolist() == [2, 1, 0]  # the first result on top, as the table reads
    for i, v in enumerate(values):
        ci = d.binom_ump_test(v, 30, p0=0.2, epsilon=1.0).conf_int  # each run alone
        (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == f"interval {i}"]
        np.testing.assert_allclose(line.get_xdata(), [ci.low, ci.high], rtol=0, atol=0)
    (null,) = [ln for ln in ax.get_lines() if ln.get_gid() == "margin"]
    assert null.get_xdata()[0] == 0.2 and null.get_label() == "null value 0.2"
    assert ax.get_legend().get_texts()[0].get_text() == "95% interval"
    # one-sided intervals of means: the unbounded end is drawn beyond the finite values, with an arrow head
    one_sided = d.results.HTestResults([d.mean_naive_test(_mean_release(s, seed=4 + int(s)), mu0=125.0,
                                                          alternative="greater") for s in (0.0, 5.0)])
    ax = one_sided.plot()
    assert ax.get_xlabel() == "mean mu" and [r.conf_int.high for r in one_sided] == [math.inf, math.inf]
    heads = [ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_gid() == "unbounded"]
    for i, r in enumerate(one_sided):
        low, high = _line(ax, f"interval {i}")[0]
        assert low == r.conf_int.low and high == heads[i] > max(r.estimate for r in one_sided)
    from dpinfer.plot import forest_plot

    with pytest.raises(ValueError, match="an empty HTestResults has no interval"):
        forest_plot(res[:0])
    with pytest.raises(TypeError, match="`odds_ratio` applies to a logistic fit"):
        forest_plot(res, odds_ratio=True)
    with pytest.raises(TypeError, match="`result` must be a ManyToOneResult, a LogisticJimiResult or an HTestResults"):
        forest_plot(3.0)


def test_a_logistic_fit_draws_its_coefficients_and_odds_ratios():
    fit = d.logistic_jimi([[41.2, 9.7], [18.3, 30.9]], epsilon=1.0, n_sim=2000, rng=3)
    ax = fit.plot()
    assert ax.get_xlabel() == "coefficient (log odds ratio)" and ax.get_xscale() == "linear"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["(Intercept)", "x2"]
    draws = d.logistic_jimi([[41.2, 9.7], [18.3, 30.9]], epsilon=1.0, n_sim=2000, rng=3, draws=True).draws
    def ends(column):
        # the printed interval is the equal-tailed order statistics of the draws: the k-th smallest and
        # the k-th largest, k = ceil(0.025 H) = 50 of H = 2000, computed here from the draws
        s = np.sort(column)
        return np.array([s[49], s[2000 - 50]])

    for i in range(2):
        want = ends(draws[:, i])
        (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == f"interval {i}"]
        np.testing.assert_allclose(line.get_xdata(), want, rtol=1e-12)
    ax = fit.plot(odds_ratio=True)
    assert ax.get_xlabel() == "odds ratio exp(coefficient) (log scale)" and ax.get_xscale() == "log"
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "interval 1"]
    np.testing.assert_allclose(line.get_xdata(), np.exp(ends(draws[:, 1])), rtol=1e-12)
    (one,) = [ln for ln in ax.get_lines() if ln.get_gid() == "margin"]
    assert one.get_xdata()[0] == 1.0
    with pytest.raises(TypeError, match="`odds_ratio` must be True or False"):
        fit.plot(odds_ratio="yes")


# ---------------------------------------------------------------- planning results
def _line(ax, gid):
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == gid]
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def _randomized_ump_power(theta1, n, p0, alpha):
    """The exact UMP randomized binomial test of p0 against theta1 > p0, from scipy's binomial law."""
    k = int(binom.isf(alpha, n, p0))  # P(X > k) <= alpha < P(X > k - 1)
    while binom.sf(k, n, p0) > alpha:
        k += 1
    while k > 0 and binom.sf(k - 1, n, p0) <= alpha:
        k -= 1
    gamma = (alpha - binom.sf(k, n, p0)) / binom.pmf(k, n, p0)
    return binom.sf(k, n, theta1) + gamma * binom.pmf(k, n, theta1)


def test_a_one_sample_sample_size_draws_power_against_n():
    res = d.binom_ump_sample_size(0.4, 0.2, epsilon=1.0, alternative="greater")
    ax = res.plot()
    assert ax.get_xlabel() == "number of patients n" and ax.get_ylabel() == "power"
    assert ax.get_title().startswith("Exact power against n of the private one-sample test of a proportion")
    x, private = _line(ax, "power")
    xs, nonprivate = _line(ax, "nonprivate")
    n = int(res)
    assert {n - 1, n, res.nonprivate_n} <= set(x.astype(int))
    # the sample size's definition: the power reaches the target at n, not at n - 1
    assert private[x == n][0] >= 0.8 > private[x == n - 1][0]
    assert private[x == n][0] == pytest.approx(res.exact_power, abs=1e-12)
    # without noise: the randomized UMP binomial test, computed from the binomial law
    want = [_randomized_ump_power(0.4, int(k), 0.2, 0.05) for k in xs]
    np.testing.assert_allclose(nonprivate, want, rtol=0, atol=1e-9)
    assert np.all(private <= nonprivate + 1e-12)  # the noise costs power at every n
    (target,) = [ln for ln in ax.get_lines() if ln.get_gid() == "target power"]
    assert target.get_ydata()[0] == 0.8
    cx, cy = _line(ax, "comparator")
    assert (cx[0], cy[0]) == (res.nonprivate_n, pytest.approx(_randomized_ump_power(0.4, res.nonprivate_n, 0.2,
                                                                                       0.05), abs=1e-9))
    # the curve pickles with the result
    back = pickle.loads(pickle.dumps(res))
    np.testing.assert_array_equal(_line(back.plot(values=x), "power")[1], private)


def test_a_two_arm_plan_draws_the_power_of_its_allocation():
    res = d.binom2_ump_sample_size(0.7, 0.3, epsilon=1.0, ratio=1.5, statistic="difference")
    ax = res.plot(values=[10, 20, res[0]])
    assert ax.get_xlabel() == "patients in arm 1 (n1; n2 = ceil(1.5 n1))"
    x, y = _line(ax, "power")
    # the public power function at (n1, ceil(1.5 n1)), arm by arm
    want = [d.binom2_ump_power(0.7, 0.3, int(k), math.ceil(1.5 * k), epsilon=1.0, statistic="difference")
            for k in x]
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-12)
    assert y[x == res[0]][0] == pytest.approx(res.exact_power, abs=1e-12)
    power = d.binom2_ump_power(0.7, 0.3, 20, 30, epsilon=1.0, statistic="difference")
    ax = power.plot(values=[10, 20])
    assert ax.get_xlabel() == "patients in arm 1 (n1; n2 = ceil(30 n1 / 20))"
    assert _line(ax, "planned power")[1][0] == float(power)
    assert _line(ax, "comparator")[1][0] == pytest.approx(power.nonprivate_power, abs=1e-12)


def test_a_means_plan_draws_power_against_n_and_a_simulated_one_refuses():
    kw = dict(mu0=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0)
    res = d.mean_sample_size(128.0, **kw)
    ax = res.plot()
    (target,) = [ln for ln in ax.get_lines() if ln.get_gid() == "target power"]
    assert target.get_ydata()[0] == 0.8  # the power asked for, not the power reached
    assert res.to_dict()["target_power"] == 0.8
    x, nonprivate = _line(ax, "nonprivate")
    # without noise, the bounds 3.2 sd and 3.5 sd away clip almost nothing (the clipped mean moves by
    # 1e-4 sd): the textbook z test, from the normal law, to 1e-3 in power
    std = NormalDist()
    shift = (128.0 - 120.0) / (15.0 / np.sqrt(x))
    z = std.inv_cdf(0.975)
    want = [std.cdf(s - z) + std.cdf(-z - s) for s in shift]
    np.testing.assert_allclose(nonprivate, want, rtol=0, atol=1e-3)
    xp, private = _line(ax, "power")
    assert private[xp == int(res)][0] >= 0.8 > private[xp == int(res) - 1][0]
    # DP-JIMI's exact one-group plan: its curve is the planner's own power (the search's definition of n)
    jimi = d.mean_sample_size(128.0, **kw, method="jimi")
    xj, yj = _line(jimi.plot(values=[int(jimi) - 1, int(jimi)]), "power")
    assert yj[1] == pytest.approx(jimi.exact_power, abs=1e-12) and yj[1] >= 0.8 > yj[0]
    simulated = d.mean_power(128.0, 60, **kw, n_sim=200, rng=1)
    with pytest.raises(TypeError, match="has a simulated power: each point of a curve over n"):
        simulated.plot()
    with pytest.raises(ValueError, match="`values` must be whole sample sizes of at least 2"):
        res.plot(values=[1.5, 10])
    from dpinfer.plot import planning_curve

    with pytest.raises(TypeError, match="`result` must be a PowerResult, SampleSizeResult or SampleSizesResult"):
        planning_curve(0.8)
