"""Repro samples (Awan & Wang) for the mean of clipped data: finite-sample validity, Monte Carlo included.

The repro-samples method fixes ``R`` seeds once (``n`` standard normal values and the
release's integer noise, each), and for a candidate mean simulates the release from every
seed at that candidate (common random numbers: the same seeds for every candidate),
exactly as :class:`~dpinfer.MeanReleaser` computes it (grid, integer sum, discrete
noise, :mod:`._simulator`).  The observed release is ranked among the ``R`` simulated
ones; under the candidate the ``R + 1`` releases are exchangeable, so the rank's p-value
``(1 + #{at least as extreme}) / (R + 1)`` is valid in finite samples whatever ``R`` is.

With a known scale the release simulated from seed ``r`` is a nondecreasing step
function of the mean, so "seed ``r``'s release is at least the observed one" is "the
candidate is at least ``m_r``" (and "at most" is "at most ``M_r``"), the first and last
doubles of the step, found exactly.  The p-value at every candidate is then a count of
the sorted roots and the acceptance set is read off exactly from order statistics:
nothing can be missed.  With the scale unknown (spread released) the p-value is
maximised over it on certified boxes (:mod:`._unknown_spread`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...._progress import _check_progress, start
from ...._streams import _stream
from ...._validation import _check_alternative, _check_confidence_level
from ...._workers import check_workers, child_seed, map_tasks, root_seed
from ....results import ConfidenceInterval, HTestResult
from ..._draw_summary import draw_share, pvalue_from_shares
from ..._resolve import provenance
from .._common import check_draws, check_model, check_mu0, check_repro_cost, check_sigma, clipped
from ._simulator import GridSeeds, draw_noise
from ._unknown_spread import acceptance_set, draw_spread, projected_pvalue, projected_pvalues

__all__ = ["mean_repro_test"]

_MODEL_WORDS = {"normal": "normal", "lognormal": "log-normal"}
#: seeds held at once (rows times n): 32 MB per working array
_BLOCK = 4_000_000
#: seed values (seeds x n) per task with ``workers``: fixed, so the tasks never depend on
#: the number of workers
_TASK = 250_000
#: the count of a tail is compared with alpha (R + 1) up to this slack, so that a level given
#: as a decimal (0.95, 0.9) is read as that decimal and not as its binary neighbour
_SLACK = 1e-9


def seed_roots(data, sigma, model, normals, noise, observed=None):
    """Per seed, the means ``(m, M)`` where its simulated release starts to be ``>=`` and stops being ``<=`` the observed one.

    ``normals`` has shape ``(R, n)`` (the data seeds) and ``noise`` shape ``(R,)`` (the
    integer discrete Laplace noise on the grid sum); ``observed`` the released sum each
    seed is compared with (default the release's).  The seed's release at a mean is the
    released law's own computation (:mod:`._simulator`); it is ``>= S`` exactly at the
    means ``>= m`` and ``<= S`` at those ``<= M`` (``M < m`` when it jumps over ``S``).
    Unsorted; ``-inf``/``+inf`` (log-normal: 0/``+inf``) at the ends.
    """
    seeds = GridSeeds(data.grid(), normals, noise, sigma, model)
    return seeds.roots(float(data.sum) if observed is None else observed)


def draw_roots(data, sigma, model, n_seeds, gen, bar=None, workers=None):
    """Sorted roots ``(m, M)`` of ``n_seeds`` seeds drawn from ``gen`` for each release, shape ``data.sum.shape + (R,)``.

    The releases' seeds are drawn one release after the other, in blocks of rows (sizes
    from public numbers only).  ``workers`` other than None: tasks of about ``_TASK``
    seed values, task ``i`` drawing from child ``i`` of a SeedSequence fixed by ``gen``
    (:mod:`dpinfer._workers`), so the roots do not depend on where the tasks run.
    """
    sums = np.atleast_1d(np.asarray(data.sum, dtype=float)).reshape(-1)
    observed = np.repeat(sums, n_seeds)
    lam = data.grid().lams[0]
    out = np.empty((2, observed.size))
    if workers is None:
        per_block = max(1, _BLOCK // data.n)
        for start in range(0, observed.size, per_block):
            k = min(per_block, observed.size - start)
            out[:, start:start + k] = _block_roots(data, sigma, model, lam, observed[start:start + k], gen)
            if bar is not None:
                bar.advance(k * data.n)
    else:
        root = root_seed(gen)
        per_task = max(1, _TASK // data.n)
        starts = range(0, observed.size, per_task)
        tasks = [(data, sigma, model, lam, observed[a:a + per_task], child_seed(root, i))
                 for i, a in enumerate(starts)]
        out[:] = np.concatenate(map_tasks(_roots_task, tasks, workers), axis=1)
        if bar is not None:
            bar.advance(observed.size * data.n)
    shape = np.shape(data.sum) + (n_seeds,)
    return tuple(np.sort(v.reshape(sums.size, n_seeds), axis=-1).reshape(shape) for v in out)


def _block_roots(data, sigma, model, lam, observed, gen):
    """The roots ``(2, k)`` of ``k = observed.size`` seeds drawn from ``gen`` (normals, then noise)."""
    normals = gen.standard_normal((observed.size, data.n))
    noise = draw_noise(gen, lam, observed.size)
    return seed_roots(data, sigma, model, normals, noise, observed)


def _roots_task(task):
    *args, seed = task
    return _block_roots(*args, np.random.default_rng(seed))


def repro_pvalues(low_sorted, high_sorted, null, alternative):
    """The repro-samples p-value at each ``null`` from the sorted roots (vectorised over ``null``).

    ``(1 + #{m_r <= null}) / (R + 1)`` for ``'greater'`` (the simulated releases at
    least the observed one), ``(1 + #{M_r >= null}) / (R + 1)`` for ``'less'``; a tie
    with the observed release counts in both (conservative).  Two-sided, twice the
    smaller (at most 1), which is the rank p-value of the halfspace (Tukey) depth of the
    observed release among the ``R + 1``.
    """
    r = low_sorted.size
    null = np.asarray(null, dtype=float)
    le = np.searchsorted(low_sorted, null, side="right")
    ge = r - np.searchsorted(high_sorted, null, side="left")
    return pvalue_from_shares(draw_share(le, r), draw_share(ge, r), alternative)


def repro_interval(low_sorted, high_sorted, confidence_level, alternative):
    """``(low, high)``: the set of means whose repro p-value exceeds ``1 - confidence_level``.

    ``low_sorted`` (the ``m_r``) and ``high_sorted`` (the ``M_r``) are sorted along
    their last axis (one row per release: arrays out).

    A one-sided p-value ``(1 + c) / (R + 1)`` exceeds a tail ``t`` when the count ``c``
    is at least ``k = floor(t (R + 1))``; the count of ``m_r`` at or below a candidate
    reaches ``k`` at the ``k``-th smallest ``m_r`` (closed end), the count of ``M_r`` at
    or above at the ``k``-th largest ``M_r``.  ``k = 0``: that side is unbounded.
    """
    r = low_sorted.shape[-1]
    alpha = 1.0 - confidence_level
    tail = 0.5 * alpha if alternative == "two-sided" else alpha
    k = math.floor(tail * (r + 1) + _SLACK)
    shape = low_sorted.shape[:-1]
    low = low_sorted[..., k - 1] if alternative != "less" and k > 0 else np.full(shape, -np.inf)
    high = high_sorted[..., r - k] if alternative != "greater" and k > 0 else np.full(shape, np.inf)
    return low, high


def _check_sigma_repro(sigma, data, model, alternative):
    """``sigma``: known, or None with released squares (normal model, two-sided: the projection)."""
    if sigma is None:
        if not data.has_squares:
            raise ValueError(
                "`sigma` is needed for the repro-samples method when the release holds the clipped sum only: "
                "give the known standard deviation (sigma=...), or release the spread too "
                "(MeanReleaser(..., spread=True)).")
        if model != "normal" or alternative != "two-sided":
            raise ValueError(
                "with the spread released and `sigma` unknown the repro-samples method covers the normal model "
                f"and the two-sided test; got model = {model!r}, alternative = {alternative!r}. Give `sigma`, or "
                "use DP-JIMI (mean_jimi_test, or method='jimi').")
        return None
    return check_sigma(sigma, data, model=model)


def mean_repro_test(release, mu0=0.0, *, sigma=None, model="normal", alternative="two-sided",
                    confidence_level=0.95, n_sim=None, rng=None, progress=None, workers=None):
    """Repro-samples test and interval for the mean of clipped data, valid with the Monte Carlo error.

    Parameters
    ----------
    release : Release
        A clipped sum from :class:`~dpinfer.MeanReleaser` (kind ``'clipped_sum'``).
        With ``spread=True`` only the clipped sum is used (``sigma`` is given).
    mu0 : float, default 0.0
        The null value of the population mean.
    sigma : float, optional
        The known standard deviation of the data before clipping (for
        ``model='lognormal'``: of ``log x``).  None (the default) needs a
        release with the spread (``spread=True``): ``sigma`` is then a nuisance
        parameter and the p-value is maximised over it (normal model,
        two-sided; see Notes).
    model : {'normal', 'lognormal'}, default 'normal'
        The data model before clipping, ``x = mu + sigma e`` or ``x = exp(mu +
        sigma e)`` with ``e`` standard normal; the tested parameter is the
        population mean of ``x``.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95
    n_sim : int, optional
        ``R``, the number of seeds (at least 10; ``R n`` at most 1e9); None: 1999
        with ``sigma`` known, 399 with it unknown (each seed is then evaluated on
        many boxes: about 6 s at n = 50 on one core, 20 s at n = 150).  Any
        ``R`` gives a valid test; a larger ``R`` gives more power and a shorter
        interval.  With ``sigma`` known and ``(R + 1) (1 - confidence_level) /
        2`` an integer the test's size is exactly the nominal one.
    rng : None, int, SeedSequence or numpy.random.Generator
        None (the default): the seeds come from a stream derived from the public
        release and the settings (the same answer on every call; post-processing,
        no privacy cost).  Given: that stream.
    progress : None, bool or callable, optional
        Progress of the seeds (sigma known) or of the three stages with the spread
        released (:mod:`dpinfer._progress`: None shows a line on a terminal after 2 s).
    workers : None, int, callable or concurrent.futures.Executor, optional
        Where the seeds run when ``sigma`` is given (see :ref:`scale`): None (the
        default) draws them in turn from one stream, as earlier releases did; otherwise
        in fixed tasks of ``250000 // n`` seeds, task ``i`` drawing from child ``i`` of a
        SeedSequence fixed by ``rng``, in this process (``1``), ``k`` local processes
        (``k``; ``-1`` all CPUs), a map-like callable ``workers(func, iterable)`` or an
        Executor (Dask: ``Client(...).get_executor()``).  Every ``workers`` other than
        None gives the same answer, bit for bit.  With the spread released (no
        ``sigma``) the seeds are drawn in this process whatever ``workers`` is.

    Returns
    -------
    HTestResult
        ``statistic`` the released clipped mean (sum / n), ``parameter`` n,
        ``pvalue`` the repro-samples p-value at ``mu0``, ``conf_int`` the set of
        means whose p-value exceeds ``1 - confidence_level`` (always an interval
        here, see Notes), ``estimate`` the median of the seeds' roots (the mean at
        which the two-sided p-value is largest), ``n_sim`` ``R``,
        ``pvalue_function`` the p-value at other null means (the same seeds).

    Raises
    ------
    TypeError
        ``release`` is not a Release.
    ValueError
        A release of another kind, or of more than one value; no ``sigma``; bad
        settings; with the spread released and no ``sigma``, ``n_sim * n`` above
        200,000 (the cost grows with every seed value; the limit is named).

    See Also
    --------
    mean_jimi_test : DP-JIMI (approximate with an unknown spread; faster).
    mean_naive_test : the noise-only interval around the clipped mean.
    mean_test : the entry point (``method='repro'``).

    Notes
    -----
    **Method** (Awan & Wang 2024, the repro-samples approach of Xie & Wang 2022).
    Seeds ``(e_r, D_r)``, ``r = 1..R``, are drawn once: ``e_r`` ``n`` standard
    normal values, ``D_r`` the integer noise on the sum, drawn by the releaser's
    own exact discrete Laplace sampler with the release's ratio.  For a candidate
    mean ``mu`` the seed's release ``s_r(mu)`` is computed as the releaser computes
    one, from the data ``mu + sigma e_rj`` (log-normal: ``exp(log(mu) - sigma**2 /
    2 + sigma e_rj)``): clipped to ``[a, b]``, each value put on the release's grid
    ``rint((clip(x) - a) / (b - a) 2**g)`` (the same ``g``, from the same public
    ``n`` and ``epsilon``), summed in integers, ``D_r`` added, and mapped to
    ``n a + (b - a) T / 2**g``; the same seeds for every candidate.
    The observed release ``s`` is ranked among them; one-sided,

        ``p(mu) = (1 + #{r : s_r(mu) >= s}) / (R + 1)``  (``alternative='greater'``)

    (``<=`` for ``'less'``), and two-sided twice the smaller of the two, which is
    the rank p-value of the halfspace (Tukey) depth of ``s`` among the ``R + 1``
    releases, the depth the paper proposes for a statistic of dimension one.
    The confidence set is ``{mu : p(mu) > 1 - confidence_level}``.

    **Validity, Monte Carlo error included.**  At the true parameter ``s`` and the
    ``s_r`` are ``R + 1`` independent draws of the same law (the seeds are drawn
    independently of the data), so the rank of ``s`` is uniform on ``1..R + 1``
    up to ties, and a simulated release equal to the observed one (releases live
    on a grid, so ties happen) is counted as at least as extreme in both
    directions, which only makes the p-value larger: ``P(p <= alpha) <= alpha``
    for every ``R``, exactly for the law released (no continuous
    approximation): the
    guarantee holds for the simulated p-value itself, not only in the limit ``R
    -> infinity`` (Awan & Wang, section on Monte Carlo error).  The interval
    covers the true mean with probability at least ``confidence_level``.

    **Computation: the acceptance set is exact.**  Every step of ``s_r(mu)``
    (floating-point rounding included) is nondecreasing in ``mu``, so ``s_r`` is a
    nondecreasing step function on the doubles: ``s_r(mu) >= s`` exactly when
    ``mu >= m_r`` and ``s_r(mu) <= s`` exactly when ``mu <= M_r``, ``m_r`` and
    ``M_r`` the first and last doubles of the crossing (``M_r >= m_r`` when the
    seed ties ``s`` on a stretch; ``-inf``/``+inf`` when no double of the mean
    reaches it).  Both are found by bisection on the ordered doubles, which cannot
    miss the crossing of a monotone function (interpolation shortens it; the last
    halvings evaluate only the values whose grid integer changes within the
    bracket, the others being constant there).  The p-value at every candidate is
    a count of the sorted roots, the one-sided p-value is monotone in ``mu`` and
    the two-sided acceptance set is the interval from the ``k``-th smallest
    ``m_r`` to the ``k``-th largest ``M_r``, ``k = floor((R + 1) (1 -
    confidence_level) / 2)``: exact on the doubles, no piece can be missed.

    **Unknown sigma (spread released).**  As the paper does for a nuisance
    parameter, the p-value for the mean is the projection ``sup_sigma p(mu,
    sigma)`` of a joint test of ``(mu, sigma)``, which is valid for ``mu``
    because the joint test is valid at the true pair.  The joint test ranks the
    released pair ``(S, Q)`` (clipped sum, centred sum of squares) among the
    seeds' pairs ``(S_r, Q_r)`` (seeds ``(e_r, D_r, E_r)``, ``E_r`` the integer
    noise on the squares; both statistics simulated as released, grid included)
    by the smallest of the four one-sided rank p-values, Bonferroni combined: ``p(mu, sigma) = min(1, 4 min_k (1 + c_k) / (R + 1))``, ``c_k``
    the seeds at least as extreme in direction ``k`` (a coordinatewise
    halfspace depth; valid for every ``R``).  The simulated releases are not
    monotone in ``sigma``, so the supremum is not a count of roots; it is
    bounded on boxes of ``(mu, sigma)``, ``mu`` over the whole line and
    ``sigma`` in ``[0, 100 (b - a)]`` (the cap every mean method puts on the
    scale: validity is under the model with a scale below it), by the
    ranges of each clipped value between two corners of the box (each is
    monotone in ``mu`` and in ``sigma``, and so is its grid integer; its squares'
    integer is monotone on either side of the middle of the range).  A box whose bound is at most
    ``alpha`` is rejected; boxes are halved until the mean is resolved to
    ``5e-4 (b - a)``; every slab of the mean with a box not rejected is kept.
    The reported set therefore contains the true acceptance set (it can be a
    little wider, it cannot miss a piece); when it is not one interval the note
    lists the pieces and ``conf_int`` is their hull.  The p-value reported is a
    certified upper bound of the supremum (valid, conservative).

    References
    ----------
    Awan, J. and Wang, Z. (2024). Simulation-based, finite-sample inference for
    privatized data. Journal of the American Statistical Association;
    arXiv:2303.05328.
    Xie, M. and Wang, P. (2022). Repro samples method for finite- and
    large-sample inferences. arXiv:2206.06421.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean_repro_test
    >>> x = np.random.default_rng(3).normal(130.0, 15.0, size=200)
    >>> rel = MeanReleaser(1.0, lower=80.0, upper=150.0).release(x, rng=4)
    >>> res = mean_repro_test(rel, mu0=125.0, sigma=15.0)
    >>> round(res.conf_int.low, 1), round(res.conf_int.high, 1)
    (129.1, 133.9)
    >>> res.pvalue < 0.05
    True
    """
    data = clipped(release, "release", "mean_repro_test")
    if not data.scalar:
        raise ValueError(f"`release` must be one release (a scalar clipped sum); got a release of "
                         f"{np.size(data.sum)} values. Test each release on its own.")
    model = check_model(model)
    mu0 = check_mu0(mu0, model)
    alternative = _check_alternative(alternative)
    sigma = _check_sigma_repro(sigma, data, model, alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = check_draws((1999 if sigma is not None else 399) if n_sim is None else n_sim, data.n)
    if sigma is None:
        check_repro_cost(n_sim, (data.n,), "mean_repro_test", "with the spread released and no sigma")
    progress = _check_progress(progress)
    workers = check_workers(workers)
    gen, derived = _stream(rng, "mean_repro", data.release.value, data.n, data.release.epsilon, data.lower,
                           data.upper, list(data.release.split or ()), sigma, model, n_sim)
    stream = ("from a stream derived from the release (reproducible; pass rng= for another)" if derived
              else "from the given rng")
    if sigma is None:
        with start(progress, 3, "mean_repro_test: unknown spread") as bar:
            return _spread_result(data, mu0, confidence_level, n_sim, gen, stream, bar)
    with start(progress, n_sim * data.n, "mean_repro_test: seeds", unit="seed values") as bar:
        lows, highs = draw_roots(data, sigma, model, n_sim, gen, bar, workers)
    p = float(repro_pvalues(lows, highs, mu0, alternative))
    low, high = (float(v) for v in repro_interval(lows, highs, confidence_level, alternative))
    spread = "; the released squares are not used" if data.has_squares else ""

    pvalue_function = functools.partial(_sigma_known_pvalues, lows, highs, alternative)  # pickles
    return HTestResult(
        statistic=float(data.sum) / data.n, pvalue=p, null_value=mu0, alternative=alternative,
        method=f"Repro-samples test of a clipped mean ({_MODEL_WORDS[model]} model, sigma known)",
        estimate=float(np.median(0.5 * lows + 0.5 * highs)), conf_int=ConfidenceInterval(low, high, confidence_level),
        epsilon=data.release.epsilon, delta=0.0, data_name=data.data_name(), statistic_name="clipped mean",
        estimate_name="mean of x", null_name="mean", mechanism=data.rec.mechanism, n_sim=n_sim,
        parameter=data.n, parameter_name="n", pvalue_function=pvalue_function,
        note=(f"Repro samples: R = {n_sim} seeds {stream}, the same seeds for every mean; the p-value and "
              f"interval are valid in finite samples with the Monte Carlo error included (exact set, an "
              f"interval){spread}; the estimate is the seeds' median root"),
        **provenance(data.rec))


def _sigma_known_pvalues(lows, highs, alternative, value):
    """The repro-samples p-value at each mean in ``value``, from the seeds' roots."""
    out = repro_pvalues(lows, highs, value, alternative)
    return float(out) if np.ndim(out) == 0 else out


def describe_pieces(pieces, empty, confidence_level):
    """``(conf_int, words)``: the hull of the sorted pieces as a :class:`ConfidenceInterval` (None when
    there is no piece: an empty set has no ends) and the note's words on their shape (``empty``: none)."""
    if len(pieces) > 1:
        shape = (f"the acceptance set is a union of {len(pieces)} intervals, "
                 + ", ".join(f"[{lo:.6g}, {hi:.6g}]" for lo, hi in pieces) + "; conf_int is their hull")
    else:
        shape = "the acceptance set is one interval" if pieces else empty
    if not pieces:
        return None, shape
    return ConfidenceInterval(float(pieces[0][0]), float(pieces[-1][1]), confidence_level), shape


def _spread_result(data, mu0, confidence_level, n_sim, gen, stream, bar):
    """The projection over an unknown sigma (:mod:`._unknown_spread`): certified set and p-value bound."""
    bar.step("seeds")
    sp = draw_spread(data, n_sim, gen)
    bar.advance()
    bar.step("acceptance set")
    pieces = acceptance_set(sp, 1.0 - confidence_level)
    bar.advance()
    bar.step("p-value")
    p = projected_pvalue(sp, mu0)
    bar.advance()
    conf_int, shape = describe_pieces(pieces, "every mean is rejected (the model does not fit the release)",
                                      confidence_level)
    return HTestResult(
        statistic=float(data.sum) / data.n, pvalue=p, null_value=mu0, alternative="two-sided",
        method="Repro-samples test of a clipped mean (normal model, spread released)",
        estimate=None, conf_int=conf_int,
        epsilon=data.release.epsilon, delta=0.0, data_name=data.data_name(), statistic_name="clipped mean",
        estimate_name="mean of x", null_name="mean", mechanism=data.rec.mechanism, n_sim=n_sim,
        parameter=data.n, parameter_name="n", pvalue_function=functools.partial(projected_pvalues, sp),
        note=(f"Repro samples: R = {n_sim} seeds {stream}, the same seeds for every (mean, sigma); the p-value "
              f"(the supremum over sigma, bounded above) and the set are valid in finite samples with the Monte "
              f"Carlo error included; {shape} (certified by boxes: it may be wider, it misses no piece)"),
        **provenance(data.rec))

