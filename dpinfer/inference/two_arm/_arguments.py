"""The two-arm functions' arguments: each arm resolved once, the effect and its margin checked."""

from __future__ import annotations

import math

import numpy as np

from ..._validation import _check_choice, _check_real
from ...releasers.release import Release
from ..ump._release_inference import _resolve_release
from ._law import _arm

__all__ = []  # private module

EFFECTS = ("difference", "ratio")
#: the exact sums hold arrays of about n + 1400 / epsilon entries per nuisance value
MAX_N = 100_000
MIN_UNIT_EPSILON = 0.01
_NAMES = {"z": "z{i}", "n": "n{i}"}


def _per_arm(value, name):
    """``(value_1, value_2)`` from one value for both arms or a pair (list or tuple)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"`{name}` must be one value for both arms or a pair (arm 1, arm 2); "
                             f"got {len(value)} values.")
        return value[0], value[1]
    return value, value


def _resolve_arm(z, n, epsilon, delta, sensitivity, i):
    """Arm ``i``'s ``(z array, _Arm, release or None)`` from a Release or the explicit numbers.

    The one place the two-arm functions resolve an argument: it calls the one-arm resolver
    of the DP-UMP functions and names the arm's own arguments (``z1``, ``n2``) in its errors.
    """
    try:
        z_arr, n, epsilon, delta, k = _resolve_release(z, n, epsilon, delta, sensitivity)
    except (TypeError, ValueError) as exc:
        message = str(exc)
        for short, long in _NAMES.items():
            message = message.replace(f"`{short}`", f"`{long.format(i=i)}`")
        raise type(exc)(message) from None
    release = z if isinstance(z, Release) else None
    return z_arr, _checked_arm(n, epsilon, delta, k, i), release


def _checked_arm(n, epsilon, delta, sensitivity, i):
    """The ``_Arm`` of valid public numbers, refused (from those numbers) beyond the sums' reach."""
    if n > MAX_N:
        raise ValueError(f"`n{i}` must be at most {MAX_N} for the exact two-arm sums; got {n}.")
    if epsilon / sensitivity < MIN_UNIT_EPSILON:
        raise ValueError(
            f"`epsilon` (per unit of count: epsilon / sensitivity) must be at least "
            f"{MIN_UNIT_EPSILON} for the exact two-arm sums of arm {i} (their noise range spans "
            f"about 1400 / epsilon counts); got {epsilon!r} / {sensitivity}.")
    return _arm(n, epsilon, delta, sensitivity)


def _resolve_arms(z1, n1, z2, n2, epsilon, delta, sensitivity):
    """Both arms: ``(z1 array, z2 array, arm1, arm2, releases)``."""
    if z2 is None:
        raise TypeError("`z2` is required (the second arm's released count or its Release); got None.")
    eps = _per_arm(epsilon, "epsilon")
    dlt = _per_arm(delta, "delta")
    sens = _per_arm(sensitivity, "sensitivity")
    v1, arm1, r1 = _resolve_arm(z1, n1, eps[0], dlt[0], sens[0], 1)
    v2, arm2, r2 = _resolve_arm(z2, n2, eps[1], dlt[1], sens[1], 2)
    return v1, v2, arm1, arm2, [r for r in (r1, r2) if r is not None]


def _check_effect(effect, margin):
    """``(effect, margin)`` with the default margin (0 for a difference, 1 for a ratio)."""
    effect = _check_choice(effect, "effect", EFFECTS)
    if margin is None:
        return effect, 0.0 if effect == "difference" else 1.0
    margin = _check_real(margin, "margin")
    if effect == "difference" and not -1.0 < margin < 1.0:
        raise ValueError(f"`margin` (the null difference theta1 - theta2) must lie in (-1, 1); got {margin!r}.")
    if effect == "ratio" and not (0.0 < margin and math.isfinite(margin)):
        raise ValueError(f"`margin` (the null ratio theta1 / theta2) must be a positive finite number; "
                         f"got {margin!r}.")
    return effect, margin


def _proportions(z1, arm1, z2, arm2):
    """The point estimates ``clip(z_i / n_i, 0, 1)`` (the unbiased ones before the clip)."""
    raw = (z1 / arm1.n, z2 / arm2.n)
    return raw, tuple(float(np.clip(r, 0.0, 1.0)) for r in raw)
