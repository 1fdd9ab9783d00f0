"""The shared vectorised bracketed root finder (inference/_roots.py)."""

import math

import numpy as np
import pytest

from dpinfer.inference._roots import bisect_predicate, find_roots, first_index, last_rejected


def test_roots_of_many_rows_at_once():
    # g(x) = a - x**3 (positive left of the root): roots a**(1/3), known in closed form
    a = np.array([1e-6, 0.5, 2.0, 27.0, 1000.0])
    calls = []

    def g(x, rows):
        calls.append(rows.size)
        return a[rows] - x**3

    lo, hi = np.zeros(a.size), np.full(a.size, 20.0)
    roots = find_roots(g, lo, hi, a, a - 8000.0, ftol=0.0)
    assert np.allclose(roots, np.cbrt(a), rtol=1e-14, atol=0)
    # full double precision from a bracket of 20 (about 60 halvings): a bounded number of calls
    assert len(calls) < 150 and calls[-1] < a.size  # converged rows leave the batch


def test_decreasing_function_and_tolerances():
    # g = exp(-x) - c with inside at the left end; the absolute bracket tolerance is met
    c = np.array([0.3, 0.01, 0.9])
    roots = find_roots(lambda x, r: np.exp(-x) - c[r], np.zeros(3), np.full(3, 10.0),
                       1.0 - c, np.exp(-10.0) - c, ftol=0.0, xtol=1e-6, xrtol=0.0)
    assert np.allclose(roots, -np.log(c), atol=1e-6)


def test_a_step_function_falls_back_to_bisection():
    # no false-position speed-up on a step; the bisection safeguard still converges
    roots = find_roots(lambda x, r: np.where(x < 0.3, 1.0, -1.0), np.array([0.0]), np.array([1.0]),
                       np.array([1.0]), np.array([-1.0]), ftol=0.0, xtol=1e-12, xrtol=0.0, max_iter=200)
    assert roots[0] == pytest.approx(0.3, abs=1e-12)


def test_bisect_predicate():
    edges = np.array([0.1, 0.55, 0.9])
    found = bisect_predicate(lambda x, rows: x < edges[rows], np.zeros(3), np.ones(3), np.ones(3, bool))
    assert np.allclose(found, edges, atol=1e-15)


def test_scalar_brent():
    from dpinfer.inference._roots import find_root

    assert find_root(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-15, rtol=1e-15) == pytest.approx(2**0.5, rel=1e-15)


@pytest.mark.parametrize("step", [0, 4, 5, 11])
def test_compiled_twin_of_the_two_steps(step):
    # ump/_jit.py repeats illinois_propose / illinois_update in numba: same numbers
    pytest.importorskip("numba")
    from dpinfer.inference._roots import illinois_propose, illinois_update
    from dpinfer.inference.ump._kernels import _jit

    jit = _jit()
    rng = np.random.default_rng(step)
    a, b = rng.uniform(0, 1, 50), rng.uniform(1, 2, 50)
    ga, gb = rng.uniform(0.01, 1, 50), -rng.uniform(0.01, 1, 50)
    ga[:5] = 0.0  # degenerate rows: false position leaves the bracket
    width0 = np.abs(b - a) * rng.uniform(0.3, 1.0, 50)
    side = rng.integers(-1, 2, 50).astype(np.int8)
    gx = rng.normal(0, 1, 50)
    gx[:3] = 0.0
    w_py, w_jit = width0.copy(), width0.copy()
    x_py = illinois_propose(a, b, ga, gb, w_py, step)
    x_jit = jit.illinois_propose(a, b, ga, gb, w_jit, step)
    assert np.array_equal(x_py, x_jit) and np.array_equal(w_py, w_jit)
    state_py = [v.copy() for v in (a, b, ga, gb, side)]
    state_jit = [v.copy() for v in (a, b, ga, gb, side)]
    done_py, value_py = illinois_update(*state_py, x_py, gx)
    done_jit, value_jit = jit.illinois_update(*state_jit, x_jit, gx)
    assert np.array_equal(done_py, done_jit) and np.array_equal(value_py, value_jit)
    for p, j in zip(state_py, state_jit):
        assert np.array_equal(p, j)


def test_newton_roots_against_closed_form():
    # g(x) = x**3 - c on [0, 2] (increasing): roots cbrt(c); the inverse-cdf convention
    # returns the upper end of a bracket at most xtol wide, never below the root
    from dpinfer.inference._roots import newton_roots

    c = np.array([1e-9, 0.001, 0.3, 1.0, 7.9])
    calls = []

    def g(x, rows):
        calls.append(rows.size)
        return x**3 - c[rows], 3.0 * x**2

    roots = newton_roots(g, np.full(c.size, 1.0), np.zeros(c.size), np.full(c.size, 2.0),
                         xtol=1e-13, ftol=0.0)
    assert np.all(roots >= np.cbrt(c) * (1 - 1e-15)) and np.allclose(roots, np.cbrt(c), rtol=0, atol=1e-13)
    assert len(calls) < 100 and calls[-1] < c.size  # converged rows leave the batch


def test_newton_roots_falls_back_to_bisection_on_a_flat_slope():
    # a zero slope (the Newton step is infinite) and a step function: bisection converges
    from dpinfer.inference._roots import newton_roots

    roots = newton_roots(lambda x, r: (np.where(x < 0.3, -1.0, 1.0), np.zeros(x.size)),
                         np.array([0.9]), np.array([0.0]), np.array([1.0]), xtol=1e-12, ftol=0.0)
    assert 0.3 <= roots[0] <= 0.3 + 1e-12


@pytest.mark.parametrize("decreasing", [True, False])
@pytest.mark.parametrize("start", [-40.0, 2.5, 3.0, 90.0])
def test_expand_bracket(decreasing, start):
    from dpinfer.inference._roots import expand_bracket

    sign = 1.0 if decreasing else -1.0
    lo, hi = expand_bracket(lambda x: sign * (3.0 - x), start, 1.0, decreasing)
    assert lo <= 3.0 <= hi and lo < hi


def test_expand_bracket_within():
    from dpinfer.inference._roots import expand_bracket_within

    lo, hi = expand_bracket_within(lambda x: 3.0 - x, 0.0, 0.5, -10.0, 10.0)
    assert lo <= 3.0 <= hi
    assert expand_bracket_within(lambda x: 3.0 - x, 0.0, 0.5, -10.0, 2.0) == (None, None)
    assert expand_bracket_within(lambda x: 3.0 - x, 3.0, 0.5, -10.0, 10.0) == (3.0, 3.0)


@pytest.mark.parametrize("threshold", [1, 2, 17, 45, 1000, 123457])
@pytest.mark.parametrize("start", [1, 30, 5000])
def test_smallest_integer_against_enumeration(threshold, start):
    # a monotone criterion with a gauge; the answer is the enumerated threshold
    from scipy.special import ndtri

    from dpinfer.inference._roots import integer_bracket, smallest_integer

    def power(n):  # increasing in n, crosses 0.8 between threshold - 1 and threshold
        return 1.0 - 0.2 * np.exp(-(n - threshold + 0.5) / (5.0 + 0.1 * threshold))

    def reaches(n):
        return power(n) >= 0.8

    lo, hi = integer_bracket(reaches, start, 10**7)
    assert (lo == 0 or not reaches(lo)) and reaches(hi)
    n = smallest_integer(reaches, lambda m: ndtri(min(power(m), 1 - 1e-16)) - ndtri(0.8), lo, hi)
    assert n == threshold
    assert integer_bracket(lambda m: False, start, 10**7) is None


def test_first_index_against_a_scan():
    # the smallest index of a monotone predicate, against the list's own first True
    for n in (1, 2, 7, 64, 1000):
        for cut in range(0, n, max(1, n // 9)):
            flags = [i >= cut for i in range(n)]
            calls = []

            def holds(j, flags=flags, calls=calls):
                calls.append(j)
                return flags[j]

            assert first_index(holds, -1, n - 1) == flags.index(True)
            assert -1 not in calls and len(calls) <= max(1, n).bit_length() + 1


def test_last_rejected_is_rejected_and_close():
    for edge in (0.0, 0.3, math.pi / 4, 0.999):
        x = last_rejected(lambda v, e=edge: v > e, -1.0, 1.0, 1e-9)
        assert x <= edge < x + 1e-9 + 1e-15
