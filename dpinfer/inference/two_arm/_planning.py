"""Exact power and sample size of the two-arm test (``binom2_ump_power``, ``binom2_ump_sample_size``)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from scipy import stats

from ... import _mechanisms
from ...results import PowerResult, SampleSizesResult
from ..._validation import (
    _as_probability_array,
    _as_real_array,
    _check_alpha,
    _check_alternative,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_positive,
    _check_probability,
    _check_sensitivity,
)
from ..._progress import _check_progress, start
from .._price import NONPRIVATE_EPSILON, NORMAL_TWO, normal_n, normal_power, same_test_label
from .._resolve import arm_pair
from .._roots import integer_bracket, smallest_integer
from ._arguments import (MAX_N, _check_effect, _check_laplace_ordering, _check_mechanism, _checked_arm, _ordering,
                         score_arms_limit)
from ._laplace_arms import MAX_N as MAX_N_LAPLACE
from ._critical import _exact_power
from ._supremum import _null

__all__ = ["binom2_ump_power", "binom2_ump_sample_size"]

_N_MAX = MAX_N


def _arms(n1, n2, epsilon, delta, sensitivity, mechanism):
    eps = [_check_epsilon(e, "epsilon") for e in arm_pair(epsilon, "epsilon")]
    dlt = [_check_delta(d, "delta") for d in arm_pair(delta, "delta")]
    sens = [_check_sensitivity(s) for s in arm_pair(sensitivity, "sensitivity")]
    if mechanism == "laplace" and (any(d != 0.0 for d in dlt) or any(k != 1 for k in sens)):
        raise ValueError(f"`delta` must be 0 and `sensitivity` 1 for Laplace arms (counts or proportions, "
                         f"pure epsilon-DP); got delta={delta!r}, sensitivity={sensitivity!r}.")
    return (_checked_arm(n1, eps[0], dlt[0], sens[0], 1, mechanism),
            _checked_arm(n2, eps[1], dlt[1], sens[1], 2, mechanism))


def binom2_ump_power(theta1, theta2, n1, n2, *, epsilon, delta=0.0, sensitivity=1,
                     effect="difference", margin=None, alpha=0.05, alternative="two-sided",
                     statistic=None, mechanism="tulap"):
    """Exact power of the two-arm test of :func:`binom2_ump_test` at ``(theta1, theta2)``.

    Parameters
    ----------
    theta1, theta2 : float or array_like
        True proportions of the arms, in [0, 1] (broadcast together).
    n1, n2 : int or array_like of int
        Numbers of trials per arm (broadcast with the thetas).
    epsilon, delta, sensitivity : float, or a pair (arm 1, arm 2)
        The privacy parameters the two releases will have.
    effect, margin
        The null hypothesis, as in :func:`binom2_ump_test`.
    alpha : float, default 0.05
        Significance level.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    statistic : {None, 'difference', 'score'}, default None
        The test's ordering, as in :func:`binom2_ump_test` (None: the score; the difference
        for Laplace arms and, at each ``(n1, n2)``, beyond 4e6 lattice cells, as the test
        will use: one question, one answer).
    mechanism : {'tulap', 'laplace'}, default 'tulap'
        How both arms will be released: :class:`~dpinfer.TulapReleaser` counts, or
        :class:`~dpinfer.LaplaceReleaser` counts or proportions (``delta`` 0, ``sensitivity``
        1; at most 2000 per arm).

    Returns
    -------
    PowerResult or ndarray
        ``P(reject)`` at each ``(theta1, theta2, n1, n2)``; at a null point it is the size.
        For one of each, a :class:`~dpinfer.results.PowerResult`: the float, which prints
        as R's ``power.htest`` with the power of the same test without noise (epsilon =
        Inf, the same ``statistic``), ``power.prop.test``'s power (null of equality) and
        the price of privacy beside it (computed when first read).

    Raises
    ------
    TypeError, ValueError
        For an invalid argument (named in the message).

    See Also
    --------
    binom2_ump_sample_size, binom2_ump_test

    Notes
    -----
    The test rejects when ``T >= u + s`` (and/or ``T <= l - s``), with ``u`` the smallest
    cut-off whose supremum tail over the null is at most ``alpha`` (``alpha / 2`` for each
    side of a two-sided test), ``s = h1/(2 n1) + c h2/(2 n2)`` the release cells' shift;
    the power is that exact tail at ``(theta1, theta2)`` (the released grid law differs from
    the continuous one by at most ``s`` in ``T``, a change below 1e-10 in power).  Laplace
    arms: exact for the risk difference; for the ratio the tails carry the grid bound of
    :func:`binom2_ump_test` (below 1e-7 at epsilon = 1), so the power is overstated by at
    most that.

    Examples
    --------
    >>> from dpinfer import binom2_ump_power
    >>> round(float(binom2_ump_power(0.6, 0.4, 100, 100, epsilon=1.0)), 4)
    0.7786
    """
    theta1 = _as_probability_array(theta1, "theta1")
    theta2 = _as_probability_array(theta2, "theta2")
    n1a, n2a = _as_real_array(n1, "n1"), _as_real_array(n2, "n2")
    for name, arr in (("n1", n1a), ("n2", n2a)):
        for value in arr.ravel():
            _check_int(int(value) if float(value).is_integer() else float(value), name, minimum=1)
    effect, margin = _check_effect(effect, margin)
    alpha = _check_alpha(alpha)
    alternative = _check_alternative(alternative)
    mechanism = _check_mechanism(mechanism, "tulap")
    statistic = _ordering(statistic, effect, None, None, mechanism)
    _check_laplace_ordering(statistic, mechanism)
    null = _null(effect, margin)
    shape = np.broadcast_shapes(theta1.shape, theta2.shape, n1a.shape, n2a.shape)
    th1, th2 = np.broadcast_to(theta1, shape), np.broadcast_to(theta2, shape)
    nn1, nn2 = np.broadcast_to(n1a, shape), np.broadcast_to(n2a, shape)
    out = np.empty(shape)
    pairs = {(int(a), int(b)) for a, b in zip(nn1.ravel(), nn2.ravel())}
    for a, b in sorted(pairs):
        arm1, arm2 = _arms(a, b, epsilon, delta, sensitivity, mechanism)
        used = _ordering(statistic, effect, a, b, mechanism)
        mask = (nn1 == a) & (nn2 == b)
        out[mask] = _exact_power(arm1, arm2, null, th1[mask], th2[mask], alpha, alternative, used)
    if out.ndim:
        return out
    a, b = int(nn1), int(nn2)
    question = dict(theta1=float(th1), theta2=float(th2), n1=a, n2=b, alpha=alpha, alternative=alternative,
                    effect=effect, margin=margin, statistic=_ordering(statistic, effect, a, b, mechanism),
                    ratio=None, epsilon=epsilon, delta=delta, mechanism=mechanism)
    compute = partial(_power_comparators, float(th1), float(th2), a, b, effect, margin, alpha, alternative,
                      statistic, mechanism)
    curve = partial(_power_at_n, float(th1), float(th2), (a, b), epsilon, delta, sensitivity, effect, margin, alpha,
                    alternative, statistic, mechanism)
    return _planned(PowerResult, float(out), dict(question, power=float(out)), compute, curve)


def _power_at_n(theta1, theta2, allocation, epsilon, delta, sensitivity, effect, margin, alpha, alternative,
                statistic, mechanism, n, noise=True):
    """The exact power at ``n1 = n``, ``n2 = ceil(n b / a)`` for ``allocation = (a, b)`` (a power's
    arms) or ``ceil(ratio n)`` for a ratio (as the sample-size search allocates), or without the noise
    (the comparator's randomized test, :func:`_power_comparators`): the planning result's curve."""
    n = _check_int(n, "n", minimum=1)
    a, b = allocation if isinstance(allocation, tuple) else (None, None)
    m = -(-n * b // a) if a is not None else max(1, math.ceil(allocation * n))
    if not noise:
        epsilon, delta, sensitivity, mechanism = NONPRIVATE_EPSILON, 0.0, 1, _mechanisms.TULAP
    arm1, arm2 = _arms(n, m, epsilon, delta, sensitivity, mechanism)
    used = _ordering(statistic, effect, n, m, mechanism)
    return float(np.clip(_exact_power(arm1, arm2, _null(effect, margin), theta1, theta2, alpha, alternative,
                                      used)[0], 0.0, 1.0))


def _planned(cls, value, question, compute, curve):
    """The result ``cls(value)`` with the power.htest record of ``question`` and its comparators."""
    q = question
    n1, n2 = q["n1"], q["n2"]
    lines = {"n": n1} if n1 == n2 else {"n1": n1, "n2": n2}
    lines.update({"p1": q["theta1"], "p2": q["theta2"], "sig.level": q["alpha"], "power": q["power"],
                  "alternative": {"two-sided": "two.sided"}.get(q["alternative"], q["alternative"])})
    if (q["effect"], q["margin"]) != ("difference", 0.0):
        lines.update({"effect": q["effect"], "margin": q["margin"]})
    what = "power" if cls is PowerResult else "sample size"
    method = (f"Exact {what} of the private two-sample test of proportions "
              f"({q['statistic']} ordering{q.get('why', '')})")
    note = "n is number in *each* group" if n1 == n2 else "n1 and n2 are the numbers in the two groups"
    pairs = [[float(x) for x in arm_pair(q[k], k)] for k in ("epsilon", "delta")]
    eps, dlt = (v[0] if v[0] == v[1] else v for v in pairs)
    shown = [" and ".join(f"{x:g}" for x in v) if isinstance(v, list) else f"{v:g}" for v in (eps, dlt)]
    mechanism = _mechanisms.NAMES[q["mechanism"]]
    privacy = f"privacy: epsilon = {shown[0]}, delta = {shown[1]}, {mechanism} mechanism, each arm released once"
    fields = {"n1": n1, "n2": n2, "theta1": q["theta1"], "theta2": q["theta2"], "power": q["power"],
              "exact_power": q.get("exact_power", q["power"]), "alpha": q["alpha"],
              "alternative": q["alternative"], "effect": q["effect"], "margin": q["margin"],
              "statistic": q["statistic"], "ratio": q["ratio"], "epsilon": eps, "delta": dlt,
              "mechanism": q["mechanism"]}
    return cls._make(value)._setup(method, lines, fields, compute, note,
                                   (same_test_label(False), NORMAL_TWO), privacy, curve)


def _equality_null(effect, margin):
    """Whether the null is ``theta1 = theta2`` (where power.prop.test's formula applies)."""
    return margin == (0.0 if effect == "difference" else 1.0)


def _power_comparators(theta1, theta2, n1, n2, effect, margin, alpha, alternative, statistic, mechanism):
    """The power of the same test without noise at ``(n1, n2)``, and power.prop.test's.

    Without noise both mechanisms' tests are tests of the counts; the comparator is the randomized
    one (Tulap arms at epsilon = Inf) for either: Laplace arms at epsilon = Inf are the
    non-randomized test, whose power is saw-toothed in ``n`` (``docs/two_arm.rst``)."""
    arm1, arm2 = _arms(n1, n2, NONPRIVATE_EPSILON, 0.0, 1, _mechanisms.TULAP)
    used = _ordering(statistic, effect, n1, n2, _mechanisms.TULAP)
    exact = float(np.clip(_exact_power(arm1, arm2, _null(effect, margin), theta1, theta2, alpha,
                                       alternative, used)[0], 0.0, 1.0))
    normal = normal_power(theta1, theta2, n1, n2, alpha, alternative) if _equality_null(effect, margin) else None
    return {"nonprivate_power": exact, "normal_power": normal}


def _start_without_noise(n1, theta1, theta2, ratio, epsilon, sensitivity, mechanism, c):
    """Where to start the search without noise: the ``n`` whose binomial variance alone equals the
    private variance at ``n1`` under the normal model: ``Var(Z1/n1 - c Z2/n2)`` is ``S / n1 + V / n1^2``
    with ``S = t1 q1 + c^2 t2 q2 / r`` and ``V = v1 + c^2 v2 / r^2`` (``v_i`` the noise variance beyond
    the uniform part), so ``S / n = S / n1 + V / n1^2`` gives ``n = n1 S n1 / (S n1 + V)``; a start only."""
    eps = [e / k for e, k in zip(arm_pair(epsilon, "epsilon"), arm_pair(sensitivity, "sensitivity"))]
    v = [2.0 / e**2 if mechanism == _mechanisms.LAPLACE else 2.0 * math.exp(-e) / (1.0 - math.exp(-e)) ** 2
         for e in eps]
    spread = theta1 * (1.0 - theta1) + c * c * theta2 * (1.0 - theta2) / ratio
    if spread <= 0.0:
        return None
    noise = v[0] + c * c * v[1] / ratio**2
    return max(1, math.ceil(n1 * spread * n1 / (spread * n1 + noise)))


class _Quiet:
    """A progress bar that shows nothing (the comparators' searches are not the call's units)."""

    def advance(self, *args):
        return None


def _size_comparators(theta1, theta2, power, ratio, effect, margin, alpha, alternative, statistic, mechanism,
                      start):
    """``(n1, n2)`` of the same test without noise (searched from ``start``; randomized, Tulap arms at
    epsilon = Inf, whatever ``mechanism``: see :func:`_power_comparators`), and power.prop.test's."""
    try:
        (n1, n2), _, _ = _sample_size(theta1, theta2, power, ratio, NONPRIVATE_EPSILON, 0.0, 1, effect, margin,
                                      alpha, alternative, statistic, _mechanisms.TULAP, _Quiet(), start)
    except ValueError:  # beyond the exact sums' reach (a print must not fail): not computed
        n1 = n2 = None
    normal = normal_n(theta1, theta2, ratio, alpha, power, alternative) if _equality_null(effect, margin) else None
    return {"nonprivate_n1": n1, "nonprivate_n2": n2, "normal_n1": normal,
            "normal_n2": None if normal is None else ratio * normal}


def _normal_n(theta1, theta2, ratio, arm, null, alpha, power, alternative, n_max=_N_MAX):
    """A normal-approximation starting point for the search (noise variance included)."""
    b = math.exp(arm.log_b)
    noise = 2.0 * b / (1.0 - b) ** 2 + 1.0 / 12.0
    z_a = stats.norm.isf(alpha / 2.0 if alternative == "two-sided" else alpha)
    z_b = stats.norm.isf(1.0 - power) if power < 1.0 else 8.0
    c = null.coefficient
    # the mean shift of T = Z1/n1 - c Z2/n2 from the null (on the odds-ratio curve at theta2)
    if null.effect == "odds-ratio":
        gap = abs(theta1 - float(null.theta1(theta2)))
    else:
        gap = abs(theta1 - c * theta2 - (null.margin if null.effect == "difference" else 0.0))
    if gap == 0.0:
        return n_max + 1
    for n in np.unique(np.geomspace(1, n_max, 400).astype(int)):
        m = max(1, math.ceil(ratio * n))
        if m > n_max:
            break
        sd = math.sqrt(theta1 * (1 - theta1) / n + c * c * theta2 * (1 - theta2) / m
                       + noise / n**2 + c * c * noise / m**2)
        if gap / sd >= z_a + z_b:
            return int(n)
    return n_max + 1


def binom2_ump_sample_size(theta1, theta2, *, power=0.8, ratio=1.0, epsilon, delta=0.0, sensitivity=1,
                           effect="difference", margin=None, alpha=0.05, alternative="two-sided",
                           statistic=None, mechanism="tulap", progress=None):
    """Smallest numbers per arm for the exact two-arm test to reach a power (as ``power.prop.test``).

    Parameters
    ----------
    theta1, theta2 : float
        The proportions the trial is planned for (on the alternative side).
    power : float, default 0.8
        Target power, in (alpha, 1).
    ratio : float, default 1
        Allocation ``n2 / n1``; ``n2 = ceil(ratio * n1)``.
    epsilon, delta, sensitivity, effect, margin, alpha, alternative, statistic, mechanism
        As in :func:`binom2_ump_power`.
    progress : None, bool or callable, default None
        Progress of the search (see :ref:`progress`): None shows a line on stderr once the
        call has run 2 s, if stderr is a terminal; True always, False never; a callable gets
        ``(done, total, message)``, the units being exact power evaluations (``total`` the
        typical number, reached at the end).

    Returns
    -------
    SampleSizesResult
        ``(n1, n2)``: the smallest ``n1`` (with ``n2 = ceil(ratio n1)``) whose exact power is at
        least ``power``.  A tuple, which prints as R's ``power.htest`` with the non-private
        comparators beside it: ``nonprivate_n``, the sizes of the same test (the same
        ``statistic``, effect, margin, ratio) without the privacy noise (epsilon = Inf: a
        randomized exact test); ``normal_n``, R's ``power.prop.test`` sizes (null of
        equality; unequal arms by the same formula); ``price`` and ``price_total``, the
        patients privacy costs; ``exact_power`` (see ``docs/two_arm.rst``, *Plan the next
        trial*).  The comparators are computed when first read (0.1 to 0.9 times the
        search's time, ``benchmarks/bench_price.py``).

    Raises
    ------
    ValueError
        If the proportions are not on the alternative side, ``power <= alpha``, or no ``n1``
        up to 1e5 per arm (2000 for Laplace arms: the limit of the exact sums; about 2000 for
        the odds ratio: its score lattice, ``(n1 + 1)(n2 + 1)`` at most 4e6) reaches the
        power.

    See Also
    --------
    binom2_ump_power

    Notes
    -----
    A normal approximation (with the noise variance) gives a start; secant steps on the
    normal model's scale (``Phi^-1(power) + z_alpha`` grows like ``sqrt(n1)``), with the exact
    power at each step, usually land on the answer in two or three evaluations; the answer
    is then bracketed from there and found by the shared integer search
    (``dpinfer.inference._roots``: false position on the probit of the power against
    ``sqrt(n1)``, checked at ``n1 - 1``).  This assumes the exact power increases with
    ``n1``: the noise smooths the sawtooth of exact binomial power, and the tests check
    ``n1 - 1``.  The score ordering's power keeps a small sawtooth (its critical level moves
    in steps): at 0.3 against 0.25 it is 0.8002 at 1267 per arm, 0.7978 at 1270 and 0.8000
    at 1277, the answer; so the answer reaches the power and ``n1 - 1`` does not, but a
    smaller size may reach it too.  About a second at ``n1`` near 1e4 on a quiet machine
    (the difference ordering).  The default score ordering costs more per power evaluation
    (a bisection over its levels, each a located supremum: about 0.7 s at 1300 per arm on
    a two-core machine at load 4-5), so a search ending near 1300 per arm takes about 5 s,
    and reading the comparator without noise (printing) as long again.  One ordering
    throughout: above 4e6 lattice cells (about 2000 per arm) the test uses the difference,
    so the search tries the score ordering up to that limit and, if it does not reach the
    power there, searches the difference ordering alone; the result's ``method`` names the
    ordering and why (its answer can be much larger: 0.12 against 0.094, 4559 per arm, where
    the score ordering at 1999 per arm has power 0.752).

    Examples
    --------
    >>> from dpinfer import binom2_ump_sample_size
    >>> binom2_ump_sample_size(0.6, 0.4, epsilon=1.0)
    (109, 109)

    Printed, it shows the price of privacy (``print(size)``); its numbers are attributes:

    >>> size = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0)
    >>> size.nonprivate_n, size.price_total, round(size.normal_n[0], 2)   # power.prop.test: 96.92
    ((102, 102), 14, 96.92)
    """
    theta1 = _check_probability(theta1, "theta1")
    theta2 = _check_probability(theta2, "theta2")
    power = _check_probability(power, "power", open_low=True, open_high=True)
    ratio = _check_positive(ratio, "ratio")
    if not 1e-3 <= ratio <= 1e3:
        raise ValueError(f"`ratio` (the allocation n2 / n1) must lie in [0.001, 1000]; got {ratio!r}.")
    effect, margin = _check_effect(effect, margin)
    alpha = _check_alpha(alpha)
    alternative = _check_alternative(alternative)
    if power <= alpha:
        raise ValueError(f"`power` must exceed `alpha` = {alpha!r}; got {power!r}.")
    mechanism = _check_mechanism(mechanism, "tulap")
    statistic = _ordering(statistic, effect, None, None, mechanism)
    _check_laplace_ordering(statistic, mechanism)
    progress = _check_progress(progress)
    with start(progress, _SEARCH_UNITS, "binom2_ump_sample_size", "power evaluations") as bar:
        (n1, n2), reached, (used, why) = _sample_size(theta1, theta2, power, ratio, epsilon, delta, sensitivity,
                                                      effect, margin, alpha, alternative, statistic, mechanism, bar)
    question = dict(theta1=theta1, theta2=theta2, n1=n1, n2=n2, alpha=alpha, alternative=alternative, effect=effect,
                    margin=margin, statistic=used, why=why, ratio=ratio,
                    epsilon=epsilon, delta=delta, mechanism=mechanism, power=power, exact_power=reached)
    # the comparator without noise plans for the same ordering
    compute = partial(_size_comparators, theta1, theta2, power, ratio, effect, margin, alpha, alternative, used,
                      mechanism, _start_without_noise(n1, theta1, theta2, ratio, epsilon, sensitivity, mechanism,
                                                      _null(effect, margin).coefficient))
    # the figure draws the power of the ordering planned for (the difference's, when the search fell back)
    curve = partial(_power_at_n, theta1, theta2, ratio, epsilon, delta, sensitivity, effect, margin, alpha,
                    alternative, used, mechanism)
    return _planned(SampleSizesResult, (n1, n2), question, compute, curve)


#: exact power evaluations of a sample-size search, typically (3 to 6: 0.6 v 0.4, 0.52 v 0.5, 0.3 v 0.1)
_SEARCH_UNITS = 6


def _sample_size(theta1, theta2, power, ratio, epsilon, delta, sensitivity, effect, margin, alpha, alternative,
                 statistic, mechanism, bar, first=None):
    """:func:`binom2_ump_sample_size` on checked arguments: ``((n1, n2), exact power there, (ordering,
    why))``, ``why`` the text the result's ``method`` adds after the ordering's name (or '');
    ``bar`` counts the power evaluations; ``first``: where the search starts (None: the normal
    approximation).

    One ordering throughout: the score ordering's lattice holds at most ``MAX_CELLS`` cells
    (about 2000 per arm), beyond which the test uses the difference.  A search mixing the two
    could return ``n`` for one test whose power was judged on the other (the power jumps at
    the limit, down where the difference is the less powerful).  So the score ordering is
    searched up to its limit; if it does not reach the power there, the whole search is the
    difference ordering's, and ``why`` says so (with ``statistic='difference'`` for the test:
    its answer may lie below the limit, where the default test is the score's).
    """
    n_max = MAX_N_LAPLACE if mechanism == "laplace" else _N_MAX
    used, why = _ordering(statistic, effect, None, None, mechanism), ""
    args = (theta1, theta2, power, ratio, epsilon, delta, sensitivity, effect, margin, alpha, alternative)
    if used == "score":  # the score ordering's lattice: (n1 + 1)(n2 + 1) <= MAX_CELLS
        limit, cells = score_arms_limit(ratio)
        if effect == "odds-ratio":  # ordered by its score only: the limit is the search's
            n_max = limit
        else:
            arm, _ = _arms(1, 1, epsilon, delta, sensitivity, mechanism)
            start = _normal_n(theta1, theta2, ratio, arm, _null(effect, margin), alpha, power, alternative, n_max)
            lattice = f"the score ordering's lattice, (n1 + 1)(n2 + 1) at most {cells} cells, "
            if first is None and start > 2 * limit:
                # the score ordering (which saves up to ~15% of the difference's patients in
                # docs/two_arm.rst's table) cannot reach the power within its limit: its
                # power there (seconds) is not computed
                used = "difference"
                why = f": {lattice}ends at {limit} per arm, below half the normal approximation's {start}"
            else:
                try:
                    return (*_search(*args, "score", mechanism, bar, first, n_max, within=limit), (used, why))
                except _Beyond:
                    used = "difference"
                    why = f": {lattice}does not reach the power within {limit} per arm"
            why += "; test with statistic='difference'"
    return (*_search(*args, used, mechanism, bar, first, n_max), (used, why))


class _Beyond(Exception):
    """The score ordering's search does not reach the power within its lattice limit."""


def _search(theta1, theta2, power, ratio, epsilon, delta, sensitivity, effect, margin, alpha, alternative,
            used, mechanism, bar, first, n_max, within=None):
    """``((n1, n2), exact power there)`` of the test ordered by ``used`` at every ``n``, ``n1`` up to
    ``n_max``.  ``within``: the ordering's limit (the score lattice's): a probe beyond it reads
    the power at the limit, so the search's steps are those of an unlimited search until a
    probe crosses the limit, its answer is at most the limit, and ``_Beyond`` is raised
    (instead of a ValueError) when the power is not reached there."""
    null = _null(effect, margin)
    # theta1 against the null curve at theta2 (the line's value clipped to [0, 1])
    gap = theta1 - float(null.theta1(theta2))
    side_ok = {"greater": gap > 0, "less": gap < 0, "two-sided": gap != 0}[alternative]
    if not side_ok:
        raise ValueError(f"`theta1` = {theta1!r} and `theta2` = {theta2!r} are not on the "
                         f"alternative side ({alternative!r}) of the null {effect} {margin!r}.")

    seen = {}

    def power_at(n):
        n = n if within is None else min(n, within)
        if n not in seen:
            m = max(1, math.ceil(ratio * n))
            arm1, arm2 = _arms(n, m, epsilon, delta, sensitivity, mechanism)
            seen[n] = float(_exact_power(arm1, arm2, null, theta1, theta2, alpha, alternative, used)[0])
            bar.advance()
        return seen[n]

    one_sided = alpha / 2.0 if alternative == "two-sided" else alpha
    z_a, z_b = stats.norm.isf(one_sided), stats.norm.isf(1.0 - power)
    arm1, _ = _arms(1, 1, epsilon, delta, sensitivity, mechanism)
    n = _normal_n(theta1, theta2, ratio, arm1, null, alpha, power, alternative, n_max) if first is None else first
    cap = max(1, min(n_max, math.floor(n_max / ratio)))
    if n > cap and within is not None:
        raise _Beyond()
    if n > cap:
        raise ValueError(f"`theta1` = {theta1!r} and `theta2` = {theta2!r} need more than {n_max} per "
                         "arm (the limit of the exact two-arm sums) already under the normal "
                         "approximation at this `power`, `alpha` and `epsilon`; plan for a larger "
                         "effect, epsilon or alpha, or a smaller power.")
    # secant steps on the normal model's scale: Phi^-1(power(n)) + z_a grows like sqrt(n)
    for _ in range(4):
        here = power_at(n)
        if 1e-12 < here < 1.0 - 1e-12:
            slope = (stats.norm.ppf(here) + z_a) / math.sqrt(n)
            guess = n if slope <= 0 else math.ceil(((z_a + z_b) / slope) ** 2)
        else:
            guess = 2 * n if here <= 1e-12 else max(1, n // 2)
        guess = min(max(1, guess), cap)
        if guess == n or guess in seen:
            break
        n = guess
    # the exact answer: bracketed from the last secant point, then the shared integer search
    def reaches(k):
        return power_at(k) >= power

    def gauge(k):
        return stats.norm.ppf(min(max(power_at(k), 1e-300), 1.0 - 1e-16)) - z_b

    bracket = integer_bracket(reaches, n, cap, None if first is None else 1)
    if bracket is None and within is not None:
        raise _Beyond()
    if bracket is None:
        raise ValueError(f"no n1 up to {cap} reaches `power` = {power!r} at `theta1` = "
                         f"{theta1!r}, `theta2` = {theta2!r}; the effect is too small for "
                         "this privacy budget.")
    high = smallest_integer(reaches, gauge, *bracket)
    return (high, max(1, math.ceil(ratio * high))), power_at(high)
