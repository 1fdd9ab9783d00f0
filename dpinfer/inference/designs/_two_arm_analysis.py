"""``sequential_test``: exact inference at the end of a two-arm group-sequential design."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize

from ..._composition_rule import combined_privacy, composition_rule
from ..._validation import _check_confidence_level, _check_real, _kind_of, _show
from ...releasers.release import Release
from ...results import ConfidenceInterval, HTestResult
from .._curves import SidedCurve
from . import _walk_law as _gs
from ._arguments import stage_record
from ._group_sequential import SequentialDesign

__all__ = ["sequential_test"]

#: tolerance of the interval's ends and of the estimate (in the difference)
XTOL = 1e-8


def _stages(design, releases):
    """The per-stage pairs of releases, checked against the design; returns the integer parts."""
    staged = getattr(releases, "releases", None)
    if staged is not None and not isinstance(releases, (list, tuple)):
        releases = staged
    if not isinstance(releases, (list, tuple)) or not releases:
        raise TypeError(f"`releases` must be the design's StagedRelease or a non-empty sequence of "
                        f"(release1, release2) pairs, one per look; got {_kind_of(releases)}.")
    if len(releases) > design.looks:
        raise ValueError(f"`releases` holds {len(releases)} looks; the design has {design.looks}.")
    sizes = design.stage_sizes()
    for s, pair in enumerate(releases):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(isinstance(r, Release) for r in pair):
            raise TypeError(f"`releases[{s}]` must be a pair (release1, release2) of Release objects; "
                            f"got {_kind_of(pair)}.")
        for a, r in enumerate(pair):
            where = f"`releases[{s}][{a}]`"
            stage_record(r, f"releases[{s}][{a}]", "sequential_test")  # the one wording for another release
            if r.n != sizes[s][a]:
                raise ValueError(f"{where} must be of the stage's {sizes[s][a]} new patients of arm {a + 1} "
                                 f"(the design's stage sizes); got n = {r.n}.")
            if r.epsilon != design.epsilon or r.delta != design.delta or r.sensitivity != 1:
                raise ValueError(f"{where} must be released at the design's epsilon = {design.epsilon}, delta = "
                                 f"{design.delta}, sensitivity 1; got epsilon = {r.epsilon}, delta = {r.delta}, "
                                 f"sensitivity = {r.sensitivity}.")
            if np.ndim(r.value) != 0:
                raise ValueError(f"{where} must hold one released value; got an array.")
    return releases


def _observed(design, releases):
    """``(k, w)``: the look the trial stopped at (0-based) and its lattice value ``W_k``."""
    lat = design._lattice
    z1 = [float(p[0].value) for p in releases]
    z2 = [float(p[1].value) for p in releases]
    for look in range(1, len(releases) + 1):
        decision = design.decide(look, z1, z2)
        if decision == "stop for efficacy" and look < len(releases):
            raise ValueError(f"the design stopped for efficacy at look {look}; `releases` holds "
                             f"{len(releases)} looks. Analyse the trial at look {look}.")
    last = len(releases)
    if last < design.looks and design.decide(last, z1, z2) == "continue":
        raise ValueError(f"the trial has not stopped at look {last} (the design says continue); inference "
                         "at the end needs the look it stopped at.")
    return last - 1, design._statistic(last, z1, z2), lat


def _tail(lat, efficacy, k, w):
    """``f(theta1, theta2)``: P(an outcome at least as extreme as ``(k, w)``) (stage-wise)."""
    return _gs._rejection(lat, efficacy, k, last=w)


def _sup(lat, f, delta, located_only, direction=1):
    """``sup_nu f(nu + margin, nu)`` with ``margin = sign delta`` on the difference scale."""
    return _gs.sup_common(lat, f, margin=lat.sign * delta, located_only=located_only, direction=direction)[0]


def _upper_pvalue(lat, efficacy, k, w, delta, located_only=False):
    """``sup P_delta(outcome >= observed)``: increasing in ``delta`` (the design's direction)."""
    return min(1.0, _sup(lat, _tail(lat, efficacy, k, w), delta, located_only))


def _lower_pvalue(lat, efficacy, k, w, delta, located_only=False):
    """``sup P_delta(outcome <= observed) = sup [1 - P_delta(outcome >= (k, w + 1))]``: decreasing."""
    above = _tail(lat, efficacy, k, w + 1)
    return min(1.0, _sup(lat, lambda t1, t2: 1.0 - above(t1, t2), delta, located_only, direction=-1))


def _difference_tails(lat, efficacy, k, w, x):
    """``(p_greater, p_less)`` at the difference ``theta1 - theta2 = x``: the located suprema the
    interval inverts, ``p_greater`` the tail of a larger difference (module level: a result's curve pickles)."""
    d = lat.sign * x  # the design's direction
    upper = _upper_pvalue(lat, efficacy, k, w, d, True)
    lower = _lower_pvalue(lat, efficacy, k, w, d, True)
    return (upper, lower) if lat.sign > 0 else (lower, upper)


def _root(g, level, increasing):
    """The ``delta`` in [-1, 1] (the design's direction) where ``g`` crosses ``level``."""
    def h(d):
        return g(d) - level
    lo, hi = -1.0 + 1e-12, 1.0 - 1e-12
    h_lo, h_hi = h(lo), h(hi)
    if increasing:
        if h_lo > 0:
            return -1.0
        if h_hi <= 0:
            return 1.0
    else:
        if h_hi > 0:
            return 1.0
        if h_lo <= 0:
            return -1.0
    return float(optimize.brentq(h, lo, hi, xtol=XTOL))


def sequential_test(design, releases, *, margin=0.0, confidence_level=0.95, composition=None):
    """Exact inference at the end of a two-arm group-sequential design (stage-wise ordering).

    Parameters
    ----------
    design : SequentialDesign
        The design that was run (:func:`~dpinfer.sequential_design`).
    releases : StagedRelease or sequence of (Release, Release)
        The run (:meth:`SequentialDesign.staged_release`) or its releases, one pair per look
        up to the look the trial stopped at.
    margin : float, default 0.0
        The null difference ``theta1 - theta2``: ``H0: theta1 - theta2 <= margin``
        (``>=`` for a design planned with ``theta1 < theta2``).
    confidence_level : float, default 0.95
        Level of the two-sided interval for ``theta1 - theta2``.
    composition : None, 'sequential' or 'parallel'
        How the result states the releases' privacy (``dpinfer._composition_rule``): None
        reads the releases, 'parallel' (one epsilon for the design) when they record their
        disjoint groups of one budget (a run with ``budget=``), else 'sequential' (the sum,
        which never understates); 'parallel' is your statement that stages and arms are
        disjoint people, as the design's are.

    Returns
    -------
    HTestResult
        ``pvalue`` (one-sided, the design's alternative), ``conf_int`` for the difference
        (each end a one-sided ``(1 - level) / 2`` bound), ``estimate`` the median-unbiased
        estimate, ``statistic`` the released difference of cumulative proportions (integer
        parts) at the look the trial stopped at, ``parameter`` that look,
        ``pvalue_function`` the two-sided function the interval inverts (below).

    Raises
    ------
    TypeError, ValueError
        For releases that are not the design's (sizes, privacy, mechanism), a trial that has
        not stopped at the last look given, or looks beyond an efficacy stop.

    Notes
    -----
    **The ordering** (stage-wise; Armitage 1957, Tsiatis, Rosner & Mehta 1984; Jennison &
    Turnbull 2000, section 8.4): an outcome ``(k', w')`` is at least as extreme as the
    observed ``(k, w)`` when it stopped for efficacy at an earlier look, or reached look
    ``k`` and had ``W_k >= w``.  Futility boundaries are non-binding and are ignored, so the
    p-value is valid whether or not the trial followed them.  The p-value is
    ``sup_nu P_{nu + margin, nu}(at least as extreme)``, the supremum over the common rate
    certified as in the design (an upper bound).  The interval inverts the two one-sided
    tests (the set of differences neither rejects at ``(1 - level) / 2``), its ends found
    by Brent's method to 1e-8 with the located suprema; the estimate is the midpoint of
    the two one-sided 50% limits (the median-unbiased estimate; the two coincide without a
    nuisance).  Unlike the naive fixed-sample interval, its coverage holds after early
    stopping.

    **The curve** (``result.pvalue_function``, drawn by ``result.plot()``) is the function
    the interval inverts: ``min(1, 2 min(p_greater(x), p_less(x)))`` at the difference
    ``x``, the one-sided tails with their suprema located (as for the interval's ends, so it
    crosses ``1 - level`` at them); ``.sides(x)`` gives the two tails.  At the margin the
    tail in the design's direction is the printed p-value up to its certificate (the
    certified bound is at most ``1e-9`` relative, plus ``1e-13``, above the located value).

    Examples
    --------
    >>> from dpinfer import sequential_design, sequential_test
    >>> d = sequential_design(0.5, 0.3, looks=3, epsilon=1.0)
    >>> run = d.staged_release()
    >>> rel = run.release(1, [24, 10], rng=1)
    >>> run.decision
    'continue'
    >>> rel = run.release(2, [21, 13], rng=2)
    >>> run.decision
    'stop for efficacy'
    >>> res = sequential_test(d, run)
    >>> round(res.pvalue, 6), [round(x, 3) for x in res.conf_int]
    (0.001032, [0.099, 0.433])
    """
    if not isinstance(design, SequentialDesign):
        raise TypeError(f"`design` must be a SequentialDesign (from sequential_design); got {_show(design)}.")
    if design.epsilon is None:
        raise ValueError("a non-private design (`epsilon` = None) has no releases to analyse.")
    margin = _check_real(margin, "margin")
    if not -1.0 < margin < 1.0:
        raise ValueError(f"`margin` must lie in (-1, 1); got {margin!r}.")
    level = _check_confidence_level(confidence_level)
    releases = _stages(design, releases)
    flat = [r for pair in releases for r in pair]
    composition = composition_rule(composition, flat)
    epsilon, delta = combined_privacy([r.epsilon for r in flat], [r.delta for r in flat], composition)
    k, w, lat = _observed(design, releases)
    eff = design.efficacy
    sign = lat.sign
    pvalue = _upper_pvalue(lat, eff, k, w, sign * margin)
    tail = (1.0 - level) / 2.0
    low = _root(lambda d: _upper_pvalue(lat, eff, k, w, d, True), tail, increasing=True)
    high = _root(lambda d: _lower_pvalue(lat, eff, k, w, d, True), tail, increasing=False)
    med_low = _root(lambda d: _upper_pvalue(lat, eff, k, w, d, True), 0.5, increasing=True)
    med_high = _root(lambda d: _lower_pvalue(lat, eff, k, w, d, True), 0.5, increasing=False)
    estimate = (med_low + med_high) / 2.0
    ends = sorted((sign * low, sign * high))
    statistic = sign * w / lat.scale(k)
    stopped = design.decide(k + 1, [p[0].value for p in releases], [p[1].value for p in releases])
    secure = all(r.secure for p in releases for r in p)
    return HTestResult(
        statistic=statistic, pvalue=pvalue, null_value=margin, alternative=design.alternative,
        method=(f"Exact group-sequential test of two proportions (stage-wise ordering, sup over the common "
                f"rate), {_SPENDING_NAME.get(design.spending, 'user')} spending, {design.looks} looks"),
        estimate=sign * estimate, conf_int=ConfidenceInterval(ends[0], ends[1], level),
        epsilon=epsilon, delta=delta,
        data_name=(f"releases of {k + 1} of {design.looks} looks; n1 = {lat.n1[k]}, n2 = {lat.n2[k]}; "
                   f"{stopped} at look {k + 1}"),
        statistic_name="difference", estimate_name="median-unbiased difference",
        null_name="difference in proportions", mechanism="tulap", parameter=k + 1, parameter_name="look",
        secure=secure, privacy_unit=releases[0][0].privacy_unit or "",
        pvalue_function=SidedCurve(functools.partial(_difference_tails, lat, eff, k, w), "two-sided", -1.0, 1.0,
                                   label="two-sided p-value function of the interval"),
        note=(f"{composition} composition of the {len(flat)} releases"
              + ("" if composition == "parallel" else
                 " (they record no disjoint groups of one budget; composition='parallel' states the design's)")))


_SPENDING_NAME = {"obrien-fleming": "O'Brien-Fleming", "pocock": "Pocock"}
