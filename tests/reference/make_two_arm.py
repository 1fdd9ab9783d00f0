"""Reference p-values of the exact two-arm test, by direct summation and quadrature (mpmath).

Independent of dpinfer (it does not import it) and of its method: where dpinfer splits each
release into an integer part and a uniform part (``Z = K + U``) and sums closed-form tails,
this script sums over the confidential counts ``(x1, x2)`` directly and integrates the two
continuous Tulap noises numerically:

    P(T >= t) = sum_{x1, x2} Binom(x1; n1, theta1) Binom(x2; n2, theta2) Q(t - x1/n1 + c x2/n2),
    Q(s) = P(N1/n1 - c N2/n2 >= s) = integral f2(v) (1 - F1(n1 (s + c v / n2))) dv,

with ``f2`` the Tulap(0, b2) density and ``F1`` the Tulap(0, b1) cdf (Awan & Slavkovic 2018,
Def. 2.3; untruncated, delta = 0), ``T = Z1/n1 - c Z2/n2``.  The integral runs over
``|v| <= 80 / epsilon2`` (the rest is below 1e-34), split at every breakpoint of the integrand
(the half-integers of ``v`` and of ``n1 (s + c v / n2)``), with 3-point Gauss-Legendre on each
piece.  The p-value is the supremum over the null line (difference: ``theta1 = nu + Delta0``;
ratio: ``theta1 = rho0 nu``) by a 41-point grid and golden-section search (to 1e-14 in nu: the error in p is quadratic, below 1e-26) on
the best grid bracket and its neighbours; two-sided is ``min(1, 2 min(p_greater, p_less))``.
The observed statistic is moved to the end of the release cells of step ``h = 2**-40`` (the
grid of TulapReleaser at these n and epsilon), as dpinfer's definition says:
``t - h/(2 n1) - c h/(2 n2)`` for the upper tail, ``+`` for the lower one.

Run: ``python tests/reference/make_two_arm.py`` (about a minute); writes ``two_arm_values.json``.
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 30
H = mp.mpf(2) ** -40
NODES = [(-mp.sqrt(mp.mpf(3) / 5), mp.mpf(5) / 9), (mp.mpf(0), mp.mpf(8) / 9),
         (mp.sqrt(mp.mpf(3) / 5), mp.mpf(5) / 9)]


def tulap_cdf(t, b):
    """Untruncated Tulap(0, b) cdf."""
    if t > 0:
        return 1 - tulap_cdf(-t, b)
    r = mp.nint(t)
    return b ** (-r) / (1 + b) * (b + (t - r + mp.mpf(1) / 2) * (1 - b))


def tulap_pdf(v, b):
    return (1 - b) / (1 + b) * b ** abs(mp.nint(v))


def noise_tail(s, n1, n2, c, b1, b2, eps2):
    """Q(s) = P(N1/n1 - c N2/n2 >= s) by piecewise Gauss-Legendre over v (the N2 value)."""
    reach = mp.ceil(80 / eps2) + mp.mpf(1) / 2
    scale = n1 * c / n2
    points = {-reach, reach}
    k = -reach
    while k <= reach:
        points.add(k)
        k += 1
    # kinks of v -> F1(n1 s + scale v): n1 s + scale v = j + 1/2
    low_arg, high_arg = n1 * s - scale * reach, n1 * s + scale * reach
    j = mp.floor(low_arg - mp.mpf(1) / 2)
    while j + mp.mpf(1) / 2 <= high_arg:
        v = (j + mp.mpf(1) / 2 - n1 * s) / scale
        if -reach < v < reach:
            points.add(v)
        j += 1
    grid = sorted(points)
    total = mp.mpf(0)
    for a, b in zip(grid[:-1], grid[1:]):
        half, mid = (b - a) / 2, (a + b) / 2
        for x, w in NODES:
            v = mid + half * x
            total += w * half * tulap_pdf(v, b2) * (1 - tulap_cdf(n1 * s + scale * v, b1))
    return total


def binom_pmf(x, n, p):
    if p == 0:
        return mp.mpf(1) if x == 0 else mp.mpf(0)
    if p == 1:
        return mp.mpf(1) if x == n else mp.mpf(0)
    return mp.binomial(n, x) * p ** x * (1 - p) ** (n - x)


def pvalue_one_sided(case, upper):
    n1, n2 = case["n1"], case["n2"]
    b1, b2 = mp.exp(-mp.mpf(case["epsilon1"])), mp.exp(-mp.mpf(case["epsilon2"]))
    effect, margin = case["effect"], mp.mpf(case["margin"])
    c = mp.mpf(1) if effect == "difference" else margin
    t = mp.mpf(case["z1"]) / n1 - c * mp.mpf(case["z2"]) / n2
    shift = H / (2 * n1) + c * H / (2 * n2)
    t = t - shift if upper else t + shift
    cache = {}

    def q(x1, x2):
        key = (x1, x2) if effect == "ratio" else x1 - x2 * n1 // n2 if n1 == n2 else (x1, x2)
        if key not in cache:
            tail = noise_tail(t - mp.mpf(x1) / n1 + c * mp.mpf(x2) / n2, n1, n2, c, b1, b2,
                              mp.mpf(case["epsilon2"]))
            cache[key] = tail if upper else 1 - tail
        return cache[key]

    table = [[q(x1, x2) for x2 in range(n2 + 1)] for x1 in range(n1 + 1)]
    return null_line_sup(table, n1, n2, effect, margin)


def null_line_sup(table, n1, n2, effect, margin):
    """sup over the null line of sum_{x1, x2} Binom Binom table[x1][x2] (grid, then golden section)."""
    if effect == "difference":
        low, high = max(mp.mpf(0), -margin), min(mp.mpf(1), 1 - margin)
    else:
        low, high = mp.mpf(0), min(mp.mpf(1), 1 / margin)

    def f(nu):
        th1 = nu + margin if effect == "difference" else margin * nu
        th1 = min(max(th1, mp.mpf(0)), mp.mpf(1))
        b_1 = [binom_pmf(x, n1, th1) for x in range(n1 + 1)]
        b_2 = [binom_pmf(x, n2, nu) for x in range(n2 + 1)]
        return mp.fsum(b_1[x1] * mp.fsum(b_2[x2] * table[x1][x2] for x2 in range(n2 + 1))
                       for x1 in range(n1 + 1))

    return grid_golden_sup(f, low, high, peaks=2, tol=mp.mpf(10) ** -14)


def grid_golden_sup(f, low, high, peaks, tol):
    """sup of ``f`` on [low, high]: a 41-point grid, then golden-section search (to ``tol``) on the
    brackets of the ``peaks`` best grid points."""
    grid = [low + (high - low) * i / 40 for i in range(41)]
    values = [f(nu) for nu in grid]
    best = max(values)
    order = sorted(range(41), key=lambda i: -values[i])[:peaks]
    phi = (mp.sqrt(5) - 1) / 2
    for i in order:
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, 40)]
        x, y = b - phi * (b - a), a + phi * (b - a)
        fx, fy = f(x), f(y)
        while b - a > tol:
            if fx < fy:
                a, x, fx = x, y, fy
                y = a + phi * (b - a)
                fy = f(y)
            else:
                b, y, fy = y, x, fx
                x = b - phi * (b - a)
                fx = f(x)
        best = max(best, fx, fy, f(a), f(b))
    return best


CASES = [
    dict(name="equal n, difference", n1=30, n2=30, epsilon1=1.0, epsilon2=1.0, z1=18.37, z2=11.02,
         effect="difference", margin=0.0),
    dict(name="non-inferiority margin, unequal n and epsilon", n1=40, n2=30, epsilon1=0.5,
         epsilon2=1.0, z1=21.6, z2=19.3, effect="difference", margin=-0.15),
    dict(name="risk ratio", n1=25, n2=30, epsilon1=1.0, epsilon2=2.0, z1=14.2, z2=9.6,
         effect="ratio", margin=1.5),
    dict(name="n = 200 per arm", n1=200, n2=200, epsilon1=1.0, epsilon2=1.0, z1=121.4,
         z2=97.8, effect="difference", margin=0.0),
]


def case_rows(cases, one_sided):
    """Each case with its three p-values (``one_sided(case, upper)``), printed as they come."""
    out = []
    for case in cases:
        greater = one_sided(case, True)
        less = one_sided(case, False)
        two = min(mp.mpf(1), 2 * min(greater, less))
        out.append({**case, "greater": mp.nstr(greater, 20), "less": mp.nstr(less, 20),
                    "two-sided": mp.nstr(two, 20)})
        print(case["name"], mp.nstr(greater, 12), mp.nstr(less, 12), mp.nstr(two, 12), flush=True)
    return out


def main():
    out = case_rows(CASES, pvalue_one_sided)
    path = pathlib.Path(__file__).with_name("two_arm_values.json")
    path.write_text(json.dumps({"script": "make_two_arm.py", "dps": 30, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
