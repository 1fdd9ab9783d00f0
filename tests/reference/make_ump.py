"""Reference values for the DP-UMP binomial p-values and intervals, mpmath at 40 digits.

Run offline (``python tests/reference/make_ump.py``, about two minutes on one core); it
writes ``tests/reference/ump_values.json``, read by ``tests/inference/ump/test_ump.py``.

Independence from the package: every p-value is the plain full sum over x = 0..n,

    greater(z) = sum_x Binom(x; n, p0) F(x - z),   less(z) = sum_x Binom(x; n, p0) F(z - x),
    two-sided(z) = greater(n p0 + t) + less(n p0 - t),  t = |z - n p0|,

with the binomial pmf from ``mp.binomial`` (or the exact ratio recursion for n = 1e5) and
the Tulap cdf written out from its definition (Awan & Slavkovic 2018): for t <= 0,
F0(t) = b**(-k) / (1 + b) (b + (t - k + 1/2)(1 - b)), k = nint(t), F0(t) = 1 - F0(-t)
above 0, truncated F = (F0 - q/2) / (1 - q) clipped to [0, 1].  No windowing and no
log-space tricks: 40 digits absorb the cancellation in 1 - F0(-t).  The parameters are the
doubles the package sees: z, p0, epsilon converted exactly, b = exp(-epsilon) in mpmath;
q = 2 delta b / (1 - b + 2 delta b) in mpmath (Awan & Slavkovic 2018, Thm. 2.4), independent
of the package; the package's double q differs by about 1e-16 relative, far inside the
tests' tolerance.

Interval end points are found by bisection on theta in mpmath (70 halvings) from the same
sums: one-sided 'greater' low = inf{theta: greater(z; theta) > 1 - level} (0 if already
above at theta = 0, 1 if never), 'less' high = sup{theta: less(z; theta) > 1 - level};
two-sided for z inside [0, n] from the two-sided p-value on each side of z / n; for z
outside [0, n], the hull of the accepted theta and the estimate clip(z / n, 0, 1), located
on a dense grid by a float64 plain full sum and bisected in mpmath (``ci_reference``).

**The law is the released grid law** (see ``Law``): every z is snapped to the grid of
the release at its (n, epsilon, delta), and the one-sided p-values are the exact tails
P(Z >= z), P(Z <= z) of that law, written as the continuous sums at z -/+ h/2; for n <= 30
and delta = 0 the script checks that identity against a direct count of the grid law's
points (``Law.tail_ge``, 30 digits), and that the two-sided rule (continuous p-value at z
moved towards n p0 by h/2) lies between the exact two-sided tail and one atom above it.

Grid: n in {1, 10, 30, 100, 1000} x p0 in {0.05, 0.1, 0.5, 0.9} x epsilon in
{0.05, 0.5, 1, 3, 10} x delta in {0, 1e-6, 0.01} x four z (below 0, inside, near n p0, above
n); n = 1e5 is subsampled (p0 in {0.1, 0.5}, epsilon in {0.5, 3}, delta in {0, 0.01}, z near
n p0 and 30 sd above it) and its sums skip the x whose pmf is below a threshold tau chosen so
that the skipped terms total at most 1e-25 of the sum (proof in ``pruned_sum``).
Intervals: a subsample for n in {1, 10, 30, 100}.
"""

import json
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy import stats

mp.mp.dps = 40

NS = [1, 10, 30, 100, 1000]
P0S = [0.05, 0.1, 0.5, 0.9]
EPSILONS = [0.05, 0.5, 1.0, 3.0, 10.0]
DELTAS = [0.0, 1e-6, 0.01]
OUT = Path(__file__).with_name("ump_values.json")


class Law:
    """The Tulap law TulapReleaser actually releases at (n, epsilon, delta): a grid law.

    Rebuilt here from its definition, independently of the package: the grid step is
    ``h = 2**-k`` with ``k = min(40, 52 - bit_length(n + C + 1))``, ``C`` the noise bound
    (``ceil(764 / epsilon) + 1``, or ``ceil(c) + 1`` for a truncation point ``c`` below it);
    the truncation point ``c`` (``P(|N0| > c) = q``) is solved by bisection in mpmath and
    rounded out to ``cut / 2**k``, ``cut = ceil(c 2**k (1 + 2**-45)) + 1``; the truncated
    mass is then ``q_h = P(|N0| > cut / 2**k)``.
    """

    def __init__(self, eps, delta, n):
        self.b = mp.exp(-mp.mpf(eps))
        delta = mp.mpf(delta)
        q = 2 * delta * self.b / (1 - self.b + 2 * delta * self.b)
        pure = int(mp.ceil(764 / mp.mpf(eps))) + 1
        c = None
        if q > 0:
            c = bisect(lambda t: 2 * self.cdf0(-t) - q, 0, pure + 1, False)
            if c >= pure:
                c = None
        bound = pure if c is None else int(mp.ceil(c)) + 1
        self.k = min(40, 52 - (n + bound + 1).bit_length())
        self.half = mp.mpf(2) ** -(self.k + 1)
        if c is None:
            self.q = mp.mpf(0)
        else:
            cut = int(mp.ceil(c * 2**self.k * (1 + mp.mpf(2) ** -45))) + 1
            self.q = 2 * self.cdf0(-mp.mpf(cut) / 2**self.k)

    def cdf0(self, t):
        t = mp.mpf(t)
        b = self.b
        s = -abs(t)
        k = mp.nint(s)
        low = b ** (-k) / (1 + b) * (b + (s - k + mp.mpf(1) / 2) * (1 - b))
        return low if t <= 0 else 1 - low

    def cdf(self, t):
        f0 = self.cdf0(t)
        if self.q == 0:
            return f0
        f = (f0 - self.q / 2) / (1 - self.q)
        return min(max(f, mp.mpf(0)), mp.mpf(1))

    def snap(self, z):
        """The grid point (an odd multiple of h/2) nearest to z: what a release can be."""
        units = int(mp.floor(mp.mpf(z) * 2 ** (self.k + 1)))
        if units % 2 == 0:
            units += 1
        return float(mp.mpf(units) / 2 ** (self.k + 1))

    def tail_ge(self, s):
        """P(N_h >= s) for a grid point s, by counting the grid law (no cdf shift used).

        ``N_h = D + U_h``: ``D`` discrete Laplace, ``U_h`` uniform on the 2**k midpoints
        ``(j + 1/2) h - 1/2``; untruncated only (``q = 0``).
        """
        s = mp.mpf(s)
        b = self.b
        m0 = int(mp.nint(s))  # the unit cell holding s
        p_d = lambda m: (1 - b) / (1 + b) * b ** abs(m)  # noqa: E731
        above = b ** (m0 + 1) / (1 + b) if m0 + 1 > 0 else 1 - b ** (-m0) / (1 + b)
        u = s - m0  # U_h >= u: count the midpoints at or above u
        h = mp.mpf(2) ** -self.k
        first = int(mp.ceil((u + mp.mpf(1) / 2) / h - mp.mpf(1) / 2))
        share = mp.mpf(max(0, min(2**self.k, 2**self.k - first))) / 2**self.k
        return above + p_d(m0) * share


def pmf_vector(n, p0):
    p = mp.mpf(p0)
    if n <= 1000:
        return [mp.binomial(n, x) * p**x * (1 - p) ** (n - x) for x in range(n + 1)]
    out = [(1 - p) ** n]
    ratio = p / (1 - p)
    for x in range(n):
        out.append(out[-1] * (n - x) / (x + 1) * ratio)
    return out


def greater(pmf, law, z):
    """P(Z >= z) for a grid point z: the continuous sum at z - h/2 (checked by counting)."""
    z = mp.mpf(z) - law.half
    return mp.fsum(w * law.cdf(x - z) for x, w in enumerate(pmf))


def less(pmf, law, z):
    """P(Z <= z) for a grid point z: the continuous sum at z + h/2."""
    z = mp.mpf(z) + law.half
    return mp.fsum(w * law.cdf(z - x) for x, w in enumerate(pmf))


def two_sided(pmf, law, z, n, p0):
    """The package's rule: the continuous two-sided p-value at z moved towards n p0 by h/2."""
    centre = n * mp.mpf(p0)
    z = mp.mpf(z)
    z = z - mp.sign(z - centre) * min(law.half, abs(z - centre))
    t = abs(z - centre)
    return min(continuous_greater(pmf, law, centre + t) + continuous_less(pmf, law, centre - t),
               mp.mpf(1))


def exact_two_sided(pmf, law, z, n, p0):
    """P(|Z - n p0| >= |z - n p0|) of the grid law (q = 0), by counting grid points."""
    centre = n * mp.mpf(p0)
    t = abs(mp.mpf(z) - centre)
    up = law.snap(centre + t) if law.snap(centre + t) >= centre + t else law.snap(centre + t) + 2 * law.half
    down = law.snap(centre - t)
    down = down if down <= centre - t else down - 2 * law.half
    ge = mp.fsum(w * law.tail_ge(up - x) for x, w in enumerate(pmf))
    le = mp.fsum(w * law.tail_ge(x - down) for x, w in enumerate(pmf))  # symmetric law
    return min(ge + le, mp.mpf(1))


def continuous_greater(pmf, law, z):
    return mp.fsum(w * law.cdf(x - z) for x, w in enumerate(pmf))


def continuous_less(pmf, law, z):
    return mp.fsum(w * law.cdf(z - x) for x, w in enumerate(pmf))


def z_values(n, p0):
    return [-2.7, round(0.3 * n + 0.41, 6), round(n * p0 + 1.13, 6), n + 2.9]


def pvalue_cases():
    cases = []
    for n in NS:
        for p0 in P0S:
            pmf = pmf_vector(n, p0)
            for eps in EPSILONS:
                for delta in DELTAS:
                    law = Law(eps, delta, n)
                    for z in map(law.snap, z_values(n, p0)):
                        check_counting(pmf, law, z, n, p0)
                        cases.append(dict(
                            n=n, p0=p0, epsilon=eps, delta=delta, z=z,
                            greater=mp.nstr(greater(pmf, law, z), 25),
                            less=mp.nstr(less(pmf, law, z), 25),
                            two_sided=mp.nstr(two_sided(pmf, law, z, n, p0), 25)))
    # tiny p-values (1e-200 .. 1e-300): relative accuracy far in the tails
    for n, p0, eps, z in ((30, 0.05, 3.0, 200.3), (10, 0.5, 10.0, 75.2), (1000, 0.1, 1.0, 1500.5),
                          (30, 0.5, 2.5, -250.7), (100, 0.9, 1.0, -560.25)):
        pmf = pmf_vector(n, p0)
        law = Law(eps, 0.0, n)
        z = law.snap(z)
        cases.append(dict(
            n=n, p0=p0, epsilon=eps, delta=0.0, z=z,
            greater=mp.nstr(greater(pmf, law, z), 25),
            less=mp.nstr(less(pmf, law, z), 25),
            two_sided=mp.nstr(two_sided(pmf, law, z, n, p0), 25)))
    n = 100000
    for p0 in (0.1, 0.5):
        pmf = pmf_vector(n, p0)
        for eps in (0.5, 3.0):
            for delta in (0.0, 0.01):
                law = Law(eps, delta, n)
                sd = (n * p0 * (1 - p0)) ** 0.5
                for z in (round(n * p0 + 0.5 * sd + 0.3, 6), round(n * p0 + 30 * sd + 0.3, 6)):
                    z = law.snap(z)
                    centre = n * p0
                    t = abs(z - centre) - float(law.half)  # moved towards the centre (exact)
                    g = pruned_sum(pmf, lambda x, z=z: law.cdf(x - (z - law.half)))
                    l_ = pruned_sum(pmf, lambda x, z=z: law.cdf(z + law.half - x))
                    two = min(pruned_sum(pmf, lambda x: law.cdf(x - centre - t))
                              + pruned_sum(pmf, lambda x: law.cdf(centre - t - x)), mp.mpf(1))
                    cases.append(dict(n=n, p0=p0, epsilon=eps, delta=delta, z=z,
                                      greater=mp.nstr(g, 25), less=mp.nstr(l_, 25),
                                      two_sided=mp.nstr(two, 25)))
    return cases


def check_counting(pmf, law, z, n, p0):
    """The cdf-shift identity against direct counting of the grid law (q = 0, n <= 30)."""
    if law.q != 0 or n > 30:
        return
    counted = mp.fsum(w * law.tail_ge(z - x) for x, w in enumerate(pmf))
    shifted = greater(pmf, law, z)
    assert abs(counted - shifted) <= mp.mpf(10) ** -30 * max(shifted, mp.mpf(10) ** -300), (n, z)
    rule, exact = two_sided(pmf, law, z, n, p0), exact_two_sided(pmf, law, z, n, p0)
    # the rule is conservative by at most one atom (mass below h)
    assert exact - mp.mpf(10) ** -30 <= rule <= exact + 2 * law.half + mp.mpf(10) ** -30, (n, z)


def pruned_sum(pmf, cdf):
    """sum_x pmf[x] cdf(x) over x with pmf[x] >= tau, with a proven bound on the rest.

    Every left-out term is below tau (cdf <= 1) and there are at most n + 1 of them, so the
    error is at most (n + 1) tau.  tau is lowered until (n + 1) tau <= 1e-25 times the
    largest included term (itself <= the sum): relative error below 1e-25.  (Full 40-digit
    sums over 1e5 + 1 terms take seconds each; this keeps the script to a few minutes.)
    """
    n = len(pmf) - 1
    top = max(pmf)
    tau = top * mp.mpf(10) ** -40
    while True:
        terms = [w * cdf(x) for x, w in enumerate(pmf) if w >= tau]
        biggest = max(terms)
        if (biggest > 0 and (n + 1) * tau <= mp.mpf(10) ** -25 * biggest) or len(terms) == n + 1:
            return mp.fsum(terms)
        tau = tau * mp.mpf(10) ** -60


def bisect(f, lo, hi, increasing):
    """Boundary of {f > 0} in [lo, hi]; f monotone, f(inside) > 0 >= f(outside)."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(70):
        mid = (lo + hi) / 2
        above = f(mid) > 0
        if increasing:
            lo, hi = (lo, mid) if above else (mid, hi)
        else:
            lo, hi = (mid, hi) if above else (lo, mid)
    return (lo + hi) / 2


def ci_reference(n, law, z, level, alternative):
    alpha = 1 - mp.mpf(level)

    def p_greater(theta):
        return greater(pmf_vector(n, theta), law, z)

    def p_less(theta):
        return less(pmf_vector(n, theta), law, z)

    def p_two(theta):
        return two_sided(pmf_vector(n, theta), law, z, n, theta)

    half = float(law.half)

    if alternative == "greater":
        if p_greater(0) > alpha:
            return 0, 1
        if p_greater(1) <= alpha:
            return 1, 1
        return bisect(lambda t: p_greater(t) - alpha, 0, 1, True), 1
    if alternative == "less":
        if p_less(1) > alpha:
            return 0, 1
        if p_less(0) <= alpha:
            return 0, 0
        return 0, bisect(lambda t: p_less(t) - alpha, 0, 1, False)
    centre = min(max(mp.mpf(z) / n, mp.mpf(0)), mp.mpf(1))
    f = lambda t: p_two(t) - alpha  # noqa: E731
    if 0 <= z <= n:
        # p(z / n) = 1 and p is monotone on each side of z / n
        low = 0 if f(mp.mpf(0)) > 0 else bisect(f, 0, centre, True)
        high = 1 if f(mp.mpf(1)) > 0 else bisect(f, centre, 1, False)
        return low, high
    # Outside [0, n] the p-value is not largest at the clipped z / n and can have several
    # peaks; the interval is the hull of the accepted set and the estimate (the edge).  The
    # accepted set is located by a float64 plain full sum on a dense theta grid, scanned from
    # the far side; the end is then bisected in mpmath inside the grid cell found, after the
    # cell's two ends are confirmed in mpmath to straddle the level.
    grid = theta_scan_grid()
    accepted = np.flatnonzero(float_two_sided(z - half if z > n else z + half, n, law, grid)
                              > float(alpha))
    if z > n:
        if accepted.size == 0 or accepted[0] == 0:
            return (0 if accepted.size else 1), 1
        inside, outside = grid[accepted[0]], grid[accepted[0] - 1]
        assert f(mp.mpf(inside)) > 0 >= f(mp.mpf(outside))
        return bisect(f, outside, inside, True), 1
    if accepted.size == 0 or accepted[-1] == grid.size - 1:
        return 0, (1 if accepted.size else 0)
    inside, outside = grid[accepted[-1]], grid[accepted[-1] + 1]
    assert f(mp.mpf(inside)) > 0 >= f(mp.mpf(outside))
    return 0, bisect(f, inside, outside, False)


def theta_scan_grid():
    """20001 equally spaced theta plus 800 geometric points towards each end."""
    edge = np.geomspace(1e-12, 0.5, 800)
    return np.unique(np.concatenate([np.linspace(0.0, 1.0, 20001), edge, 1.0 - edge]))


def float_two_sided(z, n, law, thetas):
    """The two-sided p-value at many theta as a float64 plain full sum (locator only)."""
    b, q = float(law.b), float(law.q)

    def cdf(t):
        s = -np.abs(t)
        k = np.round(s)
        low = b ** (-k) / (1 + b) * (b + (s - k + 0.5) * (1 - b))
        f0 = np.where(t <= 0, low, 1 - low)
        return np.clip((f0 - q / 2) / (1 - q), 0.0, 1.0)

    x = np.arange(n + 1)[None, :]
    out = []
    for start in range(0, len(thetas), 2000):
        theta = np.asarray(thetas[start:start + 2000])[:, None]
        centre = n * theta
        t = np.abs(z - centre)
        pmf = stats.binom.pmf(x, n, theta)
        out.append(np.sum(pmf * (cdf(x - centre - t) + cdf(centre - t - x)), axis=1))
    return np.concatenate(out)


def ci_cases():
    cases = []
    for n in (1, 10, 30, 100):
        for eps, delta in ((0.5, 0.0), (1.0, 0.0), (3.0, 0.01), (1.0, 1e-6)):
            law = Law(eps, delta, n)
            for z in map(law.snap, (-1.3, round(0.4 * n + 0.2, 6), n + 1.7)):
                for alternative in ("greater", "less", "two-sided"):
                    low, high = ci_reference(n, law, z, 0.95, alternative)
                    cases.append(dict(n=n, epsilon=eps, delta=delta, z=z, level=0.95,
                                      alternative=alternative,
                                      low=mp.nstr(mp.mpf(low), 25), high=mp.nstr(mp.mpf(high), 25)))
    # two-sided, outside [0, n], where the p-value peaks away from the edge (multimodal cases)
    for n, z, eps, delta, level in OUTSIDE_TWO_SIDED:
        law = Law(eps, delta, n)
        z = law.snap(z)
        low, high = ci_reference(n, law, z, level, "two-sided")
        cases.append(dict(n=n, epsilon=eps, delta=delta, z=z, level=level, alternative="two-sided",
                          low=mp.nstr(mp.mpf(low), 25), high=mp.nstr(mp.mpf(high), 25)))
    return cases


OUTSIDE_TWO_SIDED = [(1, 2.0, 3.0, 0.0, 0.95), (1, -1.0, 3.0, 0.0, 0.95), (1, 2.0, 3.0, 0.0, 0.99),
                     (2, 2.6, 10.0, 0.05, 0.95), (2, -0.6, 10.0, 0.05, 0.9),
                     (30, 31.2, 20.0, 0.0, 0.9), (30, -0.8, 5.0, 1e-6, 0.95),
                     (100, 101.5, 5.0, 0.0, 0.99), (1000, 1001.0, 3.0, 0.05, 0.95)]


def main():
    data = {"pvalues": pvalue_cases(), "intervals": ci_cases(), "dps": mp.mp.dps}
    OUT.write_text(json.dumps(data, indent=1))
    print(f"wrote {len(data['pvalues'])} p-value and {len(data['intervals'])} interval cases to {OUT}")


if __name__ == "__main__":
    main()
