"""Loader's binomial pmf: the numpy version, and the pieces shared with the scalar kernels.

One definition each, so the numpy kernels (``_kernels``) and the scalar kernels
(``_sums``, run as Python or compiled by ``_jit``) compute the same doubles: the
``stirlerr`` table and Dekker's exact two-product (``x - n p`` in Loader's ``bd0``; numba
compiles this same function in ``_jit``).  ``_log_pmf`` (with ``_stirlerr`` and ``_bd0``)
is the numpy path's log pmf, vectorised over arrays; ``_sums`` holds the scalar one.
"""

from __future__ import annotations

import numpy as np

__all__ = []  # private module

_LOG_2PI = float(np.log(2.0 * np.pi))

# stirlerr(k) = log k! - (k + 1/2) log k + k - log sqrt(2 pi), k = 0..15 (mpmath, 40 digits)
_STIRLERR = np.array([
    0.0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834,
    0.020790672103765093, 0.016644691189821193, 0.013876128823070748,
    0.01189670994589177, 0.010411265261972096, 0.009255462182712733,
    0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
    0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
])


def _two_product_error(a, b, prod):
    """``a b - prod`` exactly for ``prod = fl(a b)`` (Dekker's split; no overflow for |a| < 2**970)."""
    split = 134217729.0  # 2**27 + 1
    c = split * a
    ah = c - (c - a)
    al = a - ah
    c = split * b
    bh = c - (c - b)
    bl = b - bh
    return ((ah * bh - prod) + ah * bl + al * bh) + al * bl


def _stirlerr(k):
    """Loader's stirlerr for whole numbers k >= 0 (array): table to 15, else the 5-term series."""
    k = np.asarray(k, dtype=float)
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    big = k > 15
    kb = np.where(big, k, 16.0)
    kk = kb * kb
    series = (s0 - (s1 - (s2 - (s3 - s4 / kk) / kk) / kk) / kk) / kb
    table = _STIRLERR[np.where(big, 0, k).astype(np.int64)]
    return np.where(big, series, table)


def _bd0(x, mean, d=None):
    """Loader's bd0(x, M) = x log(x / M) + M - x without cancellation (x > 0, M > 0).

    ``d`` is ``x - M`` when the caller knows it more accurately than ``x - fl(M)``: at
    large n the mean ``n p`` rounds to ``2**-53 n p`` absolute, which moved log pmf by
    about ``|x - n p| 1e-16`` (1e-9 at n = 2**47; issue 26 W4).

    Where |x - M| < 0.1 (x + M), the series sum_j 2 x v**(2j+1) / (2j + 1), v = (x - M) /
    (x + M), is summed to a fixed number of terms set by the largest v in the array: term j
    is below 2 v**(2j) of the first, so j with v**(2j) < 2**-61 leaves nothing a double can
    hold (the same sum as iterating until it stops changing, without a test per step).
    """
    if d is None:
        d = x - mean
    tot = x + mean
    small = np.abs(d) < 0.1 * tot
    v = np.where(small, d / tot, 0.0)
    s = d * v
    ej = 2.0 * x * v
    v2 = v * v
    v2max = float(v2.max()) if v2.size else 0.0
    terms = 0 if v2max == 0.0 else min(59, int(np.ceil(61.0 * np.log(2.0) / -np.log(v2max))) + 1)
    for j in range(1, terms + 1):
        ej = ej * v2
        s = s + ej / (2 * j + 1)
    if small.all():
        return s
    # A subnormal mean (p near 0) makes x / mean overflow to inf: the term is then
    # +inf, i.e. a pmf of exactly 0, which is the right value in doubles.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        big = x * np.log(np.where(small, 1.0, x / mean)) + mean - x
    return np.where(small, s, big)


def _log_pmf(x, n, p):
    """log Binom(x; n, p) by Loader's algorithm (R's dbinom_raw), 0 < p < 1, 0 <= x <= n."""
    x = np.asarray(x, dtype=float)
    p = np.asarray(p, dtype=float)
    q = 1.0 - p  # exact for p >= 1/2 (Sterbenz); p itself is the input otherwise
    inner = (x > 0) & (x < n)
    xs = np.where(inner, x, 1.0)
    ns = float(max(n, 2))
    nx = np.where(inner, n - xs, 1.0)
    # x and n - x through stirlerr and bd0 in one pass each
    mp = n * p
    # x - n p to a few ulps of itself (n p = fl(n p) + e exactly), and n - x - n q = -(x - n p)
    dx = (xs - mp) - _two_product_error(float(n), p, mp)
    xs, nx, mp, mq, dx = np.broadcast_arrays(xs, nx, mp, n * q, dx)
    st = _stirlerr(np.stack([xs, nx]))
    bd = _bd0(np.stack([xs, nx]), np.stack([mp, mq]), np.stack([dx, -dx]))
    lc = float(_stirlerr(n)) - st[0] - st[1] - bd[0] - bd[1]
    # log(x (n - x) / n) from the smaller of x and n - x: x / n rounds to 1e-16 absolute,
    # so log1p(-x / n) would lose n / (n - x) ulps next to x = n (R's dbinom_raw does that)
    small = np.minimum(xs, nx)
    lf = _LOG_2PI + np.log(small) + np.log1p(-small / ns)
    general = lc - 0.5 * lf
    if inner.all():
        return general
    with np.errstate(divide="ignore"):
        at0 = n * np.log1p(-p)
        atn = n * np.log(p)
    return np.where(x == 0, at0, np.where(x == n, atn, general))
