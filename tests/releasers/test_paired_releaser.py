"""PairedTableReleaser: the exact privacy of the released pair, its grid, the budget, the refusals."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpinfer.distributions._tulap_law import tulap_grid
from dpinfer import BudgetExceededError, PairedTableReleaser, PrivacyBudget, Tulap


def _neighbours(table):
    """Every replace-one neighbour of a 2 x 2 table: one pair moved from one cell to another."""
    flat = np.asarray(table).reshape(4)
    out = []
    for a in range(4):
        for b in range(4):
            if a != b and flat[a] > 0:
                other = flat.copy()
                other[a] -= 1
                other[b] += 1
                out.append(other.reshape(2, 2))
    return out


def _log_density(table, zd, zs, law):
    """Log density of the continuous release at (zd, zs): two independent Tulap noises."""
    t = np.asarray(table)
    d, s = t[1, 0] - t[0, 1], t[1, 0] + t[0, 1]
    return law.logpdf(zd - d) + law.logpdf(zs - s)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5])
def test_neighbouring_density_ratios_are_at_most_e_epsilon(epsilon):
    # the released law is the grid version of two independent Tulap(epsilon / 2) noises: on
    # every grid cell the mass is the continuous law's mass of the cell, so the ratio of the
    # masses of a cell under neighbours is at most the largest density ratio over the cell;
    # the density is constant on unit cells (Awan & Slavkovic 2018, Def. 2.3), so a grid of
    # points at the unit cells' midpoints and edges covers every value the ratio takes
    rel = PairedTableReleaser(epsilon)
    law = Tulap.from_privacy(rel.unit_epsilon)
    assert 2 * Fraction(rel.unit_epsilon) <= Fraction(epsilon)
    points = np.arange(-12.0, 12.0, 0.25) + 0.125
    zd, zs = np.meshgrid(points, points + 6.0)
    worst = -np.inf
    for table in ([[5, 3], [2, 7]], [[0, 4], [0, 0]], [[3, 0], [0, 3]]):
        for other in _neighbours(table):
            ratio = _log_density(table, zd, zs, law) - _log_density(other, zd, zs, law)
            worst = max(worst, float(np.max(ratio)))
    assert worst <= epsilon * (1 + 1e-12)
    assert worst >= epsilon * (1 - 1e-9)  # tight: a pair moved between the discordant cells


def test_release_is_on_the_grid_and_centred_on_the_discordance():
    rel = PairedTableReleaser(1.0).release(np.tile([[40, 5], [15, 40]], (4000, 1, 1)), rng=3)
    zd, zs = rel.value[:, 0], rel.value[:, 1]
    law = Tulap.from_privacy(PairedTableReleaser(1.0).unit_epsilon)
    se = math.sqrt(law.var() / 4000)
    assert abs(zd.mean() - 10) < 4 * se and abs(zs.mean() - 20) < 4 * se
    # every output an odd multiple of the grid's half step, whatever the counts
    bits = tulap_grid(200, PairedTableReleaser(1.0).unit_epsilon, 0.0).bits
    assert np.all(np.mod(rel.value * 2.0 ** (bits + 1), 2) == 1)
    assert rel.kind == "paired" and rel.n == 100 and rel.sensitivity == 2.0 and rel.delta == 0.0
    assert "one pair" in rel.privacy_unit


def test_budget_is_charged_before_drawing():
    budget = PrivacyBudget(1.5)
    PairedTableReleaser(1.0).release([[3, 1], [2, 4]], budget=budget, rng=1)
    assert budget.spent_epsilon == 1.0
    with pytest.raises(BudgetExceededError):
        PairedTableReleaser(1.0).release([[3, 1], [2, 4]], budget=budget, rng=1)
    assert budget.spent_epsilon == 1.0


@pytest.mark.parametrize("table, error, match", [
    ([[1, 2, 3], [4, 5, 6]], ValueError, r"`table` must have shape \(2, 2\)"),
    ([[1, 2.5], [3, 4]], ValueError, "whole numbers"),
    ([[1, -2], [3, 4]], ValueError, "counts >= 0"),
    ([[0, 0], [0, 0]], ValueError, "at least one pair"),
    ([[[1, 2], [3, 4]], [[1, 2], [3, 5]]], ValueError, "one total n"),
    ([["a", 2], [3, 4]], TypeError, "`table`"),
])
def test_bad_tables_are_refused_by_position(table, error, match):
    with pytest.raises(error, match=match):
        PairedTableReleaser(1.0).release(table, rng=1)


def test_bad_epsilon_is_refused():
    with pytest.raises(ValueError, match="`epsilon` must be"):
        PairedTableReleaser(-1.0)
