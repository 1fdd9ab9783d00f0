"""The (truncated) Tulap law of Awan & Slavkovic (2018).

``N = G1 - G2 + U + m`` with ``G1, G2`` iid geometric on {0, 1, ...},
``P(G = k) = (1 - b) b**k``, and ``U ~ Uniform(-1/2, 1/2)``; truncation keeps the
central ``1 - q`` of the mass.  Adding ``Tulap(0, b = exp(-epsilon), q)`` to a count
gives (epsilon, delta)-DP when ``q = 2 delta b / (1 - b + 2 delta b)``.

Internally the law is parametrised by ``log_b = log(b)`` (``-epsilon``) so that
``epsilon`` down to 1e-12 and up to thousands keeps full precision: ``1 - b`` is
``-expm1(log_b)`` and ``b`` may underflow without harm.  Both tails are computed
in log space directly, never as ``1 - cdf``.

The private functions ``_log_tails0``, ``_log_tails`` and ``_quantile0`` are the
vectorised kernels that the DP-UMP inference code calls; they assume valid input.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    _as_real_array,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_real,
    _check_rng,
    _scalar_or_array,
)

__all__ = ["Tulap"]

_LOG_HALF = -np.log(2.0)


def _log1mexp(x):
    """log(1 - exp(x)) for x <= 0, accurate everywhere (Maechler 2012)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > _LOG_HALF, np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def _log_lower0(s, log_b):
    """log F0(s) of the untruncated Tulap(0, b) for s <= 0 (the smaller tail).

    With k = [s] (nearest integer, k <= 0) and f = s - k + 1/2 in [0, 1]:
    F0(s) = b**(-k) / (1 + b) * (b + (1 - b) f)   (Awan & Slavkovic 2018, Def. 2.3).
    """
    k = np.rint(s)
    f = np.clip(s - k + 0.5, 0.0, 1.0)
    log1m_b = np.log(-np.expm1(log_b))
    with np.errstate(divide="ignore", invalid="ignore"):
        geometric = np.where(k == 0.0, 0.0, -k * log_b)
        inner = np.logaddexp(log_b, log1m_b + np.log(f))
    return geometric - np.log1p(np.exp(log_b)) + inner


def _log_tails0(t, log_b):
    """(log F0(t), log(1 - F0(t))) of the untruncated law, each without cancellation."""
    t = np.asarray(t, dtype=float)
    small = _log_lower0(-np.abs(t), log_b)
    large = _log1mexp(small)
    lower = np.where(t <= 0, small, large)
    upper = np.where(t <= 0, large, small)
    return lower, upper


def _truncate_log(log_f0, log_q_half, log1m_q):
    """log((F0 - q/2) / (1 - q)) given log F0, clipped to [-inf, 0] (the law's support)."""
    if log_q_half == -np.inf:
        return log_f0
    with np.errstate(divide="ignore", invalid="ignore"):
        diff = log_f0 + _log1mexp(np.minimum(log_q_half - log_f0, 0.0))
    return np.where(log_f0 > log_q_half, np.minimum(diff - log1m_q, 0.0), -np.inf)


def _log_tails(t, log_b, q):
    """(log F(t), log(1 - F(t))) of Tulap(0, b, q): the kernel behind ``cdf``/``ccdf``."""
    lower, upper = _log_tails0(t, log_b)
    if q == 0.0:
        return lower, upper
    log_q_half = np.log(q / 2.0)
    log1m_q = np.log1p(-q)
    return _truncate_log(lower, log_q_half, log1m_q), _truncate_log(upper, log_q_half, log1m_q)


def _quantile0_lower(log_v, log_b):
    """Q0(v) of the untruncated Tulap(0, b) for log v <= log(1/2), from log v.

    For v <= 1/2, with L = log(v (1 + b)) / log b, j = floor(L) and k = -j:
    Q0(v) = k - 1/2 + (v (1 + b) b**k - b) / (1 - b).  The last fraction is
    rewritten as b expm1(log_b (frac(L) - 1)) / (1 - b) to keep precision as b -> 1.
    """
    if log_b == -np.inf:  # b = 0: the law is Uniform(-1/2, 1/2)
        return np.exp(log_v) - 0.5
    lv1 = log_v + np.log1p(np.exp(log_b))
    big = lv1 / log_b
    j = np.floor(big)
    frac = big - j
    f = -np.exp(log_b) * np.expm1(log_b * (frac - 1.0)) / np.expm1(log_b)
    return -j - 0.5 + np.clip(f, 0.0, 1.0)


def _quantile(u, log_b, q):
    """Q(u) of Tulap(0, b, q) for u in [0, 1] (array), via the symmetric lower half."""
    u = np.asarray(u, dtype=float)
    lower_u = np.minimum(u, 1.0 - u)  # exact for u >= 1/2 (Sterbenz)
    with np.errstate(divide="ignore"):
        log_v = np.log(q / 2.0 + (1.0 - q) * lower_u)
    lower_q = _quantile0_lower(np.minimum(log_v, _LOG_HALF), log_b)
    return np.where(u <= 0.5, lower_q, -lower_q)


class Tulap:
    """The truncated uniform-Laplace (Tulap) law, ``Tulap(median, b, q)``.

    Parameters
    ----------
    median : float, default 0.0
        Centre of symmetry ``m`` (also its mean).
    b : float
        Geometric ratio in (0, 1); ``b = exp(-epsilon)``.  Required.
    q : float, default 0.0
        Truncated mass in [0, 1): the law keeps its central ``1 - q``.

    Notes
    -----
    ``N = G1 - G2 + U + m``, ``G1, G2`` iid geometric with ``P(G = k) = (1-b) b**k``,
    ``U ~ Uniform(-1/2, 1/2)``.  For ``t = x - m <= 0`` the untruncated cdf is
    ``F0(t) = b**(-[t]) / (1 + b) * (b + (t - [t] + 1/2)(1 - b))`` and
    ``F0(t) = 1 - F0(-t)`` above 0; the density is ``(1-b)/(1+b) b**|[t]|``.
    Truncation: ``F(t) = (F0(t) - q/2) / (1 - q)`` on the support.  Tails are computed
    in log space (relative error about 1e-15 down to 1e-300, checked against mpmath
    at 50 digits in ``tests/reference/``).

    As ``b -> 0`` the law tends to Uniform(m - 1/2, m + 1/2); ``b`` exactly 0 or 1,
    or ``q`` outside [0, 1), raise ``ValueError``.

    References
    ----------
    .. [1] Awan, J. and Slavkovic, A. (2018). Differentially private uniformly most
       powerful tests for binomial data. NeurIPS 31.

    Examples
    --------
    >>> from dpinfer import Tulap
    >>> law = Tulap.from_privacy(epsilon=1.0)
    >>> round(float(law.cdf(0.0)), 12)
    0.5
    >>> float(law.var()) == 2 * law.b / (1 - law.b) ** 2 + 1 / 12
    True
    >>> law.sample(3, rng=2024).shape
    (3,)
    """

    def __init__(self, median=0.0, b=None, q=0.0):
        if b is None:
            raise TypeError("`b` is required: Tulap(median, b, q) with b in (0, 1); "
                            "or build it with Tulap.from_privacy(epsilon, delta).")
        b = _check_real(b, "b")
        if not (0.0 < b < 1.0):
            raise ValueError(f"`b` must lie in the open interval (0, 1); got {b!r}.")
        self._init(_check_real(median, "median"), float(np.log(b)), self._checked_q(q))

    @staticmethod
    def _checked_q(q):
        q = _check_real(q, "q")
        if not (0.0 <= q < 1.0):
            raise ValueError(f"`q` must lie in [0, 1); got {q!r}.")
        return q

    def _init(self, median, log_b, q):
        self._median = median
        self._log_b = log_b
        self._q = q

    @classmethod
    def _from_log_b(cls, median, log_b, q):
        law = cls.__new__(cls)
        law._init(float(median), float(log_b), float(q))
        return law

    @classmethod
    def from_privacy(cls, epsilon, delta=0.0, median=0.0):
        """The Tulap law that makes a count (epsilon, delta)-DP.

        ``b = exp(-epsilon)`` and ``q = 2 delta b / (1 - b + 2 delta b)``
        (Awan & Slavkovic 2018, Thm. 2.4), computed as ``2 delta / (expm1(epsilon) + 2 delta)``.

        Examples
        --------
        >>> law = Tulap.from_privacy(1.0, delta=0.01)
        >>> round(law.q, 10)
        0.0115097213
        """
        epsilon = _check_epsilon(epsilon)
        delta = _check_delta(delta)
        median = _check_real(median, "median")
        q = 2.0 * delta / (np.expm1(epsilon) + 2.0 * delta) if delta > 0 else 0.0
        return cls._from_log_b(median, -epsilon, q)

    # -- parameters ---------------------------------------------------------
    @property
    def median(self):
        """Centre of symmetry."""
        return self._median

    @property
    def b(self):
        """Geometric ratio ``exp(-epsilon)`` (may underflow to 0.0 for epsilon > 745)."""
        return float(np.exp(self._log_b))

    @property
    def q(self):
        """Truncated mass."""
        return self._q

    @property
    def epsilon(self):
        """``-log(b)``."""
        return -self._log_b

    @property
    def support(self):
        """``(low, high)``: infinite when ``q == 0``."""
        if self._q == 0.0:
            return (-np.inf, np.inf)
        half = float(_quantile(0.0, self._log_b, self._q))
        return (self._median + half, self._median - half)

    def __repr__(self):
        return f"Tulap(median={self._median!r}, b={self.b!r}, q={self._q!r})"

    # -- law ----------------------------------------------------------------
    def _t(self, x):
        return _as_real_array(x, "x", finite=False) - self._median

    def logcdf(self, x):
        """log P(N <= x)."""
        return _scalar_or_array(_log_tails(self._t(x), self._log_b, self._q)[0])

    def logccdf(self, x):
        """log P(N > x), computed directly (no ``1 - cdf``)."""
        return _scalar_or_array(_log_tails(self._t(x), self._log_b, self._q)[1])

    def cdf(self, x):
        """P(N <= x)."""
        return _scalar_or_array(np.exp(_log_tails(self._t(x), self._log_b, self._q)[0]))

    def ccdf(self, x):
        """P(N > x), the upper tail with full relative accuracy."""
        return _scalar_or_array(np.exp(_log_tails(self._t(x), self._log_b, self._q)[1]))

    def logpdf(self, x):
        """log density; -inf outside the support."""
        t = self._t(x)
        log_norm = np.log(-np.expm1(self._log_b)) - np.log1p(np.exp(self._log_b)) - np.log1p(-self._q)
        k = np.abs(np.rint(t))
        with np.errstate(invalid="ignore"):
            out = np.where(k == 0.0, 0.0, k * self._log_b) + log_norm
        if self._q > 0.0:
            low, high = self.support
            x_arr = t + self._median
            out = np.where((x_arr < low) | (x_arr > high), -np.inf, out)
        return _scalar_or_array(out)

    def pdf(self, x):
        """Density: ``(1-b)/(1+b) b**|[x - m]| / (1 - q)`` on the support."""
        return _scalar_or_array(np.exp(self.logpdf(x)))

    def icdf(self, p):
        """Quantile function (inverse cdf); ``icdf(0)`` and ``icdf(1)`` are the support ends."""
        p = _as_real_array(p, "p")
        if np.any((p < 0) | (p > 1)):
            raise ValueError(f"`p` must lie in [0, 1]; got {p[(p < 0) | (p > 1)].flat[0]!r}.")
        return _scalar_or_array(self._median + _quantile(p, self._log_b, self._q))

    def mean(self):
        """The median, by symmetry."""
        return self._median

    def var(self):
        """Variance: ``2b/(1-b)**2 + 1/12`` untruncated; an exact closed form when q > 0."""
        b = np.exp(self._log_b)
        one_m_b = -np.expm1(self._log_b)
        full = 2.0 * b / one_m_b**2 + 1.0 / 12.0
        if self._q == 0.0:
            return float(full)
        # E0[N^2; N > c] in closed form, c = upper truncation point in cell K = [c].
        c = -float(_quantile(0.0, self._log_b, self._q))
        big_k = np.rint(c)
        p_k = one_m_b / (1.0 + b) * np.exp(big_k * self._log_b)
        partial = p_k * ((big_k + 0.5) ** 3 - c**3) / 3.0
        m = big_k + 1.0
        # sum_{k >= m} b^k (k^2 + 1/12) (1-b)/(1+b), from sum_j b^j (j + m)^2.
        geo = np.exp(m * self._log_b) / (1.0 + b)
        sq = m**2 + 2.0 * m * b / one_m_b + b * (1.0 + b) / one_m_b**2 + 1.0 / 12.0
        tail = partial + geo * sq
        return float((full - 2.0 * tail) / (1.0 - self._q))

    def sample(self, shape=(), *, rng=None):
        """Draw variates exactly.

        Untruncated: ``floor(E1 / lam) - floor(E2 / lam) + U - 1/2`` with ``E1, E2``
        standard exponential and ``lam = -log b`` (``floor(E / lam)`` is exactly
        geometric with ratio b).  Truncated: inversion of a uniform through ``icdf``.

        Parameters
        ----------
        shape : int or tuple of int, default ()
        rng : None, int, SeedSequence or numpy.random.Generator
            Source of randomness.  A seed is for reproducible research only: never
            use a seeded generator for a real release.

        Returns
        -------
        float or ndarray
        """
        shape = _check_shape(shape)
        gen = _check_rng(rng)
        return _scalar_or_array(_sample(gen, shape, self._median, self._log_b, self._q))


def _check_shape(shape):
    if isinstance(shape, (tuple, list)):
        return tuple(_check_int(s, "shape") for s in shape)
    return (_check_int(shape, "shape"),)


def _sample(gen, shape, median, log_b, q):
    """Kernel of :meth:`Tulap.sample`; ``gen`` is a Generator, inputs are valid."""
    if q > 0.0:
        return median + _quantile(gen.random(shape), log_b, q)
    lam = -log_b
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = np.floor(gen.standard_exponential(shape) / lam)
        g2 = np.floor(gen.standard_exponential(shape) / lam)
    out = g1 - g2
    out += gen.random(shape)
    out += median - 0.5
    return out
