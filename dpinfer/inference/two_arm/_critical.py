"""Critical values and exact power of the two-arm test under either ordering (kernels).

The linear ordering's are :func:`._supremum._critical` and :func:`._supremum._power`; the score
ordering's critical value is a point ``(level, u)`` of the lexicographic order: the most
extreme level of ``g`` whose supremum tail (ties included) exceeds alpha, then the cut-off
``u`` of the linear statistic among that level's ties (the same alternation of a root at
the maximising nuisance and a supremum as :func:`._supremum._critical`).
"""

from __future__ import annotations


import numpy as np
from .._roots import find_root, first_index
from ._score import _Cut, _order, _ScorePlan
from ._supremum import _critical, _on_line, _power, _reach_scale, _sup_tail

__all__ = []  # private module

#: a linear cut-off beyond every value of the linear statistic (all ties in, or all out)
_FAR = 1e6


def _critical_score(arm1, arm2, null, level, upper):
    """The smallest ``_Cut`` (largest, lower tail) whose supremum tail is at most ``level``."""
    target = level * (1.0 - 1e-10)
    levels = np.unique(_order(arm1, arm2, null))
    if upper:
        levels = levels[::-1]
    inside = -_FAR if upper else _FAR  # the whole level in the tail

    def sup_at(j, t=inside, above=None):
        return _sup_tail(arm1, arm2, null, _Cut(float(levels[j]), t), upper, above=above)

    # the first level (from the most extreme) whose whole tail exceeds the target: bisection,
    # the tails grow with j; each step asks only whether the supremum exceeds the target
    # sup_at(-1) <= target (no level), sup_at(last) = 1
    hi = first_index(lambda j: sup_at(j, above=target).value > target, -1, len(levels) - 1)
    span = 1.0 + null.coefficient + 2.0 * (_reach_scale(arm1) + null.coefficient * _reach_scale(arm2))
    end = span if upper else -span  # beyond every linear value: only the levels above the cut
    nu = sup_at(hi).nu
    while True:
        cut_level, start = float(levels[hi]), inside
        for _ in range(20):
            def gap(x, nu=nu, cut_level=cut_level):
                tail = _ScorePlan(arm1, arm2, null, _Cut(cut_level, x), upper)
                return float(_on_line(tail, null, nu)[0]) - target

            # gap(start) > 0 here: start is a cut whose supremum at this nu exceeds the level
            if gap(end) > 0.0:
                break  # the levels above alone exceed the target at this nu (the located
                # supremum of the bisection missed it): move to the next more extreme level
            u = find_root(gap, min(start, end), max(start, end), xtol=1e-15, rtol=1e-15, maxiter=100)
            sup = _sup_tail(arm1, arm2, null, _Cut(cut_level, u), upper)
            if sup.value <= level:
                return _Cut(cut_level, u)
            nu, start = sup.nu, u
        else:
            return _Cut(cut_level, u)
        hi -= 1  # hi > 0: above the most extreme level nothing is left (gap(end) < 0)


def _exact_power(arm1, arm2, null, theta1, theta2, alpha, alternative, statistic):
    """Exact rejection probability of the level-``alpha`` test with the given ordering."""
    if statistic == "difference":
        return _power(arm1, arm2, null, theta1, theta2, alpha, alternative)
    theta1 = np.atleast_1d(np.asarray(theta1, float))
    theta2 = np.atleast_1d(np.asarray(theta2, float))
    shift = arm1.half_step / arm1.n + null.coefficient * arm2.half_step / arm2.n
    out = np.zeros(np.broadcast(theta1, theta2).shape)
    one_sided = alpha / 2.0 if alternative == "two-sided" else alpha
    found = None
    for upper, side in ((True, "greater"), (False, "less")):
        if alternative in (side, "two-sided"):
            if found is not None and _mirrored(arm1, arm2, null):
                cut = _Cut(-found.level, -found.t)  # the lower side is the upper one, arms swapped
            else:
                cut = found = _critical_score(arm1, arm2, null, one_sided, upper)
            cut = _Cut(cut.level, cut.t + (shift if upper else -shift))
            out = out + _ScorePlan(arm1, arm2, null, cut, upper)(theta1, theta2)
    return np.clip(out, 0.0, 1.0)


def _mirrored(arm1, arm2, null):
    """Whether the lower side's critical value is the upper side's negated: no difference
    between arms of one law, and an order with ``g(j1, j2) = -g(j2, j1)`` exactly (checked).

    Swapping the arms then maps ``(g, T_lin)`` to ``(-g, -T_lin)`` and the null line
    ``theta1 = theta2`` to itself, so the lower tail beyond ``(-level, -t)`` is the upper tail
    beyond ``(level, t)`` at every nuisance value, and the level search and root of the lower
    side would repeat the upper side's (to rounding): half a two-sided power's work.
    """
    if null.effect != "difference" or null.margin != 0.0 or arm1 != arm2:
        return False
    order = _order(arm1, arm2, null)
    return bool(np.array_equal(order, -order.T))


def _critical_of(arm1, arm2, null, level, upper, statistic):
    """The critical value under either ordering (a number, or a ``_Cut`` for the score)."""
    if statistic == "difference":
        return _critical(arm1, arm2, null, level, upper)
    return _critical_score(arm1, arm2, null, level, upper)


