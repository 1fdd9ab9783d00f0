"""Reference rejection probabilities of two-arm group-sequential designs, by direct summation (mpmath).

Independent of dpinfer (it does not import it) and of its method: where dpinfer convolves the
pmfs of the stage increments by FFT, this script sums over the stages' rounded releases
directly, one nested sum per look.  Each stage of each arm releases ``Z = X + N`` (``X ~
Binomial(n_s, theta)``, ``N`` the untruncated Tulap(0, b) law, Awan & Slavkovic 2018,
Def. 2.3; delta = 0); the design reads ``K = round(Z)``, whose pmf is

    P(K = k) = sum_x Binom(x; n_s, theta) [F(k - x + 1/2) - F(k - x - 1/2)],

``F`` the Tulap cdf (so the pmf of the noise's integer part is never written down), summed
over ``|k - x| <= 80 / epsilon`` (the rest is below 1e-34).  With ``n2 / n1 = a / b`` the
design's statistic is ``W_k = sign (a K1(k) - b K2(k))`` (cumulative sums of the stages'
``K``), stop for efficacy when ``W_k >= c_k``.  The probabilities of stopping for efficacy at
each look are summed over all paths ``(W_1, ..., W_k)`` (a dictionary of the sub-density on
the continuation region, updated look by look by direct double sums).

Run: ``python tests/reference/make_group_sequential.py`` (a few seconds); writes
``group_sequential_values.json``.
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 30


def tulap_cdf(t, b):
    """Untruncated Tulap(0, b) cdf."""
    if t > 0:
        return 1 - tulap_cdf(-t, b)
    r = mp.nint(t)
    return b ** (-r) / (1 + b) * (b + (t - r + mp.mpf(1) / 2) * (1 - b))


def rounded_pmf(n, theta, epsilon):
    """``{k: P(round(X + N) = k)}`` (dict) for one stage of one arm; epsilon None: no noise."""
    theta = mp.mpf(theta)
    binom = {x: mp.binomial(n, x) * theta ** x * (1 - theta) ** (n - x) for x in range(n + 1)}
    if epsilon is None:
        return binom
    b = mp.exp(-mp.mpf(epsilon))
    reach = int(mp.ceil(80 / mp.mpf(epsilon)))
    cell = {d: tulap_cdf(d + mp.mpf(1) / 2, b) - tulap_cdf(d - mp.mpf(1) / 2, b) for d in range(-reach, reach + 1)}
    out = {}
    for x, px in binom.items():
        for d, pd in cell.items():
            out[x + d] = out.get(x + d, 0) + px * pd
    return out


def rejection(case, theta1, theta2):
    """Probabilities of stopping for efficacy at each look."""
    a, b, sign = case["a"], case["b"], case["sign"]
    density = {0: mp.mpf(1)}
    out = []
    for (s1, s2), c in zip(case["stages"], case["efficacy"]):
        k1 = rounded_pmf(s1, theta1, case["epsilon"])
        k2 = rounded_pmf(s2, theta2, case["epsilon"])
        step = {}
        for u, pu in k1.items():
            for v, pv in k2.items():
                w = sign * (a * u - b * v)
                step[w] = step.get(w, 0) + pu * pv
        new = {}
        for w0, p0 in density.items():
            for dw, pw in step.items():
                new[w0 + dw] = new.get(w0 + dw, 0) + p0 * pw
        out.append(sum((p for w, p in new.items() if w >= c), mp.mpf(0)))
        density = {w: p for w, p in new.items() if w < c}
    return out


CASES = [
    {"name": "equal arms, two looks", "stages": [(4, 4), (4, 4)], "a": 1, "b": 1, "sign": 1,
     "epsilon": 1.0, "efficacy": [4, 4], "rates": [(0.2, 0.2), (0.5, 0.5), (0.6, 0.3)]},
    {"name": "ratio 2, three looks", "stages": [(3, 6), (2, 4), (3, 6)], "a": 2, "b": 1, "sign": 1,
     "epsilon": 2.0, "efficacy": [6, 6, 5], "rates": [(0.4, 0.4), (0.7, 0.3)]},
    {"name": "less, three looks", "stages": [(3, 3), (3, 3), (4, 4)], "a": 1, "b": 1, "sign": -1,
     "epsilon": 0.7, "efficacy": [5, 6, 5], "rates": [(0.3, 0.3), (0.2, 0.6)]},
    {"name": "non-private, ratio 1/2", "stages": [(4, 2), (6, 3)], "a": 1, "b": 2, "sign": 1,
     "epsilon": None, "efficacy": [3, 4], "rates": [(0.5, 0.5), (0.8, 0.4)]},
]


def main():
    out = []
    for case in CASES:
        values = [[float(p) for p in rejection(case, t1, t2)] for t1, t2 in case["rates"]]
        out.append({**case, "stages": [list(s) for s in case["stages"]], "rates": [list(r) for r in case["rates"]],
                    "values": values})
    path = pathlib.Path(__file__).with_name("group_sequential_values.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
