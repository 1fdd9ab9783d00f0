"""Inputs of the mean methods: the releases they take, the model, the draws' kernel, percentiles.

Private helpers of :mod:`dpinfer.inference.means`; they assume valid input unless
they say otherwise.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _mechanisms
from ..._printing import _r_format
from ..._validation import DPInferValueError, _arg, _check_choice, _check_n_sim, _check_positive, _check_real, _kind_of
from ..._workers import child_seed, map_tasks, root_seed
from ...distributions._mean_grid import release_grid
from ...releasers.release import Release
from .._draw_summary import draw_share, interval_tails, pvalue_from_shares
from .._resolve import accepts, resolve
from ._kernels import LOG_SIGMA_CAP, SIGMA_CAP, Seeds, solve_location, solve_location_scale

#: the releases every mean method takes
ACCEPTS = accepts(
    {(_mechanisms.LAPLACE, "clipped_sum")},
    ("mean_jimi_test", "mean2_jimi_test", "mean_naive_test", "mean2_naive_test", "mean_repro_test", "mean2_repro_test",
     "mean_test"),
    "a clipped sum of values (MeanReleaser(epsilon, lower, upper).release(x))")

MODELS = ("normal", "lognormal")

#: seeds held at once by the draws' kernel (values of n times draws): 32 MB per working array
_BLOCK = 4_000_000
#: largest n_sim * n of one call (decided from public numbers before anything is drawn)
_MAX_SEEDS = 10**9


class Clipped:
    """One resolved clipped-sum release: the numbers inference needs (all public)."""

    def __init__(self, rel, rec):
        self.release = rel
        self.rec = rec
        self.n = rel.n
        self.lower, self.upper = rel.bounds
        value = np.asarray(rel.value, dtype=float)
        self.has_squares = rel.split is not None
        self.sum = value[..., 0] if self.has_squares else value
        self.squares = value[..., 1] if self.has_squares else None
        share = rel.split if self.has_squares else (1.0, 0.0)
        self.eps_sum = rel.epsilon * share[0]
        self.eps_sq = rel.epsilon * share[1]

    def grid(self):
        """The release's grid and noise (:func:`dpinfer.distributions._mean_grid.release_grid`, from public numbers)."""
        return release_grid(self.release.epsilon, self.lower, self.upper, self.n,
                            self.release.split[0] if self.has_squares else None)

    @property
    def sum_scale(self):
        """Laplace scale of the noise on the clipped sum."""
        return (self.upper - self.lower) / self.eps_sum

    @property
    def squares_scale(self):
        """Laplace scale of the noise on the centred sum of squares."""
        return (0.5 * (self.upper - self.lower)) ** 2 / self.eps_sq

    @property
    def scalar(self):
        return np.ndim(self.sum) == 0

    def data_name(self, name="x"):
        n = self.n
        mean = _r_format([float(np.mean(self.sum)) / n], 4)[0].strip()
        bounds = f"[{_r_format([self.lower], 7)[0].strip()}, {_r_format([self.upper], 7)[0].strip()}]"
        eps = _r_format([self.release.epsilon], 7)[0].strip()
        return f"{name}: clipped mean = {mean}, n = {n}, bounds {bounds}, epsilon = {eps}"


def clipped(release, name, method):
    """Resolve ``release`` (a Release of kind 'clipped_sum' only) into a :class:`Clipped`."""
    rec = resolve(release, accepts=ACCEPTS, method=method, name=name, numbers=False)
    if rec is None:
        raise TypeError(f"`{name}` must be a Release of kind 'clipped_sum' (from MeanReleaser(epsilon, lower, "
                        f"upper).release(x)), which records n, epsilon and the bounds; got {_kind_of(release)}.")
    return Clipped(release, rec)


def check_model(model):
    return _check_choice(model, "model", MODELS)


def check_mu0(mu0, model):
    """``mu0`` a real number; under the log-normal model positive (its mean ``exp(mu + sigma^2 / 2)``
    is, so a null at or below 0 would be rejected by every draw: p = 0, issue 40)."""
    mu0 = _check_real(mu0, "mu0")
    if model == "lognormal" and not mu0 > 0.0:
        raise ValueError(f"`mu0` must be positive with model='lognormal' (the mean of a log-normal "
                         f"x = exp(mu + sigma e) is exp(mu + sigma^2 / 2) > 0); got {mu0!r}.")
    return mu0


def check_sigma(sigma, data, name="sigma", model="normal"):
    """``sigma``: None (needs the released squares) or a number in the range the model's search covers.

    Normal model: ``1e-9 (b - a) <= sigma <= SIGMA_CAP (b - a)``; log-normal (log scale):
    ``1e-9 <= sigma <= LOG_SIGMA_CAP``.  Both limits are public.
    """
    if sigma is None:
        if not data.has_squares:
            raise ValueError(
                f"`{name}` is needed: the release holds the clipped sum only, so the spread must be given "
                f"(sigma=..., the known standard deviation; for the log-normal model the standard deviation "
                "of log x), or released too (MeanReleaser(..., spread=True)).")
        return None
    sigma = _check_positive(sigma, name)
    lo, hi = ((1e-9 * (data.upper - data.lower), SIGMA_CAP * (data.upper - data.lower)) if model == "normal"
              else (1e-9, LOG_SIGMA_CAP))
    if not lo <= sigma <= hi:
        if model == "normal":
            rule = f"lie in [1e-9, {SIGMA_CAP:g}] x (upper - lower) = [{lo:g}, {hi:g}] for the normal model"
        else:
            rule = f"(the standard deviation of log x) lie in [1e-9, {LOG_SIGMA_CAP:g}] for the log-normal model"
        raise ValueError(f"`{name}` must {rule}; got {sigma!r}.")
    return sigma


def check_sigmas(sigma, d1, d2, model="normal"):
    """Two groups' ``sigma``: None, one number for both, or a pair (one each)."""
    if isinstance(sigma, (tuple, list)):
        if len(sigma) != 2:
            raise ValueError(f"`sigma` must be None, a number or a pair of numbers; got {len(sigma)} values.")
        return check_sigma(sigma[0], d1, "sigma[0]", model), check_sigma(sigma[1], d2, "sigma[1]", model)
    return check_sigma(sigma, d1, model=model), check_sigma(sigma, d2, model=model)


def check_draws(n_sim, n):
    n_sim = _check_n_sim(n_sim, allow_none=False)
    if n_sim < 10:
        raise DPInferValueError(_arg("n_sim"), f" must be at least 10 draws; got {n_sim!r}.")
    if n_sim * n > _MAX_SEEDS:
        raise DPInferValueError(
            _arg("n_sim"), f" times n must be at most {_MAX_SEEDS:_} (each draw holds n seeds); got n_sim = "
            f"{n_sim} with n = {n}.")
    return n_sim


#: The repro-samples tests whose work grows with the seeds' values and has no closed form (one group
#: with the spread released, two groups) take at most this many seed values, n_sim times n summed over
#: the groups: about half a minute on one core (217 s was measured at 8e5 for one group, over 228 s at
#: 1.6e6 for two).  A public limit, checked from n_sim and n before any work.
REPRO_MAX_SEEDS = 200_000


def check_repro_cost(n_sim, ns, function, why):
    """Refuse a repro-samples call whose ``n_sim * sum(ns)`` passes :data:`REPRO_MAX_SEEDS` (limit named)."""
    total = n_sim * sum(ns)
    if total > REPRO_MAX_SEEDS:
        fit = REPRO_MAX_SEEDS // sum(ns)
        advice = (f"give n_sim = {fit} or fewer" if fit >= 10 else "the groups are too large for this method")
        raise DPInferValueError(
            _arg("n_sim"), f" times n must be at most {REPRO_MAX_SEEDS:_} for {function} {why} (its cost grows "
            f"with every seed value and would take minutes); got n_sim = {n_sim} with n = "
            f"{' + '.join(map(str, ns))}: {advice}, or use method='jimi' (mean_jimi_test), whose cost is bounded.")


def mean_draws(data, sigma, model, n_sim, gen, bar=None):
    """DP-JIMI draws of the population mean, shape ``data.sum.shape + (n_sim,)``.

    Per draw: ``n`` fresh standard normal seeds and fresh Laplace noise for each
    released statistic; the parameters reproducing the released values given them
    (:mod:`._kernels`); the model's mean at those parameters.  Releases are taken in
    blocks of whole releases (the block size depends on ``n`` and ``n_sim`` only).
    """
    sums = np.atleast_1d(np.asarray(data.sum, dtype=float)).reshape(-1)
    squares = None if data.squares is None else np.atleast_1d(data.squares).reshape(-1)
    out = np.empty((sums.size, n_sim))
    per_block = max(1, _BLOCK // (n_sim * data.n))
    for start in range(0, sums.size, per_block):
        stop = min(start + per_block, sums.size)
        k = stop - start
        rows = k * n_sim
        # Memory is bounded by blocks of draws: the seeds of at most about _BLOCK values are held at
        # once.  The stream is the one of a single block (all the seeds, then the noise), so the
        # answer does not depend on the block size: a first pass draws the seeds only to move the
        # generator past them, the noise is drawn, and a second pass redraws the same seeds from the
        # saved state, block by block, while solving.
        chunk = max(1, _BLOCK // data.n)
        state = gen.bit_generator.state
        for lo in range(0, rows, chunk) if rows > chunk else ():
            gen.standard_normal((min(chunk, rows - lo), data.n))
        first = None if rows > chunk else gen.standard_normal((rows, data.n))
        target1 = np.repeat(sums[start:stop], n_sim) - gen.laplace(0.0, data.sum_scale, rows)
        target2 = (None if sigma is not None else
                   np.repeat(squares[start:stop], n_sim) - gen.laplace(0.0, data.squares_scale, rows))
        after = gen.bit_generator.state
        if first is None:
            gen.bit_generator.state = state
        means = np.empty(rows)
        for lo in range(0, rows, chunk):
            hi = min(lo + chunk, rows)
            normals = first if first is not None else gen.standard_normal((hi - lo, data.n))
            means[lo:hi] = _solve_block(Seeds(normals, data.lower, data.upper, model), target1[lo:hi],
                                        None if target2 is None else target2[lo:hi], sigma, model)
            if bar is not None:
                bar.advance((hi - lo) * data.n)
        gen.bit_generator.state = after
        out[start:stop] = means.reshape(k, n_sim)
    return out.reshape(np.shape(data.sum) + (n_sim,))


#: seed values (draws x n) per task with ``workers``: fixed, so the tasks never depend on the
#: number of workers
_TASK = 250_000


def mean_draws_on(data, sigma, model, n_sim, gen, bar, workers):
    """:func:`mean_draws`, its draws run where ``workers`` says (None: :func:`mean_draws` itself).

    Otherwise tasks of ``_TASK // n`` draws (of every release), task ``i`` drawing from
    child ``i`` of one root fixed by ``gen`` (:mod:`dpinfer._workers`), concatenated along
    the draws: the same draws whatever ``workers`` is.
    """
    if workers is None:
        return mean_draws(data, sigma, model, n_sim, gen, bar)
    root = root_seed(gen)
    per = max(1, _TASK // data.n)
    tasks = [(data, sigma, model, min(per, n_sim - a), child_seed(root, i))
             for i, a in enumerate(range(0, n_sim, per))]
    out = np.concatenate(map_tasks(_draws_task, tasks, workers), axis=-1)
    if bar is not None:
        bar.advance(int(np.size(data.sum)) * n_sim * data.n)
    return out


def _draws_task(task):
    data, sigma, model, n_sim, seed = task
    return mean_draws(data, sigma, model, n_sim, np.random.default_rng(seed))


def _solve_block(seeds, target1, target2, sigma, model):
    """The model's mean reproducing each row's targets (one block of :func:`mean_draws`)."""
    rows = target1.size
    if sigma is not None:
        s = np.full(rows, float(sigma))
        if model == "lognormal":
            seeds.set_sigma_exp(s, np.arange(rows))
        mu = solve_location(seeds, target1, s, np.arange(rows))
    else:
        mu, s = solve_location_scale(seeds, target1, target2)
    return model_mean(mu, s, model)


def model_mean(mu, sigma, model):
    """The population mean at ``(mu, sigma)``: ``mu`` (normal), ``exp(mu + sigma**2 / 2)`` (log-normal)."""
    if model == "normal":
        return mu
    s = np.where(np.isfinite(mu), sigma, 0.0)
    with np.errstate(over="ignore"):
        return np.exp(mu + 0.5 * s * s)


tails = interval_tails


def sample_bounds(draws, tails_):
    """Percentile interval of the draws (last axis): the ``k``-th smallest and ``k``-th largest, ``k = ceil(a H)``."""
    lo_tail, hi_tail = tails_
    h = draws.shape[-1]
    undefined = np.isnan(draws)  # inf - inf: the draw says nothing; each bound takes it at its worst
    lo = hi = None
    if lo_tail is not None:
        lo = np.sort(np.where(undefined, -np.inf, draws), axis=-1)[..., max(math.ceil(lo_tail * h), 1) - 1]
    if hi_tail is not None:
        hi = np.sort(np.where(undefined, np.inf, draws), axis=-1)[..., h - max(math.ceil(hi_tail * h), 1)]
    shape = draws.shape[:-1]
    return (np.full(shape, -np.inf) if lo is None else lo), (np.full(shape, np.inf) if hi is None else hi)


def shares(draws, null):
    """``(share of draws <= null, share >= null)`` along the last axis, each ``(k + 1) / (H + 1)``.

    The observed release counts as one of the ``H`` draws (:func:`draw_share`), so neither
    share, nor a p-value from them, is ever 0; an undefined draw counts in both.
    """
    undefined = np.isnan(draws)
    h = draws.shape[-1]
    return (draw_share(np.count_nonzero((draws <= null) | undefined, axis=-1), h),
            draw_share(np.count_nonzero((draws >= null) | undefined, axis=-1), h))


pvalue = pvalue_from_shares


def draw_pvalues(draws, alternative, values):
    """The p-value the draws give at each of ``values`` (the result's confidence curve):
    the same shares as the test's p-value, at other null values."""
    values = np.asarray(values, dtype=float)
    out = np.array([float(pvalue(*shares(draws, v), alternative)) for v in values.flat]).reshape(values.shape)
    return out if values.ndim else float(out)


def is_release(value):
    return isinstance(value, Release)
