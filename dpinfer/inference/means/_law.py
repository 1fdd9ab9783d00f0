"""The exact law of a released clipped mean (normal data, Laplace noise): moments, characteristic function, cdf.

A group's released mean is ``M + L``: ``M`` the mean of ``n`` values ``Y = clip(X, a, b)``,
``X ~ N(mu, sigma**2)``, and ``L ~ Laplace(0, lam)``, ``lam = (b - a) / (epsilon n)``.
A difference of groups is a signed sum of such terms.  Its cdf is computed from the
characteristic function (Gil-Pelaez 1951), which is exact: ``Y`` has atoms ``Phi(alpha)``
at ``a`` and ``Phi(-beta)`` at ``b`` and the normal density between, whose transform is
the Faddeeva function (``scipy.special.wofz``), so no step approximates the law.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Group", "clipped_moments", "difference_cdf"]

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
#: doubling pieces of the Gil-Pelaez integral before giving up (to 8 * 2**29 / sd(D))
_PIECES = 30


@dataclass(frozen=True)
class Group:
    """One group's planned release: ``n`` values N(mu, sigma**2) clipped to [lower, upper], noise scale
    ``lam`` on the mean (0: no noise), entering the difference with ``sign`` (+1 or -1)."""

    mu: float
    sigma: float
    lower: float
    upper: float
    n: int
    lam: float
    sign: float = 1.0


def clipped_moments(mu, sigma, lower, upper):
    """Mean and variance of ``clip(X, lower, upper)``, ``X ~ N(mu, sigma**2)`` (closed form)."""
    from scipy.special import ndtr

    al, be = (lower - mu) / sigma, (upper - mu) / sigma
    pa, pb = float(ndtr(al)), float(ndtr(-be))
    fa, fb = math.exp(-0.5 * al * al) / _SQRT2PI, math.exp(-0.5 * be * be) / _SQRT2PI
    mass = float(ndtr(be) - ndtr(al))
    # int_al^be z phi = fa - fb ; int_al^be z^2 phi = mass - (be fb - al fa)
    m1 = lower * pa + upper * pb + mu * mass + sigma * (fa - fb)
    m2 = (lower * lower * pa + upper * upper * pb + mu * mu * mass + 2.0 * mu * sigma * (fa - fb)
          + sigma * sigma * (mass - (be * fb - al * fa)))
    return m1, max(m2 - m1 * m1, 0.0)


def _below(u, mu, sigma, c):
    """``int_{-inf}^c exp(i u y) N(y; mu, sigma**2) dy`` for real ``u`` (array), without overflow.

    ``= 0.5 exp(i u c) exp(-g**2 / 2) w((-sigma u - i g) / sqrt 2)``, ``g = (c - mu) / sigma``,
    ``w`` the Faddeeva function; for ``g > 0`` the reflection ``w(z) = 2 exp(-z**2) - w(-z)``
    keeps ``w``'s argument in the upper half plane, where it is bounded.
    """
    from scipy.special import wofz

    g = (c - mu) / sigma
    if g <= 0.0:
        return 0.5 * np.exp(1j * u * c - 0.5 * g * g) * wofz((-sigma * u - 1j * g) / _SQRT2)
    whole = np.exp(1j * u * mu - 0.5 * (sigma * u) ** 2)
    return whole - 0.5 * np.exp(1j * u * c - 0.5 * g * g) * wofz((sigma * u + 1j * g) / _SQRT2)


def _cf_centred(u, grp, mean):
    """Characteristic function of ``Y - mean`` at ``u`` (array)."""
    from scipy.special import ndtr

    a, b = grp.lower, grp.upper
    pa = ndtr((a - grp.mu) / grp.sigma)
    pb = ndtr((grp.mu - b) / grp.sigma)
    cf = (pa * np.exp(1j * u * a) + pb * np.exp(1j * u * b)
          + _below(u, grp.mu, grp.sigma, b) - _below(u, grp.mu, grp.sigma, a))
    return cf * np.exp(-1j * u * mean)


def _tail_bound(t, groups):
    """An upper bound on ``(1/pi) int_t^inf |psi(s)| / s ds``, the Gil-Pelaez integral's rest beyond ``t``.

    Per group ``|phi_Y(u)| <= P(atoms) + (f(a) + f(b) + 2 max f) / |u|`` (integration by parts of
    the density between the bounds), so beyond ``t`` the sampling part is at most ``B = prod_k
    min(1, P_k + c_k n_k / t)**n_k``; the Laplace factors give at most ``1 / (lam**2 s**2)`` (the
    largest ``lam``), so the rest is at most ``B / (2 pi lam**2 t**2)``.  Without noise the rest is
    bounded by ``B / (pi n)`` when no group has atoms, else by ``B`` times 50 (the log of the range
    up to 1e20 t; the mass beyond is that of atoms of size ``prod P_k**n_k``).
    """
    from scipy.special import ndtr

    bound, atoms_all, n_min = 1.0, 1.0, min(g.n for g in groups)
    for g in groups:
        al, be = (g.lower - g.mu) / g.sigma, (g.upper - g.mu) / g.sigma
        atoms = float(ndtr(al) + ndtr(-be))
        c = (math.exp(-0.5 * al * al) + math.exp(-0.5 * be * be) + 2.0) / (_SQRT2PI * g.sigma)
        bound *= min(1.0, atoms + c * g.n / t) ** g.n
        atoms_all *= atoms
    lam = max(g.lam for g in groups)
    if lam > 0:
        return min(bound, 1.0) / (2.0 * math.pi * (lam * t) ** 2)
    return bound / (math.pi * n_min) if atoms_all == 0.0 else 50.0 * bound


def difference_cdf(x, groups):
    """``P(D <= x)`` for each ``x`` (a sequence), ``D = sum_k sign_k (M_k + L_k)``, and the numerical error bound.

    Gil-Pelaez: ``F(x) = 1/2 - (1/pi) int_0^inf Im(exp(-i t (x - m)) psi(t)) / t dt``, ``psi`` the
    characteristic function of ``D - m`` (``m`` its mean).  The integral runs over doubling pieces
    from ``8 / sd(D)`` until :func:`_tail_bound` (the rest) is below 1e-11 at the piece's end; the
    bound returned adds the pieces' error estimates (:func:`_panels`) and that rest.  ``(None, inf)``
    when the rest's bound stays above 1e-11 within :data:`_PIECES` pieces (few values per group,
    most of them clipped: the atoms keep ``|psi|`` from falling) or a piece's rule does not settle.
    ``D`` is continuous whenever one group has noise or clips less than all its values, so the cdf
    is a probability of ``D < x`` as well.
    """
    moments = [clipped_moments(g.mu, g.sigma, g.lower, g.upper) for g in groups]
    mean = sum(g.sign * m for g, (m, _) in zip(groups, moments))
    var = sum(v / g.n + 2.0 * g.lam ** 2 for g, (_, v) in zip(groups, moments))
    sd = math.sqrt(var) if var > 0 else 1.0

    def psi(t):
        out = np.ones_like(t, dtype=complex)
        for g, (m, _) in zip(groups, moments):
            out *= _cf_centred(g.sign * t / g.n, g, m) ** g.n / (1.0 + (g.lam * t) ** 2)
        return out

    if _tail_bound(8.0 / sd * 2.0 ** (_PIECES - 1), groups) >= 1e-11:
        return None, math.inf  # the rest's bound (decreasing in t) stays above 1e-11 within reach: say so at once
    shifts = np.asarray([float(xi) - mean for xi in x])

    def integrand(t):
        # rows: the points x; columns: t > 0 (Gauss-Legendre nodes never hit 0)
        return np.imag(np.exp(-1j * np.outer(shifts, t)) * psi(t)) / t

    lo, hi, total, err = 0.0, 8.0 / sd, np.zeros(len(shifts)), 0.0
    for _ in range(_PIECES):
        value, e = _panels(integrand, lo, hi)
        if value is None:
            return None, math.inf  # the piece's rule did not settle: not computed here
        total += value
        err += e
        tail = _tail_bound(hi, groups)
        if tail < 1e-11:
            break
        lo, hi = hi, 2.0 * hi
    else:
        return None, math.inf  # the rest's bound did not fall within reach: not computed here
    results = np.clip(0.5 - total / math.pi, 0.0, 1.0)
    return results, float(err / math.pi + tail)


def _panels(f, lo, hi):
    """``int_lo^hi f``, f vectorised (rows of values per t), by composite 16-point Gauss-Legendre.

    The panels double (16 to 8192) until two successive sums agree to 1e-13 absolute plus 1e-12
    relative; returns ``(sums, their difference's largest entry)`` (the error estimate), or
    ``(None, inf)`` when they never agree.
    """
    nodes, weights = np.polynomial.legendre.leggauss(16)
    previous = None
    m = 16
    while m <= 8192:
        edges = np.linspace(lo, hi, m + 1)
        half = 0.5 * (edges[1:] - edges[:-1])
        mid = 0.5 * (edges[1:] + edges[:-1])
        t = (mid[:, None] + half[:, None] * nodes[None, :]).ravel()
        w = (half[:, None] * weights[None, :]).ravel()
        current = f(t) @ w
        if previous is not None:
            diff = float(np.max(np.abs(current - previous)))
            if diff <= 1e-13 + 1e-12 * float(np.max(np.abs(current))):
                return current, diff
        previous = current
        m *= 2
    return None, math.inf


