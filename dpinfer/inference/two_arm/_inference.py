"""The exact two-arm test and interval from two Tulap releases (``binom2_ump_test``, ``binom2_ump_ci``)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ... import _mechanisms
from ..._progress import _check_progress, start
from ..._printing import _released
from ..._validation import _check_alternative, _check_confidence_level
from ...results import ConfidenceInterval, HTestResult
from .._resolve import composed, provenance, release_first
from ._arguments import _check_effect, _check_laplace_ordering, _ordering, _ordering_text, _proportions, _resolve_arms
from ._interval import _interval, _interval_units
from ._laplace_arms import _route_note
from ._score import _Observed, _statistic
from ._supremum import SUP_UNITS, _null, _pvalues

__all__ = ["binom2_ump_ci", "binom2_ump_test"]

_METHOD = ("Exact unconditional two-sample DP test of proportions ({} releases; "
           "ordered by {})")
_NAME = {"difference": "difference in proportions", "ratio": "ratio of proportions",
         "odds-ratio": "odds ratio"}


def _estimate(effect, props, raw):
    """``(estimate, estimate_raw)`` of the effect from the clipped (and raw) proportions.

    An undefined ratio (``0 / 0``: no events in both arms, or for the odds ratio every trial an
    event in both) is reported as 0 and a positive one over 0 as ``inf``, as R's
    ``fisher.test`` reports the odds ratio of a table on the edge of its support.
    """
    p1, p2 = props
    if effect == "difference":
        return p1 - p2, raw[0] - raw[1]
    num, den = (p1, p2) if effect == "ratio" else (p1 * (1.0 - p2), p2 * (1.0 - p1))
    if den > 0.0:
        return num / den, None
    return (math.inf if num > 0.0 else 0.0), None


def _margin_pvalues(arm1, arm2, z1, z2, effect, statistic, alternative, margins):
    """The test's p-value for the same releases at each of ``margins`` (the confidence curve).

    Each value is the exact certified p-value :func:`binom2_ump_test` reports at that margin
    (the statistic ``z1/n1 - c z2/n2`` moves with ``c`` for a ratio), so the curve lies above
    ``1 - confidence_level`` exactly on the interval; margins outside the effect's range
    give NaN (no test there).
    """
    values = np.asarray(margins, dtype=float)
    out = np.full(values.shape, np.nan)
    for i, value in enumerate(values.flat):
        try:
            _, margin = _check_effect(effect, float(value))
        except ValueError:
            continue
        null = _null(effect, margin)
        t = _Observed(z1, z2) if statistic == "score" else z1 / arm1.n - null.coefficient * z2 / arm2.n
        out.flat[i] = min(max(_pvalues(arm1, arm2, null, t, alternative)[0], 0.0), 1.0)
    return out if values.ndim else float(out)


def _privacy_note(arm1, arm2):
    def arm(a):
        text = f"epsilon = {a.epsilon:g}, delta = {a.delta:g}"
        return text if a.sensitivity == 1 else f"{text}, sensitivity {a.sensitivity}"

    return f"arm 1: {arm(arm1)}; arm 2: {arm(arm2)}"


@release_first(skip=("n1", "n2"))
def binom2_ump_test(z1, n1=None, z2=None, n2=None, *, epsilon=None, delta=None, sensitivity=None,
                    effect="difference", margin=None, alternative="two-sided", confidence_level=0.95,
                    composition=None, statistic=None, mechanism=None, progress=None):
    """Exact unconditional test comparing two proportions from two Tulap- or Laplace-noised counts.

    Two independent arms, ``X_i ~ Binomial(n_i, theta_i)``, each released as ``Z_i = X_i + N_i``
    by :class:`~dpinfer.TulapReleaser` or by :class:`~dpinfer.LaplaceReleaser` (``.count`` or
    ``.proportion``; both arms by the same mechanism).  The test of the risk difference
    ``H0: theta1 - theta2 = Delta0`` (``effect='difference'``, ``margin=Delta0``), the risk
    ratio ``H0: theta1 / theta2 = rho0`` (``effect='ratio'``, ``margin=rho0``) or, for Tulap
    releases, the odds ratio ``H0: theta1 (1 - theta2) / (theta2 (1 - theta1)) = psi0``
    (``effect='odds-ratio'``, ``margin=psi0``) is exact: its
    p-value is the supremum over the nuisance parameter of an exact tail (Barnard's
    unconditional approach), so the size is at most alpha at every ``(theta1, theta2)`` of
    the null, for the law actually released.  A margin gives the non-inferiority or
    superiority test of a trial protocol (e.g. ``margin=-0.1, alternative='greater'``:
    ``H1: theta1 - theta2 > -0.1``).

    Parameters
    ----------
    z1, z2 : float, array_like or Release
        The two released counts (or many pairs, broadcast together).  A
        :class:`~dpinfer.Release` carries its ``n``, ``epsilon``, ``delta`` and sensitivity,
        which must then not be given: ``binom2_ump_test(rel1, rel2)``.  A Laplace
        proportion release is tested through its count ``z n``.
    n1, n2 : int
        Numbers of trials of the arms (public), >= 1.  Required for a number.
    epsilon, delta, sensitivity : float, or a pair (arm 1, arm 2)
        The releases' privacy parameters (``delta`` defaults to 0, ``sensitivity`` to 1),
        one value for both arms or a pair.  Required (``epsilon``) for numbers.
    effect : {'difference', 'ratio', 'odds-ratio'}, default 'difference'
    margin : float, optional
        ``Delta0`` in (-1, 1) (default 0) for a difference, ``rho0`` in [1e-6, 1e6] (default 1)
        for a ratio, ``psi0`` in [1e-6, 1e6] (default 1) for an odds ratio.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'``: ``H1: theta1 - theta2 > Delta0`` (``theta1 / theta2 > rho0``, the odds
        ratio above ``psi0``).
    confidence_level : float, default 0.95
        Level of the interval in ``conf_int`` (:func:`binom2_ump_ci`, same alternative).
    composition : {None, 'sequential', 'parallel'}, default None
        How the two arms' epsilons and deltas combine in the result.  None reads the
        releases: ``'parallel'`` (the larger of each) only when they record different groups
        of one budget's parallel set (arms released with ``budget=b.parallel(label).group(arm)``),
        else ``'sequential'`` (the sums, never understated).  One rule for every method
        (:func:`~dpinfer.prop_test`, docs "Privacy budgets"); ``'parallel'`` states disjoint
        arms for typed numbers.
    statistic : {None, 'difference', 'score'}, default None
        The ordering of the releases: ``'difference'``, the difference of the released
        proportions ``z1/n1 - c z2/n2``; ``'score'``, the score statistic of the null
        (Miettinen & Nurminen; Barnard's pooled z at no difference) of the releases' integer
        parts ``round(z_i)``, ties broken by the difference, more powerful away from
        proportions near 1/2 (it loses at most 0.022 of power near 1/2; its interval scans
        the margins: about 0.2 s at n = 100 per arm, seconds at n = 1000).  Both tests are
        exact; see :mod:`dpinfer.inference.two_arm` for the power table.  None (the
        default): ``'score'``, except for Laplace arms (the score ordering reads Tulap
        integer parts; an explicit ``'score'`` is refused for them) and for arms with
        ``(n1 + 1)(n2 + 1)`` above 4e6 (its lattice is kept in memory), which use
        ``'difference'``; the result's ``method`` says which ordering was used and why.  The
        odds ratio has no other than the score (the difference cannot tell odds ratios
        apart at the rates 0 and 1 that every odds-ratio null holds; it is refused with that
        reason).
    mechanism : {None, 'tulap', 'laplace'}, default None
        The noise law of numbers given for ``z1``, ``z2``: None or ``'tulap'`` for Tulap
        counts, ``'laplace'`` for Laplace counts (``LaplaceReleaser(epsilon).count``, on the
        releaser's grid for ``n`` and ``epsilon``).  Releases carry their own.
    progress : None, bool or callable, default None
        Progress of a long call (large arms, the score ordering's interval; see
        :ref:`progress`): None shows a line on stderr once the call has run 2 s, if stderr
        is a terminal; True always, False never; a callable gets ``(done, total, message)``,
        the units being the steps of the suprema computed (a located supremum, an
        evaluation of its certificate).

    Returns
    -------
    HTestResult or ndarray
        For one pair: ``statistic`` (``T = z1/n1 - c z2/n2``, ``c = rho0`` for a ratio, 1
        otherwise; with ``statistic='score'`` the score ``g`` at ``(round(z1), round(z2))``
        clipped to the counts' ranges), ``pvalue``, ``null_value`` (the margin),
        ``alternative``, ``method``, ``estimate`` (``prop 1 - prop 2`` or ``prop 1 / prop 2``,
        or the odds ratio ``prop 1 (1 - prop 2) / (prop 2 (1 - prop 1))``, with
        ``prop i = clip(z_i / n_i, 0, 1)``; ``estimate_raw`` the unclipped difference),
        ``conf_int``, ``epsilon`` and ``delta`` (composed), ``data_name``, ``note`` (both
        proportions, both arms' privacy and, for Laplace arms, how the noise tails were
        summed), ``mechanism`` ('tulap' or 'laplace').  For arrays: the p-values.

    Raises
    ------
    TypeError
        If a required argument is missing or has the wrong type.
    ValueError
        For an invalid value, arguments given again with a Release, or a release that is
        not a Tulap count or a Laplace count or proportion, or one arm of each mechanism;
        for the odds ratio, Laplace arms, ``statistic='difference'`` or more than 4e6
        lattice cells ``(n1 + 1)(n2 + 1)``.

    See Also
    --------
    binom2_ump_ci, binom2_ump_power, binom2_ump_sample_size, binom2_normal_test, binom2_jimi_test

    Notes
    -----
    ``p_greater = sup_nu P_nu(T >= t)`` over the null boundary (``theta1 = nu + Delta0`` or
    ``rho0 nu``), ``p_less`` likewise, and the two-sided
    p-value is ``min(1, 2 min(p_greater, p_less))``, which is the test the two-sided interval
    inverts.  The tails are exact finite sums (see :mod:`dpinfer.inference.two_arm`); the
    supremum is located on a 65-point grid refined by Brent's method at every grid maximum
    that a monotonicity bound cannot rule out, then *certified*: the p-value reported is an
    upper bound of the supremum proved from a bound on the tail's curvature (at most
    1e-12 relative above the located value; for arms up to about 2000 each, beyond which
    the located supremum is reported), so no part of the nuisance range the grid
    skipped can hold a larger tail.  A release ``z_i`` stands for its grid cell
    ``[z_i - h_i/2, z_i + h_i/2]`` and ``t`` is moved to the cells' least favourable end
    (as the one-arm tests do), so the test keeps its level for the released law.

    Laplace arms (see :mod:`dpinfer.inference.two_arm`, *Laplace arms*): the release is
    exactly on its grid, so no cell is needed; the tail of the risk difference is summed
    exactly for the grid law (residue
    classes of the integer noise), and that of the ratio is the continuous Laplace tail plus
    a bound on the grid law's distance from it (below 1e-7 at epsilon = 1), which keeps the
    size at most alpha.  ``note`` says which.

    Checked against an independent mpmath computation that sums over the counts and
    integrates the noises numerically (``tests/reference/make_two_arm.py``; relative
    agreement below 1e-10 up to n = 200 per arm) and, with epsilon = 50, against the
    non-private unconditional mid-p test of the difference computed by enumeration (the
    uniform parts of the releases randomise ties).

    References
    ----------
    .. [1] Barnard, G. A. (1947).  Significance tests for 2 x 2 tables.  Biometrika 34.
    .. [2] Awan, J. and Slavkovic, A. (2018).  Differentially private uniformly most powerful
       tests for binomial data.  NeurIPS 31.
    .. [3] Chan, I. S. F. and Zhang, Z. (1999).  Test-based exact confidence intervals for
       the difference of two binomial proportions.  Biometrics 55.

    Examples
    --------
    >>> from dpinfer import TulapReleaser, binom2_ump_test
    >>> rel = TulapReleaser(epsilon=1.0)
    >>> arm1, arm2 = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    >>> res = binom2_ump_test(arm1, arm2)
    >>> round(res.pvalue, 4)
    0.0162
    >>> res.epsilon, res.composition, res.estimate_name
    (2.0, 'sequential', 'difference in proportions')

    Arms of one trial are disjoint people: charged to two groups of one budget's
    parallel set, the releases record it and the result states parallel composition:

    >>> from dpinfer import PrivacyBudget
    >>> arms = PrivacyBudget(1.0).parallel("arms")
    >>> arm1 = rel.release(41, 60, rng=1, budget=arms.group("treatment"))
    >>> arm2 = rel.release(27, 60, rng=2, budget=arms.group("control"))
    >>> res = binom2_ump_test(arm1, arm2)
    >>> round(res.pvalue, 4), res.epsilon, res.composition
    (0.0162, 1.0, 'parallel')

    Two Laplace releases (counts or proportions) get the same test for their law:

    >>> from dpinfer import LaplaceReleaser
    >>> lap = LaplaceReleaser(epsilon=1.0)
    >>> res = binom2_ump_test(lap.count(41, 60, rng=1), lap.count(27, 60, rng=2))
    >>> round(res.pvalue, 4), res.mechanism
    (0.0707, 'laplace')
    """
    v1, v2, arm1, arm2, records = _resolve_arms(z1, n1, z2, n2, epsilon, delta, sensitivity,
                                                "binom2_ump_test", mechanism)
    effect, margin = _check_effect(effect, margin)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    composition, eps, dlt = composed(composition, records, (arm1.epsilon, arm2.epsilon), (arm1.delta, arm2.delta))
    requested, statistic = statistic, _ordering(statistic, effect, arm1.n, arm2.n, arm1.mechanism)
    _check_laplace_ordering(statistic, arm1.mechanism)
    progress = _check_progress(progress)
    try:
        v1, v2 = np.broadcast_arrays(v1, v2)
    except ValueError as exc:
        raise ValueError(f"`z1` and `z2` must have broadcastable shapes; got {v1.shape} and "
                         f"{v2.shape}.") from exc
    null = _null(effect, margin)
    c = null.coefficient
    stats = v1 / arm1.n - c * v2 / arm2.n

    def observed(a, b):
        return _Observed(float(a), float(b)) if statistic == "score" else float(a / arm1.n - c * b / arm2.n)

    if stats.ndim > 0:
        with start(progress, stats.size, "binom2_ump_test", "pairs") as bar:
            out = []
            for a, b in zip(v1.ravel(), v2.ravel()):
                out.append(_pvalues(arm1, arm2, null, observed(a, b), alternative)[0])
                bar.advance()
        return np.array(out).reshape(stats.shape)
    z1f, z2f = float(v1), float(v2)
    first = SUP_UNITS * (2 if alternative == "two-sided" else 1)
    with start(progress, first + _interval_units(effect, alternative, statistic), "binom2_ump_test") as bar:
        bar.step("p-value")
        part = bar.part(first)
        pvalue = _pvalues(arm1, arm2, null, observed(z1f, z2f), alternative, progress=part)[0]
        part.close()
        low, high = _interval(arm1, arm2, z1f, z2f, effect, confidence_level, alternative, statistic, bar)
    raw, props = _proportions(z1f, arm1, z2f, arm2)
    estimate, estimate_raw = _estimate(effect, props, raw)
    note = f"prop 1 = {props[0]:.7g}, prop 2 = {props[1]:.7g}; {_privacy_note(arm1, arm2)}"
    if arm1.mechanism == _mechanisms.LAPLACE:
        note = f"{note}; {_route_note(arm1, arm2, effect)}"
    reported = _statistic(arm1, arm2, null, z1f, z2f) if statistic == "score" else float(stats)
    return HTestResult(
        statistic=reported,
        pvalue=float(min(max(pvalue, 0.0), 1.0)),
        null_value=margin,
        alternative=alternative,
        method=_METHOD.format(_mechanisms.printed(arm1.mechanism),
                              _ordering_text(requested, statistic, arm1.mechanism)),
        estimate=float(estimate),
        estimate_raw=None if estimate_raw is None else float(estimate_raw),
        conf_int=ConfidenceInterval(float(low), float(high), confidence_level),
        epsilon=eps,
        delta=dlt,
        data_name=f"c({_released(z1f)}, {_released(z2f)}) out of c({arm1.n}, {arm2.n})",
        statistic_name="z" if statistic == "score" else "T",
        estimate_name=_NAME[effect],
        null_name=_NAME[effect],
        mechanism=arm1.mechanism,
        **provenance(*records),
        composition=composition,
        note=note,
        pvalue_function=functools.partial(_margin_pvalues, arm1, arm2, z1f, z2f, effect, statistic, alternative),
    )


@release_first(skip=("n1", "n2"))
def binom2_ump_ci(z1, n1=None, z2=None, n2=None, *, epsilon=None, delta=None, sensitivity=None,
                  effect="difference", confidence_level=0.95, alternative="two-sided",
                  statistic=None, mechanism=None, progress=None):
    """Exact confidence interval for the risk difference, risk ratio or odds ratio of two releases.

    The interval inverts the exact test of :func:`binom2_ump_test`: two-sided, the two
    one-sided tests at ``(1 - confidence_level) / 2`` each (Chan & Zhang 1999's tail
    method).  Its coverage is at least ``confidence_level`` at every ``(theta1, theta2)``
    for the law actually released, and it is never empty.

    Parameters
    ----------
    z1, n1, z2, n2, epsilon, delta, sensitivity, mechanism
        As in :func:`binom2_ump_test`.
    effect : {'difference', 'ratio', 'odds-ratio'}, default 'difference'
        ``theta1 - theta2`` (within [-1, 1]), ``theta1 / theta2`` or the odds ratio
        ``theta1 (1 - theta2) / (theta2 (1 - theta1))`` (within [0, inf]; Tulap arms).
    confidence_level : float, default 0.95
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'`` gives a lower bound (the upper end is 1 or inf), ``'less'`` an upper one.
    statistic : {None, 'difference', 'score'}, default None
        The ordering of the inverted tests, as in :func:`binom2_ump_test` (None: the score;
        the difference for Laplace arms and beyond 4e6 lattice cells).
    progress : None, bool or callable, default None
        As in :func:`binom2_ump_test`.

    Returns
    -------
    ConfidenceInterval
        ``low``, ``high``, ``level``.

    Raises
    ------
    TypeError, ValueError
        As :func:`binom2_ump_test`.

    See Also
    --------
    binom2_ump_test

    Notes
    -----
    Risk difference: the one-sided p-values are monotone in the margin, so each end is the
    root of ``p(Delta0) = alpha / 2`` (Brent, to 1e-10, then moved outwards onto a value the
    certified p-value rejects).  Risk ratio and odds ratio: each end is bracketed by a scan
    of 49 values on a log scale over ``[1e-6, 1e6]`` and then found by the same root search;
    the interval is the hull of the accepted values (see
    :mod:`dpinfer.inference.two_arm._interval`).  Laplace arms: each null value costs an
    ``(n1 + 1) x (n2 + 1)`` sum (a convolution for the exact difference); the ratio interval
    evaluates a few hundred of them, about 0.3 s at ``n = 100`` per arm and 10 s at
    ``n = 300`` on a loaded two-core machine.

    Examples
    --------
    >>> from dpinfer import binom2_ump_ci
    >>> ci = binom2_ump_ci(41.3, 60, 27.9, 60, epsilon=1.0)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.0269, 0.3969)
    """
    v1, v2, arm1, arm2, _ = _resolve_arms(z1, n1, z2, n2, epsilon, delta, sensitivity, "binom2_ump_ci",
                                          mechanism)
    effect, _ = _check_effect(effect, None)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    statistic = _ordering(statistic, effect, arm1.n, arm2.n, arm1.mechanism)
    _check_laplace_ordering(statistic, arm1.mechanism)
    progress = _check_progress(progress)
    if v1.ndim > 0 or v2.ndim > 0:
        raise ValueError(f"`z1` and `z2` must be single values for an interval; got shapes "
                         f"{v1.shape} and {v2.shape}.")
    with start(progress, _interval_units(effect, alternative, statistic), "binom2_ump_ci") as bar:
        low, high = _interval(arm1, arm2, float(v1), float(v2), effect, confidence_level, alternative,
                              statistic, bar)
    return ConfidenceInterval(float(low), float(high), confidence_level)
