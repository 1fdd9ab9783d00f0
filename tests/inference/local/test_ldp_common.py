"""Kernels shared by the local-DP inference: simplex projection, extreme epsilon."""

import numpy as np
import pytest
from scipy import optimize

from dpinfer import (
    krr_frequency_estimate,
    ldp_histogram_bins,
    project_to_simplex,
    rr_proportion_estimate,
    unary_frequency_ci,
    unary_frequency_estimate,
)


@pytest.mark.parametrize("seed", range(5))
def test_project_to_simplex_kkt_and_optimum(seed):
    v = np.random.default_rng(seed).normal(0, 1, size=7)
    w = project_to_simplex(v)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    # KKT: v - w is constant (= theta) on the support and v <= theta off it
    theta = (v - w)[w > 0]
    assert np.ptp(theta) <= 1e-12
    assert np.all(v[w == 0] <= theta[0] + 1e-12)
    # an independent solver
    res = optimize.minimize(lambda u: np.sum((u - v) ** 2), np.full(7, 1 / 7), method="SLSQP",
                            bounds=[(0, 1)] * 7, constraints={"type": "eq", "fun": lambda u: u.sum() - 1},
                            options={"ftol": 1e-14, "maxiter": 500})
    np.testing.assert_allclose(w, res.x, atol=1e-6)


def test_extreme_epsilon_is_finite_and_warning_free():
    # pytest turns RuntimeWarnings into errors: overflow in exp would fail here
    assert rr_proportion_estimate(yes_count=620, n=1000, epsilon=710.0).estimate_raw == pytest.approx(0.62)
    np.testing.assert_allclose(unary_frequency_estimate(bit_counts=[600, 400, 300], n=1000, epsilon=1420.0).estimate_raw,
                               [0.6, 0.4, 0.3])
    assert np.all(np.isfinite(unary_frequency_ci(bit_counts=[600, 400, 300], n=1000, epsilon=710.0)))
    np.testing.assert_allclose(krr_frequency_estimate(counts=[6, 4], k=2, epsilon=800.0).estimate_raw, [0.6, 0.4])
    assert ldp_histogram_bins(10_000, 1e12) == 10_000  # capped at n


def test_project_to_simplex_huge_inputs():
    np.testing.assert_allclose(project_to_simplex(9007199254740994.0), [1.0])
    np.testing.assert_allclose(project_to_simplex([1e16, 0.0, 3.0]), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(project_to_simplex([1e16 + 2, 1e16]), [1.0, 0.0])


def test_project_to_simplex_vectorised_and_fixed_points():
    p = np.array([[0.2, 0.8], [1.0, 0.0]])
    np.testing.assert_allclose(project_to_simplex(p), p, atol=1e-15)
    np.testing.assert_allclose(project_to_simplex([5.0]), [1.0])
