"""Laplace releaser for real-valued statistics of known sensitivity."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import _check_counts, _check_epsilon, _check_int, _check_positive, _data_array
from .. import _mechanisms
from ..budget._charging import charge_release
from ..distributions._laplace_grid import grid_step
from ._secure_path import _VALUE_BOUND, _bit_source, _check_output_range, _laplace_on_grid
from .release import Release

__all__ = ["LaplaceReleaser"]


@dataclass(frozen=True)
class LaplaceReleaser:
    """The Laplace mechanism: ``value + Laplace(0, sensitivity / epsilon)``.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter, > 0.
    sensitivity : float, default 1.0
        L1 sensitivity of the statistic given to :meth:`release` under the
        neighbouring relation the user has in mind.  :meth:`proportion` and
        :meth:`count` set their own sensitivity (1/n and 1).

    Notes
    -----
    **Guarantee.**  epsilon-differential privacy (delta = 0) for any statistic
    whose value changes by at most ``sensitivity`` between neighbouring datasets
    (Dwork & Roth 2014, Thm. 3.6).  For :meth:`proportion` and :meth:`count` the
    unit of privacy is one person's record under *replace-one* with ``n``
    public, so a count moves by at most 1 and a proportion by at most 1/n.
    The density ratio of outputs for neighbouring inputs is at most
    ``exp(epsilon)``, checked numerically in the test suite.

    **Exact on a grid, on both paths.**  No floating-point noise is added to
    data (Mironov 2012): the statistic in units of its sensitivity is placed on a
    dyadic grid (``2**-24`` of a count for :meth:`count` and :meth:`proportion`
    at ``epsilon = 1``; ``2**-20`` of the sensitivity for :meth:`release`),
    discrete Laplace noise with ratio ``exp(-epsilon / Delta)`` per step is added
    in integers (``Delta`` the largest grid distance between neighbours, so the
    guarantee is exact), and the integer is converted to a float once.  For
    :meth:`release`, ``value / sensitivity`` is first clipped to the public
    range ``[-2**40, 2**40]`` (a statistic that large relative to its
    sensitivity is released as the bound; nothing is refused on account of the
    data).  The grid law's cdf is within ``epsilon / 2**(g+2)`` of the
    continuous Laplace cdf (``g`` the grid exponent: 1.5e-8 at ``epsilon = 1``
    for a proportion), so inference made for continuous Laplace noise applies
    to within that.  ``rng=None`` (the default) draws the bits from the
    operating system's cryptographic source; a seeded ``rng`` gives the same
    law, reproducibly (research only).  Details:
    :mod:`dpinfer.distributions._laplace_grid`.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser
    >>> rel = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=7)
    >>> rel.kind, rel.sensitivity == 1 / 30
    ('proportion', True)
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        # release(): the user declared the sensitivity; count/proportion: one record, n public
        unit = _mechanisms.VALUE_UNIT if method == "release" else _mechanisms.CENTRAL_UNIT
        return _mechanisms.Semantics(_mechanisms.LAPLACE, _mechanisms.REPLACE_ONE, unit)

    epsilon: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "sensitivity", _check_positive(self.sensitivity, "sensitivity"))

    def release(self, value, *, rng=None, secure=None, budget=None, array=None):
        """Release ``value + Laplace(0, sensitivity / epsilon)`` (scalar or array).

        Parameters
        ----------
        value : float or array_like
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, random bits from the
            operating system's cryptographic source.  A seed or generator: the
            seeded research path (reproducible, hence predictable: never for a
            real release).  Both paths draw exactly the same law, in integers.
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns and is ignored).
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
            ``mechanism='laplace'``, ``kind='value'``, ``n=None``, ``delta=0``.
        """
        value = _data_array(value, "value")
        bits = _bit_source(secure, rng, self.epsilon)
        _check_output_range(_VALUE_BOUND, self.epsilon, self.sensitivity)
        charge = charge_release(budget, self, "release", shape=value.shape, array=array, rng=rng,
                                secure=bits.hardened, sensitivity=self.sensitivity,
                                grid=grid_step(_VALUE_BOUND, self.epsilon, self.sensitivity))
        # value / sensitivity is clipped to the public bound +-2**40 (see Notes): the
        # clip is decided by public numbers, never a refusal that depends on the data
        with np.errstate(over="ignore"):  # an overflow to +-inf is clipped to the bound like any large value
            units = value / self.sensitivity
        units = _laplace_on_grid(bits, units, self.epsilon, bound=_VALUE_BOUND, exact=False)
        return Release(units * self.sensitivity, charge.mechanism, self.epsilon, 0.0, self.sensitivity, None, "value",
                       secure=bits.hardened, **charge.fields)

    def proportion(self, x, n, *, rng=None, secure=None, budget=None, array=None):
        """Release ``x / n + Laplace(0, 1 / (epsilon n))`` for a count ``x`` out of ``n``.

        The result is not clamped to [0, 1]: clamping would bias every method
        that inverts the noise law (normal approximation, DP-JIMI).

        Parameters
        ----------
        budget, array
            As in :meth:`release`.

        Returns
        -------
        Release
            ``mechanism='laplace'``, ``kind='proportion'``, ``sensitivity=1/n``.
        """
        n = _check_int(n, "n", minimum=1)
        x = _check_counts(x, n)
        bits = _bit_source(secure, rng, self.epsilon)
        charge = charge_release(budget, self, "proportion", shape=x.shape, array=array, n=n, rng=rng,
                                secure=bits.hardened, sensitivity=1.0 / n, grid=grid_step(n, self.epsilon) / n)
        noisy = _laplace_on_grid(bits, x, self.epsilon, bound=n, exact=True) / n
        return Release(noisy, charge.mechanism, self.epsilon, 0.0, 1.0 / n, n, "proportion", secure=bits.hardened,
                       **charge.fields)

    def count(self, x, n, *, rng=None, secure=None, budget=None, array=None):
        """Release ``x + Laplace(0, 1 / epsilon)`` for a count ``x`` out of ``n``.

        Parameters
        ----------
        budget, array
            As in :meth:`release`.

        Returns
        -------
        Release
            ``mechanism='laplace'``, ``kind='count'``, ``sensitivity=1``.
        """
        n = _check_int(n, "n", minimum=1)
        x = _check_counts(x, n)
        bits = _bit_source(secure, rng, self.epsilon)
        charge = charge_release(budget, self, "count", shape=x.shape, array=array, n=n, rng=rng,
                                secure=bits.hardened, sensitivity=1.0, grid=grid_step(n, self.epsilon))
        noisy = _laplace_on_grid(bits, x, self.epsilon, bound=n, exact=True)
        return Release(noisy, charge.mechanism, self.epsilon, 0.0, 1.0, n, "count", secure=bits.hardened,
                       **charge.fields)
