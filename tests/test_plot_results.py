"""Every result with an interval draws its confidence curve (issue 42, item 1).

For each result type: ``result.plot()`` names the effect on the x axis (never "null value
p0"), uses a log axis for ratios, and the drawn curve crosses ``1 - level`` at the
interval's ends within the grid's tolerance (the p-value at the ends, drawn as grid points,
is the level's complement up to the Monte Carlo granularity ``1 / n_sim`` of a simulated
test; points just outside are below it).  The expected values are the test's own p-value
at its null value (the curve must give the same number) and the definition of the
interval as the set the test accepts.  Results without a p-value function raise a
TypeError that names those that plot.
"""

import functools
import math
import pickle
from statistics import NormalDist

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dpinfer as d  # noqa: E402
from dpinfer.plot import power_curve  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


_T = d.TulapReleaser(1.0)
_L = d.LaplaceReleaser(1.0)


def _means():
    x = np.random.default_rng(3).normal(130.0, 15.0, size=200)
    m = d.MeanReleaser(1.0, lower=80.0, upper=180.0, spread=True)
    return m.release(x, rng=4), m.release(x + 5.0, rng=5)


# (name, builder, expected x label, log axis?, tolerance of the crossing in p)
CASES = [
    ("binom_ump_test", lambda: d.binom_ump_test(_T.release(41, 60, rng=1), p0=0.5), "proportion p", False, 1e-6),
    ("binom_normal_test", lambda: d.binom_normal_test(_L.proportion(41, 60, rng=1), p0=0.5), "proportion p",
     False, 1e-6),
    ("binom_jimi_test", lambda: d.binom_jimi_test(_L.proportion(41, 60, rng=1), p0=0.5, rng=1), "proportion p",
     False, 1e-3),
    ("binom2_ump_test difference", lambda: d.binom2_ump_test(_T.release(41, 60, rng=1), _T.release(27, 60, rng=2)),
     "risk difference p1 - p2", False, 1e-6),
    # the difference ordering: the score's p-value (the default) is not monotone in a ratio margin (its
    # ordering moves with the margin), so next to an end its curve can dip below alpha inside the interval
    ("binom2_ump_test ratio", lambda: d.binom2_ump_test(_T.release(41, 60, rng=1), _T.release(27, 60, rng=2),
                                                         effect="ratio", statistic="difference"),
     "risk ratio p1 / p2 (log scale)", True, 1e-6),
    ("binom2_ump_test odds ratio", lambda: d.binom2_ump_test(_T.release(41, 60, rng=1), _T.release(27, 60, rng=2),
                                                              effect="odds-ratio", alternative="greater"),
     "odds ratio p1 (1 - p2) / (p2 (1 - p1)) (log scale)", True, 1e-6),
    ("binom2_jimi_test", lambda: d.binom2_jimi_test(_L.proportion(41, 60, rng=1), _L.proportion(27, 60, rng=2),
                                                    rng=1),
     "risk difference p1 - p2", False, 2e-3),
    ("rr_proportion_test", lambda: d.rr_proportion_test(
        d.RandomizedResponseReleaser(1.0).release(np.random.default_rng(8).binomial(1, 0.7, 500), rng=9), p0=0.5),
     "proportion p", False, 1e-6),
    ("mean_naive_test", lambda: d.mean_naive_test(_means()[0], mu0=125.0), "mean mu", False, 1e-6),
    ("mean_jimi_test", lambda: d.mean_jimi_test(_means()[0], mu0=125.0, rng=1), "mean mu", False, 2e-3),
    ("mean_repro_test sigma", lambda: d.mean_repro_test(_means()[0], mu0=125.0, sigma=15.0, rng=1), "mean mu",
     False, 2e-3),
    ("mean2_naive_test", lambda: d.mean2_naive_test(*_means()), "difference in means mu1 - mu2", False, 1e-6),
    ("mean2_jimi_test", lambda: d.mean2_jimi_test(*_means(), rng=1), "difference in means mu1 - mu2", False, 2e-3),
    ("mean2_repro_test", lambda: d.mean2_repro_test(*_means(), sigma=15.0, rng=1),
     "difference in means mu1 - mu2", False, 2e-3),
    # the strata results: their interval is rejected_end on the one-sided p-values, bisected to a
    # bracket of 1e-12, so the curve meets alpha at the printed ends within slope * 1e-12
    ("binom_pooled_test", lambda: d.binom_pooled_test(_sites(), p0=0.25), "proportion p", False, 1e-6),
    ("binom_pooled_test greater", lambda: d.binom_pooled_test(_sites(), p0=0.25, alternative="greater"),
     "proportion p", False, 1e-6),
    ("binom_strata_test", lambda: d.binom_strata_test(_strata()), "common risk difference p1 - p2", False, 1e-6),
    ("binom2_pooled_test", lambda: d.binom2_pooled_test(*zip(*_strata()[1:])), "common risk difference p1 - p2",
     False, 1e-6),
]


def _sites():
    return [d.TulapReleaser(e).release(x, n, rng=s) for s, (e, x, n) in enumerate([(0.5, 31, 80), (1.0, 45, 120),
                                                                                      (2.0, 20, 60)])]


def _strata():
    counts = [(30, 18, 60), (25, 15, 50), (40, 28, 80)]
    return [(d.TulapReleaser(e).release(x1, n, rng=10 * s), d.TulapReleaser(e).release(x2, n, rng=10 * s + 1))
            for s, ((x1, x2, n), e) in enumerate(zip(counts, [0.5, 1.0, 2.0]))]


# its set is certified on boxes (an end may lie up to h / 2**steps outside {p > alpha}): pickled only
OTHERS = [("mean2_repro_test difference", lambda: d.mean2_repro_test(*_means(), sigma=15.0, rng=1, n_sim=99,
                                                                     statistic="difference"))]


@functools.lru_cache(maxsize=None)
def _built(name):
    """Each case's result, built once for all the tests of this file (results are frozen)."""
    return {c[0]: c[1] for c in CASES + WALD + OTHERS}[name]()


@pytest.mark.parametrize("name, build, xlabel, log, tol", CASES, ids=[c[0] for c in CASES])
def test_every_result_with_an_interval_draws_its_confidence_curve(name, build, xlabel, log, tol):
    res = _built(name)
    ax = res.plot()
    assert ax.get_xlabel() == xlabel and "p0" not in ax.get_xlabel()
    assert ax.get_ylabel() == "p-value" and ax.get_xscale() == ("log" if log else "linear")
    assert "epsilon = " in ax.get_title()
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    x, p = np.asarray(curve.get_xdata(), float), np.asarray(curve.get_ydata(), float)
    alpha = 1.0 - res.conf_int.level
    # the curve is the test: at the result's null value it gives the reported p-value
    assert res.pvalue_function(res.null_value) == pytest.approx(res.pvalue, abs=1e-12)
    finite = [e for e in (res.conf_int.low, res.conf_int.high) if np.isfinite(e) and x[0] < e < x[-1]]
    assert finite, "the grid must reach the interval's ends"
    for end in finite:
        # each finite end is a grid point where the curve meets alpha ...
        (at,) = p[x == end]
        assert at == pytest.approx(alpha, abs=tol)
        # ... and the curve crosses alpha between the grid points around it
        i = int(np.flatnonzero(x == end)[0])
        outside = i - 1 if end == res.conf_int.low else i + 1
        inside = i + 1 if end == res.conf_int.low else i - 1
        assert p[outside] <= alpha + tol and p[inside] >= alpha - tol
        assert abs(x[outside] - x[inside]) < 0.05 * (x[-1] - x[0])  # dense near the ends
    (span,) = [patch for patch in ax.patches if patch.get_gid() == "interval"]
    assert span.get_x() == pytest.approx(finite[0]) or not np.isfinite(res.conf_int.low)


def test_two_arm_curve_matches_the_test_at_other_margins():
    a1, a2 = _T.release(41, 60, rng=1), _T.release(27, 60, rng=2)
    res = d.binom2_ump_test(a1, a2, effect="ratio")
    # an independent route: the test itself, run again at each margin
    for margin in (0.8, 1.5, 2.4):
        assert res.pvalue_function(margin) == pytest.approx(
            d.binom2_ump_test(a1, a2, effect="ratio", margin=margin).pvalue, abs=1e-14)
    assert np.isnan(res.pvalue_function(1e7))  # no test beyond the ratio's range


def test_report_defaults_can_be_overridden_with_matplotlib_arguments(tmp_path):
    res = d.binom2_ump_test(_T.release(41, 60, rng=1), _T.release(27, 60, rng=2))
    ax = res.plot(title="my trial", xlabel="difference", line_kw={"color": "k", "linewidth": 3.0})
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    assert ax.get_title() == "my trial" and ax.get_xlabel() == "difference"
    assert curve.get_color() == "k" and curve.get_linewidth() == 3.0
    assert ax.xaxis.label.get_size() >= 11 and ax.get_legend().get_texts()[0].get_fontsize() >= 9
    fig = ax.figure
    fig.savefig(tmp_path / "a.png")
    fig.savefig(tmp_path / "b.png", dpi=50)
    width = fig.get_figwidth()
    assert plt.imread(tmp_path / "a.png").shape[1] == round(300 * width)
    assert plt.imread(tmp_path / "b.png").shape[1] == round(50 * width)
    fig2, ax2 = plt.subplots()
    assert res.plot(ax=ax2) is ax2 and ax2.get_title().startswith("Exact unconditional")


def test_results_without_a_curve_say_which_plot():
    import dataclasses

    res = dataclasses.replace(_built("binom2_normal_test"), conf_int=None, pvalue_function=None)
    with pytest.raises(TypeError, match=r"carries no p-value function \(it has no confidence interval\).*"
                                        r"Results that plot: .*binom2_ump_test"):
        res.plot()
    with pytest.raises(TypeError, match="`line_kw` must be a dict"):
        d.binom_ump_test(11.2, 30, 0.2, epsilon=1.0).plot(line_kw="red")


def test_power_curve_over_n_per_arm_and_over_a_mapping():
    kw = dict(theta1=0.6, theta2=0.3, epsilon=1.0)
    ax = power_curve(d.binom2_ump_power, [20, 40], over="n", **kw)
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() != "alpha"]
    # expected: the power function called with both arms at n (its own definition of n per arm)
    want = [d.binom2_ump_power(0.6, 0.3, n, n, epsilon=1.0) for n in (20, 40)]
    np.testing.assert_allclose(line.get_ydata(), want, rtol=0, atol=0)
    assert ax.get_xlabel() == "patients per arm (n1 = n2 = n)"
    assert line.get_label() == "exact DP test, difference ordering, two-sided"
    assert ax.get_title() == "power at epsilon = 1, theta1 = 0.6, theta2 = 0.3, alpha = 0.05"
    ax = power_curve(d.binom2_ump_power, [20, 30], over=lambda n: {"n1": n, "n2": 2 * n},
                     xlabel="patients in arm 1 (arm 2 twice as many)", statistic="score", **kw)
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() != "alpha"]
    assert line.get_ydata()[1] == d.binom2_ump_power(0.6, 0.3, 30, 60, epsilon=1.0, statistic="score")
    assert line.get_label() == "exact DP test, score ordering, two-sided"
    assert ax.get_xlabel() == "patients in arm 1 (arm 2 twice as many)"
    with pytest.raises(TypeError, match="`n1` is the varied argument"):
        power_curve(d.binom2_ump_power, [20], over="n", n1=3, **kw)
    with pytest.raises(TypeError, match="`over` must be the name of an argument"):
        power_curve(d.binom2_ump_power, [20], over=3, **kw)


def test_a_paired_result_draws_its_curve_over_p10_minus_p01():
    rel = d.PairedTableReleaser(epsilon=1.0).release([[40, 5], [15, 40]], rng=7)
    res = d.mcnemar_test(rel)
    low, high = res.conf_int.low, res.conf_int.high
    theta = [low - 0.02, low, res.estimate, high, high + 0.02]  # McNemar's p-value takes 0.2 s
    ax = res.plot(theta=theta)
    assert ax.get_xlabel() == "difference of paired proportions p10 - p01"
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    p = np.asarray(curve.get_ydata(), float)
    # the interval inverts the test: alpha at both ends, below it outside, above it inside
    assert p[1] == pytest.approx(0.05, abs=1e-6) and p[3] == pytest.approx(0.05, abs=1e-6)
    assert p[0] < 0.05 and p[4] < 0.05 and p[2] > 0.05
    assert res.pvalue_function(res.null_value) == res.pvalue


# ---------------------------------------------------------------- Wald intervals of pooled z tests
_RR = dict(yes_count1=330, n1=500, yes_count2=280, n2=500, epsilon=1.0)


def _rr_wald():
    """The unpooled Wald interval of rr_two_sample_test by hand (Warner's channel with epsilon = 1:
    P(yes | 1) = e / (1 + e), P(yes | 0) = 1 / (1 + e))."""
    a1 = math.e / (1.0 + math.e)
    a0, b = 1.0 - a1, 2.0 * a1 - 1.0
    lam = (_RR["yes_count1"] / 500, _RR["yes_count2"] / 500)
    diff = (lam[0] - a0) / b - (lam[1] - a0) / b
    return diff, math.sqrt(sum(v * (1.0 - v) / 500 for v in lam)) / b


def _normal_wald():
    """binom2_normal_test's unpooled Wald interval by hand (its Notes): pi_hat = 0.62 of 80, 0.45 of 75."""
    se = math.sqrt(0.62 * 0.38 / 80 + 0.45 * 0.55 / 75 + 2.0 / 80 ** 2 + 2.0 / 75 ** 2)
    return 0.62 - 0.45, se


WALD = [
    ("binom2_normal_test", lambda: d.binom2_normal_test(0.62, 80, 0.45, 75, epsilon=1.0), _normal_wald, "two-sided"),
    ("binom2_normal_test greater", lambda: d.binom2_normal_test(0.62, 80, 0.45, 75, epsilon=1.0,
                                                                alternative="greater"), _normal_wald, "greater"),
    ("rr_two_sample_test", lambda: d.rr_two_sample_test(**_RR), _rr_wald, "two-sided"),
    ("rr_two_sample_test less", lambda: d.rr_two_sample_test(**_RR, alternative="less"), _rr_wald, "less"),
]


@pytest.mark.parametrize("name, build, by_hand, alternative", WALD, ids=[c[0] for c in WALD])
def test_pooled_z_tests_draw_the_confidence_curve_of_their_wald_interval(name, build, by_hand, alternative):
    res = _built(name)
    diff, se = by_hand()
    std = NormalDist()
    z = diff / se  # the unpooled Wald z at margin 0, by hand
    wald_p = {"two-sided": 2.0 * std.cdf(-abs(z)), "greater": 1.0 - std.cdf(z), "less": std.cdf(z)}[alternative]
    # at the null the curve is the Wald p-value, not the printed pooled one (the docs say by how much)
    assert res.pvalue_function(0.0) == pytest.approx(wald_p, rel=1e-9)
    assert abs(res.pvalue_function(0.0) - res.pvalue) > 1e-5
    ax = res.plot()
    assert ax.get_xlabel() == "risk difference p1 - p2"
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    assert curve.get_label() == "confidence curve of the Wald interval"
    assert ax.get_title().endswith("confidence curve of the Wald interval")
    x, p = np.asarray(curve.get_xdata(), float), np.asarray(curve.get_ydata(), float)
    alpha = 1.0 - res.conf_int.level
    # the printed ends are centre -+ z_crit se: the Wald p-value there is alpha up to the rounding of
    # z_crit and of the centre (a few ulps, times the normal density: far below 1e-12)
    ends = [e for e in (res.conf_int.low, res.conf_int.high) if -1.0 < e < 1.0]
    assert ends
    for end in ends:
        assert res.pvalue_function(end) == pytest.approx(alpha, abs=1e-12)
        (at,) = p[x == end]
        assert at == pytest.approx(alpha, abs=1e-12)
        i = int(np.flatnonzero(x == end)[0])
        outside, inside = (i - 1, i + 1) if end == res.conf_int.low else (i + 1, i - 1)
        assert p[outside] < alpha < p[inside]
    assert np.isnan(res.pvalue_function(1.5))  # no risk difference beyond [-1, 1]


def test_the_documented_gap_between_the_wald_curve_and_the_pooled_test():
    res = _built("binom2_normal_test")
    assert (round(res.pvalue_function(0.0), 4), round(res.pvalue, 4)) == (0.0409, 0.0435)
    res = _built("rr_two_sample_test")
    assert (round(res.pvalue_function(0.0), 5), round(res.pvalue, 5)) == (0.00112, 0.00119)


# ---------------------------------------------------------------- pickling, forest plot, refusals
@pytest.mark.parametrize("name", [c[0] for c in CASES + WALD + OTHERS])
def test_every_result_pickles_with_a_working_curve(name):
    res = _built(name)
    back = pickle.loads(pickle.dumps(res))
    points = [res.null_value] + [e for e in (res.conf_int.low, res.conf_int.high) if np.isfinite(e)]
    for v in points:
        a, b = res.pvalue_function(v), back.pvalue_function(v)
        assert (np.isnan(a) and np.isnan(b)) or a == b


def test_many_to_one_draws_a_forest_plot_with_the_adjusted_level():
    rel = d.TulapReleaser(1.0)
    control, arms = rel.release(12, 40, rng=1), [rel.release(14, 40, rng=2), rel.release(27, 40, rng=3)]
    res = d.binom_many_to_one_test(control, arms)
    ax = res.plot()
    assert ax.get_xlabel() == "risk difference p_arm - p_control"
    assert ax.get_title().splitlines() == ["95% simultaneous intervals (Bonferroni: each arm at 97.5%)",
                                           "p-values adjusted by dunnett; epsilon = 3"]
    for i, arm in enumerate(arms):
        # an independent route: each arm's own exact test at the Bonferroni level 1 - 0.05 / 2
        ci = d.binom2_ump_test(arm, control, confidence_level=0.975,
                               statistic="difference").conf_int  # the ordering many-to-one uses
        (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == f"interval {i}"]
        np.testing.assert_allclose(line.get_xdata(), [ci.low, ci.high], rtol=0, atol=1e-12)
    # the first arm on top, as the printed table reads
    assert {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks())} == {
        "arm 1 - control": 1, "arm 2 - control": 0}
    ax = d.binom_many_to_one_test(control, arms, adjust="none").plot()
    assert ax.get_title().startswith("95% per-comparison intervals (unadjusted")
    from dpinfer.plot import forest_plot

    with pytest.raises(TypeError, match="`result` must be a ManyToOneResult"):
        forest_plot(_built("binom2_normal_test"))


def test_a_result_whose_interval_is_not_a_curves_says_why():
    import dataclasses

    # the other reasons, on results stripped of their curve (the branch reads the method and the interval);
    # a design's result now carries its curve (tests/test_plot_designs.py), so its method names no reason
    res = _built("binom2_normal_test")
    design = dataclasses.replace(res, method="Exact test after Simon's design (stage-wise ordering)",
                                 pvalue_function=None)
    with pytest.raises(TypeError, match=r"\(its interval is not computed by inverting a p-value function\).*"
                                        r"simon_test, sequential_test"):
        design.plot()
    with pytest.raises(TypeError, match=r"\(it has no confidence interval\)"):
        dataclasses.replace(res, conf_int=None, pvalue_function=None).plot()
    with pytest.raises(TypeError, match=r"\(its interval is not computed by inverting a p-value function\)"):
        dataclasses.replace(res, pvalue_function=None).plot()
