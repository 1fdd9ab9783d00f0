"""Two-sample DP-JIMI: intervals and tests for the difference of two Laplace-noised proportions."""

from __future__ import annotations

import copy
import functools

import numpy as np

from . import _kernels as _k
from ..._progress import SILENT, _check_progress, start
from ..._streams import _mc_note, _share_se, _stream
from ..._workers import check_workers, seeded_blocks
from ..._validation import _check_alternative, _check_confidence_level, _check_real
from ...results import ConfidenceInterval, HTestResult
from .._resolve import arm_pair, composed, provenance, release_first, resolve
from ._common import (ACCEPTS, BLOCK_ROWS, _check_jimi_n_sim, _curve, _data_name, _fill, _proportions, _pvalue,
                      _stack, _tails, join_blocks)

__all__ = [
    "binom2_jimi_ci",
    "binom2_jimi_test",
]


def _spawn_pair(gen):
    """Two independent generators spawned from ``gen``'s SeedSequence (one per group)."""
    return tuple(gen.spawn(2))


def _two_sample(pi_hat1, n1, eps1, pi_hat2, n2, eps2, tails, d0, n_sim, gen, progress=SILENT, workers=None):
    """Simulated bounds of theta1 - theta2 and (share <= d0, share >= d0).

    ``pi_hat1``, ``pi_hat2`` flat arrays of equal length m; group 1 draws only from its own
    spawned stream and group 2 from its own, block by block.  ``progress``: the
    :func:`_two_sample_units` of the same arguments.  ``workers`` other than None: the
    draws of :func:`_two_sample_blocks` (the exact limit ignores it: it draws nothing).
    """
    m = pi_hat1.size
    lo = np.full(m, -1.0)
    hi = np.ones(m)
    le = np.empty(m)
    ge = np.empty(m)
    if n_sim is None:  # exact limit: one deterministic integral per release (and bound)
        lo_tail, hi_tail = tails
        for i in range(m):
            args = (float(pi_hat1[i]), n1, eps1, float(pi_hat2[i]), n2, eps2)
            for tail in (lo_tail, None if hi_tail is None else 1.0 - hi_tail):
                if tail is not None:  # a quantile: a root search over quadratures
                    part = progress.part(_QUANTILE_UNITS)
                    value = _k._two_exact_quantile(tail, *args, progress=part)
                    part.close()
                    if tail is lo_tail:
                        lo[i] = value
                    else:
                        hi[i] = value
            if d0 is not None:  # mid-p ties, as for the draws
                lt, tie, gt = _k._two_exact(*args, d0)
                le[i], ge[i] = lt + 0.5 * tie, gt + 0.5 * tie
                progress.advance()
        return lo, hi, ((le, ge) if d0 is not None else None)
    if workers is not None:
        return _two_sample_blocks(pi_hat1, n1, eps1, pi_hat2, n2, eps2, tails, d0, n_sim, gen, progress, workers)
    g1, g2 = _spawn_pair(gen)
    for sl in _k._chunks(m, n_sim):
        diff = _k._draw_theta(g1, pi_hat1[sl], n1, eps1, n_sim)
        diff -= _k._draw_theta(g2, pi_hat2[sl], n2, eps2, n_sim)
        _fill(sl, diff, tails, d0, lo, hi, le, ge, mid_ties=True)
        progress.advance(sl.stop - sl.start)
    return lo, hi, ((le, ge) if d0 is not None else None)


def _two_sample_blocks(pi_hat1, n1, eps1, pi_hat2, n2, eps2, tails, d0, n_sim, gen, progress, workers):
    """The draws of :func:`_two_sample` as independent tasks of ``BLOCK_ROWS`` releases.

    Block ``i`` draws from the two streams spawned from child ``i`` of one root fixed
    by ``gen`` (:func:`dpinfer._workers.seeded_blocks`), so the answer is the same for
    every ``workers`` (other than None, the serial stream of earlier releases).
    """
    task = functools.partial(_two_sample_task, n1, eps1, n2, eps2, tails, d0, n_sim)
    parts = seeded_blocks(task, (pi_hat1, pi_hat2), BLOCK_ROWS, gen, workers)
    progress.advance(pi_hat1.size)
    return join_blocks(parts, d0)


def _two_sample_task(n1, eps1, n2, eps2, tails, d0, n_sim, pi_hat1, pi_hat2, seed):
    """One block of releases of :func:`_two_sample_blocks`: ``(lo, hi, le, ge)``."""
    lo, hi, shares = _two_sample(pi_hat1, n1, eps1, pi_hat2, n2, eps2, tails, d0, n_sim,
                                 np.random.default_rng(seed))
    return (lo, hi) + (shares if shares is not None else (lo[:0], lo[:0]))


#: quadratures of one exact-limit quantile, typically (its root search: 8-9 at n = 100)
_QUANTILE_UNITS = 9


def _two_sample_at(pi_hat1, n1, eps1, pi_hat2, n2, eps2, tails, n_sim, workers, d0, gen):
    """:func:`_two_sample` at the null difference ``d0`` (for the confidence curve).

    ``workers``: None (the serial stream) or 1, the blocked draws in this process, which
    are those of any ``workers`` the test ran with (the curve keeps no executor)."""
    return _two_sample(pi_hat1, n1, eps1, pi_hat2, n2, eps2, tails, d0, n_sim, gen, workers=workers)


def _two_sample_units(m, tails, d0, n_sim):
    """Units of :func:`_two_sample`'s progress: quadratures (exact limit) or releases (draws)."""
    if n_sim is not None:
        return m
    per = sum(_QUANTILE_UNITS for tail in tails if tail is not None) + (d0 is not None)
    return m * per


def _pair(pi_hat1, pi_hat2, n1, n2, epsilon, kind1, kind2, method):
    """The two groups' records and their proportions, broadcast together."""
    if pi_hat2 is None:
        raise TypeError("`pi_hat2` (group 2's release) is required.")
    eps1, eps2 = arm_pair(epsilon, "epsilon")
    names = {"epsilon": "epsilon"}  # one epsilon argument, a value or a pair
    r1 = resolve(pi_hat1, n1, epsilon=eps1, kind=kind1, accepts=ACCEPTS, method=method, name="pi_hat1", suffix="1",
                 names=names)
    r2 = resolve(pi_hat2, n2, epsilon=eps2, kind=kind2, accepts=ACCEPTS, method=method, name="pi_hat2", suffix="2",
                 names=names)
    p1, p2 = _proportions(r1, "pi_hat1", "1"), _proportions(r2, "pi_hat2", "2")
    try:
        a, b = np.broadcast_arrays(p1, p2)
    except ValueError as exc:
        raise ValueError(
            f"`pi_hat1` and `pi_hat2` must have broadcastable shapes; got {p1.shape} and {p2.shape}."
        ) from exc
    return r1, r2, a, b, r1.scalar and r2.scalar


def _check_n_sim_two(n_sim):
    """``n_sim``: None (the exact limit) or a positive int <= _MAX_N_SIM."""
    return _check_jimi_n_sim(n_sim, allow_none=True)


def _pair_stream(rng, p1, n1, e1, p2, n2, e2, n_sim):
    """The generator of the draws: ``rng``, or the stream derived from both releases.

    The derived stream depends on the released proportions, n, epsilon and ``n_sim``
    only (not on ``margin``, the level or the alternative), so the test's interval and
    :func:`binom2_jimi_ci` come from the same draws, as with an explicit seed.
    """
    return _stream(rng, "binom2_jimi", p1, n1, e1, p2, n2, e2, n_sim)


@release_first(skip=("n1", "n2"))
def binom2_jimi_ci(pi_hat1, n1=None, pi_hat2=None, n2=None, *, epsilon=None,
                   kind1=None, kind2=None, confidence_level=0.95, alternative="two-sided",
                   n_sim=10_000, rng=None, progress=None, workers=None):
    """DP-JIMI interval for the difference ``theta1 - theta2`` of two proportions.

    Parameters
    ----------
    pi_hat1 : float, array_like or Release
        Group 1's Laplace release (a proportion, or a count with
        ``kind1='count'``), as in :func:`binom_jimi_ci`.
    n1 : int, optional
        Group 1's size (required for a plain number).
    pi_hat2 : float, array_like or Release
        Group 2's release, independent of group 1's (required; keyword or third
        positional argument, the order of :func:`binom2_normal_test`).  Arrays
        broadcast together.
    n2 : int, optional
        Group 2's size (required for a plain number).
    epsilon : float or (float, float), optional
        The releases' privacy-loss parameters (required for plain numbers): one
        value for both groups or a pair ``(epsilon_1, epsilon_2)``, as
        :func:`~dpinfer.binom2_ump_test` takes it.
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
        same stream for both groups).  None (the default) derives the seed from
        the public releases (values, n, epsilon) and ``n_sim``: the same
        releases give the same interval on every call (post-processing, no
        privacy cost; see :mod:`dpinfer._streams`).
    progress : None, bool or callable, default None
        Progress of a long call (the exact limit takes seconds; see :ref:`progress`): None
        shows a line on stderr once the call has run 2 s, if stderr is a terminal; True
        always, False never; a callable gets ``(done, total, message)``, the units being
        the quadratures of the exact limit (or the releases, with draws).
    workers : None, int, callable or concurrent.futures.Executor, default None
        Where the draws run, for arrays of releases (a sweep; see :ref:`scale`): None
        (the default) draws serially from one stream, as earlier releases did; otherwise
        the releases are split into fixed blocks of 64, block ``i`` drawing from child
        ``i`` of a SeedSequence fixed by ``rng``, run in this process (``1``), in ``k``
        local processes (``k``; ``-1`` all CPUs), by a map-like callable
        ``workers(func, iterable)`` or by an Executor (Dask:
        ``Client(...).get_executor()``).  Every ``workers`` other than None gives the
        same answer, bit for bit; it differs from None's by Monte Carlo error only.
        The exact limit (``n_sim=None``) draws nothing and ignores it.

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
    >>> ci = binom2_jimi_ci(r1, pi_hat2=r2, rng=3)
    >>> -1.0 <= ci.low < ci.high <= 1.0
    True
    """
    r1, r2, p1, p2, scalar = _pair(pi_hat1, pi_hat2, n1, n2, epsilon, kind1, kind2, "binom2_jimi_ci")
    n1, e1, n2, e2 = r1.n, r1.epsilon, r2.n, r2.epsilon
    confidence_level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    n_sim = _check_n_sim_two(n_sim)
    progress = _check_progress(progress)
    workers = check_workers(workers)
    gen, _ = _pair_stream(rng, p1, n1, e1, p2, n2, e2, n_sim)
    tails = _tails(confidence_level, alternative)
    with start(progress, _two_sample_units(p1.size, tails, None, n_sim), "binom2_jimi_ci",
               "quadratures" if n_sim is None else "releases") as bar:
        lo, hi, _ = _two_sample(p1.ravel(), n1, e1, p2.ravel(), n2, e2, tails, None, n_sim, gen, bar, workers)
    if scalar:
        return ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level)
    return _stack(lo, hi, p1.shape)


@release_first(skip=("n1", "n2"))
def binom2_jimi_test(pi_hat1, n1=None, pi_hat2=None, n2=None, margin=0.0, *, epsilon=None,
                     kind1=None, kind2=None, alternative="two-sided",
                     confidence_level=0.95, n_sim=10_000, rng=None, composition=None,
                     progress=None, workers=None):
    """DP-JIMI test of ``theta1 - theta2 = margin`` from two independent Laplace releases.

    Parameters
    ----------
    pi_hat1, n1, pi_hat2, n2, epsilon, kind1, kind2
        The two releases, as in :func:`binom2_jimi_ci`.
    margin : float, default 0.0
        Null value of the difference ``theta1 - theta2``, in [-1, 1].
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'``: H1 theta1 - theta2 > margin, p-value = share of
        ``theta1* - theta2* <= margin``; ``'less'``: share ``>= margin``;
        ``'two-sided'``: twice the smaller, capped at 1.
    confidence_level : float, default 0.95
        Level of the reported interval.
    n_sim : int, default 10_000
        Draws per group; None for the exact limit of infinitely many draws
        (deterministic; see Notes of :func:`binom2_jimi_ci`).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the two spawned group streams; None (the default) derives it
        from the public releases and ``n_sim``, so the same releases give the
        same p-value on every call, as :func:`binom2_jimi_ci` does.  The result's
        ``note`` states the stream and the Monte Carlo standard error of the
        p-value.
    composition : {None, 'sequential', 'parallel'}, default None
        How the two groups' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation); the one rule of every method (see :func:`~dpinfer.prop_test`).
    progress : None, bool or callable, default None
        As in :func:`binom2_jimi_ci`.
    workers : None, int, callable or concurrent.futures.Executor, default None
        As in :func:`binom2_jimi_ci`.

    Returns
    -------
    HTestResult or ndarray
        For scalar releases an :class:`~dpinfer.HTestResult` (``statistic`` is
        ``pi_hat1 - pi_hat2``, ``estimate`` that difference clipped to [-1, 1] and
        ``estimate_raw`` the unclipped difference, ``conf_int`` from the same
        draws, ``n_sim``, ``epsilon`` the two releases' together by
        ``composition``); otherwise an array
        of p-values of the broadcast shape.

    Raises
    ------
    TypeError, ValueError
        As :func:`binom2_jimi_ci`; also a ``margin`` outside [-1, 1].

    See Also
    --------
    binom2_jimi_ci, binom_jimi_test

    Notes
    -----
    The test spends nothing; the result records what the two releases spent
    together by the one composition rule of every method: ``epsilon_1 + epsilon_2``
    (sequential composition, valid under any neighbouring relation) unless the
    releases record disjoint groups of one budget's parallel set, or
    ``composition='parallel'`` states them: the larger of the two (each person's
    loss is their own group's epsilon).  The size is approximate
    (fiducial matching), slightly liberal at small n.

    **Ties.**  ``theta1* - theta2*`` has atoms (at 0 when both groups draw the
    point mass 0, or both 1), so draws can equal ``margin``.  They count one half on
    each side (mid-p): the p-value for 'greater' is ``share(< margin) + share(= margin) /
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
    >>> res = binom2_jimi_test(r1, pi_hat2=r2, alternative='greater', rng=3)
    >>> res.pvalue < 0.01, res.n_sim
    (True, 10000)
    """
    r1, r2, p1, p2, scalar = _pair(pi_hat1, pi_hat2, n1, n2, epsilon, kind1, kind2, "binom2_jimi_test")
    n1, e1, n2, e2 = r1.n, r1.epsilon, r2.n, r2.epsilon
    margin = _check_real(margin, "margin")
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"`margin` (the null difference theta1 - theta2) must lie in [-1, 1]; got {margin!r}.")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = _check_n_sim_two(n_sim)
    composition, epsilon, delta = composed(composition, (r1, r2))
    progress = _check_progress(progress)
    workers = check_workers(workers)
    gen, derived = _pair_stream(rng, p1, n1, e1, p2, n2, e2, n_sim)
    tails = _tails(confidence_level, alternative) if scalar else (None, None)
    start_gen = copy.deepcopy(gen)
    with start(progress, _two_sample_units(p1.size, tails, margin, n_sim), "binom2_jimi_test",
               "quadratures" if n_sim is None else "releases") as bar:
        lo, hi, (le, ge) = _two_sample(p1.ravel(), n1, e1, p2.ravel(), n2, e2, tails, margin, n_sim, gen, bar, workers)
    pvalue = np.clip(_pvalue(le, ge, alternative), 0.0, 1.0)
    if not scalar:
        return pvalue.reshape(p1.shape)
    v1, v2 = float(p1), float(p2)
    est = min(max(v1 - v2, -1.0), 1.0)  # the rule of every test: the raw estimate projected
    name1 = _data_name(float(r1.value), n1, e1, r1.kind)
    name2 = _data_name(float(r2.value), n2, e2, r2.kind)
    note = ""
    if n_sim is not None:
        share = {"greater": le[0], "less": ge[0]}.get(alternative, min(le[0], ge[0]))
        note = _mc_note(n_sim, _share_se(share, n_sim, 1.0 if alternative != "two-sided" else 2.0),
                        derived, per="draws per group")
    return HTestResult(
        statistic=v1 - v2,
        pvalue=float(pvalue[0]),
        null_value=margin,
        alternative=alternative,
        method="DP-JIMI fiducial test for two proportions ("
               + ("exact limit" if n_sim is None else f"{n_sim} draws per group") + ")",
        estimate=est,
        estimate_raw=v1 - v2,
        conf_int=ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level),
        epsilon=epsilon,
        delta=delta,
        data_name=f"group 1: {name1}; group 2: {name2}",
        statistic_name="pi1 - pi2",
        estimate_name="difference in proportions",
        null_name="difference in proportions",
        mechanism=r1.mechanism,
        **provenance(r1, r2),
        composition=composition,
        n_sim=n_sim,
        pvalue_function=functools.partial(_curve, functools.partial(_two_sample_at, p1.ravel(), n1, e1, p2.ravel(), n2,
                                                                    e2, tails, n_sim, None if workers is None else 1), start_gen,
                                            alternative),
        note=note,
    )
