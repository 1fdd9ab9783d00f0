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
from fractions import Fraction

import numpy as np
from scipy import special


from .._secure import _rational_below, _SecureSource
from .._validation import (
    _as_real_array,
    _check_epsilon,
    _check_int,
    _check_positive,
    _check_rng,
    _show,
)
from ._secure_path import _check_secure, _secure_laplace_on_grid
from .release import Release

__all__ = [
    "KRRReleaser",
    "LDPHistogramReleaser",
    "LocalLaplaceReleaser",
    "UnaryEncodingReleaser",
]

_TINY = float(np.finfo(float).tiny)  # smallest positive normal double

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


def _unary_keep_prob(epsilon):
    """Probability that unary encoding keeps a bit: ``e^(eps/2) / (1 + e^(eps/2))``.

    Computed as ``expit(eps/2)``, which neither overflows nor warns for any
    ``eps`` (``_unary_keep_prob(-eps)`` is the flip probability ``1 - q``).
    Private: assumes ``epsilon`` is a valid float (or array).
    """
    return special.expit(0.5 * np.asarray(epsilon, dtype=float))


def _secure_rare_flags(size, gamma):
    """Exact Bernoulli(1 / (1 + e^gamma)) flags from the OS source, rational ``gamma >= 0``.

    Rejection: a fair coin proposes "common" or "rare"; "rare" is accepted with
    probability ``e^-gamma`` (exact, Canonne, Kamath & Steinke 2020, Alg. 1), so
    ``P(rare) = e^-gamma / (1 + e^-gamma)``.  Two proposals per draw on average.
    Private: ``gamma`` is a Fraction.
    """
    source = _SecureSource()
    half = Fraction(1, 2)
    out = np.empty(int(np.prod(size)), dtype=bool)
    for i in range(out.size):
        while True:
            if not source.bernoulli(half):
                out[i] = False
                break
            if source.bernoulli_exp(gamma):
                out[i] = True
                break
    return out.reshape(size)


def _secure_krr_shifts(size, k, gamma):
    """Exact k-RR shifts (0 = report the truth) from the OS source, rational ``gamma = epsilon``.

    A uniform proposal on {0, ..., k-1}; shift 0 is always accepted, any other
    with probability ``e^-gamma``: ``P(0) = 1 / (1 + (k - 1) e^-gamma)``.
    """
    source = _SecureSource()
    out = np.empty(int(np.prod(size)), dtype=np.int64)
    for i in range(out.size):
        while True:
            j = source.below(k)
            if j == 0 or source.bernoulli_exp(gamma):
                out[i] = j
                break
    return out.reshape(size)


def _check_categories(categories, d, name="categories"):
    """Integer category labels in {0, ..., d-1}, any shape (scalar allowed); int64 array."""
    if isinstance(categories, str) or categories is None:
        raise TypeError(f"`{name}` must be an integer or an array of integers; got {_show(categories)}.")
    try:
        arr = np.asarray(categories)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"`{name}` must be an integer or an array of integers; got {_show(categories)}."
        ) from exc
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(
            f"`{name}` must be an integer or an array of integers; got {_show(categories)} (dtype {arr.dtype})."
        )
    if arr.size == 0:
        raise ValueError(f"`{name}` must not be empty; got shape {arr.shape}.")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr) | (arr != np.floor(np.where(np.isfinite(arr), arr, 0.0)))
        if bad.any():
            raise ValueError(f"`{name}` must contain whole numbers (category labels); got {arr[bad].flat[0]!r}.")
    out_of_range = (arr < 0) | (arr > d - 1)
    if out_of_range.any():
        raise ValueError(
            f"`{name}` must contain labels in {{0, ..., {d - 1}}} (d = {d}); got {arr[out_of_range].flat[0]!r}."
        )
    return arr.astype(np.int64)


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

    def release(self, categories, *, rng=None, secure=False):
        """Privatize each category in ``categories`` (an int array of any shape).

        Parameters
        ----------
        categories : int or array_like of int
            Labels in ``{0, ..., d-1}``, one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
        secure : bool, default False
            Draw from the hardened path: the operating system's cryptographic
            source and exact integer sampling (each flip exactly Bernoulli(1 / (1 +
            e^(epsilon'/2)))); ``rng`` is then ignored
            (with a :class:`~dpinfer.PrivacyWarning` if given).  A short Python
            loop per draw: for real releases, not for simulation studies.

        Returns
        -------
        Release
            ``value``: 0/1 reports of shape ``categories.shape + (d,)``;
            ``mechanism='unary_encoding'``, ``kind='reports'``, ``n`` = number of
            respondents (``categories.size``), ``sensitivity=2``, ``delta=0``,
            ``secure``.  On the hardened path the recorded ``epsilon`` is the
            level actually used, ``epsilon' <= epsilon`` (a dyadic rational at
            most ``2^-19`` below it relatively), so that inference uses the exact
            channel.

        Raises
        ------
        TypeError, ValueError
            If a label is not a whole number in ``{0, ..., d-1}``.
        """
        cats = _check_categories(categories, self.d)
        _check_report_size(cats.size, self.d, "d")
        secure = _check_secure(secure, rng)
        onehot = (cats[..., None] == np.arange(self.d)).astype(np.int8)
        if secure:
            eps = _rational_below(self.epsilon)
            flip = _secure_rare_flags(cats.shape + (self.d,), eps / 2)
            recorded = float(eps)  # exact: a dyadic rational with few bits
        else:
            gen = _check_rng(rng)
            # compare with the (rarer) flip probability: the 2^-53 grid of the uniforms
            # rounds it up, so the realised channel is never less private than recorded
            # (kept above 0 so that an underflowed probability still gives 2^-53)
            flip = gen.random(cats.shape + (self.d,)) < max(float(_unary_keep_prob(-self.epsilon)), _TINY)
            recorded = self.epsilon
        bits = onehot ^ flip.astype(np.int8)
        return Release(bits, "unary_encoding", recorded, 0.0, 2.0, int(cats.size), "reports", secure=secure)


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

    def release(self, categories, *, rng=None, secure=False):
        """Privatize each category (int array of any shape, labels in {0..k-1}).

        Parameters
        ----------
        categories : int or array_like of int
            Labels in ``{0, ..., k-1}``, one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
        secure : bool, default False
            Draw from the hardened path: the operating system's cryptographic
            source and exact integer sampling (exact rejection sampling of the k-RR law at
            epsilon'); ``rng`` is then ignored
            (with a :class:`~dpinfer.PrivacyWarning` if given).  A short Python
            loop per draw: for real releases, not for simulation studies.

        Returns
        -------
        Release
            ``value``: reported labels (as floats) of the shape of ``categories``;
            ``mechanism='krr'``, ``kind='reports'``, ``n = categories.size``,
            ``sensitivity=1``, ``delta=0``, ``secure``; on the hardened path the
            recorded ``epsilon`` is the level used, ``epsilon' <= epsilon``.
        """
        cats = _check_categories(categories, self.k)
        secure = _check_secure(secure, rng)
        if secure:
            eps = _rational_below(self.epsilon)
            shift = _secure_krr_shifts(cats.shape, self.k, eps)
            return Release((cats + shift) % self.k, "krr", float(eps), 0.0, 1.0, int(cats.size), "reports",
                           secure=True)
        gen = _check_rng(rng)
        # draw the (rarer) lie event: rounding on the 2^-53 grid can only raise its
        # probability, so the realised channel is never less private than recorded
        lie_prob = max((self.k - 1) * self.other_prob, _TINY)  # never 0, even when it underflows
        keep = ~(gen.random(cats.shape) < lie_prob)
        # a wrong label uniform on the k-1 others: shift by 1..k-1 modulo k
        shift = gen.integers(1, self.k, size=cats.shape)
        reports = np.where(keep, cats, (cats + shift) % self.k)
        return Release(reports, "krr", self.epsilon, 0.0, 1.0, int(cats.size), "reports")


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

    def release(self, x, *, rng=None, secure=False):
        """Privatize values ``x`` in ``[-bound, bound]`` (any shape).

        Parameters
        ----------
        x : float or array_like
            Values in ``[-bound, bound]``, one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
        secure : bool, default False
            Draw from the hardened path: the operating system's cryptographic
            source and exact integer sampling (``x / (2M)`` on the grid 1/1024 plus exact
            discrete Laplace noise, as :meth:`LaplaceReleaser.release` with
            ``secure=True``); ``rng`` is then ignored
            (with a :class:`~dpinfer.PrivacyWarning` if given).  A short Python
            loop per draw: for real releases, not for simulation studies.

        Returns
        -------
        Release
            ``mechanism='local_laplace'``, ``kind='reports'``, ``n = x.size``,
            ``sensitivity = 2 * bound``, ``delta=0``, ``secure``.
        """
        x = _as_real_array(x, "x")
        outside = np.abs(x) > self.bound
        if outside.any():
            raise ValueError(
                f"`x` must lie in [-bound, bound] = [{-self.bound!r}, {self.bound!r}]; "
                f"got {x[outside].flat[0]!r}. Clip or rescale the data first (this changes the estimand)."
            )
        secure = _check_secure(secure, rng)
        sens = 2.0 * self.bound
        if secure:
            z = _secure_laplace_on_grid(x / sens, self.epsilon, exact=False) * sens
        else:
            gen = _check_rng(rng)
            z = x + gen.laplace(0.0, self.scale, size=x.shape)
        return Release(z, "local_laplace", self.epsilon, 0.0, sens, int(x.size), "reports", secure=secure)


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

    def release(self, x, *, rng=None, secure=False):
        """Privatize values ``x`` in [0, 1] (any shape).

        Parameters
        ----------
        x : float or array_like
            Values in [0, 1], one per respondent.
        rng : None, int, SeedSequence or numpy.random.Generator
        secure : bool, default False
            Draw from the hardened path: the operating system's cryptographic
            source and exact integer sampling (each half-indicator on the grid 1/1024 plus
            exact discrete Laplace noise; the two coordinates that differ move 512 grid
            steps each, within the 1025 the noise is calibrated to); ``rng`` is then ignored
            (with a :class:`~dpinfer.PrivacyWarning` if given).  A short Python
            loop per draw: for real releases, not for simulation studies.

        Returns
        -------
        Release
            ``value`` of shape ``x.shape + (bins,)``; ``mechanism='ldp_histogram'``,
            ``kind='reports'``, ``n = x.size``, ``sensitivity=2``, ``delta=0``, ``secure``.
        """
        x = _as_real_array(x, "x")
        outside = (x < 0.0) | (x > 1.0)
        if outside.any():
            raise ValueError(f"`x` must lie in [0, 1]; got {x[outside].flat[0]!r}. Rescale the data first.")
        _check_report_size(x.size, self.bins, "bins")
        secure = _check_secure(secure, rng)
        onehot = (self.bin_index(x)[..., None] == np.arange(self.bins)).astype(float)
        if secure:
            z = _secure_laplace_on_grid(onehot / 2.0, self.epsilon, exact=False) * 2.0
        else:
            gen = _check_rng(rng)
            z = onehot + gen.laplace(0.0, self.scale, size=onehot.shape)
        return Release(z, "ldp_histogram", self.epsilon, 0.0, 2.0, int(x.size), "reports", secure=secure)
