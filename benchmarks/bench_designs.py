"""Speed of the private Simon search and of a design's operating characteristics (issue 36).

Run: ``python benchmarks/bench_designs.py``.

Baseline, measured in the same run: Simon's non-private search by a plain brute force
(Python loops over ``(n, n1, r1, r)`` with exact binomial pmfs from ``math.comb``, the
smallest ``r`` of size at most alpha per ``r1``) at ``max_n = 30``.  Printed: our
non-private search at ``max_n = 30`` (same answer) and the private search at ``max_n = 60``
(epsilon = 1 and 0.5), each with its time and ratio to the baseline, against the issue's
goal (a private search at ``max_n = 60`` under 10 s); then the operating characteristics of
one private design at 13 values of p (goal under 0.1 s) against the same OC summed by plain
loops over the noise cells.

No assertion: speed is evidence, not a test.
"""

import math
import time

import numpy as np

from dpinfer import simon_design


def brute_force(p0, p1, alpha, power, max_n):
    def pmf(m, p):
        return [math.comb(m, x) * p ** x * (1 - p) ** (m - x) for x in range(m + 1)]

    def sf(f, k):
        return sum(f[max(k + 1, 0):]) if k < len(f) - 1 else 0.0

    best = None
    for n in range(2, max_n + 1):
        for n1 in range(1, n):
            f0, g0, f1, g1 = pmf(n1, p0), pmf(n - n1, p0), pmf(n1, p1), pmf(n - n1, p1)
            for r1 in range(0, n1):
                for r in range(r1, n):
                    if sum(f0[x] * sf(g0, r - x) for x in range(r1 + 1, n1 + 1)) <= alpha:
                        if sum(f1[x] * sf(g1, r - x) for x in range(r1 + 1, n1 + 1)) >= power:
                            en0 = n1 + (1 - sum(f0[:r1 + 1])) * (n - n1)
                            if best is None or en0 < best[0]:
                                best = (en0, (r1, n1, r, n))
                        break
    return best[1]


def plain_oc(d, ps):
    """Reject probability and PET by loops over (x, d) with the discrete Laplace pmf, per p."""
    b = math.exp(-d.epsilon)
    reach = int(40 / d.epsilon) + 2
    noise = {k: (1 - b) / (1 + b) * b ** abs(k) for k in range(-reach, reach + 1)}
    out = []
    for p in ps:
        def k_pmf(m):
            f = {}
            for x in range(m + 1):
                bx = math.comb(m, x) * p ** x * (1 - p) ** (m - x)
                for k, w in noise.items():
                    f[x + k] = f.get(x + k, 0.0) + bx * w
            return f
        f1, f2 = k_pmf(d.n1), k_pmf(d.n2)
        pet = sum(v for k, v in f1.items() if k <= d.r1)
        rej = sum(v * sum(w for k2, w in f2.items() if k1 + k2 > d.r) for k1, v in f1.items() if k1 > d.r1)
        out.append((rej, pet))
    return out


def timed(f, *args, **kwargs):
    t0 = time.perf_counter()
    out = f(*args, **kwargs)
    return out, time.perf_counter() - t0


def main():
    simon_design(0.1, 0.5, epsilon=None, max_n=20)  # warm-up (imports)
    plain, base = timed(brute_force, 0.1, 0.3, 0.05, 0.8, 30)
    print(f"baseline: plain brute-force Simon search, max_n = 30: {base:7.2f} s -> {plain}")
    ours, t = timed(simon_design, 0.1, 0.3, epsilon=None, max_n=30)
    print(f"simon_design(epsilon=None, max_n=30):               {t:7.3f} s  ratio {t / base:6.3f}  "
          f"same design: {(ours.r1, ours.n1, ours.r, ours.n) == plain}")
    for eps in (1.0, 0.5):
        d, t = timed(simon_design, 0.1, 0.3, epsilon=eps, max_n=60)
        print(f"simon_design(epsilon={eps}, max_n=60):                 {t:7.3f} s  ratio {t / base:6.3f}  "
              f"goal < 10 s: {'ok' if t < 10 else 'MISSED'}   ({d.r1}/{d.n1}, {d.r}/{d.n})")
    d = simon_design(0.1, 0.3, epsilon=1.0, max_n=60)
    ps = np.round(np.arange(0.05, 0.70, 0.05), 2)
    d.operating_characteristics(ps)  # warm-up
    runs = 20
    _, t = timed(lambda: [d.operating_characteristics(ps) for _ in range(runs)])
    t /= runs
    ref, tb = timed(plain_oc, d, ps)
    oc = d.operating_characteristics(ps)
    err = max(abs(oc.reject[i] - r) + abs(oc.pet[i] - e) for i, (r, e) in enumerate(ref))
    print(f"operating_characteristics at 13 p (epsilon = 1):    {t * 1e3:7.2f} ms  plain loops {tb * 1e3:8.1f} ms  "
          f"ratio {t / tb:6.4f}  goal < 0.1 s: {'ok' if t < 0.1 else 'MISSED'}  (max difference {err:.1e})")


if __name__ == "__main__":
    main()
