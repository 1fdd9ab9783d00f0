"""Reference tails and a critical value of the Dunnett-type many-to-one statistic (mpmath).

Independent of dpinfer (it does not import it).  Arms ``Z_k = X_k + N_k`` and control
``Z_0 = X_0 + N_0``, ``X ~ Binomial(n, theta)``, ``N`` continuous Tulap(0, b = exp(-epsilon))
(Awan & Slavkovic 2018, Def. 2.3; delta = 0).  Under the global null ``theta_k = theta_0 +
margin``, ``U_k = (Z_k / n_k - Z_0 / n_0 - margin) / sqrt(1/n_k + 1/n_0)`` and

    P(max_k U_k >= u) = 1 - sum_{x_0} Binom(x_0) integral f_N(v) prod_k P(Z_k < y_k(x_0 + v)) dv,
    P(Z_k < y) = sum_{x_k} Binom(x_k) F_N(y - x_k),   y_k(z) = n_k (u s_k^-1 + margin + z / n_0),

summed directly over the counts; the integral over the control's noise ``v`` in
``|v| <= 36 / epsilon`` (the mass beyond is below 3e-16) by mpmath's tanh-sinh quadrature on
each piece between the integrand's breakpoints (the half-integers of ``v``, and the ``v``
where some ``y_k - x_k`` is a half-integer).  The two-sided version uses
``P(-u <= U_k < u)``.  The critical value ``u*`` solves ``P(max_k U_k >= u*) = 0.05`` at
one ``theta_0`` (mpmath's secant root finder).

Run: ``python tests/reference/make_dunnett.py`` (about an hour; resumable, each value is written
when done); writes ``dunnett_values.json``.
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 25

CASES = [  # arm sizes, control size, epsilon, theta_0, margin, u, two-sided
    ((8, 8), 8, 1.0, 0.3, 0.0, 1.1, False),
    ((6, 9, 8), 7, 2.0, 0.45, 0.1, 0.9, False),
    ((8, 8), 8, 1.0, 0.5, 0.0, 1.4, True),
]
CRITICAL = ((8, 8), 8, 2.0, 0.4, 0.0, False)


def tulap_cdf(t, b):
    if t > 0:
        return 1 - tulap_cdf(-t, b)
    r = mp.nint(t)
    return b ** (-r) / (1 + b) * (b + (t - r + mp.mpf(1) / 2) * (1 - b))


def tulap_pdf(t, b):
    return (1 - b) / (1 + b) * b ** abs(mp.nint(t))


def binom(n, theta):
    return [mp.binomial(n, x) * mp.mpf(theta) ** x * (1 - mp.mpf(theta)) ** (n - x) for x in range(n + 1)]


def tail(arms, n0, eps, theta0, margin, u, two_sided):
    b = mp.e ** (-mp.mpf(eps))
    theta0, margin, u = mp.mpf(theta0), mp.mpf(margin), mp.mpf(u)
    scales = [1 / mp.sqrt(mp.mpf(1) / n + mp.mpf(1) / n0) for n in arms]
    pk = [binom(n, theta0 + margin) for n in arms]
    p0 = binom(n0, theta0)
    L = int(36 / eps) + 1

    def cdf_arm(k, y):
        return mp.fsum(w * tulap_cdf(y - x, b) for x, w in enumerate(pk[k]))

    def integrand(x0, v):
        z = x0 + v
        prod = mp.mpf(1)
        for k, n in enumerate(arms):
            hi = cdf_arm(k, n * (u / scales[k] + margin + z / n0))
            if two_sided:
                hi -= cdf_arm(k, n * (-u / scales[k] + margin + z / n0))
            prod *= hi
        return tulap_pdf(v, b) * prod

    total = mp.mpf(0)
    for x0, w0 in enumerate(p0):
        cuts = {mp.mpf(-L) - mp.mpf(1) / 2, mp.mpf(L) + mp.mpf(1) / 2}
        cuts |= {mp.mpf(j) + mp.mpf(1) / 2 for j in range(-L - 1, L + 1)}
        for k, n in enumerate(arms):
            for level in ((u, -u) if two_sided else (u,)):
                base = n * (level / scales[k] + margin + mp.mpf(x0) / n0)  # y at v = 0; slope n / n0
                lo = int(mp.floor(base - n * (L + 1) / mp.mpf(n0))) - 2
                hi = int(mp.ceil(base + n * (L + 1) / mp.mpf(n0))) + 2
                for j in range(lo, hi + 1):
                    v = (j + mp.mpf(1) / 2 - base) * n0 / n
                    if -L - mp.mpf(1) / 2 < v < L + mp.mpf(1) / 2:
                        cuts.add(v)
        pts = sorted(cuts)
        total += w0 * mp.fsum(mp.quad(lambda v: integrand(x0, v), [a, c]) for a, c in zip(pts[:-1], pts[1:]))
    return 1 - total


def main():
    # resumable: the values already in the file are kept (each case is written when done)
    path = pathlib.Path(__file__).with_name("dunnett_values.json")
    out = json.loads(path.read_text()) if path.exists() else {"tails": [], "critical": None}
    done = {(tuple(c["arms"]), c["control"], c["epsilon"], c["theta0"], c["margin"], c["u"], c["two_sided"])
            for c in out["tails"]}
    for arms, n0, eps, theta0, margin, u, two in CASES:
        if (tuple(arms), n0, eps, theta0, margin, u, two) in done:
            continue
        value = tail(arms, n0, eps, theta0, margin, u, two)
        print(arms, n0, eps, theta0, margin, u, two, mp.nstr(value, 20), flush=True)
        out["tails"].append({"arms": list(arms), "control": n0, "epsilon": eps, "theta0": theta0,
                             "margin": margin, "u": u, "two_sided": two, "value": mp.nstr(value, 20)})
        path.write_text(json.dumps(out, indent=1) + "\n")
    arms, n0, eps, theta0, margin, two = CRITICAL
    root = mp.findroot(lambda u: tail(arms, n0, eps, theta0, margin, u, two) - mp.mpf("0.05"), mp.mpf(1.6),
                       tol=mp.mpf(10) ** -22)
    print("critical", mp.nstr(root, 20))
    out["critical"] = {"arms": list(arms), "control": n0, "epsilon": eps, "theta0": theta0, "margin": margin,
                       "two_sided": two, "alpha": 0.05, "u": mp.nstr(root, 20)}
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
