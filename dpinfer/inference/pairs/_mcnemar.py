"""The exact private McNemar test, its interval, power and sample size (public functions)."""

from __future__ import annotations

import functools

import numpy as np

from ... import _mechanisms
from ..._validation import (
    _check_alpha,
    _check_alternative,
    _check_confidence_level,
    _check_epsilon,
    _check_int,
    _check_probability,
    _check_real,
)
from ...distributions._tulap_law import tulap_grid, unit_privacy
from ...results import ConfidenceInterval, HTestResult
from .._resolve import accepts, provenance, release_first, resolve
from ._law import Observed, _Line, expectation, given_counts, observe, ordering
from ._sup import grid_max, sup_tail

__all__ = ["mcnemar_power", "mcnemar_sample_size", "mcnemar_test"]

#: What the McNemar functions take (see :mod:`dpinfer.inference._resolve`).
ACCEPTS = accepts({(_mechanisms.TULAP, "paired")}, ("mcnemar_test",),
                  "a paired table released by PairedTableReleaser(...).release(table)",
                  numbers=(_mechanisms.TULAP, "paired"))

#: the exact sums hold (2 n + 1)^2 matrices and cost about 6 n^3 operations per observation
MAX_N = 1000
#: the margin's bisection stops when the bracket is this narrow (the interval is widened to it)
MARGIN_TOL = 1e-7

#: the smallest epsilon the exact sums take (epsilon / 2 per released number at least 0.01, as the
#: two-arm sums; below it the noise is wider than any trial of up to 1000 pairs can inform)
MIN_EPSILON = 0.02

_METHOD = "Exact unconditional McNemar test for paired proportions (Tulap-privatized discordance)"


def _paired(release, n, epsilon, method):
    """``(z_difference, z_discordant, n, epsilon_1, half_step, record)`` from a Release or numbers."""
    record = resolve(release, n, epsilon=epsilon, accepts=ACCEPTS, method=method, name="release")
    value = record.value
    if value.shape != (2,):
        raise ValueError(f"`release` must hold one released pair (z_difference, z_discordant); got shape "
                         f"{value.shape}.")
    if not record.from_release and np.any(value == np.round(value)):
        raise ValueError("`release` must be released values (PairedTableReleaser never outputs a whole "
                         "number); a whole number here is a confidential count. Release the table first.")
    n = _check_n(record.n)
    epsilon_1 = _unit_epsilon(record.epsilon)
    half_step = 2.0 ** -(tulap_grid(2 * n, epsilon_1, 0.0).bits + 1)
    return float(value[0]), float(value[1]), n, epsilon_1, half_step, record


def _check_n(n):
    if n > MAX_N:
        raise ValueError(f"`n` must be at most {MAX_N} pairs for the exact sums (their matrices grow as "
                         f"n^2 and their cost as n^3); got {n}.")
    return n


def _unit_epsilon(epsilon):
    """``epsilon / 2`` rounded down (each released number's Tulap law), after the exact sums' floor."""
    if epsilon < MIN_EPSILON:
        raise ValueError(f"`epsilon` must be at least {MIN_EPSILON} for the exact McNemar sums; got {epsilon!r}.")
    return unit_privacy(epsilon, 0.0, 2)[0]


def _check_margin(margin):
    margin = _check_real(margin, "margin")
    if not -1.0 < margin < 1.0:
        raise ValueError(f"`margin` must be in (-1, 1) (a difference p10 - p01 of proportions); got {margin!r}.")
    return margin


class _Observation:
    """The tails of one observed release, computed once (they do not depend on the margin)."""

    def __init__(self, z_d, z_s, n, epsilon_1, half_step):
        self.order = ordering(n, epsilon_1)
        self.counts = {}
        for upper in (True, False):
            obs = observe(self.order, n, z_d, z_s, half_step, upper)
            self.counts[upper] = given_counts(self.order, n, epsilon_1, obs, upper)
        self.level = obs.level

    def pvalue(self, margin, upper):
        """``sup`` over the null line ``p10 - p01 = margin`` of the upper (lower) tail, certified."""
        return sup_tail(self.counts[upper], _Line(margin))


def _end(observation, alpha, upper):
    """The interval's lower end (``upper`` tail) or upper end: where that p-value crosses ``alpha``.

    The upper tail's supremum is nondecreasing in the margin (a point of a line is dominated
    by a point of any line above it), the lower tail's nonincreasing; bisection keeps the
    bracket's outer end, so the interval contains every margin whose p-value exceeds alpha.
    """
    outer, inner = (-1.0, 1.0) if upper else (1.0, -1.0)
    if observation.pvalue(inner * (1 - 1e-12), upper) <= alpha:
        return inner  # every margin rejected on this side (possible only at extreme releases)
    while abs(inner - outer) > MARGIN_TOL:
        mid = 0.5 * (inner + outer)
        if observation.pvalue(mid, upper) > alpha:
            inner = mid
        else:
            outer = mid
    return outer


@release_first(skip=("n",))
def mcnemar_test(release, n=None, *, epsilon=None, margin=0.0, alternative="two-sided", confidence_level=0.95):
    """Exact unconditional McNemar test of ``p10 - p01 = margin`` from a private paired table, like R's ``mcnemar.test``.

    Parameters
    ----------
    release : Release or pair of float
        A :class:`~dpinfer.PairedTableReleaser` release (kind ``'paired'``), or the released
        pair ``(z_difference, z_discordant)`` as numbers with ``n`` and ``epsilon``.
    n : int, optional
        Number of pairs (only with numbers).
    epsilon : float, optional
        The release's epsilon (only with numbers).
    margin : float, default 0.0
        ``Delta0`` in ``H0: p10 - p01 = Delta0`` (McNemar's null is 0), in (-1, 1).  With
        ``alternative='greater'`` the null is ``p10 - p01 <= Delta0`` (non-inferiority at a
        negative margin), with ``'less'`` it is ``>= Delta0``.
    alternative : {'two-sided', 'less', 'greater'}
    confidence_level : float, default 0.95
        Of the interval for ``p10 - p01`` in ``conf_int`` (one-sided for a one-sided test).

    Returns
    -------
    HTestResult
        ``statistic`` the studentized ordering level ``z`` of the release (see Notes),
        ``pvalue``, ``estimate`` the unbiased ``z_difference / n`` of ``p10 - p01``,
        ``conf_int``, ``null_value`` the margin, ``epsilon``, ``delta`` (0), ``mechanism``.

    Raises
    ------
    TypeError, ValueError
        A release of another kind (the message names the functions that take it), numbers
        without ``n`` and ``epsilon``, a whole number typed as a release, ``n`` above 1000,
        a margin outside (-1, 1), a bad ``alternative`` or ``confidence_level``.

    Notes
    -----
    ``n`` pairs, ``(n01, n10, n00 + n11)`` multinomial with ``(p01, p10, 1 - p01 - p10)``.
    The release ``(z_D, z_S)`` is ordered by ``T = (M(c, j), z_D)``: ``M`` the monotone closure
    of McNemar's ``(n10 - n01) / sqrt(n01 + n10)`` computed on the releases' integer parts
    with the noise variance added, ties broken by ``z_D`` (:mod:`dpinfer.inference.pairs._law`).
    ``T`` increases with every pair moved into cell 10 and decreases with every pair moved
    into cell 01, so the tail ``P(T >= t)`` increases in ``p10`` and decreases in ``p01``, and
    the supremum over a one-sided null ``p10 - p01 <= Delta0`` is attained on its boundary
    line, parametrised by the discordance ``psi = p01 + p10`` in ``[|Delta0|, 1]``:

        p_greater = sup_psi P_psi(T >= t),   p_less = sup_psi P_psi(T <= t),

    the two-sided p-value ``min(1, 2 min(p_greater, p_less))`` (Suissa & Shuster 1991 for the
    non-private exact unconditional McNemar test; Berger & Boos 1994).  Each tail is a finite
    sum over the multinomial lattice of ``P(T beyond t | n01, n10)``, which is exact for the
    released law (closed-form discrete Laplace masses plus the uniform's share of the observed
    cell; a release stands for its grid cell, whose least favourable point is taken).  The
    supremum is located (65-point grid, Brent at every grid maximum) and certified by
    :mod:`dpinfer.inference.two_arm._certify` with the exact curvature: the p-value is an upper
    bound of the supremum, at most 1e-12 (relative) above the located value.

    The interval inverts the one-sided tests (bisection in the margin to 1e-7, widened to the
    bracket's outer end), so its coverage is at least the level at every ``(p01, p10)``.  The
    ordering does not depend on the margin (McNemar's studentization at no difference, valid
    whatever the margin; a margin-dependent score would need a scan of the margins), so the
    upper p-value is nondecreasing in the margin (every point of a null line is dominated by
    a point of any line above it) and the bisection is exact.

    Checked against ``tests/reference/make_mcnemar.py`` (mpmath, direct summation over the
    counts and the noise, no dpinfer import; 1e-10), against an exact unconditional McNemar
    test enumerated in the test at epsilon = 60 (the non-private limit), and by exact size and
    coverage on grids (``tests/inference/pairs/test_mcnemar.py``).

    References
    ----------
    McNemar, Q. (1947). Psychometrika 12, 153-157.  Suissa, S. and Shuster, J. J. (1991).
    The 2 x 2 matched-pairs trial: exact unconditional design and analysis. Biometrics 47,
    361-372.  Berger, R. L. and Boos, D. D. (1994). JASA 89, 1012-1016.  Awan, J. and
    Slavkovic, A. (2018). NeurIPS 31.

    Examples
    --------
    >>> from dpinfer import PairedTableReleaser, mcnemar_test
    >>> rel = PairedTableReleaser(epsilon=1.0).release([[40, 5], [15, 40]], rng=7)
    >>> res = mcnemar_test(rel)
    >>> round(res.pvalue, 4), res.conf_int.level
    (0.0748, 0.95)
    """
    z_d, z_s, n, epsilon_1, half_step, record = _paired(release, n, epsilon, "mcnemar_test")
    margin = _check_margin(margin)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    observation = _Observation(z_d, z_s, n, epsilon_1, half_step)
    pvalue = _margin_pvalues(observation, alternative, margin)
    alpha = 1.0 - confidence_level
    side = alpha / 2.0 if alternative == "two-sided" else alpha
    low = _end(observation, side, True) if alternative != "less" else -1.0
    high = _end(observation, side, False) if alternative != "greater" else 1.0
    data = f"released (n10 - n01, n01 + n10) = ({z_d:.7g}, {z_s:.7g}) of n = {n} pairs"
    return HTestResult(
        statistic=float(observation.level), pvalue=float(min(max(pvalue, 0.0), 1.0)), null_value=margin,
        alternative=alternative, method=_METHOD, estimate=z_d / n,
        conf_int=ConfidenceInterval(float(low), float(high), confidence_level),
        epsilon=record.epsilon, delta=0.0, data_name=data, statistic_name="z",
        estimate_name="difference in paired proportions (p10 - p01)", null_name="p10 - p01",
        mechanism=record.mechanism, **provenance(record),
        pvalue_function=functools.partial(_margin_pvalues, observation, alternative))


def _margin_pvalues(observation, alternative, margins):
    """The test's p-value at each margin ``p10 - p01`` (the confidence curve; NaN outside (-1, 1))."""
    values = np.asarray(margins, dtype=float)
    out = np.full(values.shape, np.nan)
    for i, margin in enumerate(values.flat):
        if not -1.0 < margin < 1.0:
            continue
        greater = observation.pvalue(float(margin), True) if alternative != "less" else None
        less = observation.pvalue(float(margin), False) if alternative != "greater" else None
        if alternative == "greater":
            out.flat[i] = greater
        elif alternative == "less":
            out.flat[i] = less
        else:
            out.flat[i] = min(1.0, 2.0 * min(greater, less))
    return out if values.ndim else float(out)


def _first(test, lo, hi):
    """The first integer ``i`` in ``[lo, hi]`` with ``test(i)`` (``test`` monotone; ``hi`` if none before)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if test(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _critical(order, n, epsilon_1, line, alpha, upper):
    """``F`` (tails given the counts) of the rejection region ``{p_upper <= alpha}`` (or the lower one).

    The region is ``{T >= t*}``: the most extreme levels of ``M`` whose whole supremum tail is
    at most ``alpha`` (bisection over the sorted levels), then ``z*`` among the ties of the next
    level (bisection in ``z``, keeping the side whose tail is at most ``alpha``).  The searches
    run on the grid's maximum (a lower bound of the supremum, cheap), then the answer is moved
    outwards until the located supremum is at most ``alpha``.
    """
    levels = np.unique(order)
    if not upper:
        levels = levels[::-1]
    far = 4 * n + 10_000  # an integer part beyond every noise the sums keep
    sign = 1.0 if upper else -1.0

    def counts(level, z):
        k = int(np.clip(np.round(z), -far, far))
        return given_counts(order, n, epsilon_1, Observed(float(level), k, float(z)), upper)

    def whole(i):  # the region of levels i.. (upper: >= levels[i])
        return counts(levels[i], -sign * far)

    def settle(test_cheap, test, lo, hi):  # the first index passing `test`, searched with the cheap one
        i = _first(test_cheap, lo, hi)
        while i > lo and test(i - 1):  # the cheap test is weaker: it may pass later, never earlier... check back
            i -= 1
        while i < hi and not test(i):
            i += 1
        return i

    located = lambda F: sup_tail(F, line, certify=False)  # noqa: E731
    i = settle(lambda i: grid_max(whole(i), line) <= alpha, lambda i: located(whole(i)) <= alpha, 0, levels.size)
    if i == 0:
        return whole(0)
    level = levels[i - 1]
    # the ties of `level`: by the integer part k of z_D (the cells beyond k whole, k itself by its share)
    span = 2 * far

    def at(k, share):  # upper: ties with K > k, plus `share` of cell k; lower: K < k, plus share
        return counts(level, k + sign * (0.5 - share))

    ks = settle(lambda r: grid_max(at(sign * (far - r), 1.0), line) > alpha,
                lambda r: located(at(sign * (far - r), 1.0)) > alpha, 0, span)
    k = sign * (far - ks)  # the cell where the tail crosses alpha: all of it is too much
    F0, F1 = at(k, 0.0), at(k, 1.0)
    lo, hi = 0.0, 1.0  # the tail is a convex (sup of linear) function of the share
    for _ in range(32):
        mid = 0.5 * (lo + hi)
        if located(F0 + mid * (F1 - F0)) <= alpha:
            lo = mid
        else:
            hi = mid
    return F0 + lo * (F1 - F0)


def _power(p01, p10, n, epsilon, margin, alpha, alternative):
    epsilon_1 = _unit_epsilon(epsilon)
    order = ordering(n, epsilon_1)
    line = _Line(margin)
    side = alpha / 2.0 if alternative == "two-sided" else alpha
    total = 0.0
    for upper in (True, False):
        if (alternative == "greater" and not upper) or (alternative == "less" and upper):
            continue
        total += float(expectation(_critical(order, n, epsilon_1, line, side, upper), p01, p10)[0])
    return min(total, 1.0)


def _check_cells(p01, p10):
    p01 = _check_probability(p01, "p01")
    p10 = _check_probability(p10, "p10")
    if p01 + p10 > 1.0:
        raise ValueError(f"`p01` + `p10` must be at most 1 (discordant shares of the pairs); got {p01 + p10!r}.")
    return p01, p10


def mcnemar_power(p01, p10, n, *, epsilon, margin=0.0, alpha=0.05, alternative="two-sided"):
    """Exact power of :func:`mcnemar_test` at ``(p01, p10)`` with ``n`` pairs released at ``epsilon``.

    Parameters
    ----------
    p01, p10 : float
        The discordant cells' probabilities (first outcome 0 then 1, and 1 then 0).
    n : int
        Number of pairs (at most 1000).
    epsilon : float
        Of :class:`~dpinfer.PairedTableReleaser`.
    margin : float, default 0.0
    alpha : float, default 0.05
    alternative : {'two-sided', 'less', 'greater'}

    Returns
    -------
    float
        ``P(reject)``; at a point of the null line it is the exact size there (at most alpha).

    Notes
    -----
    The rejection region of the size-``alpha`` test is ``{T >= t*}`` (one-sided; two-sided:
    each tail at ``alpha / 2``, the two regions disjoint), ``t*`` the least extreme point of
    the order whose supremum tail is at most ``alpha`` (located suprema: the certified ones
    are at most 1e-12 relative above), and the power is the exact multinomial sum of
    ``P(T >= t* | n01, n10)``.  No simulation.

    Examples
    --------
    >>> from dpinfer import mcnemar_power
    >>> round(mcnemar_power(0.05, 0.25, 40, epsilon=1.0), 3)
    0.344
    """
    p01, p10 = _check_cells(p01, p10)
    n = _check_n(_check_int(n, "n", minimum=1))
    epsilon = _check_epsilon(epsilon)
    _unit_epsilon(epsilon)
    return _power(p01, p10, n, epsilon, _check_margin(margin), _check_alpha(alpha), _check_alternative(alternative))


def mcnemar_sample_size(p01, p10, *, epsilon, power=0.8, margin=0.0, alpha=0.05, alternative="two-sided"):
    """The smallest number of pairs whose exact :func:`mcnemar_power` reaches ``power``.

    Returns
    -------
    int
        ``n`` with ``mcnemar_power(p01, p10, n, ...) >= power`` and ``n - 1`` below it.

    Notes
    -----
    Exact power is not monotone in ``n`` (the lattice makes it saw-toothed), so the search
    brackets by doubling, bisects assuming monotonicity, then steps down while ``n - 1`` still
    reaches the power: the answer reaches it, its predecessor does not.  Raises when even
    1000 pairs do not.

    Examples
    --------
    >>> from dpinfer import mcnemar_sample_size
    >>> mcnemar_sample_size(0.05, 0.4, epsilon=2.0, power=0.8, alternative='greater')
    23
    """
    p01, p10 = _check_cells(p01, p10)
    epsilon = _check_epsilon(epsilon)
    _unit_epsilon(epsilon)
    power = _check_probability(power, "power", open_low=True, open_high=True)
    margin, alpha, alternative = _check_margin(margin), _check_alpha(alpha), _check_alternative(alternative)

    def reaches(n):
        return _power(p01, p10, n, epsilon, margin, alpha, alternative) >= power

    lo, hi = 1, 8
    while not reaches(hi):
        if hi >= MAX_N:
            raise ValueError(f"`power` = {power} is not reached with {MAX_N} pairs (the exact sums' limit) "
                             f"at p01 = {p01}, p10 = {p10}, epsilon = {epsilon}.")
        lo, hi = hi, min(2 * hi, MAX_N)
    hi = _first(reaches, lo, hi)
    while hi > 1 and reaches(hi - 1):
        hi -= 1
    return hi
