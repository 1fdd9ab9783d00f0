"""The stratified test's supremum over the baseline rates, in closed form (kernel; valid input assumed).

Stratum ``s`` has two arms of ``n_s`` trials each, ``X_1s ~ Binomial(n_s, theta_s + Delta)``
and ``X_2s ~ Binomial(n_s, theta_s)`` on the null boundary of a common risk difference
``Delta``.  Pair the trials of the two arms one to one: each pair contributes
``xi = x_1 - x_2`` in {-1, 0, 1} with ``P(xi = 1) - P(xi = -1) = Delta`` and
``P(xi != 0) = pi``.  So ``xi`` is (for ``Delta >= 0``) ``+1`` with probability ``Delta``, a
fair sign (Rademacher) with probability ``r = pi - Delta``, else 0; for ``Delta < 0`` the
mirror image (``-1`` with probability ``|Delta|``).  Here
``r(theta) = 2 theta (1 - theta - Delta)`` (``Delta >= 0``) or ``2 (theta + Delta)(1 - theta)``
(``Delta < 0``).  Hence, summing over trials and strata,

    Y = sum_s (X_1s - X_2s) = sign(Delta) A + R_B,

with ``A = sum_s A_s``, ``A_s ~ Binomial(n_s, |Delta|)`` (free of the nuisance),
``B_s | A_s ~ Binomial(n_s - A_s, lambda_s)``, ``lambda_s = r(theta_s) / (1 - |Delta|)``, and
``R_B`` a sum of ``B`` fair signs.  With ``E`` the noise sum, the upper tail is

    P(Y + E >= t) = E[g(A, B)],   g(a, m) = P(sign(Delta) a + R_m + E >= t).

``B`` is stochastically increasing in each ``lambda_s`` given the ``A_s``.  So with
``g*(a, m) = max_{j <= m} g(a, j)`` (the least majorant nondecreasing in ``m``),

    sup_theta E[g(A, B)] <= E_{lambda_hi}[g*(A, B)],

``lambda_hi`` the largest ``lambda_s`` over the nuisance set (a concave quadratic in
``theta_s``: its vertex ``(1 - Delta)/2``, clamped).  The null is composite,
``theta_1s <= theta_2s + Delta``; the tail increases with ``theta_1s``, so its supremum is at
``theta_1s = min(1, theta_2s + Delta)``.  Rates ``theta_2s > 1 - Delta`` (where ``theta_1s = 1``)
give tails no larger than at ``theta_2s = 1 - Delta`` (the tail decreases in ``theta_2s``), a point
of the line; rates ``theta_2s < -Delta`` hold no null point.  The bound is certified (no grid); the
value at the maximising nuisance, ``E_{lambda_hi}[g(A, B)]``, is a point of the null, so the
supremum lies between the two (reported).  Where ``g`` is already nondecreasing in ``m``
(the usual case in the upper tail) they coincide and the supremum is exact.

``g`` comes from the noise tails ``h(y) = P(E >= t - y)`` by the recursion of a fair walk,
``H_0 = h``, ``H_{m+1}(y) = (H_m(y - 1) + H_m(y + 1)) / 2``, ``g(a, m) = H_m(sign a)``: averages
of non-negative numbers.  The joint pmf of ``(A, B)`` is a convolution over strata of the
``(n_s + 1)^2`` pmfs ``Binom(a; n_s, |Delta|) Binom(b; n_s - a, lambda_s)``.  At ``Delta = 0``
(the test of no effect) it is one-dimensional and summed directly (non-negative terms: every
p-value keeps its relative precision).  Otherwise (a margin, and the interval's search) the
two-dimensional convolution is direct only while tiny (``DIRECT_LIMIT`` multiply-adds; scipy's
direct N-d correlation is slow) and else by FFT, with an absolute error near 1e-16 per entry:
a p-value at a non-zero margin below about 1e-13 is then accurate in absolute terms only
(decisions at any level above 1e-10 are unaffected).
"""

from __future__ import annotations


import numpy as np
from scipy import signal, stats

__all__ = []  # private module

#: above this many multiply-adds a two-dimensional convolution goes through the FFT
DIRECT_LIMIT = 100_000


def walk_tails(h, big_n):
    """``H[m, a + N] = g(a, m)`` for ``m = 0..N``, ``a = -N..N``, from ``h`` on ``y = -2N..2N``."""
    current = np.array(h, dtype=float)
    out = np.empty((big_n + 1, 2 * big_n + 1))
    for m in range(big_n + 1):
        out[m] = current[big_n:3 * big_n + 1]
        nxt = current.copy()
        nxt[1:-1] = 0.5 * (current[:-2] + current[2:])
        current = nxt  # the two ends go stale one cell per step: never read (|y| <= N, m <= N)
    return out


def lambda_high(delta, box):
    """``lambda_hi`` of one stratum for the nuisance interval ``box`` (None: empty null set there)."""
    low, high = max(box[0], 0.0, -delta), min(box[1], 1.0, 1.0 - delta)
    if box[1] < -delta:
        return None  # every rate in the box would need theta_1 = theta + delta < 0: no null point
    if low > high:
        # the box lies above 1 - delta: there theta_1 = 1 <= theta + delta, and the tail, decreasing
        # in theta, is largest at the line's end theta = 1 - delta (outside the box: a bound)
        low = high = 1.0 - delta
    theta = min(max((1.0 - delta) / 2.0, low), high)
    r = 2.0 * theta * (1.0 - theta - delta) if delta >= 0.0 else 2.0 * (theta + delta) * (1.0 - theta)
    return min(max(r / (1.0 - abs(delta)), 0.0), 1.0)


def joint_pmf(ns, delta, lambdas):
    """``P(A = a, B = b)`` as an array ``(N + 1, N + 1)`` (``(1, N + 1)`` when ``delta = 0``)."""
    if delta == 0.0:
        out = np.ones(1)
        for n, lam in zip(ns, lambdas):
            out = np.convolve(out, stats.binom.pmf(np.arange(n + 1), n, lam))
        return out[None, :]
    out = np.ones((1, 1))
    for n, lam in zip(ns, lambdas):
        a = np.arange(n + 1)
        one = stats.binom.pmf(a, n, abs(delta))[:, None] * stats.binom.pmf(a[None, :], (n - a)[:, None], lam)
        direct = out.size * one.size <= DIRECT_LIMIT
        out = signal.convolve(out, one, method="direct" if direct else "fft")
        out = np.maximum(out, 0.0)
    return out


def bound(walk, ns, delta, boxes):
    """``(certified upper bound, value at the maximising nuisance)`` of the supremum of the upper tail."""
    lambdas = [lambda_high(delta, box) for box in boxes]
    if any(lam is None for lam in lambdas):
        return 0.0, 0.0  # the null set meets the box nowhere in some stratum: nothing to bound
    big_n = sum(ns)
    joint = joint_pmf(ns, delta, lambdas)
    sign = 0 if delta == 0.0 else (1 if delta > 0.0 else -1)
    rows = big_n + sign * np.arange(joint.shape[0])
    g = walk[:, rows].T  # g[a, m]
    g_star = np.maximum.accumulate(g, axis=1)
    located = float(np.einsum("ab,ab->", joint, g))
    upper = float(np.einsum("ab,ab->", joint, g_star))
    return min(upper, 1.0), min(located, 1.0)
