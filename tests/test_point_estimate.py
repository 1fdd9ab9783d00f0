"""PointEstimate: the local-DP estimators report in the parameter space and keep the
unbiased value (issue 18 item 5).  Expected values are written from the formulas."""

import json
import math

import numpy as np
import pytest
from scipy import special

import dpinfer
from dpinfer import PointEstimate


def test_rr_estimate_outside_zero_one_is_clipped_and_raw_kept():
    # the reproducer: Warner RR at epsilon = 0.5, 10 "yes" of 100
    res = dpinfer.rr_proportion_estimate(yes_count=10, n=100, epsilon=0.5)
    raw = (0.1 - special.expit(-0.5)) / math.tanh(0.25)  # (y/n - a0) / (a1 - a0)
    assert res.estimate_raw == pytest.approx(raw, rel=1e-14)
    assert raw < 0 and res.estimate == 0.0 and float(res) == 0.0
    assert res.projected
    text = str(res)
    assert "projected onto [0, 1]" in text and "estimate_raw" in text
    # the test on the same numbers gives the same pair
    test = dpinfer.rr_proportion_test(yes_count=10, n=100, epsilon=0.5)
    assert (test.estimate, test.estimate_raw) == pytest.approx((res.estimate, res.estimate_raw))


def test_krr_and_unary_frequencies_lie_on_the_simplex():
    krr = dpinfer.krr_frequency_estimate(counts=[50, 30, 20], epsilon=1.0, k=3)
    assert krr.estimate_raw.min() < 0  # debiasing left the simplex
    assert np.all(krr.estimate >= 0) and krr.estimate.sum() == pytest.approx(1.0, abs=1e-15)
    uni = dpinfer.unary_frequency_estimate(bit_counts=[[600, 400, 300], [500, 500, 100]], n=1000,
                                           epsilon=2.0)
    assert uni.estimate.shape == (2, 3) and np.all(uni.estimate >= 0)
    np.testing.assert_allclose(uni.estimate.sum(axis=1), 1.0, atol=1e-15)
    # the first row's raw estimate sums to 1.0672 > 1 with all entries positive: the
    # projection subtracts the same 0.0672 / 3 from each (all stay positive)
    np.testing.assert_allclose(uni.estimate[0], uni.estimate_raw[0] - (uni.estimate_raw[0].sum() - 1) / 3,
                               atol=1e-15)
    assert "2 data sets" in str(uni)


def test_local_laplace_mean_and_histogram():
    res = dpinfer.local_laplace_mean_estimate([3.5, 1.5, 2.0, 5.7], epsilon=1.0, bound=1.0)
    assert (res.estimate, res.estimate_raw) == (1.0, pytest.approx(3.175))
    assert res.parameter_space == "[-1, 1]"
    inside = dpinfer.local_laplace_mean_estimate([0.5, -1.5, 2.0, 1.0], epsilon=1.0, bound=1.0)
    assert inside.estimate == inside.estimate_raw == 0.5 and not inside.projected
    assert "so estimate_raw = estimate" in str(inside)
    z = np.array([[1.2, -0.4, 0.1, 0.0], [-0.3, 0.2, 0.9, -0.1]])  # n = 2 reports, K = 4 bins
    dens = dpinfer.ldp_histogram_density(z, epsilon=1.0)
    np.testing.assert_allclose(dens.estimate_raw, 4 * z.mean(axis=0))
    assert np.all(dens.estimate >= 0) and dens.estimate.sum() / 4 == pytest.approx(1.0)


def test_array_and_number_protocols():
    krr = dpinfer.krr_frequency_estimate(counts=[50, 30, 20], epsilon=1.0, k=3)
    np.testing.assert_array_equal(np.asarray(krr), krr.estimate)
    assert len(krr) == 3 and krr[0] == krr.estimate[0] and list(krr) == list(krr.estimate)
    assert np.round(krr, 2).tolist() == np.round(krr.estimate, 2).tolist()
    with pytest.raises(TypeError, match="only a single estimate converts to float"):
        float(krr)
    one = dpinfer.rr_proportion_estimate(yes_count=620, n=1000, epsilon=1.0)
    with pytest.raises(TypeError, match="has no len"):
        len(one)
    with pytest.raises(TypeError, match="cannot be indexed"):
        one[0]
    with pytest.raises(TypeError, match="not iterable"):
        list(one)
    with pytest.raises(ValueError):  # read-only arrays: the record cannot drift
        krr.estimate[0] = 0.5


def test_to_dict_is_json_and_to_frame_is_long():
    uni = dpinfer.unary_frequency_estimate(bit_counts=[[600, 400, 300], [500, 500, 100]], n=1000,
                                           epsilon=2.0)
    d = json.loads(json.dumps(uni.to_dict()))
    assert d["estimate_name"] == "category frequencies" and d["n"] == 1000
    np.testing.assert_allclose(d["estimate_raw"], uni.estimate_raw)
    frame = uni.to_frame()
    assert list(frame.columns) == ["data_set", "category", "estimate", "estimate_raw"]
    assert len(frame) == 6
    np.testing.assert_allclose(frame["estimate_raw"], uni.estimate_raw.ravel())
    one = dpinfer.rr_proportion_estimate(yes_count=620, n=1000, epsilon=1.0).to_frame()
    assert list(one.columns) == ["estimate", "estimate_raw"] and len(one) == 1


def test_constructor_checks():
    with pytest.raises(ValueError, match="same shape"):
        PointEstimate([0.5, 0.5], [0.5], "category frequencies", "the probability simplex", "m", 1.0)
    with pytest.raises(TypeError, match="`method` must be a string"):
        PointEstimate(0.5, 0.5, "proportion", "[0, 1]", None, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        PointEstimate(0.5, 0.5, "proportion", "[0, 1]", "m", -1.0)
