"""Pure-Python twins of the small compiled kernels of ``_jit`` (private; inputs are assumed valid).

Why: loading the compiled kernels costs a fresh process 0.35 to 0.7 s (numba's import and
the cached machine code), ten times the arithmetic of a first p-value or interval at small
``n``.  For the sums over every ``x = 0..n`` (``n <= _kernels._FULL_N``) these twins do the
same floating-point operations in the same order as ``_jit.log_sum_full`` and
``_jit.log_two_sided_full`` (Python's ``math`` and numba both call the C library's ``exp``,
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
