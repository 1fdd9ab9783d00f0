"""Reference values for DP-JIMI's exact limit, computed with mpmath at 30 digits.

Independent of dpinfer: the fiducial cdf

    G(t) = P(pi* <= 0) + int_0^1 I_t(n u + 1/2, n (1 - u) + 1/2) f(u) du,

with f the Laplace(pi_hat, 1 / (epsilon n)) density and I_t mpmath's regularised
incomplete Beta function (``mp.betainc(..., regularized=True)``), is integrated with
mpmath's tanh-sinh quadrature on [0, 1] intersected with pi_hat +- 70 / (epsilon n)
(the Laplace mass outside is below 1e-30), with breakpoints at pi_hat,
pi_hat +- (2, 8, 24) / (epsilon n), t, and the centre +- 3 sd of the Beta-cdf
transition in u; the quadrature's own error estimate is required to be below 1e-18.  Quantiles q(a) = inf{t : G(t) >= a} are
found by bisection to width 2**-8 followed by mpmath's Anderson-Bjorck root finder
until |G(q) - a| < 1e-15.

Run:  .venv/bin/python tests/reference/make_jimi.py   (writes jimi_values.json)
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 30

CASES = [  # (n, epsilon, pi_hat)
    (30, 1.0, 0.3762645560824869),
    (30, 1.0, -0.05),
    (30, 1.0, 1.04),
    (10, 0.5, 0.2),
    (200, 1.0, 0.07),
    (100, 0.2, 0.55),
]
T_VALUES = [0.05, 0.3, 0.7]
LEVELS = [0.025, 0.05, 0.975]


def laplace_mass_zero(pi_hat, b):
    """P(pi* <= 0) for pi* ~ Laplace(pi_hat, b)."""
    z = mp.mpf(pi_hat) / b
    return mp.exp(-z) / 2 if z >= 0 else 1 - mp.exp(z) / 2


def fiducial_cdf(t, n, epsilon, pi_hat):
    n = mp.mpf(n)
    b = 1 / (mp.mpf(epsilon) * n)
    pi_hat = mp.mpf(pi_hat)
    t = mp.mpf(t)
    if t >= 1:
        return mp.mpf(1)
    if t < 0:
        return mp.mpf(0)

    def integrand(u):
        dens = mp.exp(-abs(u - pi_hat) / b) / (2 * b)
        return mp.betainc(n * u + mp.mpf(1) / 2, n * (1 - u) + mp.mpf(1) / 2, 0, t,
                          regularized=True) * dens

    # Outside pi_hat +- 70 b the Laplace mass is e^{-70} < 1e-30: left out.
    lo, hi = max(mp.mpf(0), pi_hat - 70 * b), min(mp.mpf(1), pi_hat + 70 * b)
    centre = ((n + 1) * t - mp.mpf(1) / 2) / n  # where the Beta median crosses t
    width = mp.sqrt(t * (1 - t) / n)
    pts = {lo, hi, t, centre, centre - 3 * width, centre + 3 * width}
    pts |= {pi_hat + k * b for k in (-24, -8, -2, 0, 2, 8, 24)}
    pts = sorted(p for p in pts if lo <= p <= hi)
    val, err = mp.quad(integrand, pts, error=True, maxdegree=10)
    if err > mp.mpf("1e-18"):
        raise RuntimeError(f"quadrature error {err} too large at t={t}, n={n}, pi_hat={pi_hat}")
    return laplace_mass_zero(pi_hat, b) + val


def quantile(a, n, epsilon, pi_hat):
    a = mp.mpf(a)
    b = 1 / (mp.mpf(epsilon) * n)
    p0 = laplace_mass_zero(pi_hat, b)
    p1 = laplace_mass_zero(1 - mp.mpf(pi_hat), b)
    if a <= p0:
        return mp.mpf(0)
    if a > 1 - p1:
        return mp.mpf(1)
    lo, hi = mp.mpf(0), mp.mpf(1)
    for _ in range(8):
        mid = (lo + hi) / 2
        if fiducial_cdf(mid, n, epsilon, pi_hat) < a:
            lo = mid
        else:
            hi = mid
    return mp.findroot(lambda t: fiducial_cdf(t, n, epsilon, pi_hat) - a, (lo, hi),
                       solver="anderson", tol=mp.mpf("1e-30"))


def main():
    rows = []
    for n, epsilon, pi_hat in CASES:
        row = {"n": n, "epsilon": epsilon, "pi_hat": pi_hat,
               "cdf": {str(t): float(fiducial_cdf(t, n, epsilon, pi_hat)) for t in T_VALUES},
               "quantile": {str(a): float(quantile(a, n, epsilon, pi_hat)) for a in LEVELS}}
        rows.append(row)
        print(row, flush=True)
    out = pathlib.Path(__file__).with_name("jimi_values.json")
    meta = {"source": "tests/reference/make_jimi.py (mpmath, 30 digits)", "mpmath": mp.__version__}
    out.write_text(json.dumps({"meta": meta, "cases": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
