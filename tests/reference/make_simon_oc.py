"""Reference operating characteristics and end-of-trial tails of private two-stage designs (mpmath).

Independent of dpinfer (it does not import it).  Stage ``s`` releases ``Z_s = X_s + N_s``,
``X_s ~ Binomial(n_s, p)``, ``N_s`` the untruncated Tulap noise of ``epsilon`` (density
``(1 - b)/(1 + b) b^|round(t)|``, ``b = exp(-epsilon)``; Awan & Slavkovic 2018).  The
integer part ``K_s = round(Z_s) = X_s + D_s`` has ``P(D_s = d)`` = the noise density
integrated numerically over the cell ``[d - 1/2, d + 1/2]`` (``mp.quad``), ``|d| <= REACH``
(the rest below 1e-17).  Then, by direct summation over the stage counts,

* ``pet = P(K1 <= r1)``, ``reject = sum_{k1 > r1} P(K1 = k1) P(K2 > r - k1)``;
* the stage-wise upper tail of an outcome stopped at stage 1 with ``z1``: ``P(Z1 >= z1 - h/2)``
  (the grid cell's lower end), integrating the noise density over ``[z1 - h/2 - x, inf)``;
* of an outcome at stage 2 with ``(z1, z2)``, ``k = round(z1) + round(z2)``,
  ``s = z1 + z2 - h``: ``P(K1 > r1, K1 + K2 > k) + P(K1 > r1, K1 + K2 = k) P(U1 + U2 >= s - k)``,
  the last probability integrated numerically over ``U1``;
* the lower tails ``P(outcome <= obs)`` as ``1 -`` the upper tail at the cells' upper ends
  (``z1 + h/2``; ``s = z1 + z2 + h``; at stage 2 plus the whole of stage 1).

Grid step ``h = 2**-40`` (every stage size here at epsilon >= 0.5).

Run: ``python tests/reference/make_simon_oc.py`` (about a minute); writes ``simon_oc_values.json``.
"""

import json
import math
import pathlib

import mpmath as mp

mp.mp.dps = 30
H = mp.mpf(2) ** -40

DESIGNS = [  # (n1, n2, r1, r, epsilon)
    (17, 24, 2, 8, 1.0),
    (10, 19, 1, 5, 2.0),
    (12, 20, 3, 9, 0.5),
]
THETAS = [0.1, 0.3, 0.55]
OUTCOMES = [  # (design index, stage, z1, z2 or None)
    (0, 1, 1.2345678, None),
    (0, 2, 4.75, 5.3125),
    (0, 2, 3.40625, 6.15625),
    (1, 1, -0.59375, None),
    (1, 2, 2.28125, 3.90625),
    (2, 2, 6.65625, 2.09375),
]


def density(t, b):
    return (1 - b) / (1 + b) * b ** abs(int(mp.nint(t)))


def noise_pmf(epsilon):
    b = mp.exp(-mp.mpf(epsilon))
    reach = math.ceil(40 / epsilon)
    return {d: mp.quad(lambda t: density(t, b), [d - mp.mpf(1) / 2, d + mp.mpf(1) / 2]) for d in range(-reach, reach + 1)}


def k_pmf(n, p, noise):
    p = mp.mpf(p)
    out = {}
    for x in range(n + 1):
        bx = mp.binomial(n, x) * p ** x * (1 - p) ** (n - x)
        for d, pd in noise.items():
            out[x + d] = out.get(x + d, 0) + bx * pd
    return out


def noise_tail(c, epsilon):
    """P(N >= c) by integrating the density over the unit cells from c."""
    b = mp.exp(-mp.mpf(epsilon))
    reach = math.ceil(40 / epsilon) + 1
    start = int(mp.nint(c))
    total = mp.quad(lambda t: density(t, b), [c, start + mp.mpf(1) / 2]) if c < start + mp.mpf(1) / 2 else 0
    for d in range(start + 1, reach + 1):
        total += mp.quad(lambda t: density(t, b), [d - mp.mpf(1) / 2, d + mp.mpf(1) / 2])
    return total


def uniform_pair_tail(c):
    """P(U1 + U2 >= c), U's ~ U(-1/2, 1/2): integrated over U1."""
    def inner(u1):
        return min(max(mp.mpf(1) / 2 - (c - u1), 0), 1)
    kinks = sorted({mp.mpf(-1) / 2, mp.mpf(1) / 2} | {v for v in (c - mp.mpf(1) / 2, c + mp.mpf(1) / 2)
                                                       if -mp.mpf(1) / 2 < v < mp.mpf(1) / 2})
    return mp.quad(inner, kinks)


def stage2_upper(f1, f2, r1, k, c):
    cont = {k1: v for k1, v in f1.items() if k1 > r1}
    above = sum(v * sum(w for k2, w in f2.items() if k1 + k2 > k) for k1, v in cont.items())
    tie = sum(v * f2.get(k - k1, 0) for k1, v in cont.items())
    return above + tie * uniform_pair_tail(c - k)


def main():
    out = {"oc": [], "tails": []}
    cache = {}
    for i, (n1, n2, r1, r, eps) in enumerate(DESIGNS):
        noise = noise_pmf(eps)
        for theta in THETAS:
            f1, f2 = k_pmf(n1, theta, noise), k_pmf(n2, theta, noise)
            cache[i, theta] = (f1, f2)
            pet = sum(v for k1, v in f1.items() if k1 <= r1)
            reject = sum(v * sum(w for k2, w in f2.items() if k2 > r - k1) for k1, v in f1.items() if k1 > r1)
            out["oc"].append({"design": i, "theta": theta, "pet": float(pet), "reject": float(reject)})
    for i, stage, z1, z2 in OUTCOMES:
        n1, n2, r1, r, eps = DESIGNS[i]
        for theta in THETAS:
            f1, f2 = cache[i, theta]
            p = mp.mpf(theta)
            if stage == 1:
                def tail1(c):
                    return sum(mp.binomial(n1, x) * p ** x * (1 - p) ** (n1 - x) * noise_tail(c - x, eps)
                               for x in range(n1 + 1))
                upper = tail1(mp.mpf(z1) - H / 2)
                lower = 1 - tail1(mp.mpf(z1) + H / 2)
            else:
                k = int(mp.nint(z1)) + int(mp.nint(z2))
                s = mp.mpf(z1) + mp.mpf(z2)
                pet = sum(v for k1, v in f1.items() if k1 <= r1)
                upper = stage2_upper(f1, f2, r1, k, s - H)
                lower = 1 - stage2_upper(f1, f2, r1, k, s + H)
            out["tails"].append({"design": i, "stage": stage, "z1": z1, "z2": z2, "theta": theta,
                                 "upper": float(upper), "lower": float(lower)})
    out["designs"] = DESIGNS
    path = pathlib.Path(__file__).with_name("simon_oc_values.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
