"""Reference p-values of the exact two-arm odds-ratio test (score ordering), by direct summation (mpmath).

Independent of dpinfer (it does not import it).  Arm ``i``: ``X_i ~ Binomial(n_i, theta_i)``,
released as ``Z_i = X_i + N_i`` with untruncated Tulap(0, b_i) noise (Awan & Slavkovic 2018,
Def. 2.3; ``b_i = exp(-epsilon_i)``, delta = 0).  The noise has density
``(1 - b)/(1 + b) b^|d|`` on the unit cell ``[d - 1/2, d + 1/2)``, so ``round(Z_i) = X_i + d``
on the cell ``d``.  The statistic is the pair, ordered lexicographically,

    T = (g(clip(round(Z1), 0, n1), clip(round(Z2), 0, n2)),  Z1/n1 - Z2/n2),

``g`` the Miettinen & Nurminen (1985) score of the null odds ratio ``psi0`` with the variance
``v_i = 2 b_i / (1 - b_i)^2`` of each arm's integer noise added:

    g = d (a1 + a2) / sqrt(a2^2 (a1 + v1) + a1^2 (a2 + v2)),   d = j1 - n1 t1,  a_i = n_i t_i (1 - t_i),

with ``(t1, t2)`` the restricted MLE under ``t1 (1 - t2) / (t2 (1 - t1)) = psi0``, found here by
bisection on the derivative of the restricted log-likelihood in ``t2`` (not by the quadratic's
closed-form root), then made monotone by its smallest majorant nondecreasing in ``j1`` and
nonincreasing in ``j2``.  The tail at ``(theta1, theta2)`` is summed directly over the counts
and the noise cells: ``P(T >= (g_obs, t)) = sum P(x1) P(d1) P(x2) P(d2) W``, with ``W`` 1 where
``g > g_obs`` and, where ``g`` ties (to 1e-20), the probability that the noises' positions
inside their cells give ``Z1/n1 - Z2/n2 >= t``, integrated numerically over the first noise
inside its cell (Gauss-Legendre between the kinks; the inner probability over the second
noise is a clipped linear function).  ``|d| <= 40`` (the mass left out, ``2 b^41 / (1 + b)``,
is below 3e-18 at the cases' epsilon >= 1).  The observed releases are moved to the ends of
their grid cells (step ``h = 2**-40``): ``(z1 - h/2, z2 + h/2)`` for the upper tail,
``(z1 + h/2, z2 - h/2)`` for the lower one (the lower tail is that of ``(-g, -T_lin)``).  The
p-value is the supremum over the null curve ``theta1 = psi0 nu / (1 - nu + psi0 nu)``,
``theta2 = nu`` in [0, 1], by a 41-point grid and golden-section search (to 1e-13 in nu) on
the three best grid brackets; two-sided is ``min(1, 2 min(p_greater, p_less))``.

Run: ``python tests/reference/make_two_arm_odds_ratio.py`` (several minutes); writes
``two_arm_odds_ratio_values.json``.  ``python tests/reference/make_two_arm_odds_ratio.py margins``
writes ``two_arm_odds_ratio_margins_values.json``: margins 1e-6 to 1e6 (issue 40), the supremum
searched evenly in the mean log-odds (:func:`log_odds_sup`), since at a margin far from 1 the
null curve bends within ``1 / psi`` of a corner.
"""

import functools
import json
import pathlib
import sys

import mpmath as mp
# the supremum search, the binomial pmf and the rows of the two-arm script, the quadrature of the
# positions inside the cells of the score script (no dpinfer)
from make_two_arm import binom_pmf, case_rows, grid_golden_sup
from make_two_arm_score import uniform_tail

mp.mp.dps = 30
H = mp.mpf(2) ** -40
REACH = 40
TIE = mp.mpf(10) ** -20


def restricted(j1, j2, n1, n2, psi):
    """The restricted MLE ``(t1, t2)`` by bisection on the restricted score in ``t2``."""
    m = j1 + j2
    if m == 0:
        return mp.mpf(0), mp.mpf(0)
    if m == n1 + n2:
        return mp.mpf(1), mp.mpf(1)

    def t1_of(t2):
        return psi * t2 / (1 - t2 + psi * t2)

    def score(t2):
        # d/dt2 of the log-likelihood along the curve (dt1/dt2 = psi / (1 - t2 + psi t2)^2)
        t1 = t1_of(t2)
        dt1 = psi / (1 - t2 + psi * t2) ** 2
        return (dt1 * (j1 / t1 - (n1 - j1) / (1 - t1))
                + j2 / t2 - (n2 - j2) / (1 - t2))

    a, b = mp.mpf(10) ** -28, 1 - mp.mpf(10) ** -28
    for _ in range(110):
        mid = (a + b) / 2
        if score(mid) > 0:
            a = mid
        else:
            b = mid
    t2 = (a + b) / 2
    return t1_of(t2), t2


@functools.lru_cache(maxsize=2)
def score_matrix(n1, n2, psi, v1, v2):
    g = [[None] * (n2 + 1) for _ in range(n1 + 1)]
    for j1 in range(n1 + 1):
        for j2 in range(n2 + 1):
            t1, t2 = restricted(j1, j2, n1, n2, psi)
            a1, a2 = n1 * t1 * (1 - t1), n2 * t2 * (1 - t2)
            num = (j1 - n1 * t1) * (a1 + a2)
            var = a2**2 * (a1 + v1) + a1**2 * (a2 + v2)
            g[j1][j2] = num / mp.sqrt(var) if var > 0 else mp.mpf(0)
    # smallest majorant nondecreasing in j1, nonincreasing in j2 (running maxima)
    for j1 in range(1, n1 + 1):
        for j2 in range(n2 + 1):
            g[j1][j2] = max(g[j1][j2], g[j1 - 1][j2])
    for j1 in range(n1 + 1):
        for j2 in range(n2 - 1, -1, -1):
            g[j1][j2] = max(g[j1][j2], g[j1][j2 + 1])
    return g


def one_sided(case, upper, search=None):
    """The one-sided p-value of ``case``: the supremum (by ``search(tail, psi)``; default the grid in
    ``nu = theta2``) of the tail over the null curve."""
    n1, n2 = case["n1"], case["n2"]
    b1, b2 = mp.exp(-mp.mpf(case["epsilon1"])), mp.exp(-mp.mpf(case["epsilon2"]))
    v1, v2 = 2 * b1 / (1 - b1) ** 2, 2 * b2 / (1 - b2) ** 2
    psi = mp.mpf(case["margin"])
    g = score_matrix(n1, n2, psi, v1, v2)
    sgn = 1 if upper else -1
    z1 = mp.mpf(case["z1"]) - sgn * H / 2
    z2 = mp.mpf(case["z2"]) + sgn * H / 2
    k1, k2 = int(mp.nint(z1)), int(mp.nint(z2))  # no corner is a half-integer in these cases
    g_obs = sgn * g[min(max(k1, 0), n1)][min(max(k2, 0), n2)]
    t = sgn * (z1 / n1 - z2 / n2)
    a1, a2 = sgn * mp.mpf(1) / n1, -sgn * mp.mpf(1) / n2
    noise1 = {d: (1 - b1) / (1 + b1) * b1 ** abs(d) for d in range(-REACH, REACH + 1)}
    noise2 = {d: (1 - b2) / (1 + b2) * b2 ** abs(d) for d in range(-REACH, REACH + 1)}
    # W over the full cells (k1, k2) = (x1 + d1, x2 + d2): 1, 0, or the tie's integral
    strict, tied = {}, {}
    for kk1 in range(-REACH, n1 + REACH + 1):
        for kk2 in range(-REACH, n2 + REACH + 1):
            gk = sgn * g[min(max(kk1, 0), n1)][min(max(kk2, 0), n2)]
            if gk > g_obs + TIE:
                strict.setdefault(kk1, []).append(kk2)
            elif gk >= g_obs - TIE:
                tied[(kk1, kk2)] = uniform_tail(t - a1 * kk1 - a2 * kk2, a1, a2)

    def tail(nu):
        theta1, theta2 = psi * nu / (1 - nu + psi * nu), nu
        b_1 = [binom_pmf(x, n1, theta1) for x in range(n1 + 1)]
        b_2 = [binom_pmf(x, n2, theta2) for x in range(n2 + 1)]
        # P(X_i + d_i = k): the direct sum over the counts and the noise cells
        p1 = {k: mp.fsum(b_1[x] * noise1[k - x] for x in range(max(0, k - REACH), min(n1, k + REACH) + 1))
              for k in range(-REACH, n1 + REACH + 1)}
        p2 = {k: mp.fsum(b_2[x] * noise2[k - x] for x in range(max(0, k - REACH), min(n2, k + REACH) + 1))
              for k in range(-REACH, n2 + REACH + 1)}
        total = mp.fsum(p1[kk1] * mp.fsum(p2[kk2] for kk2 in row) for kk1, row in strict.items())
        return total + mp.fsum(p1[kk1] * p2[kk2] * w for (kk1, kk2), w in tied.items())

    if search is not None:
        return search(tail, psi)
    return grid_golden_sup(tail, mp.mpf(0), mp.mpf(1), peaks=3, tol=mp.mpf(10) ** -13)


def log_odds_sup(tail, psi):
    """The supremum over the null curve searched in the mean log-odds ``L``: ``logit(theta1) = L + log(psi)/2``,
    ``logit(theta2) = L - log(psi)/2``.

    At a margin far from 1 the curve turns within ``nu`` of order ``1 / psi`` (or ``psi``) of a corner,
    where a grid even in ``nu`` has no point; even in ``L`` it is spread evenly.  Four 41-point
    grids on [-40, 40] (step 0.5), golden-section search on each one's best brackets, and the two
    corners (``nu`` = 0 and 1, the limits ``L -> -inf, +inf``).
    """
    def at(ell):
        return tail(1 / (1 + mp.exp(-(ell - mp.log(psi) / 2))))

    ends = [mp.mpf(v) for v in (-40, -20, 0, 20, 40)]
    parts = [grid_golden_sup(at, a, b, peaks=2, tol=mp.mpf(10) ** -10) for a, b in zip(ends, ends[1:])]
    return max(parts + [tail(mp.mpf(0)), tail(mp.mpf(1))])


CASES = [
    dict(name="equal n, odds ratio 2", n1=30, n2=30, epsilon1=1.0, epsilon2=1.0, z1=21.3, z2=10.6,
         margin=2.0),
    dict(name="unequal n and epsilon, odds ratio 0.5", n1=40, n2=25, epsilon1=1.0, epsilon2=2.0,
         z1=14.2, z2=15.7, margin=0.5),
    dict(name="clipped release, odds ratio 3", n1=20, n2=35, epsilon1=1.5, epsilon2=1.0, z1=-1.4,
         z2=8.3, margin=3.0),
    dict(name="n = 100 per arm, odds ratio 1.5", n1=100, n2=100, epsilon1=1.0, epsilon2=1.0, z1=68.3,
         z2=44.8, margin=1.5),
]


#: issue 40: margins across the whole accepted range [1e-6, 1e6], one pair of releases, small arms
MARGIN_CASES = [
    dict(name=f"odds ratio {margin:g}, n = 10 and 12", n1=10, n2=12, epsilon1=1.0, epsilon2=1.0, z1=z1,
         z2=z2, margin=margin)
    for margin in (1e-6, 1e-3, 1.0, 1e3, 1e6) for z1, z2 in ((6.3, 4.6), (1.7, 10.4))
]


def main(which):
    if which == "margins":
        out = case_rows([{**case, "effect": "odds-ratio"} for case in MARGIN_CASES],
                        functools.partial(one_sided, search=log_odds_sup))
        name = "two_arm_odds_ratio_margins_values.json"
    else:
        out = case_rows([{**case, "effect": "odds-ratio"} for case in CASES], one_sided)
        name = "two_arm_odds_ratio_values.json"
    path = pathlib.Path(__file__).with_name(name)
    path.write_text(json.dumps({"script": "make_two_arm_odds_ratio.py" + (" margins" if which == "margins" else ""),
                                "dps": 30, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cases")
