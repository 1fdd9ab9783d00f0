"""Repro samples for the difference of two clipped means (sigma known): :func:`mean2_repro_test`."""

from __future__ import annotations

import math

import numpy as np

from ...._progress import _check_progress, start
from ...._streams import _stream
from ...._validation import _check_alternative, _check_choice, _check_confidence_level
from ...._workers import check_workers
from ....results import ConfidenceInterval, HTestResult
from ..._resolve import composed, provenance
from .._common import check_draws, check_repro_cost, check_sigmas
from .._jimi import two_releases
from ._one_group import describe_pieces
from ._joint import differences, joint_estimate, joint_pvalues, joint_roots, joint_set
from ._nuisance_lattice import TwoGroups, draw_seeds

__all__ = ["mean2_repro_test"]

#: halvings of a lattice box at each finite end of the acceptance set (ends to h / 32)
_STEPS = 5


def acceptance_pieces(edges, bounds, alpha, h):
    """The union of the delta boxes whose bound exceeds ``alpha``, as sorted ``(low, high)`` intervals."""
    pieces = []
    for i in np.flatnonzero(bounds > alpha):
        low = -math.inf if edges[i] is None else edges[i] * h
        high = math.inf if edges[i + 1] is None else edges[i + 1] * h
        if pieces and pieces[-1][1] == low:
            pieces[-1] = (pieces[-1][0], high)
        else:
            pieces.append((low, high))
    return pieces


def tighten(two, pieces, alpha, alternative, steps=_STEPS):
    """Move each finite end of the pieces inwards by bisection of its lattice box (certified rejections only).

    Below a lower end ``lo`` (a lattice point, its box ``[lo, lo + h]`` kept) the halves
    ``[lo, lo + w]`` certified rejected are cut off, ``w`` halving ``steps`` times; the
    same above an upper end.  A piece whose ends cross is wholly rejected and dropped.
    """
    out = []
    h = two.h
    for lo, hi in pieces:
        if math.isfinite(lo):
            w = h
            for _ in range(steps):
                w *= 0.5
                if two.rejected(lo, lo + w, alpha, alternative):
                    lo += w
        if math.isfinite(hi):
            w = h
            for _ in range(steps):
                w *= 0.5
                if two.rejected(hi - w, hi, alpha, alternative):
                    hi -= w
        if lo < hi:
            out.append((lo, hi))
    return out


def confidence_set(two, alpha, alternative, progress=None):
    """The certified acceptance set ``{delta : p > alpha}`` as sorted ``(low, high)`` pieces (a superset)."""
    edges, bounds, _ = two.sweep(alternative, progress)
    return tighten(two, acceptance_pieces(edges, bounds, alpha, two.h), alpha, alternative)


def mean2_repro_test(release1, release2, margin=0.0, *, sigma=None, model="normal", alternative="two-sided",
                     confidence_level=0.95, statistic="joint", n_sim=None, rng=None, composition=None,
                     progress=None, workers=None):
    """Repro-samples test and interval for ``mean1 - mean2`` from two groups' clipped sums (sigma known).

    Parameters
    ----------
    release1, release2 : Release
        Clipped sums of two independent groups (:class:`~dpinfer.MeanReleaser`,
        each with its own n, epsilon and bounds); with ``spread=True`` only the
        sums are used.
    margin : float, default 0.0
        The null difference of the population means.
    sigma : float or pair of floats
        The known standard deviations before clipping (one for both groups, or
        one each).  Required: with an unknown spread use
        :func:`mean2_jimi_test`.
    model : {'normal'}, default 'normal'
        The data model before clipping, ``x = mu + sigma e``; the log-normal
        model is not covered for two groups here (use :func:`mean2_jimi_test`).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95
    statistic : {'joint', 'difference'}, default 'joint'
        ``'joint'``: the pair of released sums, each group ranked among its
        seeds and the two ranks combined (a rectangle; see Notes): the interval
        is finite whenever each group's mean is identified.  ``'difference'``:
        the difference of the clipped means alone (the statistic before
        this release; its interval is usually unbounded on one side).
    n_sim : int, optional
        ``R``, the seeds per group (at least 10); None: 1999 for ``'joint'``
        (well under a second at 150 per group), 399 for ``'difference'`` (about 2
        s at n = 100 per group).  Any ``R`` gives a valid test.
    rng : None, int, SeedSequence or numpy.random.Generator
        None: a stream derived from both releases and the settings (the same
        answer on every call); the groups' seeds come from independent child
        streams.
    composition : {None, 'sequential', 'parallel'}, default None
        How the two groups' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation); the one rule of every method (see :func:`~dpinfer.prop_test`).
    progress : None, bool or callable, optional
        Progress of the sweep over the differences of ``'difference'``
        (:mod:`dpinfer._progress`: None shows a line on a terminal after 2 s).
    workers : None, int, callable or concurrent.futures.Executor, optional
        Where each group's seeds run with ``statistic='joint'`` (see :ref:`scale`), as
        in :func:`mean_repro_test`: None (the default) the serial streams of earlier
        releases; any other value the same answer, bit for bit, for every value.  With
        ``statistic='difference'`` the cost is the sweep over the nuisance lattice, not
        the seeds, and everything runs in this process whatever ``workers`` is.

    Returns
    -------
    HTestResult
        ``statistic`` the difference of the released clipped means, ``pvalue``
        the p-value at ``margin`` (the supremum over the nuisance ``mu2``:
        exact, up to outward rounding, for ``'joint'``; a certified upper bound
        for ``'difference'``; see Notes), ``conf_int`` the set of differences
        whose p-value exceeds ``1 - confidence_level`` (``'joint'``: one
        interval, finite when both groups' means are identified;
        ``'difference'``: the smallest interval holding the certified
        acceptance set, with ends ``-inf``/``inf`` when the difference of the
        sums cannot exclude large differences), ``estimate`` (``'joint'``) the
        difference of the groups' seed-median roots, None for
        ``'difference'``, ``n_sim`` ``R``, ``pvalue_function`` the p-value at
        other differences.  The note lists the pieces when the set is not one
        interval and says whether the p-value is the supremum itself or its
        bound.

    Raises
    ------
    TypeError
        A release is not a Release.
    ValueError
        A release of another kind or of several values; no ``sigma``; the
        log-normal model; an unknown ``statistic``; bad settings.

    See Also
    --------
    mean_repro_test : one group.
    mean2_jimi_test : DP-JIMI (also with an unknown spread; approximate).
    mean_test : the entry point (``method='repro'`` with two releases).

    Notes
    -----
    **The joint statistic** (``statistic='joint'``, the default).  Each group
    has its own ``R`` seeds (``n`` standard normal values and the integer
    noise), drawn independently, and its own repro-samples p-value
    ``p_i(mu_i)`` of :func:`mean_repro_test` (the rank of its released sum
    among the seeds' releases at ``mu_i``; ``'greater'`` uses group 1's
    ``'greater'`` and group 2's ``'less'`` p-value, ``'less'`` the reverse,
    two-sided both two-sided).  The joint p-value of the pair of released
    sums is ``p(mu1, mu2) = 1 - (1 - min(p1, p2))**2`` (Sidak: the groups'
    data and seeds are independent, so at the true pair ``P(p <= alpha) <=
    alpha`` for every ``R``; a rectangular, coordinatewise halfspace depth of
    the pair).  The p-value for ``delta`` is ``sup_mu2 p(mu2 + delta, mu2)``,
    valid because the joint test is valid at the true pair.  Each ``p_i`` is a
    count of the group's exact roots (the first and last doubles at which a
    seed's release reaches and leaves the observed sum), so its level sets are
    intervals ``A_i(c)`` read off order statistics, and the supremum is ``p``
    at the largest count ``c`` with ``delta`` in ``A_1(c) - A_2(c)``; the
    confidence set is one such difference of intervals, ``[L1 - U2, U1 -
    L2]``, ``[L_i, U_i]`` the groups' one-group repro intervals at the level
    ``sqrt(confidence_level)`` (the count at which ``p`` first exceeds
    ``alpha``).  Exact: no grid, no search (the ends are rounded outwards by
    one double).  The price of the rectangle is width when both groups are
    well inside the bounds (each group is tested at about ``1 - alpha / 2``);
    its gain is that a difference is excluded as soon as each group's mean is.

    **The difference statistic** (``statistic='difference'``; Awan & Wang
    2024).  Seeds ``r = 1..R`` (each group's ``n``
    standard normal values and integer noise, drawn once and used for every
    candidate) give the simulated difference ``T_r(mu1, mu2) = V1_r(mu1) / n1 -
    V2_r(mu2) / n2``, each ``V`` the group's release simulated exactly as
    :class:`~dpinfer.MeanReleaser` computes it (as in :func:`mean_repro_test`).
    The observed ``t`` is ranked among them: ``p(mu1, mu2) = (1 + #{T_r >= t}) /
    (R + 1)`` for ``'greater'`` (``<=`` for ``'less'``; two-sided twice the
    smaller; ties count both ways), valid at the true pair for every ``R``, the
    Monte Carlo error included.  With the nuisance ``mu2`` unknown the p-value
    for ``delta`` is ``sup_mu2 p(mu2 + delta, mu2)``, valid because the joint
    test is valid at the true pair.

    **Computation: certified, never too small.**  Each ``V_r`` is a
    nondecreasing step function of its mean, so on a box ``[d1, d2] x [a, b]``
    of ``(delta, mu2)`` each ``T_r`` lies between ``V1_r(a + d1) / n1 - V2_r(b)
    / n2`` and ``V1_r(b + d2) / n1 - V2_r(a) / n2``, which bounds the box's
    p-value.  Both groups' releases are tabulated per seed on a common lattice
    of means, step ``h`` a power of two (about 1/128 of the range below),
    spanning ``min(lower - sigma max e) - h`` to ``max(upper - sigma min e) +
    h`` over the seeds: beyond these ends every simulated value is clipped, so
    each ``V_r`` is constant there (exactly, in doubles), and the lattice's
    cells of ``mu2`` with two infinite end cells cover the whole line.  The
    confidence set is the union of the lattice's delta boxes ``[k h, (k + 1)
    h]`` (and the two infinite end boxes) whose bound exceeds ``alpha``: it
    contains every accepted difference (no piece can be missed).  Each finite
    end is then moved inwards by five bisections of its box (a half certified
    rejected, by the bound refined on the cells of ``mu2``, is cut off), so it
    is at most ``h / 32`` too far out.  The p-value at ``margin`` starts
    from the lattice's cells of ``mu2`` and halves those whose bound exceeds
    the best exact value found until none is left (the p-value is then the
    supremum itself) or 512 points were added (the largest bound left is
    reported: valid, conservative; the note says which).

    With this statistic large differences are often not excluded: once the
    groups' means lie beyond opposite bounds every simulated release is
    clipped, so the difference of the sums cannot tell ``delta`` from a larger
    one; the set is then unbounded on that side (valid, uninformative): the
    reason the joint statistic is the default.

    References
    ----------
    Awan, J. and Wang, Z. (2024). Simulation-based, finite-sample inference for
    privatized data. Journal of the American Statistical Association;
    arXiv:2303.05328.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean2_repro_test
    >>> gen = np.random.default_rng(5)
    >>> releaser = MeanReleaser(1.0, 80.0, 180.0)
    >>> treated = releaser.release(gen.normal(125.0, 15.0, 100), rng=6)
    >>> control = releaser.release(gen.normal(135.0, 15.0, 100), rng=7)
    >>> res = mean2_repro_test(treated, control, sigma=15.0)
    >>> print(res.conf_int)
    95 percent confidence interval: [-23.741863, -4.491389]
    >>> round(res.pvalue, 4), res.n_sim
    (0.006, 1999)
    """
    d1, d2, margin, model = two_releases(release1, release2, margin, model, "mean2_repro_test")
    if model != "normal":
        raise ValueError(f"`model` must be 'normal' for the two-group repro-samples test; got {model!r}. "
                         "Use mean2_jimi_test (method='jimi') for the log-normal model.")
    if sigma is None:
        raise ValueError("`sigma` is needed for the two-group repro-samples test (the known standard "
                         "deviation, one or a pair); with an unknown spread use mean2_jimi_test (method='jimi').")
    s1, s2 = check_sigmas(sigma, d1, d2, model)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    statistic = _check_choice(statistic, "statistic", ("joint", "difference"))
    n_sim = (1999 if statistic == "joint" else 399) if n_sim is None else n_sim
    n_sim = max(check_draws(n_sim, d1.n), check_draws(n_sim, d2.n))
    if statistic == "difference":  # the nuisance lattice's cost; the joint statistic costs each group's roots
        check_repro_cost(n_sim, (d1.n, d2.n), "mean2_repro_test", "(two groups, statistic='difference')")
    composition, epsilon, _ = composed(composition, (d1.rec, d2.rec))
    progress = _check_progress(progress)
    workers = check_workers(workers)
    if statistic == "joint":
        return _joint_result(d1, d2, s1, s2, margin, alternative, confidence_level, n_sim, rng, composition,
                             epsilon, workers)
    gen, derived = _stream(rng, "mean2_repro", d1.release.value, d1.n, d1.release.epsilon, d1.lower, d1.upper,
                           list(d1.release.split or ()), d2.release.value, d2.n, d2.release.epsilon, d2.lower,
                           d2.upper, list(d2.release.split or ()), s1, s2, model, n_sim)
    two = TwoGroups(d1, d2, draw_seeds(d1, d2, s1, s2, n_sim, gen))
    alpha = 1.0 - confidence_level
    span = two.qhi - two.qlo + 3
    with start(progress, 2 * span + 4, "mean2_repro_test: differences") as bar:
        pieces = confidence_set(two, alpha, alternative, bar)
        bar.step("p-value at margin")  # the last stage is named, not left showing 99% of the sweep
        bar.reach(2 * span + 3)
        bound, best = two.supremum(margin, alternative)
        bar.reach(2 * span + 4)
    conf_int, shape = describe_pieces(pieces, "every difference is rejected (the model does not fit the releases)",
                                      confidence_level)
    sup = ("the p-value is the supremum over mu2 itself" if bound == best else
           f"the p-value is a certified upper bound of the supremum over mu2 (best value found {best:.4g}; "
           "conservative, valid)")
    stream = ("from a stream derived from the releases (reproducible; pass rng= for another)" if derived
              else "from the given rng")

    def pvalue_function(value):
        values = np.atleast_1d(np.asarray(value, dtype=float))
        out = np.array([two.supremum(float(v), alternative)[0] for v in values.reshape(-1)]).reshape(values.shape)
        return float(out[0]) if np.ndim(value) == 0 else out

    return HTestResult(
        statistic=float(d1.sum) / d1.n - float(d2.sum) / d2.n, pvalue=bound, null_value=margin,
        alternative=alternative, method="Repro-samples test of two clipped means (normal model, sigma known)",
        estimate=None, conf_int=conf_int,
        epsilon=epsilon, delta=0.0, composition=composition,
        data_name=d1.data_name("x") + "; " + d2.data_name("y"), statistic_name="difference of clipped means",
        estimate_name="difference in means", null_name="difference in means", mechanism=d1.rec.mechanism,
        n_sim=n_sim, pvalue_function=pvalue_function,
        note=(f"Repro samples: R = {n_sim} seeds {stream}, the same seeds for every (difference, mu2); the "
              f"p-value and set are valid in finite samples with the Monte Carlo error included; {sup}; {shape} "
              f"(certified on boxes: a finite end may be up to {two.h / 2**_STEPS:.4g} too far out, no piece is "
              "missed)"),
        **provenance(d1.rec, d2.rec))


def _joint_result(d1, d2, s1, s2, margin, alternative, confidence_level, n_sim, rng, composition, epsilon,
                  workers=None):
    """``statistic='joint'``: each group's roots, the Sidak rectangle's exact supremum and set (:mod:`._joint`)."""
    gen, derived = _stream(rng, "mean2_repro_joint", d1.release.value, d1.n, d1.release.epsilon, d1.lower,
                           d1.upper, list(d1.release.split or ()), d2.release.value, d2.n, d2.release.epsilon,
                           d2.lower, d2.upper, list(d2.release.split or ()), s1, s2, n_sim)
    roots1, roots2 = joint_roots(d1, d2, s1, s2, n_sim, gen, workers)
    bounds = differences(roots1, roots2, alternative)
    low, high = joint_set(bounds, n_sim, 1.0 - confidence_level, alternative)
    stream = ("from a stream derived from the releases (reproducible; pass rng= for another)" if derived
              else "from the given rng")
    shape = ("every difference is rejected (the model does not fit the releases)" if math.isnan(low)
             else "the acceptance set is one interval")

    def pvalue_function(value):
        out = joint_pvalues(bounds, n_sim, value, alternative)
        return float(out) if np.ndim(out) == 0 else out

    return HTestResult(
        statistic=float(d1.sum) / d1.n - float(d2.sum) / d2.n, pvalue=pvalue_function(margin), null_value=margin,
        alternative=alternative,
        method="Repro-samples test of two clipped means (normal model, sigma known, joint statistic)",
        estimate=joint_estimate(roots1, roots2), conf_int=ConfidenceInterval(low, high, confidence_level),
        epsilon=epsilon, delta=0.0, composition=composition,
        data_name=d1.data_name("x") + "; " + d2.data_name("y"), statistic_name="difference of clipped means",
        estimate_name="difference in means", null_name="difference in means", mechanism=d1.rec.mechanism,
        n_sim=n_sim, pvalue_function=pvalue_function,
        note=(f"Repro samples: R = {n_sim} seeds per group {stream}; the pair of released sums ranked by the "
              "smaller of the two groups' rank p-values (Sidak-combined: 1 - (1 - min)^2), the p-value the "
              "supremum over mu2 computed exactly from the seeds' roots; valid in finite samples with the Monte "
              f"Carlo error included; {shape}; the estimate is the difference of the groups' seed-median roots"),
        **provenance(d1.rec, d2.rec))
