"""Reference values for the Tulap law, computed with mpmath at 60 digits.

Run offline (``python tests/reference/make_tulap.py``); it writes
``tests/reference/tulap_values.json``, which ``tests/distributions/test_tulap_law.py`` reads.

Independence from the package: the cdf is computed from the generative definition
N = D + U + m, with D = G1 - G2 (difference of iid geometrics, so
P(D = d) = (1 - b) / (1 + b) * b**|d|) and U ~ Uniform(-1/2, 1/2):

    P(N <= x) = P(D <= d* - 1) + P(D = d*) * w,     w = t - d* + 1/2 in (0, 1],
    P(N >  x) = P(D >= d* + 1) + P(D = d*) * (1 - w),

with t = x - m and d* = ceil(t - 1/2), and the geometric tail sums
P(D <= j) = b**(-j) / (1 + b) for j <= 0 (and 1 - b**(j + 1) / (1 + b) for j >= 0).
Both tails are sums of positive terms, so neither is a "1 - other" at the small end.
Truncation keeps the central 1 - q mass: F = (F0 - q/2) / (1 - q) clipped to [0, 1],
q = 2 delta b / (1 - b + 2 delta b).  The variance is an mpmath quadrature of
x**2 times the density over the support, cell by cell (the density is piecewise
constant, so the breakpoints k + 1/2 are passed to mp.quad).

The parameters are the doubles the package sees: epsilon, delta, the median and x
are converted to mpf exactly (mpf(float) is exact), b = exp(-epsilon) in mpmath.
"""

import json
import math
from pathlib import Path

import mpmath as mp

mp.mp.dps = 60

EPSILONS = [0.05, 0.5, 1.0, 3.0, 10.0]
DELTAS = [0.0, 1e-6, 0.01, 0.2]
MEDIANS = [0.0, 2.5, -7.3]
# offsets t = x - m: integers, near-integers, half-integers, near-half-integers, far tails
T_BASE = [
    -3000.0, -2999.5, -1000.4999999, -300.0, -100.5, -50.0000001, -20.0, -10.5, -7.25,
    -5.5, -3.4999999999, -2.0, -1.5, -1.0000000001, -0.9999999999, -0.5, -0.5000001,
    -0.25, -1e-9, 0.0, 1e-12, 0.3, 0.4999999999, 0.5, 1.0, 1.4999999, 2.5000001, 4.0,
    9.75, 33.3, 100.5, 299.9999999, 700.0, 1500.5, 2999.5, 3000.0,
]
# (epsilon, delta) far outside the grid for the truncated variance: b near 1 with q near 1,
# where the package cannot use its complement formula, and huge supports (K up to 1e12 cells)
VAR_EDGE = [(1e-9, 1e-6), (1e-9, 1e-8), (1e-9, 1e-12), (1e-5, 1e-3), (1e-5, 1e-7),
            (1e-7, 1e-6), (20.0, 0.5), (1e-3, 0.3), (1e-12, 1e-13), (0.1, 0.9)]
OUT = Path(__file__).with_name("tulap_values.json")


def q_of(eps, delta):
    b = mp.exp(-eps)
    return 2 * delta * b / (1 - b + 2 * delta * b)


def d_le(j, b):
    """P(D <= j)."""
    return b ** (-j) / (1 + b) if j <= 0 else 1 - b ** (j + 1) / (1 + b)


def d_ge(j, b):
    """P(D >= j) = P(D <= -j) by symmetry of D."""
    return d_le(-j, b)


def untruncated_tails(t, b):
    d_star = mp.ceil(t - mp.mpf(1) / 2)
    w = t - d_star + mp.mpf(1) / 2
    p_d = (1 - b) / (1 + b) * b ** abs(d_star)
    return d_le(d_star - 1, b) + p_d * w, d_ge(d_star + 1, b) + p_d * (1 - w)


def truncate(f0, q):
    return min(max((f0 - q / 2) / (1 - q), mp.mpf(0)), mp.mpf(1))


def half_width(b, q):
    """c > 0 with P0(N > c) = q/2 (upper end of the support), by bisection on the tail."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    while untruncated_tails(hi, b)[1] > q / 2:
        hi *= 2
    for _ in range(400):
        mid = (lo + hi) / 2
        if untruncated_tails(mid, b)[1] > q / 2:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def density(t, b, q):
    return (1 - b) / (1 + b) * b ** abs(mp.nint(t)) / (1 - q)


def variance(b, q):
    """Var = 2/(1-q) * integral_0^c x**2 f0(x) dx by mp.quad over the cells."""
    if q == 0:
        # cells k + 1/2 up to where b**k < 1e-70 of the total
        k_max = int(mp.ceil(170 / -mp.log(b))) + 2
        c = mp.mpf(k_max) + mp.mpf(1) / 2
    else:
        c = half_width(b, q)
    edges = [mp.mpf(0)] + [mp.mpf(k) + mp.mpf(1) / 2 for k in range(int(mp.floor(c - 0.5)) + 1)]
    edges = [e for e in edges if e < c] + [c]
    total = mp.mpf(0)
    for lo, hi in zip(edges[:-1], edges[1:]):
        mid = (lo + hi) / 2
        dens = (1 - b) / (1 + b) * b ** abs(mp.nint(mid))
        total += dens * mp.quad(lambda x: x**2, [lo, hi])
    return 2 * total / (1 - q), c


def variance_closed(b, q):
    """Var from the complement form Var0 - 2 E0[N^2; N > c] at 60 digits.

    Used for VAR_EDGE where the support has up to 1e12 cells (too many for quad);
    the form itself is checked against the quadrature on the grid, and at 60 digits
    its cancellation (at most ~1e20 here) leaves > 35 correct digits.
    """
    c = half_width(b, q)
    big_k = mp.nint(c)
    m = big_k + 1
    full = 2 * b / (1 - b) ** 2 + mp.mpf(1) / 12
    tail = (1 - b) / (1 + b) * b**big_k * ((big_k + mp.mpf(1) / 2) ** 3 - c**3) / 3
    tail += b**m / (1 + b) * (m**2 + 2 * m * b / (1 - b) + b * (1 + b) / (1 - b) ** 2 + mp.mpf(1) / 12)
    return (full - 2 * tail) / (1 - q), c


def s(x):
    return mp.nstr(x, 25, min_fixed=-mp.inf, max_fixed=mp.inf) if mp.isfinite(x) else str(float(x))


def log_or_inf(x):
    return s(mp.log(x)) if x > 0 else "-inf"


def main():
    laws = []
    for eps in EPSILONS:
        for delta in DELTAS:
            b = mp.exp(-mp.mpf(eps))
            q = q_of(mp.mpf(eps), mp.mpf(delta))
            var, c = variance(b, q)
            far = round(math.log(1e300) / eps, 1)  # tails near 1e-300
            offsets = sorted(set(T_BASE + [-far, far]))
            if q > 0:
                cf = float(c)
                offsets += [-cf - 1e-3, -cf + 1e-3, -cf + 0.3, cf - 0.3, cf - 1e-3, cf + 1e-3]
            for median in MEDIANS:
                points = []
                for off in offsets:
                    x = float(median + off)
                    t = mp.mpf(x) - mp.mpf(median)
                    f0, s0 = untruncated_tails(t, b)
                    big_f, big_s = truncate(f0, q), truncate(s0, q)
                    inside = q == 0 or abs(t) <= c
                    dens = density(t, b, q) if inside else mp.mpf(0)
                    # condition numbers of the truncation subtraction F0 - q/2
                    kap_l = f0 / (f0 - q / 2) if f0 > q / 2 else mp.inf
                    kap_u = s0 / (s0 - q / 2) if s0 > q / 2 else mp.inf
                    points.append({
                        "x": x,
                        "cdf": s(big_f), "ccdf": s(big_s),
                        "logcdf": log_or_inf(big_f), "logccdf": log_or_inf(big_s),
                        "pdf": s(dens),
                        "kappa_cdf": s(kap_l), "kappa_ccdf": s(kap_u),
                    })
                laws.append({
                    "epsilon": eps, "delta": delta, "median": median,
                    "q": s(q), "var": s(var), "half_width": s(c) if q > 0 else "inf",
                    "points": points,
                })
        print(f"epsilon={eps} done")
    var_edge = []
    for eps, delta in VAR_EDGE:
        b = mp.exp(-mp.mpf(eps))
        q = q_of(mp.mpf(eps), mp.mpf(delta))
        var, c = variance_closed(b, q)
        var_edge.append({"epsilon": eps, "delta": delta, "q": s(q), "var": s(var), "half_width": s(c)})
    OUT.write_text(json.dumps({
        "generator": "tests/reference/make_tulap.py", "mpmath_dps": mp.mp.dps,
        "mpmath_version": mp.__version__, "laws": laws, "var_edge": var_edge,
    }, indent=0))
    print(f"wrote {OUT} ({len(laws)} laws)")


if __name__ == "__main__":
    main()
