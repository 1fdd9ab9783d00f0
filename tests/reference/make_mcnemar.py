"""Reference tails and p-values of the exact private McNemar test, by direct summation (mpmath).

Independent of dpinfer (it does not import it).  A paired release is
``(z_D, z_S) = (D + N_D, S + N_S)``, ``D = n10 - n01``, ``S = n01 + n10``, ``N`` independent
Tulap(0, b) noises, ``b = exp(-epsilon / 2)`` (Awan & Slavkovic 2018, Def. 2.3: the integer
part ``E`` of ``N`` has ``P(E = e) = (1 - b)/(1 + b) b^|e|``, the rest is uniform on
``(-1/2, 1/2)``).  The order (dpinfer's definition, re-implemented here from its statement):
``g(c, j) = c / sqrt(max(j + v, 1))``, ``v = 2b/(1-b)^2``, on ``c = clip(round z_D, -n, n)``,
``j = clip(round z_S, 0, n)``, rounded to a multiple of 2**-32, closed to its smallest majorant
``M`` that is nonincreasing in ``j`` on ``c = -n``, nondecreasing along the cone
``c' - c >= |j' - j|`` and nondecreasing in ``j`` on ``c = n``; ``T = (M, z_D)`` lexicographic.

The tail at ``(p01, p10)`` is summed term by term over the counts ``(n01, n10)``
(multinomial) and over the integer parts of both noises (``|e| <= 140 / epsilon``: the mass
left out is below 1e-28), with the uniform's share ``clip(1/2 - (z - k_D), 0, 1)`` of
``P(z_D >= z)`` given ``k_D`` (upper tail; the mirror image for the lower one).  The p-value
is the supremum over the null line ``p10 - p01 = margin``, ``psi = p01 + p10`` in
``[|margin|, 1]``: a 401-point grid, then golden-section search (to 1e-20 in psi) on the
brackets of the best grid points.  ``z`` is the release moved to the end of its grid cell
of step ``h = 2**-40`` (``z_D - h/2`` for the upper tail, ``+ h/2`` for the lower).

Run: ``python tests/reference/make_mcnemar.py`` (about a minute); writes ``mcnemar_values.json``.
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 30
H = mp.mpf(2) ** -40
STEP = 2.0**-32

CASES = [  # n, epsilon, z_D, z_S, margin
    (12, 1.0, 3.296875, 6.703125, 0.0),
    (12, 1.0, -1.140625, 4.078125, 0.0),
    (12, 2.0, 4.453125, 5.921875, 0.1),
    (20, 2.0, 6.578125, 9.171875, 0.0),
    (20, 1.0, -2.265625, 11.734375, -0.2),
]
PSI = (0.15, 0.4, 0.75)


def order(n, b):
    v = 2 * b / (1 - b) ** 2
    g = [[round(float(c / mp.sqrt(max(j + v, 1))) / STEP) * STEP for j in range(n + 1)]
         for c in range(-n, n + 1)]
    col = g[0]
    for j in range(n - 1, -1, -1):
        col[j] = max(col[j], col[j + 1])
    for r in range(1, 2 * n + 1):
        for j in range(n + 1):
            g[r][j] = max([g[r][j]] + [g[r - 1][i] for i in (j - 1, j, j + 1) if 0 <= i <= n])
    col = g[2 * n]
    for j in range(1, n + 1):
        col[j] = max(col[j], col[j - 1])
    return g


def given_counts(n, eps, M, level, z, upper):
    b = mp.e ** (-mp.mpf(eps) / 2)
    pmf = lambda e: (1 - b) / (1 + b) * b ** abs(e)  # noqa: E731
    L = int(140 / eps)
    # inner[d][j]: sum over k_D of P(E_D = k_D - d) [T beyond | k_D, j]
    inner = {}
    for d in range(-n, n + 1):
        for j in range(n + 1):
            total = mp.mpf(0)
            for kd in range(d - L, d + L + 1):
                c = min(max(kd, -n), n)
                m = M[c + n][j]
                if (m > level) if upper else (m < level):
                    w = 1
                elif m == level:
                    w = min(max(mp.mpf(1) / 2 - (z - kd), 0), 1) if upper else min(max(mp.mpf(1) / 2 + (z - kd), 0), 1)
                else:
                    w = 0
                if w:
                    total += pmf(kd - d) * w
            inner[d, j] = total
    F = {}
    for a in range(n + 1):
        for m10 in range(n + 1 - a):
            s, d = a + m10, m10 - a
            F[a, m10] = mp.fsum(pmf(ks - s) * inner[d, min(max(ks, 0), n)] for ks in range(s - L, s + L + 1))
    return F


def tail(n, F, margin, psi):
    p01, p10 = (psi - margin) / 2, (psi + margin) / 2
    pc = 1 - psi
    out = mp.mpf(0)
    for (a, m10), f in F.items():
        r = n - a - m10
        coef = mp.factorial(n) / (mp.factorial(a) * mp.factorial(m10) * mp.factorial(r))
        out += coef * (p01 ** a if a else 1) * (p10 ** m10 if m10 else 1) * (pc ** r if r else 1) * f
    return out


def sup(n, F, margin):
    lo, hi = abs(mp.mpf(margin)), mp.mpf(1)
    grid = [lo + (hi - lo) * i / 400 for i in range(401)]
    values = [tail(n, F, margin, x) for x in grid]
    best = max(values)
    order_ = sorted(range(401), key=lambda i: -values[i])[:3]
    phi = (mp.sqrt(5) - 1) / 2
    for i in order_:
        a, c = grid[max(i - 1, 0)], grid[min(i + 1, 400)]
        x1, x2 = c - phi * (c - a), a + phi * (c - a)
        f1, f2 = tail(n, F, margin, x1), tail(n, F, margin, x2)
        while c - a > mp.mpf(10) ** -20:
            if f1 > f2:
                c, x2, f2 = x2, x1, f1
                x1 = c - phi * (c - a)
                f1 = tail(n, F, margin, x1)
            else:
                a, x1, f1 = x1, x2, f2
                x2 = a + phi * (c - a)
                f2 = tail(n, F, margin, x2)
        best = max(best, f1, f2)
    return best


def main():
    out = []
    for n, eps, zd, zs, margin in CASES:
        b = mp.e ** (-mp.mpf(eps) / 2)
        M = order(n, b)
        kd, ks = round(zd), round(zs)
        level = M[min(max(kd, -n), n) + n][min(max(ks, 0), n)]
        case = {"n": n, "epsilon": eps, "z_difference": zd, "z_discordant": zs, "margin": margin,
                "level": level, "tails": {}}
        for upper, name in ((True, "greater"), (False, "less")):
            z = mp.mpf(zd) - H / 2 if upper else mp.mpf(zd) + H / 2
            F = given_counts(n, eps, M, level, z, upper)
            case["tails"][name] = {"psi": list(PSI),
                                   "values": [mp.nstr(tail(n, F, margin, mp.mpf(p)), 20) for p in PSI
                                              if p >= abs(margin)],
                                   "sup": mp.nstr(sup(n, F, margin), 20)}
        out.append(case)
        print(n, eps, zd, zs, margin, case["tails"]["greater"]["sup"], case["tails"]["less"]["sup"])
    path = pathlib.Path(__file__).with_name("mcnemar_values.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
