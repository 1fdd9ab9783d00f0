"""The exact law of two Laplace releases and the tails of a linear statistic of them.

Kernels: valid public input assumed (the public functions validate once).  See the
package docstring (section *Laplace arms*) for the derivation; the names here follow it.

A Laplace count (``LaplaceReleaser(epsilon).count(x, n)``) is released as
``Z = (x 2**g + D) 2**-g`` with ``g`` and the per-step ratio ``r = exp(-lam)`` fixed by the
public ``(n, epsilon)`` (``dpinfer.distributions._laplace_grid.count_grid``) and ``D`` discrete
Laplace, ``P(D = d) = (1 - r)/(1 + r) r^|d|``; a proportion is the same value divided by
``n``.  The release is exactly on its grid: no cell of values stands behind it.

For ``T = a1 Z1 + a2 Z2`` the tail is ``sum_{x1, x2} B1(x1) B2(x2) Q(x1, x2)`` with ``Q``
the noise tail beyond the cut that ``(x1, x2)`` leaves; ``Q`` does not depend on theta, so
a plan holds the matrix ``Q[x1, x2]`` and a nuisance grid costs one matrix product.

* Risk difference (``a1 = 1/n1``, ``a2 = -1/n2``): ``n1 n2 2**G T = V``, an integer,
  ``V = 2**G (n2 x1 - n1 x2) + W`` with ``W = al D1 - be D2`` (``G`` the larger grid
  exponent, ``al = n2 2**(G - g1)``, ``be = n1 2**(G - g2)``).  ``P(W >= s)`` is summed
  exactly over ``D2 = al j + rho`` by residue class ``rho`` (:func:`_lattice_tail`): within
  a class the cut on ``D1`` is ``be j + kappa_rho``, and the sum over ``j`` is four
  geometric series in closed form.
* Otherwise (the ratio, and a difference whose residue sums would exceed ``EXACT_WORK``):
  the continuous Laplace-difference tail (:func:`_continuous_tail`) plus ``bound``, the sum
  of the two arms' Kolmogorov distances between the grid law and the Laplace law of scale
  ``2**-g / lam``, which is ``(1 - r) / (2 (1 + r))`` per arm.  The result is an upper bound
  on the grid law's tail, so p-values stay valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from ... import _mechanisms
from ..._progress import SILENT
from ...distributions._laplace_grid import count_grid
from ._law import _binomial, _binomial_derivatives, _rows

__all__ = []  # private module

#: residue-class evaluations (distinct cuts x residues) allowed for one exact plan: about
#: 15 ms (0.75 us each); equal arms need 2 n + 1 of them, n1 = 100, n2 = 150 need 1202
EXACT_WORK = 20_000
#: the largest n per arm: a plan holds an (n1 + 1) x (n2 + 1) matrix of noise tails
MAX_N = 2000
#: noise farther than this many scales from a cut is below exp(-800) (t is clipped there)
_REACH = 800.0
#: residue-class evaluations per vectorised block
_BLOCK = 1 << 20


@dataclass(frozen=True)
class _LaplaceArm:
    """One Laplace arm's public numbers and its released noise law (in count units).

    ``grid_bits`` is ``g`` (step ``2**-g`` of a count); ``lam`` the per-step rate of ``D``;
    ``log_b = -lam 2**g`` (the per-count rate, for brackets and starting points);
    ``half_step`` the allowance for the rounding of the statistic computed from the
    released doubles (see :func:`_laplace_arm`).
    """

    mechanism: ClassVar[str] = _mechanisms.LAPLACE
    delta: ClassVar[float] = 0.0
    sensitivity: ClassVar[int] = 1

    n: int
    epsilon: float
    grid_bits: int
    lam: float
    log_b: float
    half_step: float

    @property
    def scale(self):
        """The Laplace scale of the noise in counts, ``2**-g / lam``."""
        return 2.0 ** -self.grid_bits / self.lam

    @property
    def kolmogorov(self):
        """``sup_y |P(2**-g D <= y) - P(L <= y)|`` for ``L ~ Laplace(scale)``: ``(1 - r) / (2 (1 + r))``."""
        return -math.expm1(-self.lam) / (2.0 * (1.0 + math.exp(-self.lam)))


def _laplace_arm(n, epsilon, grid_bits=None):
    """The ``_LaplaceArm`` of a Laplace count or proportion out of ``n`` at ``epsilon``.

    ``grid_bits`` (tests only) replaces the releaser's grid exponent by a coarse one, with
    the per-step rate ``epsilon 2**-g`` of a count.  ``half_step``: the statistic
    ``z1/n1 - c z2/n2`` computed in doubles is within ``4 ulp`` of ``(1 + C/n_i)`` per arm of
    the exact one for releases within the noise reach ``C = 764 / epsilon + 1`` (all but
    ``2**-1100`` of them); ``_effective`` moves it by ``(n + C) 2**-50 / n`` per arm towards
    the null, at least 8 times that, so the cut never passes the observed value.
    """
    if grid_bits is None:
        g, lam = count_grid(n, epsilon)
    else:
        g, lam = int(grid_bits), epsilon * 2.0 ** -int(grid_bits)
    reach = math.ceil(764.0 / epsilon) + 1
    return _LaplaceArm(n, epsilon, g, lam, -lam * 2.0**g, (n + reach) * 2.0**-50)


def _geometric(log_first, log_ratio, count):
    """``sum_{i < count} exp(log_first + i log_ratio)`` elementwise (``log_ratio`` a number).

    Summed from the largest term with ``expm1`` (no ``1 - r**m`` cancellation for a ratio
    near 1); ``count`` may be 0 (the sum is 0, whatever ``log_first``) or inf (needs
    ``log_ratio < 0``).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if log_ratio < 0.0:
            lead, step = log_first, log_ratio
        elif log_ratio > 0.0:  # the last term is the largest
            lead, step = log_first + (count - 1.0) * log_ratio, -log_ratio
        else:
            return np.where(count > 0, count * np.exp(log_first), 0.0)
        series = np.where(np.isinf(count), -1.0 / math.expm1(step), np.expm1(count * step) / math.expm1(step))
        return np.where(count > 0, np.exp(lead) * series, 0.0)


def _lattice_tail(s, al, lam_a, be, lam_b):
    """``P(al DA - be DB >= s)`` for integer ``s`` (int64 array), ``DA``, ``DB`` discrete Laplace.

    ``P(D = d) = c r^|d|`` with ``r = exp(-lam)``; ``al``, ``be`` positive coprime integers.
    With ``DB = al j + rho`` (``0 <= rho < al``) the event is ``DA >= be j + kappa``,
    ``kappa = ceil((s + be rho) / al)``, and ``P(DA >= k)`` is ``r_a^k / (1 + r_a)`` for
    ``k >= 1``, ``1 - r_a^(1 - k) / (1 + r_a)`` for ``k <= 0``.  Splitting ``j`` at 0 (the sign
    of ``DB``) and at ``j* = ceil((1 - kappa) / be)`` (the form of the tail) leaves four
    geometric series per class; each term is positive, and in the two ``k <= 0`` series the
    subtracted part is at most half the other, so every value keeps its relative precision.
    """
    if al > be:  # the same law read with the roles swapped: fewer residue classes
        al, lam_a, be, lam_b = be, lam_b, al, lam_a
    s = np.asarray(s, dtype=np.int64)
    out = np.empty(s.shape, dtype=float)
    flat = s.ravel()
    res = np.empty(flat.shape)
    log_c = math.log(-math.expm1(-lam_b)) - math.log1p(math.exp(-lam_b))
    log_1r = math.log1p(math.exp(-lam_a))
    rho = np.arange(al, dtype=np.int64)
    rows = max(1, _BLOCK // al)
    for start in range(0, flat.size, rows):
        blk = flat[start:start + rows, None]
        kappa = -((-(blk + be * rho[None, :])) // al)
        jstar = -((kappa - 1) // be)
        r = rho[None, :].astype(float)
        total = np.zeros(kappa.shape)
        # U+: j >= max(0, j*), DB = al j + rho >= 0, DA cut be j + kappa >= 1
        j0 = np.maximum(0, jstar)
        lf = log_c - log_1r - lam_b * (al * j0 + rho).astype(float) - lam_a * (be * j0 + kappa).astype(float)
        total += _geometric(lf, -(lam_b * al + lam_a * be), math.inf)
        # U-: j* <= j <= -1 (i = -j from 1 to -j*): DB = -(al i - rho) < 0, cut kappa - be i >= 1
        count = np.maximum(0, -jstar).astype(float)
        lf = log_c - log_1r - lam_b * (al - r) - lam_a * (kappa - be).astype(float)
        total += _geometric(lf, -lam_b * al + lam_a * be, count)
        # L+: 0 <= j <= j* - 1: DB >= 0, cut <= 0 (tail 1 - r_a^(1 - cut) / (1 + r_a))
        count = np.maximum(0, jstar).astype(float)
        lp = log_c - lam_b * r
        lq = lp - log_1r - lam_a * (1 - kappa).astype(float)
        total += (_geometric(lp, -lam_b * al, count) - _geometric(lq, -lam_b * al + lam_a * be, count))
        # L-: j <= min(-1, j* - 1) (i = -j from max(1, 1 - j*)): DB < 0, cut <= 0
        i0 = np.maximum(1, 1 - jstar)
        lp = log_c - lam_b * (al * i0 - rho).astype(float)
        lq = lp - log_1r - lam_a * (1 + be * i0 - kappa).astype(float)
        total += (_geometric(lp, -lam_b * al, math.inf) - _geometric(lq, -(lam_b * al + lam_a * be), math.inf))
        res[start:start + rows] = total.sum(axis=1)
    out.ravel()[:] = np.clip(res, 0.0, 1.0)
    return out


def _continuous_tail(y, scale_a, scale_b):
    """``P(A - B >= y)`` for independent ``A ~ Laplace(scale_a)``, ``B ~ Laplace(scale_b)``.

    For ``y >= 0``, with ``s1 >= s2`` the two scales, ``[s1^2 e^(-y/s1) - s2^2 e^(-y/s2)] /
    (2 (s1^2 - s2^2))``, written without the cancellation at ``s1 ~ s2`` as
    ``e^(-y/s1) / 2 (1 + phi(delta) s2 y / (s1 (s1 + s2)))``, ``delta = y (s1 - s2) / (s1 s2)``,
    ``phi(delta) = -expm1(-delta) / delta`` (1 at 0: the equal-scale tail
    ``e^(-y/s) (2 + y/s) / 4``); below 0, one minus the tail at ``-y`` (at most 1/2).
    """
    s1, s2 = max(scale_a, scale_b), min(scale_a, scale_b)
    y = np.asarray(y, dtype=float)
    a = np.abs(y)
    delta = a * ((s1 - s2) / (s1 * s2))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(delta > 0, -np.expm1(-delta) / delta, 1.0)
    upper = 0.5 * np.exp(-a / s1) * (1.0 + phi * (s2 / (s1 * (s1 + s2))) * a)
    return np.where(y >= 0, upper, 1.0 - upper)


def _is_difference(arm1, arm2, a1, a2):
    return a1 == 1.0 / arm1.n and a2 == -1.0 / arm2.n


def _lattice(arm1, arm2):
    """``(G, al, be, unit)``: ``n1 n2 2**G T = al K1 - be K2``, and ``al, be`` divided by their gcd ``unit``."""
    big = max(arm1.grid_bits, arm2.grid_bits)
    al, be = arm2.n * 2 ** (big - arm1.grid_bits), arm1.n * 2 ** (big - arm2.grid_bits)
    unit = math.gcd(al, be)
    return big, al // unit, be // unit, unit


def _exact(arm1, arm2, a1, a2):
    """Whether the tail of ``a1 Z1 + a2 Z2`` is summed exactly (the difference, within ``EXACT_WORK``)."""
    if not _is_difference(arm1, arm2, a1, a2):
        return False
    _, al, be, _ = _lattice(arm1, arm2)
    g0 = math.gcd(arm1.n, arm2.n)
    span = (arm2.n // g0) * arm1.n + (arm1.n // g0) * arm2.n + 1
    return span * min(al, be) <= EXACT_WORK


def _bound(arm1, arm2, a1, a2):
    """What is added to every tail: 0 when exact, else the two arms' Kolmogorov distances."""
    return 0.0 if _exact(arm1, arm2, a1, a2) else arm1.kolmogorov + arm2.kolmogorov


class _LaplaceTailPlan:
    """``P(a1 Z1 + a2 Z2 >= t)`` (``upper``) or ``<= t`` for two Laplace arms, as ``_law._TailPlan``.

    Exact route: the noise tail ``Q`` depends on the counts through ``mu = p2 x1 - p1 x2``
    only (``p_i = n_i / gcd(n1, n2)``), so the plan holds ``Q`` on the dense range of ``mu``
    and a row's tail is ``Q`` against the law of ``mu`` (a convolution of the two binomial
    pmfs, spread on strides ``p2`` and ``p1``; sums of non-negative terms).  Continuous
    route: the matrix ``Q[x1, x2]`` and ``sum B1 Q B2``, plus ``bound``.
    """

    def __init__(self, arm1, arm2, a1, a2, t, upper=True):
        self.arms = (arm1, arm2)
        reach = (abs(a1) * (arm1.n + _REACH * arm1.scale) + abs(a2) * (arm2.n + _REACH * arm2.scale))
        t = float(min(max(float(t), -reach), reach))
        self.bound = _bound(arm1, arm2, a1, a2)
        if self.bound == 0.0:
            self.dense = self._exact_dense(arm1, arm2, t, upper)
        else:
            y = t - a1 * np.arange(arm1.n + 1)[:, None] - a2 * np.arange(arm2.n + 1)[None, :]
            self.q = _continuous_tail(y if upper else -y, abs(a1) * arm1.scale, abs(a2) * arm2.scale)

    def _strides(self):
        g0 = math.gcd(self.arms[0].n, self.arms[1].n)
        return self.arms[0].n // g0, self.arms[1].n // g0

    def _exact_dense(self, arm1, arm2, t, upper):
        """``Q`` at ``mu = -p1 n2 .. p2 n1`` (index ``mu + p1 n2``)."""
        big, al, be, unit = _lattice(arm1, arm2)
        scaled = Fraction(t) * (arm1.n * arm2.n * 2**big)
        cut = math.ceil(scaled) if upper else math.floor(scaled)
        p1, p2 = self._strides()
        g0 = arm1.n // p1
        # V = 2**big g0 mu + unit W', W' = al D1 - be D2
        mu = np.arange(-p1 * arm2.n, p2 * arm1.n + 1, dtype=np.int64)
        shift = (2**big * g0) * mu
        s = (cut - shift) if upper else (shift - cut)  # P(V >= cut) / P(V <= cut) = P(W' >= s / unit)
        return _lattice_tail(-((-s) // unit), al, arm1.lam, be, arm2.lam)

    def __call__(self, theta1, theta2):
        theta1, theta2 = _rows(theta1, theta2)
        return self.from_pmfs([_binomial(self.arms[0].n, theta1)], [_binomial(self.arms[1].n, theta2)])

    def rows(self, theta1, theta2):
        """The tail at rows ``(theta1, theta2)`` (as ``_law._TailPlan.rows``)."""
        return self(theta1, theta2)

    def use_lattice(self):
        """False: this plan is its own lattice of conditional tails; the pmf path serves it."""
        return False

    def lattice_pays(self):
        """False (as :meth:`use_lattice`)."""
        return False

    def from_pmfs(self, p1, p2):
        """The tail from the arms' binomial pmfs (one-element lists of (m, n + 1), rows paired)."""
        return np.clip(self._bilinear(p1[0], p2[0]) + self.bound, 0.0, 1.0)

    def _bilinear(self, b1, b2):
        """``sum_{x1, x2} b1[x1] b2[x2] Q(x1, x2)`` per row, for any (signed) rows: linear in each."""
        if self.bound != 0.0:
            return np.einsum("mi,ij,mj->m", b1, self.q, b2)
        s1, s2 = self._strides()
        spread1 = np.zeros((b1.shape[0], s2 * (b1.shape[1] - 1) + 1))
        spread1[:, ::s2] = b1
        spread2 = np.zeros((b2.shape[0], s1 * (b2.shape[1] - 1) + 1))
        spread2[:, ::s1] = b2
        return np.array([np.dot(np.convolve(r1, r2[::-1]), self.dense) for r1, r2 in zip(spread1, spread2)])

    def with_curvature(self, theta1, theta2, slope, progress=SILENT):
        """The tail and its second derivative along ``(theta1 + slope nu, theta2 + nu)``, exactly.

        As ``_law._TailPlan.with_curvature``: the tail is linear in each arm's binomial pmf,
        whose derivatives are closed forms.  ``bound`` (continuous route) is a constant: it
        adds to the value, not to the curvature.  ``progress`` gets a quarter per sum.
        """
        theta1, theta2 = _rows(theta1, theta2)
        d1 = _binomial_derivatives(self.arms[0].n, theta1)
        d2 = _binomial_derivatives(self.arms[1].n, theta2)
        sums = []
        for k, (a, b) in enumerate(((0, 0), (2, 0), (1, 1), (0, 2))):
            sums.append(self._bilinear(d1[a], d2[b]))
            progress.fraction((k + 1) / 4.0)
        value = sums[0]
        curvature = slope ** 2 * sums[1] + 2.0 * slope * sums[2] + sums[3]
        return np.clip(value + self.bound, 0.0, 1.0), curvature


def _route_note(arm1, arm2, effect):
    """The result's words on how the noise tails were summed (never an approximation unsaid)."""
    exact = _exact(arm1, arm2, 1.0 / arm1.n, -1.0 / arm2.n)
    if exact and effect in ("difference", "odds-ratio"):  # both order by the difference
        return "noise tails summed exactly for the Laplace grid law"
    bound = arm1.kolmogorov + arm2.kolmogorov
    where = "at a ratio of 1 exact sums, elsewhere " if exact else ""
    return (f"noise tails: {where}the continuous Laplace law plus {bound:.2g} (the grid law's "
            "Kolmogorov distance, added to every tail: a valid bound)")
