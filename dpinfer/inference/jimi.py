"""DP-JIMI: fiducial-matching intervals and tests for Laplace-noised proportions.

DP-JIMI (Romanus, Boulaguiem & Molinari 2025, method "FIMA") needs no derivation
of the release's distribution: it re-simulates the data-generating equation of
the release with fresh noise and inverts it with Hannig's fiducial law of a
binomial proportion.  For a released ``pi_hat = X / n + L``, ``L ~ Laplace(0,
1 / (epsilon n))`` (not clamped), each draw is

* ``pi* = pi_hat - L*`` with fresh ``L* ~ Laplace(0, 1 / (epsilon n))``;
* ``theta* = 0`` if ``pi* <= 0``, ``theta* = 1`` if ``pi* >= 1``, else
  ``theta* ~ Beta(n pi* + 1/2, n (1 - pi*) + 1/2)``.

Intervals are percentiles of ``theta*``; p-values are the share of ``theta*`` on
the null side.  ``n_sim=None`` gives the exact limit of infinitely many draws,
computed deterministically (see :func:`binom_jimi_ci`).  Two-sample versions
(:func:`binom2_jimi_ci`, :func:`binom2_jimi_test`) work on ``theta1* - theta2*``
drawn from independent streams.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from . import _jimi_kernels as _k
from .._printing import _r_format
from .._validation import (
    _as_real_array,
    _check_alternative,
    _check_confidence_level,
    _check_epsilon,
    _check_int,
    _check_n_sim,
    _check_proportion_scale,
    _check_real,
    _check_rng,
    _show,
)
from .._warnings import ApproximationWarning
from ..budget._charging import check_two_sample_composition, two_sample_privacy
from ..results import ConfidenceInterval, HTestResult
from ._release_args import _STACKLEVEL, _release_first
from .normal import _rejection_prob

__all__ = ["binom2_jimi_ci", "binom2_jimi_test", "binom_jimi_ci", "binom_jimi_test"]

_KINDS = ("proportion", "count")

#: Most fiducial draws per release.  One release's draws are held in memory at once
#: (about 40 bytes per draw across the working arrays: 400 MB at this limit), so the
#: limit is decided from ``n_sim`` before anything is allocated.
_MAX_N_SIM = 10_000_000


def _check_jimi_n_sim(n_sim, *, allow_none=True):
    """``n_sim``: None (exact limit, one sample only) or a positive int <= _MAX_N_SIM."""
    n_sim = _check_n_sim(n_sim, allow_none=allow_none)
    if n_sim is not None and n_sim > _MAX_N_SIM:
        exact = (" For more precision use n_sim=None, the exact limit of infinitely many draws."
                 if allow_none else "")
        raise ValueError(
            f"`n_sim` must be at most {_MAX_N_SIM:_} (a release's draws are held in memory at once, "
            f"about 40 bytes each: {n_sim:_} draws would need {40 * n_sim / 1e9:.3g} GB); "
            f"got {n_sim!r}.{exact}"
        )
    return n_sim


# --------------------------------------------------------------------------- input handling
def _resolve(value, n, epsilon, kind, *, value_name, n_name, epsilon_name, kind_name):
    """Validate one release's inputs; return (pi_hat, n, epsilon, kind, is_scalar, raw).

    ``raw`` is the released value as given (a noisy count for kind 'count').

    A :class:`~dpinfer.Release` supplies n, epsilon (and its kind); a plain number
    needs ``n`` and ``epsilon``, and is a proportion unless ``kind='count'``.
    """
    from ..releasers.release import Release  # local: releasers import results, not inference

    if kind is not None and not isinstance(kind, str):  # before `in`: an array would compare elementwise
        raise TypeError(f"`{kind_name}` must be None, 'proportion' or 'count'; got {_show(kind)}.")
    if kind is not None and kind not in _KINDS:
        raise ValueError(f"`{kind_name}` must be None, 'proportion' or 'count'; got {kind!r}.")
    if isinstance(value, Release):
        rel = value
        if n is not None or epsilon is not None:
            given = [nm for nm, v in ((n_name, n), (epsilon_name, epsilon)) if v is not None]
            raise ValueError(
                f"{', '.join(f'`{g}`' for g in given)} must not be given with a Release: "
                f"the release records n = {rel.n} and epsilon = {rel.epsilon:g}."
            )
        if rel.mechanism == "tulap":
            raise ValueError(
                f"`{value_name}` is a Tulap release; DP-JIMI here inverts the Laplace mechanism "
                "(pi_hat = X/n + Laplace noise). For a Tulap release use binom_ump_test / "
                "binom_ump_ci, which are exact for Tulap noise."
            )
        if rel.mechanism != "laplace":
            raise ValueError(
                f"`{value_name}` must be a Laplace release (LaplaceReleaser.proportion or "
                f".count); got mechanism {rel.mechanism!r}."
            )
        if rel.kind not in _KINDS or rel.n is None:
            raise ValueError(
                f"`{value_name}` must be a Laplace release of a proportion or a count out of n "
                f"(LaplaceReleaser.proportion or .count); got kind {rel.kind!r}."
            )
        if kind is not None and kind != rel.kind:
            raise ValueError(
                f"`{kind_name}` = {kind!r} contradicts the release, whose kind is {rel.kind!r}; "
                f"leave `{kind_name}` out when passing a Release."
            )
        expected = 1.0 / rel.n if rel.kind == "proportion" else 1.0
        if not np.isclose(rel.sensitivity, expected, rtol=1e-12, atol=0.0):
            raise ValueError(
                f"`{value_name}` must have sensitivity {expected:g} for a {rel.kind} out of "
                f"n = {rel.n}; got {rel.sensitivity!r}."
            )
        if rel.delta != 0.0:
            raise ValueError(f"`{value_name}` must be a pure-DP Laplace release (delta = 0); got {rel.delta!r}.")
        raw, n, epsilon, kind = rel.value, rel.n, rel.epsilon, rel.kind
    else:
        if n is None:
            raise TypeError(f"`{n_name}` is required unless `{value_name}` is a Release.")
        if epsilon is None:
            raise TypeError(f"`{epsilon_name}` is required unless `{value_name}` is a Release.")
        n = _check_int(n, n_name, minimum=1)
        epsilon = _check_epsilon(epsilon, epsilon_name)
        kind = "proportion" if kind is None else kind
        raw = value
    if epsilon * n < 1e-150:
        raise ValueError(
            f"`{epsilon_name}` * n must be at least 1e-150 (the Laplace noise, of scale "
            f"1/(epsilon n), would swamp any data); got epsilon = {epsilon!r} with n = {n}."
        )
    arr = _as_real_array(raw, value_name)
    if kind == "proportion":
        _check_proportion_scale(arr, n, epsilon, value_name,
                                count_fix=f"pass the noisy count with `{kind_name}`='count'")
    pi_hat = arr / n if kind == "count" else arr
    return pi_hat, n, epsilon, kind, arr.ndim == 0, arr


def _data_name(value, n, epsilon, kind):
    shown = _r_format([value], 4)[0].strip()
    what = "noisy count" if kind == "count" else "pi_hat"
    return f"{what} = {shown}, n = {n}, epsilon = {_r_format([epsilon], 7)[0].strip()}"


def _tails(confidence_level, alternative):
    """Tail probabilities (lower, upper) outside the interval; None marks the parameter's own bound."""
    a = 1.0 - confidence_level
    if alternative == "two-sided":
        return 0.5 * a, 0.5 * a
    if alternative == "greater":
        return a, None
    return None, a


def _pvalue(share_le, share_ge, alternative):
    if alternative == "greater":
        return share_le
    if alternative == "less":
        return share_ge
    return np.minimum(1.0, 2.0 * np.minimum(share_le, share_ge))


_EXACT_BLOCK = 4096  # releases per block on the exact path

# --------------------------------------------------------------------------- exact operating characteristics
#: Warn when the exact error rate (the size of a test, one minus the coverage of an
#: interval) lies more than this fraction of its nominal value alpha away from it
#: (the rule of binom_normal_test; Bradley 1978).  Intervals warn only when they
#: cover too little.
_RATE_TOLERANCE = 0.2

#: Points of the theta grid over an interval at which its exact coverage is checked.
_COVERAGE_GRID = 7


def _release_cuts(theta, level, n, epsilon, upper_side):
    """Cut points c on the proportion scale of the exact-limit rejection regions.

    ``upper_side`` True: the release rejects (the 'greater' p-value
    ``G_c(theta) = P(theta* <= theta)`` is at most ``level``) exactly when
    ``pi_hat >= c``; False: the 'less' p-value ``P(theta* >= theta)`` is at most
    ``level`` exactly when ``pi_hat <= c``.  Both p-values are monotone in
    ``pi_hat`` (``pi* = pi_hat - L`` shifts with it and the Beta law of ``theta*``
    given ``pi*`` is stochastically increasing), so each region is a half-line.
    Its end solves ``p-value = level`` by the Illinois variant of regula falsi
    in the bracket ``[-50 b, 1 + 50 b]`` (``b = 1/(epsilon n)``), all rows
    together, to ``|p-value - level| <= 1e-11`` (the kernel is accurate to about
    1e-12) or a bracket of 1e-10.  ``+inf`` (upper side) or ``-inf`` marks an empty
    region, the opposite infinity one that is everything.
    """
    scale = 1.0 / (epsilon * n)
    theta = np.atleast_1d(np.asarray(theta, float))
    level = np.broadcast_to(np.asarray(level, float), theta.shape)
    sign = -1.0 if upper_side else 1.0
    pvalue = _k._exact_cdf if upper_side else _k._exact_upper

    def h(c, rows):  # increasing in c on every row
        return sign * (pvalue(theta[rows], c, n, epsilon) - level[rows])

    everything = np.arange(theta.size)
    a = np.full(theta.size, -50.0 * scale)
    b = np.full(theta.size, 1.0 + 50.0 * scale)
    fa, fb = h(a, everything), h(b, everything)
    # The upper side rejects where h >= 0 (release >= cut), the lower side where
    # h <= 0 (release <= cut): on both, h >= 0 throughout gives cut -inf and h <= 0
    # throughout +inf (everything / nothing rejected, read with the side).
    cut = np.where(fa >= 0.0, -np.inf, np.where(fb <= 0.0, np.inf, np.nan))
    act = np.flatnonzero(np.isnan(cut))
    side_a = np.zeros(theta.size, dtype=int)  # which end was kept last time (Illinois)
    for _ in range(100):
        if act.size == 0:
            break
        denom = fb[act] - fa[act]
        c = np.where(denom > 0, (a[act] * fb[act] - b[act] * fa[act]) / np.where(denom > 0, denom, 1.0),
                     0.5 * (a[act] + b[act]))
        c = np.where((c > a[act]) & (c < b[act]), c, 0.5 * (a[act] + b[act]))
        fc = h(c, act)
        done = (np.abs(fc) <= 1e-11) | (b[act] - a[act] <= 1e-10)
        cut[act[done]] = c[done]
        pos = fc > 0
        # replace the end with the same sign; halve the kept end's value when
        # the same end is kept twice in a row (Illinois), so it cannot stall
        ia, ib = act[pos], act[~pos]
        b[ia], fb[ia] = c[pos], fc[pos]
        a[ib], fa[ib] = c[~pos], fc[~pos]
        fa[ia] = np.where(side_a[ia] == 1, 0.5 * fa[ia], fa[ia])
        fb[ib] = np.where(side_a[ib] == -1, 0.5 * fb[ib], fb[ib])
        side_a[act] = np.where(pos, 1, -1)
        act = act[~done]
    cut[act] = 0.5 * (a[act] + b[act])
    return cut


def _exact_rejection(theta, lo_level, hi_level, n, epsilon):
    """Exact-limit probability, under the true proportion ``theta`` (array), that
    ``P(theta* <= theta) <= lo_level`` or ``P(theta* >= theta) <= hi_level``
    (None: that side never rejects).

    That is the size of the test of ``p0 = theta`` ('greater': lo_level = alpha;
    'less': hi_level = alpha; 'two-sided': both alpha / 2) and one minus the
    coverage at theta of the interval with those tail levels.  Each side's
    region is a half-line of the release (:func:`_release_cuts`); its probability
    ``sum_x Binom(x; n, theta) P(x + N beyond n c)``, ``N ~ Laplace(0, 1/epsilon)``,
    is the exact finite sum of the normal approximation's power
    (:func:`dpinfer.inference.normal._rejection_prob`).
    """
    theta = np.atleast_1d(np.asarray(theta, float))
    total = np.zeros(theta.size)
    for level, upper in ((lo_level, True), (hi_level, False)):
        if level is None:
            continue
        cuts = _release_cuts(theta, level, n, epsilon, upper)
        for i, (t, c) in enumerate(zip(theta, cuts)):
            if np.isinf(c):
                total[i] += 1.0 if (c < 0) == upper else 0.0
            else:
                total[i] += float(_rejection_prob(np.array(t), n, epsilon, [(n * c, 1 if upper else -1)]))
    return np.clip(total, 0.0, 1.0)


@functools.lru_cache(maxsize=1024)
def _exact_size(n, epsilon, p0, alpha, alternative):
    """Exact-limit size of the level-alpha DP-JIMI test of p0 (cached)."""
    lo, hi = _tails(1.0 - alpha, alternative)
    return float(_exact_rejection(p0, lo, hi, n, epsilon)[0])


def _interior_grid(lows, highs):
    """``_COVERAGE_GRID`` thetas strictly inside the hull of the intervals, on the 0.001 lattice."""
    grid = np.linspace(float(np.min(lows)), float(np.max(highs)), _COVERAGE_GRID + 2)[1:-1]
    return np.unique(np.clip(np.round(grid, 3), 0.001, 0.999))


def _size_message(n, epsilon, p0, alpha, alternative):
    """The ApproximationWarning text when the exact-limit size drifts, else None.

    Not checked at p0 = 0 or 1, where one side of the null is empty (the size of
    the test of the impossible alternative is 0 by construction).
    """
    if p0 in (0.0, 1.0):
        return None
    size = _exact_size(n, epsilon, p0, alpha, alternative)
    if abs(size - alpha) <= _RATE_TOLERANCE * alpha:
        return None
    kind = "liberal: it rejects a true null too often" if size > alpha else "conservative: it loses power"
    return (
        f"DP-JIMI is inaccurate here: for n = {n}, p0 = {p0:g}, epsilon = {epsilon:g} and "
        f"alternative = {alternative!r} the exact (infinite-draw) size of the nominal level-{alpha:g} "
        f"test is {size:.4g}, more than {_RATE_TOLERANCE:.0%} away from {alpha:g} ({kind}). "
        "For a Tulap release binom_ump_test is exact."
    )


_COVERAGE_CACHE = {}
_COVERAGE_CACHE_SIZE = 4096


def _coverage_at(grid, n, epsilon, lo_tail, hi_tail):
    """Exact-limit coverage at each theta of ``grid`` (values on a 1e-3 lattice, cached)."""
    keys = [(n, epsilon, lo_tail, hi_tail, float(t)) for t in grid]
    todo = [i for i, key in enumerate(keys) if key not in _COVERAGE_CACHE]
    if todo:
        rates = _exact_rejection(np.asarray(grid)[todo], lo_tail, hi_tail, n, epsilon)
        if len(_COVERAGE_CACHE) + len(todo) > _COVERAGE_CACHE_SIZE:
            _COVERAGE_CACHE.clear()
        for i, rate in zip(todo, rates):
            _COVERAGE_CACHE[keys[i]] = 1.0 - float(rate)
    return np.array([_COVERAGE_CACHE[key] for key in keys])


def _coverage_message(lows, highs, n, epsilon, confidence_level, alternative):
    """The ApproximationWarning text when the exact-limit coverage falls short, else None.

    Coverage is computed at ``_COVERAGE_GRID`` values of theta spread evenly
    inside the hull of the reported intervals (the values the data do not rule
    out; its two ends excluded), rounded to the lattice 0.001, ..., 0.999 (so
    that repeated calls reuse them).
    """
    alpha = 1.0 - confidence_level
    lo_tail, hi_tail = _tails(confidence_level, alternative)
    grid = _interior_grid(lows, highs)
    coverage = _coverage_at(grid, n, epsilon, lo_tail, hi_tail)
    worst = int(np.argmin(coverage))
    if coverage[worst] >= confidence_level - _RATE_TOLERANCE * alpha:
        return None
    return (
        f"DP-JIMI interval covers too little here: for n = {n}, epsilon = {epsilon:g} and "
        f"alternative = {alternative!r} its exact (infinite-draw) coverage at theta = "
        f"{grid[worst]:.4g}, inside the interval, is {coverage[worst]:.4g}, below the nominal "
        f"{confidence_level:g} by more than {_RATE_TOLERANCE * alpha:.3g} (20% of 1 - level). "
        "For a Tulap release binom_ump_ci has guaranteed coverage."
    )


# --------------------------------------------------------------------------- one sample: kernels
def _one_sample(pi_hat, n, epsilon, tails, p0, n_sim, gen, low=0.0):
    """Interval bounds and, if p0 is given, (share <= p0, share >= p0) per release.

    ``pi_hat`` flat (m,); ``tails`` = (lower, upper) tail probabilities, None for
    the parameter's own bound (``low`` and 1); ``n_sim`` None is the exact limit.
    """
    lo_tail, hi_tail = tails
    lo = np.full(pi_hat.size, low)
    hi = np.ones(pi_hat.size)
    shares = None
    if n_sim is None:
        levels = [lv for lv in (lo_tail, None if hi_tail is None else 1.0 - hi_tail) if lv is not None]
        if p0 is not None:
            shares = (np.empty(pi_hat.size), np.empty(pi_hat.size))
        # Blocks of releases bound the quadrature's memory (~25 kB per release).
        for start in range(0, pi_hat.size, _EXACT_BLOCK):
            sl = slice(start, start + _EXACT_BLOCK)
            if levels:  # all bounds of the block's releases in one vectorised root search
                qs = list(_k._exact_quantile(np.array(levels)[:, None], pi_hat[None, sl], n, epsilon))
                if lo_tail is not None:
                    lo[sl] = qs.pop(0)
                if hi_tail is not None:
                    hi[sl] = qs.pop(0)
            if p0 is not None:
                shares[0][sl] = _k._exact_cdf(p0, pi_hat[sl], n, epsilon)
                shares[1][sl] = _k._exact_upper(p0, pi_hat[sl], n, epsilon)
        return lo, hi, shares
    le = np.empty(pi_hat.size)
    ge = np.empty(pi_hat.size)
    for sl in _k._chunks(pi_hat.size, n_sim):
        draws = _k._draw_theta(gen, pi_hat[sl], n, epsilon, n_sim)
        _fill(sl, draws, tails, p0, lo, hi, le, ge)
    return lo, hi, ((le, ge) if p0 is not None else None)


def _fill(sl, draws, tails, p0, lo, hi, le, ge, *, mid_ties=False):
    """Write one block's sample bounds and null-side shares into the outputs.

    ``mid_ties``: draws equal to p0 count one half on each side (mid-p), the rule
    of the two-sample test (see :func:`binom2_jimi_test`).
    """
    if p0 is not None:
        if mid_ties:
            below, tied = np.mean(draws < p0, axis=1), np.mean(draws == p0, axis=1)
            le[sl] = below + 0.5 * tied
            ge[sl] = (1.0 - below - tied) + 0.5 * tied
        else:
            le[sl], ge[sl] = _k._tail_shares(draws, p0)
    if tails != (None, None):
        b_lo, b_hi = _k._sample_bounds(draws, *tails)
        if b_lo is not None:
            lo[sl] = b_lo
        if b_hi is not None:
            hi[sl] = b_hi


def _stack(lo, hi, shape):
    return np.stack([lo, hi], axis=-1).reshape(shape + (2,))


# --------------------------------------------------------------------------- one sample: public
@_release_first(("pi_hat",), skip=("n",))
def binom_jimi_ci(pi_hat, n=None, *, epsilon=None, kind=None, confidence_level=0.95,
                  alternative="two-sided", n_sim=None, rng=None):
    """DP-JIMI (fiducial matching) confidence interval for a binomial proportion.

    Parameters
    ----------
    pi_hat : float, array_like or Release
        The released proportion ``X / n + Laplace(0, 1 / (epsilon n))``, not clamped
        (values below 0 or above 1 are valid), or an array of such releases sharing
        ``n`` and ``epsilon``.  With ``kind='count'`` it is the released count
        ``X + Laplace(0, 1 / epsilon)`` instead.  A :class:`~dpinfer.Release` from
        :meth:`LaplaceReleaser.proportion <dpinfer.LaplaceReleaser.proportion>` or
        :meth:`LaplaceReleaser.count <dpinfer.LaplaceReleaser.count>` supplies
        ``n``, ``epsilon`` and the kind itself.
    n : int, optional
        Number of records (public), >= 1.  Required unless ``pi_hat`` is a Release.
    epsilon : float, optional
        Privacy-loss parameter of the release, > 0.  Required unless ``pi_hat`` is a
        Release.
    kind : {None, 'proportion', 'count'}, default None
        What a plain number is: None or ``'proportion'`` for a noisy proportion,
        ``'count'`` for a noisy count (sensitivity 1, divided by ``n`` here: the
        noise on ``count / n`` is then Laplace(0, 1 / (epsilon n)), the same law).
        Leave it out for a Release (an error if it contradicts the release's kind).
    confidence_level : float, default 0.95
        In (0, 1).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'two-sided'``: equal-tailed ``[q(a/2), q(1 - a/2)]``, ``a = 1 -
        confidence_level``; ``'greater'``: lower bound ``[q(a), 1]``; ``'less'``:
        upper bound ``[0, q(1 - a)]`` (the interval matching the test of the same
        alternative).
    n_sim : int or None, default None
        None (the default, as in :func:`prop_test` and the command) computes the
        exact limit of infinitely many draws: deterministic, no Monte Carlo
        error, ``rng`` unused.  An integer draws that many fiducial samples per
        release, as the original method does.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of the fiducial draws (numpy's PCG64 by default).  The same seed
        gives the same answer; a vector of releases consumes one stream in order,
        so element i of an array call differs from a scalar call with the same seed.

    Returns
    -------
    ConfidenceInterval or ndarray
        For a scalar release a :class:`~dpinfer.ConfidenceInterval` (``low``,
        ``high``, ``level``); for an array of releases an array of shape
        ``pi_hat.shape + (2,)`` holding ``[low, high]``.

    Raises
    ------
    TypeError
        Wrong kind of argument, or ``n`` / ``epsilon`` missing for a plain number.
    ValueError
        Bad values; a Release together with ``n`` or ``epsilon``; a Tulap release
        (use :func:`binom_ump_ci`); a Laplace release that is not a proportion or
        a count out of ``n``.

    Warns
    -----
    ApproximationWarning
        When the exact-limit coverage at a theta inside the interval is below
        ``level - 0.2 (1 - level)`` (see Notes, **Honest coverage**).

    See Also
    --------
    binom_jimi_test : the matching test.
    binom2_jimi_ci : the difference of two proportions.

    Notes
    -----
    **Method.**  With ``b = 1 / (epsilon n)``, draw ``L*_h ~ Laplace(0, b)``, set
    ``pi*_h = pi_hat - L*_h`` and ``theta*_h = 0`` if ``pi*_h <= 0``, ``1`` if
    ``pi*_h >= 1``, else ``theta*_h ~ Beta(n pi*_h + 1/2, n (1 - pi*_h) + 1/2)``
    (Romanus, Boulaguiem & Molinari 2025).  ``pi_hat`` is never clamped.

    **Selection rule.**  For a binomial count x, Hannig's (2009) generalized
    fiducial distribution of theta is not unique: the structural equation
    brackets it between the two endpoint laws ``Beta(x, n - x + 1)`` and
    ``Beta(x + 1, n - x)`` (whose quantiles are the Clopper-Pearson limits).
    Any law between them is a valid fiducial selection (Hannig discusses, for
    example, the 50/50 mixture of the two).  DP-JIMI selects
    ``Beta(x + 1/2, n - x + 1/2)``, which lies between the endpoint laws (a
    Jeffreys-type choice), evaluated at the continuous ``x = n pi*``.

    **Percentiles.**  With ``H = n_sim`` draws and tail probability ``a`` on a
    side (``a = (1 - confidence_level) / 2`` two-sided), the simulated lower
    bound is the ``k``-th smallest draw and the upper bound the ``k``-th largest,
    ``k = ceil(a H)``: the lower bound is numpy's ``method='inverted_cdf'``
    quantile, the same definition ``q(a) = inf{t : G(t) >= a}`` as the exact
    path, and the upper bound is its mirror image (so the interval of the
    reflected draws ``1 - theta*`` is the reflected interval).  With these ranks
    a ``p0`` lies outside the interval exactly when the p-value of
    :func:`binom_jimi_test` from the same draws (same ``rng``) is below
    ``1 - confidence_level``, and both paths converge to the same limit.

    **Exact limit** (``n_sim=None``).  The law of ``theta*`` has cdf
    ``G(t) = P(pi* <= 0) + int_0^1 I_t(n u + 1/2, n (1 - u) + 1/2) f(u) du`` for
    ``0 <= t < 1`` and ``G(1) = 1``, where ``f`` is the Laplace(pi_hat, b) density
    and ``I_t`` the regularised incomplete Beta function
    (:func:`scipy.special.betainc`).  The integral is split at the kink
    ``u = pi_hat``, at ``pi_hat +- b (1, 2.5, 5, 9, 15, 24)`` (the Laplace mass
    beyond ``40 b``, below 2e-18, is left out) and at seven points across the
    Beta-cdf transition in ``u``, with a 10-point Gauss-Legendre rule per panel.
    Accuracy: against 30-digit mpmath quadrature (``tests/reference/make_jimi.py``,
    six cases including ``pi_hat < 0`` and ``> 1``) G agrees to 3e-16 and the
    endpoints to 4e-15 (asserted at 1e-12 and 1e-10); against adaptive scipy
    quadrature G agrees to 4e-12 over 150 random ``(n, epsilon, pi_hat, t)``
    with n up to 1e5.  Quantiles solve ``G(t) = a`` by bracketed Newton
    iteration on the mixed Beta density (bisection fallback) to ``|G - a| <=
    1e-14`` or a bracket of 1e-13.  Point masses:
    ``q(a) = 0`` when ``a <= P(pi* <= 0)``, ``q(a) = 1`` when
    ``a > 1 - P(pi* >= 1)``.

    **Guarantee.**  The interval is post-processing of the release and spends no
    further privacy budget.  Its coverage is approximate, not guaranteed: fiducial
    intervals are close to nominal, and slightly liberal at small n.  At n = 30,
    epsilon = 1 the exact-limit 95% two-sided interval covers with probability
    0.9477 (theta = 0.05), 0.9480 (0.1), 0.9486 (0.2), 0.9490 (0.5), symmetric in
    theta <-> 1 - theta, and the one-sided bounds 0.947 to 0.949: computed
    exactly (binomial sum times a Laplace probability, no simulation) in the
    tests.  When ``pi_hat`` lies far outside [0, 1] the fiducial law is almost
    all point mass and the interval can collapse to [0, 0] or [1, 1].  For a
    guaranteed level with Tulap noise use :func:`binom_ump_ci`.

    **Honest coverage.**  Every call computes the exact-limit coverage of the
    interval at seven values of theta inside it (the values the data do not
    rule out, on the lattice 0.001, ..., 0.999, cached): theta is outside the
    interval exactly when the test of ``p0 = theta`` with the interval's tail
    levels rejects, whose rejection region in the release is one or two
    half-lines (the p-values are monotone in ``pi_hat``), so the coverage is one
    minus a finite binomial sum with the closed-form Laplace tail.  An
    :class:`~dpinfer.ApproximationWarning` names the worst coverage when it is
    below ``level - 0.2 (1 - level)`` (0.94 at 95%).  Coverage drops as epsilon
    grows: the fiducial law keeps a point mass at 0 (or 1) whenever ``pi*``
    falls outside [0, 1], which at large epsilon happens for about half the
    draws when x = 0 (or n), so near 0 and 1 the exact-limit interval covers
    0.93 at n = 30, epsilon = 5, theta = 0.97 and 0.86 as epsilon -> infinity
    (theta = 0.065 or 0.935); see the gallery's DP-JIMI size over epsilon.

    The simulated path was checked against the exact path (endpoints within 4
    Monte Carlo standard errors ``sqrt(a (1 - a) / H) / g(q(a))``, g the
    fiducial density).

    References
    ----------
    .. [1] Romanus, O., Boulaguiem, Y. & Molinari, R. (2025). Fiducial matching:
       differentially private inference for categorical data. arXiv:2507.11762.
    .. [2] Hannig, J. (2009). On generalized fiducial inference. Statistica
       Sinica 19, 491-544.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser, binom_jimi_ci
    >>> rel = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=7)
    >>> print(binom_jimi_ci(rel))                      # exact limit (the default)
    95 percent confidence interval: [0.1866554, 0.5617828]
    >>> ci = binom_jimi_ci(rel, n_sim=10_000, rng=1)   # 10 000 fiducial draws
    >>> round(ci.low, 2), round(ci.high, 2)
    (0.19, 0.56)

    An array of releases gives an array of intervals:

    >>> binom_jimi_ci([-0.1, 0.5, 1.2], 30, epsilon=1.0, n_sim=None).round(4)
    array([[0.    , 0.    ],
           [0.3067, 0.6933],
           [1.    , 1.    ]])
    """
    pi_hat, n, epsilon, kind, scalar, raw = _resolve(
        pi_hat, n, epsilon, kind, value_name="pi_hat", n_name="n", epsilon_name="epsilon",
        kind_name="kind")
    confidence_level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    n_sim = _check_jimi_n_sim(n_sim)
    gen = _check_rng(rng)  # checked even when unused (exact limit): a bad seed is an error
    tails = _tails(confidence_level, alternative)
    lo, hi, _ = _one_sample(pi_hat.ravel(), n, epsilon, tails, None, n_sim, gen)
    message = _coverage_message(lo, hi, n, epsilon, confidence_level, alternative)
    if message is not None:
        warnings.warn(message, ApproximationWarning, stacklevel=_STACKLEVEL)
    if scalar:
        return ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level)
    return _stack(lo, hi, pi_hat.shape)


@_release_first(("pi_hat",), skip=("n",))
def binom_jimi_test(pi_hat, n=None, p0=0.5, *, epsilon=None, kind=None, alternative="two-sided",
                    confidence_level=0.95, n_sim=None, rng=None):
    """DP-JIMI (fiducial matching) test of a binomial proportion from a Laplace release.

    Parameters
    ----------
    pi_hat, n, epsilon, kind
        The release, as in :func:`binom_jimi_ci`.
    p0 : float, default 0.5
        Null proportion, in [0, 1].
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'``: H1 theta > p0, p-value ``P(theta* <= p0)``; ``'less'``:
        H1 theta < p0, p-value ``P(theta* >= p0)``; ``'two-sided'``: twice the
        smaller of the two, capped at 1.
    confidence_level : float, default 0.95
        Level of the interval reported with the test (same alternative).
    n_sim : int or None, default None
        None (the default, as in :func:`prop_test` and the command) computes the
        exact infinite-draw limit, deterministic; an integer draws that many
        fiducial samples.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of the draws (unused when ``n_sim`` is None).

    Returns
    -------
    HTestResult or ndarray
        For a scalar release an :class:`~dpinfer.HTestResult` with ``statistic``
        (``pi_hat`` as released, or the noisy count), ``pvalue``, ``null_value``
        (p0), ``estimate`` (``pi_hat`` clipped to [0, 1]), ``estimate_raw``
        (``pi_hat`` itself, unbiased), ``conf_int`` (the
        :func:`binom_jimi_ci` interval computed from the same draws), ``n_sim``
        (None for the exact limit), ``epsilon``, ``delta`` (0), ``mechanism``
        ('Laplace').  For an array of releases an ndarray of p-values of the same
        shape.

    Raises
    ------
    TypeError, ValueError
        As :func:`binom_jimi_ci`; also a ``p0`` outside [0, 1].

    Warns
    -----
    ApproximationWarning
        When the exact-limit size at ``p0`` and ``alpha = 1 - confidence_level``
        is more than 20% of alpha away from alpha (see Notes).

    See Also
    --------
    binom_jimi_ci, binom2_jimi_test
    binom_ump_test : exact UMP test for Tulap releases.

    Notes
    -----
    With ``G`` the cdf of ``theta*`` (see :func:`binom_jimi_ci`) the exact-limit
    p-values are ``G(p0)`` ('greater') and ``1 - G(p0^-) = P(theta* >= p0)``
    ('less'), where ``G(p0^-) = P(theta* < p0)`` differs from ``G(p0)`` only at the
    point masses ``p0 = 0`` and ``p0 = 1``; the upper tail is integrated directly
    (reflected Beta cdf), so tiny p-values keep their relative accuracy on both
    sides down to about 1e-17; below that they are accurate to about 2e-18 in
    absolute terms (the Laplace mass beyond 40 scales, e^-40, is left out).  The simulated p-values are the shares of the
    ``n_sim`` draws on the null side (Monte Carlo standard error
    ``sqrt(p (1 - p) / n_sim)``); they agree with the exact path within 4 such
    errors in the tests.  The test rejects at level alpha exactly when ``p0`` lies
    outside the interval of level ``1 - alpha`` built from the same draws (up to
    ties).

    **Guarantee.**  Post-processing: no further privacy cost.  The size is
    approximate: fiducial tests are close to their nominal level and slightly
    liberal at small n, and clearly liberal at larger epsilon.

    **Honest size.**  Every call computes the exact-limit size of the test at
    ``p0`` and ``alpha = 1 - confidence_level`` (cached): both p-values are
    monotone in ``pi_hat``, so the rejection region is one half-line of the
    release (two, two-sided), found by regula falsi on the exact p-value to
    1e-11, and its probability under ``p0`` is a finite binomial sum with the
    closed-form Laplace tail (the kernel of :func:`binom_normal_power`).  An
    :class:`~dpinfer.ApproximationWarning` gives the figure when it is more than
    20% of alpha away from alpha (outside [0.04, 0.06] at alpha = 0.05), the rule
    of :func:`binom_normal_test`; not at ``p0`` = 0 or 1, where one alternative
    is empty.  The largest one-sided size over p0 at alpha = 0.05 is 0.053
    (epsilon = 1), 0.060 (2), 0.069 (3), 0.086 (5), 0.107 (10) at n = 30, and at
    n = 100, epsilon = 5, p0 = 0.02, 'less' it is 0.0844 (checked against
    simulated releases in the tests); the two-sided test stays within the band
    up to epsilon = 2.  The simulated path (``n_sim`` draws) warns with the
    exact-limit figure.  This implementation avoids two faults of the
    authors' public R code: a wrong tail in the test function, and a seed shared
    between the groups of the two-sample test (here the groups draw from
    independent spawned streams).

    References
    ----------
    .. [1] Romanus, O., Boulaguiem, Y. & Molinari, R. (2025). Fiducial matching:
       differentially private inference for categorical data. arXiv:2507.11762.
    .. [2] Hannig, J. (2009). On generalized fiducial inference. Statistica
       Sinica 19, 491-544.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser, binom_jimi_test
    >>> rel = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=7)
    >>> res = binom_jimi_test(rel, 0.2, alternative='greater')   # exact limit
    >>> print(res)
    <BLANKLINE>
    	DP-JIMI fiducial test for one proportion (exact limit)
    <BLANKLINE>
    data:  pi_hat = 0.3607, n = 30, epsilon = 1
    pi_hat = 0.36072, p-value = 0.03618
    alternative hypothesis: true probability of success is greater than 0.2
    95 percent confidence interval:
     0.2126251 1.0000000
    sample estimates:
    probability of success
                 0.3607155
    <BLANKLINE>
    privacy: epsilon = 1, delta = 0, Laplace mechanism, seeded path (research only)
    unit of privacy: one record (replace-one, n public)
    <BLANKLINE>

    A plain noisy count needs ``kind='count'``:

    >>> res = binom_jimi_test(11.29, 30, p0=0.2, epsilon=1.0, kind='count', n_sim=None)
    >>> round(res.pvalue, 4)
    0.0507
    """
    pi_hat, n, epsilon, kind, scalar, raw = _resolve(
        pi_hat, n, epsilon, kind, value_name="pi_hat", n_name="n", epsilon_name="epsilon",
        kind_name="kind")
    p0 = _check_real(p0, "p0")
    if not 0.0 <= p0 <= 1.0:
        raise ValueError(f"`p0` must lie in [0, 1]; got {p0!r}.")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = _check_jimi_n_sim(n_sim)
    gen = _check_rng(rng)  # checked even when unused (exact limit): a bad seed is an error
    message = _size_message(n, epsilon, p0, 1.0 - confidence_level, alternative)
    if message is not None:
        warnings.warn(message, ApproximationWarning, stacklevel=_STACKLEVEL)
    tails = _tails(confidence_level, alternative) if scalar else (None, None)
    lo, hi, (le, ge) = _one_sample(pi_hat.ravel(), n, epsilon, tails, p0, n_sim, gen)
    pvalue = np.clip(_pvalue(le, ge, alternative), 0.0, 1.0)
    if not scalar:
        return pvalue.reshape(pi_hat.shape)
    value = float(raw)
    how = "exact limit" if n_sim is None else f"{n_sim} draws"
    return HTestResult(
        statistic=value,
        pvalue=float(pvalue[0]),
        null_value=p0,
        alternative=alternative,
        method=f"DP-JIMI fiducial test for one proportion ({how})",
        estimate=min(max(float(pi_hat), 0.0), 1.0),
        estimate_raw=float(pi_hat),
        conf_int=ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level),
        epsilon=epsilon,
        delta=0.0,
        data_name=_data_name(value, n, epsilon, kind),
        statistic_name="noisy count" if kind == "count" else "pi_hat",
        mechanism="Laplace",
        n_sim=n_sim,
    )


# --------------------------------------------------------------------------- two samples
def _spawn_pair(gen):
    """Two independent generators spawned from ``gen``'s SeedSequence (one per group)."""
    return tuple(gen.spawn(2))


def _two_sample(pi1, n1, eps1, pi2, n2, eps2, tails, d0, n_sim, gen):
    """Simulated bounds of theta1 - theta2 and (share <= d0, share >= d0).

    ``pi1``, ``pi2`` flat arrays of equal length m; group 1 draws only from its own
    spawned stream and group 2 from its own, block by block.
    """
    m = pi1.size
    lo = np.full(m, -1.0)
    hi = np.ones(m)
    le = np.empty(m)
    ge = np.empty(m)
    if n_sim is None:  # exact limit: one deterministic integral per release (and bound)
        lo_tail, hi_tail = tails
        for i in range(m):
            args = (float(pi1[i]), n1, eps1, float(pi2[i]), n2, eps2)
            if lo_tail is not None:
                lo[i] = _k._two_exact_quantile(lo_tail, *args)
            if hi_tail is not None:
                hi[i] = _k._two_exact_quantile(1.0 - hi_tail, *args)
            if d0 is not None:  # mid-p ties, as for the draws
                lt, tie, gt = _k._two_exact(*args, d0)
                le[i], ge[i] = lt + 0.5 * tie, gt + 0.5 * tie
        return lo, hi, ((le, ge) if d0 is not None else None)
    g1, g2 = _spawn_pair(gen)
    for sl in _k._chunks(m, n_sim):
        diff = _k._draw_theta(g1, pi1[sl], n1, eps1, n_sim)
        diff -= _k._draw_theta(g2, pi2[sl], n2, eps2, n_sim)
        _fill(sl, diff, tails, d0, lo, hi, le, ge, mid_ties=True)
    return lo, hi, ((le, ge) if d0 is not None else None)


def _resolve_pair(pi1, pi2, n1, n2, epsilon1, epsilon2, kind1, kind2):
    if pi2 is None:
        raise TypeError("`pi2` (group 2's release) is required.")
    r1 = _resolve(pi1, n1, epsilon1, kind1, value_name="pi1", n_name="n1",
                  epsilon_name="epsilon1", kind_name="kind1")
    r2 = _resolve(pi2, n2, epsilon2, kind2, value_name="pi2", n_name="n2",
                  epsilon_name="epsilon2", kind_name="kind2")
    try:
        a, b = np.broadcast_arrays(r1[0], r2[0])
    except ValueError as exc:
        raise ValueError(
            f"`pi1` and `pi2` must have broadcastable shapes; got {r1[0].shape} and "
            f"{r2[0].shape}."
        ) from exc
    return (a, *r1[1:4], r1[5]), (b, *r2[1:4], r2[5]), (r1[4] and r2[4])


def _check_n_sim_two(n_sim):
    """``n_sim``: None (the exact limit) or a positive int <= _MAX_N_SIM."""
    return _check_jimi_n_sim(n_sim, allow_none=True)


@_release_first(("pi1", "pi2"), skip=("n1", "n2"))
def binom2_jimi_ci(pi1, n1=None, pi2=None, n2=None, *, epsilon1=None, epsilon2=None,
                   kind1=None, kind2=None, confidence_level=0.95, alternative="two-sided",
                   n_sim=10_000, rng=None):
    """DP-JIMI interval for the difference ``theta1 - theta2`` of two proportions.

    Parameters
    ----------
    pi1 : float, array_like or Release
        Group 1's Laplace release (a proportion, or a count with
        ``kind1='count'``), as in :func:`binom_jimi_ci`.
    n1 : int, optional
        Group 1's size (required for a plain number).
    pi2 : float, array_like or Release
        Group 2's release, independent of group 1's (required; keyword or third
        positional argument, the order of :func:`binom2_normal_test`).  Arrays
        broadcast together.
    n2 : int, optional
        Group 2's size (required for a plain number).
    epsilon1, epsilon2 : float, optional
        Each release's own privacy-loss parameter (required for plain numbers).
    kind1, kind2 : {None, 'proportion', 'count'}
        As ``kind`` in :func:`binom_jimi_ci`.
    confidence_level : float, default 0.95
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'`` gives ``[q(a), 1]``, ``'less'`` gives ``[-1, q(1 - a)]``.
    n_sim : int or None, default 10_000
        Number of fiducial draws per group; None computes the exact limit of
        infinitely many draws (deterministic, ``rng`` unused; about 0.1 s per
        evaluation of the law of the difference, so an interval takes a few
        seconds per release).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the two groups' streams, which are spawned from it (never the
        same stream for both groups).

    Returns
    -------
    ConfidenceInterval or ndarray
        A :class:`~dpinfer.ConfidenceInterval` for scalar releases; otherwise an
        array of shape ``broadcast_shape + (2,)`` of ``[low, high]``.

    Raises
    ------
    TypeError, ValueError
        As :func:`binom_jimi_ci` (per group), and for shapes that do not broadcast.

    See Also
    --------
    binom2_jimi_test, binom_jimi_ci

    Notes
    -----
    Draws ``theta1*`` and ``theta2*`` independently, each by the one-sample
    recipe of :func:`binom_jimi_ci` with its own n and epsilon, from two
    generators spawned from one :class:`numpy.random.SeedSequence`, and takes
    inverse-cdf percentiles of ``theta1* - theta2*``.  Sharing a seed between the
    groups (as the authors' R code does) makes the draws of equal releases
    identical and the interval for their difference collapse to [0, 0].
    Coverage is approximate (Romanus et al. 2025); no further privacy is spent.

    **Exact limit** (``n_sim=None``).  With ``G1`` group 1's fiducial cdf and
    group 2's law made of point masses ``m0``, ``m1`` at 0 and 1 and a density
    ``g2``, ``P(theta1* - theta2* <= d) = m0 G1(d) + m1 G1(1 + d) + int_0^1
    G1(t + d) g2(t) dt``, a two-dimensional integral (``G1`` and ``g2`` are
    themselves integrals over the Laplace noise), computed by Gauss-Legendre
    panels in the angle ``t = (1 - cos(pi s)) / 2`` split at both groups'
    fiducial quantiles, at the jumps of ``G1(t + d)`` and geometrically towards
    0 and 1; the upper tail is integrated directly.  Bounds are its quantiles
    (Brent's method, to 1e-12).  Checked against nested mpmath tanh-sinh
    quadrature to 1e-8 (``tests/reference/make_jimi2.py``).

    References
    ----------
    .. [1] Romanus, O., Boulaguiem, Y. & Molinari, R. (2025). Fiducial matching:
       differentially private inference for categorical data. arXiv:2507.11762.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser, binom2_jimi_ci
    >>> r1 = LaplaceReleaser(epsilon=1.0).proportion(20, 40, rng=1)
    >>> r2 = LaplaceReleaser(epsilon=0.5).proportion(10, 50, rng=2)
    >>> ci = binom2_jimi_ci(r1, pi2=r2, rng=3)
    >>> -1.0 <= ci.low < ci.high <= 1.0
    True
    """
    (p1, n1, e1, _k1, _r1), (p2, n2, e2, _k2, _r2), scalar = _resolve_pair(
        pi1, pi2, n1, n2, epsilon1, epsilon2, kind1, kind2)
    confidence_level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    n_sim = _check_n_sim_two(n_sim)
    gen = _check_rng(rng)
    tails = _tails(confidence_level, alternative)
    lo, hi, _ = _two_sample(p1.ravel(), n1, e1, p2.ravel(), n2, e2, tails, None, n_sim, gen)
    if scalar:
        return ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level)
    return _stack(lo, hi, p1.shape)


@_release_first(("pi1", "pi2"), skip=("n1", "n2"))
def binom2_jimi_test(pi1, n1=None, pi2=None, n2=None, p0=0.0, *, epsilon1=None,
                     epsilon2=None, kind1=None, kind2=None, alternative="two-sided",
                     confidence_level=0.95, n_sim=10_000, rng=None, composition="sequential"):
    """DP-JIMI test of ``theta1 - theta2 = p0`` from two independent Laplace releases.

    Parameters
    ----------
    pi1, n1, pi2, n2, epsilon1, epsilon2, kind1, kind2
        The two releases, as in :func:`binom2_jimi_ci`.
    p0 : float, default 0.0
        Null value of the difference ``theta1 - theta2``, in [-1, 1].
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'``: H1 theta1 - theta2 > p0, p-value = share of
        ``theta1* - theta2* <= p0``; ``'less'``: share ``>= p0``;
        ``'two-sided'``: twice the smaller, capped at 1.
    confidence_level : float, default 0.95
        Level of the reported interval.
    n_sim : int, default 10_000
        Draws per group; None for the exact limit of infinitely many draws
        (deterministic; see Notes of :func:`binom2_jimi_ci`).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the two spawned group streams.
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
        For scalar releases an :class:`~dpinfer.HTestResult` (``statistic`` is
        ``pi1 - pi2``, ``estimate`` that difference clipped to [-1, 1] and
        ``estimate_raw`` the unclipped difference, ``conf_int`` from the same
        draws, ``n_sim``, ``epsilon`` the two releases' together by
        ``composition``: ``epsilon1 + epsilon2`` by default); otherwise an array
        of p-values of the broadcast shape.

    Raises
    ------
    TypeError, ValueError
        As :func:`binom2_jimi_ci`; also a ``p0`` outside [-1, 1].

    See Also
    --------
    binom2_jimi_ci, binom_jimi_test

    Notes
    -----
    The test spends nothing; the result records what the two releases spent
    together: ``epsilon1 + epsilon2`` by default (sequential composition, valid
    under any neighbouring relation, as :func:`binom2_normal_test` and
    :func:`rr_two_sample_test` record) or, with ``composition='parallel'`` for
    disjoint groups of people with public membership, the larger of the two
    (each person's loss is their own group's epsilon).  The size is approximate
    (fiducial matching), slightly liberal at small n.

    **Ties.**  ``theta1* - theta2*`` has atoms (at 0 when both groups draw the
    point mass 0, or both 1), so draws can equal ``p0``.  They count one half on
    each side (mid-p): the p-value for 'greater' is ``share(< p0) + share(= p0) /
    2``.  Counting them wholly on the null side (the rule before this release) made
    the test conservative where ties are common (small common proportions):
    size 0.012 to 0.032 at theta1 = theta2 in {0.02, 0.05, 0.1}, n = 30 per group,
    epsilon = 0.5 each (both alternatives; 4000 release pairs, SE at most
    0.003), against 0.018 to 0.038 with mid-p; dropping them instead is liberal
    (0.062 to 0.089).  Where ties are rare the rules agree.  Mid-p keeps
    the size closest to alpha without exceeding the one-sample method's excess
    (see ``validation/jimi_two_sample_ties.py`` and the gallery).

    References
    ----------
    .. [1] Romanus, O., Boulaguiem, Y. & Molinari, R. (2025). Fiducial matching:
       differentially private inference for categorical data. arXiv:2507.11762.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser, binom2_jimi_test
    >>> r1 = LaplaceReleaser(epsilon=1.0).proportion(30, 40, rng=1)
    >>> r2 = LaplaceReleaser(epsilon=1.0).proportion(10, 40, rng=2)
    >>> res = binom2_jimi_test(r1, pi2=r2, alternative='greater', rng=3)
    >>> res.pvalue < 0.01, res.n_sim
    (True, 10000)
    """
    (p1, n1, e1, k1, raw1), (p2, n2, e2, k2, raw2), scalar = _resolve_pair(
        pi1, pi2, n1, n2, epsilon1, epsilon2, kind1, kind2)
    p0 = _check_real(p0, "p0")
    if not -1.0 <= p0 <= 1.0:
        raise ValueError(f"`p0` (the null difference theta1 - theta2) must lie in [-1, 1]; got {p0!r}.")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = _check_n_sim_two(n_sim)
    composition = check_two_sample_composition(composition)
    gen = _check_rng(rng)
    tails = _tails(confidence_level, alternative) if scalar else (None, None)
    lo, hi, (le, ge) = _two_sample(p1.ravel(), n1, e1, p2.ravel(), n2, e2, tails, p0, n_sim, gen)
    pvalue = np.clip(_pvalue(le, ge, alternative), 0.0, 1.0)
    if not scalar:
        return pvalue.reshape(p1.shape)
    v1, v2 = float(p1), float(p2)
    est = min(max(v1 - v2, -1.0), 1.0)  # the rule of every test: the raw estimate projected
    name1 = _data_name(float(raw1), n1, e1, k1)
    name2 = _data_name(float(raw2), n2, e2, k2)
    return HTestResult(
        statistic=v1 - v2,
        pvalue=float(pvalue[0]),
        null_value=p0,
        alternative=alternative,
        method="DP-JIMI fiducial test for two proportions ("
               + ("exact limit" if n_sim is None else f"{n_sim} draws per group") + ")",
        estimate=est,
        estimate_raw=v1 - v2,
        conf_int=ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level),
        epsilon=two_sample_privacy(e1, 0.0, e2, 0.0, composition)[0],
        delta=0.0,
        data_name=f"group 1: {name1}; group 2: {name2}",
        statistic_name="pi1 - pi2",
        estimate_name="difference in proportions",
        null_name="difference in proportions",
        mechanism="Laplace",
        n_sim=n_sim,
    )
