"""The Dunnett-type adjusted p-value's supremum over the common rate is certified (an upper bound).

Checks at symmetric and boundary points (equal arms, margin 0, a statistic of 0, margins near
the edge of the range, epsilon 0.1 and 5, two and five arms): the certified value is at least
the largest tail on a dense grid of the rate and at most ``RTOL`` above the best value the
refinement found; the curvature bound holds against central second differences of the tail
(the tail itself is checked against mpmath in ``test_many_to_one.py``).
"""

import numpy as np
import pytest

from dpinfer.inference.pairs._dunnett import (
    RTOL,
    certified_sup_max_tail,
    curvature_bound,
    located_sup_max_tail,
    max_tail,
)

CASES = [
    # arms, control, epsilon, margin, u, two-sided
    ((30, 30), 30, 1.0, 0.0, 1.0, True),  # equal arms, margin 0
    ((20, 40), 30, 2.0, 0.0, 1.2, False),
    ((15, 15, 15, 15, 15), 20, 1.0, 0.0, 0.9, True),  # five arms
    ((25, 25), 25, 5.0, 0.85, 0.4, False),  # margin near the edge: theta_0 in [0, 0.15]
    ((25, 25), 25, 5.0, -0.85, 0.4, True),  # and the other edge
    ((12, 10), 15, 0.1, 0.0, 0.3, True),  # epsilon 0.1: the noise dominates
    ((40, 40), 40, 1.0, 0.0, 0.0, True),  # a statistic of 0: the tail is 1
]


def _dense_max(arms, control, eps, margin, u, two, points):
    lo, hi = max(0.0, -margin), min(1.0, 1.0 - margin)
    grid = np.linspace(lo, hi, points)
    return max(max_tail(list(arms), control, [eps] * (len(arms) + 1), float(t), margin, u, two) for t in grid)


@pytest.mark.parametrize("case", CASES)
def test_certified_bound_is_above_a_dense_grid_and_within_rtol_of_the_best(case):
    arms, control, eps, margin, u, two = case
    bound, best = certified_sup_max_tail(list(arms), control, [eps] * (len(arms) + 1), margin, u, two)
    dense = _dense_max(arms, control, eps, margin, u, two, 801)
    assert bound >= dense  # an upper bound of every value on the grid
    assert bound >= best >= dense * (1 - 1e-12)  # the refinement found at least the grid's best
    assert bound <= best * (1 + RTOL) + 1e-15
    assert bound <= 1.0
    located, _ = located_sup_max_tail(list(arms), control, [eps] * (len(arms) + 1), margin, u, two)
    assert bound >= located
    if u == 0.0:
        assert bound == 1.0


@pytest.mark.parametrize("arms, control, margin", [((30, 30), 30, 0.0), ((20, 40), 30, 0.1),
                                                  ((10, 10, 10, 10, 10), 12, 0.0)])
def test_curvature_bound_holds_against_second_differences(arms, control, margin):
    # central second difference with step 1e-3: within O(h^2 p'''') of p'' (tiny against the bound)
    eps = [1.0] * (len(arms) + 1)
    h = 1e-3
    for t in np.linspace(max(0.0, -margin) + 0.02, min(1.0, 1.0 - margin) - 0.02, 9):
        p = [max_tail(list(arms), control, eps, float(t + k * h), margin, 1.0, True) for k in (-1, 0, 1)]
        second = (p[0] - 2 * p[1] + p[2]) / h ** 2
        m = curvature_bound(list(arms), control, margin, float(t - h), float(t + h), p[0], p[2])
        assert abs(second) <= m
