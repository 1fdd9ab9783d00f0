"""Exact noise from random bits: the one sampler behind every release path.

Floating-point noise leaks (Mironov 2012), and so does floating-point *addition*
of noise to data: ``x + noise`` rounds differently for different ``x``, and the
low-order bits of the output then name ``x``.  Every releaser therefore builds
its output as an **integer** (the data on a fixed dyadic grid plus integer noise)
and converts it to a float once, at the end; the conversion is post-processing
of an exactly private integer, so it cannot leak.

The noise is built from independent random bits only, with no floating-point
step whose rounding could bias the law:

* **Bernoulli(p)** for a probability ``p`` known to arbitrary precision: a
  uniform ``U = 0.u1 u2 u3 ...`` is compared with the binary expansion
  ``p = 0.c1 c2 c3 ...`` piece by piece (8 bits, then 24, then 32 at a time);
  ``U < p`` is decided at the first piece where they differ (after one byte for
  all but 1/256 of the draws).  The chunks of ``p`` are certified by interval arithmetic
  (``mpmath.iv``), refined until the interval's ends agree, so the draw is
  exactly Bernoulli(p).
* **Geometric(b)**, ``P(G = g) = (1 - b) b**g``: the binary digits of ``G`` are
  independent, digit ``i`` being 1 with probability ``b**(2**i) / (1 + b**(2**i))``
  (``b**g`` factorises over the digits of ``g``).  Digits ``0 .. J-1`` are drawn
  as Bernoullis, with ``J`` the first digit whose weight ``b**(2**J)`` is below
  2**-64, and the event ``G >= 2**J`` (probability ``b**(2**J)``) is one more
  Bernoulli; when it occurs, ``G = 2**J + G'`` with a fresh ``G'`` (the law is
  memoryless), in Python integers.  Exact, vectorised, no rejection.
* the discrete Laplace law as ``G1 - G2``; uniform grid points from raw bits.

Two sources of bits share this code: the operating system's cryptographic
source (``os.urandom``; the hardened default path) and a numpy ``Generator``
(the seeded research path, reproducible and therefore predictable).  Both
produce exactly the same law.

References
----------
Mironov, I. (2012).  On significance of the least significant bits for
differential privacy.  ACM CCS.
Canonne, C., Kamath, G. and Steinke, T. (2020).  The discrete Gaussian for
differential privacy.  NeurIPS 33 (exact sampling from random bits; the
digit-wise geometric used here is a different exact construction).
"""

from __future__ import annotations

import math
import os
from functools import lru_cache

import numpy as np

__all__ = []  # private module

_CHUNK = 32
_FIRST_CHUNKS = 4
# Digit weights below 2**-64 are folded into one tail event.
_TAIL_LOG = 64.0 * math.log(2.0)


class _OSBits:
    """Random bytes from the operating system's cryptographic source."""

    hardened = True

    def bytes(self, count):
        return os.urandom(count)


class _GeneratorBits:
    """Random bytes from a numpy Generator (reproducible research path)."""

    hardened = False

    def __init__(self, gen):
        self._gen = gen

    def bytes(self, count):
        return self._gen.bytes(count)


def _os_bits():
    """The hardened path's bit source (a function so tests can substitute a seeded one)."""
    return _OSBits()


def _uint32(bits, size):
    return np.frombuffer(bits.bytes(4 * size), dtype=np.uint32)


def _uniform_int(bits, k, size):
    """``size`` uniform integers on ``{0, ..., 2**k - 1}`` (``0 <= k <= 63``), int64."""
    if k == 0:
        return np.zeros(size, dtype=np.int64)
    raw = np.frombuffer(bits.bytes(8 * size), dtype=np.uint64)
    return (raw >> np.uint64(64 - k)).astype(np.int64)


def _signs(bits, size):
    """``size`` independent fair signs, +1 or -1, int64."""
    raw = np.frombuffer(bits.bytes(size), dtype=np.uint8)
    return 1 - 2 * (raw & 1).astype(np.int64)


class _Probability:
    """A probability whose binary expansion is certified to any length.

    ``interval(ctx)`` returns an ``mpmath.iv`` interval containing ``p``, computed
    in the interval context ``ctx`` at its current precision.
    """

    def __init__(self, interval):
        self._interval = interval
        self._chunks = ()

    def chunks(self, count):
        """The first ``count`` 32-bit chunks of ``floor(p * 2**(32 count))``."""
        if len(self._chunks) < count:
            self._chunks = _certified_chunks(self._interval, count)
        return self._chunks


def _certified_chunks(interval, count):
    from mpmath import iv
    from mpmath.libmp import mpf_shift, to_int

    total = _CHUNK * count
    prec = total + 64
    saved = iv.prec
    try:
        while True:
            iv.prec = prec
            low, high = interval(iv)._mpi_
            a = to_int(mpf_shift(low, total), "f")
            b = to_int(mpf_shift(high, total), "f")
            if a == b:
                if not 0 <= a < 2**total:
                    raise ValueError("probability outside [0, 1) in an exact sampler")
                mask = 2**_CHUNK - 1
                return tuple((a >> (_CHUNK * (count - 1 - i))) & mask for i in range(count))
            prec *= 2  # the interval straddles a digit boundary: refine
    finally:
        iv.prec = saved


def _bernoulli(bits, prob, size):
    """``size`` exact Bernoulli(p) draws (bool array) for a :class:`_Probability`.

    The first comparison uses one random byte against the top 8 bits of ``p``
    (decided for all but 1/256 of the draws); ties continue with the other 24
    bits of the first chunk, then chunk by chunk.
    """
    chunks = prob.chunks(_FIRST_CHUNKS)
    top = chunks[0] >> 24
    u = np.frombuffer(bits.bytes(size), dtype=np.uint8)
    out = u < top
    tie = np.flatnonzero(u == top)
    if tie.size:
        rest = chunks[0] & 0xFFFFFF
        u = _uint32(bits, tie.size) >> np.uint32(8)
        out[tie] = u < rest
        tie = tie[u == rest]
    level = 1
    while tie.size:
        if level >= len(chunks):
            chunks = prob.chunks(2 * len(chunks))
        u = _uint32(bits, tie.size)
        out[tie] = u < chunks[level]
        tie = tie[u == chunks[level]]
        level += 1
    return out


@lru_cache(maxsize=4096)
def _digit_probability(lam, i):
    """P(digit i of a Geometric(exp(-lam)) variate is 1) = 1 / (1 + exp(lam 2**i))."""
    return _Probability(lambda ctx: 1 / (1 + ctx.exp(ctx.mpf(lam) * 2**i)))


@lru_cache(maxsize=4096)
def _power_probability(lam, i):
    """exp(-lam 2**i) = P(G >= 2**i) for G ~ Geometric(exp(-lam))."""
    return _Probability(lambda ctx: ctx.exp(-ctx.mpf(lam) * 2**i))


def _digits(lam):
    """Number of geometric digits drawn one by one: the first J with lam 2**J >= 64 log 2."""
    if lam >= _TAIL_LOG:
        return 0
    return math.ceil(math.log2(_TAIL_LOG / lam))


@lru_cache(maxsize=1024)
def _float_probability(p):
    """A probability given as a double (a dyadic rational): its expansion is exact."""
    return _Probability(lambda ctx: ctx.mpf(p))


@lru_cache(maxsize=1024)
def _krr_lie_probability(epsilon, k):
    """``(k - 1) / (e^epsilon + k - 1)``: k-RR reports a wrong category."""
    return _Probability(lambda ctx: (k - 1) / (ctx.exp(ctx.mpf(epsilon)) + (k - 1)))


def _uniform_below(bits, m, size):
    """``size`` exact uniform integers on ``{0, ..., m - 1}`` (``1 <= m <= 2**62``), by rejection."""
    width = max((m - 1).bit_length(), 0)
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        draw = _uniform_int(bits, width, todo.size)
        keep = draw < m  # acceptance above 1/2
        out[todo[keep]] = draw[keep]
        todo = todo[~keep]
    return out


def _geometric(bits, lam, size):
    """``size`` exact Geometric(exp(-lam)) draws on {0, 1, ...}; ``lam > 0`` a float.

    Returns an int64 array, or an object array of Python ints in the (probability
    below 2**-64 per draw) event that a draw reaches ``2**J``.

    Two branches, both exact: given ``G < 2**J`` the digits ``0 .. J-1`` are
    independent Bernoullis (drawn for every draw); the event ``G >= 2**J`` is
    one more Bernoulli, independent of them, and replaces the draw by
    ``2**J + G'`` with a fresh ``G'``.
    """
    n_digits = _digits(lam)
    if n_digits > 62:
        raise ValueError("noise scale too large for the exact sampler's 64-bit integers")
    g = np.zeros(size, dtype=np.int64)
    for i in range(n_digits):
        g += _bernoulli(bits, _digit_probability(lam, i), size).astype(np.int64) << i
    over = np.flatnonzero(_bernoulli(bits, _power_probability(lam, n_digits), size))
    if over.size:
        # G >= 2**J: G = 2**J + G' with a fresh G' (memoryless); the low digits drawn
        # above are the law of G given G < 2**J and are replaced here, not kept.
        extra = _geometric(bits, lam, over.size).astype(object)
        g = g.astype(object)
        g[over] = 2**n_digits + extra
    return g


def _discrete_laplace(bits, lam, size):
    """``size`` exact draws with ``P(D = d)`` proportional to ``exp(-lam |d|)`` (``G1 - G2``)."""
    return _geometric(bits, lam, size) - _geometric(bits, lam, size)


def _clip_to_int64(values, low, high):
    """Clip integers (int64 or Python-int object array) to [low, high]; int64 result."""
    if values.dtype == object:
        values = np.array([min(max(v, low), high) for v in values.tolist()], dtype=np.int64)
        return values
    return np.clip(values, low, high)


def _truncated_tulap_units(bits, lam, k, cut, size):
    """Truncated grid-Tulap noise in units of ``2**-(k+1)``: odd integers in ``[-2 cut + ..., ...]``.

    The law drawn is ``D + U`` (``D`` discrete Laplace with ratio ``exp(-lam)``,
    ``U`` uniform on the midpoints of the grid of step ``h = 2**-k`` in
    ``(-1/2, 1/2)``) conditioned on ``|D + U| <= cut h`` (``cut`` an integer, so
    the support's end is a cell boundary of the grid).

    Folded form: ``|D + U| = (L + 1/2) h - 1/2`` where ``L >= 2**(k-1)`` has
    ``P(L = l)`` proportional to ``b**floor(l / 2**k)``: its low ``k`` digits are
    fair and its higher digits are those of a Geometric(b), all independent.
    The truncation is ``L <= L1 = cut + 2**(k-1) - 1``.  A proposal with the
    digits up to ``bit_length(L1)`` (the law conditioned on ``L < 2**J``, free
    since the digits are independent) is accepted when ``2**(k-1) <= L <= L1``,
    with probability at least 1/4 whatever ``lam`` and ``cut`` (the weights are
    non-increasing in ``l``): no loop whose acceptance is ``1 - q``.
    """
    last = cut + 2 ** (k - 1) - 1
    n_blocks = max(last.bit_length() - k, 0)
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        m = todo.size
        level = _uniform_int(bits, k, m)
        for i in range(n_blocks):
            level += _bernoulli(bits, _digit_probability(lam, i), m).astype(np.int64) << (k + i)
        keep = (level >= 2 ** (k - 1)) & (level <= last)
        out[todo[keep]] = level[keep]
        todo = todo[~keep]
    return _signs(bits, size) * (2 * out + 1 - 2**k)
