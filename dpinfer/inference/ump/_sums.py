"""Pure-Python twins of the compiled sum kernels of ``_jit`` (private; inputs are assumed valid).

Why: loading the compiled kernels costs a fresh process 0.35 to 0.7 s (numba's import and
the cached machine code), ten times the arithmetic of a first p-value or interval.  These
twins do the same floating-point operations in the same order as ``_jit.log_sum_full``,
``_jit.log_two_sided_full`` (the sums over every x = 0..n, n <= ``_kernels._FULL_N``),
``_jit.right_start`` and ``_jit.log_sum_interior`` (the windowed sums of larger n)
(Python's ``math`` and numba both call the C library's ``exp``,
``log``, ``log1p`` and ``expm1``; every other step is one IEEE operation), so they return
the *same doubles*: which of the two runs never changes a result (checked bit for bit in
``tests/inference/test_ump_jit.py``).  ``_kernels._compiled`` hands out these twins for
small work until the compiled kernels are loaded; the Illinois bookkeeping of the interval
search uses the numpy versions of ``_intervals``, which are elementwise IEEE arithmetic and
agree bit for bit with the compiled ones too.
"""

from __future__ import annotations

import math

import numpy as np

from ._loader_parts import _STIRLERR as _STIRLERR_TABLE
from ._loader_parts import _two_product_error

_INF = math.inf
_LOG_HALF = math.log(0.5)


def _law_constants(log_b, q):
    """``_jit._law_constants``: b, 1 - b, log(1 + b), log(q / 2), log(1 - q)."""
    b = math.exp(log_b)
    if q > 0.0:
        return b, -math.expm1(log_b), math.log1p(b), math.log(q) - math.log(2.0), math.log1p(-q)
    return b, -math.expm1(log_b), math.log1p(b), -_INF, 0.0


def _log1mexp(x):
    """``_jit._log1mexp``: log(1 - e^x) for x <= 0."""
    if x > _LOG_HALF:
        if x < 0.0:
            return math.log(-math.expm1(x))
        return -_INF
    return math.log1p(-math.exp(x))


class _LogCdf:
    """``_jit._log_cdf`` with its one-entry memo of the offset's logarithm."""

    __slots__ = ("log_b", "b", "scale", "log1p_b", "log_q_half", "log1m_q", "f", "inner")

    def __init__(self, log_b, q):
        self.log_b = log_b
        self.b, self.scale, self.log1p_b, self.log_q_half, self.log1m_q = _law_constants(log_b, q)
        self.f = math.nan
        self.inner = 0.0

    def __call__(self, t):
        s = -abs(t)
        k = float(round(s)) if math.isfinite(s) else s  # half to even, as np.rint
        f = s - k + 0.5
        if f == self.f:
            inner = self.inner
        elif self.log_b > -700.0:
            inner = math.log(self.b + self.scale * f)
        else:
            lf = math.log(f) if f > 0.0 else -_INF
            a2 = math.log1p(-self.b) + lf
            inner = max(self.log_b, a2) + math.log1p(math.exp(-abs(self.log_b - a2)))
        self.f = f
        self.inner = inner
        small = inner - k * self.log_b - self.log1p_b
        if small > 0.0:
            small = 0.0
        out = small if t <= 0.0 else _log1mexp(small)
        if self.log_q_half == -_INF:
            return out
        if out > self.log_q_half:
            d = self.log_q_half - out
            diff = out + _log1mexp(min(d, 0.0))
            return min(diff - self.log1m_q, 0.0)
        return -_INF


def _lse_row(buf):
    """``_jit._lse_row``: log(sum(exp(buf))) in the same order."""
    top = -_INF
    for v in buf:
        if v > top:
            top = v
    if top == -_INF or not math.isfinite(top):
        return top
    acc = 0.0
    for v in buf:
        acc += math.exp(v - top)
    return top + math.log(acc)


def log_sum_full(z, n, p, log_b, q, xmin, log_c):
    """``_jit.log_sum_full``: log sum_{x >= xmin} Binom(x; n, p) F(x - z) over x = 0..n."""
    log_cdf = _LogCdf(log_b, q)
    log_c = log_c.tolist()
    out = np.empty(z.size)
    for i, (zi, pi, lo) in enumerate(zip(z.tolist(), p.tolist(), xmin.tolist())):
        lp, lq = math.log(pi), math.log1p(-pi)
        buf = []
        for x in range(n + 1):
            if x < lo:
                continue
            xf = float(x)
            buf.append(log_cdf(xf - zi) + log_c[x] + xf * lp + (n - xf) * lq)
        out[i] = _lse_row(buf)
    return out


def log_two_sided_full(z, n, p0, log_b, q, log_c):
    """``_jit.log_two_sided_full``: both tails of the asymptotically unbiased two-sided
    p-value in one pass over x = 0..n."""
    log_cdf = _LogCdf(log_b, q)
    log_c = log_c.tolist()
    out = np.empty(z.size)
    for i, (zi, pi) in enumerate(zip(z.tolist(), p0.tolist())):
        centre = n * pi
        t = abs(zi - centre)
        lp, lq = math.log(pi), math.log1p(-pi)
        up, down = [], []
        for x in range(n + 1):
            xf = float(x)
            lb = log_c[x] + xf * lp + (n - xf) * lq
            up.append(lb + log_cdf(xf - (centre + t)))
            down.append(lb + log_cdf((centre - t) - xf))
        a1, a2 = _lse_row(up), _lse_row(down)
        if a1 == -_INF and a2 == -_INF:
            both = -_INF
        else:
            top = max(a1, a2)
            both = top + math.log1p(math.exp(min(a1, a2) - top))
        out[i] = min(both, 0.0)
    return out


# -- the windowed sum for n > _FULL_N (``_jit.right_start`` and ``_jit.log_sum_interior``) --

_LOG_TOL = 39.2
_WCAP = 32768
_LOG_2PI = math.log(2.0 * math.pi)
_ANCHOR = 8
_LINEAR_MIN_LOG_B = -30.0
_LINEAR_ANCHOR = 16
_LINEAR_TINY = -600.0
_STIRLERR = tuple(float(v) for v in _STIRLERR_TABLE)  # Python floats: faster to index


def _ceil(x):
    return float(math.ceil(x)) if math.isfinite(x) else x


def _floor(x):
    return float(math.floor(x)) if math.isfinite(x) else x


def _stirlerr(k):
    if k > 15.0:
        kk = k * k
        return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - (1 / 1188) / kk) / kk) / kk) / kk) / k
    return _STIRLERR[int(k)]


def _bd0(x, mean, d):
    tot = x + mean
    if abs(d) < 0.1 * tot:
        v = d / tot
        s = d * v
        v2 = v * v
        if v2 == 0.0:
            return s
        ej = 2.0 * x * v
        terms = min(59, int(_ceil(61.0 * math.log(2.0) / -math.log(v2))) + 1)
        for j in range(1, terms + 1):
            ej = ej * v2
            s = s + ej / (2 * j + 1)
        return s
    r = x / mean
    if r == _INF:
        return _INF
    return x * math.log(r) + mean - x


def _log_pmf(x, n, p, st_n):
    if x == 0.0:
        return n * math.log1p(-p)
    if x == n:
        return n * math.log(p)
    nx = n - x
    mp = n * p
    dx = (x - mp) - _two_product_error(n, p, mp)  # x - n p accurately, as the compiled kernels
    lc = st_n - _stirlerr(x) - _stirlerr(nx) - _bd0(x, mp, dx) - _bd0(nx, n * (1.0 - p), -dx)
    small = min(x, nx)
    lf = _LOG_2PI + math.log(small) + math.log1p(-small / max(n, 2.0))
    return lc - 0.5 * lf


def _log_tail_parts(t, log_b, b, inner_scale, log1p_b):
    s = -abs(t)
    k = float(round(s))
    f = s - k + 0.5
    small = math.log(b + inner_scale * f) - k * log_b - log1p_b
    if small > 0.0:
        small = 0.0
    if t <= 0.0:
        return small, math.exp(small)
    return _log1mexp(small), math.exp(small)


def _window_log_sum_linear(lo, width, zi, nf, pi, st_n, log_b, b, inner_scale, log1p_b,
                           log_right):
    """log(sum_{j < width} Binom(lo + j) F(lo + j - z) + e^log_right) for q = 0, in linear
    space; NaN when the linear sum overflows (the caller then sums in logs).

    Every _LINEAR_ANCHOR-th term (and the first term right of z, x = n, and every term
    after one below e^_LINEAR_TINY of the running reference) is computed exactly in logs,
    as the log-space loop does.  In between, a term is the previous one times the binomial
    ratio (n - x + 1) / x * p / (1 - p) and the Tulap ratio, which is exactly 1/b left of z
    (F(t + 1) = F(t) / b for t + 1 <= 0) and (1 - u b) / (1 - u) right of it
    (1 - F(t + 1) = b (1 - F(t)) for t > 0).  The sum is kept relative to the largest
    anchor so far (rescaled when a larger one comes), so no transcendental function runs
    between anchors.
    """
    ref = log_right
    acc = 1.0 if log_right > -_INF else 0.0
    odds = pi / (1.0 - pi)
    inv_b = 1.0 / b
    term = 0.0
    u = 0.0
    right_side = False
    exact_next = False
    for j in range(width):
        x = lo + j
        t = x - zi
        if (exact_next or j % _LINEAR_ANCHOR == 0 or x >= nf
                or (t > 0.0 and not right_side)):
            lc, u = _log_tail_parts(t, log_b, b, inner_scale, log1p_b)
            right_side = t > 0.0
            la = _log_pmf(x, nf, pi, st_n) + lc
            if la > ref:
                acc = acc * math.exp(ref - la) if ref > -_INF else 0.0
                ref = la
            term = math.exp(la - ref) if la > -_INF else 0.0
            exact_next = la - ref < _LINEAR_TINY
        elif right_side:
            u_next = u * b
            term = term * ((nf - x + 1.0) / x * odds) * ((1.0 - u_next) / (1.0 - u))
            u = u_next
        else:
            term = term * ((nf - x + 1.0) / x * odds) * inv_b
        acc += term
    if not math.isfinite(acc):
        return math.nan
    if acc == 0.0:
        return -_INF
    return ref + math.log(acc)


def _binom_upper_row(k, nf, p, st_n):
    """P(X >= k), X ~ Binom(n, p), 1 <= k <= n whole, 0 < p < 1, by summing the pmf.

    Above the mode ((n + 1) p <= k) the terms from k up, else 1 - P(X <= k - 1) with the
    terms from k - 1 down (that sum is at most about 1/2: k - 1 is below the median, so the
    complement loses at most one bit).  Either way the terms decrease away from the start
    and their ratio r (binomial log-concavity) decreases too, so the terms not summed are at
    most term r / (1 - r): the sum stops when that is below 2**-60 of the sum.  Terms are the
    previous one times r, with Loader's log pmf every 32 terms and at x = n (96 roundings
    between anchors at most: 1.1e-14 relative).
    """
    odds = p / (1.0 - p)
    up = k >= (nf + 1.0) * p
    x = k if up else k - 1.0
    ref = _log_pmf(x, nf, p, st_n)
    acc = 1.0
    term = 1.0
    j = 0
    while (x < nf) if up else (x > 0.0):
        r = (nf - x) / (x + 1.0) * odds if up else x / (nf - x + 1.0) / odds
        if r < 1.0 and term * r <= 8.673617379884035e-19 * acc * (1.0 - r):
            break
        x = x + 1.0 if up else x - 1.0
        j += 1
        if j % 32 == 0 or x >= nf or x <= 0.0:
            term = math.exp(_log_pmf(x, nf, p, st_n) - ref)
        else:
            term = term * r
        acc += term
    tail = math.exp(ref + math.log(acc))
    return tail if up else 1.0 - tail


def binom_upper(ks, nf, p):
    """``_jit.binom_upper``: P(X >= k) per row (used for n <= ``_kernels._DIRECT_TAIL_N``)."""
    st_n = _stirlerr(nf)
    return np.array([_binom_upper_row(k, nf, pi, st_n) for k, pi in zip(ks.tolist(), p.tolist())])


def right_start(z, nf, xmin, big_k):
    """``_jit.right_start``: the start hi of the right region and betainc's first argument."""
    hi = np.empty(z.size)
    ks = np.empty(z.size)
    for i, (zi, xm) in enumerate(zip(z.tolist(), xmin.tolist())):
        h = min(max(max(_ceil(zi + big_k), xm), 0.0), nf + 1.0)
        hi[i] = h
        ks[i] = h if (h >= 1.0 and h <= nf) else 1.0
    return hi, ks


def log_sum_interior(z, n, p, log_b, q, xmin, c_q, upper, hi):
    """``_jit.log_sum_interior``: the direct window and the right tail of every row."""
    size = z.size
    out = np.empty(size)
    closed = np.zeros(size, dtype=np.bool_)
    m_out = np.empty(size)
    nf = float(n)
    log_cdf = _LogCdf(log_b, q)
    b, inner_scale, log1p_b = log_cdf.b, log_cdf.scale, log_cdf.log1p_b
    st_n = _stirlerr(nf)
    rows = zip(z.tolist(), p.tolist(), xmin.tolist(), upper.tolist(), hi.tolist())
    for i, (zi, pi, xm, u, h) in enumerate(rows):
        m = min(_floor(zi), nf)
        m_out[i] = m
        has_left = m >= xm
        if m >= 1.0:
            ms = min(max(m, 1.0), nf)
            log_r = (math.log(ms) - math.log(nf - ms + 1.0) + math.log1p(-pi) - math.log(pi)
                     + log_b)
        else:
            log_r = -_INF
        geometric_ok = log_r < -40.0 / _WCAP
        if log_r == -_INF or log_r == 0.0:  # (0: numba's x / 0 is infinite, need then 1)
            need = 1.0
        else:
            lr = min(log_r, -1e-300)
            need = _ceil((_LOG_TOL - math.log(-math.expm1(lr))) / -log_r) + 1.0
            if not math.isfinite(need):
                need = 1.0
        floor_x = xm
        if q > 0.0:
            floor_x = max(floor_x, _ceil(zi - c_q) - 1.0)
        lo = max(m - need + 1.0, floor_x) if geometric_ok else floor_x
        if (not geometric_ok) and has_left and q == 0.0 and (m - floor_x + 1.0 > _WCAP):
            closed[i] = True
            lo = m + 1.0
        lo = min(max(lo, 0.0), nf + 1.0)
        width = int(max(h - lo, 0.0))
        if h <= 0.0:
            log_right = 0.0
        elif h > nf:
            log_right = -_INF
        else:
            log_right = math.log(u) if u > 0.0 else -_INF
        if q == 0.0 and log_b > _LINEAR_MIN_LOG_B:
            out[i] = _window_log_sum_linear(lo, width, zi, nf, pi, st_n, log_b, b, inner_scale,
                                            log1p_b, log_right)
            if not math.isnan(out[i]):
                continue
        log_odds = math.log(pi) - math.log1p(-pi)
        anchor = 0.0
        prod = 1.0
        buf = []
        for j in range(width):
            x = lo + j
            k = j % _ANCHOR
            if k == 0 or x >= nf:
                anchor = _log_pmf(x, nf, pi, st_n)
                prod = 1.0
                lpmf = anchor
            else:
                prod *= (nf - x + 1.0) / x
                lpmf = anchor + (k * log_odds + math.log(prod))
            buf.append(lpmf + log_cdf(x - zi))
        buf.append(log_right)
        out[i] = _lse_row(buf)
    return out, closed, m_out
