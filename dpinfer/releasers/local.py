"""Local-DP releasers for categorical and bounded real data.

Each respondent privatizes their own answer before it leaves their hands (the
*local* model), so the guarantee holds without trusting the collector: every
report is epsilon-DP with respect to that respondent's own input, whatever the
other respondents do.  The issue text and Duchi, Jordan & Wainwright (2018) call
the privacy parameter ``alpha``; here it is ``epsilon``, the same quantity.

Releasers here:

* :class:`KRRReleaser`: k-ary randomized response (generalised Warner).
* :class:`UnaryEncodingReleaser`: unary encoding (RAPPOR-style, one-hot vector with
  every bit kept with probability ``e^(epsilon/2) / (1 + e^(epsilon/2))``).
* :class:`LocalLaplaceReleaser`: ``Z_i = X_i + (2M/epsilon) W_i`` for ``X_i`` in ``[-M, M]``.
* :class:`LDPHistogramReleaser`: Laplace noise of scale ``2/epsilon`` added to each
  bin indicator of a point in ``[0, 1]``.

Binary randomized response lives in :mod:`dpinfer.releasers.randomized_response`.

Every ``release`` takes ``rng`` (numpy generator; seeded for reproducible research)
or ``secure=True`` (the hardened path: cryptographic randomness and exact integer
sampling, recorded in ``Release.secure``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._exact_noise import _bernoulli, _digit_probability, _krr_lie_probability, _uniform_below
from .._ldp_channels import _unary_keep_prob
from .._validation import (
    _check_categories,
    _check_epsilon,
    _check_int,
    _check_positive,
    _data_array,
    _position,
)
from .. import _mechanisms
from ..budget._charging import charge_release
from ..distributions._laplace_grid import grid_step
from ._secure_path import _bit_source, _laplace_on_grid
from .release import Release

__all__ = [
    "KRRReleaser",
    "LDPHistogramReleaser",
    "LocalLaplaceReleaser",
    "UnaryEncodingReleaser",
]


#: Most report entries (respondents x width) one release builds: each entry costs
#: about 10 bytes across the working arrays (2**28 entries: ~2.7 GB).
_MAX_REPORT_ENTRIES = 1 << 28


def _check_report_size(n_items, width, what):
    """Refuse a release of n_items x width entries beyond _MAX_REPORT_ENTRIES, before allocating."""
    if n_items * width > _MAX_REPORT_ENTRIES:
        raise ValueError(
            f"the reports would have {n_items:_} x {width:_} = {n_items * width:_} entries "
            f"({what} = {width}); at most {_MAX_REPORT_ENTRIES:_} are built in one call. "
            "Release the respondents in batches, or use fewer categories."
        )


@dataclass(frozen=True)
class UnaryEncodingReleaser:
    """Unary encoding (RAPPOR-style) of a category in ``{0, ..., d-1}``.

    The respondent's category ``x`` becomes the one-hot vector ``e_x`` in
    ``{0, 1}^d``; each of its ``d`` bits is independently kept with probability
    ``q = e^(epsilon/2) / (1 + e^(epsilon/2))`` and flipped otherwise.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0 (``alpha`` in Duchi, Jordan & Wainwright).
    d : int
        Number of categories, >= 2.

    Notes
    -----
    **Guarantee and unit.**  Local epsilon-DP: each report is epsilon-DP with
    respect to its respondent's own category.  Two inputs ``x != x'`` give
    one-hot vectors that differ in exactly two coordinates; every other bit has
    the same law under both, and each of the two differing bits contributes a
    likelihood ratio of at most ``q / (1 - q) = e^(epsilon/2)``, so the largest
    ratio is ``(e^(epsilon/2))^2 = e^epsilon``.  The test suite enumerates all
    ``2^d`` reports for small ``d`` and checks the largest ratio equals
    ``e^epsilon`` to 1e-12.

    **The e^(epsilon/2) trap.**  Debiasing must use the same ``q``:
    ``E[bit_j] = (1 - q) + (2q - 1) 1{x = j}``, so ``(bit_j - (1 - q)) / (2q - 1)``
    is unbiased for ``1{x = j}`` with per-report noise variance
    ``q (1 - q) / (2q - 1)^2 = e^(epsilon/2) / (e^(epsilon/2) - 1)^2``.  Code
    that flips with ``e^epsilon`` but debiases with ``e^(epsilon/2)`` (or the
    reverse) is biased and understates the variance; see
    :func:`dpinfer.unary_frequency_estimate`.

    ``sensitivity`` in the release is 2, the L1 distance of two one-hot vectors.
    **Sampling.**  By default numpy's generator: each random choice compares a
    uniform on the ``2^-53`` grid with the probability of the *rarer* outcome,
    whose rounding can only add privacy, so the realised channel is never less
    private than recorded.  A seeded ``rng`` is for reproducible research, never
    for a real release; ``secure=True`` draws exactly from the operating
    system's cryptographic source instead (see :meth:`release`).

    References
    ----------
    Duchi, J. C., Jordan, M. I. & Wainwright, M. J. (2018). Minimax optimal
    procedures for locally private estimation. JASA 113, 182-201.
    Erlingsson, U., Pihur, V. & Korolova, A. (2014). RAPPOR. ACM CCS.

    Examples
    --------
    >>> from dpinfer import UnaryEncodingReleaser
    >>> rel = UnaryEncodingReleaser(epsilon=2.0, d=4).release([0, 3, 3], rng=1)
    >>> rel.value.shape, rel.mechanism, rel.n
    ((3, 4), 'unary_encoding', 3)
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.UNARY_ENCODING, _mechanisms.REPLACE_ONE, _mechanisms.LOCAL_UNIT)

    epsilon: float
    d: int

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "d", _check_int(self.d, "d", minimum=2))

    @property
    def keep_prob(self):
        """``e^(epsilon/2) / (1 + e^(epsilon/2))``, the probability a bit is kept."""
        return float(_unary_keep_prob(self.epsilon))

    def bit_channel(self):
        """The per-bit channel ``Q[b, t] = P(report bit b | true bit t)``, shape (2, 2)."""
        q = self.keep_prob
        f = float(_unary_keep_prob(-self.epsilon))  # 1 - q without cancellation
        return np.array([[q, f], [f, q]])

    def channel(self):
        """The exact channel ``Q[y, x] = P(report y | category x)`` over all ``2^d`` reports.

        Row ``y`` is the report whose bit ``j`` is ``(y >> j) & 1``.  Only for
        ``d <= 16`` (the matrix has ``2^d`` rows).

        Raises
        ------
        ValueError
            If ``d > 16``.
        """
        if self.d > 16:
            raise ValueError(f"`d` must be <= 16 to enumerate the 2^d reports of `channel()`; got {self.d}.")
        q = self.keep_prob
        f = float(_unary_keep_prob(-self.epsilon))  # 1 - q without cancellation
        y = np.arange(2 ** self.d)[:, None]
        bits = (y >> np.arange(self.d)[None, :]) & 1  # (2^d, d)
        onehot = np.eye(self.d, dtype=np.int64)  # (x, j)
        agree = bits[:, None, :] == onehot[None, :, :]  # (y, x, j)
        n_agree = agree.sum(axis=2)
        return q ** n_agree * f ** (self.d - n_agree)

    def release(self, categories, *, rng=None, secure=None, budget=None):
        """Privatize each category in ``categories`` (an int array of any shape).

        Parameters
        ----------
        categories : int or array_like of int
            Labels in ``{0, ..., d-1}``, one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, random bits from the
            operating system's cryptographic source.  A seed or generator: the
            seeded research path (reproducible, hence predictable: never for a
            real release).  Both paths draw exactly the same law, in integers.
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns and is ignored).
        budget : PrivacyBudget or budget handle, optional
            Charged once (each report depends on its own respondent only) before any
            noise is drawn; a release that does not fit raises
            :class:`~dpinfer.BudgetExceededError` and draws nothing.  None (the
            default) charges nothing.

        Returns
        -------
        Release
            ``value``: 0/1 reports of shape ``categories.shape + (d,)``;
            ``mechanism='unary_encoding'``, ``kind='reports'``, ``n`` = number of
            respondents (``categories.size``), ``sensitivity=2``, ``delta=0``,
            ``secure``.  Each flip is an exact Bernoulli draw from random bits.

        Raises
        ------
        TypeError, ValueError
            If a label is not a whole number in ``{0, ..., d-1}``.
        """
        cats = _check_categories(categories, self.d)
        _check_report_size(cats.size, self.d, "d")
        bits = _bit_source(secure, rng)
        charge = charge_release(budget, self, "release", rng=rng, secure=bits.hardened, sensitivity=2.0)
        onehot = (cats[..., None] == np.arange(self.d)).astype(np.int8)
        flip = _bernoulli(bits, _digit_probability(self.epsilon / 2.0, 0), onehot.size).reshape(onehot.shape)
        reports = onehot ^ flip.astype(np.int8)
        return Release(reports, charge.mechanism, self.epsilon, 0.0, 2.0, int(cats.size), "reports",
                       secure=bits.hardened,
                       **charge.fields)


@dataclass(frozen=True)
class KRRReleaser:
    """k-ary randomized response (k-RR, generalised randomized response).

    A respondent with category ``x`` in ``{0, ..., k-1}`` reports ``x`` with
    probability ``e^epsilon / (e^epsilon + k - 1)`` and each other category with
    probability ``1 / (e^epsilon + k - 1)``.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0.
    k : int
        Number of categories, >= 2 (``k = 2`` is Warner's epsilon-RR).

    Notes
    -----
    **Guarantee and unit.**  Local epsilon-DP: each report is epsilon-DP with
    respect to its respondent's own category.  Every row of the channel
    ``Q[y, x]`` holds one entry ``e^epsilon / (e^epsilon + k - 1)`` and
    ``k - 1`` entries ``1 / (e^epsilon + k - 1)``, so the largest ratio is
    exactly ``e^epsilon`` (checked to 1e-12 in the test suite).  The release
    records ``sensitivity=1`` by convention (a report is a label, not a number);
    the release does not record ``k``, so inference functions take it again.

    References
    ----------
    Kairouz, P., Bonawitz, K. & Ramage, D. (2016). Discrete distribution
    estimation under local privacy. ICML.

    Examples
    --------
    >>> from dpinfer import KRRReleaser
    >>> rel = KRRReleaser(epsilon=1.0, k=3).release([0, 2, 1, 1], rng=2)
    >>> rel.value.shape, rel.mechanism
    ((4,), 'krr')
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.KRR, _mechanisms.REPLACE_ONE, _mechanisms.LOCAL_UNIT)

    epsilon: float
    k: int

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "k", _check_int(self.k, "k", minimum=2))

    @property
    def truth_prob(self):
        """``e^epsilon / (e^epsilon + k - 1)``."""
        return float(1.0 / (1.0 + (self.k - 1) * np.exp(-self.epsilon)))

    @property
    def other_prob(self):
        """``1 / (e^epsilon + k - 1)``, the probability of each particular wrong label."""
        return float(np.exp(-self.epsilon) / (1.0 + (self.k - 1) * np.exp(-self.epsilon)))

    def channel(self):
        """``Q[y, x] = P(report y | category x)``, shape (k, k), columns sum to 1."""
        q = np.full((self.k, self.k), self.other_prob)
        np.fill_diagonal(q, self.truth_prob)
        return q

    def release(self, categories, *, rng=None, secure=None, budget=None):
        """Privatize each category (int array of any shape, labels in {0..k-1}).

        Parameters
        ----------
        categories : int or array_like of int
            Labels in ``{0, ..., k-1}``, one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, random bits from the
            operating system's cryptographic source.  A seed or generator: the
            seeded research path (reproducible, hence predictable: never for a
            real release).  Both paths draw exactly the same law, in integers.
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns and is ignored).
        budget : PrivacyBudget or budget handle, optional
            Charged once (each report depends on its own respondent only) before any
            noise is drawn; a release that does not fit raises
            :class:`~dpinfer.BudgetExceededError` and draws nothing.  None (the
            default) charges nothing.

        Returns
        -------
        Release
            ``value``: reported labels (as floats) of the shape of ``categories``;
            ``mechanism='krr'``, ``kind='reports'``, ``n = categories.size``,
            ``sensitivity=1``, ``delta=0``, ``secure``; the draws are exact.
        """
        cats = _check_categories(categories, self.k)
        bits = _bit_source(secure, rng)
        charge = charge_release(budget, self, "release", rng=rng, secure=bits.hardened, sensitivity=1.0)
        lie = _bernoulli(bits, _krr_lie_probability(self.epsilon, self.k), cats.size).reshape(cats.shape)
        # a wrong label uniform on the k-1 others: shift by 1..k-1 modulo k
        shift = 1 + _uniform_below(bits, self.k - 1, cats.size).reshape(cats.shape)
        reports = np.where(lie, (cats + shift) % self.k, cats)
        return Release(reports, charge.mechanism, self.epsilon, 0.0, 1.0, int(cats.size), "reports",
                       secure=bits.hardened,
                       **charge.fields)


@dataclass(frozen=True)
class LocalLaplaceReleaser:
    """Local Laplace mechanism for bounded data: ``Z_i = X_i + (2M / epsilon) W_i``.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0.
    bound : float
        ``M > 0``: every input must lie in ``[-M, M]``.

    Notes
    -----
    **Guarantee and unit.**  Local epsilon-DP for each respondent's value: two
    inputs in ``[-M, M]`` differ by at most ``2M`` (the sensitivity), and the
    Laplace density ratio is ``exp(epsilon |x - x'| / (2M)) <= e^epsilon``, with
    equality for ``x = M``, ``x' = -M`` and any report outside ``(-M, M)``
    (checked exactly in the test suite).  Inputs outside the bound are an error,
    not clipped silently: clipping changes the estimand.

    References
    ----------
    Duchi, J. C., Jordan, M. I. & Wainwright, M. J. (2018). Minimax optimal
    procedures for locally private estimation. JASA 113, 182-201.

    Examples
    --------
    >>> from dpinfer import LocalLaplaceReleaser
    >>> rel = LocalLaplaceReleaser(epsilon=1.0, bound=1.0).release([0.2, -0.5], rng=0)
    >>> rel.mechanism, rel.sensitivity
    ('local_laplace', 2.0)
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.LOCAL_LAPLACE, _mechanisms.REPLACE_ONE, _mechanisms.LOCAL_UNIT)

    epsilon: float
    bound: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "bound", _check_positive(self.bound, "bound"))
        if not np.isfinite(2.0 * self.bound / self.epsilon):
            raise ValueError(
                f"`bound` / `epsilon` = {self.bound!r} / {self.epsilon!r} gives a Laplace scale 2M/epsilon "
                "that overflows a double; rescale the data."
            )

    @property
    def scale(self):
        """Laplace scale ``2M / epsilon``."""
        return 2.0 * self.bound / self.epsilon

    def logpdf(self, z, x):
        """Log density of the report ``z`` given the input ``x`` (broadcasting)."""
        z = np.asarray(z, dtype=float)
        x = np.asarray(x, dtype=float)
        return -np.log(2.0 * self.scale) - np.abs(z - x) / self.scale

    def release(self, x, *, rng=None, secure=None, budget=None):
        """Privatize values ``x`` in ``[-bound, bound]`` (any shape).

        Parameters
        ----------
        x : float or array_like
            Values in ``[-bound, bound]``, one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, random bits from the
            operating system's cryptographic source.  A seed or generator: the
            seeded research path (reproducible, hence predictable: never for a
            real release).  Both paths draw exactly the same law, in integers.
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns and is ignored).
        budget : PrivacyBudget or budget handle, optional
            Charged once (each report depends on its own respondent only) before any
            noise is drawn; a release that does not fit raises
            :class:`~dpinfer.BudgetExceededError` and draws nothing.  None (the
            default) charges nothing.

        Returns
        -------
        Release
            ``mechanism='local_laplace'``, ``kind='reports'``, ``n = x.size``,
            ``sensitivity = 2 * bound``, ``delta=0``, ``secure``.
        """
        x = _data_array(x, "x")
        outside = np.abs(x) > self.bound
        if outside.any():
            raise ValueError(
                f"`x` must lie in [-bound, bound] = [{-self.bound!r}, {self.bound!r}]; "
                f"{_position(outside)} does not. Clip or rescale the data first (this changes the estimand)."
            )
        bits = _bit_source(secure, rng, self.epsilon)
        sens = 2.0 * self.bound
        charge = charge_release(budget, self, "release", rng=rng, secure=bits.hardened, sensitivity=sens,
                                grid=grid_step(0.5, self.epsilon, sens))
        z = _laplace_on_grid(bits, x / sens, self.epsilon, bound=0.5, exact=False) * sens
        return Release(z, charge.mechanism, self.epsilon, 0.0, sens, int(x.size), "reports",
                       secure=bits.hardened,
                       **charge.fields)


@dataclass(frozen=True)
class LDPHistogramReleaser:
    """Locally private histogram reports for a value in ``[0, 1]`` with ``bins`` equal bins.

    The respondent's value ``x`` gives the bin-indicator vector ``e_j`` (``j``
    the bin containing ``x``; ``x = 1`` falls in the last bin); the report is
    ``e_j + (2 / epsilon) W`` with ``W`` a vector of iid standard Laplace draws.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0.
    bins : int
        Number of bins ``K``, >= 1.  See :func:`dpinfer.ldp_histogram_bins`.

    Notes
    -----
    **Guarantee and unit.**  Local epsilon-DP for each respondent's value: two
    indicator vectors differ by at most 2 in L1 norm, so Laplace noise of scale
    ``2 / epsilon`` per coordinate gives a density ratio at most ``e^epsilon``,
    reached for reports beyond both differing coordinates (checked exactly in
    the test suite).  Duchi, Jordan & Wainwright (2018), section 5.2.2.

    Examples
    --------
    >>> from dpinfer import LDPHistogramReleaser
    >>> rel = LDPHistogramReleaser(epsilon=1.0, bins=5).release([0.1, 0.95, 1.0], rng=0)
    >>> rel.value.shape, rel.mechanism
    ((3, 5), 'ldp_histogram')
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.LDP_HISTOGRAM, _mechanisms.REPLACE_ONE, _mechanisms.LOCAL_UNIT)

    epsilon: float
    bins: int

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "bins", _check_int(self.bins, "bins", minimum=1))

    @property
    def scale(self):
        """Laplace scale ``2 / epsilon`` on each bin indicator."""
        return 2.0 / self.epsilon

    def bin_index(self, x):
        """Bin of each value in [0, 1]: ``min(floor(K x), K - 1)``."""
        x = np.asarray(x, dtype=float)
        return np.minimum(np.floor(x * self.bins), self.bins - 1).astype(np.int64)

    def logpdf(self, z, j):
        """Log density of a report vector ``z`` (last axis K) given bin ``j``."""
        z = np.asarray(z, dtype=float)
        onehot = np.arange(self.bins) == np.asarray(j)[..., None]
        return np.sum(-np.log(2.0 * self.scale) - np.abs(z - onehot) / self.scale, axis=-1)

    def release(self, x, *, rng=None, secure=None, budget=None):
        """Privatize values ``x`` in [0, 1] (any shape).

        Parameters
        ----------
        x : float or array_like
            Values in [0, 1], one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, random bits from the
            operating system's cryptographic source.  A seed or generator: the
            seeded research path (reproducible, hence predictable: never for a
            real release).  Both paths draw exactly the same law, in integers.
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns and is ignored).
        budget : PrivacyBudget or budget handle, optional
            Charged once (each report depends on its own respondent only) before any
            noise is drawn; a release that does not fit raises
            :class:`~dpinfer.BudgetExceededError` and draws nothing.  None (the
            default) charges nothing.

        Returns
        -------
        Release
            ``value`` of shape ``x.shape + (bins,)``; ``mechanism='ldp_histogram'``,
            ``kind='reports'``, ``n = x.size``, ``sensitivity=2``, ``delta=0``, ``secure``.
        """
        x = _data_array(x, "x")
        outside = (x < 0.0) | (x > 1.0)
        if outside.any():
            raise ValueError(f"`x` must lie in [0, 1]; {_position(outside)} does not. Rescale the data first.")
        _check_report_size(x.size, self.bins, "bins")
        bits = _bit_source(secure, rng, self.epsilon)
        charge = charge_release(budget, self, "release", rng=rng, secure=bits.hardened, sensitivity=2.0,
                                grid=grid_step(0.5, self.epsilon, 2.0))
        halves = (self.bin_index(x)[..., None] == np.arange(self.bins)).astype(float) / 2.0
        # one-hot halves: neighbours are exactly one unit apart in L1 (exact grid)
        z = _laplace_on_grid(bits, halves, self.epsilon, bound=0.5, exact=True) * 2.0
        return Release(z, charge.mechanism, self.epsilon, 0.0, 2.0, int(x.size), "reports",
                       secure=bits.hardened,
                       **charge.fields)
