"""Shared plumbing of the releasers' ``secure=True`` path."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np

from .._secure import _rational_below, _secure_discrete_laplace
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


def _secure_laplace_on_grid(units, epsilon, *, exact):
    """``units`` (statistic / sensitivity) on the grid 1/1024 plus exact discrete Laplace noise.

    With ``exact`` the inputs are integers (counts), so neighbours differ by exactly
    1024 steps; otherwise rounding to the grid may add a step and the noise is
    calibrated to 1025 steps.  Returns the noisy value in units of the sensitivity.
    """
    steps = _GRID_STEPS if exact else _GRID_STEPS + 1
    grid = np.rint(np.asarray(units, dtype=float) * _GRID_STEPS).astype(np.int64)
    per_step = Fraction(_rational_below(epsilon)) / steps
    noise = _secure_discrete_laplace(grid.shape, per_step)
    return (grid + noise) / _GRID_STEPS
