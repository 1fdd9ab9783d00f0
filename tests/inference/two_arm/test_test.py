"""The exact two-arm test (two_arm._test and binom2_ump_test).

Expected values: tests/reference/two_arm_values.json (mpmath, 30 digits, direct summation
over the counts and quadrature of the noises, made by tests/reference/make_two_arm.py
without importing dpinfer); the non-private limit (epsilon = 50) against an unconditional
test computed here by enumeration, itself checked against scipy.stats.barnard_exact.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from dpinfer import HTestResult, TulapReleaser, binom2_ump_ci, binom2_ump_test
from dpinfer.inference.two_arm._law import _arm
from dpinfer.inference.two_arm._test import _certify, _critical, _effective, _null, _sup_tail

REF = json.loads((Path(__file__).parents[2] / "reference" / "two_arm_values.json").read_text())
H = 2.0**-40


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_pvalues_against_mpmath(case, alternative):
    res = binom2_ump_test(case["z1"], case["n1"], case["z2"], case["n2"],
                          epsilon=(case["epsilon1"], case["epsilon2"]), effect=case["effect"],
                          margin=case["margin"], alternative=alternative, statistic="difference")
    assert res.pvalue == pytest.approx(float(case[alternative]), rel=1e-10)


def _unconditional(x1, n1, x2, n2, order, tie_weight=1.0):
    """sup_p E_p[w(X1, X2)] under theta1 = theta2 = p, by enumeration (alternative 'greater').

    ``w`` is 1 where ``order`` exceeds its observed value, ``tie_weight`` where it ties: 1 for
    the usual p-value, 1/2 for the mid-p value.
    """
    a, b = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    s, s_obs = order(a, b), order(x1, x2)
    weight = np.where(s > s_obs + 1e-12, 1.0, np.where(s >= s_obs - 1e-12, tie_weight, 0.0))

    def tail(p):
        return float(np.sum(np.outer(stats.binom.pmf(np.arange(n1 + 1), n1, p),
                                     stats.binom.pmf(np.arange(n2 + 1), n2, p)) * weight))

    grid = np.linspace(0.0, 1.0, 401)
    values = [tail(p) for p in grid]
    i = int(np.argmax(values))
    res = optimize.minimize_scalar(lambda p: -tail(p), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 400)]),
                                   method="bounded", options={"xatol": 1e-12})
    return max(values[i], -res.fun)


def _wald_pooled(n1, n2):
    def order(a, b):
        p1, p2 = a / n1, b / n2
        pbar = (a + b) / (n1 + n2)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (p1 - p2) / np.sqrt(pbar * (1 - pbar) * (1 / n1 + 1 / n2))
        return np.where(np.isfinite(z), z, 0.0)
    return order


@pytest.mark.parametrize("x1, n1, x2, n2", [(7, 12, 3, 10), (14, 20, 8, 18)])
def test_enumeration_reproduces_barnard_exact(x1, n1, x2, n2):
    # the helper below is the non-private yardstick; with Barnard's statistic it is scipy's test
    ours = _unconditional(x1, n1, x2, n2, _wald_pooled(n1, n2))
    scipy_p = stats.barnard_exact([[x1, x2], [n1 - x1, n2 - x2]], alternative="greater", n=200).pvalue
    assert ours == pytest.approx(scipy_p, rel=1e-6)


@pytest.mark.parametrize("x1, x2, n", [(7, 3, 12), (14, 8, 20), (30, 21, 40)])
def test_non_private_limit_is_the_unconditional_mid_p_test_of_the_difference(x1, x2, n):
    # epsilon = 50: D = 0 but for 2e-22 of the mass, so n T = X1 - X2 + U1 - U2 with U1 - U2
    # triangular on (-1, 1).  Releases at the bottom of their cells, z_i = x_i - 1/2 + h/2,
    # give n t = x1 - x2 (to 1e-12), and P(n T >= x1 - x2) = P(X1 - X2 > d) + P(X1 - X2 = d) / 2:
    # the non-private unconditional mid-p test of the difference (its supremum over p).
    # (scipy's barnard_exact orders by the pooled Wald statistic instead; the enumeration
    # used here reproduces barnard_exact with that ordering, test above.)
    z1, z2 = x1 - 0.5 + H / 2, x2 - 0.5 + H / 2
    p = binom2_ump_test(z1, n, z2, n, epsilon=50.0, alternative="greater", statistic="difference").pvalue
    expected = _unconditional(x1, n, x2, n, lambda a, b: a - b, tie_weight=0.5)
    assert p == pytest.approx(expected, rel=1e-6)


def test_sup_is_certified():
    arm1, arm2 = _arm(30, 1.0, 0.0, 1), _arm(40, 0.5, 0.0, 1)
    null = _null("difference", -0.1)
    t = 17.3 / 30 - 19.9 / 40
    located = _sup_tail(arm1, arm2, null, t, True).value
    bound = _certify(arm1, arm2, null, t, True, located, rounds=6)
    assert located <= bound <= located * (1 + 1e-2)


@pytest.mark.parametrize("effect, margin", [("difference", 0.0), ("difference", -0.15), ("ratio", 1.5)])
def test_exact_size_over_the_nuisance(effect, margin):
    # reject iff T >= u + s; the rejection probability on a grid of the null line <= alpha
    arm1, arm2 = _arm(20, 1.0, 0.0, 1), _arm(20, 1.0, 0.0, 1)
    null = _null(effect, margin)
    u = _critical(arm1, arm2, null, 0.05, True)
    from dpinfer.inference.two_arm._test import _on_line, _plan
    nu = np.linspace(null.low, null.high, 201)
    size = _on_line(_plan(arm1, arm2, null, u, True), null, nu)
    assert size.max() <= 0.05 + 1e-12
    assert _sup_tail(arm1, arm2, null, u, True).value == pytest.approx(0.05, rel=1e-9)  # level used


def test_release_inputs_and_printing():
    rel = TulapReleaser(epsilon=1.0)
    a, b = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    res = binom2_ump_test(a, b)
    assert isinstance(res, HTestResult)
    same = binom2_ump_test(a.value, 60, b.value, 60, epsilon=1.0)
    assert res.pvalue == same.pvalue and res.conf_int == same.conf_int
    text = str(res)
    assert "difference in proportions" in text and "prop 1 =" in text and "prop 2 =" in text
    assert "parallel composition" in text and res.epsilon == 1.0
    assert binom2_ump_test(a, b, composition="sequential").epsilon == 2.0
    assert res.secure is False and "replace-one" in res.privacy_unit
    assert binom2_ump_test(a, b).pvalue == res.pvalue  # deterministic
    assert res.conf_int.low <= res.estimate_raw <= res.conf_int.high


def test_two_sided_is_twice_the_smaller_one_sided():
    kw = dict(epsilon=1.0)
    g = binom2_ump_test(20.2, 40, 13.1, 40, alternative="greater", **kw).pvalue
    ls = binom2_ump_test(20.2, 40, 13.1, 40, alternative="less", **kw).pvalue
    two = binom2_ump_test(20.2, 40, 13.1, 40, **kw).pvalue
    assert two == pytest.approx(min(1.0, 2 * min(g, ls)), rel=1e-14)
    assert g + ls >= 1.0


def test_symmetry_of_the_arms():
    # swapping the arms mirrors the alternative and the margin
    p = binom2_ump_test(20.2, 40, 13.1, 35, epsilon=(1.0, 2.0), margin=0.05, alternative="greater").pvalue
    q = binom2_ump_test(13.1, 35, 20.2, 40, epsilon=(2.0, 1.0), margin=-0.05, alternative="less").pvalue
    assert p == pytest.approx(q, rel=1e-9)


def test_arrays_give_pvalues():
    out = binom2_ump_test([20.2, 25.0], 40, 13.1, 40, epsilon=1.0, alternative="greater")
    assert out.shape == (2,) and out[1] < out[0]


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(z1=3.0, n1=10, z2=None, n2=10, epsilon=1.0), TypeError, "`z2` is required"),
    (dict(z1=3.0, n1=None, z2=4.0, n2=10, epsilon=1.0), TypeError, "`n1` is required"),
    (dict(z1=3.0, n1=10, z2=4.0, n2=10), TypeError, "`epsilon` is required"),
    (dict(z1=3.0, n1=10, z2=4.0, n2=10, epsilon=1.0, effect="odds"), ValueError, "`effect`"),
    (dict(z1=3.0, n1=10, z2=4.0, n2=10, epsilon=1.0, margin=1.0), ValueError, "`margin`"),
    (dict(z1=3.0, n1=10, z2=4.0, n2=10, epsilon=1.0, effect="ratio", margin=-2.0), ValueError, "`margin`"),
    (dict(z1=3.0, n1=10, z2=4.0, n2=10, epsilon=(1.0, 2.0, 3.0)), ValueError, "`epsilon`"),
])
def test_errors_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        binom2_ump_test(**kwargs)


def test_release_with_numbers_again_is_refused():
    a = TulapReleaser(epsilon=1.0).release(4, 10, rng=3)
    with pytest.raises(ValueError, match="`n2` must not be given"):
        binom2_ump_test(a, z2=a, n2=10)
    with pytest.raises(ValueError, match="`z1` and `z2` must be single values"):
        binom2_ump_ci([1.0, 2.0], 10, 3.0, 10, epsilon=1.0)


def test_effective_statistic_moves_by_the_cells():
    arm = _arm(30, 1.0, 0.0, 1)
    null = _null("ratio", 2.0)
    assert _effective(arm, arm, null, 0.0, True) == pytest.approx(-(H / 2 / 30) * 3)
    assert math.isclose(_effective(arm, arm, null, 0.0, False), (H / 2 / 30) * 3)


@pytest.mark.parametrize("n1, n2, eps, effect, margin, t, upper", [
    (30, 40, (1.0, 0.5), "difference", -0.1, 0.08, True),
    (25, 25, (2.0, 2.0), "difference", 0.2, 0.05, False),
    (20, 35, (1.0, 3.0), "ratio", 0.6, 0.1, True),
    (60, 15, (0.5, 1.0), "ratio", 2.5, -0.3, False),
])
def test_located_supremum_is_not_beaten_by_a_dense_grid(n1, n2, eps, effect, margin, t, upper):
    # an independent search: 1201 points on the null line, no refinement
    from dpinfer.inference.two_arm._test import _on_line, _plan
    arm1, arm2 = _arm(n1, eps[0], 0.0, 1), _arm(n2, eps[1], 0.0, 1)
    null = _null(effect, margin)
    located = _sup_tail(arm1, arm2, null, t, upper).value
    dense = _on_line(_plan(arm1, arm2, null, t, upper), null, np.linspace(null.low, null.high, 1201))
    assert located >= dense.max() * (1 - 1e-13)
    assert located <= dense.max() * (1 + 1e-4)  # and it is a value of the tail, near the grid's best
