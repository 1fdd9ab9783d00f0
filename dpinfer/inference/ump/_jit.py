"""Compiled (numba) versions of the windowed sums of ``_ump_kernels`` (private).

Imported only by ``_ump_kernels._jit()`` the first time a DP-UMP sum runs, and only when
numba is importable (the optional extra ``dpinfer[fast]``); otherwise the numpy code of
``_ump_kernels`` runs.  The formulas are those of ``_ump_kernels`` and
``distributions/tulap.py`` term by term (Loader's saddle-point log pmf, the Tulap log cdf,
the same windows and truncation rules), written as scalar loops so that one call does a
whole sum per row instead of a chain of small numpy calls.  The results agree with the
numpy path to rounding (the sums run in a different order; checked to 1e-13 relative in
``tests/inference/test_ump_jit.py``).  For q = 0 the window sums run in linear space between
exact anchors (``_window_log_sum_linear``), which makes a window term a few multiplications.

Compiled code is cached on disk (``cache=True``): the first run compiles (a few seconds),
later processes load it.
"""

from __future__ import annotations

import math
import types

import numpy as np
from numba import njit

from . import _sums as _twin
from ._loader_parts import _STIRLERR
from ._loader_parts import _two_product_error as _python_two_product_error

_LOG_TOL = 39.2
_INF = math.inf  # the name the twin's code uses


def _from_twin(name):
    """The twin's function ``name`` compiled with this module's globals (its calls go to the
    compiled functions here), so that the two run the same code, written once.  numba's disk
    cache keys these on _twin.py: after editing a compiled function here that they call,
    clear __pycache__ or touch _twin.py."""
    return njit(cache=True, error_model="numpy")(
        types.FunctionType(getattr(_twin, name).__code__, globals(), name))

# (np.floor and np.ceil keep floats: numba's math.floor and math.ceil return int64, which
# wraps for |z| >= 2**63)
_WCAP = 32768
_LOG_2PI = math.log(2.0 * math.pi)
_LOG_HALF = math.log(0.5)
# Loader's log pmf at every _ANCHOR-th term of a window; in between, log Binom(x) = anchor
# + k log(p / (1 - p)) + log(prod of the k ratios (n - x' + 1) / x').  The product carries
# at most 2k roundings (< 2e-15 relative for k < 8), the term k log odds one rounding, and
# the sum one rounding of |log Binom|, as Loader's own result does: the terms keep
# Loader's accuracy (1e-16 |log Binom|) to within 2e-15 + 1e-15 |log odds| absolute
# (checked to 1e-13 relative against the numpy path, which calls Loader for every term).
_ANCHOR = 8


_law_constants = _from_twin("_law_constants")
_stirlerr = _from_twin("_stirlerr")


# ``a b - prod`` exactly: the shared function of ``_loader_parts``, compiled (pure arithmetic on scalars)
_two_product_error = njit(cache=True, error_model="numpy")(_python_two_product_error)


@njit(cache=True, error_model="numpy")
def _bd0(x, mean, d):
    """bd0(x, M) with ``d = x - M`` given (as ``_ump_kernels._bd0``)."""
    tot = x + mean
    if abs(d) < 0.1 * tot:
        v = d / tot
        s = d * v
        v2 = v * v
        if v2 == 0.0:
            return s
        ej = 2.0 * x * v
        terms = min(59, int(np.ceil(61.0 * math.log(2.0) / -math.log(v2))) + 1)
        for j in range(1, terms + 1):
            ej = ej * v2
            s = s + ej / (2 * j + 1)
        return s
    r = x / mean
    if r == math.inf:
        return math.inf
    return x * math.log(r) + mean - x


_log_pmf = _from_twin("_log_pmf")


@njit(cache=True, error_model="numpy")
def _log1mexp(x):
    if x > _LOG_HALF:
        return math.log(-math.expm1(x)) if x < 0.0 else -math.inf
    return math.log1p(-math.exp(x))


@njit(cache=True, error_model="numpy")
def _log_cdf(t, log_b, b, inner_scale, log1p_b, log_q_half, log1m_q, memo):
    """log F(t) of Tulap(0, b, q) (the formulas of ``tulap._log_cdf``); log_q_half = -inf
    for q = 0.  ``memo`` = [f, log(b + (1 - b) f)] of the previous call: along a sum the
    offset f of x - z is the same for every x, so the logarithm is taken once per row (the
    value is reused only for an identical f, so results are unchanged)."""
    s = -abs(t)
    k = np.rint(s)
    f = s - k + 0.5
    if f == memo[0]:
        inner = memo[1]
    elif log_b > -700.0:
        inner = math.log(b + inner_scale * f)
    else:
        lf = math.log(f) if f > 0.0 else -math.inf
        a2 = math.log1p(-b) + lf
        inner = max(log_b, a2) + math.log1p(math.exp(-abs(log_b - a2)))
    memo[0] = f
    memo[1] = inner
    small = inner - k * log_b - log1p_b
    if small > 0.0:
        small = 0.0
    out = small if t <= 0.0 else _log1mexp(small)
    if log_q_half == -math.inf:
        return out
    if out > log_q_half:
        d = log_q_half - out
        diff = out + _log1mexp(min(d, 0.0))
        return min(diff - log1m_q, 0.0)
    return -math.inf


#: The linear-space window sum runs for b = e^-epsilon above this (epsilon < 30); a row whose
#: linear sum overflows all the same (extreme n p / (1 - p)) is summed in logs instead.
_LINEAR_MIN_LOG_B = -30.0
#: Anchor spacing of the linear-space sum: 15 ratio steps of 4 roundings each keep a term
#: within 60 * 2**-53 < 7e-15 relative of its exact value.
_LINEAR_ANCHOR = 16
#: An anchor this far (in logs) below the running reference is followed by exact terms:
#: ratios from it could underflow to zero terms that later grow large.
_LINEAR_TINY = -600.0


@njit(cache=True, error_model="numpy")
def _log_tail_parts(t, log_b, b, inner_scale, log1p_b):
    """For q = 0: (log F(t), u), with u = exp(min(small, 0)) the geometric factor of the
    formula: F(t) = u for t <= 0 and F(t) = 1 - u for t > 0 (``_log_cdf``'s arithmetic)."""
    s = -abs(t)
    k = np.rint(s)
    f = s - k + 0.5
    small = math.log(b + inner_scale * f) - k * log_b - log1p_b
    if small > 0.0:
        small = 0.0
    if t <= 0.0:
        return small, math.exp(small)
    return _log1mexp(small), math.exp(small)


_window_log_sum_linear = _from_twin("_window_log_sum_linear")


@njit(cache=True, error_model="numpy")
def _lse_row(buf, count):
    top = -math.inf
    for i in range(count):
        if buf[i] > top:
            top = buf[i]
    if top == -math.inf or not math.isfinite(top):
        return top
    acc = 0.0
    for i in range(count):
        acc += math.exp(buf[i] - top)
    return top + math.log(acc)


_binom_upper_row = _from_twin("_binom_upper_row")


@njit(cache=True, error_model="numpy")
def binom_upper(ks, nf, p):
    """P(X >= ks[i]) for X ~ Binom(n, p[i]), 1 <= ks[i] <= n (``_binom_upper_row``; the
    pure-Python twin gives the same doubles)."""
    out = np.empty(ks.size)
    st_n = _stirlerr(nf)
    for i in range(ks.size):
        out[i] = _binom_upper_row(ks[i], nf, p[i], st_n)
    return out


@njit(cache=True, error_model="numpy")
def right_start(z, nf, xmin, big_k):
    """hi = clip(max(ceil(z + K), xmin), 0, n + 1), the start of the right region, and the
    first argument of betainc for P(X >= hi) (hi where 1 <= hi <= n, else 1)."""
    hi = np.empty(z.size)
    ks = np.empty(z.size)
    for i in range(z.size):
        h = min(max(max(np.ceil(z[i] + big_k), xmin[i]), 0.0), nf + 1.0)
        hi[i] = h
        ks[i] = h if (h >= 1.0 and h <= nf) else 1.0
    return hi, ks


@njit(cache=True, error_model="numpy")
def log_sum_interior(z, n, p, log_b, q, xmin, c_q, upper, hi):
    """The direct window and the right tail of ``_ump_kernels._log_sum_interior`` for every
    row (0 < p < 1).  Returns (log(window + right), closed, m): rows flagged ``closed`` still
    need the closed-form left sum over x in [xmin, m] added (done in numpy by the caller).
    ``upper``: betainc(hi, n - hi + 1, p), i.e. P(X >= hi) where 1 <= hi <= n."""
    size = z.size
    out = np.empty(size)
    closed = np.zeros(size, dtype=np.bool_)
    m_out = np.empty(size)
    nf = float(n)
    b, inner_scale, log1p_b, log_q_half, log1m_q = _law_constants(log_b, q)
    memo = np.array([math.nan, 0.0])
    st_n = _stirlerr(nf)
    buf = np.empty(64)
    for i in range(size):
        zi, pi, xm = z[i], p[i], xmin[i]
        m = min(np.floor(zi), nf)
        m_out[i] = m
        has_left = m >= xm
        if m >= 1.0:
            ms = min(max(m, 1.0), nf)
            log_r = (math.log(ms) - math.log(nf - ms + 1.0) + math.log1p(-pi) - math.log(pi)
                     + log_b)
        else:
            log_r = -math.inf
        geometric_ok = log_r < -40.0 / _WCAP
        if log_r == -math.inf:
            need = 1.0
        else:
            lr = min(log_r, -1e-300)
            need = np.ceil((_LOG_TOL - math.log(-math.expm1(lr))) / -log_r) + 1.0
            if not math.isfinite(need):
                need = 1.0
        floor_x = xm
        if q > 0.0:
            floor_x = max(floor_x, np.ceil(zi - c_q) - 1.0)
        lo = max(m - need + 1.0, floor_x) if geometric_ok else floor_x
        if (not geometric_ok) and has_left and q == 0.0 and (m - floor_x + 1.0 > _WCAP):
            closed[i] = True
            lo = m + 1.0
        lo = min(max(lo, 0.0), nf + 1.0)
        width = int(max(hi[i] - lo, 0.0))
        if width + 1 > buf.size:
            buf = np.empty(max(width + 1, 2 * buf.size))
        h = hi[i]
        if h <= 0.0:
            log_right = 0.0
        elif h > nf:
            log_right = -math.inf
        else:
            u = upper[i]
            log_right = math.log(u) if u > 0.0 else -math.inf
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
            buf[j] = lpmf + _log_cdf(x - zi, log_b, b, inner_scale, log1p_b, log_q_half,
                                     log1m_q, memo)
        buf[width] = log_right
        out[i] = _lse_row(buf, width + 1)
    return out, closed, m_out


@njit(cache=True, error_model="numpy")
def log_sum_full(z, n, p, log_b, q, xmin, log_c):
    """``_ump_kernels._log_sum_full``: every x = 0..n, log Binom from log C(n, x)."""
    size = z.size
    out = np.empty(size)
    b, inner_scale, log1p_b, log_q_half, log1m_q = _law_constants(log_b, q)
    memo = np.array([math.nan, 0.0])
    buf = np.empty(n + 1)
    for i in range(size):
        lp, lq = math.log(p[i]), math.log1p(-p[i])
        count = 0
        for x in range(n + 1):
            if x < xmin[i]:
                continue
            xf = float(x)
            buf[count] = (_log_cdf(xf - z[i], log_b, b, inner_scale, log1p_b, log_q_half,
                                   log1m_q, memo)
                          + log_c[x] + xf * lp + (n - xf) * lq)
            count += 1
        out[i] = _lse_row(buf, count)
    return out


@njit(cache=True, error_model="numpy")
def log_two_sided_full(z, n, p0, log_b, q, log_c):
    """``_ump_kernels._log_two_sided_full``: both tails of the asymptotically unbiased
    two-sided p-value in one pass over x = 0..n."""
    size = z.size
    out = np.empty(size)
    b, inner_scale, log1p_b, log_q_half, log1m_q = _law_constants(log_b, q)
    memo = np.array([math.nan, 0.0])
    up = np.empty(n + 1)
    down = np.empty(n + 1)
    for i in range(size):
        centre = n * p0[i]
        t = abs(z[i] - centre)
        lp, lq = math.log(p0[i]), math.log1p(-p0[i])
        for x in range(n + 1):
            xf = float(x)
            lb = log_c[x] + xf * lp + (n - xf) * lq
            up[x] = lb + _log_cdf(xf - (centre + t), log_b, b, inner_scale, log1p_b,
                                  log_q_half, log1m_q, memo)
            down[x] = lb + _log_cdf((centre - t) - xf, log_b, b, inner_scale, log1p_b,
                                    log_q_half, log1m_q, memo)
        a1 = _lse_row(up, n + 1)
        a2 = _lse_row(down, n + 1)
        if a1 == -math.inf and a2 == -math.inf:
            both = -math.inf
        else:
            top = max(a1, a2)
            both = top + math.log1p(math.exp(min(a1, a2) - top))
        out[i] = min(both, 0.0)
    return out


# -- the bookkeeping of one vectorised Illinois step (``inference/_roots.py``) -------------

@njit(cache=True, error_model="numpy")
def gauge(log_p, log_alpha):
    out = np.empty(log_p.size)
    root = math.sqrt(-log_alpha)
    for i in range(log_p.size):
        lp = log_p[i]
        if math.isnan(lp):
            lp = -1e6
        lp = min(max(lp, -1e6), 0.0)
        out[i] = root - math.sqrt(-lp)
    return out


@njit(cache=True, error_model="numpy")
def illinois_propose(a, b, ga, gb, width0, step):
    """False-position point per row (bisection when outside the bracket or slow)."""
    x = np.empty(a.size)
    check = step % 6 == 5
    for i in range(a.size):
        aa, bb = a[i], b[i]
        xi = (aa * gb[i] - bb * ga[i]) / (gb[i] - ga[i])
        lo_end, hi_end = min(aa, bb), max(aa, bb)
        slow = check and abs(bb - aa) > 0.5 * width0[i]
        if not (xi > lo_end and xi < hi_end) or slow:
            xi = 0.5 * (aa + bb)
        if check:
            width0[i] = abs(bb - aa)
        x[i] = xi
    return x


@njit(cache=True, error_model="numpy")
def illinois_update(a, b, ga, gb, side, x, gx, ftol=1e-14):
    """Move one end of each bracket to x (Illinois halving); returns (done, value)."""
    done = np.empty(a.size, dtype=np.bool_)
    value = np.empty(a.size)
    for i in range(a.size):
        g = gx[i]
        if g > 0.0:
            if side[i] == 1:
                gb[i] = 0.5 * gb[i]
            a[i] = x[i]
            ga[i] = g
            side[i] = 1
        else:
            if side[i] == -1:
                ga[i] = 0.5 * ga[i]
            b[i] = x[i]
            gb[i] = g
            side[i] = -1
        width = abs(b[i] - a[i])
        exact = abs(g) <= ftol
        done[i] = (width <= 4e-16 * max(abs(x[i]), 1e-300)) or exact
        value[i] = x[i] if exact else 0.5 * (a[i] + b[i])
    return done, value


def smoke():
    """Run the smallest kernel once (compiles it, or loads it from the disk cache), so that a
    numba that imports but cannot compile here is found before any result depends on it.
    The other kernels load on first use (about 70 ms each from the cache)."""
    gauge(np.array([-1.0]), math.log(0.05))
