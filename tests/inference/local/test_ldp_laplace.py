"""Local Laplace mean: variance and coverage for both estimands, arguments.

Monte Carlo assertions state their standard error and allow 4 SE.
"""

import numpy as np
import pytest
from scipy import stats

from dpinfer import (
    ConfidenceInterval,
    LocalLaplaceReleaser,
    local_laplace_mean_ci,
    local_laplace_mean_estimate,
    local_laplace_mean_se,
)


@pytest.mark.parametrize("estimand", ["population", "sample"])
def test_local_laplace_mean_variance_coverage(estimand):
    reps, n, eps, m = 4000, 500, 1.0, 2.0
    rng = np.random.default_rng(np.random.SeedSequence([1111, estimand == "sample"]))
    if estimand == "population":
        x = rng.uniform(-m, 1.0, size=(reps, n))  # mean -0.5, variance 3^2/12
        target, var_x = -0.5, 9 / 12
    else:
        x = np.broadcast_to(np.linspace(-m, m, n), (reps, n))
        target, var_x = 0.0, 0.0
    rel = LocalLaplaceReleaser(eps, m).release(x, rng=rng)
    est = local_laplace_mean_estimate(rel).estimate_raw
    var_true = (var_x + 2 * (2 * m / eps) ** 2) / n
    assert abs(est.mean() - target) <= 4 * np.sqrt(var_true / reps)
    assert abs(est.var(ddof=1) - var_true) <= 4 * var_true * np.sqrt(2 / (reps - 1))
    se = local_laplace_mean_se(rel, estimand=estimand)
    assert abs(np.mean(se**2) - var_true) <= 4 * np.std(se**2) / np.sqrt(reps) + 1e-15
    xbar = x.mean(axis=1)  # the sample estimand is each data set's own mean
    ci = local_laplace_mean_ci(rel, estimand=estimand)
    truth = target if estimand == "population" else xbar
    cover = np.mean((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
    assert abs(cover - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / reps)


def test_local_laplace_scalar_ci_and_arguments():
    z = np.array([0.5, -1.5, 2.0, 1.0])
    ci = local_laplace_mean_ci(z, epsilon=10.0, bound=3.0, estimand="sample", alternative="greater")
    assert isinstance(ci, ConfidenceInterval) and ci.high == 3.0
    assert ci.low == pytest.approx(0.5 - stats.norm.ppf(0.95) * np.sqrt(2) * 0.6 / 2, rel=1e-12)
    # the interval is clipped to [-M, M]
    wide = local_laplace_mean_ci(z, epsilon=0.1, bound=3.0, estimand="sample")
    assert (wide.low, wide.high) == (-3.0, 3.0)
