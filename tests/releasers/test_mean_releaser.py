"""MeanReleaser: the exact law of its output for neighbouring data, its grid, records and errors.

The exact privacy check: the noisy integer is ``T = U + D`` with ``U`` the sum of the
per-person grid integers and ``D`` discrete Laplace, ``P(D = d) = (1 - r) / (1 + r) r**|d|``,
``r = exp(-lam)``.  The test recovers ``U`` (noise switched off) and ``lam`` (the sampler's
argument) from the releaser itself, recomputes ``U`` independently in exact rationals from
the definition (clip, scale to ``[0, 2**g]``, round), and evaluates the two laws of ``T``
for neighbouring data sets with mpmath at 50 digits over a window of outputs: the log ratio
never exceeds epsilon.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpinfer import MeanReleaser, PrivacyBudget, Release
from dpinfer.distributions._laplace_grid import grid_bits
from dpinfer.releasers import mean as mean_module


def _grid_integer(x, lower, upper, g, square=False):
    """The per-person integer in exact rationals (round half to even, as numpy's rint)."""
    c = min(max(Fraction(x), Fraction(lower)), Fraction(upper))
    if square:
        half = (Fraction(upper) - Fraction(lower)) / 2
        t = ((c - Fraction(lower) - half) / half) ** 2
    else:
        t = (c - Fraction(lower)) / (Fraction(upper) - Fraction(lower))
    return round(t * 2**g)


class _Recorder:
    """Stands in for the discrete Laplace sampler: records lam, returns zero noise."""

    def __init__(self):
        self.lams = []

    def __call__(self, bits, lam, size):
        self.lams.append(lam)
        return np.zeros(size, dtype=np.int64)


def _noiseless(releaser, x, monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr(mean_module, "_discrete_laplace", rec)
    rel = releaser.release(np.asarray(x, dtype=float), rng=0)
    monkeypatch.undo()
    return rel, rec.lams


def _log_pmf(t, u, lam):
    r = mpmath.exp(-lam)
    return mpmath.log((1 - r) / (1 + r)) - lam * abs(t - u)  # log of (1 - r) / (1 + r) r**|t - u|


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("spread", [False, True])
@pytest.mark.parametrize(("x", "x_prime"), [
    ([-2.0, 0.5, 1.0, 2.9], [3.0, 0.5, 1.0, 2.9]),       # one value from the lower to the upper bound
    ([-50.0, 0.5, 1.0, 2.9], [1e300, 0.5, 1.0, 2.9]),    # both beyond the bounds: clipped
    ([0.49, 0.5, 1.0, 2.9], [0.51, 0.5, 1.0, 2.9]),      # the midpoint: squares cross zero
])
def test_exact_law_of_neighbouring_outputs(epsilon, spread, x, x_prime, monkeypatch):
    lower, upper = -2.0, 3.0
    releaser = MeanReleaser(epsilon, lower, upper, spread=spread)
    rel, lams = _noiseless(releaser, x, monkeypatch)
    rel_p, lams_p = _noiseless(releaser, x_prime, monkeypatch)
    assert lams == lams_p and len(lams) == (2 if spread else 1)
    n = len(x)
    values = np.atleast_1d(rel.value)
    values_p = np.atleast_1d(rel_p.value)
    # the grid exponent: the released sum is n lower + (upper - lower) U / 2**g, U recomputed exactly
    g = next(k for k in range(30, 0, -1)
             if math.isclose(values[0], n * lower + (upper - lower) * sum(
                 _grid_integer(v, lower, upper, k) for v in x) / 2**k, rel_tol=0, abs_tol=1e-9))
    budget = mpmath.mpf(0)
    with mpmath.workdps(50):
        for k, lam in enumerate(lams):
            square = k == 1
            u = sum(_grid_integer(v, lower, upper, g, square) for v in x)
            u_p = sum(_grid_integer(v, lower, upper, g, square) for v in x_prime)
            scale = (upper - lower) if not square else ((upper - lower) / 2) ** 2
            offset = n * lower if not square else 0.0
            assert values[k] == offset + scale * (u / 2**g)       # the releaser's U is the definition's
            assert values_p[k] == offset + scale * (u_p / 2**g)
            assert abs(u - u_p) <= 2**g
            lam = mpmath.mpf(lam)
            ts = range(min(u, u_p) - 3 * 2**g, max(u, u_p) + 3 * 2**g, max(1, 2**g // 64))
            worst = max(abs(_log_pmf(t, u, lam) - _log_pmf(t, u_p, lam)) for t in ts)
            budget += worst
            # the same bound in exact rationals: the log ratio is lam |t - u| - lam |t - u'|
            assert Fraction(float(lam)) * abs(u - u_p) <= Fraction(epsilon) * (1 if not spread else Fraction(
                releaser._epsilons()[k]) / Fraction(epsilon))
        # the two statistics compose: the sum of the worst log ratios is at most epsilon (up to the
        # 1e-40 rounding of 50-digit logarithms; the rational check above is exact)
        assert budget <= mpmath.mpf(epsilon) * (1 + mpmath.mpf(10) ** -40)
        if x[0] == -2.0 and not spread:  # the full range is used: the bound is attained
            assert budget > mpmath.mpf(epsilon) * (1 - mpmath.mpf(2) ** -40)


def test_the_split_spends_at_most_epsilon_in_all(monkeypatch):
    for epsilon, split in [(1.0, 0.5), (0.1, 0.3), (1 / 3, 0.7), (2.9, 0.01)]:
        _, lams = _noiseless(MeanReleaser(epsilon, 0.0, 1.0, spread=True, split=split), [0.2, 0.4], monkeypatch)
        g = grid_bits(2, min(epsilon * split, epsilon * (1 - split)))
        assert sum(Fraction(lam) * 2**g for lam in lams) <= Fraction(epsilon)
        assert float(Fraction(lams[0]) * 2**g) == pytest.approx(epsilon * split, rel=1e-12)


def test_released_sum_has_the_laplace_law():
    """value - clipped sum ~ Laplace(0, (upper - lower) / epsilon): KS at level 1e-6 and the variance."""
    from scipy import stats

    x = np.tile([1.0, 4.0, -7.0, 2.5], (20_000, 1))
    rel = MeanReleaser(0.7, -1.0, 3.0).release(x, rng=5)
    noise = rel.value - (1.0 + 3.0 - 1.0 + 2.5)
    assert stats.kstest(noise, stats.laplace(0, 4.0 / 0.7).cdf).pvalue > 1e-6
    # variance 2 b**2 = 65.3; SE of the sample variance sqrt((mu4 - s**4) / N) = sqrt(5) 2 b**2 / sqrt(N)
    b = 4.0 / 0.7
    assert abs(noise.var() - 2 * b * b) < 4 * math.sqrt(5) * 2 * b * b / math.sqrt(20_000)
    law = rel.noise_law()
    assert law.std() == pytest.approx(math.sqrt(2) * b)


def test_release_records_and_json_round_trip():
    x = np.array([1.0, 2.0, 11.0, -3.0])
    rel = MeanReleaser(1.0, 0.0, 10.0, spread=True, split=0.25).release(x, rng=3)
    assert (rel.mechanism, rel.kind, rel.n, rel.sensitivity, rel.delta) == ("laplace", "clipped_sum", 4, 10.0, 0.0)
    assert rel.bounds == (0.0, 10.0) and rel.split == (0.25, 0.75) and rel.value.shape == (2,)
    assert rel.neighbours == "replace-one" and "bounds public" in rel.privacy_unit
    d = json.loads(json.dumps(rel.to_dict(), allow_nan=False))
    back = Release(**{**d, "bounds": tuple(d["bounds"]), "split": tuple(d["split"])})
    np.testing.assert_array_equal(back.value, rel.value)
    assert back.to_dict() == rel.to_dict()
    assert "bounds:      [0, 10]; epsilon split 0.25 (sum) / 0.75 (squares)" in str(rel)
    one = MeanReleaser(2.0, 0.0, 10.0).release(x, rng=3)
    assert isinstance(one.value, float) and one.split is None
    assert one.noise_law().std() == pytest.approx(math.sqrt(2) * 5.0)
    rows = MeanReleaser(2.0, 0.0, 10.0, spread=True).release(np.tile(x, (3, 1)), rng=3)
    assert rows.value.shape == (3, 2)


def test_no_confidential_value_in_messages_or_records():
    secret = 123.456789
    with pytest.raises(ValueError, match="position 2 is not") as info:
        MeanReleaser(1.0, 0.0, 10.0).release([secret, 1.0, np.nan])
    assert "123.45" not in str(info.value)
    rel = MeanReleaser(1.0, 0.0, 10.0).release([secret, 1.0], rng=1)
    assert "123.45" not in repr(rel) + str(rel) + json.dumps(rel.to_dict())


def test_budget_charged_before_drawing(monkeypatch):
    budget = PrivacyBudget(1.5)
    rel = MeanReleaser(1.0, 0.0, 1.0, spread=True).release([0.2, 0.4], rng=1, budget=budget)
    assert budget.spent_epsilon == 1.0 and rel.ledger_digest == budget.head_digest
    assert "epsilon split 0.5" in budget.ledger[0].label

    def boom(*args, **kwargs):
        raise AssertionError("drew noise")

    monkeypatch.setattr(mean_module, "_discrete_laplace", boom)
    from dpinfer.budget import BudgetExceededError

    with pytest.raises(BudgetExceededError, match="Nothing was drawn"):
        MeanReleaser(1.0, 0.0, 1.0).release([0.2, 0.4], rng=1, budget=budget)
    # two disjoint arms under parallel composition: one entry each, the set costs the larger
    total = PrivacyBudget(1.0)
    arms = total.parallel("arms")
    monkeypatch.undo()
    MeanReleaser(1.0, 0.0, 1.0).release([0.2, 0.4], rng=1, budget=arms.group("control"))
    MeanReleaser(1.0, 0.0, 1.0).release([0.3, 0.9], rng=2, budget=arms.group("treated"))
    assert total.spent_epsilon == 1.0 and len(total.ledger) == 2


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"epsilon": -1.0, "lower": 0, "upper": 1}, ValueError, "`epsilon` must be"),
    ({"epsilon": 1.0, "lower": 1, "upper": 1}, ValueError, "`lower` must be below `upper`; got lower = 1.0"),
    ({"epsilon": 1.0, "lower": 0, "upper": np.inf}, ValueError, "`upper` must be a finite real number"),
    ({"epsilon": 1.0, "lower": "0", "upper": 1}, TypeError, "`lower` must be a real number"),
    ({"epsilon": 1.0, "lower": -1e300, "upper": 1e300}, ValueError, "must be a finite range"),
    ({"epsilon": 1.0, "lower": 0.0, "upper": 5e-324}, ValueError, "must be a finite range between 1e-150"),
    ({"epsilon": 1.0, "lower": 0, "upper": 1, "spread": 1}, TypeError, "`spread` must be True or False"),
    ({"epsilon": 1.0, "lower": 0, "upper": 1, "split": 1.0}, ValueError, "`split` must"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        MeanReleaser(**kwargs)


@pytest.mark.parametrize(("x", "error", "match"), [
    ([], ValueError, "`x` must not be empty"),
    (3.0, ValueError, "`x` must be a 1-d array"),
    (np.zeros((2, 2, 2)), ValueError, "`x` must be a 1-d array"),
    ("abc", TypeError, "`x` must be a real number or an array"),
    ([1.0, np.inf], ValueError, "position 1 is not"),
])
def test_bad_data(x, error, match):
    with pytest.raises(error, match=match):
        MeanReleaser(1.0, 0.0, 1.0).release(x, rng=1)


@pytest.mark.parametrize(("fields", "match"), [
    ({"kind": "clipped_sum", "n": 3}, "`bounds` of a 'clipped_sum' release must be a pair"),
    ({"kind": "clipped_sum", "n": 3, "bounds": (2.0, 1.0)}, "`bounds` of a 'clipped_sum' release"),
    ({"kind": "clipped_sum", "n": None, "bounds": (0.0, 1.0)}, "`n` of a 'clipped_sum' release must be given"),
    ({"kind": "clipped_sum", "n": 3, "bounds": (0.0, 1.0), "split": (0.5, 0.6)}, "`split` of a 'clipped_sum'"),
    ({"kind": "clipped_sum", "n": 3, "bounds": (0.0, 1.0), "split": (0.5, 0.5)}, "pair \\(sum, centred sum"),
    ({"kind": "count", "n": 3, "bounds": (0.0, 1.0)}, "`bounds` is only for a release of kind 'clipped_sum'"),
])
def test_release_checks_the_clipped_fields(fields, match):
    with pytest.raises(ValueError, match=match):
        Release(1.5, "laplace", 1.0, 0.0, 1.0, **fields)
