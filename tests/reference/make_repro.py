"""Reference values for the repro-samples p-value of a clipped mean (dpinfer.mean_repro_test).

Run from the repository root:

    .venv/bin/python tests/reference/make_repro.py

It writes tests/reference/repro_values.json.  Nothing here imports dpinfer: every number
comes from the definition (Awan & Wang 2024, arXiv:2303.05328), written out again with
plain Python loops and floats:

* **Small cases.**  The seeds are drawn here and stored as explicit arrays: ``normals``
  (R rows of n standard normal values) and ``noise`` (R Laplace values in the sum's
  units).  For every null mean the simulated release of seed r is
  ``sum_j clip(mu + sigma e_rj, a, b) + noise_r`` (log-normal model: ``clip(exp(mu +
  sigma e_rj), a, b)`` with ``mu = log(mean) - sigma**2 / 2``), written as a loop over
  the values; the p-values are the counts of the definition,
  ``(1 + #{sim >= s}) / (R + 1)`` ('greater'), ``(1 + #{sim <= s}) / (R + 1)``
  ('less') and twice the smaller, at most 1 (two-sided).  No root is solved: the
  package's p-values, read off its roots, must equal these counts exactly.  A dense
  scan of null means gives the acceptance set ``{p > 1 - level}`` to check the
  package's interval against.
* **Spread released, sigma unknown.**  The joint p-value of ``(mu, sigma)`` on the pair
  (clipped sum, centred sum of squares), ``min(1, 4 min_k (1 + c_k) / (R + 1))`` over the
  four one-sided counts, on a grid of ``(mu, sigma)`` with explicit seeds (normals, noise
  on the sum, noise on the squares), by loops.
* **The R -> infinity limit, n = 1.**  ``P(clip(mu0 + sigma Z, a, b) + L >= s)`` with
  ``L ~ Laplace(0, (b - a) / epsilon)``: the two clipped atoms times the Laplace tail,
  plus the integral over (a, b) of the normal density times the Laplace tail
  (mpmath quadrature at 30 digits, split at the Laplace kink).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np

OUT = Path(__file__).with_name("repro_values.json")

#: (name, n, R, lower, upper, epsilon, sigma, model, observed sum, seed)
CASES = [
    ("n1_normal", 1, 19, 0.0, 10.0, 1.0, 3.0, "normal", 6.5, 11),
    ("n2_normal_clipped", 2, 39, 0.0, 4.0, 2.0, 3.0, "normal", 7.2, 12),
    ("n3_normal", 3, 29, -5.0, 5.0, 0.5, 2.0, "normal", -4.0, 13),
    ("n5_lognormal", 5, 39, 0.0, 3.0, 1.0, 0.5, "lognormal", 8.1, 14),
]


def clip(x, a, b):
    return a if x < a else b if x > b else x


def simulated(mean, normals, noise, a, b, sigma, model):
    """The simulated release of every seed at ``mean`` (plain loops)."""
    out = []
    for row, eps_noise in zip(normals, noise):
        total = 0.0
        for e in row:
            if model == "normal":
                x = mean + sigma * e
            else:
                x = math.exp(math.log(mean) - 0.5 * sigma * sigma + sigma * e)
            total += clip(x, a, b)
        out.append(total + eps_noise)
    return out


def pvalues(sims, s):
    r = len(sims)
    ge = sum(1 for v in sims if v >= s)
    le = sum(1 for v in sims if v <= s)
    p_greater, p_less = (1 + ge) / (r + 1), (1 + le) / (r + 1)
    return {"greater": p_greater, "less": p_less, "two-sided": min(1.0, 2.0 * min(p_greater, p_less))}


def small_case(name, n, r, a, b, eps, sigma, model, s, seed):
    gen = np.random.default_rng(seed)
    normals = gen.standard_normal((r, n)).tolist()
    scale = (b - a) / eps
    noise = (scale * gen.laplace(0.0, 1.0, r)).tolist()
    centre = s / n
    if model == "normal":
        nulls = [centre + (b - a) * k / 40.0 for k in range(-60, 61)]
    else:
        nulls = [math.exp(k / 40.0) for k in range(-80, 121)]
    scan = [pvalues(simulated(m, normals, noise, a, b, sigma, model), s) for m in nulls]
    return {"name": name, "n": n, "R": r, "lower": a, "upper": b, "epsilon": eps, "sigma": sigma,
            "model": model, "sum": s, "normals": normals, "noise": noise, "nulls": nulls,
            "pvalues": {alt: [p[alt] for p in scan] for alt in ("greater", "less", "two-sided")}}


def limit_greater(mu0, s, a, b, sigma, eps):
    """P(clip(mu0 + sigma Z, a, b) + L >= s), L ~ Laplace(0, (b - a) / eps), n = 1 (mpmath)."""
    mp.mp.dps = 30
    beta = mp.mpf(b - a) / eps

    def tail(t):  # P(L >= t)
        return mp.exp(-t / beta) / 2 if t >= 0 else 1 - mp.exp(t / beta) / 2

    mu0, s, a, b, sigma = (mp.mpf(v) for v in (mu0, s, a, b, sigma))
    atoms = mp.ncdf((a - mu0) / sigma) * tail(s - a) + (1 - mp.ncdf((b - mu0) / sigma)) * tail(s - b)
    points = [a] + ([s] if a < s < b else []) + [b]
    body = mp.quad(lambda x: mp.npdf(x, mu0, sigma) * tail(s - x), points)
    return float(atoms + body)


SPREAD = ("n6_spread", 6, 79, 0.0, 10.0, 20.0, 20.0, 33.0, 15.0, 15)  # name, n, R, a, b, eps sum, eps sq, S, Q, seed


def spread_case(name, n, r, a, b, eps1, eps2, s, q, seed):
    gen = np.random.default_rng(seed)
    normals = gen.standard_normal((r, n)).tolist()
    sum_noise = ((b - a) / eps1 * gen.laplace(0.0, 1.0, r)).tolist()
    sq_noise = (((b - a) / 2) ** 2 / eps2 * gen.laplace(0.0, 1.0, r)).tolist()
    mid = (a + b) / 2
    mus = [a + (b - a) * k / 20.0 for k in range(-20, 41)]
    sigmas = [(b - a) * 2.0 ** (k / 2.0) for k in range(-14, 5)]
    table = []
    for mu in mus:
        row = []
        for sg in sigmas:
            counts = [0, 0, 0, 0]
            for e_row, ln, mn in zip(normals, sum_noise, sq_noise):
                cs = [clip(mu + sg * e, a, b) for e in e_row]
                s_r = sum(cs) + ln
                q_r = sum((c - mid) ** 2 for c in cs) + mn
                counts[0] += s_r >= s
                counts[1] += s_r <= s
                counts[2] += q_r >= q
                counts[3] += q_r <= q
            row.append(min(1.0, 4.0 * (1 + min(counts)) / (r + 1)))
        table.append(row)
    return {"name": name, "n": n, "R": r, "lower": a, "upper": b, "sum": s, "squares": q, "normals": normals,
            "sum_noise": sum_noise, "squares_noise": sq_noise, "mus": mus, "sigmas": sigmas, "pvalues": table}


LIMITS = [  # (mu0, observed sum, lower, upper, sigma, epsilon)
    (5.0, 7.0, 0.0, 10.0, 3.0, 1.0),
    (9.0, 7.5, 0.0, 10.0, 4.0, 2.0),
    (1.0, 2.0, 0.0, 10.0, 2.0, 0.5),
]


def main():
    out = {"small": [small_case(*c) for c in CASES], "spread": spread_case(*SPREAD),
           "limit_n1": [{"mu0": m, "sum": s, "lower": a, "upper": b, "sigma": sg, "epsilon": e,
                         "p_greater": limit_greater(m, s, a, b, sg, e)} for m, s, a, b, sg, e in LIMITS]}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
