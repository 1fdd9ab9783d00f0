"""DP-JIMI's exact (infinitely many draws) fiducial law, written from its definition.

Independent of dpinfer (imports only numpy and scipy), for tests that need the law as
the truth without taking it from the package's kernels.  The released proportion is
``pi_hat = x / n + L``, ``L ~ Laplace(0, s)``, ``s = 1 / (epsilon n)``; a fiducial draw
takes ``pi* = pi_hat - L'`` (so ``pi* ~ Laplace(pi_hat, s)``) and ``theta* = 0`` if
``pi* <= 0``, ``1`` if ``pi* >= 1``, else ``Beta(n pi* + 1/2, n (1 - pi*) + 1/2)``
(Romanus, Boulaguiem & Molinari 2025, arXiv:2507.11762).  Hence, for ``0 <= t < 1``,

    P(theta* <= t) = P(pi* <= 0) + int_0^1 I_t(n u + 1/2, n (1 - u) + 1/2) f(u) du,
    P(theta* >= t) = P(pi* >= 1) + int_0^1 (1 - I_t(...)) f(u) du   (0 < t <= 1),

with ``f`` the Laplace(pi_hat, s) density.  The integrals are taken by adaptive
quadrature (``scipy.integrate.quad_vec``, all ``t`` at once) over ``[0, 1]`` cut to
``pi_hat +- 60 s`` (the Laplace mass outside is below 1e-26), with breakpoints at
``pi_hat`` (the kink of ``f``) and at every ``t`` when there are at most 16 (where the Beta cdf turns over in
``u``), to an absolute error below 1e-14.  :func:`release_cut` solves for the release
at which a one-sided p-value equals a level with :func:`scipy.optimize.brentq`.
"""

import numpy as np
from scipy import integrate, optimize, stats

__all__ = ["fiducial_cdf", "fiducial_sf", "release_cut"]


def _interior(t, pi_hat, n, epsilon, upper):
    s = 1.0 / (epsilon * n)
    lo, hi = max(0.0, pi_hat - 60.0 * s), min(1.0, pi_hat + 60.0 * s)
    if lo >= hi:
        return np.zeros(t.size)
    f = stats.laplace(loc=pi_hat, scale=s)

    def integrand(u):
        a, b = n * u + 0.5, n * (1.0 - u) + 0.5
        law = stats.beta.sf(t, a, b) if upper else stats.beta.cdf(t, a, b)
        return law * f.pdf(u)

    # breakpoints at every t only for a few t (a dense grid resolves the turn by itself)
    marks = (pi_hat, *t.tolist()) if t.size <= 16 else (pi_hat,)
    points = sorted({p for p in marks if lo < p < hi})
    value, _ = integrate.quad_vec(integrand, lo, hi, points=points or None,
                                  epsabs=1e-15, epsrel=1e-13, limit=2000)
    return value


def fiducial_cdf(t, pi_hat, n, epsilon):
    """P(theta* <= t) for every ``t`` (an array) given one release ``pi_hat``."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    mass_zero = stats.laplace.cdf(0.0, loc=pi_hat, scale=1.0 / (epsilon * n))
    inside = mass_zero + _interior(np.clip(t, 0.0, 1.0), pi_hat, n, epsilon, upper=False)
    return np.where(t < 0.0, 0.0, np.where(t >= 1.0, 1.0, inside))


def fiducial_sf(t, pi_hat, n, epsilon):
    """P(theta* >= t) for every ``t`` (an array) given one release ``pi_hat``."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    mass_one = stats.laplace.sf(1.0, loc=pi_hat, scale=1.0 / (epsilon * n))
    inside = mass_one + _interior(np.clip(t, 0.0, 1.0), pi_hat, n, epsilon, upper=True)
    return np.where(t <= 0.0, 1.0, np.where(t > 1.0, 0.0, inside))


def release_cut(theta, level, n, epsilon, upper):
    """The release ``c`` at which the one-sided p-value at ``theta`` equals ``level``.

    ``upper``: the test that rejects for large releases, p-value ``P(theta* <= theta |
    c)`` (decreasing in ``c``); otherwise ``P(theta* >= theta | c)`` (increasing).
    """
    if upper:
        def gap(c):
            return float(fiducial_cdf(theta, c, n, epsilon)[0]) - level
    else:
        def gap(c):
            return float(fiducial_sf(theta, c, n, epsilon)[0]) - level
    return optimize.brentq(gap, -1.0, 2.0, xtol=1e-15, rtol=1e-15, maxiter=200)
