"""Laplace releaser for real-valued statistics of known sensitivity."""

from __future__ import annotations

from dataclasses import dataclass

from .._validation import (
    _as_real_array,
    _check_counts,
    _check_epsilon,
    _check_int,
    _check_positive,
    _check_rng,
)
from ..budget import _charge_release
from ._secure_path import _check_secure, _secure_laplace_on_grid
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

    By default sampling uses numpy's floating-point Laplace sampler, which is open
    to the attacks of Mironov (2012) on the low-order bits.  ``secure=True``
    releases on a grid instead: the statistic is placed on the grid of step
    ``sensitivity / 1024`` (``1 / (1024 n)`` for a proportion, ``1 / 1024`` for a
    count) and discrete Laplace noise with ratio ``exp(-epsilon' / 1024)`` per step
    is added exactly, from the OS's cryptographic source (``epsilon'`` is epsilon
    rounded down to a multiple of 2**-20, or to 20 significant bits below 1/2;
    ``epsilon >= 1e-12`` and ``|value / sensitivity| < 2**40`` on this path).
    For counts and proportions the sensitivity is exactly 1024 steps, so the
    guarantee is exact; for :meth:`release` rounding to the grid can add one
    step, so the noise is calibrated to 1025 steps.  The grid noise has the
    Laplace law's variance to within a relative 1e-7 and its cdf is within
    ``epsilon / 4096`` of the continuous Laplace cdf (the atom at each grid step
    is ``tanh(epsilon / 2048)``), so inference made for continuous Laplace noise
    applies up to that error in a p-value.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser
    >>> rel = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=7)
    >>> rel.kind, rel.sensitivity == 1 / 30
    ('proportion', True)
    """

    epsilon: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "sensitivity", _check_positive(self.sensitivity, "sensitivity"))

    def release(self, value, *, rng=None, secure=False, budget=None, array=None):
        """Release ``value + Laplace(0, sensitivity / epsilon)`` (scalar or array).

        Parameters
        ----------
        value : float or array_like
        rng : None, int, SeedSequence or numpy.random.Generator
            Generator of the default path (a seed: research only).
        secure : bool, default False
            Hardened path (grid plus exact discrete Laplace from the OS's
            cryptographic source); see the class Notes.
        budget : PrivacyBudget or budget handle, optional
            Charged before any noise is drawn (see :class:`~dpinfer.PrivacyBudget`);
            a release that does not fit raises :class:`~dpinfer.BudgetExceededError`
            and draws nothing.  None (the default) charges nothing.
        array : {None, 'separate', 'disjoint'}
            Required with a budget when more than one value is released: ``'separate'``
            statistics of the same records are charged once each; ``'disjoint'`` values
            (each person's record moves at most one of them, e.g. counts of disjoint
            groups, or one vector whose whole L1 change is at most ``sensitivity``)
            are charged once in all.  Ignored without a budget.

        Returns
        -------
        Release
            ``mechanism='laplace'``, ``kind='value'``, ``n=None``, ``delta=0``.
        """
        value = _as_real_array(value, "value")
        secure = _check_secure(secure, rng)
        _charge_release(budget, self, "release", shape=value.shape, array=array, rng=rng, secure=secure)
        if secure:
            noisy = _secure_laplace_on_grid(value / self.sensitivity, self.epsilon, exact=False)
            noisy = noisy * self.sensitivity
        else:
            gen = _check_rng(rng)
            noisy = value + gen.laplace(0.0, self.sensitivity / self.epsilon, size=value.shape)
        return Release(noisy, "laplace", self.epsilon, 0.0, self.sensitivity, None, "value", secure=secure)

    def proportion(self, x, n, *, rng=None, secure=False, budget=None, array=None):
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
        secure = _check_secure(secure, rng)
        _charge_release(budget, self, "proportion", shape=x.shape, array=array, n=n, rng=rng, secure=secure)
        if secure:
            noisy = _secure_laplace_on_grid(x, self.epsilon, exact=True) / n
        else:
            gen = _check_rng(rng)
            noisy = x / n + gen.laplace(0.0, 1.0 / (self.epsilon * n), size=x.shape)
        return Release(noisy, "laplace", self.epsilon, 0.0, 1.0 / n, n, "proportion", secure=secure)

    def count(self, x, n, *, rng=None, secure=False, budget=None, array=None):
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
        secure = _check_secure(secure, rng)
        _charge_release(budget, self, "count", shape=x.shape, array=array, n=n, rng=rng, secure=secure)
        if secure:
            noisy = _secure_laplace_on_grid(x, self.epsilon, exact=True)
        else:
            gen = _check_rng(rng)
            noisy = x + gen.laplace(0.0, 1.0 / self.epsilon, size=x.shape)
        return Release(noisy, "laplace", self.epsilon, 0.0, 1.0, n, "count", secure=secure)
