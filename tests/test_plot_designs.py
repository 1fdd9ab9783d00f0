"""The designs draw their own figures (issue 42, item 1).

* :func:`~dpinfer.simon_test` and :func:`~dpinfer.sequential_test` carry the p-value
  function their interval inverts, so ``result.plot()`` draws it: the axis names the
  quantity, the curve at the null is the printed p-value, and it crosses ``1 - level`` at
  the printed ends (within the root finder's tolerance) with the grid's neighbours on
  either side.  Expected values: the mpmath tails of ``tests/reference/make_simon_oc.py``
  (no dpinfer import) and the tests themselves at other margins.
* ``design.plot()`` draws the exact operating characteristics; the plotted rejection
  probabilities at the null and at the planned value are checked against the mpmath
  summation of ``tests/reference/make_simon_oc.py`` (Simon) and against a direct
  enumeration of the group-sequential walk written here (numpy and scipy only).
"""

import functools
import json
import math
import pathlib
import pickle

import numpy as np
import pytest
from scipy.stats import binom

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dpinfer as d  # noqa: E402
from dpinfer.inference.designs import _stagewise, _two_arm_analysis, _walk_law  # noqa: E402
from dpinfer.plot import oc_curves  # noqa: E402

REF = json.loads((pathlib.Path(__file__).parent / "reference" / "simon_oc_values.json").read_text())


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------- the designs of the docs chapter
@functools.lru_cache(maxsize=None)
def _simon():
    """docs/designs.rst's design: r1/n1 = 2/17, r/n = 8/41 at epsilon = 1 (the reference's design 0)."""
    design = d.simon_design(0.1, 0.3, alpha=0.05, power=0.8, epsilon=1.0, max_n=60)
    assert (design.n1, design.n2, design.r1, design.r) == tuple(REF["designs"][0][:4]) == (17, 24, 2, 8)
    return design


@functools.lru_cache(maxsize=None)
def _simon_result(alternative, values=None):
    design = _simon()
    if values is None:  # the chapter's run: 5 then 9 responders, seeded
        run = design.staged_release(budget=d.PrivacyBudget(1.0))
        run.release(1, 5, rng=2026)
        run.release(2, 9, rng=2027)
        values = run
    return d.simon_test(design, values, alternative=alternative)


@functools.lru_cache(maxsize=None)
def _sequential(theta1=0.5, theta2=0.3, looks=3):
    return d.sequential_design(theta1, theta2, looks=looks, alpha=0.025, power=0.8, epsilon=1.0)


@functools.lru_cache(maxsize=None)
def _sequential_result():
    """docs/designs.rst's run: stops for efficacy at look 3."""
    design = _sequential()
    run = design.staged_release(budget=d.PrivacyBudget(1.0))
    for look, counts, seed in ((1, [22, 13], 21), (2, [23, 15], 22), (3, [20, 12], 23)):
        run.release(look, counts, rng=seed)
    return d.sequential_test(design, run)


def _crossing(ax, res, tol):
    """The drawn curve meets ``1 - level`` at every finite printed end (a grid point), below it
    at the neighbour outside and above it at the neighbour inside."""
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    x, p = np.asarray(curve.get_xdata(), float), np.asarray(curve.get_ydata(), float)
    alpha = 1.0 - res.conf_int.level
    ends = [e for e in (res.conf_int.low, res.conf_int.high) if x[0] < e < x[-1]]
    assert ends
    for end in ends:
        (i,) = np.flatnonzero(x == end)
        assert abs(p[i] - alpha) <= tol
        outside, inside = (i - 1, i + 1) if end == res.conf_int.low else (i + 1, i - 1)
        assert p[outside] < alpha < p[inside]
        assert abs(x[outside] - x[inside]) < 0.05 * (x[-1] - x[0])
    return ends


# ---------------------------------------------------------------- simon_test: its curve
#: brentq's tolerance in p (``_stagewise._XTOL`` = 1e-12, plus 4 ulps relative) times the slope of a
#: tail: ``d/dp P_p(outcome >= obs)`` is at most n = 41 (the event is increasing in the responders,
#: so the derivative is the expected number of pivotal patients), twice that two-sided
SIMON_TOL = 2 * 41 * 2e-12


@pytest.mark.parametrize("alternative", ["greater", "two-sided", "less"])
def test_simon_result_draws_the_curve_its_interval_inverts(alternative):
    res = _simon_result(alternative)
    ax = res.plot()
    assert ax.get_xlabel() == "probability of response p" and ax.get_ylabel() == "p-value"
    assert ax.get_title().startswith("Exact test after Simon's optimal two-stage design")
    assert "epsilon = 1" in ax.get_title()
    # the curve is the printed test: at p0 it is the printed p-value, exactly
    assert res.pvalue_function(res.null_value) == res.pvalue
    assert _stagewise._XTOL == 1e-12
    ends = _crossing(ax, res, SIMON_TOL)
    assert len(ends) == {"greater": 1, "less": 1, "two-sided": 2}[alternative]


@pytest.mark.parametrize("case", [t for t in REF["tails"] if t["design"] == 0],
                         ids=lambda t: f"stage {t['stage']} z1={t['z1']} theta={t['theta']}")
def test_simon_curve_against_the_mpmath_tails(case):
    # the one-sided curves at other p are the tails of tests/reference/make_simon_oc.py (mpmath,
    # direct summation and numerical integration of the noise), to its 1e-10
    values = (case["z1"],) if case["z2"] is None else (case["z1"], case["z2"])
    greater = _simon_result("greater", values).pvalue_function(case["theta"])
    less = _simon_result("less", values).pvalue_function(case["theta"])
    assert greater == pytest.approx(case["upper"], abs=1e-10)
    assert less == pytest.approx(case["lower"], abs=1e-10)
    two = _simon_result("two-sided", values).pvalue_function(case["theta"])
    assert two == pytest.approx(min(1.0, 2.0 * min(case["upper"], case["lower"])), abs=2e-10)


def test_a_simon_trial_stopped_after_stage_1_draws_its_curve():
    res = _simon_result("two-sided", (1.2345678,))
    ax = res.plot()
    assert res.pvalue_function(res.null_value) == res.pvalue
    # z1 = 1.23 with n1 = 17: even at p = 0 the noise alone reaches it with probability above 0.025
    assert res.conf_int.low == 0.0 and _crossing(ax, res, SIMON_TOL) == [res.conf_int.high]


# ---------------------------------------------------------------- sequential_test: its curve
#: brentq's tolerance in the difference (``_two_arm_analysis.XTOL`` = 1e-8) times a bound of the
#: two-sided curve's slope: each located tail moves by at most n1 + n2 = 244 per unit of the margin
#: (the rates of both arms move with it at each located common rate), twice that for 2 min(...)
SEQ_TOL = 2 * 244 * 1e-8


def test_sequential_result_draws_the_two_sided_curve_its_interval_inverts():
    res = _sequential_result()
    ax = res.plot()
    assert ax.get_xlabel() == "risk difference p1 - p2" and ax.get_ylabel() == "p-value"
    title = ax.get_title().splitlines()
    assert title[0].startswith("Exact group-sequential test") and "3 looks" in ax.get_title()
    assert title[-1] == "two-sided p-value function of the interval"
    (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
    assert curve.get_label() == "two-sided p-value function of the interval"
    assert _two_arm_analysis.XTOL == 1e-8
    assert len(_crossing(ax, res, SEQ_TOL)) == 2


def test_sequential_curve_at_the_null_is_the_printed_pvalue_within_the_certificate():
    res = _sequential_result()
    greater, less = res.pvalue_function.sides(res.null_value)
    # the printed p-value is the certified supremum (sup_common: at most the largest value met
    # times 1 + RTOL, plus FFT_SLACK); the curve is the located one (the interval's), never above it
    assert _walk_law.RTOL == 1e-9 and _walk_law.FFT_SLACK == 1e-13
    assert greater <= res.pvalue <= greater * (1.0 + _walk_law.RTOL) + _walk_law.FFT_SLACK
    assert res.pvalue_function(res.null_value) == min(1.0, 2.0 * min(greater, less))
    # at another margin the design-direction side is that margin's test (an independent run of it)
    design = _sequential()
    run = design.staged_release(budget=d.PrivacyBudget(1.0))
    for look, counts, seed in ((1, [22, 13], 21), (2, [23, 15], 22), (3, [20, 12], 23)):
        run.release(look, counts, rng=seed)
    other = d.sequential_test(design, run, margin=0.05)
    side = res.pvalue_function.sides(0.05)[0]
    assert side <= other.pvalue <= side * (1.0 + _walk_law.RTOL) + _walk_law.FFT_SLACK


def test_a_sequential_design_for_a_smaller_rate_mirrors_its_curve():
    # theta1 < theta2: the design rejects for a small difference, its p-value is the lower tail
    design = _sequential(0.3, 0.5, looks=2)
    run = design.staged_release(budget=d.PrivacyBudget(1.0))
    run.release(1, [10, 30], rng=5)
    if run.decision == "continue":
        run.release(2, [12, 28], rng=6)
    res = d.sequential_test(design, run)
    greater, less = res.pvalue_function.sides(res.null_value)
    assert less <= res.pvalue <= less * (1.0 + _walk_law.RTOL) + _walk_law.FFT_SLACK
    alpha = 1.0 - res.conf_int.level
    n = design.n1[-1] + design.n2[-1]
    for end, step in ((res.conf_int.low, -1e-3), (res.conf_int.high, 1e-3)):
        assert abs(res.pvalue_function(end) - alpha) <= 2 * n * 1e-8
        assert res.pvalue_function(end + step) < alpha < res.pvalue_function(end - step)


@pytest.mark.parametrize("build", [lambda: _simon_result("greater"), lambda: _simon_result("two-sided", (1.2345678,)),
                                   _sequential_result], ids=["simon", "simon stage 1", "sequential"])
def test_design_results_pickle_with_a_working_curve(build):
    res = build()
    back = pickle.loads(pickle.dumps(res))
    for v in (res.null_value, res.estimate, res.conf_int.low):
        assert back.pvalue_function(v) == res.pvalue_function(v)


# ---------------------------------------------------------------- the designs' operating characteristics
def _line(ax, gid):
    lines = [ln for a in ax.figure.axes for ln in a.get_lines() if ln.get_gid() == gid]
    assert len(lines) == 1, gid
    return np.asarray(lines[0].get_xdata(), float), np.asarray(lines[0].get_ydata(), float)


def test_simon_design_plots_its_exact_operating_characteristics():
    design = _simon()
    ax = design.plot()
    assert ax.get_xlabel() == "true response probability p" and ax.get_ylabel() == "probability"
    assert ax.get_title().splitlines() == ["Simon's optimal two-stage design: r1/n1 = 2/17, r/n = 8/41",
                                           "private stages, epsilon = 1 for the whole design"]
    (twin,) = [a for a in ax.figure.axes if a.get_gid() == "expected n axis"]
    assert twin.get_ylabel() == "expected sample size (patients)"
    x, reject = _line(ax, "reject")
    _, pet = _line(ax, "early stop")
    _, en = _line(ax, "expected n")
    # the mpmath summation of tests/reference/make_simon_oc.py (design 0 at theta 0.1 = p0, 0.3 = p1)
    for case in (c for c in REF["oc"] if c["design"] == 0 and c["theta"] in (0.1, 0.3)):
        (i,) = np.flatnonzero(x == case["theta"])
        assert reject[i] == pytest.approx(case["reject"], abs=1e-10)
        assert pet[i] == pytest.approx(case["pet"], abs=1e-10)
        assert en[i] == pytest.approx(17 + (1.0 - case["pet"]) * 24, abs=1e-8)
    assert _line(ax, "size") == ([0.1], [pytest.approx(REF["oc"][0]["reject"], abs=1e-10)])
    assert _line(ax, "power")[1][0] == pytest.approx(REF["oc"][1]["reject"], abs=1e-10)
    assert [_line(ax, g)[0][0] for g in ("null", "planned")] == [0.1, 0.3]
    assert [_line(ax, g)[1][0] for g in ("alpha", "target power")] == [0.05, 0.8]
    assert np.all(np.diff(reject) >= -1e-15) and np.all(np.diff(pet) <= 1e-15)  # monotone in p
    assert ax.figure.get_figwidth() == 6.4 and ax.xaxis.label.get_size() >= 11


def _walk_reject(design, theta1, theta2):
    """P(stop for efficacy) of a ratio-1 design by direct enumeration (np.convolve, no FFT): each
    stage's round(Z) = X + D with D the integer part of the Tulap noise, P(D = d) = (1 - b)/(1 + b)
    b^|d| (b = e^-epsilon; Awan & Slavkovic 2018), cut at |d| <= 60 (mass beyond below 1e-25)."""
    b = math.exp(-design.epsilon)
    dd = np.arange(-60, 61)
    noise = (1 - b) / (1 + b) * b ** np.abs(dd)
    sizes = np.diff(np.concatenate([[0], design.n1]))
    assert design.ratio == 1 and design.alternative == "greater" and all(f is None for f in design.futility_bounds)
    density, offset, total = np.ones(1), 0, 0.0
    for s, c in zip(sizes, design.efficacy):
        k1 = np.convolve(binom.pmf(np.arange(s + 1), s, theta1), noise)  # K1 from -60
        k2 = np.convolve(binom.pmf(np.arange(s + 1), s, theta2), noise)
        inc = np.convolve(k1, k2[::-1])  # K1 - K2 from -60 - (s + 60)
        density, offset = np.convolve(density, inc), offset - 60 - (s + 60)
        j = max(0, min(c - offset, density.size))  # W >= c from index j
        total += density[j:].sum()
        density = density[:j]
    return total


@pytest.mark.parametrize("theta2", [None, 0.4])
def test_sequential_design_plots_its_exact_operating_characteristics(theta2):
    design = _sequential()
    ax = design.plot(theta2=theta2)
    control = 0.3 if theta2 is None else theta2
    assert ax.get_xlabel() == f"true difference theta1 - theta2 (control rate theta2 = {control:g})"
    assert ax.get_ylabel() == "probability"
    assert ax.get_title().splitlines()[0] == "3-look group-sequential design (O'Brien-Fleming spending): n = 122 + 122"
    (twin,) = [a for a in ax.figure.axes if a.get_gid() == "expected n axis"]
    assert twin.get_ylabel() == "expected total n (patients, both arms)"
    x, reject = _line(ax, "reject")
    for diff in (0.0, 0.2):
        (i,) = np.flatnonzero(x == diff)
        assert reject[i] == pytest.approx(_walk_reject(design, control + diff, control), abs=1e-12)
    size = _line(ax, "size")[1][0]
    assert size <= design.alpha and size == reject[x == 0.0][0]
    if theta2 is None:
        # at the planned rates the plotted power is the printed exact power (and the enumeration's)
        assert _line(ax, "power")[1][0] == pytest.approx(design.exact_power, abs=1e-12)
        _, en = _line(ax, "expected n")
        assert en[x == 0.0][0] == pytest.approx(design.expected_n0, abs=1e-9)
    assert np.all(np.diff(reject) >= -1e-12)


def test_operating_characteristics_refuse_what_they_cannot_draw():
    with pytest.raises(TypeError, match="`design` must be a SimonDesign or a SequentialDesign"):
        oc_curves(_simon_result("greater"))
    with pytest.raises(TypeError, match="`theta2` is the control rate of a two-arm design"):
        oc_curves(_simon(), theta2=0.3)
    with pytest.raises(ValueError, match="`values`"):
        _simon().plot([0.2, 1.5])
    with pytest.raises(ValueError, match=r"`values` must be differences theta1 - theta2 with theta2 \+ x in \[0, 1\]"):
        _sequential().plot([0.1, 0.8])
    with pytest.raises(ValueError, match="`theta2`"):
        _sequential().plot(theta2=1.5)
    with pytest.raises(TypeError, match="`title`"):
        _simon().plot(title=3)


def test_own_axes_and_title_are_kept():
    fig, ax = plt.subplots()
    assert _simon().plot([0.1, 0.2, 0.3], ax=ax, title="trial 7") is ax
    assert ax.get_title() == "trial 7"
    assert list(_line(ax, "reject")[0]) == [0.1, 0.2, 0.3]


def test_the_non_private_simon_design_plots_simons_characteristics():
    design = d.simon_design(0.1, 0.3, epsilon=None)
    ax = design.plot()
    assert ax.get_title().splitlines() == ["Simon's optimal two-stage design: r1/n1 = 1/10, r/n = 5/29", "no privacy"]
    x, reject = _line(ax, "reject")
    for p in (0.1, 0.3):
        # Simon's (1989) rule on the true counts, by direct summation of the binomials
        k1 = np.arange(2, 11)
        want = float(np.sum(binom.pmf(k1, 10, p) * binom.sf(5 - k1, 19, p)))
        assert reject[x == p][0] == pytest.approx(want, abs=1e-14)
