"""The one resolver: every inference entry point refuses a release it does not take with one wording,
and every result computed from releases states their unit of privacy (dpinfer/inference/_resolve.py)."""

import re

import numpy as np
import pytest

import dpinfer
from dpinfer.inference._resolve import declared, fitting

from _releaser_catalogue import RELEASE_METHODS, release

_TWO = ("binom2_normal_test", "binom2_jimi_ci", "binom2_jimi_test", "binom2_jimi_sample", "rr_two_sample_test")
_FIRST_ARG = {"ldp_histogram_density": "reports", "robust_frequency_estimate": "data", "logistic_jimi": "table",
              "independence_jimi_test": "release", "independence_mc_test": "release",
              "binom_jimi_sample": "pi_hat", "mean_jimi_test": "release", "mean_naive_test": "release",
              "mean_repro_test": "release",
              "mean2_jimi_test": "release1", "mean2_naive_test": "release1", "mean2_repro_test": "release1",
              "mean_test": "release", "binom_pooled_test": "releases[0]", "binom_homogeneity_test": "releases[0]",
              "binom_strata_test": "releases[0][0]", "binom2_pooled_test": "releases1[0]",
              "kaplan_meier": "release", "logrank_test": "release",
              "mcnemar_test": "release", "binom_many_to_one_test": "control",
              "simon_test": "releases[0]", "sequential_test": "releases[0][0]"}


#: arguments a function checks before its release (the null value of a goodness-of-fit test)
_REQUIRED = {"krr_gof_test": {"p0": [0.3, 0.3, 0.4]}, "unary_gof_test": {"p0": [0.25] * 4},
             "robust_frequency_estimate": {"contamination": 0.1},
             "mean2_jimi_test": {"release2": None}, "mean2_naive_test": {"release2": None},
             "mean2_repro_test": {"release2": None}, "binom_many_to_one_test": {"arms": None}}


#: functions that take a list of releases, and the list a single release goes into
_LISTS = {"binom_pooled_test": lambda r: ([r, r],), "binom_homogeneity_test": lambda r: ([r, r],),
          "binom_strata_test": lambda r: ([(r, r)],), "binom2_pooled_test": lambda r: ([r], [r])}


def _first_arg(name):
    if name in _FIRST_ARG:
        return _FIRST_ARG[name]
    if name.startswith("binom2_ump"):
        return "z1"
    if name in _TWO:
        return "reports1" if name.startswith("rr") else "pi_hat1"
    if name.startswith("binom_ump"):
        return "z"
    return "pi_hat" if name.startswith("binom") else "reports"


#: the designs' analyses take a design first, then the stage releases (one, or a pair per look)
_SIMON = dpinfer.simon_design(0.1, 0.3, epsilon=2.0, max_n=40)
_SEQUENTIAL = dpinfer.sequential_design(0.5, 0.3, looks=2, epsilon=1.0)
_DESIGNS = {"simon_test": lambda r: (_SIMON, [r]), "sequential_test": lambda r: (_SEQUENTIAL, [(r, r)])}


def _stopped_run(design, stage1):
    run = design.staged_release()
    run.release(1, stage1, rng=1)
    return run


_DECLARED = [(f, d) for d in declared() for f in d.functions]
_CASES = [pytest.param(f, d, c[0], id=f"{f}-{c[0]}") for f, d in _DECLARED for c in RELEASE_METHODS]


def test_every_public_inference_function_that_takes_a_release_declares_it():
    names = {f for f, _ in _DECLARED}
    assert len(names) == len(_DECLARED)  # one declaration per function
    assert names <= set(dpinfer.__all__)
    # a parameter typed "... Release ..." in the numpydoc Parameters section
    typed = re.compile(r"^    \w+(, \w+)* : .*\bRelease\b", re.MULTILINE)
    takes_release = {name for name in dpinfer.__all__
                     if callable(getattr(dpinfer, name)) and not isinstance(getattr(dpinfer, name), type)
                     and typed.search((getattr(dpinfer, name).__doc__ or "").split("Returns")[0])
                     and getattr(dpinfer, name).__module__.startswith("dpinfer.inference.")
                     and name != "prop_test"}
    assert {"binom_ump_test", "binom2_jimi_ci", "logistic_jimi", "robust_frequency_estimate"} <= takes_release
    assert takes_release <= names


@pytest.mark.parametrize("func, accepts, entry", _CASES)
def test_every_entry_point_refuses_a_release_it_does_not_take_with_one_wording(func, accepts, entry):
    rel = release(entry)
    if (rel.mechanism, rel.kind) in accepts.pairs:
        return
    args = (rel, rel) if func == "rr_two_sample_test" else (rel,)
    if func in _LISTS:  # several sites (a list) or strata (a list of pairs): the first release is refused
        args = _LISTS[func](rel)
    kwargs = ({"z2": rel} if func.startswith("binom2_ump") else {"pi_hat2": rel}) if func.startswith("binom2") else {}
    if func in _LISTS:
        kwargs = {}
    if func in _DESIGNS:
        args, kwargs = _DESIGNS[func](rel), {}
    kwargs.update(_REQUIRED.get(func, {}))
    fits = fitting(rel.mechanism, rel.kind)
    where = f"use {', '.join(fits)}" if fits else "no dpinfer inference function takes it"
    wording = (f"`{_first_arg(func)}` is a {dpinfer._mechanisms.printed(rel.mechanism)} release of kind "
               f"'{rel.kind}', which {func} does not take: it takes {accepts.what}. For this release {where}.")
    with pytest.raises(ValueError, match=re.escape(wording)):
        getattr(dpinfer, func)(*args, **kwargs)


def test_the_wording_names_the_method_that_fits():
    with pytest.raises(ValueError, match=r"For this release use binom2_ump_test, binom_many_to_one_test, binom_pooled_test, binom_ump_test, simon_test\.$"):
        dpinfer.binom_jimi_test(release("tulap"))
    with pytest.raises(ValueError, match=r"For this release use binom2_ump_test, binom_jimi_test, binom_many_to_one_test, binom_normal_test\.$"):
        dpinfer.binom_ump_test(release("laplace.count"))
    with pytest.raises(ValueError, match=r"For this release use independence_jimi_test, logistic_jimi\.$"):
        dpinfer.binom_normal_test(release("table"))


_T = dict(rng=1)
_PURE = dpinfer.TulapReleaser(epsilon=1.0).release(11, 30, rng=1)
# every result-returning entry point, called on a release it takes
_RESULTS = {
    "binom_ump_test": lambda r: dpinfer.binom_ump_test(r["tulap"]),
    "binom2_ump_test": lambda r: dpinfer.binom2_ump_test(r["tulap"], r["tulap"]),
    "binom_normal_test": lambda r: dpinfer.binom_normal_test(r["laplace.proportion"]),
    "binom2_normal_test": lambda r: dpinfer.binom2_normal_test(r["laplace.proportion"], r["laplace.count"]),
    "binom_jimi_test": lambda r: dpinfer.binom_jimi_test(r["laplace.count"], n_sim=1000, rng=1),
    "binom2_jimi_test": lambda r: dpinfer.binom2_jimi_test(r["laplace.proportion"], r["laplace.count"],
                                                           n_sim=1000, rng=1),
    "independence_jimi_test": lambda r: dpinfer.independence_jimi_test(r["table"], n_sim=200, rng=1),
    "independence_mc_test": lambda r: dpinfer.independence_mc_test(r["table"], n_sim=200, rng=1),
    "logistic_jimi": lambda r: dpinfer.logistic_jimi(r["table"], n_sim=200, rng=1),
    "krr_gof_test": lambda r: dpinfer.krr_gof_test(r["krr"], [0.3, 0.3, 0.4], k=3),
    "unary_gof_test": lambda r: dpinfer.unary_gof_test(r["unary"], [0.25] * 4),
    "rr_proportion_test": lambda r: dpinfer.rr_proportion_test(r["rr"]),
    "rr_two_sample_test": lambda r: dpinfer.rr_two_sample_test(r["rr"], r["rr"]),
    "mean_jimi_test": lambda r: dpinfer.mean_jimi_test(r["mean"], sigma=2.0, n_sim=100, rng=1),
    "mean2_jimi_test": lambda r: dpinfer.mean2_jimi_test(r["mean"], r["mean"], sigma=2.0, n_sim=100, rng=1),
    "mean_naive_test": lambda r: dpinfer.mean_naive_test(r["mean"], sigma=2.0),
    "mean_repro_test": lambda r: dpinfer.mean_repro_test(r["mean"], sigma=2.0, n_sim=99, rng=1),
    "mean2_naive_test": lambda r: dpinfer.mean2_naive_test(r["mean"], r["mean"], sigma=2.0),
    "mean2_repro_test": lambda r: dpinfer.mean2_repro_test(r["mean"], r["mean"], sigma=2.0, n_sim=19, rng=1),
    "mean_test": lambda r: dpinfer.mean_test(r["mean"], sigma=2.0, n_sim=100, rng=1),
    # the sums of releases take delta = 0 (the catalogue's Tulap release has delta > 0)
    "binom_pooled_test": lambda r: dpinfer.binom_pooled_test([_PURE, _PURE]),
    "binom_homogeneity_test": lambda r: dpinfer.binom_homogeneity_test([r["tulap"], _PURE]),
    "binom_strata_test": lambda r: dpinfer.binom_strata_test([(_PURE, _PURE)]),
    "binom2_pooled_test": lambda r: dpinfer.binom2_pooled_test([_PURE], [_PURE]),
    "logrank_test": lambda r: dpinfer.logrank_test(r["life_table"], n_sim=100, rng=1),
    "mcnemar_test": lambda r: dpinfer.mcnemar_test(r["paired"]),
    "binom_many_to_one_test": lambda r: dpinfer.binom_many_to_one_test(r["tulap"], [r["tulap"]], adjust="holm"),
    # a design's stages are released by its StagedRelease (each stage's own n, the design's epsilon)
    "simon_test": lambda r: dpinfer.simon_test(_SIMON, _stopped_run(_SIMON, 0)),
    "sequential_test": lambda r: dpinfer.sequential_test(_SEQUENTIAL, _stopped_run(_SEQUENTIAL, [50, 10])),
}


def test_every_test_is_checked_for_its_privacy_unit():
    tests = {f for f, _ in _DECLARED if f.endswith("_test") or f == "logistic_jimi"}
    assert tests == set(_RESULTS)


@pytest.mark.parametrize("name", sorted(_RESULTS))
@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")
def test_every_result_states_the_unit_of_privacy_of_its_release(name):
    releases = {c[0]: release(c[0]) for c in RELEASE_METHODS}
    res = _RESULTS[name](releases)
    used = [r for r in releases.values() if r.privacy_unit == res.privacy_unit]
    assert used, res.privacy_unit
    assert res.secure is False
    assert f"unit of privacy: {res.privacy_unit}" in str(res)


def test_a_table_release_prints_one_unit_in_every_method():
    table = release("table")
    units = {dpinfer.independence_jimi_test(table, n_sim=200, rng=1).privacy_unit,
             dpinfer.independence_mc_test(table, n_sim=200, rng=1).privacy_unit,
             dpinfer.logistic_jimi(table, n_sim=200, rng=1).privacy_unit}
    assert units == {table.privacy_unit} == {"one record (replace-one, sensitivity 2 per table)"}


def test_numbers_claim_no_path_and_no_unit():
    res = dpinfer.binom_ump_test(11.2, 30, epsilon=1.0)
    assert res.secure is None and res.privacy_unit == ""
    mixed = dpinfer.binom2_normal_test(release("laplace.proportion"), pi_hat2=0.4013, n2=30, epsilon=(None, 1.0))
    assert mixed.secure is None and mixed.privacy_unit == ""


@pytest.mark.parametrize("rel, match", [
    # the rule of the Laplace sensitivity: equal up to the rounding of one double (relative 1e-12)
    (dpinfer.Release(0.3, "laplace", 1.0, 0.0, 1 / 30 * (1 + 1e-10), 30, "proportion"),
     r"sensitivity .*, but binom_normal_test needs the sensitivity of a proportion out of n = 30"),
    # only the Tulap law depends on delta: a Laplace release must be pure DP
    (dpinfer.Release(0.3, "laplace", 1.0, 0.01, 1 / 30, 30, "proportion"),
     r"`pi_hat` must be a pure-DP release \(delta = 0\).*got delta = 0.01"),
])
def test_the_rules_every_method_shares(rel, match):
    for func in (dpinfer.binom_normal_test, dpinfer.binom_jimi_test):
        with pytest.raises(ValueError, match=match.replace("binom_normal_test", func.__name__)):
            func(rel)
    ok = dpinfer.Release(0.3, "laplace", 1.0, 0.0, 1 / 30 * (1 + 1e-13), 30, "proportion")
    assert np.isfinite(dpinfer.binom_normal_test(ok).pvalue)
