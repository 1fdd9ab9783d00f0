"""Fuzzing every public function with random and adversarial arguments.

For every name in ``dpinfer.__all__`` (a test below fails when a new public name
has no fuzz spec), each argument of a valid call is replaced in turn by each
value of a fixed adversarial pool (a deterministic sweep, about 12 000 calls),
and hypothesis replaces one or two arguments at a time with adversarial values (NaN, inf, huge and negative numbers, tiny epsilon, wrong
types, empty arrays, None, strings, bools, ragged lists) and checks that the
call either

* raises TypeError or ValueError whose message names an argument in backticks
  (the house form "`epsilon` must be ..."), or
* returns a valid answer: no NaN p-value, p-values and powers in [0, 1],
  intervals for proportions inside [0, 1] (differences inside [-1, 1]), finite
  estimates, releases with real values;

and never raises another exception type nor emits a warning other than a
dpinfer warning (a numpy RuntimeWarning means a silent overflow or NaN).

Reproducible: ``derandomize=True`` (examples are a function of the test alone),
no example database.  Resource-sized arguments (``n_sim``, ``n_samples``,
``shape``, ``d``, ``bins``) get moderate values only: asking for 1e12 Monte
Carlo draws is a request for memory, not an input error.
"""

from __future__ import annotations

import math
import functools
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpinfer
from dpinfer import (
    ConfidenceInterval,
    DPInferWarning,
    HTestResult,
    KRRReleaser,
    ContingencyTableReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    Release,
    Tulap,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

MAX_EXAMPLES = 150
FUZZ = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def _sequential_run():
    design = dpinfer.sequential_design(0.9, 0.2, looks=2, epsilon=3.0)
    run = design.staged_release()
    run.release(1, [3, 1], rng=1)
    if not run.stopped:
        run.release(2, [4, 1], rng=2)
    return design, run


_SEQUENTIAL = _sequential_run()

# -- adversarial values ----------------------------------------------------------

_ADVERSARIAL = [
    math.nan, math.inf, -math.inf, 0, 0.0, -0.0, -1, -0.5, 1e-300, 5e-324, 1e-12, 1e-3, 0.5, 1, 2, 30,
    1e300, 10**9, 10**12, 10**30, 2**63, -(10**12), True, False, None, "a", "0.5", "two-sided", "",
    [], (), np.array([]), [1.0, math.nan], [[1, 2], [3]], [0.2, 0.8], np.ones((2, 2)), 1j,
    np.float32(0.3), np.int64(5), np.array(0.3), np.array([3, 4]), object(), {"a": 1},
]
_SIZED = [0, 1, 2, 3, -1, 0.5, 2.5, math.nan, math.inf, None, "10", True, [10], np.int64(50), 1e3]

ANY_VALUE = st.one_of(
    st.sampled_from(_ADVERSARIAL),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**15), max_value=10**15),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
)
SIZED_VALUE = st.sampled_from(_SIZED)
SIZED_ARGS = {"n_sim", "n_samples", "shape", "d", "bins"}


# -- valid baselines and what a valid answer looks like -----------------------------

def _tulap_release():
    return TulapReleaser(1.0).release(11, 30, rng=1)


def _laplace_release():
    return LaplaceReleaser(1.0).proportion(11, 30, rng=1)


def _table_release():
    return ContingencyTableReleaser(1.0).release([[12, 8], [5, 15]], rng=1)


def _unary_reports():
    return UnaryEncodingReleaser(2.0, 3).release(np.random.default_rng(0).integers(0, 3, size=(12, 10)), rng=1)


def _budget_json():
    budget = dpinfer.PrivacyBudget(2.0, 1e-5)
    budget.charge(0.5, 1e-6, label="one")
    budget.parallel("sites").group("A").charge(0.25)
    return budget.to_json()


def _mean_release(seed=1):
    return dpinfer.MeanReleaser(1.0, 0.0, 10.0, spread=True).release([1.0, 2.5, 4.0, 12.0, 6.0, 3.5], rng=seed)


def _charged_twice(first, second, label):
    budget = dpinfer.PrivacyBudget(1.0)
    budget.charge(first, label="look 1")
    return budget.charge(second, label=label)


def _power_curve(values, label):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpinfer.plot import power_curve

    fig, ax = plt.subplots()
    try:
        power_curve(dpinfer.binom_ump_power, values, ax=ax, label=label, n=30, p0=0.2, epsilon=1.0)
    finally:
        plt.close(fig)


_FUZZ_DIR = None


def _fuzz_path(path):
    """A text path is put inside a scratch folder (the fuzzer's strings would otherwise be files here)."""
    global _FUZZ_DIR
    if not isinstance(path, str) or not path:
        return path
    import tempfile

    _FUZZ_DIR = _FUZZ_DIR or tempfile.mkdtemp(prefix="dpinfer-fuzz-")
    return f"{_FUZZ_DIR}/f-{abs(hash(path))}"


@functools.lru_cache(maxsize=1)
def _simon_design():
    return dpinfer.simon_design(0.1, 0.3, epsilon=2.0, max_n=40)


def _pure_tulap(x, n, seed):
    return TulapReleaser(2.0).release(x, n, rng=seed)


def _life_table(epsilon=2.0, seed=1):
    return dpinfer.LifeTableReleaser(epsilon, (5.0, 10.0)).release(
        [3.0, 6.0, 12.0, 4.0, 7.5, 11.0, 2.0, 9.0], [1, 0, 1, 1, 1, 0, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1], rng=seed)


def _survival(result):
    return np.concatenate([result.surv, result.lower, result.upper])


def _htest():
    return dpinfer.binom_ump_test(11.2, 30, p0=0.2, epsilon=1.0)


# name: (call(kwargs) -> result, baseline kwargs, kind of answer)
SPECS = {
    # releasers (construction and release in one call)
    "TulapReleaser": (
        lambda a: TulapReleaser(a["epsilon"], a["delta"]).release(a["x"], a["n"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, delta=0.0, x=3, n=10, rng=1, secure=False), "release"),
    "LaplaceReleaser": (
        lambda a: LaplaceReleaser(a["epsilon"], a["sensitivity"]).release(a["value"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, sensitivity=1.0, value=0.3, rng=1, secure=False), "release"),
    "LaplaceReleaser.proportion": (
        lambda a: LaplaceReleaser(a["epsilon"]).proportion(a["x"], a["n"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, x=3, n=10, rng=1, secure=False), "release"),
    "LaplaceReleaser.count": (
        lambda a: LaplaceReleaser(a["epsilon"]).count(a["x"], a["n"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, x=3, n=10, rng=1, secure=False), "release"),
    "ContingencyTableReleaser": (
        lambda a: ContingencyTableReleaser(a["epsilon"], a["neighbours"], a["margins"]).release(
            a["table"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, neighbours="replace-one", margins="total", table=[[3, 4], [5, 6]], rng=1, secure=False),
        "release"),
    "MeanReleaser": (
        lambda a: dpinfer.MeanReleaser(a["epsilon"], a["lower"], a["upper"], spread=a["spread"], split=a["split"]).release(
            a["x"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, lower=0.0, upper=10.0, spread=True, split=0.5, x=[1.0, 2.5, 12.0], rng=1, secure=False),
        "release"),
    "PairedTableReleaser": (
        lambda a: dpinfer.PairedTableReleaser(a["epsilon"]).release(a["table"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, table=[[3, 1], [2, 4]], rng=1, secure=False), "release"),
    "mcnemar_test": (
        lambda a: dpinfer.mcnemar_test(**a),
        dict(release=[1.5, 3.25], n=8, epsilon=1.0, margin=0.0, alternative="two-sided", confidence_level=0.95),
        "htest_diff"),
    "mcnemar_power": (
        lambda a: dpinfer.mcnemar_power(**a),
        dict(p01=0.1, p10=0.3, n=8, epsilon=1.0, margin=0.0, alpha=0.05, alternative="greater"), "prob"),
    "adjust_pvalues": (
        lambda a: dpinfer.adjust_pvalues(**a), dict(p=[0.01, 0.2, 0.04], method="hochberg", n=None), "prob"),
    "binom_many_to_one_test": (
        lambda a: np.array(dpinfer.binom_many_to_one_test(**a).adjusted),
        dict(control=_tulap_release(), arms=[TulapReleaser(1.0).release(18, 30, rng=2)], margin=0.0,
             alternative="greater", adjust="dunnett", confidence_level=0.95, composition=None, names=None), "prob"),
    "mean_jimi_test": (
        lambda a: dpinfer.mean_jimi_test(**a),
        dict(release=_mean_release(), mu0=4.0, sigma=None, model="normal", alternative="two-sided",
             confidence_level=0.95, n_sim=100, rng=1), "htest"),
    "mean2_jimi_test": (
        lambda a: dpinfer.mean2_jimi_test(**a),
        dict(release1=_mean_release(), release2=_mean_release(2), margin=0.0, sigma=None, model="normal",
             alternative="two-sided", confidence_level=0.95, n_sim=100, rng=1, composition="sequential"), "htest"),
    "mean_naive_test": (
        lambda a: dpinfer.mean_naive_test(**a),
        dict(release=_mean_release(), mu0=4.0, sigma=None, alternative="two-sided", confidence_level=0.95), "htest"),
    "mean_repro_test": (
        lambda a: dpinfer.mean_repro_test(**a),
        dict(release=_mean_release(), mu0=4.0, sigma=2.0, model="normal", alternative="two-sided",
             confidence_level=0.95, n_sim=99, rng=1), "htest"),
    "mean2_repro_test": (
        lambda a: dpinfer.mean2_repro_test(**a),
        dict(release1=_mean_release(), release2=_mean_release(2), margin=0.0, sigma=2.0, model="normal",
             alternative="two-sided", confidence_level=0.95, n_sim=39, rng=1, composition="sequential",
             progress=False), "htest"),
    "mean2_naive_test": (
        lambda a: dpinfer.mean2_naive_test(**a),
        dict(release1=_mean_release(), release2=_mean_release(2), margin=0.0, sigma=2.0, alternative="less",
             confidence_level=0.9, composition="parallel"), "htest"),
    "mean_test": (
        lambda a: dpinfer.mean_test(**a),
        dict(release=_mean_release(), release2=None, mu0=4.0, method="jimi", sigma=None, model="lognormal",
             alternative="greater", confidence_level=0.95, n_sim=100, rng=1, composition="sequential"), "htest"),
    "independence_jimi_test": (
        lambda a: dpinfer.independence_jimi_test(**a), dict(release=_table_release(), n_sim=200, rng=1), "htest"),
    "independence_mc_test": (
        lambda a: dpinfer.independence_mc_test(**a), dict(release=_table_release(), n_sim=200, rng=1), "htest"),
    "logistic_jimi": (
        lambda a: np.array([getattr(dpinfer.logistic_jimi(**a), f) for f in ("estimate", "conf_low", "conf_high")]),
        dict(table=[[12.3, 7.9], [4.2, 15.1], [9.7, 9.0], [3.1, 18.4]], design={"a": ["1", "2"], "b": ["1", "2"]},
             model="main-effects", epsilon=1.0, neighbours="replace-one", n_sim=200, confidence_level=0.95,
             draws=False, rng=1), "finite"),
    "RandomizedResponseReleaser": (
        lambda a: RandomizedResponseReleaser(a["epsilon"]).release(a["x"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, x=[0, 1, 1], rng=1, secure=False), "release"),
    "TwoCoinRRReleaser": (
        lambda a: TwoCoinRRReleaser(a["p1"], a["p2"]).release(a["x"], rng=a["rng"], secure=a["secure"]),
        dict(p1=0.5, p2=0.5, x=[0, 1, 1], rng=1, secure=False), "release"),
    "TwoCoinRRReleaser.from_epsilon": (
        lambda a: TwoCoinRRReleaser.from_epsilon(a["epsilon"], a["p2"]).release([0, 1], rng=1),
        dict(epsilon=1.0, p2=0.3), "release"),
    "KRRReleaser": (
        lambda a: KRRReleaser(a["epsilon"], a["k"]).release(a["categories"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, k=3, categories=[0, 2, 1], rng=1, secure=False), "release"),
    "UnaryEncodingReleaser": (
        lambda a: UnaryEncodingReleaser(a["epsilon"], a["d"]).release(a["categories"], rng=a["rng"],
                                                                     secure=a["secure"]),
        dict(epsilon=1.0, d=3, categories=[0, 2, 1], rng=1, secure=False), "release"),
    "LocalLaplaceReleaser": (
        lambda a: LocalLaplaceReleaser(a["epsilon"], a["bound"]).release(a["x"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, bound=1.0, x=[0.2, -0.5], rng=1, secure=False), "release"),
    "LDPHistogramReleaser": (
        lambda a: LDPHistogramReleaser(a["epsilon"], a["bins"]).release(a["x"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, bins=4, x=[0.1, 0.9], rng=1, secure=False), "release"),
    # the noise law
    "Tulap": (
        lambda a: Tulap(a["median"], a["b"], a["q"]).cdf(a["x"]),
        dict(median=0.0, b=0.5, q=0.1, x=0.3), "prob"),
    "Tulap.from_privacy": (
        lambda a: Tulap.from_privacy(a["epsilon"], a["delta"], a["median"]).icdf(a["p"]),
        dict(epsilon=1.0, delta=0.1, median=0.0, p=0.3), "finite_or_inf"),
    "Tulap.ccdf": (
        lambda a: Tulap.from_privacy(a["epsilon"], a["delta"]).ccdf(a["x"]),
        dict(epsilon=1.0, delta=0.0, x=2.5), "prob"),
    "Tulap.sample": (
        lambda a: Tulap.from_privacy(a["epsilon"], a["delta"]).sample(a["shape"], rng=a["rng"]),
        dict(epsilon=1.0, delta=0.05, shape=3, rng=1), "finite"),
    # results and records
    "ConfidenceInterval": (
        lambda a: ConfidenceInterval(a["low"], a["high"], a["level"]),
        dict(low=0.1, high=0.5, level=0.95), "ci"),
    "HTestResult": (
        lambda a: HTestResult(a["statistic"], a["pvalue"], a["null_value"], a["alternative"], "m", a["estimate"],
                              None, a["epsilon"]),
        dict(statistic=1.0, pvalue=0.3, null_value=0.5, alternative="greater", estimate=0.4, epsilon=1.0), "htest"),
    "PrivacyRecord": (
        lambda a: dpinfer.PrivacyRecord(a["epsilon"], a["delta"], a["mechanism"], a["neighbours"], "",
                                        a["path"], a["composition"]),
        dict(epsilon=1.0, delta=0.0, mechanism="tulap", neighbours="replace-one", path="seeded",
             composition="sequential"), "any"),
    "Release": (
        lambda a: Release(a["value"], "laplace", a["epsilon"], a["delta"], 1.0, a["n"], "proportion"),
        dict(value=0.3, epsilon=1.0, delta=0.0, n=30), "release"),
    "results_to_frame": (lambda a: dpinfer.results_to_frame(a["results"]), dict(results=[_htest()]), "any"),
    "HTestResults": (lambda a: dpinfer.HTestResults(a["results"]), dict(results=[_htest()]), "any"),
    "map_results": (
        lambda a: dpinfer.map_results(dpinfer.binom_ump_test, a["values"], a["n"], epsilon=a["epsilon"]),
        dict(values=[3.25, 11.2], n=30, epsilon=1.0), "any"),
    "load_example_trial": (lambda a: dpinfer.load_example_trial(), dict(), "any"),
    # DP-UMP
    "binom_ump_test": (
        lambda a: dpinfer.binom_ump_test(**a),
        dict(z=11.2, n=30, p0=0.2, epsilon=1.0, delta=0.0, alternative="two-sided", confidence_level=0.95,
             two_sided_method="asymptotically-unbiased"), "htest_prop"),
    "binom_ump_ci": (
        lambda a: dpinfer.binom_ump_ci(**a),
        dict(z=11.2, n=30, epsilon=1.0, delta=0.0, confidence_level=0.95, alternative="two-sided"), "ci_prop"),
    "binom_ump_power": (
        lambda a: dpinfer.binom_ump_power(**a),
        dict(theta=0.4, n=30, p0=0.2, epsilon=1.0, delta=0.0, alpha=0.05, alternative="greater"), "prob"),
    "binom_ump_phi": (
        lambda a: dpinfer.binom_ump_phi(**a),
        dict(n=10, p0=0.5, epsilon=1.0, delta=0.0, alpha=0.05, alternative="greater"), "prob"),
    "binom_ump_sample_size": (
        lambda a: dpinfer.binom_ump_sample_size(**a),
        dict(theta1=0.4, p0=0.2, epsilon=1.0, delta=0.0, alpha=0.05, power=0.8, alternative="greater"), "count"),
    # normal approximation
    "binom_normal_test": (
        lambda a: dpinfer.binom_normal_test(**a),
        dict(pi_hat=0.37, n=30, p0=0.2, epsilon=1.0, alternative="two-sided", confidence_level=0.95), "htest_prop"),
    "binom_normal_ci": (
        lambda a: dpinfer.binom_normal_ci(**a),
        dict(pi_hat=0.37, n=30, epsilon=1.0, confidence_level=0.95, alternative="two-sided", method="score"),
        "ci_prop"),
    "binom_normal_power": (
        lambda a: dpinfer.binom_normal_power(**a),
        dict(theta=0.4, n=30, p0=0.2, epsilon=1.0, alpha=0.05, alternative="greater"), "prob"),
    "binom2_normal_test": (
        lambda a: dpinfer.binom2_normal_test(**a),
        dict(pi_hat1=0.4013, n1=30, pi_hat2=0.3013, n2=40, epsilon=1.0, alternative="two-sided",
             confidence_level=0.95), "htest_diff"),
    # exact two-arm (small n and a large epsilon keep each call short)
    "binom2_ump_test": (
        lambda a: dpinfer.binom2_ump_test(**a),
        dict(z1=3.3, n1=5, z2=1.2, n2=6, epsilon=3.0, delta=0.0, margin=0.1, alternative="two-sided",
             confidence_level=0.95), "htest_diff"),
    "binom2_ump_ci": (
        lambda a: dpinfer.binom2_ump_ci(**a),
        dict(z1=3.3, n1=5, z2=1.2, n2=6, epsilon=3.0, delta=0.0, confidence_level=0.95,
             alternative="two-sided"), "ci_diff"),
    "binom2_ump_power": (
        lambda a: dpinfer.binom2_ump_power(**a),
        dict(theta1=0.6, theta2=0.3, n1=5, n2=6, epsilon=3.0, delta=0.0, alpha=0.05,
             alternative="greater"), "prob"),
    "binom2_ump_sample_size": (
        lambda a: dpinfer.binom2_ump_sample_size(**a),
        dict(theta1=0.9, theta2=0.2, epsilon=3.0, delta=0.0, alpha=0.05, power=0.8, ratio=1.0,
             alternative="greater"), "finite"),
    # DP-JIMI
    "binom_jimi_ci": (
        lambda a: dpinfer.binom_jimi_ci(**a),
        dict(pi_hat=0.37, n=30, epsilon=1.0, confidence_level=0.95, alternative="two-sided", n_sim=500, rng=1),
        "ci_prop"),
    "binom_jimi_test": (
        lambda a: dpinfer.binom_jimi_test(**a),
        dict(pi_hat=0.37, n=30, p0=0.2, epsilon=1.0, alternative="two-sided", confidence_level=0.95, n_sim=500,
             rng=1), "htest_prop"),
    "binom2_jimi_ci": (
        lambda a: dpinfer.binom2_jimi_ci(**a),
        dict(pi_hat1=0.4013, n1=30, pi_hat2=0.3013, n2=40, epsilon=1.0, confidence_level=0.95,
             alternative="two-sided", n_sim=500, rng=1), "ci_diff"),
    "binom2_jimi_test": (
        lambda a: dpinfer.binom2_jimi_test(**a),
        dict(pi_hat1=0.4013, n1=30, pi_hat2=0.3013, n2=40, margin=0.0, epsilon=1.0, alternative="two-sided",
             confidence_level=0.95, n_sim=500, rng=1), "htest_diff"),
    "binom_jimi_sample": (
        lambda a: dpinfer.binom_jimi_sample(**a),
        dict(pi_hat=0.37, n=30, epsilon=1.0, n_sim=500, rng=1), "prob"),
    "binom2_jimi_sample": (
        lambda a: dpinfer.binom2_jimi_sample(**a),
        dict(pi_hat1=0.4013, n1=30, pi_hat2=0.3013, n2=40, epsilon=1.0, n_sim=500, rng=1), "prob"),
    "prop_test": (
        lambda a: dpinfer.prop_test(**a),
        dict(release=_tulap_release(), p0=0.2, method="ump", alternative="two-sided", confidence_level=0.95),
        "htest_prop"),
    "prop_test-laplace": (
        lambda a: dpinfer.prop_test(**a),
        dict(release=_laplace_release(), p0=0.2, method="jimi", alternative="greater", confidence_level=0.95,
             n_sim=500, rng=1), "htest_prop"),
    "prop_test-table": (
        lambda a: dpinfer.prop_test(**a),
        dict(release=dpinfer.ContingencyTableReleaser(1.0).release([[12, 8], [5, 15]], rng=3), method="mc",
             alternative="two-sided", confidence_level=0.95, n_sim=200, rng=1), "htest"),
    # local DP
    "rr_proportion_estimate": (
        lambda a: dpinfer.rr_proportion_estimate(**a), dict(yes_count=620, n=1000, epsilon=1.0), "finite"),
    "rr_proportion_se": (
        lambda a: dpinfer.rr_proportion_se(**a),
        dict(yes_count=620, n=1000, epsilon=1.0, estimand="population"), "finite"),
    "rr_proportion_ci": (
        lambda a: dpinfer.rr_proportion_ci(**a),
        dict(yes_count=620, n=1000, epsilon=1.0, confidence_level=0.95, alternative="two-sided", method="exact",
             estimand="population"), "ci_prop"),
    "rr_proportion_ci-two-coin": (
        lambda a: dpinfer.rr_proportion_ci(**a),
        dict(reports=[0, 1, 1, 0, 1], p1=0.5, p2=0.3, confidence_level=0.9, method="exact"), "ci_prop"),
    "rr_proportion_test": (
        lambda a: dpinfer.rr_proportion_test(**a),
        dict(yes_count=620, n=1000, p0=0.5, epsilon=1.0, alternative="two-sided", confidence_level=0.95),
        "htest_prop"),
    "rr_two_sample_test": (
        lambda a: dpinfer.rr_two_sample_test(**a),
        dict(yes_count1=330, n1=500, yes_count2=280, n2=500, epsilon=1.0, alternative="two-sided",
             confidence_level=0.95), "htest_diff"),
    "krr_frequency_estimate": (
        lambda a: dpinfer.krr_frequency_estimate(**a), dict(counts=[50, 30, 20], epsilon=2.0, k=3),
        "finite"),
    "krr_frequency_cov": (
        lambda a: dpinfer.krr_frequency_cov(**a), dict(counts=[50, 30, 20], epsilon=2.0, k=3, estimand="population"),
        "finite"),
    "krr_frequency_ci": (
        lambda a: dpinfer.krr_frequency_ci(**a),
        dict(counts=[500, 300, 200], epsilon=2.0, k=3, confidence_level=0.95, method="bonferroni",
             estimand="population"), "ci_prop"),
    "krr_gof_test": (
        lambda a: dpinfer.krr_gof_test(**a), dict(counts=[500, 300, 200], p0=[1 / 3, 1 / 3, 1 / 3], epsilon=2.0),
        "htest"),
    "unary_frequency_estimate": (
        lambda a: dpinfer.unary_frequency_estimate(**a),
        dict(bit_counts=[600, 400, 300], n=1000, epsilon=2.0), "finite"),
    "unary_frequency_cov": (
        lambda a: dpinfer.unary_frequency_cov(**a),
        dict(bit_counts=[600, 400, 300], n=1000, epsilon=2.0, estimand="sample"), "finite"),
    "unary_frequency_ci": (
        lambda a: dpinfer.unary_frequency_ci(**a),
        dict(bit_counts=[600, 400, 300], n=1000, epsilon=2.0, confidence_level=0.95, method="bonferroni"),
        "ci_prop"),
    "unary_gof_test": (
        lambda a: dpinfer.unary_gof_test(**a),
        dict(bit_counts=[600, 400, 300], n=1000, p0=[1 / 3, 1 / 3, 1 / 3], epsilon=2.0, projected=True), "htest"),
    "project_to_simplex": (lambda a: dpinfer.project_to_simplex(**a), dict(v=[0.6, 0.5, -0.1]), "simplex"),
    "local_laplace_mean_estimate": (
        lambda a: dpinfer.local_laplace_mean_estimate(**a),
        dict(reports=[0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0), "finite"),
    "local_laplace_mean_se": (
        lambda a: dpinfer.local_laplace_mean_se(**a),
        dict(reports=[0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0, estimand="sample"), "finite"),
    "local_laplace_mean_ci": (
        lambda a: dpinfer.local_laplace_mean_ci(**a),
        dict(reports=[0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0, confidence_level=0.95, alternative="two-sided"),
        "ci"),
    "ldp_histogram_bins": (lambda a: dpinfer.ldp_histogram_bins(**a), dict(n=10_000, epsilon=1.0, beta=1.0), "count"),
    "ldp_histogram_density": (
        lambda a: dpinfer.ldp_histogram_density(**a),
        dict(reports=LDPHistogramReleaser(2.0, 4).release(np.linspace(0, 1, 50), rng=1).value, epsilon=2.0),
        "finite"),
    "robust_frequency_estimate": (
        lambda a: dpinfer.robust_frequency_estimate(**a),
        dict(data=_unary_reports(), contamination=0.1), "any"),
    # privacy budgets (a charge, a composition, a release charged to a budget, the JSON reader)
    "PrivacyBudget": (
        lambda a: dpinfer.PrivacyBudget(a["total"], a["total_delta"], description=a["description"]).charge(
            a["epsilon"], a["delta"], mechanism=a["mechanism"], count=a["count"], label=a["label"]),
        dict(total=2.0, total_delta=1e-5, description="trial", epsilon=0.5, delta=1e-6, mechanism="manual",
             count=2, label="two looks"), "ledger"),
    "PrivacyBudget.advanced": (
        lambda a: dpinfer.PrivacyBudget(5.0, 1e-4).advanced(a["k"], a["epsilon"], a["delta"],
                                                            delta_slack=a["delta_slack"], label=a["label"]),
        dict(k=100, epsilon=0.01, delta=1e-8, delta_slack=1e-6, label="looks"), "any"),
    "PrivacyBudget.from_json": (
        lambda a: dpinfer.PrivacyBudget.from_json(a["text"]),
        dict(text=_budget_json()), "any"),
    "PrivacyBudget.from_events": (
        lambda a: dpinfer.PrivacyBudget.from_events(a["data"]),
        dict(data=dpinfer.PrivacyBudget.from_json(_budget_json()).export_events()), "any"),
    "AllocationPlan": (
        lambda a: dpinfer.PrivacyBudget(2.0, 1e-5, plan=dpinfer.AllocationPlan(
            [(a["label"], a["epsilon"], a["delta"])], description=a["description"])).charge(a["charge"], label=a["label"]),
        dict(label="primary", epsilon=1.0, delta=1e-6, description="SAP v1", charge=0.5), "ledger"),
    "AllocationPlan.from_json": (
        lambda a: dpinfer.AllocationPlan.from_json(a["text"]),
        dict(text='{"lines": [{"label": "primary", "epsilon": 0.5}], "description": "SAP"}'), "any"),
    "ParallelComposition": (
        lambda a: dpinfer.PrivacyBudget(2.0).parallel(a["label"]).group(a["group"]).charge(a["epsilon"]),
        dict(label="sites", group="A", epsilon=0.5), "ledger"),
    "AdvancedComposition": (
        lambda a: dpinfer.PrivacyBudget(2.0).advanced(10, 0.1, delta_slack=1e-6, label="b").charge(
            a["epsilon"], count=a["count"]),
        dict(epsilon=0.05, count=3), "ledger"),
    "StagedRelease": (
        lambda a: dpinfer.StagedRelease(a["stage_sizes"], epsilon=a["epsilon"], delta=a["delta"]).release(
            a["stage"], a["x"], rng=a["rng"]),
        dict(stage_sizes=[10, 19], epsilon=1.0, delta=0.0, stage=1, x=3, rng=1), "release"),
    "sequential_design": (
        lambda a: dpinfer.sequential_design(**a),
        dict(theta1=0.9, theta2=0.2, looks=2, alpha=0.025, power=0.8, epsilon=3.0, delta=0.0,
             spending="obrien-fleming", futility=None, ratio=1.0, information=None), "design"),
    "sequential_design-characteristics": (
        lambda a: _SEQUENTIAL[0].operating_characteristics(a["theta1"], a["theta2"]),
        dict(theta1=0.6, theta2=0.3), "design"),
    "sequential_test": (
        lambda a: dpinfer.sequential_test(**a),
        dict(design=_SEQUENTIAL[0], releases=_SEQUENTIAL[1], margin=0.0, confidence_level=0.95,
             composition=None), "htest_diff"),
    "simon_design": (
        lambda a: dpinfer.simon_design(a["p0"], a["p1"], alpha=a["alpha"], power=a["power"], epsilon=a["epsilon"],
                                       delta=a["delta"], design=a["design"], max_n=a["max_n"]),
        dict(p0=0.1, p1=0.5, alpha=0.05, power=0.8, epsilon=3.0, delta=0.0, design="minimax", max_n=20), "any"),
    "simon_test": (
        lambda a: dpinfer.simon_test(_simon_design(), a["releases"], alternative=a["alternative"],
                                     confidence_level=a["confidence_level"]),
        dict(releases=[2.8125, 6.40625], alternative="greater", confidence_level=0.95), "htest"),
    # several sites or strata (sums of Tulap counts, delta = 0)
    "binom_pooled_test": (
        lambda a: dpinfer.binom_pooled_test(**a),
        dict(releases=[_pure_tulap(3, 10, 1), _pure_tulap(5, 12, 2)], p0=0.3, alternative="two-sided",
             confidence_level=0.95, composition=None), "htest_prop"),
    "binom_homogeneity_test": (
        lambda a: dpinfer.binom_homogeneity_test(**a),
        dict(releases=[_pure_tulap(3, 10, 1), _pure_tulap(7, 12, 2)], composition=None), "htest"),
    "binom_strata_test": (
        lambda a: dpinfer.binom_strata_test(**a),
        dict(releases=[(_pure_tulap(4, 6, 1), _pure_tulap(2, 6, 2)), (_pure_tulap(3, 5, 3), _pure_tulap(1, 5, 4))],
             margin=0.0, alternative="two-sided", confidence_level=0.95, gamma=0.001, composition=None),
        "htest_diff"),
    "binom2_pooled_test": (
        lambda a: dpinfer.binom2_pooled_test(**a),
        dict(releases1=[_pure_tulap(4, 6, 1), _pure_tulap(3, 5, 3)], releases2=[_pure_tulap(2, 11, 2)], margin=0.0,
             alternative="two-sided", confidence_level=0.95, gamma=0.001, composition=None), "htest_diff"),
    # survival (life tables)
    "LifeTableReleaser": (
        lambda a: dpinfer.LifeTableReleaser(a["epsilon"], a["breaks"]).release(
            a["time"], a["event"], a["group"], rng=a["rng"], secure=a["secure"]),
        dict(epsilon=1.0, breaks=(5.0, 10.0), time=[3.0, 6.0, 12.0, 4.0], event=[1, 0, 1, 1], group=[0, 0, 1, 1],
             rng=1, secure=False), "release"),
    "kaplan_meier": (
        lambda a: _survival(dpinfer.kaplan_meier(**a)),
        dict(release=_life_table(), estimator="actuarial", confidence_level=0.95, method="percentile", n_sim=50,
             rng=1), "prob"),
    "logrank_test": (
        lambda a: dpinfer.logrank_test(**a),
        dict(release=_life_table(), alternative="two-sided", confidence_level=0.95, n_sim=50, rng=1), "htest"),
    "TulapReleaser-budget": (
        lambda a: TulapReleaser(1.0).release(a["x"], 30, rng=1, budget=dpinfer.PrivacyBudget(a["total"]),
                                             array=a["array"]),
        dict(x=[3, 4], total=2.0, array="disjoint"), "release"),
    # issue 40: two-arm effects, two groups of means, the ledger, plots and results' writers
    "binom2_ump_test-effect": (
        lambda a: dpinfer.binom2_ump_test(11.9, 30, 19.5, 40, epsilon=a["epsilon"], effect=a["effect"],
                                          alternative=a["alternative"]),
        dict(epsilon=1.0, effect="ratio", alternative="less"), "htest"),
    "prop_test-effect": (
        lambda a: dpinfer.prop_test(_tulap_release(), TulapReleaser(1.0).release(18, 30, rng=2), effect=a["effect"],
                                    margin=a["margin"]),
        dict(effect="difference", margin=0.1), "htest_diff"),
    "mean_test-two-groups": (
        lambda a: dpinfer.mean_test(**a),
        dict(release=_mean_release(), release2=_mean_release(2), margin=0.5, method="naive", sigma=2.0, model="normal",
             alternative="two-sided", confidence_level=0.95, composition="sequential"), "htest"),
    "PrivacyBudget.charge-twice": (
        lambda a: _charged_twice(a["first"], a["second"], a["label"]),
        dict(first=0.5, second=0.25, label="look 2"), "ledger"),
    "power_curve": (
        lambda a: _power_curve(a["values"], a["label"]),
        dict(values=[0.3, 0.4], label="arm"), "any"),
    "HTestResult.to_json": (lambda a: _htest().to_json(_fuzz_path(a["path"])), dict(path=None), "any"),
    "ConfidenceInterval.to_csv": (
        lambda a: ConfidenceInterval(0.1, 0.5, 0.95).to_csv(_fuzz_path(a["path"])), dict(path=None), "any"),
    "audit_releaser": (
        lambda a: dpinfer.audit_releaser(**a),
        dict(mechanism=LaplaceReleaser(1.0), x=0.0, x_prime=1.0, epsilon=1.0, delta=0.0, n_samples=200,
             confidence_level=0.95, rng=1), "any"),
}

# Public names that are not functions of user input: result records built by
# dpinfer itself (fuzzing their constructors tests nothing a user calls) and
# warning classes.
NOT_FUZZED = {
    "SequentialDesign": "record returned by sequential_design",
    "SequentialCharacteristics": "record returned by SequentialDesign.operating_characteristics",
    "AuditResult": "record returned by audit_releaser",
    "LedgerEntry": "record returned by PrivacyBudget.charge and the releasers",
    "BudgetExceededError": "exception class",
    "RobustEstimate": "record returned by robust_frequency_estimate",
    "ExampleTrial": "record returned by load_example_trial",
    "SimonDesign": "record returned by simon_design",
    "LogisticJimiResult": "record returned by logistic_jimi",
    "PointEstimate": "record returned by the local-DP estimators",
    "PowerResult": "record returned by binom_ump_power and binom2_ump_power (one theta and n)",
    "SampleSizeResult": "record returned by binom_ump_sample_size",
    "SampleSizesResult": "record returned by binom2_ump_sample_size",
    "ManyToOneResult": "record returned by binom_many_to_one_test",
    "KaplanMeierResult": "record returned by kaplan_meier",
    "mcnemar_sample_size": "a search over n calling mcnemar_power (fuzzed) until the target power: extreme "
                           "targets take minutes; its own argument checks are tested in tests/inference/pairs",
    "ApproximationWarning": "warning class",
    "DPInferWarning": "warning class",
    "PrivacyWarning": "warning class",
    "InputWarning": "warning class",
}

# -- fixed bugs -------------------------------------------------------------------------
# Bugs this suite found (subnormal probabilities and epsilons, epsilon near 1e300,
# entries near 1e308, an array where a string belongs), each fixed at the argument
# checks.  Their reproducers stay as regression tests; the input classes are no
# longer excluded from the random fuzzing.


def _real(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _tiny(arg, below=1e-300):
    return lambda kw: _real(kw.get(arg)) and 0.0 < abs(float(kw[arg])) < below


def _array(arg):
    return lambda kw: isinstance(kw.get(arg), np.ndarray)


def _big(arg, above=1e15):
    return lambda kw: _real(kw.get(arg)) and math.isfinite(float(kw[arg])) and abs(float(kw[arg])) > above


def _has_big(arg, above=1e300):
    def pred(kw):
        try:
            arr = np.asarray(kw.get(arg), dtype=float)
        except (TypeError, ValueError):
            return False
        with np.errstate(invalid="ignore"):
            return bool(np.any(np.isfinite(arr) & (np.abs(arr) > above)))
    return pred


_UMP_TINY = "ump.py: a subnormal p0/theta (5e-324) gives RuntimeWarning overflow (log-space kernels)"
_NORMAL_BIG = "normal.py: epsilon = 1e300 raises OverflowError (math.exp/pow), pi_hat = 1e300 a RuntimeWarning"

# (spec, input class, reproducer override, what used to happen, hung)
FIXED_BUGS = [
    ("TulapReleaser", _tiny("epsilon"), dict(epsilon=5e-324),
     "distributions/tulap.py _sample0: subnormal epsilon divides by lam -> RuntimeWarning overflow", False),
    ("Tulap", _tiny("q"), dict(q=5e-324), "distributions/tulap.py _log_tails: log(q / 2) of a subnormal q "
     "-> RuntimeWarning divide by zero", False),
    ("TwoCoinRRReleaser", _tiny("p1", 1e-150), dict(p1=5e-324), "_ldp_channels.py _two_coin_epsilon: "
     "subnormal p1 -> RuntimeWarning divide by zero", False),
    ("TwoCoinRRReleaser", _tiny("p2", 1e-150), dict(p2=5e-324), "_ldp_channels.py _two_coin_epsilon: "
     "subnormal p2 -> RuntimeWarning divide by zero", False),
    ("binom_ump_test", _tiny("p0"), dict(p0=5e-324), _UMP_TINY, False),
    ("binom_ump_power", _tiny("p0"), dict(p0=5e-324), _UMP_TINY, False),
    ("binom_ump_power", _tiny("theta"), dict(theta=5e-324), _UMP_TINY, False),
    ("binom_ump_phi", _tiny("p0"), dict(p0=5e-324), _UMP_TINY, False),
    ("binom_ump_sample_size", _tiny("p0"), dict(p0=5e-324), _UMP_TINY, False),
    ("prop_test", _tiny("p0"), dict(p0=5e-324), _UMP_TINY, False),
    ("binom_ump_test", _array("two_sided_method"), dict(two_sided_method=np.array([])),
     "ump.py _check_two_sided_method: an array gives numpy's ambiguous-truth-value ValueError", False),
    ("binom_ump_sample_size", _big("epsilon"), dict(epsilon=8.98846567431158e307),
     "ump.py: epsilon ~ 9e307 -> RuntimeWarning overflow", False),
    ("binom_ump_phi", _big("epsilon"), dict(epsilon=2.247116418577895e307),
     "ump.py: epsilon ~ 2e307 -> RuntimeWarning overflow in multiply", False),
    ("project_to_simplex", _has_big("v"), dict(v=[0.0, 0.0, 8.98846567431158e307]),
     "inference/local/_common.py project_to_simplex: entries ~ 9e307 -> RuntimeWarning overflow in cumsum", False),
    ("binom_normal_test", _big("epsilon"), dict(epsilon=1e300), _NORMAL_BIG, False),
    ("binom_normal_test", _big("pi_hat"), dict(pi_hat=1e300), _NORMAL_BIG, False),
    ("binom_normal_ci", _big("epsilon"), dict(epsilon=1e300), _NORMAL_BIG, False),
    ("binom_normal_ci", _big("pi_hat"), dict(pi_hat=1e300), _NORMAL_BIG, False),
    ("binom_normal_power", _big("epsilon"), dict(epsilon=1e300), _NORMAL_BIG, False),
    ("binom2_normal_test", _big("epsilon"), dict(epsilon=1e300), _NORMAL_BIG, False),
    ("rr_proportion_ci-two-coin", _tiny("p1", 1e-150), dict(p1=5e-324), "inference/local/_randomized_response.py: subnormal p1 -> "
     "RuntimeWarning divide by zero", False),
    ("rr_proportion_ci-two-coin", _tiny("p2", 1e-150), dict(p2=5e-324), "inference/local/_randomized_response.py: subnormal p2 -> "
     "RuntimeWarning divide by zero", False),
]
def test_every_public_name_is_fuzzed():
    covered = {name.split("-")[0].split(".")[0] for name in SPECS} | set(NOT_FUZZED)
    missing = sorted(set(dpinfer.__all__) - covered)
    assert not missing, f"public names without a fuzz spec: {missing}"


# -- checking an answer ---------------------------------------------------------------

def _names_an_argument(message):
    return re.search(r"`[A-Za-z_][A-Za-z_0-9.\[\]]*`", message) is not None


def _in_range(values, low, high):
    arr = np.asarray(values, dtype=float)
    return not np.isnan(arr).any() and bool(np.all((arr >= low) & (arr <= high)))


def _check_ci(ci, low, high):
    if isinstance(ci, ConfidenceInterval):
        assert _in_range([ci.low, ci.high], low, high), f"interval {ci} outside [{low}, {high}]"
        assert ci.low <= ci.high
    else:
        arr = np.asarray(ci, dtype=float)
        assert arr.shape[-1] == 2, f"interval array of shape {arr.shape}"
        assert _in_range(arr, low, high), f"interval array outside [{low}, {high}]: {arr}"
        assert np.all(arr[..., 0] <= arr[..., 1])


def _check_answer(kind, out):
    if kind == "release":
        assert isinstance(out, Release)
        assert not np.isnan(np.asarray(out.value, dtype=float)).any()
    elif kind in ("htest", "htest_prop", "htest_diff"):
        if isinstance(out, HTestResult):
            assert _in_range(out.pvalue, 0.0, 1.0), f"p-value {out.pvalue}"
            assert not math.isnan(out.statistic)
            if out.conf_int is not None and kind != "htest":
                _check_ci(out.conf_int, *((0.0, 1.0) if kind == "htest_prop" else (-1.0, 1.0)))
        else:
            assert _in_range(out, 0.0, 1.0), f"p-values {out}"
    elif kind == "ci_prop":
        _check_ci(out, 0.0, 1.0)
    elif kind == "ci_diff":
        _check_ci(out, -1.0, 1.0)
    elif kind == "ci":
        _check_ci(out, -math.inf, math.inf)
    elif kind == "prob":
        assert _in_range(out, 0.0, 1.0), f"probability {out}"
    elif kind == "finite":
        assert np.all(np.isfinite(np.asarray(out, dtype=float))), f"non-finite answer {out}"
    elif kind == "finite_or_inf":
        assert not np.isnan(np.asarray(out, dtype=float)).any()
    elif kind == "design":
        if isinstance(out, dpinfer.SequentialDesign):
            assert all(a <= s for a, s in zip(out.cumulative_alpha, out.spent))
            assert _in_range(out.exact_power, 0.0, 1.0) and math.isfinite(out.expected_n0)
        else:
            assert _in_range(out.reject, 0.0, 1.0) and math.isfinite(out.expected_n)
    elif kind == "ledger":
        assert isinstance(out, dpinfer.LedgerEntry), f"not a ledger entry: {out!r}"
        assert 0.0 <= out.charged_epsilon < math.inf and 0.0 <= out.charged_delta <= 1.0
    elif kind == "count":
        assert isinstance(out, (int, np.integer)) and out >= 1, f"count {out!r}"
    elif kind == "simplex":
        arr = np.asarray(out, dtype=float)
        assert np.all(arr >= 0) and abs(arr.sum(axis=-1) - 1).max() < 1e-9


def _call(name, kwargs):
    """Call a spec; return ('ok', answer) or ('error', exception); fail on anything else."""
    call, _, _ = SPECS[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call(kwargs)
        except (TypeError, ValueError) as exc:
            result = ("error", exc)
        else:
            result = ("ok", out)
    foreign = [w for w in caught if not issubclass(w.category, DPInferWarning)]
    assert not foreign, f"{name}{kwargs}: foreign warning {foreign[0].category.__name__}: {foreign[0].message}"
    return result


@pytest.mark.parametrize("name", sorted(SPECS))
def test_baselines_are_valid_calls(name):
    _, baseline, kind = SPECS[name]
    status, out = _call(name, dict(baseline))
    assert status == "ok", f"{name} baseline raised {out!r}"
    _check_answer(kind, out)


@pytest.mark.parametrize(
    "spec, override, what",
    [(spec, override, what) for spec, _, override, what, _ in FIXED_BUGS],
    ids=[f"{spec}-{i}" for i, (spec, *_) in enumerate(FIXED_BUGS)],
)
def test_fixed_bug_reproducer(spec, override, what):
    _, baseline, kind = SPECS[spec]
    kwargs = dict(baseline, **override)
    status, out = _call(spec, kwargs)
    if status == "error":
        assert _names_an_argument(str(out)), f"message names no argument: {out}"
    else:
        _check_answer(kind, out)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_argument_with_every_adversarial_value(name):
    """Deterministic sweep: each argument in turn replaced by each value of the fixed pool."""
    _, baseline, kind = SPECS[name]
    failures = []
    for arg in sorted(baseline):
        for value in _SIZED if arg in SIZED_ARGS else _ADVERSARIAL:
            kwargs = dict(baseline, **{arg: value})
            try:
                status, out = _call(name, kwargs)
                if status == "error":
                    assert _names_an_argument(str(out)), f"message names no argument: {out}"
                else:
                    _check_answer(kind, out)
            except Exception as exc:  # noqa: BLE001 - collect every failure, then report them all
                failures.append(f"{arg}={value!r:.40}: {type(exc).__name__}: {str(exc)[:200]}")
    assert not failures, f"{name}: " + "\n".join(failures)


@pytest.mark.parametrize("name", sorted(SPECS))
@FUZZ
@given(data=st.data())
def test_fuzz_public_function(name, data):
    _, baseline, kind = SPECS[name]
    kwargs = dict(baseline)
    if kwargs:
        names = sorted(kwargs)
        for arg in data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True), label="args"):
            strategy = SIZED_VALUE if arg in SIZED_ARGS else ANY_VALUE
            kwargs[arg] = data.draw(strategy, label=arg)
    try:
        status, out = _call(name, kwargs)
    except Exception as exc:  # noqa: BLE001 - any other exception type is the bug we look for
        raise AssertionError(f"{name}({_show(kwargs)}) raised {type(exc).__name__}: {exc}") from exc
    if status == "error":
        assert _names_an_argument(str(out)), f"{name}({_show(kwargs)}): message names no argument: {out}"
    else:
        try:
            _check_answer(kind, out)
        except AssertionError as exc:
            raise AssertionError(f"{name}({_show(kwargs)}) returned an invalid answer: {exc}") from exc


def _show(kwargs):
    return ", ".join(f"{k}={v!r}"[:80] for k, v in kwargs.items())
