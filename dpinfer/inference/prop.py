"""One entry point for a private proportion (or two arms), in the spirit of R's ``prop.test``.

:func:`prop_test` takes a :class:`~dpinfer.Release` and a method name and calls
the method's own test, after checking that the release was made by the mechanism
the method's mathematics assumes.  It adds no statistics of its own: its answer
is exactly the answer of :func:`~dpinfer.binom_ump_test`,
:func:`~dpinfer.binom_normal_test` or :func:`~dpinfer.binom_jimi_test` (for two
releases, of the two-arm test :mod:`._two_releases` routes them to).
"""

from __future__ import annotations

import importlib

import numpy as np

from .. import _mechanisms
from .._validation import (
    _EFFECTS,
    _check_alternative,
    _check_choice,
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_n_sim,
    _check_probability,
    _check_real,
    _kind_of,
    _show,
)
from ..releasers.release import Release
from ._resolve import mismatch_message, refuse_unreleased
from ._many_releases import _many_release_test
from ._two_releases import _two_release_test

__all__ = ["prop_test"]

#: method -> the module holding its declaration (:func:`dpinfer.inference._resolve.accepts`,
#: next to the method).  Imported on first use: the DP-JIMI and normal-approximation
#: packages load scipy.stats, which a DP-UMP answer does not need (start-up time, issue 28).
_DECLARED_IN = {"ump": ".ump._release_inference", "normal": ".normal._kernels", "jimi": ".jimi._common"}


def _accepts(method):
    """The declaration of ``method`` ('ump', 'normal' or 'jimi')."""
    return importlib.import_module(_DECLARED_IN[method], __package__).ACCEPTS


def _methods():
    """method -> (accepted (mechanism, kind) pairs, what to say in an error), from the declarations."""
    return {method: (set(_accepts(method).pairs), _accepts(method).what) for method in _DECLARED_IN}


_LOCAL_MECHANISMS = _mechanisms.LOCAL


def _check_method(method):
    """``method`` is one of 'ump', 'normal', 'jimi'."""
    return _check_choice(method, "method", tuple(_DECLARED_IN))


#: Default number of draws of a table test (that of independence_jimi_test and the command).
_TABLE_N_SIM = 10_000


def _table_test(release, p0, method, alternative, confidence_level, two_sided_method, n_sim, rng, workers=None):
    """prop_test on a Release of kind 'table': the test of independence (homogeneity)."""
    method = "jimi" if method is None else _check_choice(method, "method", ("jimi", "mc", "ump", "normal"))
    if method in ("ump", "normal"):
        raise ValueError(
            f"method={method!r} tests one proportion; a release of kind 'table' is tested for independence "
            "(homogeneity of proportions) with method='jimi' (DP-JIMI, the default) or method='mc' "
            "(Gaboardi et al. 2016).")
    def is_default(value, default):  # never compares arrays elementwise
        return value is default or (type(value) in (float, str) and value == default)

    ignored = [f"`{name}`={value!r}" if type(value) in (float, str) else f"`{name}` ({_show(value)})"
               for name, value, default in (
                   ("p0", p0, None), ("alternative", alternative, "two-sided"),
                   ("confidence_level", confidence_level, 0.95), ("two_sided_method", two_sided_method, None))
               if not is_default(value, default)]
    if ignored:
        raise ValueError(
            f"{', '.join(ignored)} do not apply to a table (a test of independence has no null proportion "
            "and no interval; large statistics are the evidence): leave them out.")
    from .table import independence_jimi_test, independence_mc_test

    test = independence_jimi_test if method == "jimi" else independence_mc_test
    return test(release, n_sim=_TABLE_N_SIM if n_sim is None else n_sim, rng=rng, workers=workers)


def _check_release_for_method(release, method):
    """Check that ``release`` is a scalar Release whose mechanism fits ``method``.

    Raises a ValueError that says what the method needs and which method fits the
    release instead, so that a mismatch is an explanation, never a wrong number.
    """
    if not isinstance(release, Release):
        raise TypeError(
            "`release` must be a dpinfer Release (from TulapReleaser or LaplaceReleaser); "
            f"got {type(release).__name__}. For bare numbers call binom_ump_test, "
            "binom_normal_test or binom_jimi_test with n and epsilon."
        )
    if not isinstance(release.value, float):
        raise ValueError(
            "`release` must hold one value for prop_test; got an array of shape "
            f"{release.value.shape}. For many releases call the method's function "
            "(e.g. binom_ump_test) on the array: it returns an array of p-values."
        )
    if (release.mechanism, release.kind) in _accepts(method).pairs:
        return release
    fits = [m for m, (acc, _) in _methods().items() if (release.mechanism, release.kind) in acc]
    if release.mechanism in _LOCAL_MECHANISMS:
        hint = " Local-DP reports need the local-DP estimators, not prop_test."
    elif fits:
        hint = " With prop_test: " + " or ".join(f"method={m!r}" for m in fits) + "."
    else:
        hint = ""
    why = {
        "ump": " The DP-UMP test inverts the Tulap law of the noise; any other noise "
               "gives p-values with the wrong size.",
        "normal": " The normal approximation uses the variance of Laplace noise on a proportion.",
        "jimi": " DP-JIMI re-simulates Laplace noise of the release's scale.",
    }[method]
    raise ValueError(mismatch_message("release", release, f"prop_test(method={method!r})", _accepts(method))
                     + why + hint)


def _paired_test(release, p0, method, alternative, confidence_level, two_sided_method, n_sim, rng, effect,
                 margin, statistic, workers=None):
    """A paired table (kind 'paired'): the exact McNemar test, as R users reach ``mcnemar.test``."""
    given = {"p0": p0, "two_sided_method": two_sided_method, "n_sim": n_sim, "rng": rng, "effect": effect,
             "statistic": statistic, "workers": workers}
    extra = [name for name, value in given.items() if value is not None]
    if extra or method not in (None, "ump"):
        what = f"method={method!r}" if method not in (None, "ump") else ", ".join(f"`{e}`" for e in extra)
        raise ValueError(f"a paired release (PairedTableReleaser) is tested by mcnemar_test, which takes "
                         f"`margin`, `alternative` and `confidence_level` only; got {what}.")
    from .pairs import mcnemar_test

    return mcnemar_test(release, margin=0.0 if margin is None else margin, alternative=alternative,
                        confidence_level=confidence_level)


def prop_test(release, p0=None, *, method=None, alternative="two-sided",
              confidence_level=0.95, two_sided_method=None, n_sim=None, rng=None,
              epsilon=None, delta=None, effect=None, margin=None, composition=None, statistic=None,
              pooled=None, workers=None):
    """Test a proportion from one private release, or compare two, like R's ``prop.test``.

    Dispatches to the test of ``method`` after checking that the release's
    mechanism is the one the method assumes.  Two releases (``prop_test(a, b)``,
    ``prop_test([a, b])``, or ``prop_test([z1, z2], [n1, n2], epsilon=...)`` as R's
    ``prop.test(c(x1, x2), c(n1, n2))``) are compared by the two-arm test that fits
    their mechanism: see **Two arms** below.  A released table (kind
    ``'table'``) is tested for independence, as R's ``prop.test`` tests the
    equality of k proportions from a k x 2 matrix and ``chisq.test`` a table.

    Parameters
    ----------
    release : Release, or a pair of Releases or of released values
        A pair: the two arms (see **Two arms**).  One released value: a
        Tulap-noised count for ``method='ump'``; a Laplace-noised proportion or count (:meth:`LaplaceReleaser.proportion
        <dpinfer.LaplaceReleaser.proportion>` or ``.count``) for ``'normal'``
        and ``'jimi'``.  ``n``, ``epsilon`` and ``delta`` come from it.  Or a
        Laplace-noised r x c table (kind ``'table'``, from
        :class:`~dpinfer.ContingencyTableReleaser`): see **Tables** below.
    p0 : float, Release, pair of int, or None, default None
        Null proportion, in [0, 1]; None means 0.5.  Not for a table.  A second
        Release here is the second arm (``prop_test(a, b)``); with two released
        values in ``release`` it is their sizes ``[n1, n2]``.
    method : {None, 'ump', 'normal', 'jimi', 'mc'}, default None
        None: ``'ump'`` for one released value, ``'jimi'`` for a table.
        ``'ump'``: the exact DP-UMP test (Awan & Slavkovic), see
        :func:`~dpinfer.binom_ump_test`.  ``'normal'``: the normal approximation
        of Vu & Slavkovic, see :func:`~dpinfer.binom_normal_test`.  ``'jimi'``:
        DP-JIMI fiducial matching, see :func:`~dpinfer.binom_jimi_test` (or,
        for a table, :func:`~dpinfer.independence_jimi_test`).  ``'mc'`` (tables
        only): the Monte Carlo test of Gaboardi et al. (2016),
        :func:`~dpinfer.independence_mc_test`.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        ``'greater'`` tests H0: theta <= p0 against H1: theta > p0.
    confidence_level : float, default 0.95
        Level of the interval returned in ``conf_int``.
    two_sided_method : {None, 'asymptotically-unbiased', 'equal-tailed'}
        DP-UMP only: the two-sided p-value (see :func:`~dpinfer.binom_ump_test`);
        None uses that function's default, the asymptotically unbiased p-value
        of Awan & Slavkovic (2020).
    n_sim : int or None, default None
        DP-JIMI only.  ``None`` (the default, as in binom_jimi_test and the
        command) computes the exact
        infinite-draw limit, with no Monte Carlo error; an integer draws that
        many fiducial samples, as the original method does.  For a table
        (no exact limit) ``None`` means 10 000 draws, the default of
        :func:`~dpinfer.independence_jimi_test` and of ``dpinfer test --table``.
    rng : None, int, SeedSequence or numpy.random.Generator
        DP-JIMI with an integer ``n_sim``, or a table: the generator of the draws.
        None derives a stream from the public release where the method draws
        by default (tables, two arms with DP-JIMI): the same answer on every call.
    epsilon, delta : float or pair, optional
        Two released values only (a Release carries its own): their privacy
        parameters, one value for both arms or a pair.
    effect : {None, 'difference', 'ratio', 'odds-ratio'}, optional
        Two arms: the effect tested (None: the risk difference), by the exact
        test (``method`` None or 'ump'); 'odds-ratio' for two Tulap arms.
    margin : float, optional
        Two arms: the null difference (default 0), ratio or odds ratio
        (default 1); with a one-sided ``alternative`` a non-inferiority or
        superiority margin.
    composition : {None, 'sequential', 'parallel'}, default None
        Two arms: how the result records the two releases' privacy, by the one
        rule of every method and door (:mod:`dpinfer._composition_rule`).  None
        reads the releases: ``'parallel'`` (the larger epsilon and delta) only
        when both record different groups of one budget's parallel set, i.e.
        they were released with ``budget=b.parallel(label).group(name)``
        (:attr:`Release.disjoint <dpinfer.Release.disjoint>`); otherwise
        ``'sequential'`` (the sums), which never understates what the two cost.
        ``'parallel'`` is your statement that typed values come from disjoint
        groups (refused when the releases record the same group);
        ``'sequential'`` is always allowed.  The same pair of releases gets the
        same privacy line from every ``method``.
    statistic : {None, 'difference', 'score'}, optional
        Two Tulap arms: the exact test's ordering (None: its default, the
        score; two Laplace arms, and arms beyond 4e6 lattice cells, are ordered
        by the difference, and the result's ``method`` says so; see
        :func:`~dpinfer.binom2_ump_test`).
    pooled : bool or None, optional
        Several sites (see **Sites and strata**): None pools a list of three or
        more releases and compares a list of two; True pools two; False refuses
        three or more.
    workers : None, int, callable or concurrent.futures.Executor, optional
        Where DP-JIMI's draws run (one or two arms) or a table test's (see
        :ref:`scale`), passed to the method: None (the default) the serial stream;
        refused by the exact and normal methods, which draw nothing.

    Returns
    -------
    HTestResult
        The method's result, unchanged: ``pvalue``, ``statistic``, ``estimate``,
        ``conf_int``, ``method``, ``epsilon``, ``delta``, ``mechanism`` and
        ``n_sim``.  For a table, the result of
        :func:`~dpinfer.independence_jimi_test` or
        :func:`~dpinfer.independence_mc_test`.

    Raises
    ------
    TypeError
        If ``release`` is not a :class:`~dpinfer.Release`, or an argument has the
        wrong type.
    ValueError
        If the release's mechanism does not fit ``method`` (a Laplace release
        given to the DP-UMP test, a Tulap release given to the normal
        approximation, ...), if the release holds an array, if ``n_sim`` or
        ``rng`` is given to a method that does not draw (or
        ``two_sided_method`` to a method other than 'ump'), or if an argument
        is out of range.  For a table: ``method`` 'ump' or 'normal' (they test
        one proportion), or ``p0``, ``alternative``, ``confidence_level``,
        ``two_sided_method`` given (a test of independence has none).

    See Also
    --------
    binom_ump_test, binom_normal_test, binom_jimi_test, independence_jimi_test, independence_mc_test
    binom2_ump_test, binom2_jimi_test, binom2_normal_test : the two-arm tests

    Notes
    -----
    Nothing is computed here: the p-value and interval are those of the method's
    own function called with the same arguments (checked in the test suite).
    The mechanism check matters because each method inverts a specific noise
    law.  A DP-UMP p-value computed from a Laplace release, or a normal
    approximation computed from a Tulap release, would be a number with no
    guaranteed size.

    Unlike R's ``prop.test`` there is no continuity correction and no
    chi-squared statistic; the name only borrows the workflow.

    **Two arms.**  Two Tulap counts, or two Laplace counts or proportions, get
    :func:`~dpinfer.binom2_ump_test`, the exact unconditional test for the law
    released (``method=None`` or ``'ump'``; ``effect``, ``margin`` and
    ``composition`` passed on).  For two Laplace releases ``method='jimi'``
    gives DP-JIMI (:func:`~dpinfer.binom2_jimi_test`, approximate size, 10 000
    draws per arm from a stream derived from the releases) and
    ``method='normal'`` :func:`~dpinfer.binom2_normal_test`.  Two released
    values with their sizes stand for Tulap counts (``'ump'``) or Laplace
    proportions (``'normal'``, ``'jimi'``).  A mixed pair (one Tulap, one
    Laplace) is refused.  The answer is the answer of that
    function called with the same arguments.

    **Sites and strata.**  A list of three or more Tulap releases
    (``prop_test([r1, r2, r3])``, or two with ``pooled=True``) is a set of sites
    sharing one proportion: :func:`~dpinfer.binom_pooled_test` against ``p0``.
    A list of pairs of releases (``prop_test([(a1, b1), (a2, b2), ...])``) is
    one stratum per pair, arm 1 first: :func:`~dpinfer.binom_strata_test`, the
    exact stratified test of a common risk difference ``margin`` (default 0),
    the private counterpart of R's ``mantelhaen.test``.  A list of two
    releases stays the two-arm comparison.
    **Paired tables.**  A :class:`~dpinfer.PairedTableReleaser` release (kind ``'paired'``)
    gets :func:`~dpinfer.mcnemar_test` (``margin``, ``alternative``, ``confidence_level``
    passed on), the exact private McNemar test.

    **Tables.**  In R, ``prop.test(m)`` with a k x 2 matrix of successes and
    failures tests that the k proportions are equal, and ``chisq.test(m)``
    tests independence of rows and columns in an r x c table: for a k x 2
    table the two null hypotheses are the same (homogeneity is independence
    of group and outcome).  ``prop_test(table_release)`` answers both with
    the private test of independence: DP-JIMI (``method=None`` or
    ``'jimi'``) or Gaboardi et al.'s Monte Carlo test (``'mc'``), with
    ``n_sim`` draws (10 000 by default) seeded by ``rng``.  Its answer is the
    answer of that function called with the same ``n_sim`` and ``rng``, and
    of ``dpinfer test --table`` / ``--release`` with ``--seed``.

    Examples
    --------
    >>> from dpinfer import TulapReleaser, LaplaceReleaser, prop_test
    >>> tulap = TulapReleaser(epsilon=1.0).release(11, 30, rng=2024)
    >>> res = prop_test(tulap, p0=0.2, alternative='greater')
    >>> res.mechanism.lower(), 0.0 <= res.pvalue <= 1.0
    ('tulap', True)
    >>> laplace = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=2024)
    >>> prop_test(laplace, p0=0.2, method='ump')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `release` is a Laplace release of kind 'proportion', which prop_test(method='ump') does not take: ... With prop_test: method='normal' or method='jimi'.

    Two arms, as ``prop.test(c(x1, x2), c(n1, n2))`` in R (two Tulap releases: the
    exact test):

    >>> rel = TulapReleaser(epsilon=1.0)
    >>> arm1, arm2 = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    >>> res = prop_test(arm1, arm2)
    >>> res.estimate_name, round(res.pvalue, 4)
    ('difference in proportions', 0.0162)
    >>> round(prop_test([arm1.value, arm2.value], [60, 60], epsilon=1.0).pvalue, 4)
    0.0162

    A released k x 2 table (arm x response) tests homogeneity, as ``prop.test(m)`` in R:

    >>> from dpinfer import ContingencyTableReleaser
    >>> table = ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3)
    >>> res = prop_test(table, n_sim=2000, rng=1)          # DP-JIMI test of independence
    >>> res.method, res.pvalue < 0.01
    ('DP-JIMI fiducial test of independence (2000 draws)', True)
    """
    effect = _check_choice(effect, "effect", _EFFECTS, optional=True)
    many = _many_release_test(release, p0, pooled=pooled, method=method, alternative=alternative,
                              confidence_level=confidence_level, margin=margin, effect=effect,
                              composition=composition, epsilon=epsilon, delta=delta, n_sim=n_sim, rng=rng,
                              two_sided_method=two_sided_method, statistic=statistic, workers=workers)
    if many is not None:
        return many
    two_arm = _two_release_test(release, p0, method=method, alternative=alternative,
                                confidence_level=confidence_level, two_sided_method=two_sided_method,
                                n_sim=n_sim, rng=rng, epsilon=epsilon, delta=delta, effect=effect,
                                margin=margin, composition=composition, statistic=statistic, workers=workers)
    if two_arm is not None:
        return two_arm
    if isinstance(release, Release) and release.kind == "paired":
        return _paired_test(release, p0, method, alternative, confidence_level, two_sided_method, n_sim, rng,
                            effect, margin, statistic, workers)
    if isinstance(release, Release) and release.kind == "table":
        return _table_test(release, p0, method, alternative, confidence_level, two_sided_method, n_sim, rng,
                           workers)
    if isinstance(method, str) and method == "mc":
        if not isinstance(release, Release):
            raise TypeError("`release` must be a dpinfer Release of kind 'table' (ContingencyTableReleaser) "
                            f"for method='mc'; got {_kind_of(release)}.")
        raise ValueError("method='mc' (Gaboardi et al.'s Monte Carlo test of independence) needs a "
                         "`release` of kind 'table' (ContingencyTableReleaser); got a release of kind "
                         f"{release.kind!r}.")
    defaulted = method is None
    method = _check_method("ump" if defaulted else method)
    p0 = 0.5 if p0 is None else p0
    try:
        release = _check_release_for_method(release, method)
    except ValueError as exc:
        if not defaulted:
            raise
        raise ValueError(f"`method` defaults to 'ump' for one released value, and {exc}") from None
    # the method's own rule, so that every out-of-range p0 is refused with one interval:
    # (0, 1) for the exact and normal tests, [0, 1] for DP-JIMI (which tests p0 = 0 or 1)
    p0 = _check_probability(p0, "p0", open_low=method != "jimi", open_high=method != "jimi")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    n_sim = _check_n_sim(n_sim)
    if method != "jimi" and (n_sim is not None or rng is not None or workers is not None):
        raise ValueError(
            f"`n_sim`, `rng` and `workers` apply to method='jimi' only (method={method!r} is "
            f"{'exact' if method == 'ump' else 'a closed-form approximation'} and draws nothing); "
            f"got n_sim={n_sim!r}, rng={_show(rng)}, workers={_show(workers)}."
        )
    if method != "ump" and two_sided_method is not None:
        raise ValueError(
            f"`two_sided_method` applies to method='ump' only; got two_sided_method="
            f"{two_sided_method!r} with method={method!r}."
        )
    common = dict(p0=p0, alternative=alternative, confidence_level=confidence_level)
    if method == "ump":
        from .ump import binom_ump_test

        if two_sided_method is not None:
            common["two_sided_method"] = two_sided_method
        return binom_ump_test(release, **common)
    if method == "normal":
        from .normal import binom_normal_test

        return binom_normal_test(release, **common)
    from .jimi import binom_jimi_test

    return binom_jimi_test(release, **common, n_sim=n_sim, rng=rng, workers=workers)


def _release_from_numbers(value, n, *, method, epsilon, delta=0.0, sensitivity=1):
    """A Release describing numbers typed by a user (the CLI's ``--z``).

    ``method='ump'`` reads ``value`` as a Tulap-noised count; the other methods as
    a Laplace-noised proportion.  A value no such release is (a whole count, a
    proportion ``k / n``) is refused as the resolver refuses it (named ``z``).
    """
    value = _check_real(value, "z")
    n = _check_int(n, "n", minimum=1)
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    if method != "ump" and delta != 0.0:
        raise ValueError(f"`delta` must be 0 for a Laplace release (method={method!r}); got {delta!r}.")
    mechanism, kind = (_mechanisms.TULAP, "count") if method == "ump" else (_mechanisms.LAPLACE, "proportion")
    refuse_unreleased(np.asarray(value), n, epsilon, mechanism, kind, "z")
    if method == "ump":
        return Release(value, mechanism, epsilon, delta, float(sensitivity), n, kind)
    return Release(value, mechanism, epsilon, 0.0, 1.0 / n, n, kind)
