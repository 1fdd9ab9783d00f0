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

import math

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
    with np.errstate(invalid="ignore"):  # s = -inf: F0 = 0 comes from the geometric factor
        f = np.clip(s - k + 0.5, 0.0, 1.0)
    f = np.where(np.isnan(f), 0.5, f)
    log1m_b = np.log(-np.expm1(log_b))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # -inf is the exact limit
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
    log_q_half = np.log(q) - np.log(2.0)  # q / 2 may underflow for a subnormal q
    log1m_q = np.log1p(-q)
    return _truncate_log(lower, log_q_half, log1m_q), _truncate_log(upper, log_q_half, log1m_q)


def _quantile0_lower(log_v, log_b):
    """Q0(v) of the untruncated Tulap(0, b) for log v <= log(1/2), from log v.

    For v <= 1/2, with L = log(v (1 + b)) / log b, j = floor(L) and k = -j:
    Q0(v) = k - 1/2 + (v (1 + b) b**k - b) / (1 - b).  The last fraction equals
    (b**frac(L) - b) / (1 - b) = b**frac(L) expm1(log_b (1 - frac(L))) / expm1(log_b):
    no overflow for tiny b, no cancellation as b -> 1.  v = 0 gives -inf.
    """
    if log_b == -np.inf:  # b = 0: the law is Uniform(-1/2, 1/2)
        return np.exp(log_v) - 0.5
    lv1 = log_v + np.log1p(np.exp(log_b))
    big = lv1 / log_b
    finite = np.isfinite(big)
    big = np.where(finite, big, 0.0)
    j = np.floor(big)
    frac = big - j
    f = np.exp(log_b * frac) * np.expm1(log_b * (1.0 - frac)) / np.expm1(log_b)
    return np.where(finite, -j - 0.5 + np.clip(f, 0.0, 1.0), -np.inf)


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
    in log space: relative error below 1e-13 down to 1e-300 (worst 6.7e-14 over
    epsilon in 0.05..10, delta in 0..0.2, |x| <= 3000), checked against an mpmath
    computation at 60 digits in ``tests/reference/make_tulap.py``.  Near the ends
    of a truncated support ``F0 - q/2`` cancels: there the error grows like
    ``F0 / (F0 - q/2)`` ulps, which is the problem's conditioning.

    Sampling is exact: ``floor(E1/lam) - floor(E2/lam) + U - 1/2`` untruncated, and
    rejection from it (``q <= 0.35``) or inversion (``q > 0.35``) when truncated.

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
        (Awan & Slavkovic 2018, Thm. 2.4), evaluated with ``1 - b = -expm1(-epsilon)``.

        Examples
        --------
        >>> law = Tulap.from_privacy(1.0, delta=0.01)
        >>> round(law.q, 10)
        0.0115056141
        """
        epsilon = _check_epsilon(epsilon)
        delta = _check_delta(delta)
        median = _check_real(median, "median")
        # 2 delta b / (1 - b + 2 delta b) written with b = exp(-epsilon): no overflow.
        b = np.exp(-epsilon)
        q = float(2.0 * delta * b / (-np.expm1(-epsilon) + 2.0 * delta * b)) if delta > 0 else 0.0
        if q >= 1.0:
            raise ValueError(
                f"`epsilon` = {epsilon!r} with `delta` = {delta!r} gives a Tulap law that doubles "
                "cannot represent: its truncated mass q = 2 delta b / (1 - b + 2 delta b) rounds to 1. "
                "Use a larger epsilon or a smaller delta."
            )
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
        half = _half_width(self._log_b, self._q)
        return (self._median - half, self._median + half)

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
            # compare the centred t with the half-width (as the sampler does), so a
            # non-zero median adds no rounding to the support test
            out = np.where(np.abs(t) > _half_width(self._log_b, self._q), -np.inf, out)
        return _scalar_or_array(out)

    def pdf(self, x):
        """Density: ``(1-b)/(1+b) b**|[x - m]| / (1 - q)`` on the support."""
        return _scalar_or_array(np.exp(self.logpdf(x)))

    def icdf(self, p):
        """Quantile function (inverse cdf); ``icdf(0)`` and ``icdf(1)`` are the support ends."""
        p = _as_real_array(p, "p")
        if np.any((p < 0) | (p > 1)):
            raise ValueError(f"`p` must lie in [0, 1]; got {float(p[(p < 0) | (p > 1)].flat[0])!r}.")
        out = self._median + _quantile(p, self._log_b, self._q)
        if self._q > 0.0:  # the ends are the support's (computed without cancellation)
            low, high = self.support
            out = np.where(p == 0.0, low, np.where(p == 1.0, high, out))
        return _scalar_or_array(out)

    def mean(self):
        """The median, by symmetry."""
        return self._median

    def var(self):
        """Variance: ``2b/(1-b)**2 + 1/12`` untruncated; an exact closed form when q > 0.

        Truncated, ``Var = 2 / (1 - q) * integral_0^c x**2 f0(x) dx`` with ``c`` the
        upper end of the support and ``f0`` piecewise constant on the cells
        ``[k - 1/2, k + 1/2)``.  See :func:`_truncated_var` for the evaluation.
        """
        b = np.exp(self._log_b)
        one_m_b = -np.expm1(self._log_b)
        full = 2.0 * b / one_m_b**2 + 1.0 / 12.0
        if self._q == 0.0:
            return float(full)
        return _truncated_var(self._log_b, self._q, _half_width(self._log_b, self._q))

    def sample(self, shape=(), *, rng=None):
        """Draw variates exactly.

        Untruncated: ``floor(E1 / lam) - floor(E2 / lam) + U - 1/2`` with ``E1, E2``
        standard exponential and ``lam = -log b`` (``floor(E / lam)`` is exactly
        geometric with ratio b).  Truncated with ``q <= 0.35``: untruncated draws
        kept when inside the support (rejection, exact since the truncated law is
        the untruncated one conditioned on its support); ``q > 0.35``: inversion of
        a uniform through ``icdf``.

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


_DIRECT_CELLS = 1_000_000


def _masses(epsilon, c):
    """``(P(|N0| > c), P(|N0| <= c))`` of the untruncated Tulap(0, exp(-epsilon)), each without cancellation."""
    b = math.exp(-epsilon)
    omb = -math.expm1(-epsilon)
    if c < 0.5:
        return (2.0 * b + omb * (1.0 - 2.0 * c)) / (1.0 + b), 2.0 * c * omb / (1.0 + b)
    m = math.floor(c + 0.5)
    phi = c - (m - 0.5)
    b_m = math.exp(-m * epsilon)
    tail = 2.0 * b_m * (b + omb * (1.0 - phi)) / (1.0 + b)
    kept = (-math.expm1(-m * epsilon) - b * math.expm1(-(m - 1) * epsilon) + 2.0 * omb * b_m * phi) / (1.0 + b)
    return tail, kept


def _support_end(epsilon, q, one_minus_q):
    """The ``c`` with ``P(|N0| > c) = q`` (``0 < q < 1``), accurate in relative terms."""
    b = math.exp(-epsilon)
    omb = -math.expm1(-epsilon)
    if q <= 0.5:
        return -float(_quantile(0.0, -epsilon, q))
    if one_minus_q <= omb / (1.0 + b):  # inside the central cell
        return one_minus_q * (1.0 + b) / (2.0 * omb)
    m = max(1, math.floor(math.log1p(-((1.0 + b) * one_minus_q + omb) / 2.0) / -epsilon))
    while _masses(epsilon, m + 0.5)[1] <= one_minus_q:
        m += 1
    while m > 1 and _masses(epsilon, m - 0.5)[1] > one_minus_q:
        m -= 1
    kept_before = -math.expm1(-m * epsilon) - b * math.expm1(-(m - 1) * epsilon)
    phi = ((1.0 + b) * one_minus_q - kept_before) / (2.0 * omb * math.exp(-m * epsilon))
    return m - 0.5 + min(max(phi, 0.0), 1.0)


def _half_width(log_b, q):
    """End ``c`` of the support of Tulap(0, b, q), q > 0: P(|N0| > c) = q.

    For q > 1/2 (tiny epsilon with a large delta) the quantile formula cancels;
    the kept-mass form is used there (``1 - q`` is exact for q >= 1/2).
    """
    if q > 0.5:
        return _support_end(-log_b, q, 1.0 - q)
    return -float(_quantile(0.0, log_b, q))


def _truncated_var(log_b, q, c):
    """Variance of Tulap(0, b, q) whose support is [-c, c]; inputs valid, q > 0.

    Two exact forms of ``integral_0^c x**2 f0(x) dx`` (K = [c], m = K + 1):

    * complement: ``Var0 / 2 - E0[N**2; N > c]``, the tail being the partial cell
      plus ``b**m / (1 + b) (m**2 + 2 m b/(1-b) + b (1+b)/(1-b)**2 + 1/12)``.  It
      cancels when the kept part is a tiny share of ``Var0`` (q near 1 with b near 1:
      epsilon = 1e-9, delta = 0.1 lost every digit), so it is used only when the
      cancellation costs less than three digits;
    * otherwise the kept cells directly, ``(1-b)/(1+b) (1/24 + sum_{k=1}^{K-1} b**k (k**2
      + 1/12) + b**K (c**3 - (K - 1/2)**3) / 3)``, summing the cells one by one up to
      a million of them and beyond that with the series
      ``sum_{k<K} k**2 b**k = K**3 sum_j (K log b)**j / j! * P_{j+2}(K) / K**(j+3)``
      (P_s the power sums, Faulhaber's formula), which converges fast because this
      branch is only reached when ``K |log b|`` is small.
    Checked against mpmath quadrature in ``tests/reference/``.
    """
    b = np.exp(log_b)
    one_m_b = -np.expm1(log_b)
    full = 2.0 * b / one_m_b**2 + 1.0 / 12.0
    big_k = float(np.rint(c))
    p_k = np.exp(big_k * log_b)  # b**K
    partial_k = p_k * ((big_k + 0.5) ** 3 - c**3) / 3.0
    m = big_k + 1.0
    sq = m**2 + 2.0 * m * b / one_m_b + b * (1.0 + b) / one_m_b**2 + 1.0 / 12.0
    tail = one_m_b / (1.0 + b) * partial_k + np.exp(m * log_b) / (1.0 + b) * sq
    kept = full - 2.0 * tail
    if kept > 1e-3 * full:
        return float(kept / (1.0 - q))
    if big_k == 0.0:
        inner = c**3 / 3.0
    else:
        inner = 1.0 / 24.0 + _cell_sum(log_b, int(big_k)) + p_k * (c**3 - (big_k - 0.5) ** 3) / 3.0
    return float(2.0 * one_m_b / (1.0 + b) * inner / (1.0 - q))


def _cell_sum(log_b, big_k):
    """sum_{k=1}^{K-1} b**k (k**2 + 1/12), accurate for b near 1."""
    if big_k - 1 <= _DIRECT_CELLS:
        k = np.arange(1.0, big_k)
        return float(np.sum(np.exp(k * log_b) * (k * k + 1.0 / 12.0)))
    from scipy.special import bernoulli, comb

    kk = float(big_k)
    y = kk * log_b
    n_terms = 60
    bern = bernoulli(12)
    bern[1] = -0.5  # power sums over k = 0..K-1
    total, term = 0.0, 1.0
    for j in range(n_terms):
        s = j + 2
        i = np.arange(0, min(s, 11) + 1)
        phi = np.sum(comb(s + 1, i) * bern[i] * kk ** (-i)) / (s + 1)
        total += term * phi
        term *= y / (j + 1)
    m0 = np.expm1(y) / np.expm1(log_b)  # sum_{k=0}^{K-1} b**k
    return float(kk**3 * total + (m0 - 1.0) / 12.0)


#: Most variates one call to :meth:`Tulap.sample` draws: about 30 bytes each across the
#: working arrays (2**27 draws: ~4 GB), refused before anything is allocated.
_MAX_DRAWS = 1 << 27


def _check_shape(shape):
    if isinstance(shape, (tuple, list)):
        shape = tuple(_check_int(s, "shape", minimum=0) for s in shape)
    else:
        shape = (_check_int(shape, "shape", minimum=0),)
    total = math.prod(shape)
    if total > _MAX_DRAWS:
        raise ValueError(
            f"`shape` must hold at most {_MAX_DRAWS:_} draws in one call; got {shape} "
            f"({total:_} draws). Draw in batches."
        )
    return shape


# Above this truncated mass rejection wastes more than inversion costs (benchmarks/bench_tulap.py).
_REJECTION_MAX_Q = 0.35


def _sample(gen, shape, median, log_b, q):
    """Kernel of :meth:`Tulap.sample`; ``gen`` is a Generator, inputs are valid.

    q = 0: ``floor(E1/lam) - floor(E2/lam) + U - 1/2``, exact (floor(E/lam) is
    geometric with ratio b = exp(-lam)).  0 < q <= 0.35: the truncated law is the
    untruncated one conditioned on the support [-c, c], so untruncated draws are
    generated in vectorised batches and those inside the support kept (acceptance
    probability 1 - q; the kept values, in order, are iid from the truncated law).
    q > 0.35: inversion of a uniform through the quantile function.
    """
    n_draws = int(np.prod(shape, dtype=np.int64))
    if q == 0.0:
        out = _sample0(gen, n_draws, log_b)
    elif q > _REJECTION_MAX_Q:
        out = _quantile(gen.random(n_draws), log_b, q)
    else:
        c = -float(_quantile(0.0, log_b, q))
        out = np.empty(n_draws)
        filled = 0
        while filled < n_draws:
            need = n_draws - filled
            # mean + 6 sd of the number of draws needed, so one batch nearly always suffices
            batch = int(need / (1.0 - q) + 6.0 * np.sqrt(need * q) / (1.0 - q)) + 16
            draws = _sample0(gen, batch, log_b)
            kept = draws[np.abs(draws) <= c]
            take = min(need, kept.size)
            out[filled:filled + take] = kept[:take]
            filled += take
    out = out.reshape(shape)
    if median != 0.0:
        out += median
    return out


def _sample0(gen, n_draws, log_b):
    """n_draws iid Tulap(0, b, 0) variates, in place to save memory traffic."""
    lam = -log_b
    g1 = gen.standard_exponential(n_draws)
    g1 /= lam
    np.floor(g1, out=g1)
    work = gen.standard_exponential(n_draws)
    work /= lam
    np.floor(work, out=work)
    g1 -= work
    gen.random(out=work)
    g1 += work
    g1 -= 0.5
    return g1


# -- log-space interface for the DP-UMP kernels ------------------------------------------------

def _log_cdf(t, log_b, q):
    """log F(t) of Tulap(0, b, q), elementwise over a finite array ``t``: the one call the
    DP-UMP kernels make per sum (fewer array passes than ``_log_tails``, same formulas).

    With s = -|t|, k = [s] and f = s - k + 1/2: log F0(s) = -k log b + log(b + (1 - b) f)
    - log(1 + b) (no cancellation: both summands are positive), and for t > 0
    log F0(t) = log(1 - F0(-t)) by ``_log1mexp``; truncation as in ``_log_tails``.
    """
    t = np.asarray(t, dtype=float)
    s = -np.abs(t)
    k = np.rint(s)
    f = s - k
    f += 0.5
    b = float(np.exp(log_b))
    if log_b > -700.0:
        inner = np.log(b + float(-np.expm1(log_b)) * f)
    else:  # b underflows: log(b + (1 - b) f) = logaddexp(log b, log f)
        with np.errstate(divide="ignore"):
            inner = np.logaddexp(log_b, np.log1p(-b) + np.log(f))
    with np.errstate(invalid="ignore"):
        small = inner - k * log_b
    small -= float(np.log1p(b))
    np.minimum(small, 0.0, out=small)
    out = np.where(t <= 0.0, small, _log1mexp(small))
    if q == 0.0:
        return out
    return _truncate_log(out, np.log(q) - np.log(2.0), np.log1p(-q))
