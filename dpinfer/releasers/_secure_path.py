"""Shared plumbing of the releasers' ``secure=True`` path."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np

from .._secure import _check_secure_epsilon, _rational_below, _secure_discrete_laplace
from .._warnings import PrivacyWarning

__all__ = []  # private module

_GRID_STEPS = 1024  # grid steps per unit of sensitivity on the hardened Laplace path


def _check_secure(secure, rng):
    """Validate ``secure``; warn (and ignore ``rng``) when a generator comes with it."""
    if not isinstance(secure, (bool, np.bool_)):
        raise TypeError(f"`secure` must be True or False; got {secure!r}.")
    if secure and rng is not None:
        warnings.warn(
            "`rng` is ignored when secure=True: a real release draws from the operating "
            "system's cryptographic source; a seeded generator would make it predictable.",
            PrivacyWarning,
            stacklevel=3,
        )
    return bool(secure)


# Largest |statistic / sensitivity| on the hardened Laplace path: below 2**40 the
# quotient's rounding error (< 2**-13 units) moves the grid by under a quarter
# step, so neighbours stay within the 1025 steps the noise is calibrated to; far
# beyond it the grid (int64, float spacing) could no longer hold the guarantee.
_MAX_UNITS = 2.0**40


def _secure_laplace_on_grid(units, epsilon, *, exact):
    """``units`` (statistic / sensitivity) on the grid 1/1024 plus exact discrete Laplace noise.

    With ``exact`` the inputs are integer counts (an int array), so neighbours
    differ by exactly 1024 steps and the grid is computed in integer arithmetic;
    otherwise rounding to the grid may add a step and the noise is calibrated to
    1025 steps.  Returns the noisy value in units of the sensitivity (the
    conversion of the noisy integer to a float is post-processing).

    Raises
    ------
    ValueError
        If ``|units| >= 2**40`` (the value is too large relative to the
        sensitivity for the grid to carry the guarantee), or a count is
        ``>= 2**52``, or ``epsilon < 1e-12``.
    """
    _check_secure_epsilon(epsilon)
    units = np.asarray(units)
    if exact:
        if np.any(units >= 2**52):
            raise ValueError(
                "`x` must be below 2**52 on the hardened path (secure=True), so that the grid "
                f"of 1/1024 fits in 64-bit integers; got {int(units.max())}."
            )
        grid = units.astype(np.int64) * _GRID_STEPS
        steps = _GRID_STEPS
    else:
        units = units.astype(float)
        too_big = ~(np.abs(units) < _MAX_UNITS)
        if too_big.any():
            raise ValueError(
                "`value` / `sensitivity` must be below 2**40 in absolute value on the hardened "
                f"path (secure=True); got {float(units[too_big].flat[0])!r}. Rescale the statistic "
                "or use a larger sensitivity."
            )
        grid = np.rint(units * _GRID_STEPS).astype(np.int64)
        steps = _GRID_STEPS + 1
    per_step = Fraction(_rational_below(epsilon)) / steps
    noise = _secure_discrete_laplace(grid.shape, per_step)
    return (grid + noise) / _GRID_STEPS
