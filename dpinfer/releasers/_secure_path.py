"""Shared plumbing of the releasers: which bits draw the noise, and the Laplace grid.

Every releaser has two paths with the same exact law (see
:mod:`dpinfer._exact_noise`): the **hardened** default (``rng=None``), whose bits
come from the operating system's cryptographic source, and the **seeded**
research path (``rng`` given), whose bits come from a numpy Generator and are
therefore predictable.  Neither adds floating-point noise to data.

**The Laplace grid.**  A statistic ``v`` with sensitivity ``s`` is placed on the
grid of step ``s / 2**g`` (``units = v / s``, clipped to ``[-B, B]`` with ``B``
public), discrete Laplace noise with ratio ``exp(-epsilon / Delta)`` per step is
added in integers, and the integer is converted to a float once.  ``Delta`` is
the largest grid distance between neighbours: ``2**g`` when the units are
integers (counts) or exact multiples of the step; otherwise ``2**g +
ceil(2**(g-52) B) + 1``, which covers the rounding of ``v / s`` (relative
``2**-53``) and of the grid (one step).  ``g = min(24, 61 - bit_length(B + C +
1))`` with ``C = ceil(764 / epsilon) + 1`` keeps every sum in 64-bit integers
except with probability below ``2**-1100``; the result is clipped to
``+-(2**62 - 1)`` steps (post-processing).  At ``epsilon = 1``: a count or
proportion is on the grid ``2**-24`` of a count (``Delta = 2**24``); a general
value on ``2**-20`` of its sensitivity.  The grid law's cdf is within
``epsilon / 2**(g+2)`` of the continuous Laplace cdf, so inference made for
continuous Laplace noise (normal approximation, DP-JIMI) applies to within that.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from .._exact_noise import _GeneratorBits, _clip_to_int64, _discrete_laplace, _os_bits
from .._validation import DPInferValueError, _arg, _check_rng
from .._warnings import PrivacyWarning

__all__ = []  # private module

# |value / sensitivity| is clipped to this public bound on LaplaceReleaser.release.
_VALUE_BOUND = 2**40
_MAX_GRID_BITS = 24
_INT_LIMIT = 2**62 - 1
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
    if epsilon is not None and sensitivity != 1 and _per_step(epsilon, sensitivity) < _MIN_EPSILON:
        raise DPInferValueError(
            _arg("epsilon"), " / ", _arg("sensitivity"), f" must be at least {_MIN_EPSILON:g} for a "
            f"release; got epsilon = {epsilon!r} with sensitivity = {sensitivity!r}. Its noise, of scale "
            "sensitivity / epsilon, would overflow the 64-bit integers that carry it exactly."
        )
    if secure is None:
        secure = rng is None
    if secure:
        if rng is not None:
            warnings.warn(
                "`rng` is ignored when secure=True: a real release draws from the operating "
                "system's cryptographic source; a seeded generator would make it predictable.",
                PrivacyWarning,
                stacklevel=3,
            )
        return _os_bits()
    return _GeneratorBits(_check_rng(rng))


def _reach(epsilon):
    """``C = ceil(764 / epsilon) + 1``: the noise (in units) stays within it except with probability < 2**-1100."""
    return math.ceil(764.0 / epsilon) + 1


def _grid_bits(bound, epsilon):
    """``g``: steps of ``2**-g`` units keep ``(B + C) 2**g`` inside 64-bit integers."""
    return min(_MAX_GRID_BITS, 61 - (math.ceil(bound) + _reach(epsilon) + 1).bit_length())


def _check_output_range(bound, epsilon, sensitivity):
    """Refuse (before any charge) a ``sensitivity`` whose released values could overflow a double.

    The released units stay within ``bound`` plus the noise reach ``C = ceil(764 / epsilon) + 1``
    except with probability below ``2**-1100``; both are public.
    """
    reach = _reach(epsilon)
    if not math.isfinite((float(bound) + reach) * sensitivity):
        raise ValueError(
            f"`sensitivity` = {sensitivity!r} with `epsilon` = {epsilon!r} would release values beyond the "
            f"largest double ((2**{int(bound).bit_length() - 1} + {reach}) x sensitivity); rescale the "
            "statistic to a smaller sensitivity.")


def _grid_step(bound, epsilon, scale=1.0):
    """The spacing of :func:`_laplace_on_grid`'s output grid, in the statistic's units (``scale`` per unit)."""
    return scale * 2.0 ** -_grid_bits(bound, epsilon)


def _per_step(epsilon, steps):
    """``epsilon / steps`` rounded down (never more privacy loss than claimed)."""
    lam = epsilon / steps
    if Fraction(lam) > Fraction(epsilon) / steps:
        lam = math.nextafter(lam, 0.0)
    return lam


def count_grid(n, epsilon):
    """``(g, lam)`` of a Laplace count or proportion out of ``n``: grid ``2**-g`` of a count, ratio ``exp(-lam)``.

    Package-internal interface (the exact two-arm inference reads the released law from
    it): :meth:`LaplaceReleaser.count` and ``.proportion`` draw ``x 2**g + D`` with ``D``
    discrete Laplace, ``P(D = d)`` proportional to ``exp(-lam |d|)``, ``lam`` the per-step
    epsilon rounded down (:func:`_per_step`), and release it times ``2**-g`` (``/ n``).
    """
    g = _grid_bits(n, epsilon)
    return g, _per_step(epsilon, 2**g)


def count_grid_resolves_whole(n, epsilon):
    """Whether a whole count (or a proportion ``k / n``) is told apart from Laplace releases out of ``n``.

    Package-internal interface (the resolver's rule for typed values).  True when
    ``n + C < 2**(52 - g)`` (``g``, ``C`` of :func:`count_grid`; ``n <= 2**28 - C`` at
    the full grid ``g = 24``, e.g. every ``n`` below 2.6e8 at ``epsilon >= 0.1``).
    Then a released count ``c = T / 2**g`` (``|T| < 2**53``, except with probability
    below ``2**-1100``) is exact in a double, and is whole only when the discrete
    Laplace draw is a multiple of ``2**g``: probability ``tanh(lam / 2) /
    tanh(2**g lam / 2)`` (``lam`` of :func:`count_grid`; 6.4e-8 at ``epsilon = 1``,
    about ``2**-g`` for small epsilon, ``epsilon 2**-(g+1)`` for large).  A released
    proportion ``fl(c / n)`` that is not whole-count equals no ``fl(k / n)``: ``c`` and
    ``k`` differ by at least ``2**-g``, so ``c / n`` and ``k / n`` by ``2**-g / n``, more
    than one unit in the last place of ``(n + C) / n`` (at most ``2**-52 (n + C) / n``).
    Beyond that size the doubles round the grid and the rule says nothing (False).
    """
    g, _ = count_grid(n, epsilon)
    return n + _reach(epsilon) < 2 ** (52 - g)


def _laplace_on_grid(bits, units, epsilon, *, bound, exact):
    """Noisy ``units`` (statistic / sensitivity) on the grid: float array, exact integer sum.

    ``exact``: ``units`` are integers, or multiples of 1/2 of total L1 distance 1
    between neighbours (the histogram's one-hot halves), so neighbours are
    exactly ``2**g`` steps apart.  Otherwise ``units`` are floats computed with
    one rounding and are clipped to ``[-bound, bound]`` first.
    """
    g = _grid_bits(bound, epsilon)
    units = np.asarray(units)
    if exact:
        grid = np.rint(units * 2.0**g).astype(np.int64)
        steps = 2**g
    else:
        clipped = np.clip(units.astype(float), -float(bound), float(bound))
        grid = np.rint(clipped * 2.0**g).astype(np.int64)
        steps = 2**g + math.ceil(2.0 ** (g - 52) * bound) + 1
    noise = _discrete_laplace(bits, _per_step(epsilon, steps), grid.size).reshape(grid.shape)
    total = _clip_to_int64((grid + noise).reshape(-1), -_INT_LIMIT, _INT_LIMIT).reshape(grid.shape)
    return total / 2.0**g
