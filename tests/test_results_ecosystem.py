"""Results behave like scipy's and statsmodels' (issue 27, item 2): the interval unpacks and
indexes, tests have ``confidence_interval()``, results export to JSON and CSV, counts stay
integers, many releases give a result collection with ``to_frame()``, and statsmodels'
spellings of the alternative get a hint."""

import csv
import io
import json
import pickle

import numpy as np
import pytest
from scipy import stats

import dpinfer
from dpinfer import (
    ConfidenceInterval,
    HTestResult,
    HTestResults,
    TulapReleaser,
    binom_normal_test,
    binom_ump_test,
    map_results,
)


def test_interval_unpacks_and_indexes_like_scipys():
    # scipy.stats.binomtest(...).proportion_ci() is a named pair: the same operations work
    ref = stats.binomtest(11, 30).proportion_ci()
    ci = ConfidenceInterval(ref.low, ref.high, 0.95)
    low, high = ci
    assert (low, high) == (ref.low, ref.high) == tuple(ref)
    assert ci[0] == ref[0] and ci[1] == ref[1] and ci[-1] == ref.high
    assert len(ci) == 2 and ci[:] == (ref.low, ref.high)
    with pytest.raises(IndexError):
        ci[2]


def test_confidence_interval_is_the_tests_interval():
    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0)
    assert res.confidence_interval() is res.conf_int
    assert res.confidence_interval(0.95) is res.conf_int
    with pytest.raises(ValueError, match="Run the test again with confidence_level=0.9"):
        res.confidence_interval(0.9)
    bare = HTestResult(1.0, 0.5, 0.5, "two-sided", "m", None, None, 1.0)
    with pytest.raises(ValueError, match="reports no confidence interval"):
        bare.confidence_interval()


def test_to_json_and_to_csv_carry_to_dict(tmp_path):
    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0)
    assert json.loads(res.to_json()) == res.to_dict()
    rows = list(csv.DictReader(io.StringIO(res.to_csv())))
    assert len(rows) == 1 and list(rows[0]) == list(res.to_dict())
    assert float(rows[0]["pvalue"]) == res.pvalue and rows[0]["parameter"] == "30"
    assert res.to_json(tmp_path / "r.json") is None
    assert json.loads((tmp_path / "r.json").read_text()) == res.to_dict()
    res.to_csv(tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text() == res.to_csv()
    ci = res.conf_int
    assert json.loads(ci.to_json()) == {"conf_low": ci.low, "conf_high": ci.high, "conf_level": 0.95}
    assert ci.to_csv().splitlines()[0] == "conf_low,conf_high,conf_level"


def test_parameter_of_a_count_is_an_integer():
    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0)
    assert res.parameter == 30 and type(res.parameter) is int
    assert res.to_dict()["parameter"] == 30 and type(res.to_dict()["parameter"]) is int
    assert res.to_htest()["parameter"] == {"number of trials": 30}
    assert '"parameter": 30,' in res.to_json()
    assert "number of trials = 30," in str(res)
    # a real-valued parameter stays a float
    r = HTestResult(1.0, 0.5, 0.5, "two-sided", "m", None, None, 1.0, parameter=2.5)
    assert r.parameter == 2.5 and type(r.parameter) is float
    r = HTestResult(1.0, 0.5, 0.5, "two-sided", "m", None, None, 1.0, parameter=np.int64(7))
    assert type(r.parameter) is int


def test_vectorised_calls_keep_returning_arrays_and_map_results_collects():
    z = np.array([3.25, 11.2, 17.5])
    pvalues = binom_ump_test(z, 30, 0.2, epsilon=1.0)
    assert type(pvalues) is np.ndarray
    res = map_results(binom_ump_test, z, 30, 0.2, epsilon=1.0)
    assert isinstance(res, HTestResults) and len(res) == 3
    np.testing.assert_array_equal(res.pvalue, pvalues)
    assert [r.statistic for r in res] == list(z)
    assert isinstance(res[1:], HTestResults) and res[0] == binom_ump_test(3.25, 30, 0.2, epsilon=1.0)
    rows = json.loads(res.to_json())
    assert [r["pvalue"] for r in rows] == list(pvalues)
    assert len(res.to_csv().splitlines()) == 4
    assert "3 results" in repr(res)


def test_map_results_splits_an_array_release_and_frames():
    pd = pytest.importorskip("pandas")
    rel = TulapReleaser(1.0).release(np.array([5, 11]), 30, rng=3)
    res = map_results(binom_ump_test, rel, 0.2)
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2
    np.testing.assert_array_equal(frame["pvalue"], binom_ump_test(rel, 0.2))
    assert set(frame["privacy_unit"]) == {"one record (replace-one, n public)"}


def test_map_results_refuses_a_function_without_a_result():
    with pytest.raises(TypeError, match="must return an HTestResult"):
        map_results(dpinfer.binom_ump_ci, [3.25], 30, epsilon=1.0)
    with pytest.raises(TypeError, match="`func` must be callable"):
        map_results(3, [1.0])
    with pytest.raises(TypeError, match="element 0 is float"):
        HTestResults([1.0])


@pytest.mark.parametrize("spelling,hint", [("larger", "is 'greater' here"), ("smaller", "is 'less' here"),
                                           ("two.sided", "is spelled 'two-sided' here")])
def test_other_packages_spellings_get_a_hint(spelling, hint):
    with pytest.raises(ValueError, match=hint):
        binom_ump_test(11.2, 30, 0.2, epsilon=1.0, alternative=spelling)


def test_pvalue_function_reproduces_the_test_and_survives_pickling():
    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0)
    grid = np.array([0.1, 0.2, 0.45])
    want = [binom_ump_test(11.2, 30, p, epsilon=1.0).pvalue for p in grid]
    np.testing.assert_allclose(res.pvalue_function(grid), want, rtol=1e-14)
    again = pickle.loads(pickle.dumps(res))
    assert again == res and "pvalue_function" not in res.to_dict()
    norm = binom_normal_test(0.4013, 30, 0.2, epsilon=1.0)
    assert norm.pvalue_function(np.array([0.2]))[0] == pytest.approx(norm.pvalue, rel=1e-14)


def test_point_estimates_export_to_json_and_csv():
    pd = pytest.importorskip("pandas")
    est = dpinfer.krr_frequency_estimate(counts=[50, 30, 20], epsilon=1.0, k=3)
    assert json.loads(est.to_json()) == est.to_dict()
    frame = pd.read_csv(io.StringIO(est.to_csv()))
    pd.testing.assert_frame_equal(frame, est.to_frame(), check_dtype=False)


def test_to_csv_and_to_json_are_the_commands_formats(capsys):
    from dpinfer.cli import main

    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0)
    assert main(["test", "--z", "11.2", "--n", "30", "--epsilon", "1", "--p0", "0.2",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == res.to_csv().splitlines()[0]
    row = next(csv.DictReader(io.StringIO(out)))
    assert float(row["pvalue"]) == res.pvalue and row["parameter"] == "30"
    assert main(["test", "--z", "11.2", "--n", "30", "--epsilon", "1", "--p0", "0.2",
                 "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == list(json.loads(res.to_json()))
