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


def test_twins_give_the_compiled_doubles():
    """The pure-Python twins (``_twin``, run for a first small sum before numba is loaded)
    return exactly the compiled kernels' doubles, truncated laws and lower limits included."""
    from dpinfer.inference.ump import _jit, _sums as _twin

    rng = np.random.default_rng(28)
    for _ in range(150):
        n = int(rng.integers(1, 257))
        log_b = -float(np.exp(rng.uniform(np.log(0.01), np.log(20.0))))
        q = float(rng.choice([0.0, 0.0, 1e-6, 0.01, 0.3]))
        size = int(rng.integers(1, 4))
        z = rng.uniform(-10.0, n + 10.0, size)
        z[rng.random(size) < 0.2] = np.round(z[0]) + 0.5  # offsets on the kinks
        p = rng.uniform(1e-4, 1.0 - 1e-4, size)
        xmin = np.where(rng.random(size) < 0.3, rng.integers(0, n + 1, size), 0).astype(float)
        log_c = kernels._log_choose(n)[1]
        assert np.array_equal(_twin.log_sum_full(z, n, p, log_b, q, xmin, log_c),
                              _jit.log_sum_full(z, n, p, log_b, q, xmin, log_c))
        assert np.array_equal(_twin.log_two_sided_full(z, n, p, log_b, q, log_c),
                              _jit.log_two_sided_full(z, n, p, log_b, q, log_c))


def test_stored_normal_quantiles_are_scipys():
    from scipy.special import ndtri

    from dpinfer.inference.ump._intervals import _UPPER_NORMAL_QUANTILE

    for level in (0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999):
        a = float(0.5 * np.exp(np.log(1.0 - level)))
        assert _UPPER_NORMAL_QUANTILE[a] == float(-ndtri(a))
    assert len(_UPPER_NORMAL_QUANTILE) == 7


def test_first_small_answer_loads_neither_numba_nor_scipy():
    """A fresh process's first p-value and interval at small n run the twins: the imports
    that dominate a cold start (numba, scipy) stay out (issue 28; timings in
    ``benchmarks/bench_startup.py``)."""
    import subprocess
    import sys

    code = ("import sys, dpinfer\n"
            "r = dpinfer.binom_ump_test(23.4, 60, 0.25, epsilon=1, alternative='greater')\n"
            "ci = dpinfer.binom_ump_ci(23.4, 60, epsilon=1)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'scipy'}))\n"
            "ci = dpinfer.binom_ump_ci(312.4, 1000, epsilon=1)\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "False"]  # n = 1000: scipy's betainc, still no numba


def test_windowed_twins_give_the_compiled_doubles():
    """The same for the windowed sums of n > 256 (linear-space and log-space windows,
    truncated laws, the closed-form flag), the right tail's betainc given to both."""
    from scipy import special

    from dpinfer.inference.ump import _jit, _sums as _twin

    rng = np.random.default_rng(2028)
    for _ in range(120):
        n = int(rng.choice([257, 1000, 10**5, 10**7]))
        log_b = -float(np.exp(rng.uniform(np.log(0.01), np.log(40.0))))
        q = float(rng.choice([0.0, 0.0, 1e-6, 0.01, 0.3]))
        size = int(rng.integers(1, 4))
        p = rng.uniform(1e-4, 1.0 - 1e-4, size)
        z = n * p + rng.normal(0.0, 4.0, size) * (np.sqrt(n * p * (1 - p)) + 3.0 / -log_b)
        xmin = np.where(rng.random(size) < 0.3, np.floor(rng.uniform(0, n + 1, size)), 0.0)
        big_k = kernels._tail_width(log_b, q)
        c_q = float(kernels._truncation_half_width(log_b, q))
        hi, ks = _jit.right_start(z, float(n), xmin, big_k)
        for a, b in zip(_twin.right_start(z, float(n), xmin, big_k), (hi, ks)):
            assert np.array_equal(a, b)
        upper = special.betainc(ks, n - ks + 1.0, p)
        for a, b in zip(_twin.log_sum_interior(z, n, p, log_b, q, xmin, c_q, upper, hi),
                        _jit.log_sum_interior(z, n, p, log_b, q, xmin, c_q, upper, hi)):
            assert np.array_equal(a, b, equal_nan=True)
