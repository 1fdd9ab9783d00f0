"""DP-JIMI for the mean of clipped data: a location-scale model inverted draw by draw.

DP-JIMI (Boulaguiem et al.; the JIMI of Guerrier et al.) needs only a way to
generate the data: for each draw it takes fresh seeds (``n`` standard normal values
and the release's noise) and solves for the parameters that reproduce the released
statistics from them, clipping included.  The draws' parameters form a fiducial-type
sample; its percentiles are the interval and its share on the null side the p-value.
"""

from __future__ import annotations

import functools

import numpy as np

from ..._progress import _check_progress, start
from ..._streams import _mc_note, _share_se, _stream
from ..._validation import _check_alternative, _check_confidence_level, _check_real
from ..._warnings import ApproximationWarning, warn
from ..._workers import check_workers
from ...results import ConfidenceInterval, HTestResult
from .._resolve import composed, provenance
from ._approx import spread2_warning, spread_warning
from ._common import (
    check_draws,
    check_model,
    check_mu0,
    check_sigma,
    check_sigmas,
    clipped,
    draw_pvalues,
    mean_draws_on,
    pvalue,
    sample_bounds,
    shares,
    tails,
)

__all__ = ["mean2_jimi_test", "mean_jimi_test"]

_MODEL_WORDS = {"normal": "normal", "lognormal": "log-normal"}


def _scalar(data, name):
    if not data.scalar:
        raise ValueError(f"`{name}` must be one release (a scalar clipped sum); got a release of "
                         f"{np.size(data.sum)} values. Test each release on its own.")


def two_releases(release1, release2, margin, model, method):
    """``(d1, d2, margin, model)``: the two-group tests' one argument preamble (two scalar clipped sums)."""
    d1 = clipped(release1, "release1", method)
    d2 = clipped(release2, "release2", method)
    _scalar(d1, "release1")
    _scalar(d2, "release2")
    return d1, d2, _check_real(margin, "margin"), check_model(model)


def _how(model, sigma):
    spread = "spread released" if sigma is None else "sigma known"
    return f"{_MODEL_WORDS[model]} model, {spread}"


def mean_jimi_test(release, mu0=0.0, *, sigma=None, model="normal", alternative="two-sided",
                   confidence_level=0.95, n_sim=2000, rng=None, progress=None, workers=None):
    """DP-JIMI test and interval for the mean of clipped data, like R's ``t.test(x, mu = mu0)``.

    Parameters
    ----------
    release : Release
        A clipped sum from :class:`~dpinfer.MeanReleaser` (kind ``'clipped_sum'``),
        which records ``n``, ``epsilon``, the bounds and, with ``spread=True``, the
        centred sum of squares and the budget split.
    mu0 : float, default 0.0
        The null value of the population mean.
    sigma : float, optional
        The known standard deviation of the data (for ``model='lognormal'``: of
        ``log x``).  Required when the release holds the clipped sum only; with a
        released sum of squares, None (the default) solves for it draw by draw,
        and a given ``sigma`` is used instead of the squares.
    model : {'normal', 'lognormal'}, default 'normal'
        The model that generates the data before clipping: ``x = mu + sigma e``
        or ``x = exp(mu + sigma e)``, ``e`` standard normal.  The tested
        parameter is the population mean of ``x`` (``mu``, or ``exp(mu + sigma**2
        / 2)``), not the mean of the clipped values.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95
    n_sim : int, default 2000
        Draws (at least 10; ``n_sim * n`` at most 1e9).
    rng : None, int, SeedSequence or numpy.random.Generator
        None (the default): a stream derived from the public release and the
        settings (the same answer on every call; post-processing, no privacy
        cost).  Given: that stream.
    progress : None, bool or callable, optional
        Progress of the draws, counted in seed values (:mod:`dpinfer._progress`:
        None shows a line on a terminal after 2 s).  The draws are made in blocks
        of bounded memory, with the same answer at any block size.
    workers : None, int, callable or concurrent.futures.Executor, optional
        Where the draws run (see :ref:`scale`): None (the default) draws them in turn
        from one stream, as earlier releases did; otherwise in fixed tasks of
        ``250000 // n`` draws, task ``i`` drawing from child ``i`` of a SeedSequence
        fixed by ``rng``, in this process (``1``), ``k`` local processes (``k``; ``-1``
        all CPUs), a map-like callable ``workers(func, iterable)`` or an Executor (Dask:
        ``Client(...).get_executor()``).  Every ``workers`` other than None gives the
        same answer, bit for bit; it differs from None's by Monte Carlo error only.

    Returns
    -------
    HTestResult
        ``statistic`` the released clipped mean (sum / n), ``parameter`` n,
        ``pvalue``, ``conf_int`` (percentiles of the draws), ``estimate`` the
        draws' median, ``null_value`` ``mu0``, ``n_sim``; the note gives the
        p-value's Monte Carlo standard error.

    Raises
    ------
    TypeError
        ``release`` is not a Release.
    ValueError
        A release of another kind; a clipped sum without squares and no ``sigma``;
        bad settings.

    Warns
    -----
    ApproximationWarning
        With the spread released, where the study measured the interval (or,
        one-sided, an end of it) missing beyond the shared rule (see Notes);
        decided from public numbers only.

    See Also
    --------
    mean2_jimi_test : two groups (the private t-test).
    mean_naive_test : the noise-only interval around the clipped mean.
    mean_test : the entry point choosing between them.

    Notes
    -----
    **Method.**  For draw ``h`` take ``e_h`` (``n`` standard normal seeds) and
    ``L_h ~ Laplace(0, (b - a) / epsilon_1)`` (and ``M_h ~ Laplace(0, ((b - a) /
    2)**2 / epsilon_2)`` with released squares), and solve

        ``sum_j clip(mu + sigma e_hj, a, b) = S - L_h``
        ``sum_j (clip(mu + sigma e_hj, a, b) - (a + b) / 2)**2 = Q - M_h``

    for ``(mu_h, sigma_h)`` (the first alone for ``mu_h`` when ``sigma`` is
    known).  This is DP-JIMI (Boulaguiem et al.), the JIMI of Guerrier et al.
    applied to a privatized statistic: the simulation reproduces the whole
    data-generating and release process, clipping included, so the clipping bias
    that a naive interval ignores is part of the model.  The left side is
    continuous and nondecreasing in ``mu`` for fixed ``sigma`` (a bracketed
    solve, vectorised over the draws); ``sigma`` is solved outside it on ``[0,
    100 (b - a)]`` (for the log-normal model ``[0, 10]`` on the log scale), as the
    first sign change on a grid of scales, refined by the same bracketed solver.
    With heavy clipping two pairs ``(mu, sigma)`` can reproduce the same two
    statistics; the rule then takes the smaller scale the grid sees.  A
    draw whose target sum is at or beyond ``n a`` or ``n b`` has ``mu_h = -inf``
    or ``+inf`` (the data would all be clipped); one whose squares no scale
    reaches has scale 0 or the cap.  The interval is the ``k``-th smallest and
    largest ``k = ceil(a H)`` draw of the mean, the p-value the share of draws
    on the null side with the observed release counted as one of them, ``(k + 1)
    / (H + 1)`` as fima reports it, so never 0 (doubled, two-sided).

    **Validity.**  With ``sigma`` known the one-sample test is exact up to Monte
    Carlo error: the equation is monotone in ``mu``, so the share of draws at or
    below ``mu0`` is the probability, at ``mu0``, of a release at or above the one
    observed (checked against a brute-force simulation of the release in the
    tests).  With the spread released it is approximate.  The validation study
    ``means`` (its tails part, ``python -m validation._means_tails``; 199 draws,
    2000 data sets per point) measured the 95% interval at n = 30, 80, 100 and 500,
    epsilon 0.5 to 3, bounds clipping 0 to 40% above, both tails, or with a lower
    bound 6 instead of 4 sd below the mean: where the bounds clip much of one tail
    the interval leans toward the clipped side, and with wide bounds the two ends'
    errors no longer offset (issue 40: two-sided coverage 0.92 at n = 80, epsilon
    0.5, 30% clipped above, lower bound 6 sd below; its lower end above the mean
    in 0.0785 of data sets).  The warning reads public numbers only (n, the
    effective epsilon, the model, the alternative) and the study's worst measured
    error over the bounds it studied for them (the rule and its table:
    ``dpinfer/inference/means/_approx.py``); a given ``sigma`` never warns.
    Under another model (skewed data with the normal model) it can miss; the
    log-normal model is there for skewed data.
    The release's discrete noise and grid (:class:`~dpinfer.MeanReleaser`) are
    within ``epsilon 2**-26`` in cdf of the continuous law simulated here.

    References
    ----------
    Boulaguiem, Y., Romanus, D., Guerrier, S. and Molinari, R. A simulation-based
    approach to differential privacy (DP-JIMI).
    Guerrier, S., Karemera, M., Orso, S. and Victoria-Feser, M.-P. (2020).
    Asymptotically optimal bias reduction for parametric models (the JIMI).
    arXiv:2002.08757.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean_jimi_test
    >>> x = np.random.default_rng(3).normal(130.0, 15.0, size=200)
    >>> rel = MeanReleaser(1.0, lower=80.0, upper=180.0, spread=True).release(x, rng=4)
    >>> res = mean_jimi_test(rel, mu0=125.0)
    >>> round(res.conf_int.low, 1), round(res.conf_int.high, 1)
    (128.1, 134.7)
    """
    data = clipped(release, "release", "mean_jimi_test")
    _scalar(data, "release")
    model = check_model(model)
    mu0 = check_mu0(mu0, model)
    sigma = check_sigma(sigma, data, model=model)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = check_draws(n_sim, data.n)
    progress = _check_progress(progress)
    workers = check_workers(workers)
    message = spread_warning(data, model, sigma, alternative)  # public numbers only, before any draw
    if message is not None:
        warn(message, ApproximationWarning)
    gen, derived = _stream(rng, "mean_jimi", data.release.value, data.n, data.release.epsilon, data.lower,
                           data.upper, list(data.release.split or ()), sigma, model, n_sim)
    with start(progress, int(np.size(data.sum)) * n_sim * data.n, "mean_jimi_test: draws",
               unit="seed values") as bar:
        draws = mean_draws_on(data, sigma, model, n_sim, gen, bar, workers)
    return _result(draws, mu0, alternative, confidence_level, n_sim, derived,
                   statistic=float(data.sum) / data.n, parameter=data.n, rec=(data.rec,),
                   epsilon=data.release.epsilon, data_name=data.data_name(),
                   method=f"DP-JIMI test of a clipped mean ({_how(model, sigma)})",
                   names=("clipped mean", "n", "mean of x", "mean"))


def mean2_jimi_test(release1, release2, margin=0.0, *, sigma=None, model="normal", alternative="two-sided",
                    confidence_level=0.95, n_sim=2000, rng=None, composition=None, progress=None,
                    workers=None):
    """DP-JIMI test of ``mean1 - mean2 = margin`` from two groups' releases: the private t-test.

    Parameters
    ----------
    release1, release2 : Release
        Clipped sums of two independent groups (:class:`~dpinfer.MeanReleaser`,
        each with its own n, epsilon and bounds).
    margin : float, default 0.0
        The null difference of the population means.
    sigma : float or pair of floats, optional
        Known standard deviations (one for both groups, or one each); None (the
        default) solves for each group's from its released squares.
    model, alternative, confidence_level, n_sim
        As in :func:`mean_jimi_test`.
    rng : None, int, SeedSequence or numpy.random.Generator
        None: a stream derived from both releases; the two groups' draws come from
        independent child streams.
    progress : None, bool or callable, optional
        As in :func:`mean_jimi_test` (both groups' seed values).
    workers : None, int, callable or concurrent.futures.Executor, optional
        As in :func:`mean_jimi_test` (each group's draws from its own spawned stream).
    composition : {None, 'sequential', 'parallel'}, default None
        How the two groups' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation); the one rule of every method (see :func:`~dpinfer.prop_test`).

    Returns
    -------
    HTestResult
        As :func:`mean_jimi_test`, for the difference ``mean1 - mean2``: the
        interval and p-value come from the differences of independent draws of the
        two groups' means; ``statistic`` is the difference of the clipped means.

    Warns
    -----
    ApproximationWarning
        With the spread released for either group, where the study measured the
        interval for the difference (or, one-sided, an end of it) missing beyond the
        shared rule (see Notes); decided from public numbers only.

    See Also
    --------
    mean_jimi_test, mean2_naive_test, mean_test

    Notes
    -----
    Each group's draws are those of :func:`mean_jimi_test`; the difference of
    independent draws is a draw of the difference (the groups are independent).
    A draw with both means infinite on the same side (both groups' targets beyond
    a bound) says nothing about the difference: it counts on both sides of the
    null and extends both ends of the interval (conservative).

    The validation study ``means`` (two-group part, 400 pairs per point, 79
    draws) found the size of the two-sided level-0.05 test within 4 Monte Carlo
    SE of 0.05 everywhere (n = 30 to 500 per group, epsilon 0.5 to 3, 0 to 20%
    clipped, equal laws in both groups, normal or log-normal data), and the
    interval for a difference of 0.25 or 0.5 standard deviations covering at
    least 0.917.  Its two-group tails part (``python -m
    validation._means_tails_two_group``; 199 draws per group, 2000 pairs per point,
    1000 at n = 500 and for the log-normal model) measured the interval for the
    difference with each group clipped 0 to 40% above (lower bound 4 or 6 sd below
    the mean), 20% in each tail, and groups of different laws clipped differently
    (40% against 20%, 30% against 10%), at n = 30, 80 and 500 per group and epsilon
    0.5, 1 and 3: no setting beyond the shared rule (two-sided coverage 0.941 to
    0.995 with the normal model, no end beyond 0.035; the size of the level-0.05 test
    of the true difference 0.005 to 0.061, never 4 SE above 0.05), so it does not
    warn there; heavy clipping of the same law in both groups makes it conservative.
    The warning reads public numbers only (the smaller n, the smaller effective
    epsilon, the model, the alternative) and that study's worst measured error over
    the settings it studied (the rule and its table:
    ``dpinfer/inference/means/_approx.py``); ``sigma`` given for both groups never
    warns.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean2_jimi_test
    >>> gen = np.random.default_rng(5)
    >>> releaser = MeanReleaser(1.0, 80.0, 180.0, spread=True)
    >>> treated = releaser.release(gen.normal(125.0, 15.0, 150), rng=6)
    >>> control = releaser.release(gen.normal(135.0, 15.0, 150), rng=7)
    >>> res = mean2_jimi_test(treated, control)
    >>> res.pvalue < 0.05
    True
    """
    d1, d2, margin, model = two_releases(release1, release2, margin, model, "mean2_jimi_test")
    s1, s2 = check_sigmas(sigma, d1, d2, model)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = max(check_draws(n_sim, d1.n), check_draws(n_sim, d2.n))
    progress = _check_progress(progress)
    workers = check_workers(workers)
    composition, epsilon, _ = composed(composition, (d1.rec, d2.rec))
    message = spread2_warning(d1, d2, model, s1, s2, alternative)  # public numbers only, before any draw
    if message is not None:
        warn(message, ApproximationWarning)
    gen, derived = _stream(rng, "mean2_jimi", d1.release.value, d1.n, d1.release.epsilon, d1.lower, d1.upper,
                           list(d1.release.split or ()), d2.release.value, d2.n, d2.release.epsilon, d2.lower,
                           d2.upper, list(d2.release.split or ()), s1, s2, model, n_sim)
    g1, g2 = gen.spawn(2)
    with start(progress, n_sim * (d1.n + d2.n), "mean2_jimi_test: draws", unit="seed values") as bar, \
            np.errstate(invalid="ignore"):  # inf - inf: an undefined draw (see Notes)
        draws = (mean_draws_on(d1, s1, model, n_sim, g1, bar, workers)
                 - mean_draws_on(d2, s2, model, n_sim, g2, bar, workers))
    spread = "spread released" if s1 is None and s2 is None else "sigma known" if s1 and s2 else "mixed"
    return _result(draws, margin, alternative, confidence_level, n_sim, derived,
                   statistic=float(d1.sum) / d1.n - float(d2.sum) / d2.n, parameter=None, rec=(d1.rec, d2.rec),
                   epsilon=epsilon, composition=composition,
                   data_name=d1.data_name("x") + "; " + d2.data_name("y"),
                   method=f"DP-JIMI test of two clipped means ({_MODEL_WORDS[model]} model, {spread})",
                   names=("difference of clipped means", "parameter", "difference in means",
                          "difference in means"))


def _result(draws, null, alternative, confidence_level, n_sim, derived, *, statistic, parameter, rec, epsilon,
            data_name, method, names, composition=None):
    le, ge = shares(draws, null)
    p = float(pvalue(le, ge, alternative))
    lo, hi = sample_bounds(draws, tails(confidence_level, alternative))
    share = min(float(le), float(ge)) if alternative == "two-sided" else p
    se = _share_se(share, n_sim, 2.0 if alternative == "two-sided" else 1.0)
    stat_name, parameter_name, estimate_name, null_name = names
    return HTestResult(
        statistic=statistic, pvalue=p, null_value=null, alternative=alternative, method=method,
        estimate=None if np.isnan(draws).all() else float(np.nanmedian(draws)), conf_int=ConfidenceInterval(float(lo), float(hi), confidence_level),
        epsilon=epsilon, delta=0.0, data_name=data_name, statistic_name=stat_name,
        estimate_name=estimate_name, null_name=null_name, mechanism=rec[0].mechanism, n_sim=n_sim,
        parameter=parameter, parameter_name=parameter_name,
        note=_mc_note(n_sim, se, derived) + "; the estimate is the draws' median",
        composition=composition, **provenance(*rec),
        pvalue_function=functools.partial(draw_pvalues, draws, alternative))
