"""The DP-UMP sum kernels, written once: run as Python, or compiled by numba (``_jit``).

Private; inputs are assumed valid.  Each function here is the one definition of its
formula (Loader's saddle-point log pmf, the Tulap log cdf, the windows and truncation
rules of ``_kernels``), written as scalar loops in the subset of Python that numba
compiles.  ``_jit`` compiles every function of :data:`COMPILED` from this very code
(``types.FunctionType`` of its ``__code__`` with ``_jit``'s globals), so the compiled
kernels and the Python run cannot drift apart.  The only names that differ between the
two runs are the storage and rounding helpers below the constants (a list or a numpy
array for a buffer; ``math.floor`` or ``np.floor``), which give the same doubles.

Why both: loading the compiled kernels costs a fresh process 0.35 to 0.7 s (numba's
import and the cached machine code), ten times the arithmetic of a first p-value or
interval.  ``_kernels._compiled`` runs this module as Python for small work until the
compiled kernels are loaded (ski rental).  Python's ``math`` and numba both call the C
library's ``exp``, ``log``, ``log1p`` and ``expm1``, and every other step is one IEEE
operation in the same order, so which of the two runs never changes a result (checked
bit for bit in ``tests/inference/ump/test_ump_jit.py``).
"""

from __future__ import annotations

import math

import numpy as np

from ._loader_parts import _STIRLERR as _STIRLERR_TABLE
from ._loader_parts import _two_product_error

__all__ = []  # private module

#: the functions ``_jit`` compiles from this source (every function below but the helpers above)
COMPILED = ("_law_constants", "_log1mexp", "_log_cdf", "_lse_row", "_stirlerr", "_bd0", "_log_pmf",
            "_log_tail_parts", "_window_log_sum_linear", "_binom_upper_row", "binom_upper", "right_start",
            "log_sum_interior", "log_sum_full", "log_two_sided_full")

_INF = math.inf
_LOG_HALF = math.log(0.5)
_LOG_TOL = 39.2
_WCAP = 32768
_LOG_2PI = math.log(2.0 * math.pi)
# Loader's log pmf at every _ANCHOR-th term of a window; in between, log Binom(x) = anchor
# + k log(p / (1 - p)) + log(prod of the k ratios (n - x' + 1) / x').  The product carries
# at most 2k roundings (< 2e-15 relative for k < 8), the term k log odds one rounding, and
# the sum one rounding of |log Binom|, as Loader's own result does: the terms keep
# Loader's accuracy (1e-16 |log Binom|) to within 2e-15 + 1e-15 |log odds| absolute
# (checked to 1e-13 relative against the numpy path, which calls Loader for every term).
_ANCHOR = 8
#: The linear-space window sum runs for b = e^-epsilon above this (epsilon < 30); a row whose
#: linear sum overflows all the same (extreme n p / (1 - p)) is summed in logs instead.
_LINEAR_MIN_LOG_B = -30.0
#: Anchor spacing of the linear-space sum: 15 ratio steps of 4 roundings each keep a term
#: within 60 * 2**-53 < 7e-15 relative of its exact value.
_LINEAR_ANCHOR = 16
#: An anchor this far (in logs) below the running reference is followed by exact terms:
#: ratios from it could underflow to zero terms that later grow large.
_LINEAR_TINY = -600.0
_STIRLERR = tuple(float(v) for v in _STIRLERR_TABLE)  # Python floats: faster to index


# -- storage and rounding: the Python run's versions (``_jit`` has numba's, the same doubles) --

def _buffer(size):
    """A buffer of ``size`` doubles (numba: ``np.empty``)."""
    return [0.0] * size


def _memo():
    """``_log_cdf``'s memo ``[f, log(b + (1 - b) f)]``, empty (numba: an array)."""
    return [math.nan, 0.0]


def _values(a):
    """An array's doubles for scalar loops (Python floats index faster; numba: the array)."""
    return a.tolist()


def _rint(x):
    """``np.rint``: round half to even (infinite and NaN unchanged)."""
    return float(round(x)) if math.isfinite(x) else x


def _ceil(x):
    """``np.ceil`` of a double."""
    return float(math.ceil(x)) if math.isfinite(x) else x


def _floor(x):
    """``np.floor`` of a double."""
    return float(math.floor(x)) if math.isfinite(x) else x


# -- the kernels ---------------------------------------------------------------------------


def _law_constants(log_b, q):
    """The Tulap law's constants: b, 1 - b, log(1 + b), log(q / 2) (-inf for q = 0), log(1 - q)."""
    b = math.exp(log_b)
    if q > 0.0:
        return b, -math.expm1(log_b), math.log1p(b), math.log(q) - math.log(2.0), math.log1p(-q)
    return b, -math.expm1(log_b), math.log1p(b), -_INF, 0.0


def _log1mexp(x):
    """log(1 - e^x) for x <= 0."""
    if x > _LOG_HALF:
        if x < 0.0:
            return math.log(-math.expm1(x))
        return -_INF
    return math.log1p(-math.exp(x))


def _log_cdf(t, log_b, b, inner_scale, log1p_b, log_q_half, log1m_q, memo):
    """log F(t) of Tulap(0, b, q) (the formulas of ``distributions/tulap.py``); log_q_half =
    -inf for q = 0.  ``memo`` = [f, log(b + (1 - b) f)] of the previous call: along a sum
    the offset f of x - z is the same for every x, so the logarithm is taken once per row
    (the value is reused only for an identical f, so results are unchanged)."""
    s = -abs(t)
    k = _rint(s)
    f = s - k + 0.5
    if f == memo[0]:
        inner = memo[1]
    elif log_b > -700.0:
        inner = math.log(b + inner_scale * f)
    else:
        lf = math.log(f) if f > 0.0 else -_INF
        a2 = math.log1p(-b) + lf
        inner = max(log_b, a2) + math.log1p(math.exp(-abs(log_b - a2)))
    memo[0] = f
    memo[1] = inner
    small = inner - k * log_b - log1p_b
    if small > 0.0:
        small = 0.0
    out = small if t <= 0.0 else _log1mexp(small)
    if log_q_half == -_INF:
        return out
    if out > log_q_half:
        d = log_q_half - out
        diff = out + _log1mexp(min(d, 0.0))
        return min(diff - log1m_q, 0.0)
    return -_INF


def _lse_row(buf, count):
    """log(sum(exp(buf[:count]))), the largest term factored out."""
    top = -_INF
    for i in range(count):
        if buf[i] > top:
            top = buf[i]
    if top == -_INF or not math.isfinite(top):
        return top
    acc = 0.0
    for i in range(count):
        acc += math.exp(buf[i] - top)
    return top + math.log(acc)


def log_sum_full(z, n, p, log_b, q, xmin, log_c):
    """log sum_{x >= xmin} Binom(x; n, p) F(x - z) over x = 0..n, log Binom from log C(n, x)
    (``_kernels._log_sum_full``, n <= ``_kernels._FULL_N``)."""
    out = np.empty(z.size)
    b, inner_scale, log1p_b, log_q_half, log1m_q = _law_constants(log_b, q)
    memo = _memo()
    buf = _buffer(n + 1)
    zs, ps, lows, lc = _values(z), _values(p), _values(xmin), _values(log_c)
    for i in range(len(zs)):
        zi, pi = zs[i], ps[i]
        lp, lq = math.log(pi), math.log1p(-pi)
        count = 0
        for x in range(n + 1):
            if x < lows[i]:
                continue
            xf = float(x)
            buf[count] = (_log_cdf(xf - zi, log_b, b, inner_scale, log1p_b, log_q_half, log1m_q, memo)
                          + lc[x] + xf * lp + (n - xf) * lq)
            count += 1
        out[i] = _lse_row(buf, count)
    return out


def log_two_sided_full(z, n, p0, log_b, q, log_c):
    """Both tails of the asymptotically unbiased two-sided p-value in one pass over x = 0..n
    (``_kernels._log_two_sided_full``)."""
    out = np.empty(z.size)
    b, inner_scale, log1p_b, log_q_half, log1m_q = _law_constants(log_b, q)
    memo = _memo()
    up = _buffer(n + 1)
    down = _buffer(n + 1)
    zs, ps, lc = _values(z), _values(p0), _values(log_c)
    for i in range(len(zs)):
        centre = n * ps[i]
        t = abs(zs[i] - centre)
        lp, lq = math.log(ps[i]), math.log1p(-ps[i])
        for x in range(n + 1):
            xf = float(x)
            lb = lc[x] + xf * lp + (n - xf) * lq
            up[x] = lb + _log_cdf(xf - (centre + t), log_b, b, inner_scale, log1p_b, log_q_half, log1m_q, memo)
            down[x] = lb + _log_cdf((centre - t) - xf, log_b, b, inner_scale, log1p_b, log_q_half, log1m_q, memo)
        a1 = _lse_row(up, n + 1)
        a2 = _lse_row(down, n + 1)
        if a1 == -_INF and a2 == -_INF:
            both = -_INF
        else:
            top = max(a1, a2)
            both = top + math.log1p(math.exp(min(a1, a2) - top))
        out[i] = min(both, 0.0)
    return out


# -- the windowed sum for n > _FULL_N (``right_start`` and ``log_sum_interior``) -----------

def _stirlerr(k):
    """Loader's stirlerr of a whole number k >= 0: the table to 15, else the 5-term series."""
    if k > 15.0:
        kk = k * k
        return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - (1 / 1188) / kk) / kk) / kk) / kk) / k
    return _STIRLERR[int(k)]


def _bd0(x, mean, d):
    """Loader's bd0(x, M) = x log(x / M) + M - x with ``d = x - M`` given (as ``_loader_parts._bd0``)."""
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
    """log Binom(x; n, p) by Loader's algorithm (``_loader_parts._log_pmf``), ``st_n`` = stirlerr(n)."""
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
    """For q = 0: (log F(t), u), with u = exp(min(small, 0)) the geometric factor of the
    formula: F(t) = u for t <= 0 and F(t) = 1 - u for t > 0 (``_log_cdf``'s arithmetic)."""
    s = -abs(t)
    k = _rint(s)
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
    """P(X >= ks[i]) for X ~ Binom(n, p[i]), 1 <= ks[i] <= n (``_binom_upper_row``; used for
    n <= ``_kernels._DIRECT_TAIL_N``)."""
    st_n = _stirlerr(nf)
    kl, pl = _values(ks), _values(p)
    out = np.empty(ks.size)
    for i in range(len(kl)):
        out[i] = _binom_upper_row(kl[i], nf, pl[i], st_n)
    return out


def right_start(z, nf, xmin, big_k):
    """hi = clip(max(ceil(z + K), xmin), 0, n + 1), the start of the right region, and the
    first argument of betainc for P(X >= hi) (hi where 1 <= hi <= n, else 1)."""
    hi = np.empty(z.size)
    ks = np.empty(z.size)
    zs, lows = _values(z), _values(xmin)
    for i in range(len(zs)):
        h = min(max(max(_ceil(zs[i] + big_k), lows[i]), 0.0), nf + 1.0)
        hi[i] = h
        ks[i] = h if (h >= 1.0 and h <= nf) else 1.0
    return hi, ks


def log_sum_interior(z, n, p, log_b, q, xmin, c_q, upper, hi):
    """The direct window and the right tail of ``_kernels._log_sum_interior`` for every row
    (0 < p < 1).  Returns (log(window + right), closed, m): rows flagged ``closed`` still
    need the closed-form left sum over x in [xmin, m] added (done in numpy by the caller).
    ``upper``: betainc(hi, n - hi + 1, p), i.e. P(X >= hi) where 1 <= hi <= n."""
    size = z.size
    out = np.empty(size)
    closed = np.zeros(size, dtype=np.bool_)
    m_out = np.empty(size)
    nf = float(n)
    b, inner_scale, log1p_b, log_q_half, log1m_q = _law_constants(log_b, q)
    memo = _memo()
    st_n = _stirlerr(nf)
    buf = _buffer(64)
    zs, ps, lows, uppers, his = _values(z), _values(p), _values(xmin), _values(upper), _values(hi)
    for i in range(len(zs)):
        zi, pi, xm, u, h = zs[i], ps[i], lows[i], uppers[i], his[i]
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
        if width + 1 > len(buf):
            buf = _buffer(max(width + 1, 2 * len(buf)))
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
        for j in range(width):
            x = lo + j
            k = j % _ANCHOR
            if k == 0 or x >= nf:  # x = n: the exact n log p (Loader is not used there)
                anchor = _log_pmf(x, nf, pi, st_n)
                prod = 1.0
                lpmf = anchor
            else:  # Binom(x) / Binom(x - 1) = (n - x + 1) / x * p / (1 - p)
                prod *= (nf - x + 1.0) / x
                lpmf = anchor + (k * log_odds + math.log(prod))
            buf[j] = lpmf + _log_cdf(x - zi, log_b, b, inner_scale, log1p_b, log_q_half, log1m_q, memo)
        buf[width] = log_right
        out[i] = _lse_row(buf, width + 1)
    return out, closed, m_out
