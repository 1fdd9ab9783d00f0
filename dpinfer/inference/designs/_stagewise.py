"""Inference at the end of a private Simon two-stage design: the stage-wise ordering."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import brentq

from ..._composition_rule import PARALLEL, combined_privacy, composition_rule
from ..._validation import _check_alternative, _check_confidence_level, _kind_of, _show
from ...releasers.release import Release
from ...releasers.staged import StagedRelease
from ...results import ConfidenceInterval, HTestResult
from .._curves import SidedCurve
from ..two_arm._law import _uniform_sum_tail
from ._arguments import stage_record
from ._increments import Increment, uniform_tail
from ._two_stage import SimonDesign, _integer_part, _oc

__all__ = ["simon_test"]

#: the roots in p are found to this absolute accuracy
_XTOL = 1e-12


class _Outcome:
    """An observed end of the trial: ``stage`` (1 or 2), the released values, the design's law."""

    def __init__(self, design, values):
        self.design = design
        self.stage = len(values)
        self.values = values
        self.inc1 = Increment(design.n1, design.epsilon, design.delta)
        self.inc2 = Increment(design.n2, design.epsilon, design.delta)
        self.k = sum(_integer_part(v) for v in values)
        self.s = float(sum(values))
        # the released values stand for their grid cells: moving the statistic to the cell's
        # end makes the continuous law's tail at least the grid law's (see the Notes)
        self.half = self.inc1.half_step + (self.inc2.half_step if self.stage == 2 else 0.0)

    def upper(self, theta, shift):
        """``P_theta(outcome >= observed)`` in the stage-wise ordering, the statistic moved by ``shift``."""
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if self.stage == 1:
            # stopping at stage 1 (round(Z1) <= r1, so Z1 < r1 + 1/2) ranks below every stage-2 outcome:
            # P(stage 1 and Z1 >= z1) + P(stage 2) = P(Z1 >= z1)
            c = self.s + shift
            total = np.zeros(theta.size)
            for k_min, pmf, lo, hi in self.inc1.components(theta):
                k = k_min + np.arange(pmf.shape[1])
                total += pmf @ uniform_tail(c - k, lo, hi)
            return np.clip(total, 0.0, 1.0)
        d = self.design
        # continuing (K1 > r1) with K1 + K2 > k, then the ties K1 + K2 = k ordered by Z1 + Z2
        above, _ = _oc(d.n1, d.n2, d.r1, self.k, d.epsilon, d.delta, theta)
        c = self.s + shift - self.k
        tie = np.zeros(theta.size)
        for k1_min, f1, lo1, hi1 in self.inc1.components(theta):
            k1 = k1_min + np.arange(f1.shape[1])
            cont = k1 > d.r1
            for k2_min, f2, lo2, hi2 in self.inc2.components(theta):
                j = self.k - k1[cont] - k2_min
                inside = (j >= 0) & (j < f2.shape[1])
                g = float(_uniform_sum_tail(np.array(c), lo1, hi1, lo2, hi2))
                tie += g * np.einsum("mk,mk->m", f1[:, cont][:, inside], f2[:, j[inside]])
        return np.clip(above + tie, 0.0, 1.0)

    def greater(self, theta):
        """``P(outcome >= observed)``, at least the grid law's (statistic at its cell's lower end)."""
        return self.upper(theta, -self.half)

    def less(self, theta):
        """``P(outcome <= observed)``, at least the grid law's: one minus the tail above the cell's upper end."""
        return np.clip(1.0 - self.upper(theta, self.half), 0.0, 1.0)


def _root(f, target):
    """The ``p`` in [0, 1] where the monotone ``f`` crosses ``target`` (an end when it does not)."""
    lo, hi = float(f(0.0)[0]) - target, float(f(1.0)[0]) - target
    if lo * hi > 0.0:
        return None, lo > 0.0
    return brentq(lambda p: float(f(p)[0]) - target, 0.0, 1.0, xtol=_XTOL), None


def _tails(outcome, p):
    """``(P_p(outcome >= obs), P_p(outcome <= obs))`` at one ``p``: the two tails the interval inverts
    (module level, so a result's curve pickles)."""
    return float(outcome.greater(p)[0]), float(outcome.less(p)[0])


def _lower_end(outcome, a):
    """Smallest ``p`` not rejected by the level-``a`` upper tail (``greater`` is increasing in p)."""
    root, above = _root(outcome.greater, a)
    return (0.0 if above else 1.0) if root is None else root


def _upper_end(outcome, a):
    """Largest ``p`` not rejected by the level-``a`` lower tail (``less`` is decreasing in p)."""
    root, above = _root(outcome.less, a)
    return (1.0 if above else 0.0) if root is None else root


def _values(design, releases, composition):
    """``(values, records, composition)`` from a StagedRelease, Releases or released values."""
    if isinstance(releases, StagedRelease):
        if releases.stage_sizes != ((design.n1,), (design.n2,))[:releases.n_stages] or releases.n_stages != 2:
            raise ValueError("`releases` is a staged release of another design: its stage sizes are "
                             f"{[s[0] for s in releases.stage_sizes]}, the design's ({design.n1}, {design.n2}).")
        if composition is None:
            composition = PARALLEL  # the staged release charged its stages to disjoint groups, by construction
        releases = [stage[0] for stage in releases.releases]
    try:
        if isinstance(releases, (Release, str, bytes, dict)):
            raise TypeError
        releases = list(releases)
    except TypeError:
        raise TypeError(f"`releases` must be a StagedRelease or a sequence of one or two stage releases (or "
                        f"released values); got {_kind_of(releases)}.") from None
    if not 1 <= len(releases) <= 2:
        raise ValueError(f"`releases` must hold the releases of stage 1, or of stages 1 and 2; got {len(releases)}.")
    values = []
    for s, (rel, n) in enumerate(zip(releases, design.stage_sizes), 1):
        name = f"releases[{s - 1}]"
        if isinstance(rel, Release):
            stage_record(rel, name, "simon_test")  # the one wording for a release of another mechanism or kind
            if rel.sensitivity != 1.0:
                raise ValueError(f"`{name}` must be a Tulap count release of sensitivity 1 (a stage of a "
                                 f"StagedRelease); got sensitivity {rel.sensitivity!r}.")
            if (rel.n, rel.epsilon, rel.delta) != (n, design.epsilon, design.delta):
                raise ValueError(f"`{name}` records n = {rel.n}, epsilon = {rel.epsilon!r}, delta = {rel.delta!r}, "
                                 f"but stage {s} of the design has n = {n}, epsilon = {design.epsilon!r}, "
                                 f"delta = {design.delta!r}.")
            if np.ndim(rel.value) != 0:
                raise ValueError(f"`{name}` must be one released count; got an array of shape {np.shape(rel.value)}.")
            values.append(float(rel.value))
        else:
            if isinstance(rel, (bool, np.bool_)) or not isinstance(rel, (int, float, np.integer, np.floating)):
                raise TypeError(f"`{name}` must be a Release or a released value (a float); got {_kind_of(rel)}.")
            value = float(rel)
            if not math.isfinite(value):
                raise ValueError(f"`{name}` must be a finite released value; got {value!r}.")
            if value == math.floor(value):
                raise ValueError(f"`{name}` is a whole number, which no Tulap release outputs: it looks like a "
                                 "confidential count, not a release. Pass the Release (or its released value).")
            values.append(value)
    k1 = _integer_part(values[0])
    if len(values) == 1 and k1 > design.r1:
        raise ValueError(f"`releases` holds stage 1 only, but the design continues after it (round(z1) > r1 = "
                         f"{design.r1}): pass the stage-2 release too.")
    if len(values) == 2 and k1 <= design.r1:
        raise ValueError(f"`releases` holds two stages, but the design stopped for futility after stage 1 "
                         f"(round(z1) <= r1 = {design.r1}): stage 2 is not part of this trial; pass the stage-1 "
                         "release alone.")
    composition = composition_rule(composition, releases)
    return values, [r for r in releases if isinstance(r, Release)], composition


def simon_test(design, releases, *, alternative="greater", confidence_level=0.95, composition=None):
    """Exact test, interval and median-unbiased estimate at the end of a private Simon design.

    Parameters
    ----------
    design : SimonDesign
        The design that was run (private: ``epsilon`` not None).
    releases : StagedRelease or sequence
        The run (:meth:`SimonDesign.staged_release`), or the stage releases in order: the
        stage-1 release alone when the trial stopped after stage 1, else both (each a
        :class:`~dpinfer.Release` or its released value).
    alternative : {'greater', 'less', 'two-sided'}, default 'greater'
        ``'greater'`` is the design's test (H0: ``p <= p0``).
    confidence_level : float, default 0.95
        Level of the interval (two-sided for ``'two-sided'``, one-sided otherwise).
    composition : None, 'sequential' or 'parallel'
        How the stages' privacy adds up in the printed privacy line (see
        ``dpinfer._composition_rule``): None reads the releases (a StagedRelease charged
        its stages to disjoint groups: parallel, the design's epsilon once).

    Returns
    -------
    HTestResult
        ``statistic`` the cumulative released count, ``parameter`` the patients it counts,
        ``pvalue`` exact under the stage-wise ordering at ``p0``, ``conf_int`` the interval
        by inverting it, ``estimate`` the median-unbiased estimate of ``p``,
        ``pvalue_function`` the same test at every ``p`` (the tails the interval inverts:
        ``result.plot()`` draws it over "probability of response p").

    Raises
    ------
    TypeError, ValueError
        For a non-private design, releases that are not the design's, a stage missing
        or one too many for the design's own decision, a typed whole number.

    Notes
    -----
    **The ordering** (stage-wise; Fairbanks & Madsen 1982, Jennison & Turnbull 2000, sec.
    8.4): stopping after stage 1 ranks below every outcome of stage 2 (stopping early is
    futility); within stage 1 outcomes are ordered by ``Z1``; within stage 2 by the
    design's statistic ``K1 + K2`` (the integer parts, as the rule) and among its ties by
    ``Z1 + Z2``.  So the p-value is at most alpha exactly when the design rejects (the
    design's ``r`` is the smallest with size at most alpha).

    **The tails**, exactly: after stage 1, ``P_p(outcome >= obs) = P_p(Z1 >= z1)`` (the
    stage-1 outcomes above it plus all of stage 2); after stage 2,
    ``P(K1 > r1, K1 + K2 > k) + sum_{k1 > r1} P(K1 = k1) P(K2 = k - k1) P(U1 + U2 >= s - k)``
    with ``k = round(z1) + round(z2)``, ``s = z1 + z2`` and the closed-form tail of two
    uniforms (per component of a truncated law).  A released value stands for its grid
    cell: the statistic is moved to the cell's lower end for the upper tail and to its
    upper end for the lower one (a shift of ``h`` = 2**-40 or so), so each tail is at
    least the grid law's and the test keeps its level.

    **Interval and estimate.**  Each tail is monotone in ``p``: the event ``outcome >=
    obs`` is increasing in ``(X1, X2)`` given the noise (one more responder raises ``K1``,
    ``K1 + K2`` and ``Z1 + Z2`` by one), and the binomials are stochastically increasing.
    The interval inverts the two tails (``{p : tail > (1 - level)/2}`` each side for a
    two-sided interval), so its coverage is at least the level at every ``p`` (the
    docs chapter shows it exactly on a grid, next to the naive interval's); the
    median-unbiased estimate solves ``P_p(outcome >= obs) = 1/2``.

    References
    ----------
    Jennison, C. and Turnbull, B. W. (2000).  Group sequential methods with applications
    to clinical trials.  Chapman & Hall/CRC, ch. 8.

    Koyama, T. and Chen, H. (2008).  Proper inference from Simon's two-stage designs.
    Statistics in Medicine 27, 3145-3154.

    Examples
    --------
    >>> from dpinfer import PrivacyBudget, simon_design, simon_test
    >>> d = simon_design(0.1, 0.3, epsilon=2.0, max_n=60)
    >>> run = d.staged_release(budget=PrivacyBudget(2.0))
    >>> rel = run.release(1, 3, rng=1)
    >>> run.decision
    'continue'
    >>> rel = run.release(2, 7, rng=2)
    >>> run.decision
    'stop for efficacy'
    >>> print(simon_test(d, run))
    <BLANKLINE>
    	Exact test after Simon's optimal two-stage design (Tulap releases;
    	stage-wise ordering)
    <BLANKLINE>
    data:  stages 1 and 2: z1 = 3.327703 (n1 = 11), z2 = 6.687901 (n2 = 22)
    number of successes = 10.016, number of trials = 33, p-value = 0.001295
    alternative hypothesis: true probability of success is greater than 0.1
    95 percent confidence interval:
     0.1809532 1.0000000
    sample estimates:
    probability of success (median-unbiased) 
                                   0.3089243 
    note: the design rejected H0 at the end (round(z1) + round(z2) = 10, r
          = 6)
    <BLANKLINE>
    privacy: epsilon = 2, delta = 0, Tulap mechanism, seeded path (research only)
    unit of privacy: one record (replace-one, n public)
    """
    if not isinstance(design, SimonDesign):
        raise TypeError(f"`design` must be a SimonDesign (from simon_design); got {_show(design)}.")
    if design.epsilon is None:
        raise ValueError("`design` is the non-private design (epsilon = None); simon_test analyses private "
                         "stage releases.")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    values, records, composition = _values(design, releases, composition)
    outcome = _Outcome(design, values)
    p0 = design.p0
    upper0, lower0 = float(outcome.greater(p0)[0]), float(outcome.less(p0)[0])
    tail = 1.0 - confidence_level
    if alternative == "greater":
        pvalue = upper0
        ci = (_lower_end(outcome, tail), 1.0)
    elif alternative == "less":
        pvalue = lower0
        ci = (0.0, _upper_end(outcome, tail))
    else:
        pvalue = min(1.0, 2.0 * min(upper0, lower0))
        ci = (_lower_end(outcome, tail / 2.0), _upper_end(outcome, tail / 2.0))
    root, above = _root(lambda p: outcome.upper(p, 0.0), 0.5)
    estimate = (0.0 if above else 1.0) if root is None else root
    epsilons = [design.epsilon] * len(values)
    deltas = [design.delta] * len(values)
    epsilon, delta = combined_privacy(epsilons, deltas, composition)
    n_used = design.n1 if outcome.stage == 1 else design.n
    if outcome.stage == 1:
        data = f"stage 1 of 2 (stopped for futility): z1 = {values[0]:.7g} (n1 = {design.n1})"
        note = f"the trial stopped after stage 1 (round(z1) <= r1 = {design.r1})"
    else:
        data = (f"stages 1 and 2: z1 = {values[0]:.7g} (n1 = {design.n1}), z2 = {values[1]:.7g} "
                f"(n2 = {design.n2})")
        word = "rejected" if outcome.k > design.r else "did not reject"
        note = f"the design {word} H0 at the end (round(z1) + round(z2) = {outcome.k}, r = {design.r})"
    secure = all(r.secure for r in records) if len(records) == len(values) else None
    unit = records[0].privacy_unit if len(records) == len(values) else ""
    return HTestResult(
        statistic=outcome.s, pvalue=float(pvalue), null_value=p0, alternative=alternative,
        method=f"Exact test after Simon's {design.design} two-stage design (Tulap releases; stage-wise ordering)",
        estimate=float(estimate), conf_int=ConfidenceInterval(float(ci[0]), float(ci[1]), confidence_level),
        epsilon=epsilon, delta=delta, data_name=data, statistic_name="number of successes",
        parameter=n_used, parameter_name="number of trials", estimate_name="probability of success (median-unbiased)",
        null_name="probability of success", mechanism="tulap", secure=secure, privacy_unit=unit, note=note,
        pvalue_function=SidedCurve(functools.partial(_tails, outcome), alternative, 0.0, 1.0,
                                   axis="probability of response p"))
