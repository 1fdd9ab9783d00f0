"""Vectorised kernels behind :mod:`dpinfer.inference.ump` (private; inputs are assumed valid).

The central quantity is the windowed sum

    S(z; n, p, xmin) = sum_{x = xmin}^{n} Binom(x; n, p) F(x - z),

F the Tulap(0, b, q) cdf, computed as log S.  Every DP-UMP p-value, test size and power
is one or two such sums (see ``ump.py``).  The cost does not grow with n:

* Right region, x >= hi = ceil(z + K): 1 - F(x - z) <= 1e-17 there (K ~ 39.2 / epsilon,
  or the truncation point when q > 0, beyond which F is exactly 1), so the region
  contributes P(X >= hi) (1 - theta), 0 <= theta <= 1e-17, taken from the regularised
  incomplete beta function (``scipy.special.betainc``, Boost) for n > 1000 and summed
  term by term below (``_binom_upper_direct``, ``_sums._binom_upper_row``).
* Left region, x <= m = floor(z): here x - z <= 0 and, for q = 0, the Tulap cdf is exactly
  geometric along the integers, F(x - z) = F(m - z) b**(m - x) (the fractional offset of
  x - z is the same for every x).  Hence term ratios are
  T(x - 1) / T(x) <= r(x) = b x (1 - p) / ((n - x + 1) p), which decreases as x
  decreases (the binomial is log-concave); with q > 0, F(x - 1 - z) / F(x - z) <= b as
  well and F vanishes below the truncation point.  Summing W terms down from m, with
  r = r(m) < 1 and W = ceil((39.2 + log(1 / (1 - r))) / log(1 / r)), leaves out at most
  T(m) r**W / (1 - r) <= 1e-17 T(m) <= 1e-17 S.  When r(m) is within 40 / 2**15 of 1 or
  above it (m near or above the mode of the tilted law), the whole left sum is computed in
  closed form instead: sum_{x <= m} Binom(x; n, p) b**(m - x) = Binom(m; n, p) P'(X <= m) /
  Binom(m; n, p'), with P' the binomial law tilted to p' = p / (p + (1 - p) b); in that
  regime |log Binom(m; n, p')| stays small, so the log-space formula is well conditioned.
* The middle x in (m, hi) has at most K + 1 terms, summed directly.

So the total truncation error is below 2e-17 relative; the remaining error is rounding in
log Binom (Loader's saddle-point algorithm, relative error ~1e-16 |log pmf|, with x - n p
carried exactly so that it does not grow with n) and in scipy's binomial tails (about 1e-11
relative at n = 1e9 and a standard deviation of 1e4).  A 'less' sum reflects x -> n - x;
where the double 1 - p0 is not exact (p0 < 1/2) the reflected sum is corrected for its
rounding by a Taylor series in the binomial parameter (``_log_sum_reflected``).  Checked against 40-digit mpmath full sums in ``tests/reference``.
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np

from ...distributions._tulap_law import log_cdf, log_tails, quantile
from . import _sums
from ._loader_parts import _log_pmf
from .._roots import expand_bracket, expand_bracket_within, find_root

_LOG_TOL = 39.2  # -log(1e-17)
_WCAP = 32768  # largest direct left window before the closed form is used
_CHUNK = 1 << 21  # elements per 2-D block
_FULL_N = 256  # up to this n every sum runs over all of x = 0..n in one 2-D pass
_FULL_BLOCK = 1 << 15  # terms per block of that pass (cache-sized; measured best of 2**12..2**18)
_USE_JIT = os.environ.get("DPINFER_NO_NUMBA", "") in ("", "0")
#: Terms one call may sum in the Python run of ``_sums`` while its compiled kernels are
#: not loaded (about 20 ms of Python), and in all calls of a process (about 0.3 s, as much as
#: loading numba costs): past that, the compiled kernels are loaded (ski rental).
_TWIN_MAX_TERMS = 1 << 14
_TWIN_BUDGET = [1 << 18]
#: Largest n whose binomial upper tails are summed term by term (``_sums.binom_upper``) instead of
#: taken from scipy's betainc, so a first answer at n <= 1000 imports no scipy.special.
_DIRECT_TAIL_N = 1000


@functools.lru_cache(maxsize=1)
def _jit():
    """The compiled kernels (``_ump_jit``) when numba is importable, else None (numpy path).

    Imported on the first sum, never by ``import dpinfer``; ``DPINFER_NO_NUMBA=1`` (or
    ``_USE_JIT = False``) forces the numpy path, which gives the same sums to rounding.
    """
    try:
        from . import _jit as _ump_jit

        _ump_jit.smoke()
    except Exception:  # no numba, or numba present but unusable here (e.g. no cache dir)
        return None
    return _ump_jit


def _compiled(terms=None):
    """The kernels for a sum: the compiled ones, None for the numpy path, or for sums of at
    most ``_TWIN_MAX_TERMS`` ``terms`` in all ``_sums`` run as Python while the compiled
    kernels are not loaded (the same source and the same doubles, so a first small answer
    never waits for numba; see ``_sums``)."""
    if not _USE_JIT or not _numba_installed():
        return None  # the numpy path, as before (the twins are only faster than it when small)
    if terms is not None and terms <= _TWIN_MAX_TERMS:
        loaded = _loaded()
        if loaded is not None:
            return loaded
        if terms <= _TWIN_BUDGET[0] or _jit() is None:
            _TWIN_BUDGET[0] -= terms
            return _sums
    return _jit()


@functools.lru_cache(maxsize=1)
def _numba_installed():
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def _loaded():
    """The compiled kernels if this process has loaded them already, else None."""
    return _jit() if _USE_JIT and _jit.cache_info().currsize else None


def _special():
    from scipy import special  # imported on first use: its import costs most of a cold start

    return special


def _lse(a, axis=0):
    """log(sum(exp(a))) along ``axis``; all -inf gives -inf (scipy's logsumexp is slower here)."""
    top = np.max(a, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        total = np.log(np.sum(np.exp(a - safe), axis=axis))
    return np.squeeze(safe, axis=axis) + total


def _log_binom_upper(k, n, p):
    """log P(X >= k), X ~ Binom(n, p), 0 < p < 1: summed term by term for n <= 1000
    (``_binom_upper_direct``), else the regularised incomplete beta I_p(k, n - k + 1)."""
    k = np.asarray(k, float)
    inside = (k >= 1.0) & (k <= n)
    ks = np.where(inside, k, 1.0)
    with np.errstate(divide="ignore", under="ignore"):
        if n <= _DIRECT_TAIL_N:
            ks, pb = (a.ravel() for a in np.broadcast_arrays(ks, p))
            val = np.log(_binom_upper_direct(ks, n, pb)).reshape(k.shape)
        else:
            val = np.log(_special().betainc(ks, n - ks + 1.0, p))
    return np.where(k <= 0.0, 0.0, np.where(k > n, -np.inf, val))


def _binom_upper_direct(k, n, p):
    """P(X >= k) per row, 1 <= k <= n whole: ``_sums._binom_upper_row`` (its notes give the
    algorithm and the bounds) vectorised over the rows, the same sums to rounding."""
    nf = float(n)
    odds = p / (1.0 - p)
    up = k >= (nf + 1.0) * p
    x = np.where(up, k, k - 1.0)
    ref = _log_pmf(x, n, p)
    acc, term = np.ones(k.shape), np.ones(k.shape)
    live = np.ones(k.shape, dtype=bool)
    j = 0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        while True:
            r = np.where(up, (nf - x) / (x + 1.0) * odds, x / (nf - x + 1.0) / odds)
            live &= np.where(up, x < nf, x > 0.0) & ~((r < 1.0)
                                                      & (term * r <= 2.0**-60 * acc * (1.0 - r)))
            if not live.any():
                break
            x = np.where(live, np.where(up, x + 1.0, x - 1.0), x)
            j += 1
            term = np.where(live, term * r, term)
            anchor = live & ((j % 32 == 0) | (x >= nf) | (x <= 0.0))
            if anchor.any():
                term[anchor] = np.exp(_log_pmf(x[anchor], n, p[anchor]) - ref[anchor])
            acc = np.where(live, acc + term, acc)
        tail = np.exp(ref + np.log(acc))
    return np.where(up, tail, 1.0 - tail)


@functools.lru_cache(maxsize=256)
def _tail_width(log_b, q):
    """K: for t >= K, 1 - F(t) <= 1e-17 (exactly 0 beyond the truncation point)."""
    eps = -log_b
    k = np.ceil(_LOG_TOL / eps + 0.5) + 1.0
    if q > 0.0:
        half_width = -float(quantile(0.0, log_b, q))
        k = min(k, np.ceil(half_width) + 1.0)
    return float(k)


@functools.lru_cache(maxsize=256)
def _truncation_half_width(log_b, q):
    """Half-width ``T`` of the truncated Tulap law's support (``-Q(0)``; infinite when q = 0)."""
    return -float(quantile(0.0, log_b, q)) if q > 0.0 else np.inf


def _log_binom_range(n, p, lo, hi):
    """log P(lo <= X <= hi) for X ~ Binom(n, p) via scipy, choosing the tail that avoids cancellation."""
    from scipy import stats  # imported here: scipy.stats costs most of a cold start

    cdf_hi = stats.binom.cdf(hi, n, p)
    cdf_lo = np.where(lo > 0, stats.binom.cdf(lo - 1, n, p), 0.0)
    sf_lo = np.where(lo > 0, stats.binom.sf(lo - 1, n, p), 1.0)
    sf_hi = stats.binom.sf(hi, n, p)
    with np.errstate(divide="ignore"):
        use_upper = cdf_hi > 0.5
        return np.where(use_upper, np.log(np.maximum(sf_lo - sf_hi, 0.0)),
                        np.log(np.maximum(cdf_hi - cdf_lo, 0.0)))


def _log_sum_greater(z, n, p, log_b, q, xmin=0):
    """log sum_{x >= xmin} Binom(x; n, p) F(x - z), elementwise over broadcast z, p, xmin.

    z real, 0 <= p <= 1, xmin integer-valued; n >= 0 an int; F = Tulap(0, exp(log_b), q) cdf.
    """
    z, p, xmin = np.asarray(z, float), np.asarray(p, float), np.asarray(xmin, float)
    if p.ndim == 0 and xmin.ndim == 0 and 0.0 < p < 1.0 and 0 < n <= _FULL_N:
        # one p for every z (a test's p0): straight to the full sum, the same call as below
        flat = z.reshape(-1) if z.flags.writeable else z.ravel().copy()
        return _log_sum_full(flat, n, np.full(flat.size, float(p)), log_b, q,
                             np.full(flat.size, max(float(xmin), 0.0))).reshape(z.shape)
    if z.ndim == 1 and p.shape == z.shape and xmin.ndim == 0:
        # the common call (one p per z, one xmin): no broadcast views to copy
        shape = z.shape
        xmin = np.full(z.shape, max(float(xmin), 0.0))
    else:
        z, p, xmin = np.broadcast_arrays(z, p, xmin)
        shape = z.shape
        # copies: broadcast views are not plain writeable arrays (numba warns on them)
        z, p, xmin = z.ravel().copy(), p.ravel().copy(), np.maximum(xmin.ravel(), 0.0)
    kernel = _log_sum_full if n <= _FULL_N else _log_sum_interior
    # Degenerate laws (interval end points): X = 0 or X = n surely.
    deg = (p <= 0.0) | (p >= 1.0) if n else np.ones(z.shape, dtype=bool)
    if not deg.any():
        return kernel(z, n, p, log_b, q, xmin).reshape(shape)
    out = np.full(z.shape, -np.inf)
    point = np.where(p[deg] <= 0.0, 0.0, float(n))
    lf = log_tails(point - z[deg], log_b, q)[0]
    out[deg] = np.where(xmin[deg] <= point, lf, -np.inf)
    idx = np.flatnonzero(~deg)
    if idx.size:
        out[idx] = kernel(z[idx], n, p[idx], log_b, q, xmin[idx])
    return out.reshape(shape)


@functools.lru_cache(maxsize=64)
def _log_choose(n):
    """log C(n, x), x = 0..n, as log Binom(x; n, 1/2) + n log 2 (Loader's algorithm)."""
    x = np.arange(n + 1, dtype=float)
    out = _log_pmf(x, n, np.full(x.shape, 0.5)) + n * np.log(2.0)
    out.setflags(write=False)
    return x, out


def _log_sum_full(z, n, p, log_b, q, xmin):
    """The sum over every x = 0..n at once (small n, 0 < p < 1): no window, no tail term.

    log Binom(x; n, p) = log C(n, x) + x log p + (n - x) log(1 - p); for n <= 256 the three
    parts are below 180 in size, so the rounding error is below 1e-13 absolute.  Rows go
    in blocks of about 2**15 terms, so the temporaries stay in cache.
    """
    x, log_c = _log_choose(n)
    jit = _compiled(z.size * (n + 1))
    if jit is not None:
        return jit.log_sum_full(z, int(n), p, float(log_b), float(q), xmin, log_c)
    rows = max(1, _FULL_BLOCK // (n + 1))
    if z.size <= rows:
        return _log_sum_full_block(z, n, p, log_b, q, xmin, x, log_c)
    out = np.empty(z.size)
    for start in range(0, z.size, rows):
        part = slice(start, start + rows)
        out[part] = _log_sum_full_block(z[part], n, p[part], log_b, q, xmin[part], x, log_c)
    return out


def _log_two_sided_full(z, n, p0, log_b, q):
    """Asymptotically unbiased two-sided log p-value for small n and few rows in one pass:
    log(sum_x Binom(x; n, p0) (F(x - c - t) + F(c - t - x))), c = n p0, t = |z - c|, the
    binomial part computed once for both tails (the same sums as the general path)."""
    x, log_c = _log_choose(n)
    jit = _compiled(2 * z.size * (n + 1))
    if jit is not None:
        return jit.log_two_sided_full(z, int(n), p0, float(log_b), float(q), log_c)
    centre = n * p0
    t = np.abs(z - centre)
    log_binom = log_c + x * np.log(p0)[:, None] + (n - x) * np.log1p(-p0)[:, None]
    args = np.concatenate([x[None, :] - (centre + t)[:, None], (centre - t)[:, None] - x[None, :]])
    with np.errstate(divide="ignore"):
        terms = log_cdf(args, log_b, q)
    terms += np.concatenate([log_binom, log_binom])
    both = _lse(terms, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.minimum(np.logaddexp(both[:z.size], both[z.size:]), 0.0)


def _log_sum_full_block(z, n, p, log_b, q, xmin, x, log_c):
    with np.errstate(divide="ignore"):
        terms = log_cdf(x[None, :] - z[:, None], log_b, q)
    terms += log_c
    terms += x * np.log(p)[:, None]
    terms += (n - x) * np.log1p(-p)[:, None]
    if np.any(xmin > 0.0):
        terms = np.where(x[None, :] >= xmin[:, None], terms, -np.inf)
    return _lse(terms, axis=1)


def _log_sum_interior(z, n, p, log_b, q, xmin):
    nf = float(n)
    big_k = _tail_width(log_b, q)
    c_q = _truncation_half_width(log_b, q)
    # about K + 64 terms per row (the window left of z is longer only where r is near 1)
    jit = _compiled(z.size * (big_k + 64.0))
    if jit is not None:
        # the same regions in one compiled pass; P(X >= hi) in between (summed to n = 1000,
        # then scipy's betainc)
        hi, ks = jit.right_start(z, nf, xmin, big_k)
        upper = (jit.binom_upper(ks, nf, p) if n <= _DIRECT_TAIL_N
                 else _special().betainc(ks, nf - ks + 1.0, p))
        out, closed, m = jit.log_sum_interior(z, int(n), p, float(log_b), float(q), xmin,
                                              float(c_q), upper, hi)
        if closed.any():
            out[closed] = np.logaddexp(out[closed], _log_left_closed(
                z[closed], n, p[closed], log_b, q, xmin[closed], m[closed]))
        return out
    # Right region: x >= hi, F = 1 to 1e-17.
    hi = np.maximum(np.ceil(z + big_k), xmin)
    hi = np.clip(hi, 0.0, nf + 1.0)
    with np.errstate(divide="ignore"):
        log_right = _log_binom_upper(hi, n, p)
    # Left region: x <= m, geometric F.
    m = np.minimum(np.floor(z), nf)
    has_left = m >= xmin
    m_safe = np.clip(m, 1.0, nf)
    log_r = (np.log(m_safe) - np.log(nf - m_safe + 1.0) + np.log1p(-p) - np.log(p) + log_b)
    log_r = np.where(m >= 1.0, log_r, -np.inf)  # m = 0: a single term
    geometric_ok = log_r < -40.0 / _WCAP
    with np.errstate(divide="ignore", over="ignore"):
        need = np.ceil((_LOG_TOL - np.log(-np.expm1(np.minimum(log_r, -1e-300)))) / -log_r) + 1.0
    need = np.where(np.isfinite(need), need, 1.0)
    floor_x = xmin.copy()
    if q > 0.0:
        floor_x = np.maximum(floor_x, np.ceil(z - c_q) - 1.0)
    lo = np.where(geometric_ok, np.maximum(m - need + 1.0, floor_x), floor_x)
    # q = 0 and r close to 1 over a long stretch: closed form for the whole left region.
    closed = (~geometric_ok) & has_left & (q == 0.0) & (m - floor_x + 1.0 > _WCAP)
    log_left = np.full(z.shape, -np.inf)
    if closed.any():
        log_left[closed] = _log_left_closed(z[closed], n, p[closed], log_b, q, xmin[closed],
                                            m[closed])
        lo = np.where(closed, m + 1.0, lo)
    lo = np.clip(lo, 0.0, nf + 1.0)
    # Direct window [lo, hi - 1].
    width = np.maximum(hi - lo, 0.0)
    log_mid = _log_window_sum(z, n, p, log_b, q, lo, width)
    return _lse(np.stack([log_mid, log_left, log_right]), axis=0)


def _log_left_closed(z, n, p, log_b, q, xmin, m):
    """Closed form of sum_{xmin <= x <= m} Binom(x; n, p) F(x - z) for q = 0 (module notes)."""
    b = np.exp(log_b)
    p_tilt = p / (p + (1.0 - p) * b)
    q_tilt = (1.0 - p) * b / (p + (1.0 - p) * b)  # not 1 - p_tilt: p_tilt may round near 1
    log_f_m = log_tails(m - z, log_b, q)[0]
    # near 1, the tilted law is taken by its failures n - X ~ Binom(n, q_tilt) (issue 26 W4:
    # 1 - p_tilt lost 1e-4 relative at p = 1 - 1.4e-12)
    flip = p_tilt > 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        log_mass = np.where(flip, _log_binom_range(n, q_tilt, n - m, n - xmin),
                            _log_binom_range(n, p_tilt, xmin, m))
        log_at_m = np.where(flip, _log_pmf(n - m, n, q_tilt), _log_pmf(m, n, p_tilt))
    return log_f_m + _log_pmf(m, n, p) + log_mass - log_at_m


def _log_window_sum(z, n, p, log_b, q, lo, width):
    """log sum_{j < width} Binom(lo + j; n, p) F(lo + j - z), per element, in blocks."""
    out = np.full(z.shape, -np.inf)
    if z.size == 1 and width[0] > 0:
        j = np.arange(float(width[0]))
        x = lo[0] + j
        terms = _log_pmf(x, n, p[0]) + log_cdf(x - z[0], log_b, q)
        out[0] = _lse(terms, axis=0)
        return out
    order = np.argsort(width, kind="stable")
    sorted_width = width[order]
    start = 0
    total = order.size
    while start < total:
        # a block holds rows whose widths are within a factor 2 (or 64 terms) of its first
        # row's, so padding never more than doubles the work
        cap = max(2.0 * sorted_width[start], 64.0)
        stop = max(int(np.searchsorted(sorted_width, cap, side="right")), start + 1)
        w = int(sorted_width[stop - 1])
        stop = min(stop, start + max(1, _CHUNK // max(w, 1)))
        sel = order[start:stop]
        w = int(sorted_width[stop - 1])
        start = stop
        if w == 0:
            continue
        j = np.arange(w, dtype=float)
        x = lo[sel, None] + j[None, :]
        valid = j[None, :] < width[sel, None]
        x = np.where(valid, x, lo[sel, None])
        terms = _log_pmf(x, n, p[sel, None]) + log_cdf(x - z[sel, None], log_b, q)
        terms = np.where(valid, terms, -np.inf)
        out[sel] = _lse(terms, axis=1)
    return out


# -- p-values ------------------------------------------------------------------------------

def _log_pvalue_greater(z, n, p0, log_b, q):
    """log P_p0(X + N >= z) = log sum_x Binom(x; n, p0) F(x - z)."""
    return _log_sum_greater(z, n, p0, log_b, q)


def _log_pvalue_less(z, n, p0, log_b, q):
    """log P_p0(X + N <= z) = log sum_x Binom(x; n, p0) F(z - x), by the reflection x -> n - x."""
    return _log_sum_reflected(n - np.asarray(z, float), n, np.asarray(p0, float), log_b, q)


# Orders of the correction for the rounding of 1 - p0 (each term is about n 2**-54 times the last).
_REFLECT_ORDERS = 8


#: Relative size of the reflection's first correction term below which it is not summed.
_REFLECT_SKIP = 4e-13


def _log_sum_reflected(zr, n, p0, log_b, q):
    """log sum_y Binom(y; n, 1 - p0) F(y - zr): the reflected sum at the exact 1 - p0."""
    # copies: broadcast views are not plain writeable arrays (numba warns on them)
    zr, p0 = (np.array(a) for a in np.broadcast_arrays(np.asarray(zr, float), np.asarray(p0, float)))
    log_s = _log_sum_greater(zr, n, 1.0 - p0, log_b, q)
    return _reflection_fix(zr, n, p0, log_b, q, log_s, True)


def _reflection_fix(zr, n, p0, log_b, q, log_s, want):
    """``log_s``, the kernel's reflected sum at ``pr = fl(1 - p0)``, corrected to the exact
    ``1 - p0`` in the rows ``want`` (same shapes as ``zr``; ``want`` may be a bool).

    The kernel can only take the double ``pr``, whose complement ``c = 1 - pr`` (exact)
    differs from ``p0`` by ``d`` (exact, below 2**-54; zero for p0 >= 1/2, so p0 < 1/2
    and c <= 1/2 wherever d != 0).  With ``W = n - Y ~ Binom(n, c)`` the failures and
    ``G(w) = F(n - w - zr)`` (non-negative, non-increasing),
    ``d^k/dc^k E_n[G(W)] = n (n - 1) ... (n - k + 1) E_{n-k}[Delta^k G(W)]`` and
    ``E_{n-k}[G(W + j)] = S_{n-k}(zr - k + j)`` (the kernel's sum), so the Taylor series in
    ``-d`` is summed (the k + 1 sums of order k in one kernel call).  Bounds: since
    ``E_m[G(W)] >= (1 - c) E_{m-1}[G(W)]`` and ``|Delta^k G| <= 2^k G`` in mean, term k is
    at most ``(4 n |d|)**k / k!`` of the sum (so the orders needed for 1e-17 are known
    before summing: one up to n = 1e7, two up to 1e9), and ``|d log E_n[G(W)] / dc| <=
    n / (1 - c) <= 2 n``, so the whole correction moves log S by at most ``2 n |d|``
    (``_log_pvalue_two_sided`` relies on this).  Without it the p-value moved by about
    ``2**-54 sqrt(n / p0)`` relative (issue 26 W4: 7.3e-10 at n = 1e9, p0 = 2e-7).
    """
    if want is not True and not np.any(want):
        return log_s
    pr = 1.0 - p0
    d = (1.0 - pr) - p0  # exact (Sterbenz twice)
    # the first term is at most n |d| (1 + e^epsilon) relative: below 4e-13 (a third of the
    # 1e-12 relative accuracy promised), leave it out: n up to about 2000 at epsilon = 1,
    # where the correction's k + 1 extra sums per order would cost 4-5 times the p-value
    fix = ((n * np.abs(d) * (1.0 + math.exp(min(-log_b, 50.0))) >= _REFLECT_SKIP) & want
           & np.isfinite(log_s) & (pr > 0.0) & (pr < 1.0))
    if not fix.any() or n < 1:
        return log_s
    idx = np.flatnonzero(fix.ravel())
    zi, pi, di, ls = zr.ravel()[idx], pr.ravel()[idx], d.ravel()[idx], log_s.ravel()[idx]
    x = 4.0 * n * float(np.max(np.abs(di)))
    orders = min(_REFLECT_ORDERS, n)
    if x < 0.5:  # the omitted terms sum to at most 2 x**(k + 1) / (k + 1)!
        orders, bound = 1, x
        while orders < min(_REFLECT_ORDERS, n) and 2.0 * bound * x / (orders + 1) > 1e-17:
            orders += 1
            bound *= x / orders
    total = np.zeros(idx.size)  # sum of the correction terms, relative to S
    scale = np.ones(idx.size)  # n (n - 1) ... (n - k + 1) (-d)**k / k!
    ok = np.ones(idx.size, dtype=bool)
    last = np.full(idx.size, np.inf)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for k in range(1, orders + 1):
            scale = scale * (n - k + 1) * (-di) / k
            sums = _log_sum_greater(np.concatenate([zi - k + j for j in range(k + 1)]), n - k,
                                    np.tile(pi, k + 1), log_b, q)
            sums = np.exp(sums.reshape(k + 1, idx.size) - ls)
            coef = np.array([(-1.0) ** (k - j) * math.comb(k, j) for j in range(k + 1)])
            term = scale * (coef @ sums)
            # a series that does not shrink fast (large epsilon: differences of sums e^(k eps)
            # apart) is not used; the uncorrected sum is kept there
            ok &= np.isfinite(term) & (np.abs(term) <= 0.1 * last)
            last = np.abs(term)
            total = np.where(ok, total + term, 0.0)
            if np.all(~ok | (np.abs(term) <= 1e-16 * np.abs(1.0 + total))):
                break
        out = log_s.copy().ravel()
        out[idx] = np.where(ok & (total > -1.0), ls + np.log1p(np.where(ok, total, 0.0)), ls)
    return out.reshape(log_s.shape)


def _log_two_sided_degenerate(z, n, p0, log_b, q):
    """The asymptotically unbiased two-sided log p-value at p0 = 0 or 1 (X = 0 or n surely):
    both tails from the Tulap law alone, the same doubles as the general path."""
    centre = n * p0
    t = np.abs(z - centre)
    lg = log_tails(np.where(p0 <= 0.0, 0.0, float(n)) - (centre + t), log_b, q)[0]
    ll = log_tails(np.where(p0 >= 1.0, 0.0, float(n)) - (n - (centre - t)), log_b, q)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.minimum(np.logaddexp(lg, ll), 0.0)


def _log_pvalue_two_sided(z, n, p0, log_b, q, method, target=None):
    """Two-sided log p-value: 'asymptotically-unbiased' or 'equal-tailed'.

    ``target`` (a log level, optional): the reflection's correction (``_reflection_fix``)
    is computed only for rows whose uncorrected log p-value is within ``4 n |d| + 1e-12
    (1 + |target|)`` of it.  The correction moves log p by at most ``2 n |d|``, so every
    other row lies on the same side of ``target`` as its corrected value, and (for a root
    search on the scale of ``_intervals._gauge``) is not within its tolerance of it: a
    search that only compares with ``target`` brackets exactly as with corrected values.
    """
    z = np.asarray(z, float)
    p0 = np.asarray(p0, float)
    if z.shape != p0.shape:
        z, p0 = (a.copy() for a in np.broadcast_arrays(z, p0))
    if method != "equal-tailed" and n <= _FULL_N and z.size * (n + 1) <= _FULL_BLOCK:
        inner = (p0 > 0.0) & (p0 < 1.0)
        if inner.all():
            return _log_two_sided_full(z.ravel(), n, p0.ravel(), log_b, q).reshape(z.shape)
        # the ends theta = 0 and 1 of an interval search: X is a point mass there
        out = _log_two_sided_degenerate(z, n, p0, log_b, q)
        if inner.any():
            out[inner] = _log_two_sided_full(z[inner], n, p0[inner], log_b, q)
        return out
    exact_reflection = bool(np.all(p0 >= 0.5))  # 1 - p0 exact: one kernel call for both tails
    if method == "equal-tailed":
        if exact_reflection:
            both = _log_sum_greater(np.concatenate([z.ravel(), n - z.ravel()]), n,
                                    np.concatenate([p0.ravel(), 1.0 - p0.ravel()]),
                                    log_b, q)
            lg, ll = both[:z.size].reshape(z.shape), both[z.size:].reshape(z.shape)
        else:
            lg, ll = _log_sum_greater(z, n, p0, log_b, q), _log_sum_reflected(n - z, n, p0, log_b, q)
        return np.minimum(np.log(2.0) + np.minimum(lg, ll), 0.0)
    centre = n * p0
    t = np.abs(z - centre)
    # both tails in one kernel call; the 'less' tail by the reflection x -> n - x
    zr = n - (centre - t)
    both = _log_sum_greater(np.concatenate([(centre + t).ravel(), zr.ravel()]), n,
                            np.concatenate([p0.ravel(), (1.0 - p0).ravel()]), log_b, q)
    lg, ll = both[:z.size].reshape(z.shape), both[z.size:].reshape(z.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.minimum(np.logaddexp(lg, ll), 0.0)
        if exact_reflection:
            return out
        want = True
        if target is not None:
            margin = 4.0 * n * np.abs((1.0 - (1.0 - p0)) - p0) + 1e-12 * (1.0 + abs(target))
            want = ~(np.abs(out - target) > margin)
            if not want.any():
                return out
        return np.minimum(np.logaddexp(lg, _reflection_fix(zr, n, p0, log_b, q, ll, want)), 0.0)


def _log_pvalue(z, n, p0, log_b, q, alternative, method="asymptotically-unbiased", target=None):
    if alternative == "greater":
        return _log_pvalue_greater(z, n, p0, log_b, q)
    if alternative == "less":
        return _log_pvalue_less(z, n, p0, log_b, q)
    return _log_pvalue_two_sided(z, n, p0, log_b, q, method, target)


# -- critical values and test functions -----------------------------------------------------

def _noise_sd(log_b):
    """Standard deviation of the untruncated Tulap noise (an upper bound when q > 0)."""
    b = np.exp(log_b)
    return float(np.sqrt(2.0 * b / np.expm1(log_b) ** 2 + 1.0 / 12.0))


def _normal_quantile(alpha):
    return float(-_special().ndtri(alpha))


def _critical_greater(n, p0, log_b, q, alpha):
    """m with sum_x Binom(x; n, p0) F(x - m) = alpha (the one-sided UMP cut-off)."""
    log_alpha = np.log(alpha)

    def f(m):
        return max(float(_log_sum_greater(m, n, p0, log_b, q)) - log_alpha, -1e3)

    sd = np.sqrt(n * p0 * (1.0 - p0) + _noise_sd(log_b) ** 2)
    lo, hi = expand_bracket(f, n * p0 + _normal_quantile(alpha) * sd, max(sd, 1.0))
    return find_root(f, lo, hi, xtol=1e-13, rtol=1e-15, maxiter=500)


def _log_expect_umpu(n, p, k, s, log_b, q):
    """log E_p[F(|X - k| - s)] (elementwise over p)."""
    j = np.ceil(k)
    upper = _log_sum_greater(k + s, n, p, log_b, q, xmin=j)
    lower = _log_sum_greater(n - k + s, n, 1.0 - np.asarray(p, float), log_b, q, xmin=n - j + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.logaddexp(upper, lower)


def _umpu_s_for_k(n, p0, k, log_b, q, alpha):
    """s with E_p0[F(|X - k| - s)] = alpha (decreasing in s)."""
    log_alpha = np.log(alpha)

    def f(s):
        return max(float(_log_expect_umpu(n, p0, k, s, log_b, q)) - log_alpha, -1e3)

    # Below `floor`, phi(x) = F(|x - k| - s) is 1 to within 1e-17 for every x in 0..n: when
    # even there the size does not reach alpha in doubles (alpha within rounding of 1), the
    # test that always rejects is the answer; the bracket never searches below it (issue 26 H1:
    # alpha = 1 - 2**-53 searched down to overflow).
    floor = -(n + _tail_width(log_b, q) + 1.0)
    if f(floor) <= 0.0:
        return floor
    sd = np.sqrt(n * p0 * (1.0 - p0) + _noise_sd(log_b) ** 2)
    lo, hi = expand_bracket(f, max(_normal_quantile(alpha / 2.0) * sd, floor), max(sd, 1.0))
    return find_root(f, max(lo, floor), hi, xtol=1e-13, rtol=1e-15, maxiter=500)


def _umpu_unbias(n, p0, k, s, log_b, q):
    """E_p0[(X - n p0) phi(X)] / (n p0) = E_{n-1}[phi_{k-1,s}(Y)] - E_n[phi_{k,s}(X)].

    Uses x Binom(x; n, p) = n p Binom(x - 1; n - 1, p).
    """
    a = float(np.exp(_log_expect_umpu(n - 1, p0, k - 1.0, s, log_b, q)))
    b = float(np.exp(_log_expect_umpu(n, p0, k, s, log_b, q)))
    return a - b


def _umpu_parameters(n, p0, log_b, q, alpha):
    """(k, s) of the UMPU test phi(x) = F(|x - k| - s): size alpha, E_p0[(X - n p0) phi] = 0."""

    def g(k):
        s = _umpu_s_for_k(n, p0, k, log_b, q, alpha)
        return _umpu_unbias(n, p0, k, s, log_b, q)

    centre = n * p0
    # k stays within the reach of the noise around 0..n; where the unbiasedness condition has
    # no sign change there (alpha within rounding of 1: phi is 1 to double precision), the
    # centre is taken; the bracket never runs away (issue 26 H1).
    reach = _tail_width(log_b, q) + 1.0
    lo, hi = expand_bracket_within(g, centre, 0.5, -reach, n + reach)
    if lo is None:
        return centre, _umpu_s_for_k(n, p0, centre, log_b, q, alpha)
    k = find_root(g, lo, hi, xtol=1e-12 * max(1.0, abs(centre)), rtol=1e-15, maxiter=500)
    s = _umpu_s_for_k(n, p0, k, log_b, q, alpha)
    return k, s
