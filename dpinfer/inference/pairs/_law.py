"""The exact law of a paired release and the tails of McNemar's ordering (kernels, valid input assumed).

A paired release is ``(z_D, z_S)``, ``z_D = D + N_D``, ``z_S = S + N_S`` with
``D = n10 - n01``, ``S = n01 + n10`` and ``N`` independent Tulap noises of ``b = exp(-epsilon_1)``
(:class:`~dpinfer.PairedTableReleaser`).  ``N = E + U`` with ``E`` discrete Laplace,
``P(E = e) = (1 - b) / (1 + b) b^|e|``, and ``U`` uniform on ``(-1/2, 1/2)``, so the integer
part ``K = round(z)`` of a release is ``x + E`` (a released value is an odd multiple of the
grid's half step, never a half-integer).

**The ordering.**  ``g(c, j) = c / sqrt(max(j + v, 1))`` on the clipped integer parts
``c = clip(K_D, -n, n)``, ``j = clip(K_S, 0, n)`` (McNemar's ``(n10 - n01) / sqrt(n01 + n10)``
with the integer noise's variance ``v = 2 b / (1 - b)^2`` added), rounded to a multiple of
``2**-32`` (equal exact values give equal doubles), replaced by its smallest majorant ``M``
that is monotone in the sense the reduction of a one-sided null to its boundary needs:
one pair more in cell 10 (``(d, s) -> (d + 1, s + 1)``) may only raise ``T``, one more in
cell 01 (``(d - 1, s + 1)``) only lower it.  After clipping, those moves take ``(c, j)`` to
``(c + 1, j + 1)``, ``(c + 1, j)``, ``(c + 1, j - 1)`` (the first, or the third read
backwards) and, at the clipped columns, ``(n, j + 1)`` and ``(-n, j + 1)``; so ``M`` is the
running maximum over the cone ``c' - c >= |j' - j|`` (one sweep over ``c``), after a running
maximum down the column ``c = -n`` and before one up the column ``c = n``.  ``T`` is
``(M(c, j), z_D)`` in lexicographic order: ties of ``M`` are broken by ``z_D`` itself, so the
order is total and ``T`` increases with every pair moved into cell 10.

**The tail.**  Given the counts ``(a, m) = (n01, n10)`` (``d = m - a``, ``s = a + m``),

    f(a, m) = P(T >= t | a, m) = sum_j A[s, j] sum_c (1[M > m_t] B[d, c] + 1[M = m_t] B_t[d, c]),

``A[s, j] = P(clip(s + E_S) = j)``, ``B[d, c] = P(clip(d + E_D) = c)``, and ``B_t[d, c]`` the
probability that ``clip(d + E_D) = c`` and ``z_D`` is at or beyond the observed ``z``: the
discrete Laplace pmf and its geometric tails (closed forms, positive terms), with the
uniform's share ``K + 1/2 - z`` of the observed unit cell.  ``f`` does not depend on the
parameters, so it is computed once per observation (two matrix products of order ``n^3``),
and the tail at ``(p01, p10)`` is the multinomial expectation

    p(p01, p10) = sum_{a + m <= n} n! / (a! m! (n - a - m)!) p01^a p10^m (1 - p01 - p10)^(n - a - m) f(a, m).

Along a null line ``p10 - p01 = Delta0`` parametrised by the discordance ``psi = p01 + p10``
(``p01 = (psi - Delta0) / 2``, ``p10 = (psi + Delta0) / 2``), the probabilities are linear in
``psi`` with direction ``(1/2, 1/2, -1)``, so ``p''(psi) = n (n - 1) E_{n-2}[Delta^2 f]`` with
``Delta f(a, m) = f(a + 1, m) / 2 + f(a, m + 1) / 2 - f(a, m)`` (the Bernstein-polynomial
derivative of a multinomial): the exact curvature :mod:`dpinfer.inference.two_arm._certify`
uses.  Its bounds carry over: ``|Delta^k f| <= 2^(k-1)`` as for a binomial (the direction's
positive part sums to 1), and the score moments are ``k! n^(k) I^k`` with the Fisher
information along the line ``I = 1 / (4 p01) + 1 / (4 p10) + 1 / (1 - psi)`` (``1 / (psi (1 - psi))``
at ``Delta0 = 0``), given to the certificate as its weight (:class:`_Line`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, xlogy

__all__ = []  # private module

#: ties of the ordering are decided on multiples of this (see the module docstring)
TIE_STEP = 2.0**-32


def discrete_laplace(epsilon_1):
    """``(pmf(e), tail(k) = P(E >= k))`` of the integer part of the Tulap noise of ``epsilon_1``."""
    b = math.exp(-epsilon_1)
    norm = (1.0 - b) / (1.0 + b)

    def pmf(e):
        return norm * np.exp(-epsilon_1 * np.abs(e))

    def tail(k):
        # k >= 1: b^k / (1 + b); k <= 0: 1 - b^(1 - k) / (1 + b), at least 1/2 (no cancellation)
        k = np.asarray(k, float)
        far = np.exp(-epsilon_1 * np.where(k >= 1, k, 1.0 - k)) / (1.0 + b)
        return np.where(k >= 1, far, 1.0 - far)

    return pmf, tail


def ordering(n, epsilon_1):
    """``M[c + n, j]``: the monotone closure of McNemar's studentized ordering on the clipped parts."""
    b = math.exp(-epsilon_1)
    v = 2.0 * b / (1.0 - b) ** 2
    c = np.arange(-n, n + 1, dtype=float)[:, None]
    j = np.arange(0, n + 1, dtype=float)[None, :]
    g = c / np.sqrt(np.maximum(j + v, 1.0))
    g = np.round(g / TIE_STEP) * TIE_STEP
    g[0] = np.maximum.accumulate(g[0][::-1])[::-1]  # column c = -n: nonincreasing in j
    for row in range(1, 2 * n + 1):
        prev = g[row - 1]
        best = prev.copy()
        best[1:] = np.maximum(best[1:], prev[:-1])
        best[:-1] = np.maximum(best[:-1], prev[1:])
        g[row] = np.maximum(g[row], best)
    g[-1] = np.maximum.accumulate(g[-1])  # column c = n: nondecreasing in j
    return g


@dataclass(frozen=True)
class Observed:
    """A release's place in the order: ``level = M(c, j)``, the integer part ``k`` and ``z`` of ``z_D``."""

    level: float
    k: int
    z: float


def observe(order, n, z_d, z_s, half_step, upper):
    """The least favourable point of the release's grid cell for the upper (lower) tail."""
    k_d, k_s = int(round(z_d)), int(round(z_s))
    c, j = min(max(k_d, -n), n), min(max(k_s, 0), n)
    z = z_d - half_step if upper else z_d + half_step
    return Observed(float(order[c + n, j]), k_d, float(z))


def given_counts(order, n, epsilon_1, obs, upper):
    """``F[a, m] = P(T >= obs | n01 = a, n10 = m)`` (``upper``) or ``P(T <= obs | ...)``; 0 where ``a + m > n``."""
    pmf, tail = discrete_laplace(epsilon_1)
    d = np.arange(-n, n + 1)[:, None]
    c = np.arange(-n, n + 1)[None, :]
    B = pmf(c - d)
    B[:, -1:] = tail(n - d)
    B[:, :1] = tail(n + d)
    k = obs.k
    share = (k + 0.5 - obs.z) if upper else (obs.z - k + 0.5)
    share = min(max(share, 0.0), 1.0)
    dd = d[:, 0]
    if upper:
        Bt = np.where(c > k, B, 0.0)
        inside = -n < k < n
        if inside:
            Bt[:, k + n] = pmf(k - dd) * share
        if k >= n:
            Bt[:, -1] = tail(k + 1 - dd) + pmf(k - dd) * share
        if k <= -n:
            Bt[:, 0] = pmf(k - dd) * share + np.maximum(tail(n + dd) - tail(dd - k), 0.0)
        if k < -n:
            Bt[:, 1:] = B[:, 1:]
        level_cmp = order > obs.level
    else:
        Bt = np.where(c < k, B, 0.0)
        if -n < k < n:
            Bt[:, k + n] = pmf(k - dd) * share
        if k <= -n:
            Bt[:, 0] = tail(dd - k + 1) + pmf(k - dd) * share
        if k >= n:
            Bt[:, -1] = pmf(k - dd) * share + np.maximum(tail(n - dd) - tail(k - dd), 0.0)
        if k > n:
            Bt[:, :-1] = B[:, :-1]
        level_cmp = order < obs.level
    ties = order == obs.level
    # H[j, d] = sum_c (1[M beyond] B[d, c] + 1[M tied] B_t[d, c])
    H = level_cmp.T.astype(float) @ B.T + ties.T.astype(float) @ Bt.T
    s = np.arange(0, n + 1)[:, None]
    j = np.arange(0, n + 1)[None, :]
    A = pmf(j - s)
    A[:, :1] = tail(s)
    A[:, -1:] = tail(n - s)
    f = A @ H  # f[s, d + n]
    a = np.arange(n + 1)[:, None]
    m = np.arange(n + 1)[None, :]
    F = np.where(a + m <= n, f[np.minimum(a + m, n), np.clip(m - a + n, 0, 2 * n)], 0.0)
    return np.clip(F, 0.0, 1.0)


@functools.lru_cache(maxsize=8)
def _triangle(n):
    """The lattice ``a + m <= n`` flattened: ``(a, m, rest, log multinomial coefficient)``."""
    a, m = np.triu_indices(n + 1)
    a, m = m - a, a  # every (a, m) with a + m <= n once: (i, j), i <= j  ->  (j - i, i)
    rest = n - a - m
    return a, m, rest, gammaln(n + 1) - gammaln(a + 1) - gammaln(m + 1) - gammaln(rest + 1)


def expectation(G, p01, p10, chunk=64):
    """``E G(n01, n10)`` under the multinomial of ``n = G.shape[0] - 1`` pairs at arrays ``p01``, ``p10``.

    Positive terms when ``G >= 0`` (each product computed in log space, then summed).
    """
    n = G.shape[0] - 1
    a, m, rest, logm = _triangle(n)
    values = G[a, m]
    p01 = np.atleast_1d(np.asarray(p01, float))
    p10 = np.atleast_1d(np.asarray(p10, float))
    pc = np.maximum(1.0 - p01 - p10, 0.0)
    out = np.empty(p01.shape)
    for lo in range(0, p01.size, chunk):
        sl = slice(lo, lo + chunk)
        logp = (logm + xlogy(a, p01[sl, None]) + xlogy(m, p10[sl, None]) + xlogy(rest, pc[sl, None]))
        out[sl] = np.exp(logp) @ values
    return out


def second_difference(F):
    """``Delta^2 F`` on the lattice of ``n - 2`` pairs (direction ``(1/2, 1/2, -1)``)."""
    first = 0.5 * F[1:, :-1] + 0.5 * F[:-1, 1:] - F[:-1, :-1]
    return 0.5 * first[1:, :-1] + 0.5 * first[:-1, 1:] - first[:-1, :-1]


@dataclass(frozen=True)
class _Line:
    """The null line ``p10 - p01 = margin`` as :func:`~dpinfer.inference.two_arm._certify.certified_sup` reads it.

    The certificate's first arm is absent (``n1 = 0``); the second is the multinomial of the
    pairs, whose score weight is the Fisher information along the line (:meth:`weights`).
    """

    margin: float

    @property
    def low(self):
        return abs(self.margin)

    def theta1(self, nu):
        return np.full(np.shape(nu), 0.5)

    def derivative_bounds(self, a, b):
        return 0.0, 0.0

    def information(self, psi):
        psi = np.asarray(psi, float)
        p01, p10 = (psi - self.margin) / 2.0, (psi + self.margin) / 2.0
        inside = (p01 > 0) & (p10 > 0) & (psi < 1)
        safe = lambda x: np.where(inside, x, 1.0)  # noqa: E731
        return inside, np.where(inside, 0.25 / safe(p01) + 0.25 / safe(p10) + 1.0 / safe(1.0 - psi), np.inf)

    def weights(self, a, b):
        """``(inside, 1, I)``: ``I`` the largest Fisher information over each cell (convex: at an end)."""
        ia, wa = self.information(a)
        ib, wb = self.information(b)
        inside = ia & ib
        return inside, np.ones(np.shape(a)), np.where(inside, np.maximum(wa, wb), 1.0)

    def probabilities(self, psi):
        psi = np.asarray(psi, float)
        return np.maximum((psi - self.margin) / 2.0, 0.0), np.maximum((psi + self.margin) / 2.0, 0.0)


def tail_on_line(F, line, psi):
    """``(p(psi), p''(psi))`` along the null line (arrays)."""
    n = F.shape[0] - 1
    p01, p10 = line.probabilities(psi)
    values = np.clip(expectation(F, p01, p10), 0.0, 1.0)
    if n < 2:
        return values, np.zeros_like(values)
    curvature = n * (n - 1) * expectation(second_difference(F), p01, p10)
    return values, curvature
