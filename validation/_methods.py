"""Exact operating characteristics shared by the studies (private to ``validation``).

Three families of computations live here:

* **Non-private yardsticks**, exact finite sums with scipy: the randomised UMP
  one-sided binomial test, the exact (Clopper-Pearson type) one-sided binomial test,
  the Clopper-Pearson and Wald intervals.
* **The law of a release**, exact: a Tulap-noised count ``Z = X + N`` and a
  Laplace-noised proportion ``pi_hat = X/n + L``, ``X ~ Binomial(n, theta)``.  Tail
  probabilities are finite sums over x of ``Binom(x) * (noise tail)``; expectations
  ``E[g(release)]`` of a piecewise-smooth ``g`` are computed by Gauss-Legendre
  quadrature on panels whose ends are the kinks of the release's density (for the
  Tulap count the density is constant on each cell ``(j - 1/2, j + 1/2)``; for the
  Laplace proportion it is smooth between consecutive ``x/n``).
* **Operating characteristics of a p-value**: a one-sided p-value that is monotone
  in the release rejects exactly on a half-line ``{t >= t*}`` (or ``{t <= t*}``);
  ``t*`` is found by a root search on the *public* p-value function, and the size
  or power is then the exact probability of that half-line.  This checks the
  p-value against the release law, rather than trusting the package's own power
  function.

Everything takes already valid arguments (the studies build them).  The interval
studies' machinery (coverage and mean length of each interval) is in
``validation/_intervals.py``, built on these laws and solvers.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint


__all__ = []

_GL_CACHE = {}


def _gauss_legendre01(m):
    """Gauss-Legendre nodes and weights on [0, 1] (weights sum to 1)."""
    if m not in _GL_CACHE:
        x, w = np.polynomial.legendre.leggauss(m)
        _GL_CACHE[m] = (0.5 * (x + 1.0), 0.5 * w)
    return _GL_CACHE[m]


def ump_randomised_phi(n, p0, alpha, alternative):
    """Test function phi(x), x = 0..n, of the non-private randomised UMP one-sided binomial test.

    ``greater``: phi = 1 for x > c, gamma at x = c, 0 below, where
    P_p0(X > c) <= alpha < P_p0(X >= c) and gamma = (alpha - P_p0(X > c)) / P_p0(X = c),
    so the size is alpha exactly.  ``less`` by the symmetry X -> n - X.
    """
    if alternative == "less":
        return ump_randomised_phi(n, 1.0 - p0, alpha, "greater")[::-1].copy()
    k = np.arange(n + 1)
    sf0 = stats.binom.sf(k, n, p0)  # P_p0(X > k)
    c = int(np.flatnonzero(sf0 <= alpha)[0])
    phi = (k > c).astype(float)
    phi[c] = (alpha - sf0[c]) / stats.binom.pmf(c, n, p0)
    return phi


def exact_binomial_phi(n, p0, alpha, alternative):
    """Test function (0/1) of the non-private exact one-sided binomial test.

    ``greater`` rejects when the p-value P_p0(X >= x) is <= alpha; ``less`` by symmetry.
    """
    if alternative == "less":
        return exact_binomial_phi(n, 1.0 - p0, alpha, "greater")[::-1].copy()
    x = np.arange(n + 1)
    return (stats.binom.sf(x - 1, n, p0) <= alpha).astype(float)


def phi_power(phi, n, theta):
    """E_theta[phi(X)] = sum_x Binom(x; n, theta) phi(x), for an array of theta."""
    theta = np.atleast_1d(np.asarray(theta, dtype=float))
    return stats.binom.pmf(np.arange(n + 1)[None, :], n, theta[:, None]) @ phi


def phi_simulate(gen, phi, n, theta, reps):
    """Simulated rejections of a randomised test: X ~ Binomial(n, theta), reject if U < phi(X)."""
    x = gen.binomial(n, theta, size=reps)
    return gen.random(reps) < phi[x]


def clopper_pearson(x, n, level):
    """Clopper-Pearson interval [low, high] for counts x (array), as an (..., 2) array.

    statsmodels' ``proportion_confint(method='beta')``: the non-private yardstick as the
    field computes it.
    """
    low, high = proportion_confint(np.asarray(x, dtype=float), n, alpha=1.0 - level, method="beta")
    return np.stack([low, high], axis=-1)


def wald(x, n, level):
    """Wald interval p_hat +/- z sqrt(p_hat (1 - p_hat) / n), clipped to [0, 1].

    statsmodels' ``proportion_confint(method='normal')``, clipped.
    """
    low, high = proportion_confint(np.asarray(x, dtype=float), n, alpha=1.0 - level, method="normal")
    return np.stack([np.clip(low, 0, 1), np.clip(high, 0, 1)], axis=-1)


def nonprivate_ci_coverage(interval, n, theta, level):
    """Exact coverage and mean length: sums over x of Binom(x; n, theta) (closed intervals)."""
    theta = np.atleast_1d(np.asarray(theta, dtype=float))
    x = np.arange(n + 1)
    ci = interval(x, n, level)
    pmf = stats.binom.pmf(x[None, :], n, theta[:, None])
    covers = (ci[None, :, 0] <= theta[:, None]) & (theta[:, None] <= ci[None, :, 1])
    return np.sum(pmf * covers, axis=1), pmf @ (ci[:, 1] - ci[:, 0])


# --------------------------------------------------------------------------- release laws
def _x_window(n, theta, tail):
    """Counts x whose complement has Binomial(n, theta) mass <= tail (both sides together)."""
    lo = int(stats.binom.ppf(tail / 2, n, theta))
    hi = int(stats.binom.isf(tail / 2, n, theta))
    return max(lo - 1, 0), min(hi + 1, n)


@functools.lru_cache(maxsize=64)
def _tulap(epsilon, delta):
    from dpinfer import Tulap

    return Tulap.from_privacy(epsilon, delta)


class CountLaw:
    """Z = X + N, X ~ Binomial(n, theta), N ~ Tulap(0, exp(-epsilon), q(delta))."""

    axis = "count"

    def __init__(self, n, epsilon, delta=0.0):
        self.n, self.epsilon, self.delta = n, epsilon, delta
        self.noise = _tulap(epsilon, delta)

    def sf(self, t, theta):
        """P_theta(Z >= t) for an array t (continuous law: >= and > agree)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        x = np.arange(self.n + 1)
        pmf = stats.binom.pmf(x, self.n, theta)
        return np.asarray(self.noise.ccdf((t[:, None] - x[None, :]).ravel())).reshape(
            t.size, -1) @ pmf

    def cdf(self, t, theta):
        """P_theta(Z <= t), summed directly (no 1 - sf)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        x = np.arange(self.n + 1)
        pmf = stats.binom.pmf(x, self.n, theta)
        return np.asarray(self.noise.cdf((t[:, None] - x[None, :]).ravel())).reshape(
            t.size, -1) @ pmf

    def bracket(self):
        spread = 60.0 / self.epsilon + 1.0
        return -spread, self.n + spread

    def two_sided_tail(self, d, v):
        """P_v(|Z - n v| >= d) for arrays d and v of one shape: the 'asymptotically
        unbiased' two-sided p-value of Awan & Slavkovic (2020) at |z - n v| = d."""
        # Counts within 9 binomial sd of n v (the rest has mass < 1e-18), per row.
        half = int(np.ceil(9.0 * np.sqrt(self.n * 0.25))) + 2
        start = np.clip(np.rint(self.n * v).astype(int) - half, 0, max(self.n - 2 * half, 0))
        x = start[:, None] + np.arange(min(2 * half, self.n) + 1)[None, :]
        pmf = stats.binom.pmf(x, self.n, v[:, None])
        centre = (self.n * v)[:, None]
        upper = np.asarray(self.noise.ccdf((centre + d[:, None] - x).ravel()))
        lower = np.asarray(self.noise.cdf((centre - d[:, None] - x).ravel()))
        tails = (upper + lower).reshape(pmf.shape)
        return np.sum(pmf * tails, axis=1)

    def two_sided_half_width(self, v, alpha):
        """d(v) with P_v(|Z - n v| >= d) = alpha, for an array of null values v.

        The test rejects when |Z - n v| >= d(v); its acceptance region is
        (n v - d, n v + d).  All v are solved together (:func:`solve_increasing`).
        """
        v = np.atleast_1d(np.asarray(v, dtype=float))
        hi = self.n + 60.0 / self.epsilon + 1.0
        return solve_increasing(lambda d, idx: -self.two_sided_tail(d, v[idx]),
                                np.full(v.shape, -alpha), 0.0, hi, indexed=True)

    def sample(self, gen, theta, reps):
        x = gen.binomial(self.n, theta, size=reps)
        return x + np.asarray(self.noise.sample(reps, rng=gen))

    def quadrature(self, thetas, *, nodes=8, tail=1e-13):
        """Nodes z and weights W (len(thetas), len(z)) with E_theta[g(Z)] ~ W @ g(z).

        The density of Z is constant on every cell (j - 1/2, j + 1/2), j an integer
        (N's density is, and X is an integer), with mass
        H_j = sum_x Binom(x) P(N in (j - x - 1/2, j - x + 1/2)); inside a cell the
        integrand is smooth, so an m-point Gauss-Legendre rule per cell is accurate
        to O(h^(2m)) in the cell.  Cells are kept while the neglected Binomial and
        noise tails stay below ``tail``; returns also that neglected mass per theta
        (the error bound for an integrand in [0, 1] besides quadrature error).
        Requires delta = 0 (q = 0), where the density is exactly piecewise constant.
        """
        if self.delta != 0.0:
            raise ValueError("quadrature over the Tulap law needs delta = 0.")
        thetas = np.atleast_1d(np.asarray(thetas, dtype=float))
        windows = [_x_window(self.n, th, tail) for th in thetas]
        x_lo = min(w[0] for w in windows)
        x_hi = max(w[1] for w in windows)
        # Tulap tail beyond K cells: about b^K; keep K with b^K < tail.
        k_max = int(np.ceil(-np.log(tail) / self.epsilon)) + 1
        j = np.arange(x_lo - k_max, x_hi + k_max + 1)
        x = np.arange(x_lo, x_hi + 1)
        d = j[:, None] - x[None, :]
        cell = np.asarray(self.noise.cdf((d + 0.5).ravel())) - np.asarray(
            self.noise.cdf((d - 0.5).ravel()))
        cell = cell.reshape(d.shape)
        pmf = stats.binom.pmf(x[None, :], self.n, thetas[:, None])  # (T, X)
        mass = pmf @ cell.T  # (T, J)
        u, w = _gauss_legendre01(nodes)
        z = (j[:, None] - 0.5 + u[None, :]).ravel()
        weights = (mass[:, :, None] * w[None, None, :]).reshape(thetas.size, -1)
        return z, weights, 1.0 - mass.sum(axis=1)


class ProportionLaw:
    """pi_hat = X/n + L, X ~ Binomial(n, theta), L ~ Laplace(0, 1/(epsilon n))."""

    axis = "proportion"

    def __init__(self, n, epsilon):
        self.n, self.epsilon = n, epsilon
        self.scale = 1.0 / (epsilon * n)

    def _lap_sf(self, d):
        z = d / self.scale
        half = 0.5 * np.exp(-np.abs(z))
        return np.where(z > 0, half, 1.0 - half)

    def sf(self, t, theta):
        """P_theta(pi_hat >= t) for an array t."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        x = np.arange(self.n + 1)
        pmf = stats.binom.pmf(x, self.n, theta)
        return self._lap_sf(t[:, None] - x[None, :] / self.n) @ pmf

    def cdf(self, t, theta):
        """P_theta(pi_hat <= t)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        x = np.arange(self.n + 1)
        pmf = stats.binom.pmf(x, self.n, theta)
        return self._lap_sf(x[None, :] / self.n - t[:, None]) @ pmf

    def bracket(self):
        spread = 60.0 * self.scale + 1.0
        return -spread, 1.0 + spread

    def sample(self, gen, theta, reps):
        x = gen.binomial(self.n, theta, size=reps)
        return x / self.n + gen.laplace(0.0, self.scale, size=reps)

    def density(self, pi, thetas, x):
        """h_theta(pi) = sum_{x in window} Binom(x) Laplace density at pi - x/n: (T, len(pi))."""
        pmf = stats.binom.pmf(x[None, :], self.n, thetas[:, None])
        lap = np.exp(-np.abs(pi[:, None] - x[None, :] / self.n) / self.scale) / (2 * self.scale)
        return pmf @ lap.T

    def quadrature(self, thetas, *, nodes=8, tail=1e-13):
        """Nodes and weights with E_theta[g(pi_hat)] ~ W @ g(pi) (see CountLaw.quadrature).

        The density of pi_hat is smooth between the kinks x/n; panels are
        [x/n, (x+1)/n] over the count window, then panels of widths s, s, 2s, 4s, ...
        (s the Laplace scale) out to where the Laplace tail is below ``tail``.
        """
        thetas = np.atleast_1d(np.asarray(thetas, dtype=float))
        windows = [_x_window(self.n, th, tail) for th in thetas]
        x_lo = min(w[0] for w in windows)
        x_hi = max(w[1] for w in windows)
        x = np.arange(x_lo, x_hi + 1)
        reach = -np.log(tail) * self.scale
        steps = [self.scale]
        while sum(steps) < reach:
            steps.append(min(2 * steps[-1], 8 * self.scale) if len(steps) > 1 else self.scale)
        offsets = np.cumsum([0.0] + steps)
        inner = x / self.n
        edges = np.unique(np.concatenate([inner[0] - offsets[::-1], inner, inner[-1] + offsets]))
        u, w = _gauss_legendre01(nodes)
        lo, width = edges[:-1], np.diff(edges)
        pi = (lo[:, None] + width[:, None] * u[None, :]).ravel()
        wq = (width[:, None] * w[None, :]).ravel()
        weights = self.density(pi, thetas, x) * wq[None, :]
        neglected = 1.0 - weights.sum(axis=1)
        return pi, weights, neglected


# --------------------------------------------------------------------------- p-value tests
def one_sided_threshold(pvalue, law, levels, alternative):
    """Thresholds t*(level) with pvalue(t*) = level for a p-value monotone in the release.

    ``pvalue(t_array) -> array``, decreasing in t for ``greater`` (rejection region
    {t >= t*}) and increasing for ``less`` ({t <= t*}).  All levels are solved at
    once (:func:`solve_increasing`, to |p(t*) - level| <= 1e-15 or a bracket of
    1e-13 relative width).  Returns a float for a scalar level.
    """
    levels = np.asarray(levels, dtype=float)
    lo, hi = law.bracket()
    sign = -1.0 if alternative == "greater" else 1.0
    func = lambda t: sign * np.asarray(pvalue(t), dtype=float)  # noqa: E731
    ends = func(np.array([lo, hi]))
    if not (np.all(ends[0] < sign * levels) and np.all(sign * levels <= ends[1])):
        raise RuntimeError(f"the p-value does not cross {levels} inside [{lo}, {hi}]")
    out = solve_increasing(func, sign * levels.ravel(), lo, hi)
    return float(out[0]) if levels.ndim == 0 else out.reshape(levels.shape)


def one_sided_power(law, threshold, theta, alternative):
    """Exact probability of the rejection half-line under theta (array)."""
    theta = np.atleast_1d(np.asarray(theta, dtype=float))
    f = law.sf if alternative == "greater" else law.cdf
    return np.array([f(np.array([threshold]), th)[0] for th in theta])


def two_sided_thresholds(pvalue, law, alpha, centre):
    """(t_lo, t_hi) where a two-sided p-value, maximal at ``centre``, equals alpha.

    The p-value must increase up to ``centre`` and decrease after it; the rejection
    region is then {t <= t_lo} U {t >= t_hi}.
    """
    lo, hi = law.bracket()
    p = lambda t: np.asarray(pvalue(t), dtype=float)  # noqa: E731
    t_lo = solve_increasing(p, np.array([alpha]), lo, centre)[0]
    t_hi = solve_increasing(lambda t: -p(t), np.array([-alpha]), centre, hi)[0]
    return float(t_lo), float(t_hi)


def bisect_increasing(func, targets, lo, hi, *, iters=60):
    """Vectorised bisection: where an increasing ``func`` crosses each target, in [lo, hi].

    Returns the midpoint of the final bracket [a, b] with func(a) < y <= func(b),
    of width (hi - lo) / 2**iters.  ``func(array) -> array``; the caller guarantees
    func(lo) < y <= func(hi).
    """
    targets = np.asarray(targets, dtype=float)
    a = np.full(targets.shape, float(lo))
    b = np.full(targets.shape, float(hi))
    for _ in range(iters):
        mid = 0.5 * (a + b)
        below = func(mid) < targets
        a = np.where(below, mid, a)
        b = np.where(below, b, mid)
    return 0.5 * (a + b)


def solve_increasing(func, targets, lo, hi, *, ftol=1e-15, xtol=1e-13, max_iter=200,
                     f_lo=None, f_hi=None, indexed=False):
    """Vectorised root search: x with func(x) = y for each target, func increasing.

    ``lo`` and ``hi`` are scalars or arrays (one bracket per target); ``f_lo`` and
    ``f_hi``, if given, are func at those ends (already computed by the caller).
    With ``indexed=True`` the function differs per target and is called as
    ``func(x, idx)`` with ``idx`` the targets' positions.

    Illinois (modified regula falsi) steps inside a bracket [a, b] with
    func(a) < y <= func(b), falling back to bisection when a step leaves the
    bracket or stalls; a root is accepted when |func(x) - y| <= ftol or the bracket
    is narrower than xtol (1 + |x|).  Only unconverged targets are evaluated.
    """
    y = np.asarray(targets, dtype=float).ravel()
    a = np.broadcast_to(np.asarray(lo, dtype=float).ravel(), y.shape).copy()
    b = np.broadcast_to(np.asarray(hi, dtype=float).ravel(), y.shape).copy()
    if not indexed:
        plain = func

        def func(x, idx):
            return plain(x)

    if f_lo is None or f_hi is None:
        every = np.arange(y.size)
        f_lo, f_hi = func(a, every), func(b, every)
    fa = np.broadcast_to(f_lo, y.shape) - y
    fb = np.broadcast_to(f_hi, y.shape) - y
    if np.any(fa >= 0) or np.any(fb < 0):
        raise RuntimeError("solve_increasing: the targets are not bracketed by [lo, hi]")
    side = np.zeros(y.shape)
    x = 0.5 * (a + b)
    done = np.zeros(y.shape, dtype=bool)
    for it in range(max_iter):
        act = np.flatnonzero(~done)
        if act.size == 0:
            break
        aa, bb, ffa, ffb = a[act], b[act], fa[act], fb[act]
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = bb - ffb * (bb - aa) / (ffb - ffa)
        # Every fourth round is a bisection: guarantees progress on kinks and flats.
        bad = ~np.isfinite(xs) | (xs <= aa) | (xs >= bb) | (it % 4 == 3)
        xs = np.where(bad, 0.5 * (aa + bb), xs)
        fx = func(xs, act) - y[act]
        neg = fx < 0
        # Illinois: halve the stale end's value when the same end moves twice.
        ffb = np.where(neg & (side[act] == -1), 0.5 * ffb, ffb)
        ffa = np.where(~neg & (side[act] == 1), 0.5 * ffa, ffa)
        a[act] = np.where(neg, xs, aa)
        fa[act] = np.where(neg, fx, ffa)
        b[act] = np.where(neg, bb, xs)
        fb[act] = np.where(neg, ffb, fx)
        side[act] = np.where(neg, -1.0, 1.0)
        x[act] = xs
        done[act] = (np.abs(fx) <= ftol) | (b[act] - a[act] <= xtol * (1.0 + np.abs(xs)))
    return x.reshape(np.shape(targets))


# --------------------------------------------------------------------------- DP-JIMI, finite H
def jimi_finite_draws_power(pvalue, law, alpha, alternative, n_sim, theta, *, nodes=16):
    """Exact rejection probability of the DP-JIMI test run with ``n_sim`` draws.

    Given the release t, the number of draws on the null side is
    Binomial(H, p(t)) with p the exact-limit p-value; the test rejects when that
    count is <= m = max{k : k/H <= alpha}.  Since P(Bin(H, p) <= m) = P(p < U) for
    U ~ Beta(m + 1, H - m) (the (m+1)-th uniform order statistic), the rejection
    probability is E_U[P_theta(p(T) < U)] = E_U[P_theta(T beyond t(U))], with t(u)
    the level-u threshold of the exact-limit test.  The outer expectation is a
    Gauss-Hermite rule after writing U = F_Beta^-1(Phi(Z)), Z ~ N(0, 1).
    """
    m = max(k for k in range(n_sim + 1) if k / n_sim <= alpha)
    if m >= n_sim:
        return np.ones(np.size(theta))
    # U = F^-1(Phi(Z)) with Z standard normal: the integrand is smooth in Z, so a
    # Gauss-Hermite rule converges fast (16 nodes: error below 1e-8 in the tests).
    zs, ws = np.polynomial.hermite_e.hermegauss(nodes)
    us = np.where(zs < 0, stats.beta.ppf(stats.norm.cdf(zs), m + 1, n_sim - m),
                  stats.beta.isf(stats.norm.sf(zs), m + 1, n_sim - m))
    wts = ws / np.sqrt(2.0 * np.pi)
    thresholds = one_sided_threshold(pvalue, law, us, alternative)
    theta = np.atleast_1d(np.asarray(theta, dtype=float))
    f = law.sf if alternative == "greater" else law.cdf
    probs = np.array([f(thresholds, th) for th in theta])  # (T, nodes)
    return probs @ wts


# --------------------------------------------------------------------------- dpinfer methods
PRIVATE_TESTS = ("dp_ump", "normal", "dp_jimi")
NONPRIVATE_TESTS = ("ump_nonprivate", "exact_binomial")


def law_for(method, n, epsilon):
    """The release law a method's test is applied to."""
    return CountLaw(n, epsilon) if method == "dp_ump" else ProportionLaw(n, epsilon)


def release_at(t, n, epsilon, method):
    """The release records that values ``t`` of a p-value or interval function stand for.

    The studies evaluate these functions of the release at every ``t`` their root
    searches and quadratures visit, whole counts (and ``k / n``) included, which typed
    as numbers are refused as confidential counts; a Release record is never judged by
    its digits.  ``dp_ump``: a Tulap count; the other methods: a Laplace proportion.
    """
    import dpinfer

    t = np.asarray(t, float)
    if method == "dp_ump":
        return dpinfer.Release(t, "tulap", epsilon, 0.0, 1.0, n, "count")
    return dpinfer.Release(t, "laplace", epsilon, 0.0, 1.0 / n, n, "proportion")


def pvalue_function(method, n, p0, epsilon, alternative, *, n_sim=None, rng=None):
    """``t_array -> p-values`` through dpinfer's public test functions.

    ``normal`` is called with its ApproximationWarning silenced: the studies exist
    to measure how good the approximation is.  ``dp_jimi`` uses the exact limit
    (``n_sim=None``) unless ``n_sim`` is given.
    """
    import warnings

    import dpinfer

    if method == "dp_ump":
        def pvalue(t):
            return np.asarray(dpinfer.binom_ump_test(release_at(t, n, epsilon, method), p0,
                                                     alternative=alternative))
    elif method == "normal":
        def pvalue(t):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", dpinfer.ApproximationWarning)
                return np.asarray(dpinfer.binom_normal_test(release_at(t, n, epsilon, method), p0,
                                                            alternative=alternative))
    elif method == "dp_jimi":
        def pvalue(t):
            return np.asarray(dpinfer.binom_jimi_test(release_at(t, n, epsilon, method), p0,
                                                      alternative=alternative, n_sim=n_sim, rng=rng))
    else:
        raise ValueError(f"unknown private test {method!r}")
    return pvalue


def _row(cell, theta, value, mc_se, n_sim):
    return {
        **cell.get("extra", {}),
        "method": cell["method"],
        "alternative": cell["alternative"],
        "n": cell["n"],
        "epsilon": cell["epsilon"],
        "p0": cell["p0"],
        "alpha": cell["alpha"],
        "theta": float(theta),
        "n_sim": n_sim,
        cell.get("value_name", "rejection"): float(value),
        "mc_se": mc_se,
    }


def one_sided_cell(cell, seed_sequence):
    """Rejection probabilities of one one-sided test at ``cell['thetas']``: a list of rows.

    cell keys: method, n, epsilon, p0, alpha, alternative, thetas, mode ('exact' or
    'simulate'), reps, n_sim (DP-JIMI draws), value_name (column of the result),
    extra (a dict of leading columns copied into every row, e.g. the panel).
    Exact mode: the non-private tests as sums over x; the private tests by the
    rejection half-line of their p-value (see :func:`one_sided_threshold`) and the
    exact law of the release; DP-JIMI also at ``n_sim`` draws exactly
    (:func:`jimi_finite_draws_power`).  Simulate mode: ``reps`` releases per theta,
    the test applied to all of them at once, and the +/- Monte Carlo SE.
    """
    method, n, eps = cell["method"], cell["n"], cell["epsilon"]
    p0, alpha, alt = cell["p0"], cell["alpha"], cell["alternative"]
    thetas = np.asarray(cell["thetas"], dtype=float)
    rows = []
    if cell["mode"] == "exact":
        if method in NONPRIVATE_TESTS:
            phi_fn = ump_randomised_phi if method == "ump_nonprivate" else exact_binomial_phi
            power = phi_power(phi_fn(n, p0, alpha, alt), n, thetas)
            return [_row(cell, th, pw, None, None) for th, pw in zip(thetas, power)]
        law = law_for(method, n, eps)
        pvalue = pvalue_function(method, n, p0, eps, alt)
        threshold = one_sided_threshold(pvalue, law, alpha, alt)
        power = one_sided_power(law, threshold, thetas, alt)
        rows = [_row(cell, th, pw, None, None) for th, pw in zip(thetas, power)]
        if method == "dp_jimi" and cell.get("n_sim"):
            finite = jimi_finite_draws_power(pvalue, law, alpha, alt, cell["n_sim"], thetas)
            rows += [_row(cell, th, pw, None, cell["n_sim"]) for th, pw in zip(thetas, finite)]
        return rows
    reps = cell["reps"]
    for theta, ss in zip(thetas, seed_sequence.spawn(thetas.size)):
        data_ss, draw_ss = ss.spawn(2)
        gen = np.random.default_rng(data_ss)
        if method in NONPRIVATE_TESTS:
            phi_fn = ump_randomised_phi if method == "ump_nonprivate" else exact_binomial_phi
            reject = phi_simulate(gen, phi_fn(n, p0, alpha, alt), n, theta, reps)
            n_sim = None
        else:
            law = law_for(method, n, eps)
            n_sim = cell["n_sim"] if method == "dp_jimi" else None
            pvalue = pvalue_function(method, n, p0, eps, alt, n_sim=n_sim,
                                     rng=np.random.default_rng(draw_ss))
            reject = pvalue(law.sample(gen, theta, reps)) <= alpha
        rate = float(np.mean(reject))
        rows.append(_row(cell, theta, rate, float(np.sqrt(rate * (1 - rate) / reps)), n_sim))
    return rows
