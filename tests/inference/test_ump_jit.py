"""The compiled (numba) DP-UMP kernels against the numpy path they replace.

Both paths compute the same sums term by term; they differ in summation order and, in the
compiled window sums, in how log Binom is computed between Loader anchors (see
``dpinfer/inference/_ump_jit.py``), so they agree to rounding: 1e-13 relative is asked
(about 500 ulps; the observed worst is near 1e-14).  The numpy path itself is checked
against 40-digit mpmath sums in ``test_ump.py`` (run with ``DPINFER_NO_NUMBA=1`` to test it
alone); here both paths are run in the same process.
"""

import numpy as np
import pytest

from dpinfer.inference.ump import _kernels as kernels
from dpinfer.inference.ump._intervals import _ci_array

pytest.importorskip("numba")


def _both(func):
    """func() with the compiled kernels, then with the numpy path."""
    assert kernels._USE_JIT and kernels._jit() is not None
    fast = func()
    kernels._USE_JIT = False
    try:
        slow = func()
    finally:
        kernels._USE_JIT = True
    return fast, slow


def _close(fast, slow, rtol):
    fast, slow = np.asarray(fast), np.asarray(slow)
    assert np.array_equal(np.isfinite(fast), np.isfinite(slow))
    finite = np.isfinite(slow)
    # log sums: a relative error e of the sum is an absolute error e of its log; Loader's
    # log pmf itself carries about 1e-16 |log pmf| (a few ulps of |log S| when the terms
    # are as small as the sum), so 5e-15 |log S| is allowed on top (about 20 ulps)
    np.testing.assert_allclose(fast[finite], slow[finite], rtol=5e-15, atol=rtol)


@pytest.mark.parametrize("n", [1, 30, 256, 257, 1000, 10**6, 10**9])
@pytest.mark.parametrize("epsilon,q", [(1.0, 0.0), (0.1, 0.0), (3.0, 0.0), (1.0, 0.02),
                                       (0.05, 1e-6)])
def test_log_sum_greater_agrees(n, epsilon, q):
    rng = np.random.default_rng(n + int(100 * epsilon) + int(1e7 * q))
    size = 300
    p = np.concatenate([rng.uniform(0.001, 0.999, size - 4), [1e-9, 1 - 1e-9, 0.5, 0.3]])
    sd = np.sqrt(n * p * (1 - p)) + 3.0 / epsilon
    z = n * p + rng.normal(0.0, 4.0, size) * sd
    z[:6] = [1e300, -1e300, 1e15, -1e15, 2.0**63, -(2.0**63)]  # beyond int64 (issue 16 note)
    xmin = np.where(rng.random(size) < 0.3, np.floor(rng.uniform(0, n + 1, size)), 0.0)
    log_b = -epsilon
    fast, slow = _both(lambda: kernels._log_sum_greater(z, n, p, log_b, q, xmin))
    _close(fast, slow, 1e-13)


@pytest.mark.parametrize("n", [20, 256, 1000, 10**7])
def test_two_sided_pvalues_agree(n):
    rng = np.random.default_rng(n)
    p0 = rng.uniform(0.01, 0.99, 200)
    z = n * p0 + rng.normal(0.0, 3.0, 200) * np.sqrt(n * p0 * (1 - p0) + 2.0)
    for method in ("asymptotically-unbiased", "equal-tailed"):
        fast, slow = _both(lambda: kernels._log_pvalue(z, n, p0, -1.0, 0.0, "two-sided", method))
        _close(fast, slow, 1e-13)


@pytest.mark.parametrize("n", [40, 5000])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_intervals_agree(n, alternative):
    """Interval ends: the searches stop within 4e-16 relative of the root or where log p is
    within 4e-14 of log alpha, so ends agree to the root's conditioning (1e-9 asked, as in
    ``test_ump.py``)."""
    rng = np.random.default_rng(n)
    z = n * rng.uniform(-0.02, 1.02, 40)
    fast, slow = _both(lambda: _ci_array(z, n, -0.7, 0.0, 0.95, alternative,
                                         "asymptotically-unbiased"))
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-9)


@pytest.mark.parametrize("n,p", [(10**9, 1 - 1e-9), (10**6, 0.999999), (10**9, 0.5)])
def test_log_pmf_next_to_n_against_mpmath(n, p):
    """log Binom(x; n, p) for x within 30 of n, against mpmath at 40 digits: Loader's
    log(x (n - x) / n) is taken from the smaller of x and n - x, so the error stays at
    rounding (1e-13 absolute asked: |log pmf| <= 1e4 here, 1e-16 of it plus a few ulps)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    x = np.arange(n - 30, n, dtype=float)
    P = mpmath.mpf(p)
    ref = np.array([float(mpmath.log(mpmath.binomial(n, int(k)) * P ** int(k)
                                     * (1 - P) ** (n - int(k)))) for k in x])
    np.testing.assert_allclose(kernels._log_pmf(x, n, p), ref, rtol=1e-15, atol=1e-13)


@pytest.mark.parametrize("n", [257, 5000, 10**9, 2**45])
@pytest.mark.parametrize("epsilon", [0.02, 1.0, 12.0, 29.9, 30.5])
def test_linear_window_sums_agree_on_adversarial_rows(n, epsilon):
    """The compiled window sum for q = 0 runs in linear space between anchors (ratios of
    consecutive terms, rescaled to the largest anchor so far).  Rows that stress it: p so
    close to 0 or 1 that the binomial ratio per step is huge (up to n p / (1 - p) ~ 1e28),
    epsilon just below and above the linear path's limit (30), and releases far in both
    tails, where the first anchors lie thousands of e-folds below the running reference.
    Any overflow must fall back to the log-space sum, never give inf or a wrong value."""
    rng = np.random.default_rng(int(epsilon * 10) + n % 1000)
    p = np.concatenate([[1e-12, 1e-6, 1 - 1e-6, 1 - 1e-12, 0.5], rng.uniform(1e-4, 1 - 1e-4, 45)])
    p = np.repeat(p, 4)
    sd = np.sqrt(n * p * (1 - p)) + 3.0 / epsilon
    spread = np.tile([-40.0, -3.0, 3.0, 40.0], p.size // 4)
    z = np.clip(n * p + spread * sd, -50.0, n + 50.0)
    z[::7] = rng.uniform(-20.0, 20.0, z[::7].size)  # releases near 0 whatever p is
    fast, slow = _both(lambda: kernels._log_sum_greater(z, n, p, -epsilon, 0.0))
    _close(fast, slow, 1e-13)
