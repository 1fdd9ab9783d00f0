"""Power and sample size of the naive test of a clipped mean (``mean_power``, ``mean_sample_size``).

Exact with ``sigma`` known (the release holds the sum alone): the test statistic is the released
clipped mean(s) minus the null over a fixed standard error, whose law (clipped normal data, Laplace
noise) is computed by :mod:`._law`.  With the spread released the standard error is itself noisy:
simulated through :class:`~dpinfer.MeanReleaser` (the law actually released) with its Monte Carlo
standard error stated.
"""

from __future__ import annotations

import math
import struct
from functools import partial

import numpy as np
from scipy import stats

from ..._validation import (
    _check_alpha,
    _check_alternative,
    _check_choice,
    _check_epsilon,
    _check_int,
    _check_n_sim,
    _check_positive,
    _check_probability,
    _check_real,
)
from ...results import PowerResult, SampleSizeResult, SampleSizesResult
from .._roots import integer_bracket, smallest_integer
from ._draw_power import JIMI_DATA_SETS, JIMI_DRAWS, exact_power, group_streams, released_blocks, simulated_power
from ._law import Group, clipped_moments, difference_cdf
from ._naive import naive_moments

__all__ = ["mean_power", "mean_sample_size"]

_N_MAX = 10**7
#: the exact path's numerical tolerance (Gil-Pelaez integral): above it, the power is simulated
_EXACT_TOL = 1e-8
_SIM_DEFAULT = 4000
_CHUNK = 500
#: the ratios of public scales (bounds' width to sigma, distances in sigma) the numerics hold
_SCALE_MIN, _SCALE_MAX = 1e-6, 1e6
#: the most values a simulated power draws (data sets times values per data set)
_MAX_VALUES = 4e8


def _pair(value, name, check):
    """A value for both groups or a pair (group 1, group 2), each checked."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (tuple, list, np.ndarray)):
        if len(value) != 2:
            raise ValueError(f"`{name}` must be one number or a pair (group 1, group 2); got {len(value)} values.")
        return tuple(check(v, name) for v in value)
    v = check(value, name)
    return (v, v)


def _question(mu1, mu2, mu0, margin, sigma, lower, upper, epsilon, alpha, alternative, method, spread, split):
    """The checked planning question (one record for both functions)."""
    if method == "repro":
        raise ValueError("`method` = 'repro' is not planned here: a repro-samples test takes seconds with the "
                         "spread released, and with sigma known its power is DP-JIMI's up to the grid's ties and "
                         "one draw (the same count of simulated releases beyond the observed one): plan with "
                         "method='jimi'; the study's coverage of each method is in docs/means.rst, 'Choosing the "
                         "bounds, epsilon and the method'.")
    method = _check_choice(method, "method", ("naive", "jimi"))
    mu1 = _check_real(mu1, "mu1")
    two = mu2 is not None
    if two and mu0 is not None:
        raise TypeError("`mu0` is the null mean of one group; with `mu2` (two groups) give `margin` "
                        f"(the null difference mu1 - mu2); got mu0 = {mu0!r}.")
    if not two and margin is not None:
        raise TypeError("`margin` is the null difference of two groups; for one group give `mu0`; "
                        f"got margin = {margin!r}.")
    mu2 = _check_real(mu2, "mu2") if two else None
    null = _check_real(0.0 if (margin if two else mu0) is None else (margin if two else mu0),
                       "margin" if two else "mu0")
    sigmas = _pair(sigma, "sigma", _check_positive)
    lower, upper = _check_real(lower, "lower"), _check_real(upper, "upper")
    if not lower < upper:
        raise ValueError(f"`lower` must be below `upper`; got lower = {lower!r}, upper = {upper!r}.")
    epsilons = _pair(epsilon, "epsilon", _check_epsilon)
    if not isinstance(spread, (bool, np.bool_)):
        raise TypeError(f"`spread` must be True or False; got {spread!r}.")
    split = _check_probability(split, "split", open_low=True, open_high=True)
    width = upper - lower
    for mu, sd in zip((mu1, mu1 if mu2 is None else mu2), sigmas):
        # the exact law's numerics work in sd units: refuse scales they cannot hold, from public numbers
        if not (math.isfinite(width) and _SCALE_MIN <= width / sd <= _SCALE_MAX
                and max(abs(lower - mu), abs(upper - mu), abs(null)) / sd <= _SCALE_MAX):
            raise ValueError(f"`sigma` must be between {_SCALE_MIN:g} and {_SCALE_MAX:g} times the bounds' width, and "
                             f"the means, the null and the bounds within {_SCALE_MAX:g} sigma of each other; got "
                             f"sigma = {sd!r}, lower = {lower!r}, upper = {upper!r}, mean {mu!r}.")
    return dict(mu1=mu1, mu2=mu2, null=null, sigma=sigmas, lower=lower, upper=upper, epsilon=epsilons,
                alpha=_check_alpha(alpha), alternative=_check_alternative(alternative), method=method,
                spread=bool(spread), split=split, two=two)


def _check_noise(q, ns):
    """The noise on a mean at most 1e6 sigma (epsilon n not vanishingly small against the bounds' width)."""
    width = q["upper"] - q["lower"]
    for i, n in enumerate(ns):
        lam = width / (q["epsilon"][i] * n)
        if not lam / q["sigma"][i] <= _SCALE_MAX:
            raise ValueError(f"`epsilon` = {q['epsilon'][i]!r} with n = {n} and bounds {width!r} apart puts noise of "
                             f"scale {lam:.3g} on the mean, over {_SCALE_MAX:g} sigma: no test has power there; "
                             "raise epsilon or narrow the bounds.")


def _groups(q, ns, noise=True):
    """The groups of the released difference at sample sizes ``ns`` (noise off: the same test without it)."""
    width = q["upper"] - q["lower"]
    mus = (q["mu1"], q["mu2"])
    k = 2 if q["two"] else 1
    return [Group(mus[i], q["sigma"][i], q["lower"], q["upper"], ns[i],
                  width / (q["epsilon"][i] * ns[i]) if noise else 0.0, 1.0 if i == 0 else -1.0) for i in range(k)]


def _cuts(q, ns, noise=True):
    """The naive test's rejection cut-offs on the released difference: (lower cut, upper cut), +-inf if absent."""
    width = q["upper"] - q["lower"]
    k = 2 if q["two"] else 1
    var = sum(q["sigma"][i] ** 2 / ns[i] + (2.0 * (width / (q["epsilon"][i] * ns[i])) ** 2 if noise else 0.0)
              for i in range(k))
    se = math.sqrt(var)
    alt, alpha = q["alternative"], q["alpha"]
    z = stats.norm.isf(alpha / 2.0 if alt == "two-sided" else alpha)
    lo = q["null"] - z * se if alt in ("two-sided", "less") else -math.inf
    hi = q["null"] + z * se if alt in ("two-sided", "greater") else math.inf
    return lo, hi


def _exact_power(q, ns, noise=True):
    """``(power, numerical error bound)`` of the naive test with sigma known; ``(None, inf)`` out of reach."""
    lo, hi = _cuts(q, ns, noise)
    points = [x for x in (lo, hi) if math.isfinite(x)]
    cdf, err = difference_cdf(points, _groups(q, ns, noise))
    if cdf is None or err > _EXACT_TOL:
        return None, math.inf
    values = dict(zip(points, cdf))
    power = (values[lo] if math.isfinite(lo) else 0.0) + (1.0 - values[hi] if math.isfinite(hi) else 0.0)
    return float(min(max(power, 0.0), 1.0)), len(points) * err


def _default_stream(q, ns):
    """A reproducible stream from the public question (None given: the same question, the same draws)."""
    numbers = [q["mu1"], q["mu2"] or 0.0, q["null"], *q["sigma"], q["lower"], q["upper"], *q["epsilon"],
               q["alpha"], q["split"], *ns]
    words = np.frombuffer(struct.pack(f"<{len(numbers)}d", *map(float, numbers)), dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([int(w) for w in words]))


def _simulated_power(q, ns, n_sim, gen):
    """``(power, Monte Carlo SE)``: data drawn N(mu, sigma), released by MeanReleaser, the naive test applied."""
    if sum(ns) * n_sim > _MAX_VALUES:
        raise ValueError(f"simulating {n_sim} data sets of n = {' and '.join(map(str, ns))} draws more than "
                         f"{_MAX_VALUES:g} values; give a smaller `n_sim`, or plan with sigma known "
                         "(spread=False, exact).")
    z = stats.norm.isf(q["alpha"] / 2.0 if q["alternative"] == "two-sided" else q["alpha"])
    rejected = 0
    for _, releases in released_blocks(q, ns, n_sim, group_streams(gen), _CHUNK):
        est, var = 0.0, 0.0
        for i, rel in enumerate(releases):
            mean, v = naive_moments(rel, None if q["spread"] else q["sigma"][i])
            est = est + (mean if i == 0 else -mean)
            var = var + v
        stat = (est - q["null"]) / np.sqrt(var)
        if q["alternative"] == "two-sided":
            rejected += int(np.sum(np.abs(stat) > z))
        elif q["alternative"] == "greater":
            rejected += int(np.sum(stat > z))
        else:
            rejected += int(np.sum(stat < -z))
    p = rejected / n_sim
    return p, math.sqrt(max(p * (1.0 - p), 0.25 / n_sim) / n_sim)


def _nonprivate_power(q, ns):
    """Power of the same z test without noise (sigma known, clipping kept): exact, or simulated when out of
    the exact path's reach (up to 200000 data sets, seeded from the question)."""
    power, _ = _exact_power(q, ns, noise=False)
    if power is not None:
        return power
    gen = _default_stream(q, ns)
    lo, hi = _cuts(q, ns, noise=False)
    k = 2 if q["two"] else 1
    mus = (q["mu1"], q["mu2"])
    hits, rows = 0, max(1, min(5000, int(_MAX_VALUES / 40 / sum(ns))))
    for _ in range(40):
        est = sum((1.0 if i == 0 else -1.0) * np.clip(gen.normal(mus[i], q["sigma"][i], (rows, ns[i])),
                                                       q["lower"], q["upper"]).mean(axis=1) for i in range(k))
        hits += int(np.sum((est < lo) | (est > hi)))
    return hits / (40 * rows)


def _normal_power(q, ns):
    """The textbook z test's power without noise or clipping (R's power.t.test with the normal quantile)."""
    k = 2 if q["two"] else 1
    se = math.sqrt(sum(q["sigma"][i] ** 2 / ns[i] for i in range(k)))
    shift = ((q["mu1"] - (q["mu2"] if q["two"] else 0.0)) - q["null"]) / se
    alt, alpha = q["alternative"], q["alpha"]
    z = stats.norm.isf(alpha / 2.0 if alt == "two-sided" else alpha)
    up = stats.norm.sf(z - shift) if alt in ("two-sided", "greater") else 0.0
    down = stats.norm.cdf(-z - shift) if alt in ("two-sided", "less") else 0.0
    return float(up + down)


def _simulates(q, n_sim):
    """Whether the power is simulated: asked for (``n_sim``), the spread released, or DP-JIMI's two groups."""
    return n_sim is not None or q["spread"] or (q["method"] == "jimi" and q["two"])


def _jimi_exact(q, ns, noise=True):
    """``(power, error bound)`` of DP-JIMI's one-group test with sigma known (:mod:`._draw_power`)."""
    return exact_power(q["mu1"], q["null"], q["sigma"][0], q["lower"], q["upper"], ns[0],
                       q["epsilon"][0] if noise else math.inf, q["alpha"], q["alternative"])


def _simulated(q, ns, n_sim, gen):
    """``(power, Monte Carlo SE)`` of the planned method, simulated from ``gen`` (one child stream per group)."""
    if q["method"] == "naive":
        return _simulated_power(q, ns, n_sim, gen)
    return simulated_power(q, ns, n_sim, group_streams(gen))


def _power_at(q, ns, n_sim, gen):
    """``(power, Monte Carlo SE or None)``: exact when sigma is known and no ``n_sim`` was asked for."""
    if not _simulates(q, n_sim):
        power, _ = _jimi_exact(q, ns) if q["method"] == "jimi" else _exact_power(q, ns)
        if power is not None:
            return power, None
    return _simulated(q, ns, n_sim or _draws_default(q), gen if gen is not None else _default_stream(q, ns))


def _draws_default(q):
    return JIMI_DATA_SETS if q["method"] == "jimi" else _SIM_DEFAULT


def _sizes(q, n, ratio=None):
    if q["two"]:
        if ratio is not None:
            return (n, int(math.ceil(ratio * n - 1e-12)))
        return n
    return (n,)


def _power_at_n(q, allocation, n, noise=True):
    """The exact power of the planned method at ``n`` (two groups: the second's ``ceil(n b / a)`` for
    ``allocation = (a, b)``, a power's groups, or ``ceil(ratio n)`` for a ratio, as the search allocates),
    with or without the noise; NaN where the exact law is out of reach (the planning result's curve,
    ``result.plot()``)."""
    n = _check_int(n, "n", minimum=2, maximum=_N_MAX)
    if not q["two"]:
        ns = (n,)
    elif isinstance(allocation, tuple):
        ns = (n, max(2, -(-n * allocation[1] // allocation[0])))
    else:
        ns = _sizes(q, n, allocation)
    try:
        power, _ = _jimi_exact(q, ns, noise) if q["method"] == "jimi" else _exact_power(q, ns, noise)
    except ValueError:  # out of the exact path's reach at this n (DP-JIMI's law)
        return math.nan
    return math.nan if power is None else power


def _result(cls, value, q, ns, power, se, n_sim, compute, ratio=None, target=None):
    """The power.htest record of a mean planning answer."""
    lines = {}
    if q["two"]:
        lines.update({"n": ns[0]} if ns[0] == ns[1] else {"n1": ns[0], "n2": ns[1]})
        lines.update({"mu1": q["mu1"], "mu2": q["mu2"], "margin": q["null"]})
    else:
        lines.update({"n": ns[0], "mu1": q["mu1"], "mu0": q["null"]})
    sd = q["sigma"] if q["two"] and q["sigma"][0] != q["sigma"][1] else q["sigma"][0]
    lines.update({"sd": " and ".join(f"{v:g}" for v in sd) if isinstance(sd, tuple) else sd,
                  "bounds": f"[{q['lower']:g}, {q['upper']:g}]", "sig.level": q["alpha"], "power": power})
    if se is not None:
        lines["Monte Carlo SE"] = se
    lines["alternative"] = {"two-sided": "two.sided"}.get(q["alternative"], q["alternative"])
    what = "power" if cls is PowerResult else "sample size"
    how = (f"simulated, {n_sim} data sets" if se is not None else "exact")
    if q["method"] == "jimi":
        groups = "two clipped means" if q["two"] else "a clipped mean"
        method = f"{what.capitalize()} of the DP-JIMI test of {groups} ({JIMI_DRAWS} draws; {how})"
    else:
        groups = "two-sample z test of clipped means" if q["two"] else "one-sample z test of a clipped mean"
        method = f"{what.capitalize()} of the naive {groups} ({how})"
    spread = "the spread released (plug-in sd)" if q["spread"] else "sigma known"
    note = (("n is number in *each* group; " if q["two"] and ns[0] == ns[1] else "")
            + f"data N(mu, sd^2) clipped to the bounds; {spread}")
    eps = q["epsilon"] if q["two"] and q["epsilon"][0] != q["epsilon"][1] else (q["epsilon"][0],)
    shown = " and ".join(f"{e:g}" for e in eps)
    split = f" (split {q['split']:g} to the sum)" if q["spread"] else ""
    privacy = (f"privacy: epsilon = {shown}{split}, delta = 0, Laplace mechanism (MeanReleaser), "
               + ("each group released once" if q["two"] else "released once"))
    fields = {"n1": ns[0], "n2": ns[1] if q["two"] else None, "mu1": q["mu1"], "mu2": q["mu2"],
              "null": q["null"], "sigma1": q["sigma"][0], "sigma2": q["sigma"][1] if q["two"] else None,
              "lower": q["lower"], "upper": q["upper"], "power": power,
              "exact_power": power if se is None else None,
              "mc_se": se, "n_sim": n_sim if se is not None else None, "alpha": q["alpha"],
              "alternative": q["alternative"], "epsilon": eps[0] if len(eps) == 1 else list(eps),
              "delta": 0.0, "mechanism": "laplace", "spread": q["spread"], "split": q["split"] if q["spread"] else None}
    if target is not None:  # a sample size: the power asked for (``power`` is the power reached)
        fields["target_power"] = target
    labels = (_same_label(q), "the z test without noise or clipping (normal)")
    # the exact power is cheap at any n; a simulated one is not redrawn for a figure (no curve)
    curve = None if se is not None else partial(_power_at_n, q, ratio if ratio is not None else tuple(ns))
    return cls._make(value)._setup(method, lines, fields, compute, note, labels, privacy, curve)


def _same_label(q):
    """What "the same test without noise" is: DP-JIMI's own for one group with sigma known (exact), else the
    z test without noise (for DP-JIMI with two groups or the spread released, a stand-in: said)."""
    if q["method"] == "jimi" and not q["two"] and not q["spread"]:
        return "the same DP-JIMI test without noise (clipping kept, epsilon = Inf)"
    if q["method"] == "jimi":
        return "the z test without noise (clipping kept, epsilon = Inf; DP-JIMI's stand-in)"
    return "the same z test without noise (clipping kept, epsilon = Inf)"


def _comparator_power(q, ns):
    """The power the comparator line prints: DP-JIMI's without noise where exact (see :func:`_same_label`)."""
    if q["method"] == "jimi" and not q["two"] and not q["spread"]:
        try:
            return _jimi_exact(q, ns, noise=False)[0]
        except ValueError:  # the noiseless law out of the exact path's reach: the z test without noise
            pass
    return _nonprivate_power(q, ns)


def _power_comparators(q, ns):
    return {"nonprivate_power": _comparator_power(q, ns), "normal_power": _normal_power(q, ns)}


def mean_power(mu1, n, *, mu2=None, mu0=None, margin=None, sigma, lower, upper, epsilon, alpha=0.05,
               alternative="two-sided", method="naive", spread=False, split=0.5, n_sim=None, rng=None):
    """Power of the private test of a mean (one group) or of two means, like R's ``power.t.test``.

    Parameters
    ----------
    mu1 : float
        The true mean the study is planned for (group 1).
    n : int or pair of int
        Number of values (one group), or per group; a pair ``(n1, n2)`` for unequal groups.
    mu2 : float, optional
        The second group's true mean: the test is then of ``mean_1 - mean_2 = margin``.
    mu0 : float, optional
        One group: the null mean (None: 0).
    margin : float, optional
        Two groups: the null difference ``mean_1 - mean_2`` (None: 0).
    sigma : float or pair of float
        The data's standard deviation (per group for a pair); the data are planned as
        ``N(mu, sigma**2)``, clipped to ``[lower, upper]`` by the release.
    lower, upper : float
        The clipping bounds the release will use (:class:`~dpinfer.MeanReleaser`).
    epsilon : float or pair of float
        Each group's release epsilon (with ``spread=True``, of the sum and squares together).
    alpha : float, default 0.05
        Significance level.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    method : {'naive', 'jimi'}, default 'naive'
        The test planned: ``'naive'``, :func:`~dpinfer.mean_naive_test` /
        :func:`~dpinfer.mean2_naive_test` (the normal test around the clipped mean); ``'jimi'``,
        :func:`~dpinfer.mean_jimi_test` / :func:`~dpinfer.mean2_jimi_test` with their default 2000
        draws (:func:`~dpinfer.mean_test`'s default method): exact for one group with ``sigma``
        known (see Notes), simulated otherwise (1000 data sets by default, each through the test's
        own kernel; two groups take seconds per ``n``).  ``'repro'`` is refused: with ``sigma``
        known its test counts the same simulated releases beyond the observed one as DP-JIMI's
        (plan it with ``'jimi'``), with the spread released one test takes seconds.
    spread : bool, default False
        False: the release holds the sum alone and the test is given ``sigma`` (the power is
        exact).  True: the spread is released too (``MeanReleaser(spread=True, split=split)``) and
        the test plugs it in: the power is simulated.
    split : float, default 0.5
        With ``spread=True``, the share of epsilon spent on the sum.
    n_sim : int, optional
        Data sets simulated (None: exact with ``spread=False``, 4000 with ``spread=True``); an
        integer with ``spread=False`` simulates too (a check on the exact value).
    rng : None, int, SeedSequence or numpy.random.Generator
        The simulation's stream (None: seeded from the question, so the same call gives the
        same answer).

    Returns
    -------
    PowerResult
        The power (a float), printing as R's ``power.htest`` with the power of the same z test
        without noise (clipping kept), the textbook z test's (no noise, no clipping) and the
        price of privacy; ``to_dict()`` holds ``mc_se`` (the Monte Carlo standard error,
        ``sqrt(p (1 - p) / n_sim)``, or None when exact).

    Raises
    ------
    TypeError, ValueError
        For an invalid argument (named in the message).

    See Also
    --------
    mean_sample_size, mean_naive_test, mean2_naive_test

    Notes
    -----
    The naive test rejects when ``|D - null| > z se`` (one-sided: one tail), ``D`` the released
    clipped mean (or difference of two), ``se**2 = sum sigma_k**2 / n_k + 2 lam_k**2`` and
    ``lam_k = (upper - lower) / (epsilon_k n_k)`` the Laplace scale on a mean.  With ``sigma`` known
    its law is the clipped normal mean plus Laplace noise, computed exactly from its characteristic
    function (Gil-Pelaez 1951; the clipped normal's transform through the Faddeeva function),
    numerically to 1e-8 or better: the power includes what clipping does (the clipped mean is not
    ``mu1``, so the size at ``mu1 = mu0`` can exceed ``alpha``).  The continuous Laplace law stands
    for the released discrete one, whose cdf is within ``epsilon 2**-(g+2)`` of it (``g`` >= 11,
    :class:`~dpinfer.MeanReleaser`).  Where the integral cannot reach 1e-8 (few values, most of
    them clipped) the power is simulated instead, and the print says so.  Simulated powers draw
    the data, release them through :class:`~dpinfer.MeanReleaser` (the law actually released)
    and apply the test's own formula.

    DP-JIMI with ``sigma`` known is a Monte Carlo test: its draw ``h`` falls at or below ``mu0``
    exactly when a release simulated at ``mu0`` is at or above the observed one, so given the
    release ``S`` the count is ``Binomial(H, V)``, ``V = P_mu0(T >= S)``, and the power is
    ``P(Binomial(H, V) <= c) = P(V < Q)``, ``Q ~ Beta(c + 1, H - c)``: one integral over ``Q``'s
    quantiles of the exact law's cdf at the null's quantiles (``dpinfer/inference/means/_draw_power.py``).
    At ``mu1 = mu0`` it is the test's exact size ``(c + 1) / (H + 1)`` (two-sided twice that).

    References
    ----------
    Gil-Pelaez, J. (1951). Note on the inversion theorem. *Biometrika* 38, 481-482.

    Examples
    --------
    >>> from dpinfer import mean_power
    >>> res = mean_power(128.0, 100, mu0=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0)
    >>> round(float(res), 4)
    0.9717
    """
    q = _question(mu1, mu2, mu0, margin, sigma, lower, upper, epsilon, alpha, alternative, method, spread, split)
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n[()]
    ns = _pair(n, "n", lambda v, name: _check_int(v, name, minimum=2, maximum=_N_MAX))
    ns = ns if q["two"] else (ns[0],)
    if not q["two"] and isinstance(n, (tuple, list, np.ndarray)):
        raise ValueError(f"`n` must be one number for one group; got a pair {tuple(n)!r} (give `mu2` for two).")
    _check_noise(q, ns)
    n_sim = _check_n_sim(n_sim)
    gen = None if rng is None else np.random.default_rng(rng)
    power, se = _power_at(q, ns, n_sim, gen)
    used = n_sim or (_draws_default(q) if se is not None else None)
    return _result(PowerResult, power, q, ns, power, se, used, partial(_power_comparators, q, ns))


def _normal_n(q, power, ratio):
    """The textbook z test's n without noise or clipping (real; per group for two, ``n2 = ratio n1``)."""
    alt, alpha = q["alternative"], q["alpha"]
    z = stats.norm.isf(alpha / 2.0 if alt == "two-sided" else alpha) + stats.norm.isf(1.0 - power)
    diff = (q["mu1"] - (q["mu2"] if q["two"] else 0.0)) - q["null"]
    var = q["sigma"][0] ** 2 + (q["sigma"][1] ** 2 / ratio if q["two"] else 0.0)
    n = var * (z / diff) ** 2
    return (n, ratio * n) if q["two"] else n


def _search(q, target, ratio, power_of, start=None):
    """The smallest n1 whose power reaches ``target`` (the power assumed to grow with n, checked at the end),
    the search starting at ``start`` (None: the textbook z test's n)."""
    cache = {}

    def at(n):
        if n not in cache:
            cache[n] = power_of(_sizes(q, n, ratio))
        return cache[n]

    def reaches(n):
        return n >= 2 and at(n) >= target

    def gauge(n):
        return float(stats.norm.ppf(min(max(at(n), 1e-12), 1 - 1e-12)) - stats.norm.ppf(target))

    if start is None:
        guess = _normal_n(q, target, ratio)
        start = max(2, int(math.ceil(guess[0] if q["two"] else guess)))
        first_step = None
    else:  # a start known to be close (the naive test's exact n for DP-JIMI's simulated search): small steps
        first_step = max(start // 50, 1)
    bracket = integer_bracket(reaches, min(start, _N_MAX), _N_MAX, first_step)
    if bracket is None:
        return None, cache
    return smallest_integer(reaches, gauge, *bracket), cache


def _size_comparators(q, target, ratio):
    def nonprivate(ns):
        return _comparator_power(q, ns)

    n, _ = _search(q, target, ratio, nonprivate)
    normal = _normal_n(q, target, ratio)
    if q["two"]:
        pair = _sizes(q, n, ratio) if n is not None else (None, None)
        return {"nonprivate_n1": pair[0], "nonprivate_n2": pair[1], "normal_n1": float(normal[0]),
                "normal_n2": float(normal[1])}
    return {"nonprivate_n": n, "normal_n": float(normal)}


def mean_sample_size(mu1, *, mu2=None, mu0=None, margin=None, power=0.8, ratio=1.0, sigma, lower, upper,
                     epsilon, alpha=0.05, alternative="two-sided", method="naive", spread=False, split=0.5,
                     n_sim=None, rng=None):
    """Smallest n for the private test of a mean (or of two means) to reach a power, like ``power.t.test``.

    Parameters
    ----------
    mu1, mu2, mu0, margin, sigma, lower, upper, epsilon, alpha, alternative, method, spread, split
        As in :func:`mean_power`.
    power : float, default 0.8
        Target power, in (alpha, 1).
    ratio : float, default 1
        Two groups: the allocation ``n2 / n1`` (``n2 = ceil(ratio n1)``).
    n_sim : int, optional
        Data sets simulated per ``n`` tried (None: exact with ``spread=False``; 4000 with
        ``spread=True``).
    rng : None, int, SeedSequence or numpy.random.Generator
        The simulation's stream (None: seeded from the question); every ``n`` tried reuses it
        (common random numbers, so that the simulated power is smooth in ``n``).

    Returns
    -------
    SampleSizeResult or SampleSizesResult
        One group: ``n`` (an int); two: ``(n1, n2)``.  Prints as R's ``power.htest`` with the
        power reached (``exact_power``, None when simulated: ``to_dict()["power"]`` and
        ``["mc_se"]`` then hold the estimate and its Monte Carlo SE), the ``n`` of the
        same z test without noise (clipping kept) and of the textbook z test (no noise, no
        clipping), and the price of privacy.

    Raises
    ------
    ValueError
        For an invalid argument; if ``mu1`` (the difference) is not on the alternative's side of the
        null, or no ``n`` up to 1e7 reaches the power (clipping can hold the clipped mean near the
        null whatever ``n``: choose wider bounds).

    See Also
    --------
    mean_power

    Notes
    -----
    The search assumes the power grows with ``n`` (it does for the exact law when the clipped
    mean lies on the alternative's side) and checks the answer's predecessor.  A simulated
    answer is the smallest ``n`` whose *estimated* power reaches the target: the true power there
    is within a few Monte Carlo SE of it (the print states the SE).

    Examples
    --------
    >>> from dpinfer import mean_sample_size
    >>> n = mean_sample_size(128.0, mu0=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0)
    >>> int(n)
    64
    """
    q = _question(mu1, mu2, mu0, margin, sigma, lower, upper, epsilon, alpha, alternative, method, spread, split)
    target = _check_probability(power, "power", open_low=True, open_high=True)
    if target <= q["alpha"]:
        raise ValueError(f"`power` must be above `alpha` (a test reaches alpha at the null); got power = "
                         f"{target!r} with alpha = {q['alpha']!r}.")
    ratio = _check_positive(ratio, "ratio")
    if not q["two"] and ratio != 1.0:
        raise ValueError(f"`ratio` applies to two groups (give `mu2`); got ratio = {ratio!r}.")
    diff = (q["mu1"] - (q["mu2"] if q["two"] else 0.0)) - q["null"]
    side = {"greater": diff > 0, "less": diff < 0, "two-sided": diff != 0}[q["alternative"]]
    if not side:
        what = "mu1 - mu2 - margin" if q["two"] else "mu1 - mu0"
        raise ValueError(f"the planned effect {what} = {diff!r} is not on the side of alternative = "
                         f"{q['alternative']!r}; no n gives the power asked for.")
    clipped_diff = sum((1.0 if i == 0 else -1.0) * clipped_moments((q["mu1"], q["mu2"])[i], q["sigma"][i],
                                                                    q["lower"], q["upper"])[0]
                       for i in range(2 if q["two"] else 1)) - q["null"]
    if not {"greater": clipped_diff > 0, "less": clipped_diff < 0, "two-sided": clipped_diff != 0}[q["alternative"]]:
        raise ValueError(f"no n up to {_N_MAX:g} per group reaches power {target!r}: with the bounds "
                         f"[{q['lower']:g}, {q['upper']:g}] the clipped mean(s) minus the null is {clipped_diff:.6g}, "
                         "not on the alternative's side, so the power does not grow with n; widen the bounds.")
    _check_noise(q, _sizes(q, _N_MAX, ratio) if q["two"] else (_N_MAX,))
    n_sim = _check_n_sim(n_sim)
    gen = None if rng is None else np.random.default_rng(rng)
    simulate = _simulates(q, n_sim)
    draws = n_sim or _draws_default(q)
    seed = gen.bit_generator.seed_seq if gen is not None else None
    state = {}

    def power_of(ns):
        if simulate:
            stream = np.random.default_rng(seed) if seed is not None else _default_stream(q, (0, 0))
            p, se = _simulated(q, ns, draws, stream)
        else:
            p, se = _jimi_exact(q, ns) if q["method"] == "jimi" else _exact_power(q, ns)
            if p is None:
                raise ValueError(f"the exact power is out of reach at n = {' and '.join(map(str, ns))} (the "
                                 "characteristic function's integral did not reach 1e-8); give `n_sim` to "
                                 "simulate the search.")
            se = None
        state[ns] = se
        return p

    start = None
    if simulate and q["method"] == "jimi":
        # DP-JIMI models what the naive test ignores but uses the same released statistics: the naive test's
        # exact n (sigma known; a fraction of a second) is close, so the simulated search starts there
        naive = dict(q, method="naive", spread=False)
        start, _ = _search(naive, target, ratio, lambda ns: _exact_power(naive, ns)[0] or 0.0)
    n, cache = _search(q, target, ratio, power_of, start)
    if n is None:
        raise ValueError(f"no n up to {_N_MAX:g} per group reaches power {target!r}: with the bounds "
                         f"[{q['lower']:g}, {q['upper']:g}] the clipped mean stays too near the null (or the "
                         "noise too large); widen the bounds or raise epsilon.")
    ns = _sizes(q, n, ratio)
    reached = cache[n]
    se = state.get(ns)
    cls = SampleSizesResult if q["two"] else SampleSizeResult
    value = ns if q["two"] else n
    return _result(cls, value, q, ns, reached, se, draws if se is not None else None,
                   partial(_size_comparators, q, target, ratio), ratio, target)
