"""Exact DP-UMP inference for a binomial proportion from a Tulap release.

A count ``X ~ Binomial(n, theta)`` released as ``Z = X + N``, ``N ~ Tulap(0, b, q)``
with ``b = exp(-epsilon)`` and ``q = 2 delta b / (1 - b + 2 delta b)`` (Awan &
Slavkovic 2018), is (epsilon, delta)-DP.  This module gives the exact p-values,
confidence intervals, test functions, power and sample size of the tests of
Awan & Slavkovic (2018, 2020), each as a finite sum computed in log space with a
cost that does not grow with ``n`` (see ``_ump_kernels``).

Two-sided tests (Awan & Slavkovic 2020, Section on two-sided tests).  The
UMP-unbiased (UMPU) test has test function ``phi(x) = F(|x - k| - s)`` with
``E_p0[phi(X)] = alpha`` and ``E_p0[(X - n p0) phi(X)] = 0``.  It is a randomised
decision about the confidential count ``x``: ``phi(x)`` equals ``P(Z >= k + s)`` for
``x >= k`` but ``P(Z <= k - s)`` for ``x < k``, so the rejection probability depends
on which side of ``k`` the *unreleased* ``x`` lies, and it is not the rejection
probability of any region of ``Z`` of the form ``|Z - k| >= s`` (that test has
``phi(x) = F(x - k - s) + F(k - s - x)``).  A data curator can run it (release the
decision ``1{N <= |x - k| - s}``, itself epsilon-DP because ``|x - k|`` has
sensitivity 1), but an analyst who holds only ``Z`` cannot.  From a released ``Z`` we
therefore report, as Awan & Slavkovic (2020) do, the *asymptotically unbiased*
p-value ``P_p0(|X + N - n p0| >= |Z - n p0|)``, a post-processing of ``Z`` with exact
size.  The UMPU test is available as a decision rule (:func:`binom_ump_phi`) and for
power and sample-size planning (:func:`binom_ump_power`, :func:`binom_ump_sample_size`).

Count sensitivity ``k > 1`` (``sensitivity=k``; a person may move the count by up to
``k``).  The model stays ``X ~ Binomial(n, theta)``; the release is
``Z = X + N`` with the Tulap law of ``(epsilon / k, delta_1)`` that
:class:`~dpinfer.TulapReleaser` uses (its Notes give the privacy proof and compare
OpenDP's scaled law).  Every function here then computes exactly as for ``k = 1``
with that unit law (``_unit_privacy``) in place of ``(epsilon, delta)``, on the
release grid of the same public numbers: the sums, sizes and coverages stay exact
for the law actually released.  A Release carries ``k``; given again, it must agree.
"""

from __future__ import annotations

import numpy as np
from .._validation import (
    _as_probability_array,
    _as_real_array,
    _check_alpha,
    _check_alternative,
    _check_choice,
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_probability,
    _scalar_or_array,
)
from ..distributions._tulap_grid import _tulap_grid, _unit_privacy
from ..distributions.tulap import Tulap, _log_tails
from ..releasers.release import Release
from ..releasers.tulap import _check_sensitivity
from ..results import ConfidenceInterval, HTestResult
from ._release_args import _release_first
from ._ump_intervals import _ci_array
from ._ump_kernels import (
    _brentq,
    _find_bracket,
    _noise_sd,
    _normal_quantile,
    _critical_greater,
    _log_expect_umpu,
    _log_pvalue,
    _log_pvalue_greater,
    _log_pvalue_less,
    _log_sum_greater,
    _umpu_parameters,
)

__all__ = [
    "binom_ump_ci",
    "binom_ump_phi",
    "binom_ump_power",
    "binom_ump_sample_size",
    "binom_ump_test",
]

_TWO_SIDED_TEST_METHODS = ("asymptotically-unbiased", "equal-tailed")
_TWO_SIDED_POWER_METHODS = ("umpu", "asymptotically-unbiased", "equal-tailed")
_MAX_SAMPLE_SIZE = 10**12
_PHI_ARRAY_LIMIT = 10**7
_MIN_EPSILON = 1e-4


# -- argument handling ---------------------------------------------------------------------

def _noise(epsilon, delta, n=None):
    """(log_b, q) of the Tulap law that the releaser uses for (epsilon, delta).

    With ``n`` the truncated mass is the one actually released at that ``n`` (the
    support end rounded out to the release grid, see
    :mod:`dpinfer.distributions._tulap_grid`); without it, the continuous law's.
    The two differ only when ``delta > 0``, by less than one grid cell's mass.
    """
    if epsilon < _MIN_EPSILON:
        # the exact sums span about 40 / epsilon counts of x around z
        raise ValueError(f"`epsilon` must be at least {_MIN_EPSILON:g} (per unit of count, i.e. "
                         "epsilon / sensitivity) for the exact DP-UMP sums (their window spans about "
                         f"40 / epsilon counts); got {epsilon!r} per unit.")
    if n is not None:
        grid = _release_grid(n, epsilon, delta)
        if grid is not None:
            return -epsilon, grid.q
    law = Tulap.from_privacy(epsilon, delta)
    return -epsilon, law.q


def _release_grid(n, epsilon, delta):
    """The grid law TulapReleaser uses at these public numbers, or None where it cannot release."""
    try:
        return _tulap_grid(n, epsilon, delta)
    except ValueError:  # no release of ours has these numbers: the law is the continuous one
        return None


def _half_step(n, epsilon, delta):
    """Half the release grid's step (0.0 where TulapReleaser cannot release at these numbers)."""
    grid = _release_grid(n, epsilon, delta)
    return 0.0 if grid is None else grid.step / 2.0


def _cell_log_pvalue(z, n, p0, log_b, q, half, alternative, method):
    """log p-value of a grid release ``z``: the largest continuous one over ``[z - half, z + half]``.

    One-sided it is the exact tail of the grid law, ``P(Z >= z)`` (``P(Z <= z)``);
    two-sided, ``z`` moves towards ``n p0`` by ``min(half, |z - n p0|)``.
    See :mod:`dpinfer.distributions._tulap_grid`.
    """
    if alternative == "greater":
        return _log_pvalue_greater(z - half, n, p0, log_b, q)
    if alternative == "less":
        return _log_pvalue_less(z + half, n, p0, log_b, q)
    if method == "equal-tailed":
        lg = _log_pvalue_greater(z - half, n, p0, log_b, q)
        ll = _log_pvalue_less(z + half, n, p0, log_b, q)
        return np.minimum(np.log(2.0) + np.minimum(lg, ll), 0.0)
    gap = z - n * np.asarray(p0, float)
    return _log_pvalue(z - np.sign(gap) * np.minimum(half, np.abs(gap)), n, p0, log_b, q,
                       alternative, method)


def _cell_ci(flat, n, log_b, q, half, confidence_level, alternative, method):
    """The union over each release's grid cell of the continuous intervals.

    Both ends are monotone in z, so the union is the lower end at ``z - half`` and
    the upper end at ``z + half``: one interval's cost (``_ci_array``'s ``z_high``).
    """
    return _ci_array(flat - half, n, log_b, q, confidence_level, alternative, method,
                     z_high=flat + half)


def _resolve_release(z, n, epsilon, delta, sensitivity=None):
    """Return (z array, n, epsilon, delta, sensitivity) from a Release or the explicit numbers."""
    if sensitivity is not None:
        sensitivity = _check_sensitivity(sensitivity)
    if isinstance(z, Release):
        given = [name for name, value in (("n", n), ("epsilon", epsilon), ("delta", delta))
                 if value is not None]
        if given:
            raise ValueError(
                f"`{given[0]}` must not be given when `z` is a Release: it comes from the "
                f"release (got {given[0]}={dict(n=n, epsilon=epsilon, delta=delta)[given[0]]!r})."
            )
        if z.mechanism != "tulap" or z.kind != "count":
            raise ValueError(
                "`z` must be a Tulap release of a count (TulapReleaser); got a release with "
                f"mechanism {z.mechanism!r} and kind {z.kind!r}."
            )
        k = _check_sensitivity(z.sensitivity)
        if sensitivity is not None and sensitivity != k:
            raise ValueError(f"`sensitivity` = {sensitivity} conflicts with the release's sensitivity "
                             f"{k}; leave `sensitivity` out to use the release's.")
        return _as_real_array(z.value, "z"), int(z.n), float(z.epsilon), float(z.delta), k
    if n is None:
        raise TypeError("`n` is required when `z` is a number (or pass a Release as `z`).")
    if epsilon is None:
        raise TypeError("`epsilon` is required when `z` is a number (or pass a Release as `z`).")
    z_arr = _as_real_array(z, "z")
    n = _check_int(n, "n", minimum=1)
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(0.0 if delta is None else delta)
    return z_arr, n, epsilon, delta, 1 if sensitivity is None else sensitivity


def _sensitivity_text(sensitivity):
    """The method-name suffix that records a count sensitivity other than 1."""
    return "" if sensitivity == 1 else f", sensitivity {sensitivity}"


def _check_two_sided_method(method, allowed, name="two_sided_method"):
    hint = ""
    if isinstance(method, str) and method == "umpu":
        hint = (" The UMPU test is a randomised decision about the unreleased count, not "
                "a function of the release Z (see the Notes); use binom_ump_phi or "
                "binom_ump_power for it.")
    return _check_choice(method, name, allowed, hint=hint)


# -- public functions ----------------------------------------------------------------------

@_release_first(("z",), skip=("n",))
def binom_ump_test(z, n=None, p0=0.5, *, epsilon=None, delta=None, alternative="two-sided",
                   confidence_level=0.95, two_sided_method="asymptotically-unbiased",
                   sensitivity=None):
    """Exact DP-UMP test for a binomial proportion from a Tulap-noised count.

    Parameters
    ----------
    z : float, array_like or Release
        The released value ``Z = X + N`` (or many of them).  A :class:`~dpinfer.Release`
        from :class:`~dpinfer.TulapReleaser` carries ``n``, ``epsilon`` and ``delta``,
        which must then not be given.
    n : int
        Number of trials (public), >= 1.  Required unless ``z`` is a Release.
    p0 : float, default 0.5
        Null proportion, in (0, 1).
    epsilon : float
        Privacy-loss parameter of the release.  Required unless ``z`` is a Release.
    delta : float, default 0.0
        Approximate-DP slack of the release (sets the Tulap truncation).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95
        Level of the interval returned in ``conf_int`` (scalar input only).
    two_sided_method : {'asymptotically-unbiased', 'equal-tailed'}
        Two-sided p-value: ``P_p0(|X + N - n p0| >= |z - n p0|)`` (Awan & Slavkovic
        2020; default) or ``min(1, 2 min(p_less, p_greater))``.
    sensitivity : int, default 1
        Count sensitivity ``k`` of the release (the most one person moves the count;
        see :class:`~dpinfer.TulapReleaser`).  Taken from a Release; given together
        with one, it must agree.

    Returns
    -------
    HTestResult or ndarray
        For a scalar ``z``: ``statistic`` (z, named 'Z'), ``parameter`` (n, 'number of
        trials'), ``pvalue``, ``null_value`` (p0),
        ``alternative``, ``method``, ``estimate`` (z / n clipped to [0, 1]), ``conf_int``
        (:func:`binom_ump_ci` with the same alternative), ``epsilon``, ``delta``,
        ``data_name``, ``mechanism`` ('Tulap').  For an array ``z``: the array of p-values
        (same shape).

    Raises
    ------
    TypeError
        If ``n`` or ``epsilon`` is missing, or an argument has the wrong type.
    ValueError
        For an invalid value, for ``n``/``epsilon``/``delta`` given together with a
        Release, or a release that is not a Tulap count.

    See Also
    --------
    binom_ump_ci, binom_ump_power, binom_ump_phi, dpinfer.TulapReleaser

    Notes
    -----
    One-sided p-values (Awan & Slavkovic 2018, Thm. 4.5): ``greater``:
    ``sum_x Binom(x; n, p0) F(x - z) = P_p0(X + N >= z)``; ``less``:
    ``sum_x Binom(x; n, p0) F(z - x)``; F the Tulap(0, b, q) cdf.  Both are summed directly
    in log space (never as ``1 - sum``), so tiny p-values keep full relative accuracy down
    to about 1e-290 (below that the binomial tails from ``scipy.special.betainc``
    underflow and the relative error grows, e.g. 1.6e-6 at 1e-292); the cost does not grow with ``n`` (``n = 1e9`` takes about a
    millisecond).  They are the UMP epsilon-DP (or (epsilon, delta)-DP) tests.

    **Sensitivity k > 1.**  The sums above use the Tulap law of ``epsilon / k`` (and the
    per-unit ``delta_1``) that :class:`~dpinfer.TulapReleaser` releases for a count of
    sensitivity ``k``; size and coverage stay exact for that law (checked against mpmath,
    ``tests/reference/make_ump_sensitivity.py``).  The UMP property among
    epsilon-DP tests is proved by Awan & Slavkovic (2018) for ``k = 1`` only.

    **The law actually released.**  :class:`~dpinfer.TulapReleaser` releases on a
    dyadic grid of step ``h`` fixed by the public ``n``, ``epsilon`` and ``delta``
    (``h = 2**-40`` for n up to a few thousand at ``epsilon = 1``; see
    :mod:`dpinfer.distributions._tulap_grid`), and these p-values are exact for that
    law: a release ``z`` stands for the cell ``[z - h/2, z + h/2]``, the one-sided
    p-values are the grid law's tails ``P(Z >= z)`` and ``P(Z <= z)`` (the sums above at
    ``z -/+ h/2``), and a two-sided p-value is the largest over the cell.  Rejecting
    when the p-value is at most alpha has size in ``[alpha - h, alpha]``; the
    randomised UMP test (:func:`binom_ump_power`, :func:`binom_ump_phi`) has size
    exactly alpha.  A value from elsewhere (a continuous Tulap release) is analysed
    conservatively by the same rule.

    The default two-sided p-value is the asymptotically unbiased one of Awan &
    Slavkovic (2020), ``P_p0(X + N >= n p0 + t) + P_p0(X + N <= n p0 - t)`` with
    ``t = |z - n p0|``; it has exact size alpha and is a post-processing of Z.  The
    UMP-unbiased test is not a function of Z (see the module notes) and is offered by
    :func:`binom_ump_phi` and :func:`binom_ump_power` instead.

    Checked against 40-digit mpmath sums (``tests/reference/make_ump.py``): relative error
    below 1e-12 over n in {1, ..., 1e5}, p0 in {0.05, ..., 0.9}, epsilon in {0.05, ..., 10},
    delta in {0, 1e-6, 0.01}.  The sums span about 40 / epsilon counts around ``z``, so
    ``epsilon`` below 1e-4 is refused (ValueError).

    References
    ----------
    .. [1] Awan, J. and Slavkovic, A. (2018). Differentially private uniformly most
       powerful tests for binomial data. NeurIPS 31.
    .. [2] Awan, J. and Slavkovic, A. (2020). Differentially private inference for
       binomial data. Journal of Privacy and Confidentiality 10(1).

    Examples
    --------
    >>> from dpinfer import binom_ump_test
    >>> res = binom_ump_test(11.2, 30, p0=0.2, epsilon=1.0, alternative='greater')
    >>> round(res.pvalue, 4)
    0.0276
    >>> round(res.conf_int.low, 4)
    0.2229
    >>> binom_ump_test([3.0, 11.2], 30, p0=0.2, epsilon=1.0).round(4)
    array([0.2434, 0.0464])

    A count one person can move by up to 2 (``TulapReleaser(1.0, sensitivity=2)``) carries
    the noise of epsilon / 2, and the same value is weaker evidence:

    >>> res = binom_ump_test(11.2, 30, p0=0.2, epsilon=1.0, alternative='greater', sensitivity=2)
    >>> round(res.pvalue, 4), res.method
    (0.0687, 'DP-UMP test for a binomial proportion (Tulap release, sensitivity 2)')
    """
    z_arr, n, epsilon, delta, sensitivity = _resolve_release(z, n, epsilon, delta, sensitivity)
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    two_sided_method = _check_two_sided_method(two_sided_method, _TWO_SIDED_TEST_METHODS)
    unit_epsilon, unit_delta = _unit_privacy(epsilon, delta, sensitivity)
    log_b, q = _noise(unit_epsilon, unit_delta, n)
    half = _half_step(n, unit_epsilon, unit_delta)
    log_p = _cell_log_pvalue(z_arr, n, p0, log_b, q, half, alternative, two_sided_method)
    pvalue = np.clip(np.exp(log_p), 0.0, 1.0)
    if z_arr.ndim > 0:
        return pvalue
    z_val = float(z_arr)
    ci = _cell_ci(z_arr.reshape(1), n, log_b, q, half, confidence_level, alternative,
                  two_sided_method)[0]
    if alternative == "two-sided":
        method = {"asymptotically-unbiased": "Asymptotically unbiased DP test for a binomial "
                                             "proportion (Tulap)",
                  "equal-tailed": "Equal-tailed DP-UMP test for a binomial proportion (Tulap)",
                  }[two_sided_method]
    else:
        method = "DP-UMP test for a binomial proportion (Tulap release)"
    if sensitivity != 1:
        method = method[:-1] + _sensitivity_text(sensitivity) + ")"
    return HTestResult(
        statistic=z_val,
        pvalue=float(pvalue),
        null_value=p0,
        alternative=alternative,
        method=method,
        estimate=float(np.clip(z_val / n, 0.0, 1.0)),
        estimate_raw=z_val / n,
        conf_int=ConfidenceInterval(float(ci[0]), float(ci[1]), confidence_level),
        epsilon=epsilon,
        delta=delta,
        data_name=f"Z = {z_val:.7g}, n = {n}",
        statistic_name="Z",
        parameter=n,
        parameter_name="number of trials",
        mechanism="tulap",
        note=_hull_note(z_val, n, alternative, two_sided_method),
    )


def _hull_note(z, n, alternative, two_sided_method):
    """The printed note of a two-sided interval for a release outside [0, n] (a hull)."""
    if alternative != "two-sided" or two_sided_method != "asymptotically-unbiased" or 0.0 <= z <= n:
        return ""
    return (f"the release lies outside [0, n] = [0, {n}]: the interval is the hull of the "
            "accepted proportions and the estimate clip(Z / n, 0, 1), so it holds every "
            "proportion the test accepts.")


@_release_first(("z",), skip=("n",))
def binom_ump_ci(z, n=None, *, epsilon=None, delta=None, confidence_level=0.95,
                 alternative="two-sided", two_sided_method="asymptotically-unbiased",
                 sensitivity=None):
    """Exact confidence interval for a binomial proportion from a Tulap-noised count.

    The interval is the set of theta not rejected by the matching test: all theta whose
    p-value (:func:`binom_ump_test`) exceeds ``1 - confidence_level``.

    Parameters
    ----------
    z : float, array_like or Release
        Released value(s) ``Z = X + N``; a Tulap Release supplies n, epsilon and delta.
    n : int
        Number of trials, >= 1 (unless ``z`` is a Release).
    epsilon : float
        Privacy-loss parameter (unless ``z`` is a Release).
    delta : float, default 0.0
    confidence_level : float, default 0.95
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        'greater' gives ``[low, 1]`` (a lower confidence bound), 'less' gives ``[0, high]``.
    two_sided_method : {'asymptotically-unbiased', 'equal-tailed'}
        Which two-sided test is inverted; 'equal-tailed' intersects the two one-sided
        intervals at level ``1 - (1 - confidence_level) / 2``.
    sensitivity : int, default 1
        Count sensitivity ``k`` of the release (the most one person moves the count;
        see :class:`~dpinfer.TulapReleaser`).  Taken from a Release; given together
        with one, it must agree.

    Returns
    -------
    ConfidenceInterval or ndarray
        For a scalar ``z``, ``ConfidenceInterval(low, high, level)``; for an array, an
        array of shape ``z.shape + (2,)`` holding ``[low, high]``.

    Raises
    ------
    TypeError, ValueError
        As :func:`binom_ump_test`.

    See Also
    --------
    binom_ump_test

    Notes
    -----
    A release stands for its grid cell ``[z - h/2, z + h/2]`` (see :func:`binom_ump_test`):
    the interval is the union of the intervals over the cell, i.e. the lower end at
    ``z - h/2`` and the upper end at ``z + h/2``, so its coverage under the released
    grid law is at least that of the continuous intervals.

    One-sided p-values are monotone in theta (the binomial family is stochastically
    increasing), so each end point is the unique root of ``p(theta) = 1 - level``, found
    by a vectorised Illinois (modified false position) search on theta comparing log
    p-values, to rounding (or until the p-value equals the level to 1e-14), with all ends
    of all releases in one search.  This is correct where the p-value is flat
    (large ``n``; ``z`` far outside [0, n]) and at ``n = 1``.  The one-sided intervals have
    exact coverage ``confidence_level`` for every theta (checked as a finite sum in the
    tests) and are the uniformly most accurate DP intervals (Awan & Slavkovic 2020).

    The two-sided interval is the smallest interval holding every theta whose
    (asymptotically unbiased) p-value exceeds ``1 - confidence_level`` and the estimate
    ``clip(z / n, 0, 1)``.  For ``z`` in [0, n] the p-value is 1 at ``theta = z / n`` and
    falls on each side, and the interval is the plain inversion of the test.  For a
    release below 0 or above ``n`` the p-value is *not* largest at the edge and can have
    several peaks in theta (``n = 1``, ``z = 2``, ``epsilon = 3`` accepts theta in
    (0.7905, 0.9994) but rejects theta = 1, because ``P(|N| >= 1) < 0.05``).  The accepted
    set is then located on a grid of theta next to the nearest edge, over a width (in
    counts) that a Chernoff bound proves sufficient whatever ``n`` is (below
    ``2.5 log(40 / (1 - level)) / min(epsilon, 1)`` counts, e.g. 11 counts at level 0.95
    and ``epsilon >= 1``; a release too far out accepts nothing and costs nothing), at every
    kink of the p-value and with each near-level local peak maximised, so no accepted piece
    is stepped over; its far end is refined by bisection.  Keeping the
    estimate in the interval (here [0.7905, 1]) makes it never empty, nested in the
    level and monotone in ``z``; it adds only a sliver next to the edge, so the coverage is
    at least ``confidence_level`` (the accepted set alone has exactly that).  Checked
    against plain full sums on dense theta grids for 5200 random releases and against
    40-digit mpmath references (``tests/reference/make_ump.py``).

    References
    ----------
    .. [1] Awan, J. and Slavkovic, A. (2020). Differentially private inference for
       binomial data. Journal of Privacy and Confidentiality 10(1).

    Examples
    --------
    >>> from dpinfer import binom_ump_ci
    >>> ci = binom_ump_ci(11.2, 30, epsilon=1.0)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.2023, 0.5729)
    >>> binom_ump_ci([-40.0, 70.0], 30, epsilon=1.0, alternative='greater').round(4)
    array([[0., 1.],
           [1., 1.]])
    """
    z_arr, n, epsilon, delta, sensitivity = _resolve_release(z, n, epsilon, delta, sensitivity)
    confidence_level = _check_confidence_level(confidence_level)
    alternative = _check_alternative(alternative)
    two_sided_method = _check_two_sided_method(two_sided_method, _TWO_SIDED_TEST_METHODS)
    epsilon, delta = _unit_privacy(epsilon, delta, sensitivity)
    log_b, q = _noise(epsilon, delta, n)
    flat = z_arr.reshape(-1)
    out = _cell_ci(flat, n, log_b, q, _half_step(n, epsilon, delta), confidence_level, alternative,
                   two_sided_method)
    if z_arr.ndim == 0:
        return ConfidenceInterval(float(out[0, 0]), float(out[0, 1]), confidence_level)
    return out.reshape(z_arr.shape + (2,))


def _check_power_args(n, p0, epsilon, delta, alpha, alternative, two_sided_method, sensitivity=1):
    """Validated arguments, with ``(epsilon, delta)`` replaced by the unit law's (``_unit_privacy``)."""
    n = _check_int(n, "n", minimum=1)
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    alpha = _check_alpha(alpha)
    alternative = _check_alternative(alternative)
    two_sided_method = _check_two_sided_method(two_sided_method, _TWO_SIDED_POWER_METHODS)
    epsilon, delta = _unit_privacy(epsilon, delta, _check_sensitivity(sensitivity))
    return n, p0, epsilon, delta, alpha, alternative, two_sided_method


def _ndtri(p):
    from scipy.special import ndtri

    return float(ndtri(p))


def _normal_sample_size(theta1, p0, log_b, alpha, power, alternative):
    """n from the normal approximation n |theta1 - p0| = z_a sd0(n) + z_b sd1(n), with
    sd^2 = n theta (1 - theta) + Var(N) (a starting point for the exact search)."""
    z_a = _normal_quantile(alpha / 2.0 if alternative == "two-sided" else alpha)
    z_b = _normal_quantile(1.0 - power)  # = Phi^-1(power)
    var_n = _noise_sd(log_b) ** 2
    gap = abs(theta1 - p0)
    n = 1.0
    for _ in range(60):  # fixed point; converges fast since the noise term is fixed
        sd0 = np.sqrt(n * p0 * (1.0 - p0) + var_n)
        sd1 = np.sqrt(n * theta1 * (1.0 - theta1) + var_n)
        new = max((z_a * sd0 + z_b * sd1) / gap, 1.0)
        if abs(new - n) < 0.5:
            n = new
            break
        n = new
    return int(min(max(np.ceil(n), 1), _MAX_SAMPLE_SIZE))


def _sample_size_bracket(pw, start, power):
    """(lo, hi) with pw(hi) >= power and (lo == 0 or pw(lo) < power), from ``start`` by
    steps of 10% growing geometrically."""
    hi = start
    if pw(hi) >= power:
        step = max(hi // 10, 1)
        lo = hi - step
        while lo >= 1 and pw(lo) >= power:
            hi = lo
            step *= 2
            lo = hi - step
        return max(lo, 0), hi
    lo = hi
    step = max(hi // 10, 1)
    while True:
        if lo >= _MAX_SAMPLE_SIZE:
            raise ValueError(f"the target power {power} is not reached for n <= {_MAX_SAMPLE_SIZE}; "
                             "check theta1, epsilon and power.")
        hi = min(lo + step, _MAX_SAMPLE_SIZE)
        if pw(hi) >= power:
            return lo, hi
        lo = hi
        step *= 2


class _Rule:
    """The test function of one of the DP tests, with its exact rejection probability."""

    def __init__(self, n, p0, log_b, q, alpha, alternative, method):
        self.n, self.log_b, self.q = n, log_b, q
        self.kind = alternative if alternative != "two-sided" else method
        if self.kind == "greater":
            self.m = _critical_greater(n, p0, log_b, q, alpha)
        elif self.kind == "less":
            # phi(x) = F(m - x); by reflection x -> n - x it is a 'greater' test at 1 - p0.
            self.m = n - _critical_greater(n, 1.0 - p0, log_b, q, alpha)
        elif self.kind == "equal-tailed":
            self.m_hi = _critical_greater(n, p0, log_b, q, alpha / 2.0)
            self.m_lo = n - _critical_greater(n, 1.0 - p0, log_b, q, alpha / 2.0)
        elif self.kind == "asymptotically-unbiased":
            self.t = self._threshold_two_sided(n, p0, log_b, q, alpha)
            self.centre = n * p0
        else:
            self.k, self.s = _umpu_parameters(n, p0, log_b, q, alpha)

    @staticmethod
    def _threshold_two_sided(n, p0, log_b, q, alpha):
        log_alpha = np.log(alpha)
        centre = n * p0

        def f(t):
            # P(X + N >= centre + t) + P(X + N <= centre - t): both tails in one kernel call
            lp = _log_pvalue(np.array([centre + t]), n, p0, log_b, q, "two-sided")
            return max(float(lp[0]) - log_alpha, -1e3)

        # bracket from the normal approximation t ~ z_(alpha/2) sd, expanded geometrically;
        # t to 1e-13 sd moves the size by about 1e-14 (the density of X + N is below 1 / sd)
        sd = np.sqrt(n * p0 * (1.0 - p0) + _noise_sd(log_b) ** 2)
        lo, hi = _find_bracket(f, _normal_quantile(alpha / 2.0) * sd, max(0.05 * sd, 1.0))
        return _brentq(f, max(lo, 0.0), hi, xtol=1e-13 * max(1.0, sd), rtol=1e-15, maxiter=500)

    def log_power(self, theta):
        n, log_b, q = self.n, self.log_b, self.q
        if self.kind == "greater":
            return _log_sum_greater(self.m, n, theta, log_b, q)
        if self.kind == "less":
            return _log_pvalue_less(self.m, n, theta, log_b, q)
        if self.kind == "equal-tailed":
            with np.errstate(divide="ignore"):
                return np.logaddexp(_log_sum_greater(self.m_hi, n, theta, log_b, q),
                                    _log_pvalue_less(self.m_lo, n, theta, log_b, q))
        if self.kind == "asymptotically-unbiased":
            with np.errstate(divide="ignore"):
                return np.logaddexp(
                    _log_sum_greater(self.centre + self.t, n, theta, log_b, q),
                    _log_pvalue_less(self.centre - self.t, n, theta, log_b, q))
        return _log_expect_umpu(n, theta, self.k, self.s, log_b, q)

    def phi(self, x):
        log_b, q = self.log_b, self.q
        if self.kind == "greater":
            return np.exp(_log_tails(x - self.m, log_b, q)[0])
        if self.kind == "less":
            return np.exp(_log_tails(self.m - x, log_b, q)[0])
        if self.kind == "equal-tailed":
            return np.minimum(np.exp(_log_tails(x - self.m_hi, log_b, q)[0])
                              + np.exp(_log_tails(self.m_lo - x, log_b, q)[0]), 1.0)
        if self.kind == "asymptotically-unbiased":
            return np.minimum(np.exp(_log_tails(x - self.centre - self.t, log_b, q)[0])
                              + np.exp(_log_tails(self.centre - self.t - x, log_b, q)[0]), 1.0)
        return np.exp(_log_tails(np.abs(x - self.k) - self.s, log_b, q)[0])


def binom_ump_power(theta, n, p0, *, epsilon, delta=0.0, alpha=0.05, alternative="greater",
                    two_sided_method="asymptotically-unbiased", sensitivity=1):
    """Exact power of the DP-UMP tests (a finite sum), vectorised over theta.

    Parameters
    ----------
    theta : float or array_like
        True proportion(s) in [0, 1].
    n : int
        Number of trials, >= 1.
    p0 : float
        Null proportion in (0, 1).
    epsilon : float
    delta : float, default 0.0
    alpha : float, default 0.05
        Significance level.
    alternative : {'greater', 'less', 'two-sided'}, default 'greater'
    two_sided_method : {'umpu', 'asymptotically-unbiased', 'equal-tailed'}, default 'asymptotically-unbiased'
        The default is the test :func:`binom_ump_test` runs from a release, so power
        and sample size describe the analysis that will be done.  Which two-sided test: the UMP-unbiased test ``phi(x) = F(|x - k| - s)`` (a
        decision about the count, see :func:`binom_ump_phi`), the test that rejects when
        the asymptotically unbiased p-value of :func:`binom_ump_test` is at most alpha,
        or the equal-tailed test (``2 min(p_less, p_greater) <= alpha``).
    sensitivity : int, default 1
        Count sensitivity ``k`` of the release the test will analyse (see
        :class:`~dpinfer.TulapReleaser`): the power is that of the Tulap law of
        ``epsilon / k``.

    Returns
    -------
    float or ndarray
        ``E_theta[phi(X)]``; at ``theta = p0`` this is the size, alpha.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments (each named in the message).

    See Also
    --------
    binom_ump_phi, binom_ump_sample_size, binom_ump_test

    Notes
    -----
    One-sided: ``phi(x) = F(x - m)`` ('greater') with ``m`` solving
    ``E_p0[phi(X)] = alpha`` (Brent's method on log size, to about 1e-13 in ``m``), and
    power ``sum_x Binom(x; n, theta) phi(x)`` by the same windowed log-space sum as the
    p-values, so ``n = 1e9`` works.  The size at ``theta = p0`` is alpha to 1e-12.
    UMPU: ``(k, s)`` solve ``E_p0[phi] = alpha`` and ``E_p0[(X - n p0) phi] = 0`` (nested
    Brent searches, to about 1e-12; the second constraint is evaluated through
    ``x Binom(x; n, p) = n p Binom(x - 1; n - 1, p)``).  binomialDP's ``UMPU`` solves the
    same equations only to R's ``uniroot`` default tolerance (~1e-4).

    References
    ----------
    .. [1] Awan, J. and Slavkovic, A. (2020). Differentially private inference for
       binomial data. Journal of Privacy and Confidentiality 10(1).

    Examples
    --------
    >>> from dpinfer import binom_ump_power
    >>> round(binom_ump_power(0.2, 30, 0.2, epsilon=1.0), 10)
    0.05
    >>> binom_ump_power([0.4, 0.6], 30, 0.2, epsilon=1.0).round(4)
    array([0.7053, 0.9932])
    """
    n, p0, epsilon, delta, alpha, alternative, two_sided_method = _check_power_args(
        n, p0, epsilon, delta, alpha, alternative, two_sided_method, sensitivity)
    theta = _as_probability_array(theta, "theta")
    log_b, q = _noise(epsilon, delta, n)
    rule = _Rule(n, p0, log_b, q, alpha, alternative, two_sided_method)
    return _scalar_or_array(np.clip(np.exp(rule.log_power(theta)), 0.0, 1.0))


def binom_ump_phi(n, p0, *, epsilon, delta=0.0, alpha=0.05, alternative="greater",
                  two_sided_method="asymptotically-unbiased", x=None, sensitivity=1):
    """The test function phi(x): the probability that the DP test rejects given count x.

    Parameters
    ----------
    n : int
        Number of trials, >= 1.
    p0 : float
        Null proportion in (0, 1).
    epsilon : float
    delta : float, default 0.0
    alpha : float, default 0.05
    alternative : {'greater', 'less', 'two-sided'}, default 'greater'
    two_sided_method : {'umpu', 'asymptotically-unbiased', 'equal-tailed'}, default 'asymptotically-unbiased'
        See :func:`binom_ump_power`; 'umpu' gives ``phi(x) = F(|x - k| - s)``.
    x : array_like of int, optional
        Counts at which to evaluate phi; default ``0, 1, ..., n`` (only for
        ``n <= 1e7``; give ``x`` for larger ``n``).
    sensitivity : int, default 1
        Count sensitivity ``k``: phi is built on the Tulap law of ``epsilon / k``, so
        the decision ``1{N' <= x - m}`` is epsilon-DP for counts up to ``k`` apart.

    Returns
    -------
    ndarray
        ``phi(x)``: 'greater' ``F(x - m)``; 'less' ``F(m - x)``; two-sided as chosen.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments; ``x`` outside [0, n] or not whole.

    See Also
    --------
    binom_ump_power, binom_ump_test

    Notes
    -----
    ``E_p0[phi(X)] = alpha`` exactly (to about 1e-12).  A curator holding ``x`` runs the
    test with privacy by releasing only the decision ``1{N' <= x - m}`` (one-sided) or
    ``1{N' <= |x - k| - s}`` (UMPU), ``N'`` fresh Tulap noise: both are epsilon-DP
    because the statistics have sensitivity 1.  For the one-sided tests this is the same
    decision as comparing the p-value of a release ``Z = x + N`` with alpha.

    Examples
    --------
    >>> from dpinfer import binom_ump_phi
    >>> phi = binom_ump_phi(10, 0.5, epsilon=1.0)
    >>> phi.shape, bool(phi[10] > phi[0])
    ((11,), True)
    """
    n, p0, epsilon, delta, alpha, alternative, two_sided_method = _check_power_args(
        n, p0, epsilon, delta, alpha, alternative, two_sided_method, sensitivity)
    if x is None:
        if n > _PHI_ARRAY_LIMIT:
            raise ValueError(f"`x` must be given when `n` > {_PHI_ARRAY_LIMIT}; got n={n}.")
        x_arr = np.arange(n + 1, dtype=float)
    else:
        from .._validation import _check_counts

        x_arr = _check_counts(x, n).astype(float)
    log_b, q = _noise(epsilon, delta, n)
    rule = _Rule(n, p0, log_b, q, alpha, alternative, two_sided_method)
    return np.asarray(rule.phi(x_arr), dtype=float)


def binom_ump_sample_size(theta1, p0, *, epsilon, delta=0.0, alpha=0.05, power=0.8,
                          alternative="greater", two_sided_method="asymptotically-unbiased",
                          sensitivity=1):
    """Smallest number of trials n for which the DP-UMP test reaches the target power.

    Parameters
    ----------
    theta1 : float
        The proportion under which the power is required; must lie on the alternative
        side of ``p0`` (above it for 'greater', below for 'less', different for two-sided).
    p0 : float
        Null proportion in (0, 1).
    epsilon : float
    delta : float, default 0.0
    alpha : float, default 0.05
    power : float, default 0.8
        Target power in (alpha, 1).
    alternative : {'greater', 'less', 'two-sided'}, default 'greater'
    two_sided_method : {'umpu', 'asymptotically-unbiased', 'equal-tailed'}, default 'asymptotically-unbiased'
    sensitivity : int, default 1
        Count sensitivity ``k`` of the planned release (Tulap law of ``epsilon / k``).

    Returns
    -------
    int
        The smallest ``n >= 1`` with ``binom_ump_power(theta1, n, ...) >= power``.

    Raises
    ------
    ValueError
        If ``theta1`` is not on the alternative side, ``power <= alpha``, or the target is
        not reached for any n up to 1e12.

    See Also
    --------
    binom_ump_power

    Notes
    -----
    For the one-sided DP-UMP tests the power at fixed theta1 is nondecreasing in n: the
    test at n that ignores one record is an epsilon-DP level-alpha test at n + 1, and the
    UMP test at n + 1 is at least as powerful as it (the same argument holds for UMPU among
    unbiased tests).  The search starts from the normal-approximation n
    (``n |theta1 - p0| = z_a sd0 + z_b sd1`` with the Tulap variance in both sds), brackets
    the answer by steps of 10% growing geometrically, then takes false-position (Illinois)
    steps on the probit of the exact power against sqrt(n), with bisection as a safeguard;
    typically five exact power evaluations.  The answer is checked at the end
    (power(n) >= target > power(n - 1)).  For the
    asymptotically unbiased and equal-tailed two-sided tests monotonicity is not proved;
    the same search returns an n that reaches the target and whose predecessor does not.

    Examples
    --------
    >>> from dpinfer import binom_ump_sample_size, binom_ump_power
    >>> n = binom_ump_sample_size(0.4, 0.2, epsilon=1.0)
    >>> n
    38
    >>> bool(binom_ump_power(0.4, n, 0.2, epsilon=1.0) >= 0.8 > binom_ump_power(0.4, n - 1, 0.2, epsilon=1.0))
    True
    """
    from .._validation import _check_real

    theta1 = _check_probability(theta1, "theta1")
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    alpha = _check_alpha(alpha)
    power = _check_real(power, "power")
    if not (alpha < power < 1.0):
        raise ValueError(f"`power` must lie strictly between `alpha` = {alpha} and 1; got {power!r}.")
    alternative = _check_alternative(alternative)
    two_sided_method = _check_two_sided_method(two_sided_method, _TWO_SIDED_POWER_METHODS)
    wrong_side = ((alternative == "greater" and theta1 <= p0)
                  or (alternative == "less" and theta1 >= p0)
                  or (alternative == "two-sided" and theta1 == p0))
    if wrong_side:
        rule = {"greater": "> p0", "less": "< p0", "two-sided": "!= p0"}[alternative]
        raise ValueError(f"`theta1` must be {rule} for alternative={alternative!r}; "
                         f"got theta1={theta1!r}, p0={p0!r}.")
    log_b, q = _noise(*_unit_privacy(epsilon, delta, _check_sensitivity(sensitivity)))

    def pw(n):
        rule = _Rule(n, p0, log_b, q, alpha, alternative, two_sided_method)
        return float(np.exp(rule.log_power(np.asarray(theta1))))

    cache = {}

    def pw_cached(n):
        if n not in cache:
            cache[n] = pw(n)
        return cache[n]

    lo, hi = _sample_size_bracket(pw_cached, _normal_sample_size(theta1, p0, log_b, alpha, power,
                                                                 alternative), power)
    # lo == 0 or pw(lo) < power <= pw(hi): Illinois (false position) steps on the probit of
    # the power against sqrt(n) (nearly linear there), and a bisection step after three
    # guesses that fail to halve the bracket
    target = _ndtri(power)
    def gauge(n):
        return _ndtri(min(max(pw_cached(n), 1e-300), 1 - 1e-16)) - target

    g_lo = gauge(lo) if lo > 0 else None
    g_hi = gauge(hi)
    side, stalls = 0, 0
    while hi - lo > 1:
        width = hi - lo
        mid = (lo + hi) // 2
        guessed = False
        if g_lo is not None and stalls < 3 and g_hi > g_lo:
            r_lo, r_hi = np.sqrt(lo), np.sqrt(hi)
            guess = (r_lo - g_lo * (r_hi - r_lo) / (g_hi - g_lo)) ** 2
            mid = int(min(max(np.ceil(guess), lo + 1), hi - 1))
            guessed = True
        if pw_cached(mid) >= power:
            hi, g_hi = mid, gauge(mid)
            if side == 1 and g_lo is not None:
                g_lo *= 0.5  # Illinois: the same end moved twice, halve the other's weight
            side = 1
        else:
            lo, g_lo = mid, gauge(mid)
            if side == -1:
                g_hi *= 0.5
            side = -1
        # three guesses running that fail to halve the bracket: bisect next
        stalls = stalls + 1 if guessed and (hi - lo) > 0.5 * width else 0
    # Final check (guards the search against any non-monotone step): step down while
    # the predecessor also reaches the target.
    while hi > 1 and pw_cached(hi - 1) >= power:
        hi -= 1
    return int(hi)
