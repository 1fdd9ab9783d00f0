"""The Tulap law as actually released: a uniform on a fixed dyadic grid.

:class:`~dpinfer.TulapReleaser` never adds floating-point noise to a count.  It
releases ``Z = x + D + U`` computed in integers, with ``D`` discrete Laplace
(ratio ``b = exp(-epsilon)``) and ``U`` uniform on the midpoints of the grid of
step ``h = 2**-k`` in ``(-1/2, 1/2)``, i.e. ``Z`` is an odd multiple of
``h / 2``, represented exactly by a double.  This module fixes ``k`` (and the
truncation, for ``delta > 0``) from the public ``n``, ``epsilon`` and ``delta``
alone, so the set of possible outputs never depends on the data, and gives the
inference code the exact law of ``Z``.

**The grid.**  ``C`` bounds the noise: the support half-width (rounded out to the
grid) when ``delta > 0``, else ``ceil(764 / epsilon) + 1``, beyond which the
untruncated noise has probability below ``2**-1100`` (under the smallest
double).  Outputs are clipped to ``[-C - 1/2, n + C + 1/2]`` (post-processing;
with ``delta = 0`` this moves less than ``2**-1100`` of mass, so it is invisible
to any computation in doubles; with ``delta > 0`` it moves nothing).  Then
``k = min(40, 52 - bit_length(n + C + 1))``: every output is ``j / 2**(k+1)``
with ``|j| < 2**53``, hence exact.  The grid serves every ``n`` with
``n + C + 1 < 2**51`` (``k >= 1``); larger ``n`` (or an ``epsilon`` so small that
``C`` passes that) is refused from these public numbers.  At ``n = 30``,
``epsilon = 1``: ``h = 2**-40``; at ``n = 10**9``: ``h = 2**-21``.

**The law of Z, and inference.**  Write ``F`` for the continuous Tulap cdf.  Its
density is constant on each cell ``[i h, (i + 1) h)`` (the cells refine the unit
cells ``[m - 1/2, m + 1/2)``, and the truncation point is a cell boundary), so
the grid law puts on the midpoint of each cell exactly the continuous law's mass
of that cell: the released law is the continuous one rounded to cell midpoints.
Hence, for a grid point ``t``::

    P(N_h <= t) = F(t + h/2),     P(N_h >= t) = 1 - F(t - h/2),

and since ``F`` is linear within a cell, a randomised test on the grid law has
exactly the power function of the continuous test with a shifted cut-off: the
DP-UMP test ``phi(x) = F(x - m)``, its power and its size are unchanged.  A
p-value from a release ``z`` is the largest continuous p-value over the cell
``[z - h/2, z + h/2]`` that ``z`` stands for: for the one-sided tests this *is* the
exact tail ``P(Z >= z)`` (``P(Z <= z)``) of the grid law; for the two-sided
asymptotically unbiased p-value it is at most one atom (mass ``h`` times the
density, below ``h``) above the exact tail ``P(|Z - n p0| >= |z - n p0|)``.
Either way ``Z + V``, ``V ~ U(-h/2, h/2)`` independent, has the continuous law, and
``p(Z) >= p_continuous(Z + V)``: the tests keep their level and the intervals
(the union over the cell of the continuous intervals) their coverage, exactly.
A test that rejects when ``p <= alpha`` has size in ``[alpha - h, alpha]``.

**Count sensitivity k > 1.**  A count that one person can move by up to ``k``
is released with the law built here for ``(epsilon_1, delta_1)``, the unit-shift
parameters of :func:`_unit_privacy` (``epsilon_1 = epsilon / k``): the grid
(``k`` bits, ``C = ceil(764 / epsilon_1) + 1``, the clip range) is this module's
grid at ``(n, epsilon_1, delta_1)``, all public, and the outputs stay odd
multiples of ``h / 2`` whatever the count is.  The inference code reads the same
grid at the same numbers.

**Tiny epsilon with delta > 0.**  ``q = 2 delta b / (1 - b + 2 delta b)`` and
``1 - q = (1 - b) / (1 - b + 2 delta b)`` are computed separately with ``expm1``;
the support end solves ``P(|N| > c) = q`` in whichever form does not cancel
(the tail for ``q <= 1/2``, the kept mass ``1 - q`` above), and is rounded *out*
to the grid, which only lowers the delta spent.  The truncated mass actually
used, ``q_h``, is recomputed from the rounded end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from .._validation import DPInferValueError, _arg

__all__ = []  # private module

_MAX_BITS = 40
# epsilon * C above this: P(|N| > C) <= 2 exp(-epsilon C) < 2**-1100.
_PURE_TAIL = 764.0
_MAX_WIDTH = 2**51


@dataclass(frozen=True)
class _TulapGrid:
    """The released Tulap law for public ``(n, epsilon, delta)``.

    ``bits`` is ``k`` (grid step ``h = 2**-k``); ``cut`` the support's end in
    steps (``None`` untruncated); ``q`` and ``one_minus_q`` the truncated mass
    actually used; ``low``/``high`` the clip range of ``Z`` in units of
    ``2**-(k+1)`` (odd integers).
    """

    epsilon: float
    bits: int
    cut: int | None
    q: float
    one_minus_q: float
    low: int
    high: int

    @property
    def step(self):
        return 2.0**-self.bits

    @property
    def half_width(self):
        return math.inf if self.cut is None else self.cut * 2.0**-self.bits


def _masses(epsilon, c):
    """``(P(|N0| > c), P(|N0| <= c))`` of the untruncated Tulap(0, exp(-epsilon)), each without cancellation."""
    b = math.exp(-epsilon)
    omb = -math.expm1(-epsilon)
    if c < 0.5:
        return (2.0 * b + omb * (1.0 - 2.0 * c)) / (1.0 + b), 2.0 * c * omb / (1.0 + b)
    m = math.floor(c + 0.5)
    phi = c - (m - 0.5)
    b_m = math.exp(-m * epsilon)
    tail = 2.0 * b_m * (b + omb * (1.0 - phi)) / (1.0 + b)
    kept = (-math.expm1(-m * epsilon) - b * math.expm1(-(m - 1) * epsilon) + 2.0 * omb * b_m * phi) / (1.0 + b)
    return tail, kept


def _truncation(epsilon, delta):
    """``(q, 1 - q)`` for (epsilon, delta), both computed without cancellation."""
    b = math.exp(-epsilon)
    omb = -math.expm1(-epsilon)
    denominator = omb + 2.0 * delta * b
    return 2.0 * delta * b / denominator, omb / denominator


def _support_end(epsilon, q, one_minus_q):
    """The ``c`` with ``P(|N0| > c) = q`` (``0 < q < 1``), accurate in relative terms."""
    b = math.exp(-epsilon)
    omb = -math.expm1(-epsilon)
    if q <= 0.5:
        from .tulap import _quantile

        return -float(_quantile(0.0, -epsilon, q))
    if one_minus_q <= omb / (1.0 + b):  # inside the central cell
        return one_minus_q * (1.0 + b) / (2.0 * omb)
    m = max(1, math.floor(math.log1p(-((1.0 + b) * one_minus_q + omb) / 2.0) / -epsilon))
    while _masses(epsilon, m + 0.5)[1] <= one_minus_q:
        m += 1
    while m > 1 and _masses(epsilon, m - 0.5)[1] > one_minus_q:
        m -= 1
    kept_before = -math.expm1(-m * epsilon) - b * math.expm1(-(m - 1) * epsilon)
    phi = ((1.0 + b) * one_minus_q - kept_before) / (2.0 * omb * math.exp(-m * epsilon))
    return m - 0.5 + min(max(phi, 0.0), 1.0)


def _unit_privacy(epsilon, delta, sensitivity):
    """``(epsilon_1, delta_1)`` of the unit-shift Tulap law for a count of ``sensitivity`` k.

    A count of sensitivity ``k`` (an integer) is released with the Tulap law built
    for ``(epsilon_1, delta_1)`` at sensitivity 1, with ``epsilon_1 = epsilon / k``
    rounded down (so ``k epsilon_1 <= epsilon`` exactly) and, for ``delta > 0``,
    ``delta_1 = delta / sum_{j<k} exp(j epsilon_1)`` rounded down by a relative
    ``2**-40`` (far above the few ulps of the float sum).  Group privacy over the
    ``j <= k`` unit steps between neighbours then gives (epsilon, delta); see
    :class:`~dpinfer.TulapReleaser`.  ``k = 1`` returns the inputs unchanged.
    Valid public inputs assumed (``sensitivity`` an int >= 1).
    """
    epsilon, delta = float(epsilon), float(delta)
    if sensitivity == 1:
        return epsilon, delta
    unit = epsilon / sensitivity
    if Fraction(unit) * sensitivity > Fraction(epsilon):
        unit = math.nextafter(unit, 0.0)
    if delta == 0.0:
        return unit, 0.0
    # sum_{j<k} e^{j eps_1} = (e^{k eps_1} - 1) / (e^{eps_1} - 1), without cancellation
    total = math.expm1(sensitivity * unit) / math.expm1(unit)
    return unit, delta / total * (1.0 - 2.0**-40)


@lru_cache(maxsize=512)
def _tulap_grid(n, epsilon, delta):
    """The released law for valid public ``n >= 1``, ``epsilon > 0``, ``delta`` in [0, 1).

    Raises
    ------
    ValueError
        If no grid of step at most 1/2 can represent every output exactly
        (``n`` or ``1 / epsilon`` too large), or the truncated law is not
        representable in doubles.
    """
    epsilon = float(epsilon)
    cut_point = math.inf
    if delta > 0.0:
        q, one_minus_q = _truncation(epsilon, delta)
        if q > 0.0:
            cut_point = _support_end(epsilon, q, one_minus_q)
    pure = math.ceil(_PURE_TAIL / epsilon) + 1
    bound = pure if not cut_point < pure else math.ceil(cut_point) + 1
    width = n + bound + 1
    bits = min(_MAX_BITS, 52 - width.bit_length())
    if width >= _MAX_WIDTH or bits < 1:
        raise DPInferValueError(
            _arg("n"), f" = {n} with ", _arg("epsilon"), f" = {epsilon!r} is too large for an exact release: the "
            f"count plus its noise range must stay below 2**51 (here n + {bound}); use a larger "
            "epsilon or a smaller n."
        )
    if cut_point < pure:
        cut = math.ceil(cut_point * 2.0**bits * (1.0 + 2.0**-45)) + 1
        q_h, one_minus_q_h = _masses(epsilon, cut * 2.0**-bits)
        if not (q_h < 1.0 and one_minus_q_h > 0.0):
            raise DPInferValueError(
                _arg("epsilon"), f" = {epsilon!r} with ", _arg("delta"), f" = {delta!r} gives a Tulap law that doubles "
                "cannot represent (the truncated mass rounds to 1); use a larger epsilon or a "
                "smaller delta."
            )
    else:
        cut, q_h, one_minus_q_h = None, 0.0, 1.0
    unit = 2**bits
    return _TulapGrid(
        epsilon=epsilon,
        bits=bits,
        cut=cut,
        q=q_h,
        one_minus_q=one_minus_q_h,
        low=-(2 * bound + 1) * unit + 1,
        high=(2 * (n + bound) + 1) * unit - 1,
    )


def _release_tulap(bits_source, x, n, epsilon, delta):
    """Exact grid-Tulap release of int64 counts ``x`` (valid, ``0 <= x <= n``); float array."""
    from .._exact_noise import _clip_to_int64, _discrete_laplace, _truncated_tulap_units, _uniform_int

    grid = _tulap_grid(n, epsilon, delta)
    k = grid.bits
    size = x.size
    flat = x.reshape(-1).astype(np.int64)
    if grid.cut is None:
        noise = _discrete_laplace(bits_source, epsilon, size)
        units = (2 * (flat + noise)) * 2**k + (2 * _uniform_int(bits_source, k, size) + 1 - 2**k)
    else:
        units = flat * 2 ** (k + 1) + _truncated_tulap_units(bits_source, epsilon, k, grid.cut, size)
    units = _clip_to_int64(units, grid.low, grid.high)
    return (units / 2.0 ** (k + 1)).reshape(x.shape)
