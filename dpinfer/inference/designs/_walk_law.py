"""The exact law of a two-arm group-sequential design on the integer lattice of the releases.

Kernels (valid public input assumed; :mod:`._group_sequential` validates once).

**The lattice.**  Stage ``s`` releases each arm's new count ``Z = X + D + U`` (Tulap,
``dpinfer.inference.two_arm._law``): ``X ~ Binomial(n_s, theta)``, ``D`` the integer part of
the noise, ``U`` its part inside the unit cell, so ``round(Z) = X + D =: K`` exactly.  The
design reads the integer parts: with the allocation ``n2 / n1 = a / b`` in lowest terms
(``n1`` a multiple of ``b`` at every look) the released difference of cumulative proportions
of the integer parts is ``T_k = K1(k)/N1_k - K2(k)/N2_k = W_k / (a N1_k)`` with
``W_k = a K1(k) - b K2(k)`` an integer: a random walk with independent increments
(the stages and the arms are disjoint people, with independent noise).  Its joint law over
the looks is an exact finite convolution: the sub-density of ``W_k`` on the continuation
region, convolved with the next increment's pmf and cut at the next boundaries.

**Precision.**  Each ``K`` pmf is the exact convolution of :func:`two_arm._law._component_pmfs`
(non-negative sums), with the noise cut where its two-sided tail is below ``TRIM`` (1e-18
per stage and arm: probabilities move by less than ``4 K TRIM``).  The increments are
convolved by FFT: absolute error near 1e-15 on every probability (negative round-off
clipped to 0), far below what a boundary decision or a printed digit needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from scipy import signal

from ..two_arm._certify import certified_sup
from ..two_arm._law import _arm, _component_pmfs, _layout, _binomial
from ..two_arm._supremum import _null

__all__ = []  # private module

#: noise mass left out per stage and arm (both tails)
TRIM = 1e-18
#: grid on the common rate before the supremum's refinement
GRID = 65
#: rounds and points of the vectorised refinement of the located supremum (:func:`sup_common`)
ZOOMS, ZOOM_POINTS = 4, 17
#: relative slack of the certified supremum (the bound used is at most this above the located one)
RTOL = 1e-9
#: absolute error allowed for the FFT convolutions in the certificate (the convolutions of
#: probability vectors by FFT err by about 1e-16 times log2 of their length; checked against
#: direct sums in the tests); rejection probabilities below it are not resolved, so a look
#: whose spending leaves less than this to spend gets no efficacy boundary
FFT_SLACK = 1e-13
#: largest width of the lattice of ``W`` at the last look (public sizes and epsilon decide it)
LATTICE_LIMIT = 60_000
#: numerators and denominators of the allocation ratio up to this
RATIO_TERMS = 4


@dataclass(frozen=True)
class _Lattice:
    """The public structure of a design: stage sizes per arm, the allocation, the noise.

    ``n1``, ``n2``: cumulative sizes at each look; ``a``, ``b``: ``n2 / n1 = a / b``;
    ``sign``: +1 when the design rejects for a large ``theta1 - theta2``, -1 for a small one;
    ``epsilon`` None for the non-private design.
    """

    n1: tuple
    n2: tuple
    a: int
    b: int
    sign: int
    epsilon: float | None
    delta: float

    @property
    def looks(self):
        return len(self.n1)

    def stage(self, k):
        """New patients of look ``k`` (0-based) in each arm."""
        lo1 = self.n1[k - 1] if k else 0
        lo2 = self.n2[k - 1] if k else 0
        return self.n1[k] - lo1, self.n2[k] - lo2

    def scale(self, k):
        """``a N1_k``: ``T_k = W_k / scale``."""
        return self.a * self.n1[k]


def ratio_terms(ratio):
    """``(a, b)`` with ``ratio = a / b`` in lowest terms, both at most ``RATIO_TERMS``; None if none."""
    frac = Fraction(ratio).limit_denominator(RATIO_TERMS)
    if frac.numerator > RATIO_TERMS or abs(float(frac) - ratio) > 1e-12 * ratio:
        return None
    return frac.numerator, frac.denominator


def cumulative_sizes(n1_max, fractions, b):
    """Arm 1's cumulative sizes: ``b`` times the nearest whole number to ``t_k n1_max / b``, increasing."""
    out = []
    for t in fractions:
        n = max(b, b * int(round(t * n1_max / b)))
        if out and n <= out[-1]:
            n = out[-1] + b
        out.append(n)
    out[-1] = max(out[-1], n1_max)
    return tuple(out)


def lattice(n1_max, fractions, a, b, sign, epsilon, delta):
    n1 = cumulative_sizes(n1_max, fractions, b)
    n2 = tuple(a * n // b for n in n1)
    return _Lattice(n1, n2, a, b, sign, epsilon, delta)


def _reach(epsilon):
    """Integer noise cut at ``|D| <= R``: ``P(|D| > R) = 2 e^(-eps (R + 1)) / (1 + e^-eps) < TRIM``."""
    return int(min(math.ceil(math.log(2.0 / TRIM) / epsilon), 10 ** 9))  # beyond any lattice limit


def width(lat):
    """The width of the lattice of ``W`` at the last look (the cost of one convolution)."""
    r = 0 if lat.epsilon is None else _reach(lat.epsilon)
    return sum(lat.a * (s1 + 2 * r) + lat.b * (s2 + 2 * r) + 1
               for s1, s2 in (lat.stage(k) for k in range(lat.looks)))


def count_pmf(n, epsilon, delta, theta):
    """``(k_min, pmf (m, L))`` of ``K = X + D`` for a stage of ``n`` at each ``theta`` (m,)."""
    theta = np.atleast_1d(np.asarray(theta, float))
    if epsilon is None:
        return 0, _binomial(n, theta)
    arm, layout = _stage_law(n, epsilon, delta)
    lo = min(k for k, _, _, _ in layout)
    hi = max(k + size for k, size, _, _ in layout)
    out = np.zeros((theta.size, hi - lo))
    for (k, size, _, _), pmf in zip(layout, _component_pmfs(arm, theta)):
        out[:, k - lo:k - lo + size] += pmf
    r = _reach(-arm.log_b)
    keep_lo, keep_hi = max(lo, -r), min(hi, n + r + 1)
    return keep_lo, out[:, keep_lo - lo:keep_hi - lo]


@lru_cache(maxsize=64)
def _stage_law(n, epsilon, delta):
    """The ``_Arm`` of a stage's release and its layout (remembered: every evaluation asks again)."""
    arm = _arm(n, epsilon, delta, 1)
    return arm, tuple(_layout(arm))


def _spread(offset, pmf, step):
    """The pmf of ``step K`` from that of ``K`` (zeros between the multiples of ``step``)."""
    if step == 1:
        return offset, pmf
    out = np.zeros((pmf.shape[0], (pmf.shape[1] - 1) * step + 1))
    out[:, ::step] = pmf
    return offset * step, out


def increment(lat, k, theta1, theta2):
    """``(offset, pmf (m, L))`` of ``sign (a dK1 - b dK2)`` at look ``k`` (0-based)."""
    s1, s2 = lat.stage(k)
    o1, p1 = _spread(*count_pmf(s1, lat.epsilon, lat.delta, theta1), lat.a)
    o2, p2 = _spread(*count_pmf(s2, lat.epsilon, lat.delta, theta2), lat.b)
    # -b dK2 has the reversed pmf of b dK2: its offset is -(o2 + L2 - 1)
    pmf = _convolve(p1, p2[:, ::-1])
    offset = o1 - (o2 + p2.shape[1] - 1)
    if lat.sign < 0:
        return -(offset + pmf.shape[1] - 1), pmf[:, ::-1]
    return offset, pmf


def largest(lat, k):
    """The largest value ``W_k`` can take (0-based look ``k``): a boundary above it stops nobody."""
    out = 0
    for j in range(k + 1):
        offset, pmf = increment(lat, j, [0.5], [0.5])
        out += offset + pmf.shape[1] - 1
    return out


def _convolve(x, y):
    out = signal.fftconvolve(x, y, axes=1)
    return np.maximum(out, 0.0)  # round-off of the FFT: probabilities are never negative


@dataclass
class _Path:
    """What :func:`propagate` returns: per-look efficacy and futility stopping masses (m, K),
    and the continuation sub-density after the last look run (``offset``, ``density``)."""

    efficacy: np.ndarray
    futility: np.ndarray
    offset: int
    density: np.ndarray


def propagate(lat, theta1, theta2, efficacy, futility=None, looks=None):
    """Run the walk through ``looks`` looks (all by default) at the rows ``(theta1, theta2)``.

    ``efficacy[k]``: stop for efficacy when ``W_k >= efficacy[k]`` (None: no cut at look
    ``k``); ``futility[k]``: stop for futility when ``W_k <= futility[k]`` (None: none).
    The continuation left after the last look run is returned uncut by a None boundary.
    """
    theta1, theta2 = np.broadcast_arrays(np.atleast_1d(np.asarray(theta1, float)),
                                         np.atleast_1d(np.asarray(theta2, float)))
    looks = lat.looks if looks is None else looks
    m = theta1.size
    eff, fut = np.zeros((m, lat.looks)), np.zeros((m, lat.looks))
    density, offset = np.ones((m, 1)), 0
    for k in range(looks):
        inc_offset, inc = increment(lat, k, theta1, theta2)
        density = _convolve(density, inc)
        offset += inc_offset
        w0 = offset
        c = efficacy[k] if efficacy is not None else None
        if c is not None:
            j = int(np.clip(c - w0, 0, density.shape[1]))
            eff[:, k] = density[:, j:].sum(axis=1)
            density = density[:, :j]
        f = futility[k] if futility is not None else None
        if f is not None:
            j = int(np.clip(f - w0 + 1, 0, density.shape[1]))
            fut[:, k] = density[:, :j].sum(axis=1)
            density = density[:, j:]
            offset += j
        if density.shape[1] == 0:
            density, offset = np.zeros((m, 1)), offset
    return _Path(eff, fut, offset, density)


def upper_tails(path):
    """``P(W >= w0 + j, not stopped)`` for ``j = 0..L`` from the continuation sub-density."""
    d = path.density
    out = np.zeros((d.shape[0], d.shape[1] + 1))
    out[:, :-1] = np.cumsum(d[:, ::-1], axis=1)[:, ::-1]
    return out


# ---------------------------------------------------------------------------------------
# the supremum over the common rate, certified


def _rejection(lat, efficacy, k, last=None):
    """``f(theta1, theta2)``: probability of stopping for efficacy by look ``k`` (0-based);
    ``last`` replaces the boundary of look ``k`` (the stage-wise p-value's cut)."""
    cuts = list(efficacy[:k + 1])
    if last is not None:
        cuts[k] = last

    def f(theta1, theta2):
        return propagate(lat, theta1, theta2, cuts, looks=k + 1).efficacy.sum(axis=1)
    return f


def sup_common(lat, f, margin=0.0, located_only=False, direction=1):
    """``sup_nu f(nu + margin, nu)`` over the null line (certified upper bound, and where located).

    ``f`` (``direction = 1``) is increasing in ``theta1`` and decreasing in ``theta2`` for
    ``sign = +1`` (the reverse for -1): the event "stopped for efficacy" is increasing in
    the arm-1 counts and decreasing in the arm-2 ones, and each arm's count is
    stochastically increasing in its rate, so the supremum over the one-sided null
    ``theta1 - theta2 <= margin`` (``>=`` for ``sign = -1``) is on the line.  ``direction =
    -1`` for a function monotone the other way (one minus such a probability): it only
    turns the cells' corner caps.  Returns ``(bound, nu)``.
    """
    null = _null("difference", margin)
    grid = np.linspace(null.low, null.high, GRID)
    values = f(null.theta1(grid), grid)
    best = int(np.argmax(values))
    located, where = float(values[best]), float(grid[best])
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, GRID - 1)]
    for _ in range(ZOOMS):
        # a finer grid on the two cells around the best point, vectorised (the tail is smooth:
        # after ZOOMS rounds the cell is ~1e-8 wide and the value ~1e-16 relative from the peak)
        if hi <= lo:
            break
        fine = np.linspace(lo, hi, ZOOM_POINTS)
        got = f(null.theta1(fine), fine)
        i = int(np.argmax(got))
        if got[i] > located:
            located, where = float(got[i]), float(fine[i])
        lo, hi = fine[max(i - 1, 0)], fine[min(i + 1, ZOOM_POINTS - 1)]
    if located_only:
        return located, where
    # corner caps of each cell [lo, hi]: raise theta1, lower theta2 (sign +1); only the
    # certificate reads them (a located supremum, e.g. each point of a confidence curve, does not)
    lo, hi = grid[:-1], grid[1:]
    if lat.sign * direction > 0:
        caps = f(null.theta1(hi), lo)
    else:
        caps = f(null.theta1(lo), hi)

    def evaluate(nu):
        nu = np.asarray(nu, float)
        return f(null.theta1(nu), nu), None
    n1, n2 = lat.n1[-1], lat.n2[-1]
    bound, _ = certified_sup(evaluate, null, n1, n2, grid, located, caps=caps, initial=(values, None),
                             rtol=RTOL, focus=[where])
    return bound + FFT_SLACK, where


def efficacy_boundaries(lat, spent, certify=True):
    """The smallest whole-number boundaries ``c_k`` with ``sup_nu P_nu(stop for efficacy by k) <= spent[k]``.

    Look by look: the grid values of every candidate ``c`` come from one tail sum; the
    smallest candidate within ``spent[k]`` on the grid is then certified (raised by one
    while its certified supremum exceeds ``spent[k]``).  Returns ``(c, sup)`` tuples.
    """
    null = _null("difference", 0.0)
    grid = np.linspace(null.low, null.high, GRID)
    cuts, sups = [], []
    for k in range(lat.looks):
        prev = propagate(lat, grid, grid, cuts + [None], looks=k + 1)
        before = prev.efficacy[:, :k].sum(axis=1)
        tails = upper_tails(prev) + before[:, None]
        worst = tails.max(axis=0)  # candidate c = offset + j
        ok = np.nonzero(worst <= spent[k])[0]
        j = int(ok[0]) if ok.size else tails.shape[1] - 1
        beyond = prev.offset + tails.shape[1]  # no path reaches it: nothing more rejected at look k
        previous = sups[-1] if sups else 0.0
        c = prev.offset + j
        while True:
            if c >= beyond - 1 or float((tails[:, c - prev.offset] - before).max()) < FFT_SLACK:
                # no efficacy stop at this look (or one below the FFT's resolution): the
                # cumulative probability is the previous look's, exactly
                c, value = beyond, previous
                break
            f = _rejection(lat, cuts + [c], k)
            value, _ = sup_common(lat, f, located_only=not certify)
            if value <= spent[k]:
                break
            c += 1
        cuts.append(c)
        sups.append(value)
    return tuple(cuts), tuple(sups)


def futility_boundaries(lat, efficacy, theta1, theta2, beta_spent):
    """Non-binding futility: the largest ``f_k`` (below ``c_k``) with
    ``P_alt(stop for futility by k) <= beta_spent[k]``, at the interim looks (None at the last)."""
    cuts = []
    for k in range(lat.looks - 1):
        path = propagate(lat, theta1, theta2, list(efficacy[:k + 1]), cuts + [None], looks=k + 1)
        before = float(path.futility[0, :k].sum())
        lower = np.cumsum(path.density[0]) + before  # P(W_k <= offset + j)
        ok = np.nonzero(lower <= beta_spent[k])[0]
        f = path.offset + int(ok[-1]) if ok.size else None
        if f is not None:
            f = min(f, efficacy[k] - 1)
        cuts.append(f)
    return tuple(cuts) + (None,)


def characteristics(lat, efficacy, futility, theta1, theta2):
    """``(efficacy (m, K), futility (m, K), expected total n (m,))`` at the rows; the last look's
    non-rejection counts as futility."""
    fut_cuts = list(futility[:-1]) + [efficacy[-1] - 1]
    path = propagate(lat, theta1, theta2, list(efficacy), fut_cuts)
    stop = path.efficacy + path.futility
    sizes = np.array(lat.n1) + np.array(lat.n2)
    return path.efficacy, path.futility, stop @ sizes


# ---------------------------------------------------------------------------------------
# the stage-wise ordering of the outcomes (inference at the end)


def ordering_tails(lat, efficacy, theta1, theta2):
    """For each look ``k``: ``(w0, tails (m, L + 1))`` with ``tails[:, j]`` the probability of an
    outcome at least as extreme as ``(k, w0 + j)`` in the stage-wise ordering:
    ``P(stop for efficacy before k) + P(no efficacy stop before k, W_k >= w0 + j)``.

    Futility boundaries are ignored (non-binding: the ordering counts every path that does not
    cross an efficacy boundary first); the design stops at the last look.
    """
    theta1, theta2 = np.broadcast_arrays(np.atleast_1d(np.asarray(theta1, float)),
                                         np.atleast_1d(np.asarray(theta2, float)))
    m = theta1.size
    density, offset = np.ones((m, 1)), 0
    before = np.zeros(m)
    out = []
    for k in range(lat.looks):
        inc_offset, inc = increment(lat, k, theta1, theta2)
        density = _convolve(density, inc)
        offset += inc_offset
        tails = upper_tails(_Path(None, None, offset, density))
        out.append((offset, tails + before[:, None]))
        j = int(np.clip(efficacy[k] - offset, 0, density.shape[1]))
        before = before + density[:, j:].sum(axis=1)
        density = density[:, :j] if j else np.zeros((m, 1))
        if not j:
            offset = efficacy[k] - 1
    return out


def interval_membership(lat, efficacy, delta, level, naive=False, points=201):
    """For each look, ``(w0, inside)``: whether the interval of :func:`sequential_test` at outcome
    ``(k, w0 + j)`` holds the difference ``delta`` (``inside[j]``), from the two one-sided
    p-values it inverts (located on ``points`` common rates).  ``naive``: the fixed-sample
    interval's (the same exact test with no earlier look).  Validation only (coverage)."""
    nu = np.linspace(max(0.0, -delta), min(1.0, 1.0 - delta), points)
    cuts = [np.iinfo(np.int64).max // 4] * lat.looks if naive else efficacy
    tail = (1.0 - level) / 2.0
    out = []
    for w0, t in ordering_tails(lat, cuts, nu + delta, nu):
        upper = t.max(axis=0)  # sup P(outcome >= (k, w))
        lower = (1.0 - t[:, 1:]).max(axis=0)  # sup P(outcome <= (k, w))
        out.append((w0, (upper[:-1] > tail) & (lower > tail)))
    return out


def outcome_law(lat, efficacy, theta1, theta2):
    """For each look, ``(w0, mass)``: ``P(the trial stops at look k with W_k = w0 + j)``
    (efficacy stops before the last look, every outcome at the last; futility ignored)."""
    out = []
    for k, (w0, t) in enumerate(ordering_tails(lat, efficacy, [theta1], [theta2])):
        mass = -np.diff(t[0])
        if k < lat.looks - 1:
            mass[:int(np.clip(efficacy[k] - w0, 0, mass.size))] = 0.0
        out.append((w0, mass))
    return out
