"""Normal-approximation inference for Laplace-noised proportions (Vu & Slavkovic 2009).

A proportion is released as ``pi_hat = X / n + L`` with ``X ~ Binomial(n, theta)``
and ``L ~ Laplace(0, 1 / (epsilon n))`` (:meth:`dpinfer.LaplaceReleaser.proportion`).
Vu & Slavkovic (2009) treat ``pi_hat`` as normal with mean ``theta`` and variance
``theta (1 - theta) / n + 2 / (epsilon n)**2`` (binomial variance plus the Laplace
variance).  This module provides that test and its intervals, the two-sample
test for a difference of proportions, and -- because the normal law is only an
approximation -- the *exact* power and size of the one-sample test, computed as a
finite sum over the binomial law with the closed-form Laplace tail.  The exact
size drives an :class:`~dpinfer.ApproximationWarning` when the approximation is
poor for the user's ``n``, ``p0``, ``epsilon`` and level.

The private functions (leading underscore) are vectorised kernels that assume
valid input; the public functions validate every argument once.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy.stats import binom, norm

from .._validation import (
    _as_probability_array,
    _as_real_array,
    _check_alpha,
    _check_alternative,
    _check_confidence_level,
    _check_epsilon,
    _check_int,
    _check_probability,
    _check_proportion_scale,
    _scalar_or_array,
    _show,
)
from .._warnings import ApproximationWarning
from ..budget._charging import check_two_sample_composition, two_sample_privacy
from ..releasers.release import Release
from ..results import ConfidenceInterval, HTestResult
from ._release_args import _STACKLEVEL, _release_first

__all__ = ["binom2_normal_test", "binom_normal_ci", "binom_normal_power", "binom_normal_test"]

#: Relative size tolerance of the ApproximationWarning: warn when the exact size of
#: the test lies outside [(1 - tol) alpha, (1 + tol) alpha].
_SIZE_TOLERANCE = 0.2

#: Binomial mass left out of the exact sums (each tail); below double precision's
#: smallest meaningful probability, so the sums are exact in floating point.
_BINOM_TAIL = 1e-300

#: Laplace tail terms farther than this many noise scales from a threshold are
#: below exp(-700) / 2 < 1e-304 and are dropped.
_LAPLACE_REACH = 700.0

#: Largest pmf matrix (thetas x support points) built at once by the power kernel.
_BLOCK = 1 << 21

_METHOD_ONE = "Normal-approximation test for a Laplace-noised proportion (Vu & Slavkovic 2009)"
_METHOD_TWO = "Normal-approximation test for two Laplace-noised proportions (pooled under H0)"


# ---------------------------------------------------------------------------
# argument handling
# ---------------------------------------------------------------------------


def _from_release_or_numbers(pi_hat, n, epsilon, *, func, value_name="pi_hat",
                             n_name="n", eps_name="epsilon"):
    """Return ``(value array, n, epsilon, delta, from_release)`` after validation.

    A :class:`Release` must be a Laplace release of a proportion (or of a count,
    which is divided by n); n and epsilon then come from it and must not be given.
    """
    if isinstance(pi_hat, Release):
        rel = pi_hat
        for given, name in ((n, n_name), (epsilon, eps_name)):
            if given is not None:
                raise ValueError(
                    f"`{name}` must not be given when `{value_name}` is a Release: it is taken "
                    f"from the release (n = {rel.n}, epsilon = {rel.epsilon:g}); got "
                    f"{name}={_show(given)}. Drop `{name}`."
                )
        if rel.mechanism == "tulap":
            raise ValueError(
                f"`{value_name}` is a Tulap release (mechanism 'tulap'): {func} assumes a "
                "proportion with Laplace noise of scale 1/(epsilon n), and the Tulap law is a "
                "different noise law, so the normal approximation would be miscalibrated. "
                "Use binom_ump_test / binom_ump_ci, which are exact for Tulap releases."
            )
        if rel.mechanism != "laplace":
            raise ValueError(
                f"`{value_name}` must be a Laplace release (mechanism 'laplace'); got a release "
                f"with mechanism {rel.mechanism!r}."
            )
        if rel.kind not in ("proportion", "count") or rel.n is None:
            raise ValueError(
                f"`{value_name}` must be a Laplace release of a proportion or a count out of n "
                f"(LaplaceReleaser.proportion or .count); got kind {rel.kind!r} with n = {rel.n}."
            )
        n_rel = _check_int(rel.n, f"{value_name}.n", minimum=1)
        eps_rel = _check_epsilon(rel.epsilon, f"{value_name}.epsilon")
        expected = 1.0 / n_rel if rel.kind == "proportion" else 1.0
        if not math.isclose(rel.sensitivity, expected, rel_tol=1e-9):
            raise ValueError(
                f"`{value_name}` is a Laplace {rel.kind} release with sensitivity "
                f"{rel.sensitivity!r}, but {func} needs the sensitivity of a {rel.kind} out of "
                f"n = {n_rel}, which is {expected!r} (noise scale 1/(epsilon n) on the proportion)."
            )
        _check_noise_scale(n_rel, eps_rel, f"{value_name}.epsilon")
        value = _as_real_array(rel.value, value_name)
        if rel.kind == "count":
            value = value / n_rel
        else:
            _check_proportion_scale(value, n_rel, eps_rel, value_name, count_fix=_COUNT_FIX)
        return _check_value_range(value, value_name), n_rel, eps_rel, float(rel.delta), True
    if n is None:
        raise TypeError(
            f"`{n_name}` is required when `{value_name}` is a number or an array "
            f"(only a Release carries its own n); got None."
        )
    if epsilon is None:
        raise TypeError(
            f"`{eps_name}` is required when `{value_name}` is a number or an array "
            f"(only a Release carries its own epsilon); got None."
        )
    value = _as_real_array(pi_hat, value_name)
    n = _check_int(n, n_name, minimum=1)
    epsilon = _check_epsilon(epsilon, eps_name)
    _check_noise_scale(n, epsilon, eps_name)
    _check_proportion_scale(value, n, epsilon, value_name, count_fix=_COUNT_FIX)
    return _check_value_range(value, value_name), n, epsilon, 0.0, False


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
        raise ValueError(
            "`confidence_level` must be at least 0.5 for a one-sided interval "
            f"(alternative={alternative!r}); got {confidence_level!r}."
        )


def _check_method(method):
    if not isinstance(method, str):
        raise TypeError(f"`method` must be 'wald' or 'score'; got {_show(method)}.")
    if method not in ("wald", "score"):
        raise ValueError(f"`method` must be 'wald' or 'score'; got {method!r}.")
    return method


# ---------------------------------------------------------------------------
# kernels (assume valid input)
# ---------------------------------------------------------------------------


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


def _one_sided_z(confidence_level):
    return norm.isf(1.0 - confidence_level)


def _two_sided_z(confidence_level):
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


def _laplace_correction(x, c, epsilon, side):
    """``P(reject | X = x) - 1{x strictly on the rejection side of c}`` (closed form).

    For side +1, ``P(x + N > c)`` is ``1 - exp(-eps (x - c))/2`` above c and
    ``exp(-eps (c - x))/2`` at or below it; side -1 is the mirror image.  The
    correction is ``+-exp(-eps |x - c|)/2``: it decays geometrically away from c.
    """
    half = 0.5 * np.exp(-epsilon * np.abs(x - c))
    accept_side = (x <= c) if side > 0 else (x >= c)
    return np.where(accept_side, half, -half)


def _windowed_pmf_sums(theta, n, lo, hi, weight):
    """``sum_{x=lo_i}^{hi_i} Binom(x; n, theta_i) weight(x)`` for each i (0 if lo_i > hi_i).

    Thetas are taken in order of their windows and grouped while the pmf matrix
    (thetas x union window) stays below ``_BLOCK`` entries and the union window is
    at most 1.25 times the widest own window (little work wasted on padding).
    """
    out = np.zeros(theta.size)
    live = np.flatnonzero(lo <= hi)
    order = live[np.argsort(lo[live], kind="stable")]
    start = 0
    while start < order.size:
        wlo, whi = lo[order[start]], hi[order[start]]
        widest = whi - wlo + 1.0
        stop = start + 1
        while stop < order.size:
            j = order[stop]
            nlo, nhi = min(wlo, lo[j]), max(whi, hi[j])
            nwidest = max(widest, hi[j] - lo[j] + 1.0)
            width = nhi - nlo + 1.0
            if (stop - start + 1) * width > _BLOCK or width > 1.25 * nwidest:
                break
            wlo, whi, widest, stop = nlo, nhi, nwidest, stop + 1
        idx = order[start:stop]
        x = np.arange(wlo, whi + 1.0)
        pmf = binom.pmf(x[None, :], n, theta[idx, None])
        # rows whose own window is narrower than the union: zero the extra columns
        inside = (x[None, :] >= lo[idx, None]) & (x[None, :] <= hi[idx, None])
        out[idx] = np.where(inside, pmf, 0.0) @ weight(x)
        start = stop
    return out


def _power(theta, n, p0, epsilon, alpha, alternative):
    """Exact rejection probability ``sum_x Binom(x; n, theta) P(reject | x)`` (array theta).

    Per threshold c: ``P(reject | x) = 1{x beyond c} + correction(x)``, so the sum is
    a binomial tail (scipy's ``binom.sf``/``binom.cdf``, accurate in the tails)
    plus a finite sum of the geometric correction.  That sum runs over the x
    within ``_LAPLACE_REACH / epsilon`` of c (farther terms are below 1e-304) and
    inside the binomial window holding all but 1e-300 of the mass in each tail:
    the result is exact in double precision, at a cost of
    ``O(min(sqrt(n), 1/epsilon))`` per theta.
    """
    return _rejection_prob(theta, n, epsilon, _cuts(n, p0, epsilon, alpha, alternative))


def _rejection_prob(theta, n, epsilon, cuts):
    """``sum_x Binom(x; n, theta) P(x + N beyond c)`` summed over the ``(c, side)`` cuts.

    ``N ~ Laplace(0, 1/epsilon)`` on the count scale; side +1 rejects above c, -1
    below.  The kernel of :func:`_power`, shared with DP-JIMI's exact size (whose
    rejection region in the release is also one or two half-lines).
    """
    theta = np.asarray(theta, dtype=float)
    flat = theta.ravel()
    # Boost's discrete quantile warns "Unable to bracket root" for some ordinary
    # (n, theta), e.g. n = 1000, theta = 0.6346, because the cdf underflows next to
    # 1e-300; its best guess is still a valid window edge.  Silence that warning
    # and fall back to the full support should a guess ever be non-finite.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*do_inverse_discrete_quantile",
                                category=RuntimeWarning)
        lo = binom.ppf(_BINOM_TAIL, n, flat)
        hi = n - binom.ppf(_BINOM_TAIL, n, 1.0 - flat)
    lo = np.where(np.isfinite(lo), lo, 0.0)
    hi = np.where(np.isfinite(hi), hi, float(n))
    reach = _LAPLACE_REACH / epsilon
    total = np.zeros(flat.size)
    for c, side in cuts:
        if side > 0:
            total += binom.sf(np.floor(c), n, flat)          # P(X > c)
        else:
            total += binom.cdf(np.ceil(c) - 1.0, n, flat)    # P(X < c)
        wlo = np.maximum(lo, np.ceil(c - reach))
        whi = np.minimum(hi, np.floor(c + reach))
        total += _windowed_pmf_sums(
            flat, n, wlo, whi, lambda x, c=c, side=side: _laplace_correction(x, c, epsilon, side))
    return np.clip(total, 0.0, 1.0).reshape(theta.shape)


@functools.lru_cache(maxsize=4096)
def _exact_size(n, p0, epsilon, alpha, alternative):
    """Exact size of the level-alpha test (cached; arguments are hashable scalars)."""
    return float(_power(np.array(p0), n, p0, epsilon, alpha, alternative))


def _size_warning(n, p0, epsilon, alpha, alternative):
    """The ApproximationWarning message when the exact size drifts, else None."""
    size = _exact_size(n, p0, epsilon, alpha, alternative)
    if abs(size - alpha) <= _SIZE_TOLERANCE * alpha:
        return None
    kind = "liberal: it rejects a true null too often" if size > alpha else "conservative: it loses power"
    return (
        f"The normal approximation is poor here: for n = {n}, p0 = {p0:g}, epsilon = {epsilon:g} "
        f"and alternative = {alternative!r} the exact size of the nominal level-{alpha:g} test is "
        f"{size:.4g}, more than {_SIZE_TOLERANCE:.0%} away from {alpha:g} ({kind}). "
        "binom_normal_power(p0, n, p0, ...) gives the exact size at any level; "
        "a method that does not rely on normality (e.g. DP-JIMI, binom_jimi_test) may be preferable."
    )


#: Points of the theta grid over an interval at which its exact coverage is checked.
_COVERAGE_GRID = 7

#: Grid points over the releases that can cover a theta, before the ends of the
#: covering set are refined by bisection (Wald's covering set need not be one piece).
_REGION_GRID = 2001


def _interval_grid(lows, highs):
    """Thetas spread strictly inside the hull of the intervals (its ends excluded),
    on the lattice 0.001, ..., 0.999."""
    grid = np.linspace(float(np.min(lows)), float(np.max(highs)), _COVERAGE_GRID + 2)[1:-1]
    return np.unique(np.clip(np.round(grid, 3), 0.001, 0.999))


@functools.lru_cache(maxsize=4096)
def _region_coverage(theta, n, epsilon, confidence_level, alternative, method="wald"):
    """Exact coverage of the Wald (or score) interval at ``theta`` (cached).

    The releases v whose interval holds theta form a set S (not always one
    piece: the plug-in standard error moves with v).  Within ``z sd_max`` of
    theta (``sd_max^2 = 1/(4n) + 2/(epsilon n)^2``) S is located on a grid of
    ``_REGION_GRID`` points there, each end refined by 60 bisections, and its
    probability is ``sum over pieces [a, b] of P(a < X/n + L < b)``, each the
    exact finite sum of :func:`_rejection_prob`.  Pieces narrower than the grid
    step (``2 z sd_max / 2000``) could be missed; none were seen.
    """
    z = _two_sided_z(confidence_level) if alternative == "two-sided" else _one_sided_z(confidence_level)
    # Beyond theta +- reach every release's interval lies wholly on one side of
    # theta (its ends are within z sd_max of the release, or are 0 or 1), so the
    # covering status is constant there and the grid's end points stand for it.
    reach = 1.01 * z * math.sqrt(0.25 / n + _noise_var(n, epsilon)) + 1e-12
    lo_edge, hi_edge = theta - reach, theta + reach

    def covers(v):
        kernel = _wald_ci if method == "wald" else _score_ci
        low, high = kernel(v, n, epsilon, confidence_level, alternative)
        return (low <= theta) & (theta <= high)

    v = np.linspace(lo_edge, hi_edge, _REGION_GRID)
    inside = covers(v)
    change = np.flatnonzero(inside[1:] != inside[:-1])
    a, b = v[change], v[change + 1]
    rising = ~inside[change]
    for _ in range(60):
        mid = 0.5 * (a + b)
        same_as_left = covers(mid) == inside[change]
        a = np.where(same_as_left, mid, a)
        b = np.where(same_as_left, b, mid)
    ends = 0.5 * (a + b)
    # P(release > end) for each end; coverage = sum over rising ends - falling ends
    # (a piece [r, f] has probability P(> r) - P(> f)); a set open at the grid's
    # left edge starts with P(> -inf) = 1, one open at the right edge ends with
    # P(> +inf) = 0.
    total = 1.0 if inside[0] else 0.0
    for end, up in zip(ends, rising):
        tail = float(_rejection_prob(np.array(theta), n, epsilon, [(n * end, 1)]))
        total += tail if up else -tail
    return min(max(total, 0.0), 1.0)


def _ci_coverage_message(lows, highs, n, epsilon, confidence_level, alternative, method):
    """The ApproximationWarning text when the exact coverage falls short, else None.

    Coverage at the thetas of :func:`_interval_grid`, by :func:`_region_coverage`
    (for the score interval this equals one minus the size of the test it
    inverts, except for one-sided intervals near 0 or 1, where the reported
    interval is the acceptance set's hull and covers more).
    Warns when it is below ``level - 0.2 (1 - level)`` (0.94 at level 0.95).
    """
    alpha = 1.0 - confidence_level
    grid = _interval_grid(lows, highs)
    coverage = [_region_coverage(float(t), n, epsilon, confidence_level, alternative, method) for t in grid]
    worst = int(np.argmin(coverage))
    if coverage[worst] >= confidence_level - _SIZE_TOLERANCE * alpha:
        return None
    return (
        f"The normal-approximation ({method}) interval covers too little here: for n = {n}, "
        f"epsilon = {epsilon:g} and alternative = {alternative!r} its exact coverage at theta = "
        f"{grid[worst]:.4g}, inside the interval, is {coverage[worst]:.4g}, below the nominal "
        f"{confidence_level:g} by more than {_SIZE_TOLERANCE * alpha:.3g} (20% of 1 - level). "
        "binom_jimi_ci, or binom_ump_ci for a Tulap release, may be preferable."
    )


def _data_name(value, n, from_release, what="pi_hat"):
    if value.ndim == 0:
        shown = f"{what} = {float(value):.4g}, n = {n}"
    else:
        shown = f"{value.size} values of {what}, n = {n}"
    return ("Laplace release: " + shown) if from_release else shown


# ---------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------


@_release_first(("pi_hat",), skip=("n",))
def binom_normal_test(pi_hat, n=None, p0=0.5, *, epsilon=None, alternative="two-sided",
                      confidence_level=0.95):
    """Normal-approximation test for a Laplace-noised binomial proportion.

    Tests ``H0: theta = p0`` from ``pi_hat = X/n + Laplace(0, 1/(epsilon n))`` by
    treating ``pi_hat`` as normal with the null variance (Vu & Slavkovic 2009).

    Parameters
    ----------
    pi_hat : float, array_like or Release
        The released (noisy, unclamped) proportion, or an array of them sharing
        ``n`` and ``epsilon``.  A :class:`~dpinfer.Release` from
        :meth:`LaplaceReleaser.proportion <dpinfer.LaplaceReleaser.proportion>`
        (mechanism ``'laplace'``, kind ``'proportion'``) may be passed instead; then
        ``n`` and ``epsilon`` come from it and must not be given.  A Laplace *count*
        release (kind ``'count'``, ``x + Laplace(0, 1/epsilon)``) is accepted too
        and divided by ``n``, which gives exactly the proportion release's law.
        A Tulap release is rejected: use ``binom_ump_test``.
    n : int
        Number of records (>= 1, public).
    p0 : float, default 0.5
        Null proportion, in (0, 1).
    epsilon : float
        Privacy-loss parameter of the release, > 0.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        The alternative hypothesis about ``theta`` relative to ``p0``.
    confidence_level : float, default 0.95
        Level of the interval in ``conf_int`` (at least 0.5 for a one-sided
        alternative); ``alpha = 1 - confidence_level`` is also the level at which
        the exact size is checked for the warning (see Notes).

    Returns
    -------
    HTestResult or ndarray
        For a scalar ``pi_hat``: an :class:`~dpinfer.HTestResult` with
        ``statistic`` (the z score), ``pvalue``, ``null_value`` (p0),
        ``alternative``, ``method``, ``estimate`` (``pi_hat`` clipped to [0, 1]),
        ``estimate_raw`` (the unbiased ``pi_hat`` itself),
        ``conf_int`` (the score interval of :func:`binom_normal_ci`, the set of p0
        this test does not reject), ``epsilon``, ``delta`` (0), ``data_name``,
        ``statistic_name='z'`` and ``mechanism='Laplace'``.  For an array
        ``pi_hat``: the array of p-values, of the same shape.

    Raises
    ------
    TypeError
        If an argument has the wrong type, or ``n`` / ``epsilon`` is missing for a
        plain number.
    ValueError
        If an argument is out of range, a Release is of the wrong mechanism or
        kind, or ``n`` / ``epsilon`` is given together with a Release.

    Warns
    -----
    ApproximationWarning
        When the exact size of the test differs from ``alpha = 1 - confidence_level``
        by more than 20% of alpha (see Notes).

    See Also
    --------
    binom_normal_ci : Wald and score intervals.
    binom_normal_power : exact power and size of this test.
    binom2_normal_test : two independent proportions.

    Notes
    -----
    With ``sd0 = sqrt(p0 (1 - p0)/n + 2/(epsilon n)^2)`` the statistic is
    ``z = (pi_hat - p0) / sd0`` and the p-value is ``P(Z >= z)`` ('greater'),
    ``P(Z <= z)`` ('less') or ``2 P(Z >= |z|)`` ('two-sided') for a standard
    normal Z.  The *unclipped* ``pi_hat`` enters the statistic (clipping would
    bias it); only the reported ``estimate`` is clipped to [0, 1].

    The test spends no privacy budget beyond the release's: it is post-processing
    of an epsilon-DP release (one record changed, replace-one, n public).

    **When it misbehaves.**  ``pi_hat`` is a binomial proportion plus Laplace
    noise, not a normal variable; for small n, p0 near 0 or 1, or noise that
    dominates the binomial spread (small ``epsilon n``) the size drifts away from
    alpha -- for noise-dominated releases the heavier Laplace tail makes the
    two-sided 5% test reject about 6.3% of the time.  The exact size
    ``sum_x Binom(x; n, p0) P(reject | x)`` is a finite sum (see
    :func:`binom_normal_power`), so it is computed for the user's ``n``, ``p0``,
    ``epsilon`` and ``alternative`` at ``alpha = 1 - confidence_level``, and an
    :class:`~dpinfer.ApproximationWarning` is raised when
    ``|size - alpha| > 0.2 alpha`` (at alpha = 0.05: size outside [0.04, 0.06]).
    The 20% tolerance sits between the "stringent" (10%) and "liberal" (50%)
    robustness criteria of Bradley (1978); a liberal drift inflates false
    positives, a conservative one wastes power, so both are reported.

    Checked against: a hand derivation and mpmath values of the statistic and
    p-value (tests/reference/make_normal.py), duality with the score interval,
    and the non-private limit (large epsilon) against statsmodels.

    References
    ----------
    .. [1] D. Vu and A. Slavkovic (2009). "Differential privacy for clinical trial
       data: preliminary evaluations." IEEE ICDM Workshops, 138-143.
    .. [2] J. V. Bradley (1978). "Robustness?" British Journal of Mathematical and
       Statistical Psychology 31, 144-152.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser, binom_normal_test
    >>> rel = LaplaceReleaser(epsilon=1.0).proportion(21, 50, rng=2024)
    >>> res = binom_normal_test(rel, p0=0.3, alternative='greater')
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (1.4925, 0.0678)
    >>> print(res.conf_int)
    95 percent confidence interval: [0.2901688, 1.0000000]

    The same test from the numbers:

    >>> res2 = binom_normal_test(rel.value, 50, 0.3, epsilon=1.0, alternative='greater')
    >>> res2.pvalue == res.pvalue
    True
    """
    value, n, epsilon, delta, from_release = _from_release_or_numbers(
        pi_hat, n, epsilon, func="binom_normal_test")
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    _check_one_sided_level(confidence_level, alternative)

    message = _size_warning(n, p0, epsilon, 1.0 - confidence_level, alternative)
    if message is not None:
        warnings.warn(message, ApproximationWarning, stacklevel=_STACKLEVEL)

    sd0 = math.sqrt(p0 * (1.0 - p0) / n + _noise_var(n, epsilon))
    z = (value - p0) / sd0
    pvalue = _pvalue_from_z(z, alternative)
    if value.ndim > 0:
        return pvalue
    low, high = _score_ci(value, n, epsilon, confidence_level, alternative)
    return HTestResult(
        statistic=float(z),
        pvalue=float(pvalue),
        null_value=p0,
        alternative=alternative,
        method=_METHOD_ONE,
        estimate=float(np.clip(value, 0.0, 1.0)),
        estimate_raw=float(value),
        conf_int=ConfidenceInterval(float(low), float(high), confidence_level),
        epsilon=epsilon,
        delta=delta,
        data_name=_data_name(value, n, from_release),
        statistic_name="z",
        mechanism="laplace",
        note=_hull_note(float(value), n, epsilon, alternative),
    )


def _hull_note(x, n, epsilon, alternative):
    """The printed note of a one-sided score interval that is a hull (see binom_normal_ci)."""
    c2n = 2.0 * n * _noise_var(n, epsilon)
    if (alternative == "greater" and x > 1.0 + c2n) or (alternative == "less" and x < -c2n):
        return ("the release lies so far outside [0, 1] that the accepted proportions need not "
                "reach the parameter's bound: the interval is their hull with that bound.")
    return ""


@_release_first(("pi_hat",), skip=("n",))
def binom_normal_ci(pi_hat, n=None, *, epsilon=None, confidence_level=0.95,
                    alternative="two-sided", method="score"):
    """Wald or score confidence interval for a Laplace-noised binomial proportion.

    Parameters
    ----------
    pi_hat : float, array_like or Release
        The released (noisy, unclamped) proportion(s); or a Laplace
        proportion/count Release, as in :func:`binom_normal_test` (then ``n`` and
        ``epsilon`` must not be given).
    n : int
        Number of records (>= 1, public).
    epsilon : float
        Privacy-loss parameter of the release, > 0.
    confidence_level : float, default 0.95
        In (0, 1); at least 0.5 for a one-sided interval.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        'greater' gives a lower bound ``[low, 1]``, 'less' an upper bound
        ``[0, high]`` (the intervals matching the one-sided tests).
    method : {'score', 'wald'}, default 'score'
        'score': invert the test with the variance at the null value (a
        Wilson-type interval; the default, for its coverage: see Notes);
        'wald': ``pi_hat +- z se`` with the plug-in variance.

    Returns
    -------
    ConfidenceInterval or ndarray
        A :class:`~dpinfer.ConfidenceInterval` (``low``, ``high``, ``level``) for a
        scalar ``pi_hat``; for an array, an ndarray of shape
        ``pi_hat.shape + (2,)`` holding ``[low, high]``.

    Raises
    ------
    TypeError
        If an argument has the wrong type, or ``n`` / ``epsilon`` is missing.
    ValueError
        If an argument is out of range or a Release does not fit.

    Warns
    -----
    ApproximationWarning
        When the interval's exact coverage at a theta inside it is below
        ``level - 0.2 (1 - level)`` (see Notes).

    See Also
    --------
    binom_normal_test : the test whose inversion is the score interval.

    Notes
    -----
    Let ``c = 2/(epsilon n)^2`` (the Laplace variance) and ``z`` the normal
    quantile (``z_{1-(1-level)/2}`` two-sided, ``z_{level}`` one-sided).

    *Wald*: ``pi_hat +- z sqrt(pc (1 - pc)/n + c)`` with ``pc = pi_hat`` clipped
    to [0, 1] (the binomial variance needs a proportion); the centre is the
    unclipped ``pi_hat``, which is unbiased for theta.

    *Score*: ``{p in [0, 1] : |pi_hat - p| <= z sqrt(p (1 - p)/n + c)}``, exactly
    the null values :func:`binom_normal_test` does not reject.  Squaring gives the
    quadratic ``(1 + z^2/n) p^2 - (2 pi_hat + z^2/n) p + pi_hat^2 - z^2 c <= 0``,
    solved in closed form (cancellation-free).  The one-sided bounds solve the
    same equation with the one-sided z; the z score is decreasing in p whenever
    ``-2nc < pi_hat < 1 + 2nc``, so the acceptance set is then exactly
    ``[low, 1]`` (or ``[0, high]``).  For a release further outside [0, 1] than
    that, the reported one-sided interval is the acceptance set's hull with the
    parameter bound.

    *Clipping.*  Endpoints are clipped to [0, 1].  When no p in [0, 1] is
    plausible -- a release far outside [0, 1], e.g. ``pi_hat = -0.3`` at n = 30,
    epsilon = 1 -- the interval collapses to the nearest boundary point,
    ``[0, 0]`` or ``[1, 1]``; a zero-length interval therefore means that the
    release is implausible under every theta at this level, not that theta is
    known exactly.

    Neither interval has exact coverage; the score interval's coverage at theta is
    ``1 - binom_normal_power(theta, n, theta, ...)`` (one minus the size of the
    test at p0 = theta; the one-sided intervals' hull can cover more, near 0 and
    1), so it can be checked without simulation.

    **Coverage warning.**  Every call computes the exact coverage of the
    interval it returns (a finite binomial sum with the closed-form Laplace
    tail over the set of releases whose interval holds theta) at seven values of
    theta spread inside the interval (the values the data do not rule out; on
    the lattice 0.001, ..., 0.999, cached), and raises an
    :class:`~dpinfer.ApproximationWarning` naming the worst one when its
    coverage is below ``level - 0.2 (1 - level)`` (0.94 at 95%): the 20% rule
    of :func:`binom_normal_test`.  Exact coverages behind it (level 0.95):
    Wald 0.910 at n = 30, epsilon = 1, theta = 0.1 and 0.711 at n = 30,
    epsilon = 5, theta = 0.02; score 0.920 at n = 10, epsilon = 5, theta = 0.01
    (checked against simulation in the tests).  At n = 30,
    epsilon = 1, level 0.95 the score interval covers 0.948 (theta = 0.1 or 0.9)
    to 0.950 (theta = 0.3, 0.5), while the Wald interval covers only 0.910 at
    theta = 0.1 and 0.936 at theta = 0.5 (Monte Carlo, 200,000 releases, SE
    0.0005); hence the default.  As epsilon
    grows the intervals tend to the non-private Wald and Wilson intervals
    (checked against statsmodels' ``proportion_confint``); the score endpoints
    are also checked against mpmath root finding.

    Examples
    --------
    >>> from dpinfer import binom_normal_ci
    >>> print(binom_normal_ci(0.42, 50, epsilon=1.0))
    95 percent confidence interval: [0.2833464, 0.5680692]
    >>> print(binom_normal_ci(0.42, 500, epsilon=1.0, method='wald'))
    95 percent confidence interval: [0.3763847, 0.4636153]

    Where the exact coverage falls short the interval warns (see Notes):

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ci = binom_normal_ci(0.42, 50, epsilon=1.0, method='wald')
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    The normal-approximation (wald) interval covers too little here: ... is 0.938...
    >>> binom_normal_ci([-0.02, 0.5], 50, epsilon=1.0, alternative='less').round(4)
    array([[0.    , 0.0481],
           [0.    , 0.622 ]])
    """
    value, n, epsilon, _, _ = _from_release_or_numbers(pi_hat, n, epsilon, func="binom_normal_ci")
    confidence_level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    method = _check_method(method)
    _check_one_sided_level(confidence_level, alternative)
    kernel = _wald_ci if method == "wald" else _score_ci
    low, high = kernel(value, n, epsilon, confidence_level, alternative)
    message = _ci_coverage_message(low, high, n, epsilon, confidence_level, alternative, method)
    if message is not None:
        warnings.warn(message, ApproximationWarning, stacklevel=_STACKLEVEL)
    if value.ndim == 0:
        return ConfidenceInterval(float(low), float(high), confidence_level)
    return np.stack([low, high], axis=-1)


@_release_first(("pi1", "pi2"), skip=("n1", "n2"))
def binom2_normal_test(pi1, n1=None, pi2=None, n2=None, *, epsilon1=None, epsilon2=None,
                       alternative="two-sided", confidence_level=0.95, composition="sequential"):
    """Normal-approximation test of ``theta1 = theta2`` for two Laplace-noised proportions.

    Parameters
    ----------
    pi1, pi2 : float, array_like or Release
        The two released (noisy, unclamped) proportions, independent samples.
        Arrays are broadcast against each other.  Either may be a Laplace
        proportion/count Release (then its ``n`` and ``epsilon`` come from it and
        must not be given: ``binom2_normal_test(rel1, pi2=rel2)``).
    n1, n2 : int
        Sample sizes (>= 1, public).
    epsilon1, epsilon2 : float
        Privacy-loss parameters of the two releases, > 0 (each release has its own
        noise variance ``2/(epsilon_i n_i)^2``).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        About ``theta1 - theta2`` relative to 0.
    confidence_level : float, default 0.95
        Level of the interval for ``theta1 - theta2`` in ``conf_int`` (at least
        0.5 for a one-sided alternative).
    composition : {'sequential', 'parallel'}, default 'sequential'
        How the two releases' privacy adds up in the result's ``epsilon``, by
        the rules of :class:`~dpinfer.PrivacyBudget`: ``'sequential'`` records
        ``epsilon1 + epsilon2``, which holds under any neighbouring relation (a
        person may be in both samples, or group membership is confidential);
        ``'parallel'`` records ``max(epsilon1, epsilon2)``, which holds when the
        groups are disjoint sets of people, membership and sizes are public, and
        a neighbouring data set changes one person's record within their group.

    Returns
    -------
    HTestResult or ndarray
        For scalar inputs an :class:`~dpinfer.HTestResult`: ``statistic`` (z),
        ``pvalue``, ``null_value`` (0), ``estimate`` (``pi1 - pi2`` clipped to
        [-1, 1], the centre of the interval, so the estimate always lies inside
        it), ``conf_int`` (unpooled Wald interval for
        ``theta1 - theta2``), ``epsilon`` and ``delta`` (the two releases'
        together, by ``composition``),
        ``statistic_name='z'``, ``estimate_name`` and ``null_name``
        ``'difference in proportions'``.  For array inputs, the array of p-values.

    Raises
    ------
    TypeError
        If an argument has the wrong type or a required one is missing.
    ValueError
        If an argument is out of range, the arrays do not broadcast, or a Release
        does not fit.

    See Also
    --------
    binom_normal_test : one proportion.

    Notes
    -----
    With ``pbar = (n1 pi1 + n2 pi2)/(n1 + n2)`` clipped to [0, 1] (the pooled
    estimate under ``H0: theta1 = theta2``),
    ``sd0 = sqrt(pbar (1 - pbar)(1/n1 + 1/n2) + 2/(epsilon1 n1)^2 + 2/(epsilon2 n2)^2)``
    and ``z = (pi1 - pi2)/sd0``, referred to the standard normal.

    The interval is the unpooled Wald interval
    ``pi1 - pi2 +- z sqrt(pc1 (1 - pc1)/n1 + pc2 (1 - pc2)/n2 + 2/(epsilon1 n1)^2
    + 2/(epsilon2 n2)^2)`` with ``pci`` the clipped proportions, clipped to
    [-1, 1] (collapsing to -1 or 1 when entirely outside).  It is not the exact
    inversion of the pooled test, so near the boundary the two can disagree (as in
    R's ``prop.test``, whose interval is not the inversion of its test either).

    No ApproximationWarning is raised: the size depends on the unknown common
    proportion and the rejection region (through ``pbar``) is not a half-plane,
    so there is no one-dimensional exact sum; assess it by simulation.

    *Privacy.*  The test spends nothing; the result records what the two
    releases spent together: ``epsilon1 + epsilon2`` by default (sequential
    composition, valid under any neighbouring relation) or, with
    ``composition='parallel'`` for disjoint groups of people with public
    membership, ``max(epsilon1, epsilon2)``.

    Checked against a hand derivation in the tests and, for large epsilon,
    against statsmodels' pooled two-proportion z test and Wald interval.

    Examples
    --------
    >>> from dpinfer import binom2_normal_test
    >>> res = binom2_normal_test(0.62, 80, 0.45, 75, epsilon1=1.0, epsilon2=1.0)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (2.019, 0.0435)
    >>> print(res.conf_int)
    95 percent confidence interval: [0.007039213, 0.332960787]
    """
    if pi2 is None:
        raise TypeError("`pi2` is required (the second released proportion or its Release); got None.")
    v1, n1, e1, d1, rel1 = _from_release_or_numbers(
        pi1, n1, epsilon1, func="binom2_normal_test", value_name="pi1", n_name="n1", eps_name="epsilon1")
    v2, n2, e2, d2, rel2 = _from_release_or_numbers(
        pi2, n2, epsilon2, func="binom2_normal_test", value_name="pi2", n_name="n2", eps_name="epsilon2")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    _check_one_sided_level(confidence_level, alternative)
    composition = check_two_sample_composition(composition)
    try:
        v1, v2 = np.broadcast_arrays(v1, v2)
    except ValueError as exc:
        raise ValueError(
            f"`pi1` and `pi2` must have broadcastable shapes; got {v1.shape} and {v2.shape}."
        ) from exc

    noise = _noise_var(n1, e1) + _noise_var(n2, e2)
    pbar = np.clip((n1 * v1 + n2 * v2) / (n1 + n2), 0.0, 1.0)
    sd0 = np.sqrt(pbar * (1.0 - pbar) * (1.0 / n1 + 1.0 / n2) + noise)
    diff = v1 - v2
    z = diff / sd0
    pvalue = _pvalue_from_z(z, alternative)
    if diff.ndim > 0:
        return pvalue

    pc1, pc2 = np.clip(v1, 0.0, 1.0), np.clip(v2, 0.0, 1.0)
    se = math.sqrt(pc1 * (1.0 - pc1) / n1 + pc2 * (1.0 - pc2) / n2 + noise)
    if alternative == "two-sided":
        half = _two_sided_z(confidence_level) * se
        low, high = diff - half, diff + half
    elif alternative == "greater":
        low, high = diff - _one_sided_z(confidence_level) * se, 1.0
    else:
        low, high = -1.0, diff + _one_sided_z(confidence_level) * se
    low, high = float(np.clip(low, -1.0, 1.0)), float(np.clip(high, -1.0, 1.0))
    if rel1 or rel2:
        data_name = f"Laplace releases: pi1 = {float(v1):.4g}, n1 = {n1}; pi2 = {float(v2):.4g}, n2 = {n2}"
    else:
        data_name = f"pi1 = {float(v1):.4g}, n1 = {n1}; pi2 = {float(v2):.4g}, n2 = {n2}"
    epsilon, delta = two_sample_privacy(e1, d1, e2, d2, composition)
    return HTestResult(
        statistic=float(z),
        pvalue=float(pvalue),
        null_value=0.0,
        alternative=alternative,
        method=_METHOD_TWO,
        estimate=float(np.clip(diff, -1.0, 1.0)),
        estimate_raw=float(diff),
        conf_int=ConfidenceInterval(low, high, confidence_level),
        epsilon=epsilon,
        delta=delta,
        data_name=data_name,
        statistic_name="z",
        estimate_name="difference in proportions",
        null_name="difference in proportions",
        mechanism="Laplace",
    )


def binom_normal_power(theta, n, p0, *, epsilon, alpha=0.05, alternative="greater"):
    """Exact power (and size) of the normal-approximation test for a Laplace release.

    Parameters
    ----------
    theta : float or array_like
        True proportion(s), each in [0, 1].
    n : int
        Number of records (>= 1).
    p0 : float
        Null proportion, in (0, 1).
    epsilon : float
        Privacy-loss parameter, > 0.
    alpha : float, default 0.05
        Significance level of the test, in (0, 1): it rejects when its p-value
        is at most alpha.
    alternative : {'greater', 'less', 'two-sided'}, default 'greater'

    Returns
    -------
    float or ndarray
        ``P_theta(reject)``: a float for a scalar ``theta``, else an array of
        ``theta``'s shape.  At ``theta = p0`` it is the exact size.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of range.

    See Also
    --------
    binom_normal_test : the test.

    Notes
    -----
    The level-alpha test rejects when ``pi_hat > p0 + z_{1-alpha} sd0``
    ('greater'; mirror image for 'less'; ``|pi_hat - p0| > z_{1-alpha/2} sd0``
    two-sided) with ``sd0 = sqrt(p0 (1 - p0)/n + 2/(epsilon n)^2)``.  Given
    ``X = x`` the release is ``x/n + L`` with ``L ~ Laplace(0, 1/(epsilon n))``,
    whose tail ``P(L > u) = exp(-epsilon n u)/2`` (u >= 0) is closed form, so

    ``power(theta) = sum_{x=0}^{n} Binom(x; n, theta) P(x/n + L in rejection region)``

    exactly: no simulation.  It is evaluated as a binomial tail beyond each
    threshold (scipy's ``binom.sf``/``binom.cdf``) plus the finite sum of the
    Laplace corrections ``+-exp(-epsilon |x - c|)/2``; terms below 1e-300 (far
    binomial tails, Laplace terms more than 700/epsilon counts from a threshold)
    are skipped, which changes nothing in double precision and makes the cost
    ``O(min(sqrt(n), 1/epsilon))`` per theta.  Checked against mpmath at 50 digits
    (tests/reference/make_normal.py) and against a Monte Carlo estimate of the
    test's rejection rate within 4 standard errors.

    Examples
    --------
    >>> from dpinfer import binom_normal_power
    >>> round(binom_normal_power(0.2, 30, 0.2, epsilon=1.0), 4)   # exact size
    0.0539
    >>> binom_normal_power([0.3, 0.5], 30, 0.2, epsilon=1.0).round(4)
    array([0.3192, 0.9372])
    """
    theta = _as_probability_array(theta, "theta")
    n = _check_int(n, "n", minimum=1)
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    epsilon = _check_epsilon(epsilon)
    _check_noise_scale(n, epsilon, "epsilon")
    alpha = _check_alpha(alpha)
    alternative = _check_alternative(alternative)
    return _scalar_or_array(_power(theta, n, p0, epsilon, alpha, alternative))
