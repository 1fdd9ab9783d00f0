"""Reference values for the repro-samples p-value of a clipped mean (dpinfer.mean_repro_test).

Run from the repository root:

    .venv/bin/python tests/reference/make_repro.py

It writes tests/reference/repro_values.json.  Nothing here imports dpinfer: every number
comes from the definition (Awan & Wang 2024, arXiv:2303.05328), written out again with
plain Python loops and floats:

* **The released law, written out again.**  ``MeanReleaser`` puts each clipped value on
  a grid of ``2**g`` steps, ``u = round((clip(x) - a) / (b - a) * 2**g)`` (squares:
  ``round(((clip(x) - m) / h)**2 * 2**g)``, ``m = a + h``, ``h = (b - a) / 2``), with
  ``g = min(24, 61 - bitlength(ceil(n) + ceil(764 / eps) + 2))``, adds to the integer
  sum a discrete Laplace integer ``D`` with ``P(D = d)`` proportional to ``exp(-lam |d|)``,
  ``lam = eps / 2**g`` (rounded down), and releases ``n a + (b - a) (T / 2**g)``
  (squares: ``h**2 (T / 2**g)``).  Here the noise integers are drawn by the inverse cdf
  of that law from uniforms, at 60 digits with mpmath (the package draws them with its
  exact bit sampler instead): an independent construction of the same law.
* **Small cases.**  The seeds are drawn here and stored as explicit arrays: ``normals``
  (R rows of n standard normal values) and ``noise`` (R integers).  For every null mean
  the simulated release of seed r is the released law's computation above with the data
  ``mean + sigma e_rj`` (log-normal model: ``exp(log(mean) - sigma**2 / 2 + sigma
  e_rj)``), written as a loop over the values; the p-values are the counts of the
  definition (a tie with the observed value counts as at least as extreme both ways),
  ``(1 + #{sim >= s}) / (R + 1)`` ('greater'), ``(1 + #{sim <= s}) / (R + 1)``
  ('less') and twice the smaller, at most 1 (two-sided).  No root is solved: the
  package's p-values, read off its roots, must equal these counts exactly.  A dense
  scan of null means gives the acceptance set ``{p > 1 - level}`` to check the
  package's interval against.
* **Spread released, sigma unknown.**  The joint p-value of ``(mu, sigma)`` on the pair
  (clipped sum, centred sum of squares), ``min(1, 4 min_k (1 + c_k) / (R + 1))`` over the
  four one-sided counts, on a grid of ``(mu, sigma)`` with explicit seeds (normals, noise
  on the sum, noise on the squares), by loops.
* **The R -> infinity limit, n = 1.**  ``P(a + (b - a) (U + D) / 2**g >= s)``, the
  released law's tail: ``U`` the grid integer of one clipped ``N(mu0, sigma**2)`` value
  (its law: normal probabilities of the cells ``[k - 1/2, k + 1/2] (b - a) 2**-g + a``,
  the two ends taking the clipped tails) summed against the discrete Laplace tail
  ``P(D >= t)`` in closed form, over all ``2**g + 1`` cells (numpy, in blocks).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy.special import ndtr

OUT = Path(__file__).with_name("repro_values.json")

#: (name, n, R, lower, upper, epsilon, sigma, model, observed sum, seed)
CASES = [
    ("n1_normal", 1, 19, 0.0, 10.0, 1.0, 3.0, "normal", 6.5, 11),
    ("n2_normal_clipped", 2, 39, 0.0, 4.0, 2.0, 3.0, "normal", 7.2, 12),
    ("n3_normal", 3, 29, -5.0, 5.0, 0.5, 2.0, "normal", -4.0, 13),
    ("n2_on_grid", 2, 39, 0.0, 4.0, 2.0, 1.0, "normal", 7.25, 16),  # the observed sum on the grid: ties
    ("n5_lognormal", 5, 39, 0.0, 3.0, 1.0, 0.5, "lognormal", 8.1, 14),
]


def clip(x, a, b):
    return a if x < a else b if x > b else x


def grid_bits(n, eps):
    return min(24, 61 - (math.ceil(n) + math.ceil(764.0 / eps) + 2).bit_length())


def per_step(eps, g):
    lam = eps / 2**g
    if Fraction(lam) > Fraction(eps) / 2**g:
        lam = math.nextafter(lam, 0.0)
    return lam


def epsilons(eps, split):
    """The epsilons of the sum (and squares): split, the second rounded down so that they add to at most eps."""
    if split is None:
        return [eps]
    e1 = eps * split
    e2 = eps - e1
    while Fraction(e1) + Fraction(e2) > Fraction(eps):
        e2 = math.nextafter(e2, 0.0)
    return [e1, e2]


def noise_integers(gen, lam, r):
    """``r`` discrete Laplace integers of ratio exp(-lam) by the inverse cdf (mpmath, 60 digits)."""
    mp.mp.dps = 60
    q = mp.exp(-mp.mpf(lam))
    out = []
    for u in gen.random(r):
        u = mp.mpf(u)
        if u <= q / (1 + q):  # P(D <= -m) = q**m / (1 + q): the largest m with that >= u
            out.append(-int(mp.floor(mp.log(u * (1 + q)) / mp.log(q))))
        else:  # P(D <= k) = 1 - q**(k + 1) / (1 + q): the smallest k with that >= u
            out.append(max(0, int(mp.ceil(mp.log((1 - u) * (1 + q)) / mp.log(q))) - 1))
    return out


def sum_units(values, a, b, g):
    return sum(min(max(round((clip(x, a, b) - a) / (b - a) * 2.0**g), 0), 2**g) for x in values)


def square_units(values, a, b, g):
    h = 0.5 * (b - a)
    return sum(min(max(round(((clip(x, a, b) - (a + h)) / h) ** 2 * 2.0**g), 0), 2**g) for x in values)


def simulated(mean, normals, noise, a, b, sigma, model, g):
    """The simulated release of every seed at ``mean`` (plain loops)."""
    out = []
    for row, d in zip(normals, noise):
        if model == "normal":
            xs = [mean + sigma * e for e in row]
        else:
            xs = [math.exp(math.log(mean) - 0.5 * sigma * sigma + sigma * e) for e in row]
        out.append(len(row) * a + (b - a) * ((sum_units(xs, a, b, g) + d) / 2.0**g))
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
    g = grid_bits(n, eps)
    noise = noise_integers(gen, per_step(eps, g), r)
    centre = s / n
    if model == "normal":
        nulls = [centre + (b - a) * k / 40.0 for k in range(-60, 61)]
    else:
        nulls = [math.exp(k / 40.0) for k in range(-80, 121)]
    scan = [pvalues(simulated(m, normals, noise, a, b, sigma, model, g), s) for m in nulls]
    return {"name": name, "n": n, "R": r, "lower": a, "upper": b, "epsilon": eps, "sigma": sigma,
            "model": model, "sum": s, "normals": normals, "noise": noise, "nulls": nulls,
            "pvalues": {alt: [p[alt] for p in scan] for alt in ("greater", "less", "two-sided")}}


def limit_greater(mu0, s, a, b, sigma, eps):
    """P(released value >= s), n = 1: the grid law of one clipped normal value against the discrete noise."""
    g = grid_bits(1, eps)
    lam = per_step(eps, g)
    q = math.exp(-lam)
    steps = 2**g
    # the smallest integer T with a + (b - a) (T / 2**g) >= s (that map is nondecreasing in T)
    lo, hi = -2**40, 2**40
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a + (b - a) * (mid / 2.0**g) >= s:
            hi = mid
        else:
            lo = mid
    t_s = hi

    def tail(t):  # P(D >= t), vectorised over integer arrays t
        t = np.asarray(t, dtype=float)
        pos = np.exp(-lam * np.maximum(t, 1.0)) / (1 + q)
        neg = 1 - np.exp(-lam * np.maximum(1.0 - t, 1.0)) / (1 + q)
        return np.where(t >= 1, pos, neg)

    def cdf(k):  # P(U <= k) for the unclipped value: the cell edges in x
        return ndtr((a + (b - a) * (np.asarray(k, dtype=float) + 0.5) / steps - mu0) / sigma)

    total = 0.0
    block = 2**20
    for start in range(0, steps + 1, block):
        k = np.arange(start, min(start + block, steps + 1), dtype=np.int64)
        upper = np.where(k == steps, 1.0, cdf(k))
        lower = np.where(k == 0, 0.0, cdf(k - 1))
        total += math.fsum((upper - lower) * tail(t_s - k))
    return total


SPREAD = ("n6_spread", 6, 79, 0.0, 10.0, 40.0, 0.5, 33.0, 15.0, 15)  # name, n, R, a, b, eps, split, S, Q, seed


def spread_case(name, n, r, a, b, eps, split, s, q, seed):
    gen = np.random.default_rng(seed)
    normals = gen.standard_normal((r, n)).tolist()
    e1, e2 = epsilons(eps, split)
    g = min(grid_bits(n, e1), grid_bits(n, e2))
    sum_noise = noise_integers(gen, per_step(e1, g), r)
    sq_noise = noise_integers(gen, per_step(e2, g), r)
    h = (b - a) / 2
    mus = [a + (b - a) * k / 20.0 for k in range(-20, 41)]
    sigmas = [(b - a) * 2.0 ** (k / 2.0) for k in range(-14, 5)]
    table = []
    for mu in mus:
        row = []
        for sg in sigmas:
            counts = [0, 0, 0, 0]
            for e_row, ln, mn in zip(normals, sum_noise, sq_noise):
                xs = [mu + sg * e for e in e_row]
                s_r = n * a + (b - a) * ((sum_units(xs, a, b, g) + ln) / 2.0**g)
                q_r = h * h * ((square_units(xs, a, b, g) + mn) / 2.0**g)
                counts[0] += s_r >= s
                counts[1] += s_r <= s
                counts[2] += q_r >= q
                counts[3] += q_r <= q
            row.append(min(1.0, 4.0 * (1 + min(counts)) / (r + 1)))
        table.append(row)
    return {"name": name, "n": n, "R": r, "lower": a, "upper": b, "epsilon": eps, "split": split, "sum": s,
            "squares": q, "normals": normals,
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
