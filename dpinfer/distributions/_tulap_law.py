"""The Tulap law's package-internal interface: what the other parts of dpinfer call.

Package-internal (not in ``dpinfer.__all__``, not for users): the DP-UMP kernels
(``dpinfer.inference.ump``) and the Tulap releaser (which draws its releases
itself, in ``dpinfer.releasers.tulap``: no data enters this part) reach the law
only through the names below, never through the private helpers of
:mod:`dpinfer.distributions.tulap` or ``_tulap_grid``, so those can change behind
this interface.  (The compiled kernels of ``dpinfer.inference.ump._jit``
repeat the formulas of :func:`log_cdf` in numba and are checked against it.)

**Parametrisation.**  The law is ``Tulap(0, b, q)`` (median 0; a shifted law is
reached through its argument, ``t = x - median``), given by ``log_b = log(b) =
-epsilon`` and the truncated mass ``q`` in ``[0, 1)``.  ``log_b`` rather than ``b``
keeps full precision for epsilon from 1e-12 to thousands (``b`` may underflow).
For a release, ``q`` is the mass actually truncated by the release grid
(:func:`tulap_grid`), which can differ from the continuous law's by less than one
grid cell's mass.

**Log space.**  Both tails come from the smaller one, ``log F0(-|t|)``, never as
``1 - F``: a p-value of 1e-300 keeps its digits.  The functions are vectorised
over ``t`` (or ``u``) and, being kernels, assume valid input: finite ``log_b <= 0``,
``0 <= q < 1``, and arrays of floats.

========================  ==========================================================
:class:`ReleasedTulap`    the released law as one object: ``log_b``, ``q``, grid ``half``
:func:`released_tulap`    that object at public ``(epsilon, delta, n)``
:func:`log_cdf`           ``log F(t)``: the one call per DP-UMP sum
:func:`log_tails`         ``(log F(t), log(1 - F(t)))``, both without cancellation
:func:`quantile`          ``F^-1(u)``, ``u`` in ``[0, 1]``; ``-quantile(0)`` is the
                          support's end for ``q > 0``
:func:`tulap_grid`        the dyadic grid a release of ``n`` at (epsilon, delta) lies on
:func:`unit_privacy`      the unit-shift ``(epsilon_1, delta_1)`` of a count of sensitivity k
========================  ==========================================================

Formulas and sources: the cdf of Awan & Slavkovic (2018, NeurIPS), Def. 2.3, and
its inverse; see :mod:`dpinfer.distributions.tulap` and
:mod:`dpinfer.distributions._tulap_grid` for the derivations and the checks
(mpmath at 40 digits in ``tests/reference/``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._tulap_grid import _tulap_grid, _unit_privacy
from .tulap import _log_cdf, _log_tails, _quantile

__all__ = []  # package-internal: the names below are imported explicitly


@dataclass(frozen=True)
class ReleasedTulap:
    """The Tulap law a release was drawn from, at public numbers, as one object.

    ``log_b = -epsilon_1`` and the truncated mass ``q`` of the unit-shift law, and
    ``half``, half the release grid's step (0.0 for the continuous law, where no
    release of ours has these numbers).  Built once per call by the DP-UMP
    functions and handed to their kernels, which unpack it where they reach the
    compiled sums (whose signatures stay primitive for numba).
    """

    log_b: float
    q: float
    half: float = 0.0

    def log_cdf(self, t):
        """``log F(t)`` of ``Tulap(0, exp(log_b), q)`` (see :func:`log_cdf`)."""
        return _log_cdf(t, self.log_b, self.q)

    def log_tails(self, t):
        """``(log F(t), log(1 - F(t)))`` (see :func:`log_tails`)."""
        return _log_tails(t, self.log_b, self.q)


def released_tulap(epsilon, delta, n=None):
    """The :class:`ReleasedTulap` of a unit-shift ``(epsilon, delta)`` release of a count out of ``n``.

    With ``n`` the truncated mass and the grid step are those actually released at
    that ``n`` (:func:`tulap_grid`); without it, or where no grid serves these
    numbers, the continuous law's (``half = 0``).  The two differ only when
    ``delta > 0``, by less than one grid cell's mass.
    """
    if n is not None:
        try:
            grid = _tulap_grid(n, epsilon, delta)
        except ValueError:  # no release of ours has these numbers: the continuous law
            grid = None
        if grid is not None:
            return ReleasedTulap(-epsilon, grid.q, grid.step / 2.0)
    from .tulap import Tulap

    return ReleasedTulap(-epsilon, Tulap.from_privacy(epsilon, delta).q)


def log_cdf(t, log_b, q):
    """``log F(t)`` of ``Tulap(0, exp(log_b), q)``, elementwise over a finite float array.

    The same value as ``log_tails(t, log_b, q)[0]`` in fewer array passes; ``-inf``
    below the support.  Assumes valid input (see the module notes).
    """
    return _log_cdf(t, log_b, q)


def log_tails(t, log_b, q):
    """``(log F(t), log(1 - F(t)))`` of ``Tulap(0, exp(log_b), q)``, each without cancellation.

    ``t`` may hold ``-inf`` or ``+inf``.  Assumes valid input (see the module notes).
    """
    return _log_tails(t, log_b, q)


def quantile(u, log_b, q):
    """``Q(u)`` of ``Tulap(0, exp(log_b), q)`` for ``u`` in ``[0, 1]`` (array).

    ``Q(0) = -c`` and ``Q(1) = c`` with ``c`` the end of the support when ``q > 0``
    (infinite when ``q = 0``).  Assumes valid input (see the module notes).
    """
    return _quantile(u, log_b, q)


def tulap_grid(n, epsilon, delta):
    """The release grid of :class:`~dpinfer.TulapReleaser` for a count out of ``n``.

    Returns the frozen grid description (``bits``, ``step``, ``half_width``, ``q``
    actually truncated, ...) of :mod:`dpinfer.distributions._tulap_grid`, decided
    from the public ``n``, ``epsilon``, ``delta`` alone.

    Raises
    ------
    ValueError
        Where no grid serves these numbers (the releaser refuses them).
    """
    return _tulap_grid(n, epsilon, delta)


def unit_privacy(epsilon, delta, sensitivity):
    """``(epsilon_1, delta_1)`` of the unit-shift Tulap law released for a count of ``sensitivity`` k.

    ``epsilon / k`` rounded down and, for ``delta > 0``, ``delta / sum_{j<k} e^(j epsilon_1)``
    rounded down (group privacy over the ``k`` unit steps; see
    :class:`~dpinfer.TulapReleaser`); ``k = 1`` returns the inputs.  Every function of the
    law above then takes ``epsilon_1`` (``log_b = -epsilon_1``) and ``delta_1``.
    """
    return _unit_privacy(epsilon, delta, sensitivity)
