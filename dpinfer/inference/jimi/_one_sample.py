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

import copy
import functools

import numpy as np

from ..._streams import _mc_note, _share_se, _stream
from ..._validation import _check_alternative, _check_confidence_level, _check_probability
from ..._warnings import ApproximationWarning, warn
from ..._workers import check_workers
from ...results import ConfidenceInterval, HTestResult
from ._common import (
    ACCEPTS,
    _check_jimi_n_sim,
    _curve,
    _data_name,
    _one_sample,
    _proportions,
    _pvalue,
    _stack,
    _tails,
)
from ._exact import _coverage_message, _size_message
from .._resolve import provenance, release_first, resolve

__all__ = ["binom_jimi_ci", "binom_jimi_test"]


@release_first(skip=("n",))
def binom_jimi_ci(pi_hat, n=None, *, epsilon=None, kind=None, confidence_level=0.95,
                  alternative="two-sided", n_sim=None, rng=None, workers=None):
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
        None (the default) derives the stream from the public release(s) and
        ``n_sim``: the same answer on every call (post-processing, no privacy cost).
    workers : None, int, callable or concurrent.futures.Executor, default None
        Where the draws run for an array of releases (a sweep; see :ref:`scale`): None
        (the default) draws serially from one stream, as earlier releases did; otherwise
        the releases are split into fixed blocks of 64, block ``i`` drawing from child
        ``i`` of a SeedSequence fixed by ``rng``, in this process (``1``), ``k`` local
        processes (``k``; ``-1`` all CPUs), a map-like callable ``workers(func,
        iterable)`` or an Executor (Dask: ``Client(...).get_executor()``).  Every
        ``workers`` other than None gives the same answer, bit for bit.  The exact limit
        (``n_sim=None``) draws nothing and ignores it.

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
    **Method.**  With ``scale = 1 / (epsilon n)``, draw ``L*_h ~ Laplace(0, scale)``, set
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
    ``0 <= t < 1`` and ``G(1) = 1``, where ``f`` is the Laplace(pi_hat, scale) density
    and ``I_t`` the regularised incomplete Beta function
    (:func:`scipy.special.betainc`).  The integral is split at the kink
    ``u = pi_hat``, at ``pi_hat +- scale (1, 2.5, 5, 9, 15, 24)`` (the Laplace mass
    beyond ``40 scale``, below 2e-18, is left out) and at seven points across the
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
    interval over the thetas inside it (the values the data do not rule out: a
    grid over the closed interval, ends included, that cannot miss a stretch of
    short coverage wider than ``1/(4n)`` or 1/256 of the interval; see
    ``dpinfer.inference._oc_warnings``): theta is outside the
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

    >>> binom_jimi_ci([-0.1125, 0.5125, 1.2125], 30, epsilon=1.0, n_sim=None).round(4)
    array([[0.    , 0.    ],
           [0.318 , 0.7046],
           [1.    , 1.    ]])
    """
    rec = resolve(pi_hat, n, epsilon=epsilon, kind=kind, accepts=ACCEPTS, method="binom_jimi_ci", name="pi_hat")
    pi_hat, n, epsilon, scalar = _proportions(rec, "pi_hat"), rec.n, rec.epsilon, rec.scalar
    confidence_level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    n_sim = _check_jimi_n_sim(n_sim)
    workers = check_workers(workers)
    # checked even when unused (exact limit): a bad seed is an error; None: derived from the release
    gen, _ = _stream(rng, "binom_jimi", pi_hat, n, epsilon, n_sim)
    tails = _tails(confidence_level, alternative)
    lo, hi, _ = _one_sample(pi_hat.ravel(), n, epsilon, tails, None, n_sim, gen, workers=workers)
    message = _coverage_message(lo, hi, n, epsilon, confidence_level, alternative)
    if message is not None:
        warn(message, ApproximationWarning)
    if scalar:
        return ConfidenceInterval(float(lo[0]), float(hi[0]), confidence_level)
    return _stack(lo, hi, pi_hat.shape)


def _one_sample_at(pi_hat, n, epsilon, tails, n_sim, workers, p0, gen):
    """:func:`_one_sample` at the null value ``p0`` (for the confidence curve).

    ``workers``: None (the serial stream) or 1, the blocked draws in this process, which
    are those of any ``workers`` the test ran with (the curve keeps no executor)."""
    return _one_sample(pi_hat, n, epsilon, tails, p0, n_sim, gen, workers=workers)


@release_first(skip=("n",))
def binom_jimi_test(pi_hat, n=None, p0=0.5, *, epsilon=None, kind=None, alternative="two-sided",
                    confidence_level=0.95, n_sim=None, rng=None, workers=None):
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
        Source of the draws (unused when ``n_sim`` is None); None derives the
        stream from the public release and ``n_sim``, as :func:`binom_jimi_ci`.
        With draws, the result's ``note`` states the stream and the Monte Carlo
        standard error of the p-value.
    workers : None, int, callable or concurrent.futures.Executor, default None
        As in :func:`binom_jimi_ci`.

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
    rec = resolve(pi_hat, n, epsilon=epsilon, kind=kind, accepts=ACCEPTS, method="binom_jimi_test",
                  name="pi_hat")
    pi_hat, n, epsilon, kind, scalar = _proportions(rec, "pi_hat"), rec.n, rec.epsilon, rec.kind, rec.scalar
    p0 = _check_probability(p0, "p0")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = _check_jimi_n_sim(n_sim)
    workers = check_workers(workers)
    # checked even when unused (exact limit): a bad seed is an error; None: derived from the release
    gen, derived = _stream(rng, "binom_jimi", pi_hat, n, epsilon, n_sim)
    message = _size_message(n, epsilon, p0, 1.0 - confidence_level, alternative)
    if message is not None:
        warn(message, ApproximationWarning)
    tails = _tails(confidence_level, alternative) if scalar else (None, None)
    start_gen = copy.deepcopy(gen)
    lo, hi, (le, ge) = _one_sample(pi_hat.ravel(), n, epsilon, tails, p0, n_sim, gen, workers=workers)
    pvalue = np.clip(_pvalue(le, ge, alternative), 0.0, 1.0)
    if not scalar:
        return pvalue.reshape(pi_hat.shape)
    value = float(rec.value)
    how = "exact limit" if n_sim is None else f"{n_sim} draws"
    note = ""
    if n_sim is not None:
        share = {"greater": le[0], "less": ge[0]}.get(alternative, min(le[0], ge[0]))
        note = _mc_note(n_sim, _share_se(share, n_sim, 1.0 if alternative != "two-sided" else 2.0), derived)
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
        mechanism=rec.mechanism,
        **provenance(rec),
        n_sim=n_sim,
        note=note,
        pvalue_function=functools.partial(_curve, functools.partial(_one_sample_at, pi_hat.ravel(), n, epsilon,
                                                                    tails, n_sim, None if workers is None else 1), start_gen,
                                            alternative),
    )
