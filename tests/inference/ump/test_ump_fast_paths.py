"""The shortcuts of issue 28 (speed) against independent values and their stated bounds.

* The binomial upper tail summed term by term for n <= 1000 (``_binom_upper_row`` in the
  compiled kernels and their pure-Python twin, ``_binom_upper_direct`` in numpy) against
  40-digit mpmath regularised incomplete beta functions.  Its error is that of Loader's log
  pmf (about 1e-16 of |log pmf| absolute, up to 7e-14 relative observed where the terms
  are about 1e-13) plus at most 3e-15 from the ratios between anchors, so 1e-13 + 1e-15
  |log P| relative is asked.
* The reflection's correction (``_reflection_fix``): its size is at most ``2 n |d|`` in
  log p (proof in its docstring), which is what lets the interval search skip it away from
  log alpha; the two-sided p-value with a ``target`` equals the full one wherever it is
  near the target and is on the same side of it everywhere.
"""

import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from dpinfer.inference.ump import _kernels as kernels
from dpinfer.inference.ump import _sums as _twin


def _tail_cases():
    rng = np.random.default_rng(2028)
    cases = []
    for n in (1, 2, 7, 30, 257, 600, 1000):
        for p in (0.5, 1e-9, 1.0 - 1e-9, 0.3060967757051809, *rng.uniform(0.001, 0.999, 3)):
            sd = math.sqrt(n * p * (1.0 - p))
            ks = {1.0, float(n), float(min(max(math.floor(n * p + 3.0 * sd), 1), n)),
                  float(min(max(math.floor(n * p - 2.0 * sd), 1), n)),
                  *np.floor(rng.uniform(1, n + 1, 2)).tolist()}
            cases += [(n, p, k) for k in sorted(ks)]
    return cases


CASES = _tail_cases()


@pytest.fixture(scope="module")
def mpmath_tails():
    with mpmath.workdps(40):
        return [mpmath.betainc(k, n - k + 1, 0, mpmath.mpf(p), regularized=True)
                for n, p, k in CASES]


def _check(values, refs):
    for (n, p, k), got, ref in zip(CASES, values, refs):
        if ref < mpmath.mpf(10) ** -300:  # the double underflows: nothing to compare
            continue
        rel = float(abs(mpmath.mpf(float(got)) / ref - 1))
        assert rel <= 1e-13 + 1e-15 * float(-mpmath.log(ref)), (n, p, k, rel)


def test_direct_binomial_tail_python_twin_against_mpmath(mpmath_tails):
    values = [_twin.binom_upper(np.array([k]), float(n), np.array([p]))[0] for n, p, k in CASES]
    _check(values, mpmath_tails)


def test_direct_binomial_tail_numpy_against_mpmath(mpmath_tails):
    values = [kernels._binom_upper_direct(np.array([k]), n, np.array([p]))[0]
              for n, p, k in CASES]
    _check(values, mpmath_tails)


def test_direct_binomial_tail_compiled_is_the_twin():
    pytest.importorskip("numba")
    jit = kernels._jit()
    for n in (1, 7, 257, 1000):
        ks = np.array([k for m, _, k in CASES if m == n])
        for p in (0.5, 1e-9, 0.3060967757051809, 0.93):
            pp = np.full(ks.size, p)
            assert np.array_equal(jit.binom_upper(ks, float(n), pp),
                                  _twin.binom_upper(ks, float(n), pp))


def test_first_answer_at_n_1000_imports_no_scipy():
    """The binomial tail of n <= 1000 is summed, so scipy.special (a third of a cold start)
    stays out of a first p-value and interval (timings in ``benchmarks/bench_startup.py``)."""
    code = ("import sys, dpinfer\n"
            "dpinfer.binom_ump_test(312.4, 1000, 0.3, epsilon=1, alternative='greater')\n"
            "dpinfer.binom_ump_ci(312.4, 1000, epsilon=1)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'scipy'}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"]


@pytest.mark.parametrize("n", [3000, 10**6, 10**9])
def test_reflection_correction_is_within_its_bound(n):
    rng = np.random.default_rng(n)
    p0 = rng.uniform(0.01, 0.49, 400)
    zr = n * (1.0 - p0) + rng.normal(0.0, 3.0, 400) * np.sqrt(n * p0 * (1.0 - p0) + 3.0)
    log_s = kernels._log_sum_greater(zr, n, 1.0 - p0, -1.0, 0.0)
    fixed = kernels._reflection_fix(zr, n, p0, -1.0, 0.0, log_s, True)
    d = np.abs((1.0 - (1.0 - p0)) - p0)
    assert np.any(fixed != log_s) or n < 4000  # the correction does run at large n
    assert np.all(np.abs(fixed - log_s) <= 2.0 * n * d + 1e-15 * np.abs(log_s))


@pytest.mark.parametrize("n", [10**6, 10**9])
def test_targeted_two_sided_pvalue_keeps_every_comparison(n):
    rng = np.random.default_rng(n + 1)
    theta = rng.uniform(0.01, 0.49, 600)
    z = n * theta + rng.normal(0.0, 2.5, 600) * np.sqrt(n * theta * (1.0 - theta) + 3.0)
    target = math.log(0.05)
    full = kernels._log_pvalue(z, n, theta, -1.0, 0.0, "two-sided")
    lazy = kernels._log_pvalue(z, n, theta, -1.0, 0.0, "two-sided", target=target)
    assert np.array_equal(full > target, lazy > target)
    near = np.abs(lazy - target) <= 4.0 * n * 2.0**-54 + 1e-12 * (1.0 - target)
    assert np.array_equal(full[near], lazy[near])
    # at the ends of 95% intervals p is alpha to rounding: there the full value is returned
    from dpinfer.inference.ump._intervals import _ci_array

    zz = n * rng.uniform(0.02, 0.98, 20)
    ends = _ci_array(zz, n, -1.0, 0.0, 0.95, "two-sided", "asymptotically-unbiased")
    zz, th = np.repeat(zz, 2), ends.ravel()
    lazy_end = kernels._log_pvalue(zz, n, th, -1.0, 0.0, "two-sided", target=target)
    full_end = kernels._log_pvalue(zz, n, th, -1.0, 0.0, "two-sided")
    assert np.all(np.abs(full_end - target) < 1e-10)  # a few ulps of theta at n = 1e9
    assert np.array_equal(full_end, lazy_end)
