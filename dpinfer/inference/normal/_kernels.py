"""The normal approximation's argument handling and kernels: Wald and score intervals, exact size, power and coverage.

Private helpers of :mod:`dpinfer.inference.normal` and ``_normal_two_sample``;
the kernels assume valid input.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.stats import norm

from ... import _mechanisms
from ..._printing import _released
from ..._validation import (
    DPInferValueError,
    _arg,
    _call,
    _check_proportion_scale,
    _method,
    _setting,
    _show,
)
from ..._warnings import ApproximationWarning
from ...distributions._laplace_law import LaplaceLaw, count_tail
from .._roots import bisect_predicate
from .._oc_warnings import COUNT_TAIL_ACCURACY, coverage_message, size_message, worst_coverage
from .._resolve import accepts


_METHOD_ONE = "Normal-approximation test for a Laplace-noised proportion (Vu & Slavkovic 2009)"
_METHOD_TWO = "Normal-approximation test for two Laplace-noised proportions (pooled under H0)"


#: the releases the normal approximation takes (plain numbers stand for a Laplace proportion)
ACCEPTS = accepts(
    {(_mechanisms.LAPLACE, "proportion"), (_mechanisms.LAPLACE, "count")},
    ("binom_normal_test", "binom_normal_ci", "binom2_normal_test"),
    "a Laplace-noised proportion or count (LaplaceReleaser(epsilon).proportion(x, n) or .count(x, n))",
    numbers=(_mechanisms.LAPLACE, "proportion"))


def _proportions(rec, name="pi_hat", suffix=""):
    """The released proportions of a resolved record (a count divided by n), after the scale checks."""
    eps_name = f"{name}.epsilon" if rec.from_release else f"epsilon{suffix}"
    _check_noise_scale(rec.n, rec.epsilon, eps_name)
    value = rec.value
    if rec.kind == "count":
        value = value / rec.n
    else:
        _check_proportion_scale(value, rec.n, rec.epsilon, name, count_fix=_COUNT_FIX)
    return _check_value_range(value, name)


_COUNT_FIX = "for a Laplace-noised count release it with LaplaceReleaser(epsilon).count(x, n)"


def _check_value_range(value, value_name):
    """Reject released proportions beyond +-1e150, whose squares overflow (score interval)."""
    if np.max(np.abs(value)) > 1e150:
        raise ValueError(
            f"`{value_name}` must lie within +-1e150 (a released proportion is within a few "
            f"noise scales of [0, 1]); got {float(value.flat[np.argmax(np.abs(value))])!r}."
        )
    return value


def _check_noise_scale(n, epsilon, eps_name):
    """Reject epsilon * n so small that the noise variance 2 / (epsilon n)**2 overflows."""
    if epsilon * n < 1e-150:
        raise ValueError(
            f"`{eps_name}` * n must be at least 1e-150 (the Laplace noise, of scale "
            f"1/(epsilon n), would swamp any data and its variance overflow); got "
            f"epsilon = {epsilon!r} with n = {n}."
        )


def _check_one_sided_level(confidence_level, alternative):
    if alternative != "two-sided" and confidence_level < 0.5:
        raise DPInferValueError(
            _arg("confidence_level"), " must be at least 0.5 for a one-sided interval (",
            _setting("alternative", alternative), f"); got {confidence_level!r}."
        )


def _check_method(method):
    if not isinstance(method, str):
        raise TypeError(f"`method` must be 'wald' or 'score'; got {_show(method)}.")
    if method not in ("wald", "score"):
        raise ValueError(f"`method` must be 'wald' or 'score'; got {method!r}.")
    return method


# --------------------------------------------------------------------------- kernels (assume valid input)


def _noise_var(n, epsilon):
    """Variance of Laplace(0, 1/(epsilon n)) on the proportion scale: 2 / (epsilon n)**2."""
    return 2.0 / (epsilon * n) ** 2


def _pvalue_from_z(z, alternative):
    """Normal p-value of the z score; sf/cdf so both tails keep full relative accuracy."""
    if alternative == "greater":
        return norm.sf(z)
    if alternative == "less":
        return norm.cdf(z)
    return np.minimum(1.0, 2.0 * norm.sf(np.abs(z)))


@functools.lru_cache(maxsize=64)
def _one_sided_z(confidence_level):
    """``z`` of a one-sided interval at ``confidence_level`` (cached by the public level: the coverage
    check's bisection evaluates the interval 61 times, and scipy's ``isf`` costs more than the interval)."""
    return norm.isf(1.0 - confidence_level)


@functools.lru_cache(maxsize=64)
def _two_sided_z(confidence_level):
    """``z`` of a two-sided interval at ``confidence_level`` (cached by the public level)."""
    return norm.isf(0.5 * (1.0 - confidence_level))


def _wald_ci(x, n, epsilon, confidence_level, alternative):
    """Wald interval ``x +- z sqrt(pc (1 - pc)/n + 2/(eps n)^2)``, pc = clip(x), clipped to [0, 1]."""
    pc = np.clip(x, 0.0, 1.0)
    se = np.sqrt(pc * (1.0 - pc) / n + _noise_var(n, epsilon))
    if alternative == "two-sided":
        z = _two_sided_z(confidence_level)
        low, high = x - z * se, x + z * se
    elif alternative == "greater":
        z = _one_sided_z(confidence_level)
        low, high = x - z * se, np.ones_like(x)
    else:
        z = _one_sided_z(confidence_level)
        low, high = np.zeros_like(x), x + z * se
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def _score_roots(x, n, epsilon, z):
    """Roots ``r1 <= r2`` of ``(x - p)**2 = z**2 (p (1 - p)/n + c)``, c = 2/(eps n)^2.

    As a quadratic in p: ``a p^2 - B p + C = 0`` with ``a = 1 + z^2/n``,
    ``B = 2x + z^2/n``, ``C = x^2 - z^2 c``.  The discriminant is written without
    cancellation, ``z^2 (4x(1-x)/n + z^2/n^2 + 4c(1 + z^2/n))``, and the roots with
    the cancellation-free pair ``(B + sign(B) S)/(2a)``, ``2C/(B + sign(B) S)``.
    Returns ``(r1, r2, real)``; where ``real`` is False the roots are NaN.
    """
    c = _noise_var(n, epsilon)
    z2n = z * z / n
    a = 1.0 + z2n
    big_b = 2.0 * x + z2n
    small_c = x * x - z * z * c
    disc = z * z * (4.0 * x * (1.0 - x) / n + z2n / n + 4.0 * c * a)
    real = disc >= 0.0
    s = np.sqrt(np.where(real, disc, 0.0))
    q = big_b + np.copysign(s, big_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        other = np.where(q != 0.0, 2.0 * small_c / q, big_b / (2.0 * a))
    first = q / (2.0 * a)
    r1 = np.where(real, np.minimum(first, other), np.nan)
    r2 = np.where(real, np.maximum(first, other), np.nan)
    return r1, r2, real


def _score_lower_bound(x, n, epsilon, z):
    """Lower end L of the one-sided ('greater') score interval [L, 1], for z >= 0.

    The acceptance set is ``{p in [0, 1]: x - p <= z sd(p)}``: all of [0, 1] when
    x <= 0; ``[max(r1, 0), 1]`` when 0 < x <= 1; for x > 1 the part of ``[r1, r2]``
    inside [0, 1], reported as ``[max(r1, 0), 1]``, or ``[1, 1]`` when it is empty.
    """
    r1, _, real = _score_roots(x, n, epsilon, z)
    ok = real & (r1 <= 1.0)
    with np.errstate(invalid="ignore"):
        low = np.where(ok, np.clip(r1, 0.0, 1.0), 1.0)
    return np.where(x <= 0.0, 0.0, low)


def _score_ci(x, n, epsilon, confidence_level, alternative):
    """Score interval: the p in [0, 1] the test with null variance does not reject."""
    if alternative == "greater":
        low = _score_lower_bound(x, n, epsilon, _one_sided_z(confidence_level))
        return low, np.ones_like(x)
    if alternative == "less":
        # reflection p -> 1 - p maps the 'less' problem at x onto 'greater' at 1 - x
        high = 1.0 - _score_lower_bound(1.0 - x, n, epsilon, _one_sided_z(confidence_level))
        return np.zeros_like(x), high
    r1, r2, real = _score_roots(x, n, epsilon, _two_sided_z(confidence_level))
    with np.errstate(invalid="ignore"):
        ok = real & (r1 <= 1.0) & (r2 >= 0.0)
        nearest = np.clip(x, 0.0, 1.0)
        low = np.where(ok, np.clip(r1, 0.0, 1.0), nearest)
        high = np.where(ok, np.clip(r2, 0.0, 1.0), nearest)
    return low, high


def _cuts(n, p0, epsilon, alpha, alternative):
    """Rejection thresholds on the count scale, as ``(c, side)`` pairs.

    On the count scale ``n pi_hat = x + N`` with ``N ~ Laplace(0, 1/epsilon)``.  The
    level-alpha test rejects when ``x + N > c`` (side +1, c = n (p0 + z sd0)) or
    ``x + N < c`` (side -1, c = n (p0 - z sd0)); two-sided uses both at alpha/2.
    """
    sd0 = math.sqrt(p0 * (1.0 - p0) / n + _noise_var(n, epsilon))
    if alternative == "greater":
        return [(n * (p0 + norm.isf(alpha) * sd0), 1)]
    if alternative == "less":
        return [(n * (p0 - norm.isf(alpha) * sd0), -1)]
    z = norm.isf(0.5 * alpha)
    return [(n * (p0 + z * sd0), 1), (n * (p0 - z * sd0), -1)]


def _power(theta, n, p0, epsilon, alpha, alternative):
    """Exact rejection probability ``sum_x Binom(x; n, theta) P(reject | x)`` (array theta).

    On the count scale the release is ``x + N``, ``N ~ Laplace(0, 1/epsilon)``, and
    the test rejects beyond the thresholds of :func:`_cuts`; the sum is the Laplace
    law's :func:`~dpinfer.distributions._laplace_law.count_tail` (a binomial tail
    plus a windowed sum of the closed-form Laplace correction, exact in double
    precision at a cost of ``O(min(sqrt(n), 1/epsilon))`` per theta).
    """
    return count_tail(theta, n, _cuts(n, p0, epsilon, alpha, alternative), LaplaceLaw.from_rate(epsilon))


@functools.lru_cache(maxsize=4096)
def _exact_size(n, p0, epsilon, alpha, alternative):
    """Exact size of the level-alpha test (cached; arguments are hashable scalars)."""
    return float(_power(np.array(p0), n, p0, epsilon, alpha, alternative))


def _size_warning(n, p0, epsilon, alpha, alternative):
    """The ApproximationWarning (its names as data) when the exact size drifts (the shared rule), else None."""
    clause = size_message(_exact_size(n, p0, epsilon, alpha, alternative), alpha)
    if clause is None:
        return None
    return ApproximationWarning(
        f"The normal approximation is poor here: for n = {n}, p0 = {p0:g}, epsilon = {epsilon:g} and ",
        _setting("alternative", alternative, f"alternative = {alternative!r}"),
        f" the exact size of {clause}. ",
        _call("binom_normal_power", "binom_normal_power(p0, n, p0, ...)"),
        " gives the exact size at any level; a method that does not rely on normality (e.g. DP-JIMI, ",
        _method("jimi", "binom_jimi_test"), ") may be preferable."
    )


#: Grid points per ``2 reach`` of releases, before the ends of each theta's covering
#: set are refined by bisection (Wald's covering set need not be one piece).
_REGION_GRID = 2001


def _region_coverages(thetas, n, epsilon, confidence_level, alternative, method="wald"):
    """Exact coverage of the Wald (or score) interval at each theta of an array.

    The releases v whose interval holds theta form a set S(theta) (not always one
    piece: the plug-in standard error moves with v).  Beyond ``theta +- reach``
    (``reach = 1.01 z sd_max``, ``sd_max^2 = 1/(4n) + 2/(epsilon n)^2``) every
    release's interval lies wholly on one side of theta, so S(theta) is located on
    one grid of releases shared by all thetas (spacing ``2 reach / 2000``), where
    the interval ends are computed once; each change of the covering status is
    refined by 60 bisections, all at once.  The probability of S(theta) is ``sum
    over pieces [a, b] of P(a < X/n + L < b)``, each from the Laplace law's exact
    :func:`~dpinfer.distributions._laplace_law.count_tail`.  Pieces narrower than
    the grid step could be missed; none were seen.
    """
    thetas = np.atleast_1d(np.asarray(thetas, dtype=float))
    kernel = _wald_ci if method == "wald" else _score_ci
    z = _two_sided_z(confidence_level) if alternative == "two-sided" else _one_sided_z(confidence_level)
    reach = 1.01 * z * math.sqrt(0.25 / n + _noise_var(n, epsilon)) + 1e-12
    step = 2.0 * reach / (_REGION_GRID - 1)
    lo_edge, hi_edge = float(np.min(thetas)) - reach, float(np.max(thetas)) + reach
    v = np.linspace(lo_edge, hi_edge, int(math.ceil((hi_edge - lo_edge) / step)) + 1)
    low, high = kernel(v, n, epsilon, confidence_level, alternative)
    inside = (low[None, :] <= thetas[:, None]) & (thetas[:, None] <= high[None, :])
    rows, cols = np.nonzero(inside[:, 1:] != inside[:, :-1])
    a, b = v[cols], v[cols + 1]
    left = inside[rows, cols]
    t = thetas[rows]

    def covers(v, rows):
        lo_v, hi_v = kernel(v, n, epsilon, confidence_level, alternative)
        return (lo_v <= t[rows]) & (t[rows] <= hi_v)

    ends = bisect_predicate(covers, a, b, left, iterations=60)
    # P(release > end) for each end; coverage = sum over rising ends - falling ends
    # (a piece [r, f] has probability P(> r) - P(> f)); a set open at the grid's
    # left edge starts with P(> -inf) = 1, one open at the right edge ends with
    # P(> +inf) = 0.
    total = np.where(inside[:, 0], 1.0, 0.0)
    if rows.size:
        tails = count_tail(t, n, [(n * ends, 1)], LaplaceLaw.from_rate(epsilon), **COUNT_TAIL_ACCURACY)
        np.add.at(total, rows, np.where(left, -tails, tails))
    return np.clip(total, 0.0, 1.0)


def _region_coverage(theta, n, epsilon, confidence_level, alternative, method="wald"):
    """Exact coverage at one theta (:func:`_region_coverages`)."""
    return float(_region_coverages(np.array([theta]), n, epsilon, confidence_level, alternative, method)[0])


def _ci_coverage_message(lows, highs, n, epsilon, confidence_level, alternative, method):
    """The ApproximationWarning (its names as data) when the exact coverage falls short, else None.

    Judged by the shared rule over the interval's thetas
    (:mod:`dpinfer.inference._oc_warnings`), by :func:`_region_coverages` (for the
    score interval this equals one minus the size of the test it inverts, except
    for one-sided intervals near 0 or 1, where the reported interval is the
    acceptance set's hull and covers more).
    """
    found = worst_coverage(
        lambda t: _region_coverages(t, n, epsilon, confidence_level, alternative, method),
        lows, highs, n, confidence_level)
    if found is None:
        return None
    return coverage_message(
        (f"The normal-approximation ({method}) interval covers too little here: for n = {n}, "
         f"epsilon = {epsilon:g} and ", _setting("alternative", alternative, f"alternative = {alternative!r}"),
         " its exact coverage"),
        *found, confidence_level,
        (_method("jimi", "binom_jimi_ci"), ", or ", _method("ump", "binom_ump_ci"),
         " for a Tulap release, may be preferable."))


def _data_name(value, n, from_release, what="pi_hat"):
    if value.ndim == 0:
        shown = f"{what} = {_released(value)}, n = {n}"
    else:
        shown = f"{value.size} values of {what}, n = {n}"
    return ("Laplace release: " + shown) if from_release else shown
