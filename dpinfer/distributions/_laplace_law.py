"""The Laplace law's package-internal interface: what the other parts of dpinfer call.

Package-internal (not in ``dpinfer.__all__``, not for users), the companion of
:mod:`dpinfer.distributions._tulap_law`: the normal approximation, DP-JIMI and the
operating-characteristic warnings reach the Laplace law only through the names
below, so no method re-derives its formulas.

**Parametrisation.**  ``Laplace(0, scale)``, density ``exp(-|x| / scale) / (2 scale)``;
a shifted law is reached through its argument.  ``scale`` always names the Laplace
scale (``1/epsilon`` for a count of sensitivity 1, ``1/(epsilon n)`` for a
proportion); ``b`` is reserved for the Tulap ratio.

**No cancellation.**  Both tails come from the smaller one,
``exp(-|x| / scale) / 2``, never as ``1 - F``; :func:`log_cdf` and :func:`log_sf`
keep a tail of 1e-300 (or far smaller) in log space.  Vectorised; kernels assume
valid input (``scale > 0``, float arrays; ``x = +-inf`` gives the exact limits).

=============================  =====================================================
:class:`LaplaceLaw`            the law, built once from its scale or its rate
``.pdf``, ``.cdf``, ``.sf``    the density, ``P(L <= x)``, ``P(L > x)``
``.log_cdf``, ``.log_sf``      their logarithms, without cancellation in either tail
``.kink_correction``           ``P(d + L beyond 0) - 1{d beyond 0}``, side +1 / -1
:func:`count_tail`             ``sum_x Binom(x; n, theta) P(x + L beyond c)``: the law
                               of a Laplace-noised binomial count, per row and cut
=============================  =====================================================

The formulas are elementary (e.g. Johnson, Kotz & Balakrishnan, *Continuous
Univariate Distributions* vol. 2, ch. 24); they are checked against
``scipy.stats.laplace`` and mpmath in ``tests/distributions/test_laplace_law.py``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ._binomial_rows import bernstein_window, binomial_rows

__all__ = []  # package-internal: the names below are imported explicitly

#: Binomial mass left out of :func:`count_tail`'s sums (each tail); below double
#: precision's smallest meaningful probability, so the sums are exact in floating point.
_BINOM_TAIL = 1e-300

#: Laplace tail terms farther than this many scales from a cut are below
#: exp(-700) / 2 < 1e-304 and are dropped.
_REACH = 700.0

#: Largest pmf matrix (rows x support points) :func:`count_tail` builds at once.
_BLOCK = 1 << 21

#: Largest ``n`` whose whole support :func:`count_tail` sums directly when the caller
#: accepts a warning's accuracy (a ``tail`` of 1e-15 or more): closed-form pmf rows
#: against the Laplace law's closed-form tails, no scipy call (a few times faster at the
#: thetas of one coverage check).
_DIRECT_N = 150


@dataclass(frozen=True)
class LaplaceLaw:
    """``Laplace(0, scale)``, its constants computed once.

    Build it with :meth:`from_scale` (DP-JIMI's proportion scale ``1/(epsilon n)``)
    or :meth:`from_rate` (a count's ``epsilon``, the inverse scale).  Arguments are
    standardised with the parameter the law was given exactly (``x / scale`` or
    ``x * rate``), so no rounding of ``1 / scale`` enters.
    """

    scale: float
    rate: float
    by_rate: bool = False

    @classmethod
    def from_scale(cls, scale):
        return cls(float(scale), 1.0 / float(scale), False)

    @classmethod
    def from_rate(cls, rate):
        return cls(1.0 / float(rate), float(rate), True)

    def standardise(self, x):
        """``x / scale`` as an array (``+-inf`` stays infinite)."""
        x = np.asarray(x, dtype=float)
        with np.errstate(over="ignore"):
            return x * self.rate if self.by_rate else x / self.scale

    def pdf(self, x):
        """Density ``exp(-|x| / scale) / (2 scale)``."""
        return 0.5 * np.exp(-np.abs(self.standardise(x))) / self.scale

    def cdf(self, x):
        """``P(L <= x)`` (vectorised, no cancellation in either tail)."""
        z = self.standardise(x)
        half = 0.5 * np.exp(-np.abs(z))
        return np.where(z < 0, half, 1.0 - half)

    def sf(self, x):
        """``P(L > x)``, that is ``cdf(-x)``."""
        return self.cdf(-np.asarray(x, dtype=float))

    def log_cdf(self, x):
        """``log P(L <= x)``: ``x/scale - log 2`` below 0, ``log1p(-exp(-x/scale)/2)`` above."""
        z = self.standardise(x)
        return np.where(z < 0, z - np.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))

    def log_sf(self, x):
        """``log P(L > x)``, that is ``log_cdf(-x)``."""
        return self.log_cdf(-np.asarray(x, dtype=float))

    def kink_correction(self, d, side):
        """``P(d + L beyond 0) - 1{d strictly beyond 0}`` ("beyond": above for side +1, below for -1).

        The closed form ``+-exp(-|d| / scale) / 2``: positive on the accepting side
        (``d <= 0`` for side +1), negative across it; it decays geometrically, so a
        binomial sum of it runs over a window of the cut only.
        """
        d = np.asarray(d, dtype=float)
        half = 0.5 * np.exp(-np.abs(self.standardise(d)))
        accept_side = (d <= 0) if side > 0 else (d >= 0)
        return np.where(accept_side, half, -half)

    def count_tail(self, theta, n, cuts, **accuracy):
        """``sum_x Binom(x; n, theta) P(x + L beyond c)`` summed over the ``(c, side)`` cuts.

        See :func:`count_tail`.
        """
        return count_tail(theta, n, cuts, self, **accuracy)


def _windowed_pmf_sums(theta, n, lo, hi, weight, closed_form=False):
    """``sum_{x=lo_i}^{hi_i} Binom(x; n, theta_i) weight(x, rows)_i`` per row (0 if lo_i > hi_i).

    Rows are taken in order of their windows and grouped while the pmf matrix
    (rows x union window) stays below ``_BLOCK`` entries and the union window is at
    most 1.25 times the widest own window (little work wasted on padding).
    ``weight(x, rows)`` returns a vector over ``x`` (the same for every row) or a
    matrix ``(rows, x)``.  ``closed_form``: the pmf rows from
    :func:`~dpinfer.distributions._binomial_rows.binomial_rows` (a warning's accuracy),
    not scipy's.
    """
    from scipy.stats import binom  # imported on first use (start-up time)

    out = np.zeros(theta.size)
    live = np.flatnonzero(lo <= hi)
    order = live[np.argsort(lo[live], kind="stable")]
    start = 0
    while start < order.size:
        wlo, whi = lo[order[start]], hi[order[start]]
        widest = whi - wlo + 1.0
        stop = start + 1
        while stop < order.size:
            j = order[stop]
            nlo, nhi = min(wlo, lo[j]), max(whi, hi[j])
            nwidest = max(widest, hi[j] - lo[j] + 1.0)
            width = nhi - nlo + 1.0
            if (stop - start + 1) * width > _BLOCK or width > 1.25 * nwidest:
                break
            wlo, whi, widest, stop = nlo, nhi, nwidest, stop + 1
        idx = order[start:stop]
        x = np.arange(wlo, whi + 1.0)
        pmf = binomial_rows(n, theta[idx], x) if closed_form else binom.pmf(x[None, :], n, theta[idx, None])
        # rows whose own window is narrower than the union: zero the extra columns
        inside = (x[None, :] >= lo[idx, None]) & (x[None, :] <= hi[idx, None])
        w = weight(x, idx)
        pmf = np.where(inside, pmf, 0.0)
        out[idx] = pmf @ w if w.ndim == 1 else np.sum(pmf * w, axis=1)
        start = stop
    return out


def count_tail(theta, n, cuts, law, *, tail=_BINOM_TAIL, reach=_REACH):
    """``sum_x Binom(x; n, theta) P(x + L beyond c)``, summed over the ``(c, side)`` cuts.

    ``L ~ Laplace(0, scale)`` on the count scale; side +1 counts ``x + L > c``, side
    -1 ``x + L < c``.  ``theta`` is an array; each ``c`` is a scalar or an array of
    ``theta``'s shape (a cut per row).  Per cut: ``P(x + L beyond c) = 1{x beyond c} +
    kink_correction(x - c)``, so the sum is a binomial tail (scipy's
    ``binom.sf``/``binom.cdf``, accurate in the tails) plus a finite sum of the
    geometric correction over the x within ``700 scale`` of c and inside the
    binomial window holding all but 1e-300 of the mass in each tail: exact in
    double precision at a cost of ``O(min(sqrt(n), scale))`` per row.  A caller
    that needs less (a warning's coverage) passes a larger binomial ``tail`` and a
    shorter ``reach`` (in scales): the result is then accurate to about
    ``2 tail + exp(-reach)`` per cut, plus the rounding of closed-form pmf rows
    (:mod:`dpinfer.distributions._binomial_rows`: about 1e-14 absolute at n = 100, 2e-11
    at n = 1e6),
    which that accuracy (``tail >= 1e-15``) buys: the whole support summed directly up to
    ``n = _DIRECT_N``, above it Bernstein's window instead of scipy's discrete quantile
    and closed-form rows instead of ``binom.pmf`` (several times faster either way).
    """
    theta = np.asarray(theta, dtype=float)
    warning_accuracy = tail >= 1e-15
    if warning_accuracy and n <= _DIRECT_N:
        return _direct_count_tail(theta.ravel(), n, cuts, law).reshape(theta.shape)
    from scipy.stats import binom

    flat = theta.ravel()
    if warning_accuracy:
        lo, hi = bernstein_window(n, flat, tail)
    else:
        # Boost's discrete quantile warns "Unable to bracket root" for some ordinary
        # (n, theta), e.g. n = 1000, theta = 0.6346, because the cdf underflows next to
        # 1e-300; its best guess is still a valid window edge.  Silence that warning
        # and fall back to the full support should a guess ever be non-finite.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*do_inverse_discrete_quantile",
                                    category=RuntimeWarning)
            lo = binom.ppf(tail, n, flat)
            hi = n - binom.ppf(tail, n, 1.0 - flat)
        lo = np.where(np.isfinite(lo), lo, 0.0)
        hi = np.where(np.isfinite(hi), hi, float(n))
    reach = reach / law.rate
    total = np.zeros(flat.size)
    for c, side in cuts:
        per_row = np.ndim(c) > 0
        c = np.asarray(c, dtype=float).ravel() if per_row else float(c)
        if side > 0:
            total += binom.sf(np.floor(c), n, flat)          # P(X > c)
        else:
            total += binom.cdf(np.ceil(c) - 1.0, n, flat)    # P(X < c)
        wlo = np.maximum(lo, np.ceil(c - reach))
        whi = np.minimum(hi, np.floor(c + reach))
        if per_row:
            def weight(x, rows, c=c, side=side):
                return law.kink_correction(x[None, :] - c[rows, None], side)
        else:
            def weight(x, rows, c=c, side=side):
                return law.kink_correction(x - c, side)
        total += _windowed_pmf_sums(flat, n, wlo, whi, weight, closed_form=warning_accuracy)
    return np.clip(total, 0.0, 1.0).reshape(theta.shape)



def _direct_count_tail(theta, n, cuts, law):
    """:func:`count_tail` summed over the whole support ``0..n`` (``n <= _DIRECT_N``), rows at once.

    ``Binom(x; n, theta)`` in closed form (:func:`~dpinfer.distributions._binomial_rows.binomial_rows`,
    exact log-coefficients; ~1e-14 relative at n = 100) times ``P(x + L beyond c) = 1 - e^(-|d|/scale)/2`` when
    ``d`` (``x - c`` for side +1, ``c - x`` for side -1) is positive, else
    ``e^(-|d|/scale)/2``: the same terms as the windowed sum, none left out, so the
    result is accurate to about 1e-14 absolute (below :func:`count_tail`'s warning
    accuracy of ``2 tail + exp(-reach)`` for the ``tail`` of 1e-15 its callers pass,
    to the order of rounding).  ``theta`` in {0, 1} puts all the mass at 0 or n.
    """
    x = np.arange(n + 1.0)
    pmf = binomial_rows(n, theta, x)
    prob = 0.0
    for c, side in cuts:
        c = np.asarray(c, dtype=float).reshape(-1, 1)  # one cut, or a cut per row
        d = (x - c) if side > 0 else (c - x)  # finite here: no overflow, so no (slow) errstate
        d = d * law.rate if law.by_rate else d / law.scale
        half = 0.5 * np.exp(-np.abs(d))
        prob = prob + np.where(d > 0.0, 1.0 - half, half)
    return np.clip(np.einsum("ij,ij->i", pmf, np.broadcast_to(prob, pmf.shape)), 0.0, 1.0)
