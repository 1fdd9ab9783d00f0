"""Tulap releaser for binomial counts (Awan & Slavkovic 2018)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import _check_counts, _check_delta, _check_epsilon, _check_int, _check_sensitivity
from .. import _mechanisms
from ..budget._charging import charge_release
from .._exact_noise import _clip_to_int64, _discrete_laplace, _truncated_tulap_units, _uniform_int
from ..distributions._tulap_law import tulap_grid, unit_privacy
from ..distributions.tulap import Tulap
from ._secure_path import _bit_source
from .release import Release

__all__ = ["TulapReleaser"]


@dataclass(frozen=True)
class TulapReleaser:
    """Release a count with Tulap noise: ``Z = x + N``, ``N ~ Tulap(0, exp(-epsilon / k), q)``.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0 (what the release spends, whatever the sensitivity).
    delta : float, default 0.0
        Approximate-DP slack in [0, 1); it sets the truncation
        ``q = 2 delta_1 b / (1 - b + 2 delta_1 b)`` (``delta_1 = delta`` when ``k = 1``).
    sensitivity : int, default 1
        ``k``: the most one person can move the count (e.g. a person who may own up
        to ``k`` of the ``n`` trials).  ``k > 1`` releases the Tulap law of
        ``(epsilon / k, delta_1)`` (see Notes); the inference functions read ``k``
        from the :class:`~dpinfer.Release`.

    Notes
    -----
    **Guarantee.**  (epsilon, delta)-differential privacy for the count of records
    with a property, under the *replace-one* neighbouring relation with the number
    of records ``n`` public: two datasets are neighbours when they differ in one
    person's record, so the count moves by at most 1 (sensitivity 1).  Under
    add/remove-one the same noise protects the count too, but then ``n`` itself
    must be treated as public or released separately.  Awan & Slavkovic (2018),
    Thm. 2.4.  The test suite checks the guarantee numerically from the exact law.

    **Sensitivity k > 1.**  When one person can move the count by up to ``k`` (an
    integer: e.g. a patient who owns up to ``k`` of the ``n`` rows), the noise is the
    Tulap law of ``b = exp(-epsilon_1)``, ``epsilon_1 = epsilon / k`` rounded down (so
    ``k epsilon_1 <= epsilon`` exactly), truncated for
    ``delta_1 = delta / sum_{j<k} exp(j epsilon_1)`` (rounded down), on the grid of
    :mod:`dpinfer.distributions._tulap_grid` at ``(n, epsilon_1, delta_1)``: the
    outputs remain odd multiples of ``2**-(bits+1)`` whatever the count.

    *Proof.*  The released law is (epsilon_1, delta_1)-DP for counts one apart (Awan
    & Slavkovic 2018, Thm. 2.4, at epsilon_1; the grid law rounds the support end
    outwards, which only lowers the delta spent).  Counts ``j <= k`` apart are joined
    by ``j`` unit steps, and group privacy for approximate DP gives
    ``(j epsilon_1, delta_1 sum_{i<j} exp(i epsilon_1))``, at most (epsilon, delta).
    (Induction on ``j``: ``P(x in S) <= e^e1 P(x + 1 in S) + delta_1`` and the bound
    for ``j - 1`` steps from ``x + 1``; Dwork & Roth 2014, Thm. 2.2 for ``delta = 0``.)  For ``delta = 0`` the bound is tight: the
    density ratio of ``x + N`` and ``x + k + N`` is ``b**-k = exp(k epsilon_1)`` at every
    output beyond both medians.  For ``delta > 0`` it is tight too: where both
    densities are positive their ratio is at most ``exp(j epsilon_1)``, so the spent
    delta is the truncated law's mass in the band of width ``j`` at the support's
    edge, which the test suite computes exactly in mpmath (``j = 1 .. k``): within
    2e-6 relative of ``delta`` at ``j = k``, never above it.

    *The model.*  The count is still modelled as ``X ~ Binomial(n, theta)`` (``n``
    rows, ``theta`` the chance a row has the property); only the noise is wider
    (standard deviation about ``sqrt(2) k / epsilon`` for small epsilon).  This is
    OpenDP's reading too (``BinomialCND``: ``X ~ Binomial(size, theta)``, ``d_in`` the
    sensitivity of the mechanism).  The DP-UMP functions read ``k`` from the Release
    and are exact for this law; the *optimality* of the DP-UMP tests among DP tests
    (Awan & Slavkovic 2018) is proved for ``k = 1`` only.

    *OpenDP's law.*  OpenDP's canonical noise mechanism (``make_canonical_noise``
    with ``d_in = k``; Awan & Vinterbo 2023) *scales* the unit law instead:
    ``N = k T``, ``T ~ Tulap(0, exp(-epsilon), q(delta))``, exactly (epsilon, delta)-DP
    for shifts up to ``k``.  Neither law dominates.  Variances at ``epsilon = 1,
    k = 2``: 7.70 (scaled), 7.92 (this law); at ``epsilon = 10``: 0.33 and 0.10.
    Power of the one-sided size-0.05 test at n = 30, p0 = 0.2, theta = 0.4: the scaled
    law leads by at most 0.007 at ``epsilon = 1`` (0.519 against 0.512, k = 2), this law
    leads at large epsilon (0.776 against 0.728 at ``epsilon = 10``, k = 4; at n = 10,
    p0 = 0.3, theta = 0.7, 0.823 against 0.695), and at ``epsilon = 0.2`` they agree to
    1e-4.  This law is used because it keeps the dyadic grid of the sensitivity-1
    release (a uniform of width ``k`` on a grid of step ``h / k`` is not dyadic for odd
    ``k``) and the exact DP-UMP sums apply unchanged at ``epsilon_1``.  The two laws
    differ, so analyse each release with the library that made it.

    References
    ----------
    Awan, J. and Slavkovic, A. (2018).  Differentially private uniformly most powerful
    tests for binomial data.  NeurIPS 31.

    Awan, J. and Vinterbo, S. (2023).  Canonical noise distributions and private
    hypothesis tests.  Annals of Statistics 51(2).

    Dwork, C. and Roth, A. (2014).  The Algorithmic Foundations of Differential Privacy.

    The releaser is immutable and reusable; randomness comes from ``rng`` at each
    call.  A seeded ``rng`` is for reproducible research, never for a real release.

    Examples
    --------
    >>> from dpinfer import TulapReleaser
    >>> rel = TulapReleaser(epsilon=1.0).release(11, 30, rng=7)
    >>> rel.mechanism, rel.n, rel.epsilon
    ('tulap', 30, 1.0)
    >>> wide = TulapReleaser(epsilon=1.0, sensitivity=2).release(11, 30, rng=7)
    >>> wide.epsilon, wide.sensitivity
    (1.0, 2.0)
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.TULAP, _mechanisms.REPLACE_ONE, _mechanisms.count_unit(self.sensitivity))

    epsilon: float
    delta: float = 0.0
    sensitivity: int = 1

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", _check_delta(self.delta))
        object.__setattr__(self, "sensitivity", _check_sensitivity(self.sensitivity))

    @property
    def noise(self):
        """The continuous noise law, ``Tulap.from_privacy(epsilon_1, delta_1)`` (``epsilon / k``, see Notes)."""
        return Tulap.from_privacy(*unit_privacy(self.epsilon, self.delta, self.sensitivity))

    def release(self, x, n, *, rng=None, secure=None, budget=None, array=None):
        """Privatize the count ``x`` out of ``n`` (or an array of counts sharing ``n``).

        Parameters
        ----------
        x : int or array_like of int
            Count(s), ``0 <= x <= n``.
        n : int
            Number of records, >= 1 (public).
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, whose random bits come from
            the operating system's cryptographic source.  A seed or generator: the
            seeded research path, reproducible and therefore predictable: never
            for a real release.
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns,
            :class:`~dpinfer.PrivacyWarning`, and is ignored); ``False`` with no
            ``rng`` draws from a fresh unseeded numpy generator.
        budget : PrivacyBudget or budget handle, optional
            Charged before any noise is drawn (see :class:`~dpinfer.PrivacyBudget`);
            a release that does not fit raises :class:`~dpinfer.BudgetExceededError`
            and draws nothing.  None (the default) charges nothing.
        array : {None, 'separate', 'disjoint'}
            Required with a budget when more than one count is released: ``'separate'``
            statistics of the same records are charged once each; ``'disjoint'`` counts
            (each person's record moves at most one of them, e.g. counts of disjoint
            groups) are charged once in all.  Ignored without a budget.

        Returns
        -------
        Release
            ``value`` = x + grid-Tulap noise (an odd multiple of ``2**-(k+1)``, see
            Notes), ``mechanism='tulap'``, ``kind='count'``, this releaser's
            ``sensitivity``, epsilon and delta (what the release spends), and ``secure`` saying which path drew it.

        Raises
        ------
        ValueError
            If ``n`` plus the noise range (about ``764 / epsilon``) reaches
            ``2**51``, or ``epsilon < 1e-12``: decided from these public numbers.

        Notes
        -----
        Both paths release exactly the same law, built in integers: ``x + D + U``
        with ``D`` discrete Laplace (ratio ``exp(-epsilon)``, drawn digit by digit
        from random bits) and ``U`` uniform on the midpoints of the grid of step
        ``2**-k`` in ``(-1/2, 1/2)``, ``k = min(40, 52 - bit_length(n + C + 1))``
        (``k = 40`` for ``n = 30``, ``epsilon = 1``); the result is converted to a
        double once, exactly.  No floating-point addition touches the count, so
        the output's bits cannot reveal it.  With ``delta > 0`` the noise is
        truncated at a grid boundary at or beyond the Tulap support end (sampled
        exactly with acceptance at least 1/4, whatever ``q``).  The inference
        functions use this grid law exactly; see
        :mod:`dpinfer.distributions._tulap_grid`.
        """
        n = _check_int(n, "n", minimum=1)
        x = _check_counts(x, n)
        unit_epsilon, unit_delta = unit_privacy(self.epsilon, self.delta, self.sensitivity)
        bits = _bit_source(secure, rng, self.epsilon, self.sensitivity)
        grid = tulap_grid(n, unit_epsilon, unit_delta)  # refuses n, epsilon without a grid before the charge
        charge = charge_release(budget, self, "release", shape=x.shape, array=array, n=n, rng=rng,
                                secure=bits.hardened, sensitivity=float(self.sensitivity), grid=2.0**-grid.bits)
        value = _release_tulap(bits, np.asarray(x), n, unit_epsilon, unit_delta)
        return Release(value, charge.mechanism, self.epsilon, self.delta, float(self.sensitivity), n, "count",
                       secure=bits.hardened, **charge.fields)


def _release_tulap(bits_source, x, n, epsilon, delta):
    """Exact grid-Tulap release ``x + D + U`` of int64 counts ``x`` (valid, ``0 <= x <= n``); float array.

    Integer arithmetic on the grid of :func:`~dpinfer.distributions._tulap_law.tulap_grid`
    (decided from the public ``n``, ``epsilon``, ``delta``): ``D`` discrete Laplace
    (or its truncated form for ``delta > 0``) and ``U`` uniform on the cell
    midpoints, drawn by the exact samplers of ``dpinfer._exact_noise`` from
    ``bits_source``; the units are clipped to the grid's public range and scaled
    by a power of two, so every output is an exact double.
    """
    grid = tulap_grid(n, epsilon, delta)
    k = grid.bits
    size = x.size
    flat = x.reshape(-1).astype(np.int64)
    if grid.cut is None:
        noise = _discrete_laplace(bits_source, epsilon, size)
        units = (2 * (flat + noise)) * 2**k + (2 * _uniform_int(bits_source, k, size) + 1 - 2**k)
    else:
        units = flat * 2 ** (k + 1) + _truncated_tulap_units(bits_source, epsilon, k, grid.cut, size)
    units = _clip_to_int64(units, grid.low, grid.high)
    return (units / 2.0 ** (k + 1)).reshape(x.shape)
