"""Tulap releaser for binomial counts (Awan & Slavkovic 2018)."""

from __future__ import annotations

from dataclasses import dataclass

from .._secure import _secure_tulap
from .._validation import _check_counts, _check_delta, _check_epsilon, _check_int, _check_rng
from ..distributions.tulap import Tulap, _sample
from ..budget import _charge_release
from ._secure_path import _check_secure
from .release import Release

__all__ = ["TulapReleaser"]


@dataclass(frozen=True)
class TulapReleaser:
    """Release a count with Tulap noise: ``Z = x + N``, ``N ~ Tulap(0, exp(-epsilon), q)``.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0.
    delta : float, default 0.0
        Approximate-DP slack in [0, 1); it sets the truncation
        ``q = 2 delta b / (1 - b + 2 delta b)``.

    Notes
    -----
    **Guarantee.**  (epsilon, delta)-differential privacy for the count of records
    with a property, under the *replace-one* neighbouring relation with the number
    of records ``n`` public: two datasets are neighbours when they differ in one
    person's record, so the count moves by at most 1 (sensitivity 1).  Under
    add/remove-one the same noise protects the count too, but then ``n`` itself
    must be treated as public or released separately.  Awan & Slavkovic (2018),
    Thm. 2.4.  The test suite checks the guarantee numerically from the exact law.

    The releaser is immutable and reusable; randomness comes from ``rng`` at each
    call.  A seeded ``rng`` is for reproducible research, never for a real release.

    Examples
    --------
    >>> from dpinfer import TulapReleaser
    >>> rel = TulapReleaser(epsilon=1.0).release(11, 30, rng=7)
    >>> rel.mechanism, rel.n, rel.epsilon
    ('tulap', 30, 1.0)
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", _check_delta(self.delta))

    @property
    def noise(self):
        """The noise law, ``Tulap.from_privacy(epsilon, delta)``."""
        return Tulap.from_privacy(self.epsilon, self.delta)

    def release(self, x, n, *, rng=None, secure=False, budget=None, array=None):
        """Privatize the count ``x`` out of ``n`` (or an array of counts sharing ``n``).

        Parameters
        ----------
        x : int or array_like of int
            Count(s), ``0 <= x <= n``.
        n : int
            Number of records, >= 1 (public).
        rng : None, int, SeedSequence or numpy.random.Generator
            Source of randomness for the default path.  A seed makes the release
            reproducible and therefore predictable: research only.
        secure : bool, default False
            Hardened path for a real release: the integer part of the noise is an
            exact discrete-Laplace draw (integer arithmetic, Canonne, Kamath &
            Steinke 2020) from the OS's cryptographic source, with ``epsilon``
            rounded *down* to a multiple of 2**-20 (to 20 significant bits below
            1/2; at least 1e-12) and, when ``delta > 0``, the truncation computed
            for that rounded epsilon; the fractional part is uniform on a grid of
            2**-53.  Passing ``rng`` with ``secure=True`` warns
            (:class:`~dpinfer.PrivacyWarning`) and the ``rng`` is ignored.
        budget : PrivacyBudget or budget handle, optional
            Charged before any noise is drawn (see :class:`~dpinfer.PrivacyBudget`);
            a release that does not fit raises :class:`~dpinfer.BudgetExceededError`
            and draws nothing.  None (the default) charges nothing.
        array : {None, 'separate', 'disjoint'}
            Required with a budget when more than one value is released: ``'separate'``
            statistics of the same records are charged once each; ``'disjoint'`` values
            (each person's record moves at most one of them, e.g. counts of disjoint
            groups) are charged once in all.  Ignored without a budget.

        Returns
        -------
        Release
            ``value`` = x + Tulap noise, ``mechanism='tulap'``, ``kind='count'``,
            ``sensitivity=1``, and this releaser's epsilon and delta.
        """
        n = _check_int(n, "n", minimum=1)
        x = _check_counts(x, n)
        law = self.noise
        secure = _check_secure(secure, rng)
        _charge_release(budget, self, "release", shape=x.shape, array=array, n=n, rng=rng, secure=secure)
        if secure:
            value = x + _secure_tulap(x.shape, self.epsilon, self.delta)
        else:
            value = x + _sample(_check_rng(rng), x.shape, 0.0, law._log_b, law.q)
        return Release(value, "tulap", self.epsilon, self.delta, 1.0, n, "count", secure=secure)
