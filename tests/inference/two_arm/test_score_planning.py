"""Planning under the score ordering: unchanged numbers after the speed-up, one ordering per search.

Expected values:

* ``BEFORE``: powers and sample sizes recorded with main's code (commit 29c6b46) before the
  speed-up of issue 42 (this file's first commit), to check that the faster path computes
  the same numbers (powers to 1e-12, sample sizes exactly).  They are a regression table,
  not an independent check: that is ``tests/reference/make_two_arm_power.py`` (enumeration
  without dpinfer, tested in ``test_ordering_power.py``), unchanged.
* The search across the score ordering's lattice limit (``MAX_CELLS`` made small): the
  definition of the sample size under the one ordering the result names (power at ``n``
  reaches the target, at ``n - 1`` it does not, both by ``binom2_ump_power`` with that
  ``statistic``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpinfer import binom2_ump_power, binom2_ump_sample_size
from dpinfer.inference.two_arm import _arguments

#: (call, arguments, value recorded before the speed-up)
BEFORE = [
    ("power", dict(theta1=0.3, theta2=0.25, n1=1277, n2=1277, epsilon=1.0), 0.8000378880489913),
    ("power", dict(theta1=0.35, theta2=0.20, n1=150, n2=150, epsilon=1.0), 0.8076547632576885),
    ("power", dict(theta1=0.45, theta2=0.3, n1=300, n2=320, epsilon=0.5, margin=0.05, alternative="greater"),
     0.7781883513991921),
    ("power", dict(theta1=0.2, theta2=0.3, n1=250, n2=250, epsilon=2.0, effect="ratio", margin=0.9,
                   alternative="less"), 0.5879524560439777),
    ("power", dict(theta1=0.5, theta2=0.3, n1=120, n2=140, epsilon=1.0, effect="odds-ratio", margin=1.2),
     0.7102099978486701),
    ("power", dict(theta1=0.35, theta2=0.20, n1=[90, 110, 400], n2=100, epsilon=1.0),
     [0.5875348996353406, 0.6277022189234805, 0.7897419341427713]),
    ("size", dict(theta1=0.35, theta2=0.20, epsilon=1.0), (147, 147)),
    ("size", dict(theta1=0.6, theta2=0.4, epsilon=1.0), (109, 109)),
    ("size", dict(theta1=0.5, theta2=0.3, epsilon=1.0, ratio=2.0, margin=0.05, alternative="greater"), (108, 216)),
]


@pytest.mark.parametrize("call, kwargs, expected", BEFORE)
def test_the_same_numbers_as_before_the_speed_up(call, kwargs, expected):
    if call == "power":
        kwargs = dict(kwargs)
        args = [kwargs.pop(k) for k in ("theta1", "theta2", "n1", "n2")]
        got = binom2_ump_power(*args, **kwargs)
        np.testing.assert_allclose(np.asarray(got, float), expected, rtol=0, atol=1e-12)
    else:
        kwargs = dict(kwargs)
        got = binom2_ump_sample_size(kwargs.pop("theta1"), kwargs.pop("theta2"), **kwargs)
        assert tuple(got) == expected


def test_the_slow_setting_of_the_benchmark():
    # 0.3 vs 0.25 (16 s before the speed-up): 1277 per arm, as recorded
    assert tuple(binom2_ump_sample_size(0.3, 0.25, epsilon=1.0)) == (1277, 1277)


def _power(n, statistic):
    return float(binom2_ump_power(0.6, 0.4, n, n, epsilon=1.0, statistic=statistic))


@pytest.mark.parametrize("cells, expected, ordering", [
    (61 * 61, 105, "difference"),     # the score limit, 60 per arm, is far below its answer
    (108 * 108, 105, "difference"),   # 107 per arm: the score needs 109, the difference 105
    (121 * 121, 109, "score"),        # 120 per arm: the score reaches within its lattice
])
def test_a_plan_across_the_score_limit_uses_one_ordering(monkeypatch, cells, expected, ordering):
    monkeypatch.setattr(_arguments, "MAX_CELLS", cells)
    for statistic in (None, "score"):
        size = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, statistic=statistic)
        n = size[0]
        assert tuple(size) == (expected, expected)
        # the definition, under the one ordering the result names
        assert _power(n, ordering) >= 0.8 > _power(n - 1, ordering)
        assert f"({ordering} ordering" in size.method and f"({ordering} ordering" in str(size)
        assert size.to_dict()["statistic"] == ordering
        if ordering == "difference":
            limit = math.isqrt(cells) - 1
            assert (f"does not reach the power within {limit} per arm; test with statistic='difference'"
                    in size.method)
            assert tuple(binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, statistic="difference")) == tuple(size)
            # the score ordering at its limit does not reach the power (why it was not used)
            assert _power(limit, "score") < 0.8


def test_the_comparator_without_noise_plans_the_same_ordering(monkeypatch):
    monkeypatch.setattr(_arguments, "MAX_CELLS", 61 * 61)
    size = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0)
    # epsilon = 1e9: the test without noise, as the comparator computes it (dpinfer.inference._price)
    alone = binom2_ump_sample_size(0.6, 0.4, epsilon=1e9, statistic="difference")
    assert "(difference ordering)" in alone.method and size.nonprivate_n == tuple(alone)
    # the plan's figure draws the ordering planned for, the difference's, also below the lattice's limit
    # (60 per arm here), where the default test would be the score's
    for n in (40, tuple(size)[0]):
        assert size._curve(n) == pytest.approx(float(binom2_ump_power(0.6, 0.4, n, n, epsilon=1.0,
                                                                      statistic="difference")), abs=1e-12)


def test_binomial_rows_are_scipys_own_doubles():
    from scipy import stats

    from dpinfer.inference.two_arm import _law

    theta = np.concatenate([np.random.default_rng(3).random(20), [1e-12, 0.5, 1 - 1e-12]])
    for n in (1, 7, 301, 1277):
        x = np.arange(n + 1)
        assert np.array_equal(_law._binomial(n, theta), stats.binom.pmf(x[None, :], n, theta[:, None]))
    # theta at 0 or 1 takes scipy's checked path
    assert np.array_equal(_law._binomial(4, np.array([0.0, 1.0])), stats.binom.pmf(np.arange(5)[None, :], 4,
                                                                                     np.array([[0.0], [1.0]])))


@pytest.mark.parametrize("upper", [True, False])
def test_a_whole_level_is_the_tie_sums_with_every_tie_in(monkeypatch, upper):
    # the shortcut (ties counted on the clipped lattice) against the tie sums it skips, at a cut
    # below every linear value: each tying cell then enters with weight G = 1
    from dpinfer.inference.two_arm import _score
    from dpinfer.inference.two_arm._planning import _arms
    from dpinfer.inference.two_arm._supremum import _null

    arm1, arm2 = _arms(30, 40, 1.0, 0.0, 1, "tulap")
    null = _null("difference", 0.05)
    levels = np.unique(_score._order(arm1, arm2, null))
    nu = np.linspace(0.0, 0.95, 7)
    for level in levels[[5, len(levels) // 2, -5]]:
        cut = _score._Cut(float(level), -1e6 if upper else 1e6)
        fast = _score._ScorePlan(arm1, arm2, null, cut, upper)(nu + 0.05, nu)
        with monkeypatch.context() as m:
            m.setattr(_score, "_linear_reach", lambda arms, a: (-np.inf, np.inf))
            slow = _score._ScorePlan(arm1, arm2, null, cut, upper)(nu + 0.05, nu)
        np.testing.assert_allclose(fast, slow, rtol=1e-13, atol=1e-300)


def test_the_lower_side_of_a_mirrored_test_is_the_upper_side_negated():
    from dpinfer.inference.two_arm import _critical
    from dpinfer.inference.two_arm._planning import _arms
    from dpinfer.inference.two_arm._supremum import _null

    arm1, arm2 = _arms(60, 60, 1.0, 0.0, 1, "tulap")
    null = _null("difference", 0.0)
    assert _critical._mirrored(arm1, arm2, null)
    up = _critical._critical_score(arm1, arm2, null, 0.025, True)
    low = _critical._critical_score(arm1, arm2, null, 0.025, False)
    assert low.level == -up.level and abs(low.t + up.t) <= 1e-12
    # not mirrored: a margin, or arms of two laws
    assert not _critical._mirrored(arm1, arm2, _null("difference", 0.05))
    assert not _critical._mirrored(*_arms(60, 60, (1.0, 0.5), 0.0, 1, "tulap"), null)


def test_a_normal_start_far_beyond_the_limit_plans_the_difference_at_once(monkeypatch):
    # limit 20 per arm; the normal approximation starts near 105: the score is not tried
    monkeypatch.setattr(_arguments, "MAX_CELLS", 21 * 21)
    size = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0)
    assert tuple(size) == (105, 105) and size.to_dict()["statistic"] == "difference"
    assert "ends at 20 per arm, below half the normal approximation's" in size.method
    assert size.method.endswith("test with statistic='difference')")
