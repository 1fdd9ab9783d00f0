"""The two-arm functions' arguments: each arm resolved once, the effect and its margin checked."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ... import _mechanisms
from ..._validation import _EFFECTS, _check_choice, _check_real
from ...releasers.release import Release
from .._resolve import accepts, arm_pair, resolve
from ._laplace_arms import MAX_N as MAX_N_LAPLACE
from ._laplace_arms import _laplace_arm
from ._law import _arm
from ._score import MAX_CELLS

__all__ = []  # private module

EFFECTS = _EFFECTS
#: the ordering statistics (``statistic=``): the linear difference of the released
#: proportions, or the score (Miettinen & Nurminen) statistic of the integer parts, ties broken
#: by the linear one; see the package docstring for the power table and the default
STATISTICS = ("difference", "score")
#: the ordering of every effect when ``statistic`` is None: the score, the more powerful by the
#: exact power table (issue 41); Laplace arms and arms beyond ``MAX_CELLS`` fall back to the
#: difference (see :func:`_ordering`), and the result's ``method`` says so
DEFAULT_STATISTIC = "score"
#: the exact sums hold arrays of about n + 1400 / epsilon entries per nuisance value
MAX_N = 100_000
MIN_UNIT_EPSILON = 0.01
#: the null ratios and odds ratios (``margin``) the sums resolve: beyond, a null ratio's line
#: or an odds ratio's curve is within rounding of the boundary 0 or 1 of the nuisance range,
#: and p-values were wrong (odds ratio 1e-12: 9e-6 where the limit is 2.6e-5; ratio 1e-300:
#: 9e-6 for 6.7e-6; 1e300: an overflow; issue 40).  The intervals scan the same range.
MARGIN_RANGE = (1e-6, 1e6)
#: the arm laws the exact sums know (``mechanism=`` of the functions taking numbers)
MECHANISMS = (_mechanisms.TULAP, _mechanisms.LAPLACE)

#: What the two-arm functions take (one declaration; see :mod:`dpinfer.inference._resolve`).
ACCEPTS = accepts({(_mechanisms.TULAP, "count"), (_mechanisms.LAPLACE, "count"),
                   (_mechanisms.LAPLACE, "proportion")}, ("binom2_ump_test", "binom2_ump_ci"),
                  "two Tulap-noised counts (TulapReleaser(...).release(x, n)) or two Laplace-noised "
                  "counts or proportions (LaplaceReleaser(...).count(x, n) or .proportion(x, n)), one per arm",
                  numbers=(_mechanisms.TULAP, "count"))
#: the same, for numbers standing for Laplace counts (``mechanism='laplace'``; not a second declaration)
_LAPLACE_NUMBERS = dataclasses.replace(ACCEPTS, numbers=(_mechanisms.LAPLACE, "count"))


def _check_mechanism(mechanism, default=None):
    """``mechanism`` checked: ``'tulap'`` or ``'laplace'`` (None: ``default``)."""
    if mechanism is None:
        return default
    return _check_choice(mechanism, "mechanism", MECHANISMS)


def _resolve_arm(z, n, epsilon, delta, sensitivity, i, method, mechanism):
    """Arm ``i``'s ``(z array, arm, Resolved record)`` from a Release or the explicit numbers.

    The one place the two-arm functions resolve an argument, through the package's one
    resolver; the arm's own arguments (``z1``, ``n2``) are named in its errors, the privacy
    arguments (one value or a pair for both arms) as ``epsilon``, ``delta``, ``sensitivity``.
    Numbers stand for a count of ``mechanism`` (None: Tulap); a Laplace proportion is
    returned as its count (``z n``), which the arm's law describes.
    """
    laplace_numbers = mechanism == _mechanisms.LAPLACE and not isinstance(z, Release)
    rec = resolve(z, n, epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                  accepts=_LAPLACE_NUMBERS if laplace_numbers else ACCEPTS,
                  method=method, name=f"z{i}", suffix=str(i), names={"epsilon": "epsilon", "delta": "delta"})
    if mechanism is not None and rec.mechanism != mechanism:
        raise ValueError(f"`mechanism` = {mechanism!r} contradicts `z{i}`, a {rec.mechanism} release; leave "
                         "`mechanism` out when passing Releases.")
    if rec.mechanism != _mechanisms.LAPLACE:
        return rec.value, _checked_arm(rec.n, rec.epsilon, rec.delta, int(rec.sensitivity), i), rec
    if rec.delta != 0.0:
        raise ValueError(f"`delta` must be 0 (or left out) for Laplace arms (pure epsilon-DP); got {rec.delta!r}.")
    if not rec.from_release and rec.sensitivity != 1.0:
        raise ValueError(f"`sensitivity` must be 1 (or left out) for Laplace counts; got {rec.sensitivity!r}.")
    value = rec.value * rec.n if rec.kind == "proportion" else rec.value
    return value, _checked_arm(rec.n, rec.epsilon, 0.0, 1, i, rec.mechanism), rec


def _checked_arm(n, epsilon, delta, sensitivity, i, mechanism=_mechanisms.TULAP):
    """The arm of valid public numbers, refused (from those numbers) beyond the sums' reach."""
    if mechanism == _mechanisms.LAPLACE:
        if n > MAX_N_LAPLACE:
            raise ValueError(f"`n{i}` must be at most {MAX_N_LAPLACE} for the exact two-arm sums of Laplace "
                             f"arms (they hold an (n1 + 1) x (n2 + 1) matrix of noise tails); got {n}.")
        if epsilon < MIN_UNIT_EPSILON:
            raise ValueError(f"`epsilon` must be at least {MIN_UNIT_EPSILON} for the exact two-arm sums of "
                             f"arm {i}; got {epsilon!r}.")
        return _laplace_arm(n, epsilon)
    if n > MAX_N:
        raise ValueError(f"`n{i}` must be at most {MAX_N} for the exact two-arm sums; got {n}.")
    if epsilon / sensitivity < MIN_UNIT_EPSILON:
        raise ValueError(
            f"`epsilon` (per unit of count: epsilon / sensitivity) must be at least "
            f"{MIN_UNIT_EPSILON} for the exact two-arm sums of arm {i} (their noise range spans "
            f"about 1400 / epsilon counts); got {epsilon!r} / {sensitivity}.")
    return _arm(n, epsilon, delta, sensitivity)


def _resolve_arms(z1, n1, z2, n2, epsilon, delta, sensitivity, method, mechanism=None):
    """Both arms: ``(z1 array, z2 array, arm1, arm2, (record 1, record 2))``.

    Both arms must have one mechanism (the sums pair two Tulap or two Laplace laws).
    """
    if z2 is None:
        raise TypeError("`z2` is required (the second arm's released count or its Release); got None.")
    mechanism = _check_mechanism(mechanism)
    eps = arm_pair(epsilon, "epsilon")
    dlt = arm_pair(delta, "delta")
    sens = arm_pair(sensitivity, "sensitivity")
    v1, arm1, r1 = _resolve_arm(z1, n1, eps[0], dlt[0], sens[0], 1, method, mechanism)
    v2, arm2, r2 = _resolve_arm(z2, n2, eps[1], dlt[1], sens[1], 2, method, mechanism)
    if r1.mechanism != r2.mechanism:
        raise ValueError(
            f"{method} compares two releases of one mechanism: two Tulap counts or two Laplace counts or "
            f"proportions; got a {r1.mechanism} {r1.kind} (arm 1) and a {r2.mechanism} {r2.kind} (arm 2). "
            "Release both arms with the same mechanism.")
    return v1, v2, arm1, arm2, (r1, r2)


def _check_effect(effect, margin):
    """``(effect, margin)`` with the default margin (0 for a difference, 1 for a ratio or odds ratio)."""
    effect = _check_choice(effect, "effect", EFFECTS)
    if margin is None:
        return effect, 0.0 if effect == "difference" else 1.0
    margin = _check_real(margin, "margin")
    if effect == "difference" and not -1.0 < margin < 1.0:
        raise ValueError(f"`margin` (the null difference theta1 - theta2) must lie in (-1, 1); got {margin!r}.")
    low, high = MARGIN_RANGE
    if effect == "ratio" and not low <= margin <= high:
        raise ValueError(f"`margin` (the null ratio theta1 / theta2) must lie in [{low:g}, {high:g}] (beyond, "
                         f"the null is numerically its boundary and the sums lose the tail); got {margin!r}.")
    if effect == "odds-ratio" and not low <= margin <= high:
        raise ValueError("`margin` (the null odds ratio theta1 (1 - theta2) / (theta2 (1 - theta1))) "
                         f"must lie in [{low:g}, {high:g}] (beyond, the null is numerically its boundary and "
                         f"the search loses the tail); got {margin!r}.")
    return effect, margin


def _proportions(z1, arm1, z2, arm2):
    """The point estimates ``clip(z_i / n_i, 0, 1)`` (the unbiased ones before the clip)."""
    raw = (z1 / arm1.n, z2 / arm2.n)
    return raw, tuple(float(np.clip(r, 0.0, 1.0)) for r in raw)


def _check_laplace_ordering(statistic, mechanism):
    """Laplace arms are ordered by the difference (the score ordering reads Tulap integer parts)."""
    if statistic == "score" and mechanism == _mechanisms.LAPLACE:
        raise ValueError("statistic='score' orders Tulap releases (by their integer parts); two Laplace "
                         "releases are ordered by the difference: leave `statistic` out.")


def _check_statistic(statistic, n1=None, n2=None):
    """The ordering statistic actually used for arms of ``n1`` and ``n2`` trials (public numbers).

    The score ordering keeps its ``(n1 + 1) x (n2 + 1)`` lattice in memory: above ``MAX_CELLS``
    cells (about 2000 per arm) the difference ordering is used instead, and the result's
    ``method`` says so.
    """
    statistic = _check_choice(statistic, "statistic", STATISTICS)
    if statistic == "score" and n1 is not None and (n1 + 1) * (n2 + 1) > MAX_CELLS:
        return "difference"
    return statistic


def score_arms_limit(ratio):
    """``(n1, MAX_CELLS)``: the largest ``n1`` whose score lattice ``(n1 + 1)(ceil(ratio n1) + 1)``
    is within ``MAX_CELLS`` (:func:`_check_statistic`'s limit), and that limit."""
    n_max = int(math.isqrt(MAX_CELLS)) - 1
    while n_max > 1 and (n_max + 1) * (max(1, math.ceil(ratio * n_max)) + 1) > MAX_CELLS:
        n_max -= 1
    return n_max, MAX_CELLS


def _ordering(statistic, effect, n1, n2, mechanism):
    """The ordering used for ``effect`` (``statistic`` None: the default, the score), checked.

    ``statistic`` None with Laplace arms falls back to ``'difference'`` (the score ordering
    reads Tulap integer parts; an explicit ``'score'`` is refused by
    :func:`_check_laplace_ordering`), as it does beyond ``MAX_CELLS`` (:func:`_check_statistic`);
    :func:`_ordering_text` says so in the result's ``method``.

    The odds ratio is ordered by its score, always: every odds-ratio null curve passes through
    the corners ``theta1 = theta2`` in {0, 1}, where the difference of the proportions is pure
    noise around 0 whatever ``psi0``, so one of the difference ordering's one-sided suprema stays
    above 1/2 and its intervals never end on that side.  The score ordering reads Tulap integer
    parts and keeps its lattice in memory, so the odds ratio is refused (from public numbers)
    for Laplace arms and beyond ``MAX_CELLS``.
    """
    if effect != "odds-ratio":
        if statistic is None and mechanism == _mechanisms.LAPLACE:
            return "difference"
        return _check_statistic(DEFAULT_STATISTIC if statistic is None else statistic, n1, n2)
    statistic = "score" if statistic is None else _check_choice(statistic, "statistic", STATISTICS)
    if statistic != "score":
        raise ValueError("statistic='difference' cannot order an odds-ratio null: every odds-ratio null "
                         "passes through theta1 = theta2 = 0 and 1, where the difference of the proportions "
                         "is pure noise around 0 whatever the odds ratio, so one of its one-sided p-values "
                         "stays above 1/2 and its intervals never end on that side; leave `statistic` out "
                         "(the odds ratio is ordered by its score).")
    if mechanism == _mechanisms.LAPLACE:
        raise ValueError("effect='odds-ratio' is exact for two Tulap releases (its score ordering reads their "
                         "integer parts); two Laplace releases support effect='difference' or 'ratio'.")
    if n1 is not None and (n1 + 1) * (n2 + 1) > MAX_CELLS:
        raise ValueError(f"effect='odds-ratio' needs (n1 + 1)(n2 + 1) at most {MAX_CELLS} (its score ordering "
                         f"keeps that lattice in memory); got n1 = {n1}, n2 = {n2}. Use effect='difference' "
                         "or 'ratio' for larger arms.")
    return statistic


#: how the result's ``method`` names each ordering
_ORDERING_NAMES = {"difference": "the difference of the released proportions",
                   "score": "the score statistic, ties by the difference"}


def _ordering_text(requested, used, mechanism):
    """The ordering as the result's ``method`` prints it, with the reason when the score was not used.

    ``requested`` is the caller's ``statistic`` (None: the default, the score), ``used`` what
    :func:`_ordering` returned: a reader sees which ordering gave the numbers and why.
    """
    text = _ORDERING_NAMES[used]
    if used == "score" or requested == "difference":
        return text
    if mechanism == _mechanisms.LAPLACE:
        return f"{text}: the default score ordering reads Tulap integer parts"
    return (f"{text}: the score ordering's lattice (n1 + 1)(n2 + 1) is limited to "
            f"{MAX_CELLS // 10**6} million cells")
