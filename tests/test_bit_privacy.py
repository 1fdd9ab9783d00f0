"""The bits of a release do not depend on the input (issue 14, evidence list, first bullet).

For every releaser and both paths (hardened: ``secure=True``; seeded:
``rng=seed``), 20 000 releases of ``x`` and 20 000 of its neighbour ``x + 1``
(the neighbouring input appropriate to the releaser: the next count, or a count up
to k away for a Tulap count of sensitivity k, a value one sensitivity away, the other answer or category, a value in the other bin) are
mapped to the bit cell of each output coordinate, ``(floor(z) clipped to
[-8, 8], exponent of the lowest set bit of z)`` (``dpinfer.audit._bits._bit_cells``,
the feature the audit uses).  The check: no cell is seen 300 or more times under
one input and never under the other.

Why 300, and why the outcome is deterministic.  If the set of possible outputs
does not depend on the input and the releaser is epsilon-DP (epsilon = 1 for
every releaser here; for the Tulap case with delta > 0 see its comment), a cell has probabilities p and p' >= p / e under the two
inputs, so it fails the check with probability at most
P(Binomial(20 000, p) >= 300) * (1 - p / e)**20 000 <= exp(-96.8) = 1e-42 for
every p (the maximum is at p = 0.011; computed with scipy's ``binom.logsf``).
With at most a few thousand cells per coordinate, an exact releaser fails with
probability below 1e-35.  A float addition ``x + noise`` instead makes whole
cells impossible under one input (the release of 0 keeps bits that 1 + noise
rounds away): hundreds to thousands of releases land in them.  The seeded path is
seeded; on the hardened path the OS source is replaced by seeded bits (the same
exact samplers run), so every case is deterministic outright.

Before issue 14, nine of these cases failed (every Tulap case, and the seeded
Laplace, local Laplace and histogram paths); the planted old constructions below
still do.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from dpinfer import (
    ContingencyTableReleaser,
    KRRReleaser,
    LaplaceReleaser,
    LifeTableReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    MeanReleaser,
    PairedTableReleaser,
    RandomizedResponseReleaser,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)
from dpinfer._exact_noise import _GeneratorBits
from dpinfer.audit._bits import _bit_cells
from dpinfer.releasers import _secure_path


class _SeededOSBits(_GeneratorBits):
    """A seeded stand-in for the OS source: the hardened path's code on reproducible bits."""

    hardened = True

N = 20_000
THRESHOLD = 300


def one_sided_cells(z_x, z_y):
    """Cells seen >= THRESHOLD times under one input and never under the other, per coordinate.

    Returns a list of ``(coordinate, (integer part, lowest set bit), count, which input)``.
    """
    z_x = np.asarray(z_x, dtype=float).reshape(N, -1)
    z_y = np.asarray(z_y, dtype=float).reshape(N, -1)
    found = []
    for j in range(z_x.shape[1]):
        cells_x, count_x = np.unique(_bit_cells(z_x[:, j]), axis=0, return_counts=True)
        cells_y, count_y = np.unique(_bit_cells(z_y[:, j]), axis=0, return_counts=True)
        seen_x = {tuple(c): k for c, k in zip(cells_x.tolist(), count_x.tolist())}
        seen_y = {tuple(c): k for c, k in zip(cells_y.tolist(), count_y.tolist())}
        for mine, other, which in ((seen_x, seen_y, "x"), (seen_y, seen_x, "x + 1")):
            found += [(j, cell, k, which) for cell, k in mine.items() if k >= THRESHOLD and cell not in other]
    return found


# name, releases(inputs, **path) -> values, x, x + 1 (the neighbour)
RELEASERS = [
    ("TulapReleaser", lambda v, **kw: TulapReleaser(1.0).release(v, 30, **kw), 0, 1),
    # delta > 0: the supports [-c, c] and [1 - c, 1 + c] differ by a band of mass delta (Awan &
    # Slavkovic 2018, Thm. 2.4), cells only one input reaches by design; delta = 0.005 puts about
    # 100 of 20 000 releases there (SE 10), far below 300, so only a bit leak can fail the check
    ("TulapReleaser-delta", lambda v, **kw: TulapReleaser(1.0, 0.005).release(v, 30, **kw), 0, 1),
    # count sensitivity k = 3: neighbours differ by up to 3, epsilon = 1 in all (the bound below
    # holds as written); odd k, where a scaled uniform would leave the dyadic grid
    ("TulapReleaser-sensitivity3", lambda v, **kw: TulapReleaser(1.0, sensitivity=3).release(v, 30, **kw), 0, 3),
    ("TulapReleaser-sensitivity3-step1",
     lambda v, **kw: TulapReleaser(1.0, sensitivity=3).release(v, 30, **kw), 7, 8),
    # delta = 0.005 at k = 2: the edge band one input alone reaches has mass delta (see above)
    ("TulapReleaser-sensitivity2-delta",
     lambda v, **kw: TulapReleaser(1.0, 0.005, sensitivity=2).release(v, 30, **kw), 0, 2),
    ("LaplaceReleaser.release", lambda v, **kw: LaplaceReleaser(1.0).release(v, **kw), 0.0, 1.0),
    ("LaplaceReleaser.proportion", lambda v, **kw: LaplaceReleaser(1.0).proportion(v, 30, **kw), 0, 1),
    ("LaplaceReleaser.count", lambda v, **kw: LaplaceReleaser(1.0).count(v, 30, **kw), 0, 1),
    ("RandomizedResponseReleaser", lambda v, **kw: RandomizedResponseReleaser(1.0).release(v, **kw), 0, 1),
    ("TwoCoinRRReleaser", lambda v, **kw: TwoCoinRRReleaser.from_epsilon(1.0, 0.3).release(v, **kw), 0, 1),
    ("KRRReleaser", lambda v, **kw: KRRReleaser(1.0, 3).release(v, **kw), 0, 1),
    ("UnaryEncodingReleaser", lambda v, **kw: UnaryEncodingReleaser(1.0, 3).release(v, **kw), 0, 1),
    ("LocalLaplaceReleaser", lambda v, **kw: LocalLaplaceReleaser(1.0, 1.0).release(v, **kw), 0.0, 1.0),
    ("LDPHistogramReleaser", lambda v, **kw: LDPHistogramReleaser(1.0, 2).release(v, **kw), 0.0, 1.0),
    # one data set of 3 values per row; the neighbour replaces the first value (bounds -1.5, 2)
    ("MeanReleaser", lambda v, **kw: MeanReleaser(1.0, -1.5, 2.0).release(
        np.stack([v, np.full(v.shape, 0.3), np.full(v.shape, 1.7)], axis=-1), **kw), -1.5, 2.0),
    ("MeanReleaser-spread", lambda v, **kw: MeanReleaser(1.0, -1.5, 2.0, spread=True).release(
        np.stack([v, np.full(v.shape, 0.3), np.full(v.shape, 1.7)], axis=-1), **kw), 0.1, 1.9),
    # a 2 x 2 table; its neighbour moves one record from cell (0, 0) to cell (1, 1) (replace-one)
    ("ContingencyTableReleaser", lambda v, **kw: ContingencyTableReleaser(1.0).release(
        np.where(np.asarray(v)[:, None, None] == 0, [[5, 3], [2, 7]], [[4, 3], [2, 8]]), **kw), 0, 1),
    # three patients, one arm, two intervals; the neighbour replaces the first patient's event at
    # time 3 (cell (0, events)) by a censoring at time 7 (cell (1, censorings))
    ("LifeTableReleaser", lambda v, **kw: LifeTableReleaser(1.0, (5.0, 10.0)).release(
        np.where(np.asarray(v)[:, None] == 0, [3.0, 6.0, 12.0], [7.0, 6.0, 12.0]),
        np.where(np.asarray(v)[:, None] == 0, [1, 1, 0], [0, 1, 0]), **kw), 0, 1),
    # a paired table; the neighbour moves one pair between the discordant cells (D moves by 2, the
    # widest shift) and one from a concordant to a discordant cell (both coordinates move by 1)
    ("PairedTableReleaser", lambda v, **kw: PairedTableReleaser(1.0).release(
        np.where(np.asarray(v)[:, None, None] == 0, [[5, 3], [2, 7]], [[5, 2], [3, 7]]), **kw), 0, 1),
    ("PairedTableReleaser-concordant", lambda v, **kw: PairedTableReleaser(1.0).release(
        np.where(np.asarray(v)[:, None, None] == 0, [[5, 3], [2, 7]], [[4, 3], [3, 7]]), **kw), 0, 1),
]
CASES = [
    pytest.param(release, x, x_next, path, id=f"{name}-{path}")
    for name, release, x, x_next in RELEASERS
    for path in ("hardened", "seeded")
]


@pytest.mark.parametrize("release, x, x_next, path", CASES)
def test_bits_do_not_depend_on_the_input(release, x, x_next, path, monkeypatch):
    if path == "hardened":
        seeds = itertools.count(14)
        monkeypatch.setattr(_secure_path, "_os_bits", lambda: _SeededOSBits(np.random.default_rng(next(seeds))))
        out_x = release(np.full(N, x), secure=True)
        out_y = release(np.full(N, x_next), secure=True)
        assert out_x.secure and out_y.secure
    else:
        out_x = release(np.full(N, x), rng=1401)
        out_y = release(np.full(N, x_next), rng=1402)
    assert np.shape(out_x.value)[0] == N
    assert one_sided_cells(out_x.value, out_y.value) == []


# -- the check is not vacuous: the old float constructions fail it ------------------


def _old_hardened_tulap(x, gen, epsilon=1.0):
    """Main's hardened Tulap before issue 14: ``x + (k + u)`` in floating point (see test_audit)."""
    p = -math.expm1(-epsilon)
    k = gen.geometric(p, size=x.shape) - gen.geometric(p, size=x.shape)
    u = (2 * gen.integers(0, 2**53, size=x.shape, dtype=np.int64) + 1 - 2**53).astype(float) / 2.0**54
    return x + (k + u)


def _old_seeded_laplace(x, gen, epsilon=1.0):
    return x + gen.laplace(0.0, 1.0 / epsilon, size=x.shape)


def _exact_grid_tulap(x, gen, epsilon=1.0):
    """A bit-exact Tulap construction: ``(2**41 (x + k) + 2 j + 1 - 2**41) / 2**42`` in integers.

    ``k`` discrete Laplace, ``j`` uniform on {0, ..., 2**41 - 1}: the uniform sits on the
    midpoints of the grid 2**-41 in (-1/2, 1/2); the numerator is an exact int64 (below
    2**53 in magnitude) and the one division by a power of two is exact, so every output
    is an odd multiple of 2**-42 whatever x is.
    """
    p = -math.expm1(-epsilon)
    k = gen.geometric(p, size=x.shape) - gen.geometric(p, size=x.shape)
    j = gen.integers(0, 2**41, size=x.shape, dtype=np.int64)
    return ((x + k) * 2**41 + 2 * j + 1 - 2**41).astype(float) / 2.0**42


def test_an_exact_construction_passes_the_check():
    """The positive control: integer noise plus a dyadic-grid uniform, one exact conversion."""
    z_x = _exact_grid_tulap(np.zeros(N, dtype=np.int64), np.random.default_rng(5))
    z_y = _exact_grid_tulap(np.ones(N, dtype=np.int64), np.random.default_rng(6))
    assert np.all(_bit_cells(z_x)[:, 1] == -42) and np.all(_bit_cells(z_y)[:, 1] == -42)
    assert one_sided_cells(z_x, z_y) == []


@pytest.mark.parametrize("planted", [_old_hardened_tulap, _old_seeded_laplace])
def test_old_float_constructions_fail_the_check(planted):
    z_x = planted(np.zeros(N, dtype=np.int64), np.random.default_rng(3))
    z_y = planted(np.ones(N, dtype=np.int64), np.random.default_rng(4))
    found = one_sided_cells(z_x, z_y)
    assert found and all(which == "x" for _, _, _, which in found)
    if planted is _old_hardened_tulap:
        # the mark of issue 14: k = 0 (probability tanh(1/2) = 0.46), output u with bit 2**-54;
        # it falls in the cells (0, -54) and (-1, -54), never reached from x = 1
        marked = sum(k for _, cell, k, _ in found if cell[1] == -54)
        assert abs(marked / N - math.tanh(0.5)) < 4 * math.sqrt(0.4621 * 0.5379 / N)


# -- the feature itself, against an independent computation -------------------------


def _cell_by_fractions(z):
    """(floor clipped to [-8, 8], lowest set bit) from exact rationals (Python's Fraction)."""
    if not math.isfinite(z):
        return (8 if z > 0 else -8, -2000)
    whole = max(-8, min(8, math.floor(z)))
    if z == 0.0:
        return (whole, 2000)
    q = Fraction(abs(z))
    if q.denominator > 1:  # a power of two over an odd numerator
        return (whole, -(q.denominator.bit_length() - 1))
    num = q.numerator
    return (whole, (num & -num).bit_length() - 1)


def test_bit_cells_match_exact_rationals():
    gen = np.random.default_rng(2014)
    # random bit patterns cover every exponent and significand; plus the edge cases
    raw = gen.integers(0, 2**63, size=5_000, dtype=np.int64).astype(np.uint64) | (
        gen.integers(0, 2, size=5_000).astype(np.uint64) << np.uint64(63))
    z = raw.view(np.float64)
    z = z[np.isfinite(z)]
    edge = [0.0, -0.0, 1.0, -1.0, 0.5, 3 * 2.0**-54, -(2.0**-1074), 5e-324, 2.0**-1022, 2.0**-1022 - 2.0**-1074,
            1.7976931348623157e308, 7.999999999999999, 8.0, 9.5, -8.5, -0.25, 2.0**52 + 1, 2.0**53, np.inf, -np.inf]
    z = np.concatenate([z, edge, gen.laplace(0.0, 3.0, 2_000), gen.random(2_000)])
    expected = np.array([_cell_by_fractions(float(v)) for v in z])
    np.testing.assert_array_equal(_bit_cells(z), expected)
    # shape: one (integer part, lowest set bit) pair per value
    assert _bit_cells(np.zeros((3, 4))).shape == (3, 4, 2)
