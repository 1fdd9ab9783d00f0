"""Reference tails of sums of Tulap site releases, by direct summation and quadrature (mpmath).

Independent of dpinfer (it does not import it) and of its method: where dpinfer convolves
the integer parts with numpy and evaluates the Irwin-Hall law of the uniform parts in
closed form, this script

* sums over every site's (or arm's) count ``x_j`` and every noise cell ``d_j`` directly
  (nested loops in mpmath at 30 digits, ``|d_j| <= ceil(40 / epsilon_j)``: the cells left out
  hold less than 1e-17), collecting the probability of each integer total;
* integrates the uniform parts numerically: the density of ``U_1 + ... + U_m`` (``U_j`` uniform
  on (-1/2, 1/2), the continuous Tulap law's cell) by repeated convolution integrals,
  ``f_{k+1}(x) = integral_{x-1/2}^{x+1/2} f_k(y) dy``, each by 6-point Gauss-Legendre on the
  pieces between the half-integers (exact for the piecewise polynomials involved), and the
  tail ``P(W >= v)`` by the same rule.

``T = sum_j s_j Z_j`` (signs ``s_j``), and ``P(T >= t) = sum_k P(K = k) P(W >= t - k)``.  The
observed ``t`` is moved by the cell allowance ``m 2**-41`` towards the null (grid step
``2**-40`` at these n and epsilon), as dpinfer's definition says.

Cases:

* ``pooled``: three sites sharing ``theta``; upper and lower tails at several ``theta``.
* ``strata``: two strata x two arms (``T = Z_11 - Z_21 + Z_12 - Z_22``); the tail at a
  nuisance ``(theta_1, theta_2)`` on the null line ``theta_1s = theta_2s + Delta``, and its
  supremum over a box by a 21 x 21 grid and coordinate-wise golden-section search (to 1e-13).

Run: ``python tests/reference/make_strata.py`` (about a minute); writes ``strata_values.json``.
"""

import json
import pathlib

import mpmath as mp

mp.mp.dps = 30
HALF_STEP = mp.mpf(2) ** -41


def gauss_nodes(k=6):
    xs, ws = [], []
    # Legendre nodes by Newton's method on P_k from the classical starting points
    # cos(pi (i - 1/4) / (k + 1/2)) (no polynomial root finder: its coefficient order changed across
    # mpmath versions), weights 2 / ((1 - x^2) P_k'(x)^2)
    for i in range(1, k + 1):
        root = mp.cos(mp.pi * (i - mp.mpf(1) / 4) / (k + mp.mpf(1) / 2))
        for _ in range(100):
            step = mp.legendre(k, root) / mp.diff(lambda x: mp.legendre(k, x), root)
            root -= step
            if abs(step) < mp.mpf(10) ** (-mp.mp.dps + 3):
                break
        derivative = mp.diff(lambda x: mp.legendre(k, x), root)
        xs.append(root)
        ws.append(2 / ((1 - root ** 2) * derivative ** 2))
    return list(zip(xs, ws))


NODES = gauss_nodes()


def piecewise_integral(f, lo, hi, shift):
    """Integral of ``f`` over [lo, hi], split where ``f`` changes piece (at ``shift`` + integers)."""
    cuts = [lo]
    k = mp.floor(lo - shift) + shift
    while k < hi:
        if k > lo:
            cuts.append(k)
        k += 1
    cuts.append(hi)
    total = mp.mpf(0)
    for a, b in zip(cuts[:-1], cuts[1:]):
        mid, half = (a + b) / 2, (b - a) / 2
        total += half * sum(w * f(mid + half * x) for x, w in NODES)
    return total


def half_integer_breaks(m):
    """``shift`` of the breakpoints of the density of a sum of ``m`` uniforms: 1/2 when m is odd."""
    return mp.mpf(1) / 2 if m % 2 == 1 else mp.mpf(0)


def density(m):
    """The density of the sum of ``m`` uniforms on (-1/2, 1/2) (breakpoints at (m mod 2)/2 + integers)."""
    if m == 1:
        return lambda x: mp.mpf(1) if abs(x) < mp.mpf(1) / 2 else mp.mpf(0)
    inner = density(m - 1)

    def f(x):
        lo, hi = max(x - mp.mpf(1) / 2, -mp.mpf(m - 1) / 2), min(x + mp.mpf(1) / 2, mp.mpf(m - 1) / 2)
        if hi <= lo:
            return mp.mpf(0)
        return piecewise_integral(inner, lo, hi, half_integer_breaks(m - 1))

    return f


def uniform_tail(m, v, cache={}):
    """``P(W >= v)``, W the sum of m uniforms, by integrating the density over [v, m/2]."""
    key = (m, v)
    if key not in cache:
        top = mp.mpf(m) / 2
        if v >= top:
            cache[key] = mp.mpf(0)
        elif v <= -top:
            cache[key] = mp.mpf(1)
        else:
            cache[key] = piecewise_integral(density(m), v, top, half_integer_breaks(m))
    return cache[key]


def noise_cells(epsilon):
    b = mp.e ** (-mp.mpf(epsilon))
    reach = int(mp.ceil(40 / mp.mpf(epsilon)))
    return [(d, (1 - b) / (1 + b) * b ** abs(d)) for d in range(-reach, reach + 1)]


def total_pmf(parts):
    """``{k: P(sum_j s_j (x_j + d_j) = k)}`` for parts ``(sign, count pmf dict, epsilon)``, by nested sums."""
    acc = {0: mp.mpf(1)}
    for sign, counts, epsilon in parts:
        cells = noise_cells(epsilon)
        new = {}
        for k, p in acc.items():
            for x, px in counts.items():
                for d, pd in cells:
                    key = k + sign * (x + d)
                    new[key] = new.get(key, mp.mpf(0)) + p * px * pd
        acc = new
    return acc


def binom(n, theta):
    theta = mp.mpf(theta)
    return {x: mp.binomial(n, x) * theta ** x * (1 - theta) ** (n - x) for x in range(n + 1)}


def noise_law(parts):
    """``{k: P(D = k)}`` of the noises alone (counts fixed at 0)."""
    return total_pmf([(sign, {0: mp.mpf(1)}, epsilon) for sign, epsilon in parts])


def upper_tail(pmf, m, t):
    return sum(p * uniform_tail(m, t - k) for k, p in pmf.items())


def pooled_case():
    ns, eps = (3, 4, 2), (1.0, 1.5, 2.5)
    z = [mp.mpf("1.7109375"), mp.mpf("2.3828125"), mp.mpf("0.4453125")]
    total = sum(z)
    out = []
    for theta in ("0.2", "0.45", "0.7"):
        pmf = total_pmf([(1, binom(n, theta), e) for n, e in zip(ns, eps)])
        up = upper_tail(pmf, 3, total - 3 * HALF_STEP)
        low = 1 - upper_tail(pmf, 3, total + 3 * HALF_STEP)  # P(T <= t) = 1 - P(T >= t) (continuous law)
        out.append({"theta": float(theta), "greater": float(up), "less": float(low)})
    return {"n": ns, "epsilon": eps, "z": [float(v) for v in z], "tails": out}


def strata_case():
    ns, eps = (3, 4), ((1.0, 1.2), (2.0, 1.5))  # per stratum: (arm 1, arm 2) epsilons
    z1 = [mp.mpf("2.6171875"), mp.mpf("3.2890625")]
    z2 = [mp.mpf("0.8359375"), mp.mpf("1.4140625")]
    t = sum(z1) - sum(z2) - 4 * HALF_STEP
    noise = noise_law([(1, e1) for e1, _ in eps] + [(-1, e2) for _, e2 in eps])
    q = {}

    def tail(theta2, delta):
        total = mp.mpf(0)
        pm = [(binom(n, th + delta), binom(n, th)) for n, th in zip(ns, theta2)]
        for a1, pa1 in pm[0][0].items():
            for b1, pb1 in pm[0][1].items():
                for a2, pa2 in pm[1][0].items():
                    for b2, pb2 in pm[1][1].items():
                        y = a1 - b1 + a2 - b2
                        if y not in q:
                            q[y] = upper_tail(noise, 4, t - y)
                        total += pa1 * pb1 * pa2 * pb2 * q[y]
        return total

    def golden(f, lo, hi):
        g = (mp.sqrt(5) - 1) / 2
        a, b = mp.mpf(lo), mp.mpf(hi)
        while b - a > mp.mpf("1e-13"):
            c, d = b - g * (b - a), a + g * (b - a)
            if f(c) >= f(d):
                b = d
            else:
                a = c
        return (a + b) / 2

    points, sups = [], []
    for delta in ("0", "0.15", "-0.1"):
        delta = mp.mpf(delta)
        points.append({"delta": float(delta), "theta2": [0.3, 0.55],
                       "tail": float(tail([mp.mpf("0.3"), mp.mpf("0.55")], delta))})
        box = [(mp.mpf("0.1"), mp.mpf("0.6")), (mp.mpf("0.25"), mp.mpf("0.7"))]
        box = [(max(lo, -delta), min(hi, 1 - delta)) for lo, hi in box]
        best, arg = mp.mpf(-1), None
        for i in range(21):
            for j in range(21):
                th = [box[0][0] + (box[0][1] - box[0][0]) * i / 20, box[1][0] + (box[1][1] - box[1][0]) * j / 20]
                v = tail(th, delta)
                if v > best:
                    best, arg = v, th
        for _ in range(4):  # coordinate-wise golden section from the grid's best
            arg[0] = golden(lambda x: tail([x, arg[1]], delta), *box[0])
            arg[1] = golden(lambda x: tail([arg[0], x], delta), *box[1])
        best = max(best, tail(arg, delta))
        sups.append({"delta": float(delta), "box": [[0.1, 0.6], [0.25, 0.7]], "sup": float(best),
                     "argmax": [float(a) for a in arg]})
    return {"n": ns, "epsilon": eps, "z1": [float(v) for v in z1], "z2": [float(v) for v in z2],
            "points": points, "sups": sups}


if __name__ == "__main__":
    values = {"pooled": pooled_case(), "strata": strata_case()}
    path = pathlib.Path(__file__).with_name("strata_values.json")
    path.write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values, indent=1))
