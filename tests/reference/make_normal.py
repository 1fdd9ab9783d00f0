"""Reference values for dpinfer.inference.normal, computed with mpmath at 50 digits.

Run from the repository root:

    .venv/bin/python tests/reference/make_normal.py

It writes tests/reference/normal_values.json.  Nothing here imports dpinfer: every
number comes from the definitions, written out again independently:

* z and p-values from the formula of Vu & Slavkovic (2009) with mpmath's ncdf;
* normal quantiles by mpmath's root finder on ncdf (not an inverse-cdf routine);
* score-interval ends by bisection on the monotone z score T(p) = (x - p)/sd(p)
  (not by the closed-form quadratic the package uses);
* exact power as sum_x C(n, x) theta^x (1 - theta)^(n - x) P(x/n + L in region),
  with the Laplace tail written from its density, at 50 digits.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
OUT = Path(__file__).with_name("normal_values.json")


def qnorm_upper(a):
    """z with P(Z > z) = a, by root finding on the normal cdf."""
    a = mp.mpf(a)
    return mp.findroot(lambda z: (1 - mp.ncdf(z)) - a, mp.sqrt(2) * mp.erfinv(1 - 2 * a))


def sd(p, n, eps):
    p = mp.mpf(p)
    return mp.sqrt(p * (1 - p) / n + 2 / (mp.mpf(eps) * n) ** 2)


def pvalue(z, alternative):
    if alternative == "greater":
        return 1 - mp.ncdf(z)
    if alternative == "less":
        return mp.ncdf(z)
    return min(mp.mpf(1), 2 * (1 - mp.ncdf(abs(z))))


def bisect(f, lo, hi, iters=200):
    """Root of a function with f(lo) and f(hi) of opposite signs."""
    flo = f(lo)
    for _ in range(iters):
        mid = (lo + hi) / 2
        fm = f(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def score_lower(x, n, eps, z):
    """inf{p in [0,1]: T(p) <= z}, T(p) = (x - p)/sd(p) decreasing (x well inside)."""
    x = mp.mpf(x)
    T = lambda p: (x - p) / sd(p, n, eps) - z  # noqa: E731
    if T(mp.mpf(0)) <= 0:
        return mp.mpf(0)
    if T(mp.mpf(1)) > 0:
        return None  # empty
    return bisect(T, mp.mpf(0), mp.mpf(1))


def score_upper(x, n, eps, z):
    """sup{p in [0,1]: -T(p) <= z}."""
    x = mp.mpf(x)
    T = lambda p: (p - x) / sd(p, n, eps) - z  # noqa: E731
    if T(mp.mpf(1)) <= 0:
        return mp.mpf(1)
    if T(mp.mpf(0)) > 0:
        return None
    return bisect(T, mp.mpf(0), mp.mpf(1))


def one_sample(x, n, p0, eps, alternative, level):
    x = mp.mpf(x)
    z = (x - mp.mpf(p0)) / sd(p0, n, eps)
    a = 1 - mp.mpf(level)
    if alternative == "two-sided":
        q = qnorm_upper(a / 2)
        score = (score_lower(x, n, eps, q), score_upper(x, n, eps, q))
    elif alternative == "greater":
        q = qnorm_upper(a)
        score = (score_lower(x, n, eps, q), mp.mpf(1))
    else:
        q = qnorm_upper(a)
        score = (mp.mpf(0), score_upper(x, n, eps, q))
    pc = min(max(x, mp.mpf(0)), mp.mpf(1))
    se = mp.sqrt(pc * (1 - pc) / n + 2 / (mp.mpf(eps) * n) ** 2)
    wald = [x - q * se, x + q * se]
    if alternative == "greater":
        wald[1] = mp.mpf(1)
    if alternative == "less":
        wald[0] = mp.mpf(0)
    wald = [min(max(w, mp.mpf(0)), mp.mpf(1)) for w in wald]
    return {
        "pi_hat": float(x), "n": n, "p0": p0, "epsilon": eps, "alternative": alternative,
        "confidence_level": level,
        "statistic": mp.nstr(z, 20), "pvalue": mp.nstr(pvalue(z, alternative), 20),
        "wald": [mp.nstr(w, 20) for w in wald],
        "score": [mp.nstr(s, 20) for s in score],
    }


def laplace_sf(u, eps):
    """P(N > u), N with density (eps/2) exp(-eps |t|)."""
    if u >= 0:
        return mp.exp(-eps * u) / 2
    return 1 - mp.exp(eps * u) / 2


def power(theta, n, p0, eps, alpha, alternative):
    theta, p0, eps, alpha = (mp.mpf(v) for v in (theta, p0, eps, alpha))
    s0 = sd(p0, n, eps)
    total = mp.mpf(0)
    for x in range(n + 1):
        w = mp.binomial(n, x) * theta**x * (1 - theta) ** (n - x)
        if alternative == "greater":
            r = laplace_sf(n * (p0 + qnorm_upper(alpha) * s0) - x, eps)
        elif alternative == "less":
            r = 1 - laplace_sf(n * (p0 - qnorm_upper(alpha) * s0) - x, eps)
        else:
            q = qnorm_upper(alpha / 2)
            r = laplace_sf(n * (p0 + q * s0) - x, eps) + 1 - laplace_sf(n * (p0 - q * s0) - x, eps)
        total += w * r
    return total


def two_sample(x1, n1, x2, n2, e1, e2, alternative, level):
    x1, x2 = mp.mpf(x1), mp.mpf(x2)
    noise = 2 / (mp.mpf(e1) * n1) ** 2 + 2 / (mp.mpf(e2) * n2) ** 2
    pbar = min(max((n1 * x1 + n2 * x2) / (n1 + n2), mp.mpf(0)), mp.mpf(1))
    z = (x1 - x2) / mp.sqrt(pbar * (1 - pbar) * (mp.mpf(1) / n1 + mp.mpf(1) / n2) + noise)
    c1 = min(max(x1, mp.mpf(0)), mp.mpf(1))
    c2 = min(max(x2, mp.mpf(0)), mp.mpf(1))
    se = mp.sqrt(c1 * (1 - c1) / n1 + c2 * (1 - c2) / n2 + noise)
    a = 1 - mp.mpf(level)
    d = x1 - x2
    if alternative == "two-sided":
        q = qnorm_upper(a / 2)
        ci = [d - q * se, d + q * se]
    elif alternative == "greater":
        ci = [d - qnorm_upper(a) * se, mp.mpf(1)]
    else:
        ci = [mp.mpf(-1), d + qnorm_upper(a) * se]
    ci = [min(max(c, mp.mpf(-1)), mp.mpf(1)) for c in ci]
    return {
        "pi1": float(x1), "n1": n1, "pi2": float(x2), "n2": n2, "epsilon1": e1, "epsilon2": e2,
        "alternative": alternative, "confidence_level": level,
        "statistic": mp.nstr(z, 20), "pvalue": mp.nstr(pvalue(z, alternative), 20),
        "conf_int": [mp.nstr(c, 20) for c in ci],
    }


def main():
    one = [
        one_sample(0.4213, 50, 0.3, 1.0, alt, lvl)
        for alt in ("two-sided", "greater", "less") for lvl in (0.95, 0.9)
    ] + [
        one_sample(0.05, 30, 0.2, 1.0, "two-sided", 0.95),
        one_sample(0.97, 30, 0.8, 2.0, "two-sided", 0.99),
        one_sample(-0.0213, 50, 0.1, 1.0, "two-sided", 0.95),
        one_sample(-0.0213, 50, 0.1, 1.0, "less", 0.95),
        one_sample(1.03, 40, 0.9, 0.5, "greater", 0.95),
        one_sample(0.8013, 200, 0.5, 0.1, "greater", 0.999),
        one_sample(0.1237, 1000, 0.1, 5.0, "two-sided", 0.95),
    ]
    pw = []
    for theta, n, p0, eps, alpha, alt in [
        (0.2, 30, 0.2, 1.0, 0.05, "greater"),
        (0.5, 30, 0.2, 1.0, 0.05, "greater"),
        (0.05, 30, 0.2, 1.0, 0.05, "less"),
        (0.35, 30, 0.2, 1.0, 0.05, "two-sided"),
        (0.0, 30, 0.2, 1.0, 0.05, "two-sided"),
        (1.0, 30, 0.2, 1.0, 0.05, "greater"),
        (0.7, 100, 0.6, 0.5, 0.01, "greater"),
        (0.01, 200, 0.02, 2.0, 0.1, "two-sided"),
        (0.9, 17, 0.5, 0.05, 0.05, "two-sided"),
        (0.5, 500, 0.6, 1.0, 0.05, "greater"),   # far from the rejection region: tiny power
        (0.62, 500, 0.6, 20.0, 0.05, "two-sided"),  # Laplace window (700/eps) narrower than binomial
        (0.45, 400, 0.5, 1e-3, 0.05, "less"),       # noise-dominated
    ]:
        pw.append({"theta": theta, "n": n, "p0": p0, "epsilon": eps, "alpha": alpha,
                   "alternative": alt, "power": mp.nstr(power(theta, n, p0, eps, alpha, alt), 20)})
    size_table = []
    for alpha in (0.05, 0.01):
        for alt in ("greater", "less", "two-sided"):
            for k in range(1, 10):
                p0 = k / 10
                size_table.append({"p0": p0, "alpha": alpha, "alternative": alt,
                                   "size": mp.nstr(power(p0, 30, p0, 1.0, alpha, alt), 20)})
    two = [
        two_sample(0.62, 80, 0.45, 75, 1.0, 1.0, "two-sided", 0.95),
        two_sample(0.3013, 40, 0.42, 60, 0.5, 2.0, "less", 0.9),
        two_sample(0.3013, 40, 0.22, 60, 0.5, 2.0, "greater", 0.95),
        two_sample(-0.01, 30, 0.03, 30, 1.0, 1.0, "two-sided", 0.95),
    ]
    OUT.write_text(json.dumps({
        "about": "mpmath (50 digits) reference values for dpinfer.inference.normal; "
                 "made by tests/reference/make_normal.py",
        "size_table_n30_eps1": {"n": 30, "epsilon": 1.0, "rows": size_table},
        "one_sample": one, "power": pw, "two_sample": two,
    }, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
