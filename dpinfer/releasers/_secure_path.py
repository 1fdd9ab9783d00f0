"""Shared plumbing of the releasers: which bits draw the noise, and the draw on the Laplace grid.

Every releaser has two paths with the same exact law (see
:mod:`dpinfer._exact_noise`): the **hardened** default (``rng=None``), whose bits
come from the operating system's cryptographic source, and the **seeded**
research path (``rng`` given), whose bits come from a numpy Generator and are
therefore predictable.  Neither adds floating-point noise to data.

**The Laplace grid** (its step, the largest grid distance ``Delta`` between
neighbours and the per-step ratio ``exp(-epsilon / Delta)``) is a law, so it lives in
:mod:`dpinfer.distributions._laplace_grid`, where the exact inference reads it too;
:func:`_laplace_on_grid` draws on it.
"""

from __future__ import annotations

import math

import numpy as np

from .._exact_noise import _GeneratorBits, _clip_to_int64, _discrete_laplace, _os_bits
from .._validation import DPInferValueError, _arg, _check_rng
from .._warnings import PrivacyWarning, warn
from ..distributions._laplace_grid import INT_LIMIT, grid_bits, noise_reach, per_step

__all__ = []  # private module

# |value / sensitivity| is clipped to this public bound on LaplaceReleaser.release.
_VALUE_BOUND = 2**40
# Below this the noise of any releaser would not fit the 64-bit integers that carry it.
_MIN_EPSILON = 1e-12


def _bit_source(secure, rng, epsilon=None, sensitivity=1):
    """The bits for one release: hardened (OS) unless a generator is asked for.

    ``secure=None`` (the default) means hardened when ``rng`` is None, seeded when
    it is given; ``secure=True`` with an ``rng`` warns and ignores the ``rng``.
    Given the ``epsilon`` of an additive-noise release (Tulap, Laplace), also
    refuses one whose noise scale ``sensitivity / epsilon`` exceeds 1e12 (public),
    which would not fit its integers; the message names the numbers the user gave.
    """
    if secure is not None and not isinstance(secure, (bool, np.bool_)):
        raise TypeError(f"`secure` must be True, False or None; got {secure!r}.")
    if epsilon is not None and sensitivity == 1 and epsilon < _MIN_EPSILON:
        raise DPInferValueError(
            _arg("epsilon"), f" must be at least {_MIN_EPSILON:g} for a release; got {epsilon!r}. Its "
            "noise, of scale 1 / epsilon, would overflow the 64-bit integers that carry it exactly."
        )
    if epsilon is not None and sensitivity != 1 and per_step(epsilon, sensitivity) < _MIN_EPSILON:
        raise DPInferValueError(
            _arg("epsilon"), " / ", _arg("sensitivity"), f" must be at least {_MIN_EPSILON:g} for a "
            f"release; got epsilon = {epsilon!r} with sensitivity = {sensitivity!r}. Its noise, of scale "
            "sensitivity / epsilon, would overflow the 64-bit integers that carry it exactly."
        )
    if secure is None:
        secure = rng is None
    if secure:
        if rng is not None:
            warn("`rng` is ignored when secure=True: a real release draws from the operating "
                 "system's cryptographic source; a seeded generator would make it predictable.",
                 PrivacyWarning)
        return _os_bits()
    return _GeneratorBits(_check_rng(rng))




def _check_output_range(bound, epsilon, sensitivity):
    """Refuse (before any charge) a ``sensitivity`` whose released values could overflow a double.

    The released units stay within ``bound`` plus the noise reach ``C = ceil(764 / epsilon) + 1``
    except with probability below ``2**-1100``; both are public.
    """
    reach = noise_reach(epsilon)
    if not math.isfinite((float(bound) + reach) * sensitivity):
        raise ValueError(
            f"`sensitivity` = {sensitivity!r} with `epsilon` = {epsilon!r} would release values beyond the "
            f"largest double ((2**{int(bound).bit_length() - 1} + {reach}) x sensitivity); rescale the "
            "statistic to a smaller sensitivity.")


def _laplace_on_grid(bits, units, epsilon, *, bound, exact):
    """Noisy ``units`` (statistic / sensitivity) on the grid: float array, exact integer sum.

    ``exact``: ``units`` are integers, or multiples of 1/2 of total L1 distance 1
    between neighbours (the histogram's one-hot halves), so neighbours are
    exactly ``2**g`` steps apart.  Otherwise ``units`` are floats computed with
    one rounding and are clipped to ``[-bound, bound]`` first.
    """
    g = grid_bits(bound, epsilon)
    units = np.asarray(units)
    if exact:
        grid = np.rint(units * 2.0**g).astype(np.int64)
        steps = 2**g
    else:
        clipped = np.clip(units.astype(float), -float(bound), float(bound))
        grid = np.rint(clipped * 2.0**g).astype(np.int64)
        steps = 2**g + math.ceil(2.0 ** (g - 52) * bound) + 1
    noise = _discrete_laplace(bits, per_step(epsilon, steps), grid.size).reshape(grid.shape)
    total = _clip_to_int64((grid + noise).reshape(-1), -INT_LIMIT, INT_LIMIT).reshape(grid.shape)
    return total / 2.0**g
