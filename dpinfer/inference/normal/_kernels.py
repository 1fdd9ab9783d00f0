"""The normal approximation's argument handling and kernels: Wald and score intervals, exact size, power and coverage.

Private helpers of :mod:`dpinfer.inference.normal` and ``_normal_two_sample``;
the kernels assume valid input.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy.stats import binom, norm

from ..._validation import (
    DPInferValueError,
    _arg,
    _as_real_array,
    _call,
    _check_epsilon,
    _check_int,
    _check_proportion_scale,
    _method,
    _setting,
    _show,
)
from ..._warnings import ApproximationWarning
from ...releasers.release import Release


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
    """The ApproximationWarning (its names as data) when the exact size drifts, else None."""
    size = _exact_size(n, p0, epsilon, alpha, alternative)
    if abs(size - alpha) <= _SIZE_TOLERANCE * alpha:
        return None
    kind = "liberal: it rejects a true null too often" if size > alpha else "conservative: it loses power"
    return ApproximationWarning(
        f"The normal approximation is poor here: for n = {n}, p0 = {p0:g}, epsilon = {epsilon:g} and ",
        _setting("alternative", alternative, f"alternative = {alternative!r}"),
        f" the exact size of the nominal level-{alpha:g} test is "
        f"{size:.4g}, more than {_SIZE_TOLERANCE:.0%} away from {alpha:g} ({kind}). ",
        _call("binom_normal_power", "binom_normal_power(p0, n, p0, ...)"),
        " gives the exact size at any level; a method that does not rely on normality (e.g. DP-JIMI, ",
        _method("jimi", "binom_jimi_test"), ") may be preferable."
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
    """The ApproximationWarning (its names as data) when the exact coverage falls short, else None.

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
    return ApproximationWarning(
        f"The normal-approximation ({method}) interval covers too little here: for n = {n}, "
        f"epsilon = {epsilon:g} and ", _setting("alternative", alternative, f"alternative = {alternative!r}"),
        f" its exact coverage at theta = "
        f"{grid[worst]:.4g}, inside the interval, is {coverage[worst]:.4g}, below the nominal "
        f"{confidence_level:g} by more than {_SIZE_TOLERANCE * alpha:.3g} (20% of 1 - level). ",
        _method("jimi", "binom_jimi_ci"), ", or ", _method("ump", "binom_ump_ci"),
        " for a Tulap release, may be preferable."
    )


def _data_name(value, n, from_release, what="pi_hat"):
    if value.ndim == 0:
        shown = f"{what} = {float(value):.4g}, n = {n}"
    else:
        shown = f"{value.size} values of {what}, n = {n}"
    return ("Laplace release: " + shown) if from_release else shown
