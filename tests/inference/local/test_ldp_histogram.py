"""Local-DP histogram: the bin-count rule, the MISE formula, unbiasedness of the density.

Monte Carlo assertions state their standard error and allow 4 SE.
"""

import numpy as np
import pytest
from _simplex_reference import simplex_shift as _simplex_shift
from scipy import integrate, stats

from dpinfer import LDPHistogramReleaser, ldp_histogram_bins, ldp_histogram_density


def test_ldp_histogram_bins_rule():
    assert ldp_histogram_bins(10_000, 1.0) == 6  # (1e4 / 8)^(1/4) = 5.95
    assert ldp_histogram_bins(20_000, 1.0) == 7  # 7.07 (issue 18: the old rule gave 12)
    assert ldp_histogram_bins(10_000, 1.0, beta=0.5) == round((1e4 / 8) ** (1 / 3))
    assert ldp_histogram_bins(1, 0.01) == 1


_S6 = 1 / 6
_Z6 = stats.norm.cdf(3) - stats.norm.cdf(-3)
# int f^2 of N(1/2, (1/6)^2) truncated to [0, 1], by quadrature (relative error ~1e-13)
_F2_NORMAL = integrate.quad(lambda x: (stats.norm.pdf((x - 0.5) / _S6) / _S6 / _Z6) ** 2, 0, 1,
                            epsabs=1e-13)[0]


def _mise(kind, k, n, eps):
    """Exact MISE of the unprojected LDP histogram with k bins (derived here, not in the package):
    int f^2 - k S + k (1 - S) / n + 8 k^2 / (n eps^2), S = sum p_j^2 (bias + binomial + Laplace(2/eps))."""
    e = np.arange(k + 1) / k
    if kind == "linear":  # f(x) = 2x: p_j = ((j+1)^2 - j^2) / k^2, int f^2 = 4/3
        p, f2 = np.diff(e**2), 4.0 / 3.0
    else:  # N(1/2, (1/6)^2) truncated to [0, 1]
        p, f2 = np.diff(stats.norm.cdf((e - 0.5) / _S6)) / _Z6, _F2_NORMAL
    big_s = np.sum(p**2)
    return f2 - k * big_s + k * (1 - big_s) / n + 8 * k**2 / (n * eps**2)


@pytest.mark.parametrize("kind", ["linear", "normal"])
def test_ldp_histogram_bins_within_1_5_of_grid_minimal_mise(kind):
    # Issue 18, item 4: for n eps^2 >= 500 the rule's MISE is within 1.5x (measured: 1.29 / 1.28)
    # of the minimum over K = 1..400, for f(x) = 2x and a normal-shaped density.
    worst = 0.0
    for n in [1000, 10_000, 100_000, 1_000_000, 10**7]:
        for eps in [0.5, 1.0, 2.0, 4.0]:
            if n * eps**2 < 500:  # three bins or fewer: see the docstring (up to 2.1x there)
                continue
            best = min(_mise(kind, k, n, eps) for k in range(1, 400))
            worst = max(worst, _mise(kind, ldp_histogram_bins(n, eps), n, eps) / best)
    assert worst <= 1.5


def test_ldp_histogram_mise_formula_by_simulation():
    # The exact MISE formula above against simulated releases of f(x) = 2x (seeded):
    # 400 data sets of n = 2000 at k = 5, eps = 1; 4 SE of the mean ISE.
    reps, n, k, eps = 400, 2000, 5, 1.0
    rng = np.random.default_rng(18)
    x = np.sqrt(rng.random((reps, n)))  # density 2x
    dens = ldp_histogram_density(LDPHistogramReleaser(eps, k).release(x, rng=rng)).estimate_raw
    # ISE = int (f_hat - 2x)^2 over each bin [a, b]: closed form of a quadratic.
    a, b = np.arange(k) / k, np.arange(1, k + 1) / k
    ise = np.sum(dens**2 / k - 2 * dens * (b**2 - a**2) + 4 * (b**3 - a**3) / 3, axis=1)
    assert abs(ise.mean() - _mise("linear", k, n, eps)) <= 4 * ise.std(ddof=1) / np.sqrt(reps)


def test_ldp_histogram_density_unbiased():
    # heights K * mean(Z_j); 2000 reps of n = 400 values from Beta(2, 2)
    reps, n, k, eps = 2000, 400, 4, 1.0
    rng = np.random.default_rng(1212)
    x = rng.beta(2, 2, size=(reps, n))
    dens = ldp_histogram_density(LDPHistogramReleaser(eps, k).release(x, rng=rng)).estimate_raw
    edges = np.linspace(0, 1, k + 1)
    pj = np.diff(stats.beta.cdf(edges, 2, 2))
    sd = k * np.sqrt((pj * (1 - pj) + 2 * (2 / eps) ** 2) / n)
    assert np.all(np.abs(dens.mean(axis=0) - k * pj) <= 4 * sd / np.sqrt(reps))
    assert np.all(np.abs(dens.std(axis=0, ddof=1) - sd) <= 4 * sd / np.sqrt(2 * (reps - 1)))
    one = ldp_histogram_density(LDPHistogramReleaser(eps, k).release(x[0], rng=1))
    proj = one.estimate
    assert np.all(proj >= 0) and proj.sum() / k == pytest.approx(1.0)
    # the projection of the bin probabilities, written out: K (v - tau)_+ with sum 1
    v = one.estimate_raw / k
    tau = _simplex_shift(v)
    np.testing.assert_allclose(proj, k * np.maximum(v - tau, 0.0), atol=1e-12)
