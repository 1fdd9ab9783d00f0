"""Reference tails of the two-arm score ordering, by direct enumeration and quadrature (mpmath).

Independent of dpinfer (it does not import it): the statistic of two Tulap releases
``Z_i = X_i + D_i + U_i`` (``D_i`` the discrete Laplace integer part of the untruncated Tulap
noise, ``P(D = d) = (1 - b)/(1 + b) b^|d|``, ``U_i ~ U(-1/2, 1/2)``) is the pair ordered
lexicographically

    T = (g(clip(X1 + D1, 0, n1), clip(X2 + D2, 0, n2)),  Z1/n1 - c Z2/n2),

``g`` the score statistic of the null with the noise variance ``v = 2 b / (1 - b)^2`` of each
``D_i`` added to its variance (restricted maximum likelihood found here by bisection on the
derivative of the restricted log-likelihood, not by the closed-form roots), made monotone by its
smallest majorant nondecreasing in ``j1`` and nonincreasing in ``j2``.  The tail
``P(T >= (g_obs, t))`` at given ``(theta1, theta2)`` is summed directly over
``(x1, x2, d1, d2)`` (``|d| <= 40``; the rest is below 1e-34 at the epsilons used), and on the
cells that tie in ``g`` the probability ``P(a1 U1 + a2 U2 >= s)`` is integrated numerically over
``U1`` (the inner ``U2`` probability is a clipped linear function; Gauss-Legendre on the pieces
between its kinks).  Ties in ``g`` are decided at 40 digits with tolerance 1e-25.  The observed
releases are moved to the ends of their grid cells (step ``h = 2**-40``): ``(z1 - h/2, z2 + h/2)``
for the upper tail, ``(z1 + h/2, z2 - h/2)`` for the lower one (the lower tail is that of
``(-g, -T_lin)``).

Run: ``python tests/reference/make_two_arm_score.py`` (a few minutes); writes
``two_arm_score_values.json``.
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 40
H = mp.mpf(2) ** -40
REACH = 40
NODES = [(-mp.sqrt(mp.mpf(3) / 5), mp.mpf(5) / 9), (mp.mpf(0), mp.mpf(8) / 9),
         (mp.sqrt(mp.mpf(3) / 5), mp.mpf(5) / 9)]


def restricted(j1, j2, n1, n2, effect, margin):
    """The restricted MLE ``(t1, t2)`` by bisection on the restricted score (concave log-likelihood)."""
    if effect == "difference":
        lo, hi = max(mp.mpf(0), -margin), min(mp.mpf(1), 1 - margin)

        def t1_of(t2):
            return t2 + margin
        dt1 = mp.mpf(1)
    else:
        lo, hi = mp.mpf(0), min(mp.mpf(1), 1 / margin)

        def t1_of(t2):
            return margin * t2
        dt1 = margin

    def score(t2):
        t1 = t1_of(t2)
        out = mp.mpf(0)
        for x, n, t, dt in ((j1, n1, t1, dt1), (j2, n2, t2, mp.mpf(1))):
            if x > 0:
                out += dt * x / t if t > 0 else mp.inf
            if n - x > 0:
                out -= dt * (n - x) / (1 - t) if t < 1 else mp.inf
        return out

    eps = mp.mpf(10) ** -35
    a, b = lo + eps, hi - eps
    if score(a) <= 0:
        t2 = lo
    elif score(b) >= 0:
        t2 = hi
    else:
        for _ in range(200):
            m = (a + b) / 2
            if score(m) > 0:
                a = m
            else:
                b = m
        t2 = (a + b) / 2
    return t1_of(t2), t2


def score_matrix(n1, n2, effect, margin, v1, v2):
    c = mp.mpf(1) if effect == "difference" else margin
    shift = margin if effect == "difference" else mp.mpf(0)
    g = [[None] * (n2 + 1) for _ in range(n1 + 1)]
    for j1 in range(n1 + 1):
        for j2 in range(n2 + 1):
            t1, t2 = restricted(j1, j2, n1, n2, effect, margin)
            num = mp.mpf(j1) / n1 - c * mp.mpf(j2) / n2 - shift
            var = t1 * (1 - t1) / n1 + v1 / n1**2 + c**2 * (t2 * (1 - t2) / n2 + v2 / n2**2)
            g[j1][j2] = num / mp.sqrt(var)
    # smallest majorant nondecreasing in j1, nonincreasing in j2
    h = [[max(g[i1][i2] for i1 in range(j1 + 1) for i2 in range(j2, n2 + 1))
          for j2 in range(n2 + 1)] for j1 in range(n1 + 1)]
    return h


def uniform_tail(s, a1, a2):
    """P(a1 U1 + a2 U2 >= s), U_i ~ U(-1/2, 1/2), a1 != 0 != a2, by quadrature over U1."""
    half = mp.mpf(1) / 2

    def inner(u1):  # P(a2 U2 >= s - a1 u1)
        r = (s - a1 * u1) / a2
        if a2 > 0:
            return min(max(half - r, 0), 1)
        return min(max(r + half, 0), 1)

    kinks = sorted({-half, half} | {k for k in ((s - a2 * half) / a1, (s + a2 * half) / a1) if -half < k < half})
    total = mp.mpf(0)
    for lo, hi in zip(kinks[:-1], kinks[1:]):
        mid, rad = (lo + hi) / 2, (hi - lo) / 2
        total += rad * sum(w * inner(mid + rad * x) for x, w in NODES)
    return total


def tail(case, upper):
    n1, n2 = case["n1"], case["n2"]
    b1, b2 = mp.exp(-mp.mpf(case["epsilon1"])), mp.exp(-mp.mpf(case["epsilon2"]))
    v1, v2 = 2 * b1 / (1 - b1) ** 2, 2 * b2 / (1 - b2) ** 2
    effect, margin = case["effect"], mp.mpf(case["margin"])
    c = mp.mpf(1) if effect == "difference" else margin
    g = score_matrix(n1, n2, effect, margin, v1, v2)
    sgn = 1 if upper else -1
    z1 = mp.mpf(case["z1"]) - sgn * H / 2
    z2 = mp.mpf(case["z2"]) + sgn * H / 2
    # the cell of a half-integer corner is the less extreme one (none occurs in these cases)
    k1, k2 = int(mp.nint(z1)), int(mp.nint(z2))
    g_obs = sgn * g[min(max(k1, 0), n1)][min(max(k2, 0), n2)]
    t = sgn * (z1 / n1 - c * z2 / n2)
    a1, a2 = sgn * mp.mpf(1) / n1, -sgn * c / n2
    theta1, theta2 = mp.mpf(case["theta1"]), mp.mpf(case["theta2"])

    def pmf_k(n, theta, b):
        out = {}
        for x in range(n + 1):
            px = mp.binomial(n, x) * theta**x * (1 - theta) ** (n - x)
            for d in range(-REACH, REACH + 1):
                out[x + d] = out.get(x + d, mp.mpf(0)) + px * (1 - b) / (1 + b) * b ** abs(d)
        return out

    p1, p2 = pmf_k(n1, theta1, b1), pmf_k(n2, theta2, b2)
    total = mp.mpf(0)
    tol = mp.mpf(10) ** -25
    for kk1, q1 in p1.items():
        for kk2, q2 in p2.items():
            gk = sgn * g[min(max(kk1, 0), n1)][min(max(kk2, 0), n2)]
            if gk > g_obs + tol:
                total += q1 * q2
            elif gk >= g_obs - tol:
                total += q1 * q2 * uniform_tail(t - a1 * kk1 - a2 * kk2, a1, a2)
    return total


CASES = [
    dict(name="pooled, unequal n", n1=6, n2=8, epsilon1=2.0, epsilon2=1.5, effect="difference",
         margin=0.0, z1=4.3, z2=2.9, theta1=0.5, theta2=0.3),
    dict(name="pooled, equal n (mirror ties)", n1=7, n2=7, epsilon1=2.0, epsilon2=2.0,
         effect="difference", margin=0.0, z1=3.2, z2=3.8, theta1=0.45, theta2=0.45),
    dict(name="difference margin, clipped release", n1=5, n2=7, epsilon1=1.5, epsilon2=2.5,
         effect="difference", margin=-0.2, z1=-1.3, z2=4.4, theta1=0.3, theta2=0.5),
    dict(name="risk ratio", n1=6, n2=6, epsilon1=2.0, epsilon2=2.0, effect="ratio", margin=1.5,
         z1=5.1, z2=2.2, theta1=0.6, theta2=0.4),
]


def main():
    out = []
    for case in CASES:
        row = dict(case)
        row["greater"] = mp.nstr(tail(case, True), 25)
        row["less"] = mp.nstr(tail(case, False), 25)
        print(row["name"], row["greater"], row["less"], flush=True)
        out.append(row)
    path = pathlib.Path(__file__).with_name("two_arm_score_values.json")
    path.write_text(json.dumps({"cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
