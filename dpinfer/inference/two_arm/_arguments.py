"""The two-arm functions' arguments: each arm resolved once, the effect and its margin checked."""

from __future__ import annotations

import math

import numpy as np

from ... import _mechanisms
from ..._validation import _check_choice, _check_real
from .._resolve import accepts, resolve
from ._law import _arm

__all__ = []  # private module

EFFECTS = ("difference", "ratio")
#: the exact sums hold arrays of about n + 1400 / epsilon entries per nuisance value
MAX_N = 100_000
MIN_UNIT_EPSILON = 0.01

#: What the two-arm functions take (one declaration; see :mod:`dpinfer.inference._resolve`).
ACCEPTS = accepts({(_mechanisms.TULAP, "count")}, ("binom2_ump_test", "binom2_ump_ci"),
                  "two Tulap-noised counts (TulapReleaser(...).release(x, n), one per arm)",
                  numbers=(_mechanisms.TULAP, "count"))


def _per_arm(value, name):
    """``(value_1, value_2)`` from one value for both arms or a pair (list or tuple)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"`{name}` must be one value for both arms or a pair (arm 1, arm 2); "
                             f"got {len(value)} values.")
        return value[0], value[1]
    return value, value


def _resolve_arm(z, n, epsilon, delta, sensitivity, i, method):
    """Arm ``i``'s ``(z array, _Arm, Resolved record)`` from a Release or the explicit numbers.

    The one place the two-arm functions resolve an argument, through the package's one
    resolver; the arm's own arguments (``z1``, ``n2``) are named in its errors, the privacy
    arguments (one value or a pair for both arms) as ``epsilon``, ``delta``, ``sensitivity``.
    """
    rec = resolve(z, n, epsilon=epsilon, delta=delta, sensitivity=sensitivity, accepts=ACCEPTS,
                  method=method, name=f"z{i}", suffix=str(i), names={"epsilon": "epsilon", "delta": "delta"})
    return rec.value, _checked_arm(rec.n, rec.epsilon, rec.delta, int(rec.sensitivity), i), rec


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


def _resolve_arms(z1, n1, z2, n2, epsilon, delta, sensitivity, method):
    """Both arms: ``(z1 array, z2 array, arm1, arm2, (record 1, record 2))``."""
    if z2 is None:
        raise TypeError("`z2` is required (the second arm's released count or its Release); got None.")
    eps = _per_arm(epsilon, "epsilon")
    dlt = _per_arm(delta, "delta")
    sens = _per_arm(sensitivity, "sensitivity")
    v1, arm1, r1 = _resolve_arm(z1, n1, eps[0], dlt[0], sens[0], 1, method)
    v2, arm2, r2 = _resolve_arm(z2, n2, eps[1], dlt[1], sens[1], 2, method)
    return v1, v2, arm1, arm2, (r1, r2)


def _check_effect(effect, margin):
    """``(effect, margin)`` with the default margin (0 for a difference, 1 for a ratio or odds ratio)."""
    effect = _check_choice(effect, "effect", EFFECTS)
    if margin is None:
        return effect, 0.0 if effect == "difference" else 1.0
    margin = _check_real(margin, "margin")
    if effect == "difference" and not -1.0 < margin < 1.0:
        raise ValueError(f"`margin` (the null difference theta1 - theta2) must lie in (-1, 1); got {margin!r}.")
    if effect == "ratio" and not (0.0 < margin and math.isfinite(margin)):
        raise ValueError(f"`margin` (the null ratio theta1 / theta2) must be a positive finite number; "
                         f"got {margin!r}.")
    if effect == "odds-ratio" and not (0.0 < margin and math.isfinite(margin)):
        raise ValueError("`margin` (the null odds ratio theta1 (1 - theta2) / (theta2 (1 - theta1))) "
                         f"must be a positive finite number; got {margin!r}.")
    return effect, margin


def _proportions(z1, arm1, z2, arm2):
    """The point estimates ``clip(z_i / n_i, 0, 1)`` (the unbiased ones before the clip)."""
    raw = (z1 / arm1.n, z2 / arm2.n)
    return raw, tuple(float(np.clip(r, 0.0, 1.0)) for r in raw)
