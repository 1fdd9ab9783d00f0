"""Binary randomized response: Warner's epsilon-RR and the two-coin (forced response) protocol.

Both are *local* mechanisms: every respondent privatizes their own yes/no answer,
and each report is epsilon-DP with respect to that respondent's answer.  The
issue that specified them writes the privacy parameter as ``alpha``; here it is
``epsilon``, the same quantity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .._exact_noise import _bernoulli, _digit_probability, _float_probability
from .._ldp_channels import _two_coin_epsilon
from .._validation import _check_binary, _check_epsilon, _check_probability
from .. import _mechanisms
from ..budget._charging import charge_release
from ._secure_path import _bit_source
from .release import Release

__all__ = ["RandomizedResponseReleaser", "TwoCoinRRReleaser"]



@dataclass(frozen=True)
class RandomizedResponseReleaser:
    """Warner's randomized response at level epsilon (epsilon-RR).

    Each respondent reports their true answer with probability
    ``e^epsilon / (1 + e^epsilon)`` and the opposite answer otherwise.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0 (``alpha`` in the local-DP literature).

    Notes
    -----
    **Guarantee and unit.**  Local epsilon-DP: each report is epsilon-DP with
    respect to its respondent's own answer (the unit of privacy is one
    respondent's answer; the other respondents play no role).  The channel is
    ``Q[y, x] = P(report y | answer x)``; its largest ratio
    ``Q[y, 1] / Q[y, 0]`` over ``y`` is exactly ``e^epsilon`` (checked to 1e-12
    in the test suite).  The yes-probability is linear in the true proportion:
    ``lambda(p) = P(yes | 0) + (P(yes | 1) - P(yes | 0)) p``.  This is the
    two-coin protocol with ``p2 = 1/2`` and ``p1 = 2 / (1 + e^epsilon)``.

    **Sampling.**  By default numpy's generator: each random choice compares a
    uniform on the ``2^-53`` grid with the probability of the *rarer* outcome,
    whose rounding can only add privacy, so the realised channel is never less
    private than recorded.  A seeded ``rng`` is for reproducible research, never
    for a real release; ``secure=True`` draws exactly from the operating
    system's cryptographic source instead (see :meth:`release`).

    References
    ----------
    Warner, S. L. (1965). Randomized response: a survey technique for eliminating
    evasive answer bias. JASA 60, 63-69.
    Dwork, C. & Roth, A. (2014). The Algorithmic Foundations of Differential
    Privacy, section 3.2.

    Examples
    --------
    >>> from dpinfer import RandomizedResponseReleaser
    >>> rr = RandomizedResponseReleaser(epsilon=1.0)
    >>> round(rr.truth_prob, 4)
    0.7311
    >>> rel = rr.release([1, 0, 1, 1], rng=3)
    >>> rel.mechanism, rel.n, rel.kind
    ('randomized_response', 4, 'reports')
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.RANDOMIZED_RESPONSE, _mechanisms.REPLACE_ONE, _mechanisms.LOCAL_UNIT)

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))

    @property
    def truth_prob(self):
        """``e^epsilon / (1 + e^epsilon)``, the probability of reporting the truth."""
        return float(special.expit(self.epsilon))

    def channel(self):
        """``Q[y, x] = P(report y | answer x)`` for y, x in {0, 1} (columns sum to 1)."""
        t = self.truth_prob
        f = float(special.expit(-self.epsilon))  # 1 - t without cancellation at large epsilon
        return np.array([[t, f], [f, t]])

    def release(self, x, *, rng=None, secure=None, budget=None):
        """Privatize 0/1 answers ``x`` (any shape; one entry per respondent).

        Parameters
        ----------
        x : int or array_like of {0, 1}
            True answers (1 = yes).
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
            ``value``: 0/1 reports of the same shape as ``x``;
            ``mechanism='randomized_response'``, ``kind='reports'``,
            ``n = x.size``, ``sensitivity=1``, ``delta=0``, ``secure``.  Each
            lie is an exact Bernoulli(1 / (1 + e^epsilon)) draw (random bits
            compared with the certified binary expansion of the probability).
        """
        x = _check_binary(x)
        bits = _bit_source(secure, rng)
        charge = charge_release(budget, self, "release", rng=rng, secure=bits.hardened, sensitivity=1.0)
        lie = _bernoulli(bits, _digit_probability(self.epsilon, 0), x.size).reshape(x.shape)
        reports = x ^ lie.astype(np.int8)
        return Release(reports, charge.mechanism, self.epsilon, 0.0, 1.0, int(x.size), "reports",
                       secure=bits.hardened,
                       **charge.fields)


@dataclass(frozen=True)
class TwoCoinRRReleaser:
    """The two-coin (forced response) randomized response protocol.

    The respondent tosses a first coin: with probability ``1 - p1`` they answer
    truthfully; with probability ``p1`` they toss a second coin and answer "yes"
    with probability ``p2`` (regardless of the truth).  So
    ``P(yes | 1) = 1 - p1 + p1 p2`` and ``P(yes | 0) = p1 p2``.

    Parameters
    ----------
    p1 : float
        Probability of the forced answer (the first coin), in (0, 1).
    p2 : float
        Probability that a forced answer is "yes" (the second coin), in (0, 1).

    Attributes
    ----------
    epsilon : float
        The true privacy level (computed, not chosen):
        ``ln max{(1 - p1 + p1 p2) / (p1 p2), (1 - p1 p2) / (p1 (1 - p2))}``.

    Notes
    -----
    **Guarantee and unit.**  Local epsilon-DP for each respondent's answer, with
    the epsilon above: the largest ratio of the channel's two columns,
    equivalently ``epsilon = ln(1 + (1 - p1) / (p1 min(p2, 1 - p2)))``.  It is
    ``ln 3`` at ``p1 = p2 = 1/2`` (and along the curve
    ``1 - p1 = 2 p1 min(p2, 1 - p2)``); reporting ``ln 3`` for every coin pair
    (as some federated-learning code does) overstates the protection whenever
    ``1 - p1 > 2 p1 min(p2, 1 - p2)``: ``p1 = 1/2, p2 = 0.2`` is ``ln 6``-DP.
    ``p1 = 0`` (always truthful) and ``p1 = 1``
    or ``p2`` in {0, 1} (no information, or infinite epsilon) are rejected.

    :meth:`from_epsilon` fixes ``p2`` (default 1/2) and solves for ``p1``:
    with ``m = min(p2, 1 - p2)``, ``p1 = 1 / (1 + m (e^epsilon - 1))``.  With
    ``p2 = 1/2`` this is exactly Warner's epsilon-RR.

    References
    ----------
    Greenberg, B. G. et al. (1969). The unrelated question randomized response
    model. JASA 64, 520-539.
    Dwork, C. & Roth, A. (2014), section 3.2 (the fair-coin case, ln 3).

    Examples
    --------
    >>> from dpinfer import TwoCoinRRReleaser
    >>> round(TwoCoinRRReleaser(0.5, 0.5).epsilon, 6)  # ln 3
    1.098612
    >>> round(TwoCoinRRReleaser(0.5, 0.2).epsilon, 6)  # not ln 3
    1.791759
    >>> tc = TwoCoinRRReleaser.from_epsilon(1.0, p2=0.3)
    >>> round(tc.p1, 6), round(tc.epsilon, 12)
    (0.659855, 1.0)
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.TWO_COIN_RR, _mechanisms.REPLACE_ONE, _mechanisms.LOCAL_UNIT)

    p1: float
    p2: float
    epsilon: float = field(init=False)

    def __post_init__(self):
        p1 = _check_probability(self.p1, "p1", open_low=True, open_high=True)
        p2 = _check_probability(self.p2, "p2", open_low=True, open_high=True)
        object.__setattr__(self, "p1", p1)
        object.__setattr__(self, "p2", p2)
        object.__setattr__(self, "epsilon", float(_two_coin_epsilon(p1, p2)))

    @classmethod
    def from_epsilon(cls, epsilon, p2=0.5):
        """The two-coin protocol with second coin ``p2`` whose true level is ``epsilon``.

        Parameters
        ----------
        epsilon : float
            Target privacy level, > 0.
        p2 : float, default 0.5
            Second-coin probability, in (0, 1).

        Returns
        -------
        TwoCoinRRReleaser
            With ``p1 = 1 / (1 + min(p2, 1 - p2) (e^epsilon - 1))``.
        """
        epsilon = _check_epsilon(epsilon)
        p2 = _check_probability(p2, "p2", open_low=True, open_high=True)
        with np.errstate(over="ignore"):
            p1 = float(1.0 / (1.0 + min(p2, 1.0 - p2) * np.expm1(epsilon)))
        if not (0.0 < p1 < 1.0):
            hint = "a larger" if p1 >= 1.0 else "a smaller"
            raise ValueError(
                f"`epsilon` = {epsilon!r} with `p2` = {p2!r} needs a first coin p1 = {p1!r}, not strictly "
                f"between 0 and 1 in floating point; choose {hint} epsilon."
            )
        return cls(p1, p2)

    @property
    def yes_prob(self):
        """``(P(yes | 0), P(yes | 1)) = (p1 p2, 1 - p1 + p1 p2)``."""
        return (self.p1 * self.p2, 1.0 - self.p1 + self.p1 * self.p2)

    def channel(self):
        """``Q[y, x] = P(report y | answer x)`` for y, x in {0, 1} (columns sum to 1)."""
        a0, a1 = self.yes_prob
        return np.array([[1.0 - a0, 1.0 - a1], [a0, a1]])

    def release(self, x, *, rng=None, secure=None, budget=None):
        """Privatize 0/1 answers ``x`` (any shape; one entry per respondent).

        Parameters
        ----------
        x : int or array_like of {0, 1}
            True answers (1 = yes).
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
            ``value``: 0/1 reports of the same shape as ``x``;
            ``mechanism='two_coin_rr'``, ``kind='reports'``, ``n = x.size``,
            ``epsilon`` the true level above, ``sensitivity=1``, ``delta=0``,
            ``secure``.  The release does not record ``p1``, ``p2``: pass them to
            the inference functions (they check them against the recorded epsilon).
        """
        x = _check_binary(x)
        bits = _bit_source(secure, rng)
        charge = charge_release(budget, self, "release", rng=rng, secure=bits.hardened, sensitivity=1.0)
        forced = _bernoulli(bits, _float_probability(self.p1), x.size).reshape(x.shape)
        forced_yes = _bernoulli(bits, _float_probability(self.p2), x.size).reshape(x.shape)
        reports = np.where(forced, forced_yes.astype(np.int8), x)
        return Release(reports, charge.mechanism, self.epsilon, 0.0, 1.0, int(x.size), "reports",
                       secure=bits.hardened,
                       **charge.fields)
