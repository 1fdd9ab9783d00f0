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

**Two arms** (group-sequential designs, issue 36 item 2): baseline, measured in the same
run, one exact fixed-sample power of the two-arm test (``binom2_ump_power``, one-sided,
alpha = 0.025) at the design's final size and epsilon, i.e. what planning the same trial
without interim looks costs.  Printed with their ratios: the exact operating
characteristics of one design (3 looks, 122 per arm, epsilon = 1) at one pair of rates
(goal under 0.1 s); the certified boundaries of one design (3 looks at 122 per arm; 4 looks
at 300 per arm, epsilon = 0.5: the upper end of the sizes the assignment names);
``sequential_design`` end to end (the search over the maximum size, the private and the
non-private design); ``sequential_test`` at the end of a run (p-value certified, interval
and estimate).  Best of a few repeats, the pmf caches emptied before each.

*Where the two-arm time goes* (cProfile of ``sequential_design(0.5, 0.3, looks=3,
epsilon=1)``, about 1 s on the 2 shared cores): the row-wise FFT convolutions of the
increments (``scipy.signal.fftconvolve`` over the whole grid of common rates at once, no
loop over rates or outcomes) and the increments' pmfs (``two_arm._law._component_pmfs``)
take most of it; the located supremum is refined by vectorised zooms (a scalar Brent
search cost 85% of ``sequential_test`` before); the certificate closes in one or two rounds
because the grid's corner bounds (the rejection probability is monotone in each arm's rate)
cap the cells far from the maximum.  The search evaluates about 6-10 maximum sizes with
located suprema and certifies only the answer.

No assertion: speed is evidence, not a test.
"""

import math
import time

import numpy as np

from dpinfer import binom2_ump_power, sequential_design, sequential_test, simon_design
from dpinfer.inference._studies import (sequential_boundaries, sequential_design_lattice, sequential_lattice,
                                       sequential_spending, two_arm_clear_cache)


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

    two_arm_lines()


def best_time(func, repeat=3):
    """The best of ``repeat`` runs of ``func``, each with the pmf caches emptied first."""
    best = float("inf")
    for _ in range(repeat):
        two_arm_clear_cache()
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def _line(what, ours, base, goal=None):
    ratio = ours / base
    verdict = "" if goal is None else (f"goal < {goal * 1e3:.0f} ms  " + ("ok" if ours < goal else "MISSED"))
    print(f"{what:<60} {ours * 1e3:9.1f} ms  baseline {base * 1e3:8.1f} ms  ratio {ratio:7.2f}  {verdict}")


def two_arm_lines():
    design = sequential_design(0.5, 0.3, looks=3, epsilon=1.0)
    n = design.n1[-1]
    base = best_time(lambda: binom2_ump_power(0.5, 0.3, n, n, epsilon=1.0, alpha=0.025, alternative="greater"))
    print(f"baseline: binom2_ump_power(0.5, 0.3, {n}, {n}, epsilon = 1, one-sided 0.025)")
    _line("operating characteristics, 3 looks, 122 per arm",
          best_time(lambda: design.operating_characteristics(0.45, 0.3)), base, goal=0.1)
    spent = sequential_spending("obrien-fleming", (1 / 3, 2 / 3, 1), 0.025)
    lat = sequential_design_lattice(design)
    _line("certified boundaries, 3 looks, 122 per arm, epsilon 1",
          best_time(lambda: sequential_boundaries(lat, spent)), base)
    big = sequential_lattice(300, (0.25, 0.5, 0.75, 1.0), 1, 1, 1, 0.5, 0.0)
    spent4 = sequential_spending("pocock", (0.25, 0.5, 0.75, 1.0), 0.025)
    _line("certified boundaries, 4 looks, 300 per arm, epsilon 0.5",
          best_time(lambda: sequential_boundaries(big, spent4), repeat=1), base)
    _line("sequential_design(0.5, 0.3, looks=3, epsilon=1)",
          best_time(lambda: sequential_design(0.5, 0.3, looks=3, epsilon=1.0), repeat=1), base)
    run = design.staged_release()
    run.release(1, [24, 10], rng=1)
    run.release(2, [21, 13], rng=2)
    _line("sequential_test after an efficacy stop at look 2",
          best_time(lambda: sequential_test(design, run), repeat=1), base)


if __name__ == "__main__":
    main()
