"""Reference values for the two-sample DP-JIMI exact limit, computed with mpmath.

Independent of dpinfer.  For group k, pi* ~ Laplace(pi_hat_k, 1 / (epsilon_k n_k));
theta* = 0 with probability m0 = P(pi* <= 0), 1 with m1 = P(pi* >= 1), otherwise
Beta(n u + 1/2, n (1 - u) + 1/2) given pi* = u.  With D = theta1* - theta2*:

    P(D <= d) = m0_2 G1(d) + m1_2 G1(1 + d) + int_0^1 G1(t + d) g2(t) dt,
    G1(x) = m0_1 + int_0^1 I_x(n1 u + 1/2, n1 (1 - u) + 1/2) f1(u) du   (0 <= x < 1),
    g2(t) = int_0^1 beta_pdf(t; n2 u + 1/2, n2 (1 - u) + 1/2) f2(u) du,

f_k the Laplace densities.  Every integral is mpmath's tanh-sinh quadrature (which
handles the t^(-1/2) ends of g2 by itself), the outer one split at -d and 1 - d (the
jumps of G1(t + d)) and at the bulk of g2, the inner ones at pi_hat and near t.
P(D = d) is the product of point masses meeting at d; the values written are
P(D < d) and P(D > d) = 1 - P(D <= d) (16 digits; the outer quadrature's error
estimate is required below 1e-11).

Run:  .venv/bin/python tests/reference/make_jimi2.py   (writes jimi2_values.json; minutes)
"""

import json
import pathlib
import sys

import mpmath as mp

mp.mp.dps = 16

CASES = [  # (pi1, n1, epsilon1, pi2, n2, epsilon2, d)
    (0.4, 30, 1.0, 0.3, 40, 1.0, 0.05),
    (0.02, 30, 0.5, -0.01, 40, 0.5, 0.0),
    (0.5, 200, 1.0, 0.45, 10, 0.3, -0.2),
]


def masses(pi_hat, n, eps):
    b = 1 / (mp.mpf(eps) * n)
    pi_hat = mp.mpf(pi_hat)

    def cdf(x):  # P(pi* <= x)
        z = (x - pi_hat) / b
        return mp.exp(z) / 2 if z < 0 else 1 - mp.exp(-z) / 2

    return cdf(0), 1 - cdf(1), b


def laplace_pdf(u, pi_hat, b):
    return mp.exp(-abs(u - pi_hat) / b) / (2 * b)


def u_points(pi_hat, b, t):
    pts = {mp.mpf(0), mp.mpf(1)}
    for p in (pi_hat, t, pi_hat - 8 * b, pi_hat + 8 * b):
        if 0 < p < 1:
            pts.add(mp.mpf(p))
    return sorted(pts)


def make_g1(pi_hat, n, eps):
    m0, _, b = masses(pi_hat, n, eps)
    pi_hat = mp.mpf(pi_hat)

    def g1(x):
        if x < 0:
            return mp.mpf(0)
        if x >= 1:
            return mp.mpf(1)
        if x == 0:
            return m0
        f = lambda u: mp.betainc(n * u + 0.5, n * (1 - u) + 0.5, 0, x, regularized=True) * laplace_pdf(u, pi_hat, b)
        return m0 + mp.quad(f, u_points(pi_hat, b, x))

    return g1


def make_pdf2(pi_hat, n, eps):
    _, _, b = masses(pi_hat, n, eps)
    pi_hat = mp.mpf(pi_hat)

    def g2(t):
        def f(u):
            a, c = n * u + 0.5, n * (1 - u) + 0.5
            log_beta_pdf = (a - 1) * mp.log(t) + (c - 1) * mp.log1p(-t) - mp.log(mp.beta(a, c))
            return mp.exp(log_beta_pdf) * laplace_pdf(u, pi_hat, b)
        return mp.quad(f, u_points(pi_hat, b, t))

    return g2


def reference(pi1, n1, e1, pi2, n2, e2, d):
    d = mp.mpf(d)
    m01, m11, _ = masses(pi1, n1, e1)
    m02, m12, b2 = masses(pi2, n2, e2)
    g1, g2 = make_g1(pi1, n1, e1), make_pdf2(pi2, n2, e2)
    pts = {mp.mpf(0), mp.mpf(1)}
    for p in (-d, 1 - d, pi2, pi2 - 0.2, pi2 + 0.2, pi1 - d):
        if 0 < p < 1:
            pts.add(mp.mpf(p))
    integral, err = mp.quad(lambda t: g1(t + d) * g2(t), sorted(pts), maxdegree=5, error=True)
    assert err < 1e-11, err

    def atom1(v):
        return m01 if v == 0 else (m11 if v == 1 else 0)

    le = m02 * g1(d) + m12 * g1(1 + d) + integral
    tie = m02 * atom1(d) + m12 * atom1(1 + d)
    return {"lt": float(le - tie), "tie": float(tie), "gt": float(1 - le), "quad_error": float(err)}


def _one(case):
    return {"args": list(case), **reference(*case)}


if __name__ == "__main__":
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(len(CASES)) as pool:
        out = list(pool.map(_one, CASES))
    print(out, file=sys.stderr, flush=True)
    path = pathlib.Path(__file__).with_name("jimi2_values.json")
    path.write_text(json.dumps({"meta": {"mpmath_dps": mp.mp.dps, "script": "make_jimi2.py"}, "cases": out},
                               indent=1) + "\n")
