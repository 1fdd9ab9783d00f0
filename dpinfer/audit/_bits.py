"""Bit-level events (Mironov 2012): bit cells, grids, lowest set bits and parities of the output."""

from __future__ import annotations

import numpy as np

from ._bounds import _bound, _cp_lower, _cp_upper
from ._events import _Event, _best_set, _best_threshold


_INT_CLIP = 8  # the integer part of a bit cell is clipped to [-8, 8]
# Codes of the lowest set bit for outputs that have none: 0 lies on every grid
# 2**t (above every finite double's code, at most 971), a non-finite output on none.
_LSB_ZERO = 2000
_LSB_NONFINITE = -2000
_MAX_BIT_POSITIONS = 256  # bit positions tried per coordinate (the most common lowest bits)
_CELL_RADIX = 2 * _INT_CLIP + 1


def _significand(values):
    """``(sig, base)`` with ``|z| = sig * 2**base`` exactly, ``sig`` a 53-bit unsigned integer.

    From the IEEE 754 binary64 fields: a normal double has the implicit leading
    bit and ``base = biased exponent - 1075``; a subnormal (biased exponent 0)
    has ``base = -1074``.  Non-finite values give meaningless fields (callers
    mask them).
    """
    z = np.ascontiguousarray(values, dtype=np.float64)
    bits = z.view(np.uint64)
    biased = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    sig = bits & np.uint64((1 << 52) - 1)
    sig = np.where(biased > 0, sig | np.uint64(1 << 52), sig)
    return sig, np.maximum(biased, 1) - 1075


def _lowest_set_bit(values):
    """Exponent ``e`` of the lowest set bit of each value: ``|z| = odd * 2**e``.

    ``z`` lies on the grid ``2**t`` exactly when ``e >= t``, and ``z * 2**-e``
    is odd.  Zero gets ``_LSB_ZERO`` (on every grid), a non-finite value
    ``_LSB_NONFINITE``.  Exact: integer operations on the binary64 fields
    (``sig & -sig`` isolates the lowest set bit, a power of two whose binary
    exponent ``frexp`` returns exactly).
    """
    z = np.asarray(values, dtype=np.float64)
    sig, base = _significand(z)
    low = sig & (~sig + np.uint64(1))
    trailing = np.frexp(np.maximum(low, np.uint64(1)).astype(np.float64))[1].astype(np.int64) - 1
    out = base + trailing
    out = np.where(sig == 0, _LSB_ZERO, out)
    return np.where(np.isfinite(z), out, _LSB_NONFINITE)


def _bit_cells(values):
    """The bit-level feature of each output: ``(integer part, lowest set bit)``.

    Returns an int64 array of shape ``values.shape + (2,)``: ``floor(z)``
    clipped to ``[-8, 8]`` (``+-inf`` to ``+-8``) and :func:`_lowest_set_bit`.
    A mechanism whose output's set of possible values does not depend on the
    input gives every cell positive probability under both inputs or under
    neither; a float addition ``x + noise`` does not (its rounding depends on
    ``x``).  Used by :func:`audit_releaser` and by ``tests/test_bit_privacy.py``.
    """
    z = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        whole = np.clip(np.floor(np.nan_to_num(z, nan=0.0)), -_INT_CLIP, _INT_CLIP).astype(np.int64)
    return np.stack([whole, _lowest_set_bit(z)], axis=-1)


def _bit_at(values, position):
    """Bit ``2**position`` of ``|z|``: the parity of ``floor(|z| * 2**-position)`` (0 for non-finite)."""
    z = np.asarray(values, dtype=np.float64)
    sig, base = _significand(z)
    shift = position - base
    inside = (shift >= 0) & (shift <= 52) & np.isfinite(z)
    bit = (sig >> np.clip(shift, 0, 52).astype(np.uint64)) & np.uint64(1)
    return inside & (bit == 1)


def _cell_code(cells):
    """One integer per bit cell (lowest set bit in the high digits, integer part in the low)."""
    return (cells[..., 1] + 4 * _LSB_ZERO) * _CELL_RADIX + (cells[..., 0] + _INT_CLIP)


def _pow2(t):
    return "0" if t == _LSB_ZERO else ("non-finite" if t == _LSB_NONFINITE else f"2^{int(t)}")


def _best_over_coordinates(sel_x, sel_y, propose):
    """The best of ``propose(fx, fy, values_x, values_y, name, j)`` over the output's coordinates."""
    best = _Event(_nothing, "", True, -1.0)
    n_dim = sel_x.shape[1]
    for j in range(n_dim):
        name = f"Z[{j}]" if n_dim > 1 else "Z"
        event = propose(_bit_cells(sel_x[:, j]), _bit_cells(sel_y[:, j]), sel_x[:, j], sel_y[:, j], name, j)
        if event.score > best.score:
            best = event
    return best


def _nothing(values):
    return np.zeros(values.shape[0], dtype=bool)


def _choose_bit_cells(sel_x, sel_y, delta, tail):
    """Sets of bit cells ``(floor(Z) clipped to [-8, 8], lowest set bit of Z)`` (Neyman-Pearson sets)."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        score, forward, members = _best_set(_cell_code(cx), _cell_code(cy), m, delta, tail)
        shown = [divmod(int(c), _CELL_RADIX) for c in members]
        cells = [f"({w - _INT_CLIP}, {_pow2(e - 4 * _LSB_ZERO)})" for e, w in shown[:6]]
        more = f", ... ({len(shown)} cells)" if len(shown) > 6 else ""
        label = f"(floor({name}) in [-8, 8], lowest set bit of {name}) in {{{', '.join(cells)}{more}}}"
        return _Event(_member_mask(j, members, cell=True), label, forward, score)

    return _best_over_coordinates(sel_x, sel_y, propose)


def _choose_grid(sel_x, sel_y, delta, tail):
    """``{Z on the grid 2**t}`` (lowest set bit ``>= t``, exactly representable) or its complement."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        score, forward, t, upper = _best_threshold(cx[:, 1], cy[:, 1], m, delta, tail)
        label = f"{name} {'on' if upper else 'off'} the grid {_pow2(t)}"
        return _Event(_grid_mask(j, t, upper), label, forward, score)

    return _best_over_coordinates(sel_x, sel_y, propose)


def _choose_lowest_bit(sel_x, sel_y, delta, tail):
    """Sets of values of the lowest set bit (``{e = t}``: ``Z * 2**-t`` an odd integer)."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        score, forward, members = _best_set(cx[:, 1], cy[:, 1], m, delta, tail)
        more = f", ... ({members.size} values)" if members.size > 6 else ""
        label = f"lowest set bit of {name} in {{{', '.join(_pow2(t) for t in members[:6])}{more}}}"
        return _Event(_member_mask(j, members, cell=False), label, forward, score)

    return _best_over_coordinates(sel_x, sel_y, propose)


def _choose_parity(sel_x, sel_y, delta, tail):
    """The parity of ``floor(|Z| * 2**-t)`` (bit ``2**t`` of ``|Z|``) at the commonest lowest bits ``t``."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        seen, counts = np.unique(np.concatenate([cx[:, 1], cy[:, 1]]), return_counts=True)
        keep = (seen != _LSB_ZERO) & (seen != _LSB_NONFINITE)
        positions = seen[keep][np.argsort(-counts[keep], kind="stable")[:_MAX_BIT_POSITIONS]]
        best = _Event(_nothing, "", True, -1.0)
        if positions.size == 0:
            return best
        ones_x = np.array([_bit_at(zx, t).sum() for t in positions])
        ones_y = np.array([_bit_at(zy, t).sum() for t in positions])
        for value, kx, ky in ((1, ones_x, ones_y), (0, m - ones_x, m - ones_y)):
            for forward, num, den in ((True, kx, ky), (False, ky, kx)):
                scores = _bound(_cp_lower(num, m, tail), _cp_upper(den, m, tail), delta)
                i = int(np.argmax(scores))
                if scores[i] > best.score:
                    t = int(positions[i])
                    label = f"floor(|{name}| * 2^{-t}) {'odd' if value else 'even'}"
                    best = _Event(_parity_mask(j, t, value), label, forward, float(scores[i]))
        return best

    return _best_over_coordinates(sel_x, sel_y, propose)


def _member_mask(j, members, *, cell):
    def mask(values):
        cells = _bit_cells(values[:, j])
        return np.isin(_cell_code(cells) if cell else cells[:, 1], members)

    return mask


def _grid_mask(j, t, upper):
    def mask(values):
        on = _lowest_set_bit(values[:, j]) >= t
        return on if upper else ~on

    return mask


def _parity_mask(j, t, value):
    def mask(values):
        odd = _bit_at(values[:, j], t)
        return odd if value else ~odd

    return mask
