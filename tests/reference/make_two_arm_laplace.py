"""Reference p-values of the exact two-arm test for two Laplace releases (mpmath, no dpinfer).

The released law (``LaplaceReleaser(epsilon).count(x, n)``): ``Z = x + h D`` with ``h = 2**-g``
and ``D`` discrete Laplace, ``P(D = d) = (1 - r) / (1 + r) r^|d|``, ``r = exp(-epsilon h)``.
The grid exponent is taken coarse here (``g = 3``, ``h = 1/8``) so that the noise can be
summed term by term: for ``T = Z1/n1 - c Z2/n2``,

    P(T >= t) = sum_{x1, x2} Binom(x1) Binom(x2) sum_{d2} P(D2 = d2) P(D1 >= k(x1, x2, d2)),

``k`` the smallest integer with ``(x1 + h k)/n1 - c (x2 + h d2)/n2 >= t``, found in exact
rational arithmetic (``Fraction``), and ``P(D1 >= k)`` the cumulative sum of the pmf, added
term by term (no closed form).  ``|d| <= L`` with ``L = ceil(70 / (epsilon h))``: the mass
left out is below ``1e-30``.  The p-value is the supremum over the null line (difference:
``theta1 = nu + Delta0``; ratio: ``theta1 = rho0 nu``) by a 41-point grid and golden-section
search (to 1e-14 in nu) on the two best grid brackets (``make_two_arm.null_line_sup``); two-sided is
``min(1, 2 min(p_greater, p_less))``.  The observed ``z_i`` are on the grid and ``t`` is
their exact statistic (no cell: the Laplace release is exactly on its grid).

Also: ``P(A - B >= y)`` for independent ``A ~ Laplace(s_a)``, ``B ~ Laplace(s_b)`` by
numerical integration (``mp.quad``) of ``P(A >= y + b)`` against the density of ``B``.

Run: ``python tests/reference/make_two_arm_laplace.py`` (about a minute); writes
``two_arm_laplace_values.json``.
"""

import json
import pathlib
from fractions import Fraction

import mpmath as mp
from make_two_arm import case_rows, null_line_sup  # the same supremum search and output (no dpinfer)

mp.mp.dps = 30
G = 3
H = Fraction(1, 2**G)


def noise(epsilon):
    """``(L, pmf, tail)``: the pmf on ``-L..L`` and ``tail[k + L + 1] = P(D >= k)`` for ``k`` in ``-L-1..L+1``."""
    r = mp.exp(-mp.mpf(epsilon) / 2**G)
    reach = int(mp.ceil(70 / (mp.mpf(epsilon) / 2**G)))
    pmf = [(1 - r) / (1 + r) * r ** abs(d) for d in range(-reach, reach + 1)]
    tail = [mp.mpf(0)] * (2 * reach + 3)
    acc = mp.mpf(0)
    for i in range(2 * reach, -1, -1):
        acc += pmf[i]
        tail[i + 1] = acc
    tail[0] = acc  # k = -L - 1: all the mass kept
    return reach, pmf, tail


def ceil_fraction(q):
    return -((-q.numerator) // q.denominator)


def q_table(case, upper):
    """``Q[x1][x2]``: the noise's share of the tail beyond ``t`` given the counts."""
    n1, n2 = case["n1"], case["n2"]
    c = Fraction(case["margin"]) if case["effect"] == "ratio" else Fraction(1)
    z1, z2 = Fraction(case["z1"]), Fraction(case["z2"])
    t = z1 / n1 - c * z2 / n2
    l1, _, tail1 = noise(case["epsilon1"])
    l2, pmf2, _ = noise(case["epsilon2"])

    def share(x1, x2):
        total = mp.mpf(0)
        for i, d2 in enumerate(range(-l2, l2 + 1)):
            # (x1 + h k)/n1 - c (x2 + h d2)/n2 >= t  <=>  k >= n1 (t + c (x2 + h d2)/n2) / h - x1 / h
            bound = (n1 * (t + c * (x2 + H * d2) / n2) - x1) / H
            if upper:
                k = ceil_fraction(bound)
                k = min(max(k, -l1 - 1), l1 + 1)
                total += pmf2[i] * tail1[k + l1 + 1]
            else:  # D1 <= floor(bound): one minus P(D1 >= floor(bound) + 1)
                k = (bound.numerator // bound.denominator) + 1
                k = min(max(k, -l1 - 1), l1 + 1)
                total += pmf2[i] * (tail1[0] - tail1[k + l1 + 1])
        return total

    return [[share(x1, x2) for x2 in range(n2 + 1)] for x1 in range(n1 + 1)]


def pvalue_one_sided(case, upper):
    n1, n2 = case["n1"], case["n2"]
    effect, margin = case["effect"], mp.mpf(case["margin"])
    return null_line_sup(q_table(case, upper), n1, n2, effect, margin)


def laplace_difference_tail(y, sa, sb):
    """``P(A - B >= y)`` by quadrature over ``B`` (split at the kink ``b = -y``)."""
    y, sa, sb = mp.mpf(y), mp.mpf(sa), mp.mpf(sb)

    def sf_a(x):
        return mp.exp(-x / sa) / 2 if x >= 0 else 1 - mp.exp(x / sa) / 2

    def integrand(b):
        return mp.exp(-abs(b) / sb) / (2 * sb) * sf_a(y + b)

    return mp.quad(integrand, sorted({-mp.inf, -y, mp.mpf(0), mp.inf}))


# z on the grid of step 1/8
CASES = [
    dict(name="difference, unequal n and epsilon", n1=5, n2=7, epsilon1=1.0, epsilon2=1.5, z1=3.25,
         z2=1.625, effect="difference", margin=0.0),
    dict(name="difference, equal arms, margin", n1=6, n2=6, epsilon1=2.0, epsilon2=2.0, z1=4.5, z2=1.125,
         effect="difference", margin=0.1),
    dict(name="difference, n2 = 2 n1, non-inferiority", n1=4, n2=8, epsilon1=0.8, epsilon2=1.0, z1=1.875,
         z2=4.375, effect="difference", margin=-0.2),
    dict(name="ratio", n1=5, n2=6, epsilon1=1.0, epsilon2=1.0, z1=3.5, z2=2.25, effect="ratio", margin=1.5),
]

TAILS = [(0.0, 0.3, 0.2), (0.25, 0.3, 0.2), (-0.4, 0.05, 0.2), (0.7, 0.1, 0.1), (0.5, 0.1, 0.1 + 1e-9),
         (3.0, 0.5, 0.01)]


def main():
    out = case_rows(CASES, pvalue_one_sided)
    tails = [{"y": y, "scale_a": sa, "scale_b": sb, "tail": mp.nstr(laplace_difference_tail(y, sa, sb), 20)}
             for y, sa, sb in TAILS]
    path = pathlib.Path(__file__).with_name("two_arm_laplace_values.json")
    path.write_text(json.dumps({"script": "make_two_arm_laplace.py", "dps": 30, "grid_bits": G, "cases": out,
                                "difference_tails": tails}, indent=1) + "\n")


if __name__ == "__main__":
    main()
