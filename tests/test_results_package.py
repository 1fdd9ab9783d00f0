"""The dpinfer.results package (issue 35, item 5): every result type there, one PrivacyRecord each.

The types moved between modules; the public paths (``dpinfer.X`` and
``dpinfer.results.X``) and pickles must not notice.
"""

import pickle

import pytest

import dpinfer
import dpinfer.results as results
from dpinfer import (
    KRRReleaser,
    PrivacyBudget,
    PrivacyRecord,
    TulapReleaser,
    UnaryEncodingReleaser,
    krr_frequency_estimate,
    logistic_jimi,
    prop_test,
    robust_frequency_estimate,
)

NAMES = ("ConfidenceInterval", "HTestResult", "HTestResults", "LogisticJimiResult", "PointEstimate",
         "PowerResult", "PrivacyRecord", "RobustEstimate", "SampleSizeResult", "SampleSizesResult", "map_results",
         "results_to_frame")


@pytest.mark.parametrize("name", NAMES)
def test_every_result_type_is_public_in_dpinfer_results_under_that_module(name):
    obj = getattr(results, name)
    assert getattr(dpinfer, name) is obj and obj.__module__ == "dpinfer.results"
    assert name in results.__all__ and name in dpinfer.__all__


def _results():
    rel = TulapReleaser(1.0).release(11, 30, rng=1)
    est = krr_frequency_estimate(KRRReleaser(1.0, 3).release([0, 1, 2, 2, 1, 0, 2], rng=1), k=3)
    batches = UnaryEncodingReleaser(1.0, 3).release([[0, 1, 2, 2], [1, 1, 0, 2], [2, 0, 1, 1]], rng=2)
    robust = robust_frequency_estimate(batches, contamination=0.1)
    fit = logistic_jimi([[41.2, 9.7], [18.3, 30.9]], epsilon=1.0, n_sim=200, rng=3)
    return [prop_test(rel, 0.3), prop_test(rel, 0.3).conf_int, est, robust, fit]


def test_results_pickle_and_carry_a_privacy_record():
    for obj in _results():
        back = pickle.loads(pickle.dumps(obj))
        assert type(back) is type(obj)
        if hasattr(obj, "privacy"):
            assert isinstance(obj.privacy, PrivacyRecord) and back.privacy == obj.privacy
    test, _, est, robust, fit = _results()
    assert (test.privacy.epsilon, test.privacy.path, test.privacy.neighbours) == (1.0, "seeded", "replace-one")
    assert (est.privacy.mechanism, robust.privacy.mechanism) == ("krr", "unary_encoding")
    assert fit.privacy.epsilon == 1.0 and str(fit).count("privacy: epsilon = 1, delta = 0, Laplace mechanism") == 1


def test_a_result_of_two_releases_prints_its_record():
    arms = PrivacyBudget(2.0).parallel("arms")
    rel = TulapReleaser(1.0)
    res = prop_test(rel.release(23, 60, rng=1, budget=arms.group("a")), rel.release(12, 60, rng=2,
                                                                                     budget=arms.group("b")))
    assert res.privacy == PrivacyRecord(1.0, 0.0, "tulap", "replace-one", "one record (replace-one, n public)",
                                        "seeded", "parallel")
    assert "\n".join(res.privacy.lines()) in str(res)
    assert res.privacy.to_dict() == {"epsilon": 1.0, "delta": 0.0, "mechanism": "tulap",
                                     "neighbours": "replace-one", "privacy_unit": "one record (replace-one, n public)",
                                     "path": "seeded", "composition": "parallel"}


def test_the_old_htest_keywords_still_construct_a_result():
    res = dpinfer.HTestResult(statistic=1.0, pvalue=0.5, null_value=0.5, alternative="two-sided", method="m",
                              estimate=None, conf_int=None, epsilon=2.0, delta=0.0, mechanism="Tulap",
                              secure=True, privacy_unit="one record")
    assert res.privacy == PrivacyRecord(2.0, 0.0, "tulap", None, "one record", "hardened", None)


@pytest.mark.parametrize("kw, error, match", [
    (dict(composition="max"), ValueError, "`composition` must be None, 'sequential' or 'parallel'; got 'max'"),
    (dict(path=True), ValueError, "`path` must be None, 'hardened' or 'seeded'; got True"),
    (dict(neighbours=""), TypeError, "`neighbours` must be None or a non-empty string"),
    (dict(mechanism=1), TypeError, "`mechanism` must be a string; got 1"),
    (dict(epsilon=-1.0), ValueError, "`epsilon` must be"),
])
def test_privacy_record_refuses_bad_fields(kw, error, match):
    with pytest.raises(error, match=match):
        PrivacyRecord(**{"epsilon": 1.0, **kw})
    if "composition" in kw:
        with pytest.raises(error, match=match):
            dpinfer.HTestResult(1.0, 0.5, 0.5, "two-sided", "m", None, None, 1.0, **kw)
