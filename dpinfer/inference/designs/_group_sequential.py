"""``sequential_design``: the exact private two-arm group-sequential design and its object."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from ..._validation import (_check_alpha, _check_choice, _check_delta, _check_epsilon, _check_int,
                            _check_probability, _check_real, _show)
from . import _walk_law as _gs
from ._spending import SPENDING, spending_values

__all__ = ["sequential_design", "SequentialDesign", "SequentialCharacteristics"]

#: most looks a design may have
MAX_LOOKS = 6
#: largest arm (at the last look) the sample-size search may reach
MAX_N = 1000
#: bisection steps at most on the maximum sample size
_SEARCH_STEPS = 40

_SPENDING_TEXT = {"obrien-fleming": "Lan-DeMets O'Brien-Fleming type",
                  "pocock": "Lan-DeMets Pocock type"}


@dataclass(frozen=True)
class SequentialCharacteristics:
    """Exact operating characteristics of a :class:`SequentialDesign` at one pair of rates.

    Attributes
    ----------
    theta1, theta2 : float
        The rates they are computed at.
    reject : float
        Probability of stopping for efficacy at some look (the power, or the size when
        ``theta1 = theta2``).
    efficacy, futility : tuple of float
        Probability of stopping at each look for efficacy, for futility (the last look's
        non-rejection counts as futility; futility boundaries, if any, are followed).
    expected_n : float
        Expected total sample size (both arms).
    """

    theta1: float
    theta2: float
    reject: float
    efficacy: tuple
    futility: tuple
    expected_n: float

    def to_dict(self):
        """A flat JSON-safe dict."""
        return {"theta1": self.theta1, "theta2": self.theta2, "reject": self.reject,
                "efficacy": list(self.efficacy), "futility": list(self.futility),
                "expected_n": self.expected_n}

    def __str__(self):
        rows = "\n".join(f"  {k + 1:>4}  {e:>10.6f}  {f:>10.6f}"
                         for k, (e, f) in enumerate(zip(self.efficacy, self.futility)))
        return (f"Operating characteristics at theta1 = {self.theta1:g}, theta2 = {self.theta2:g}\n"
                f"  look    efficacy    futility\n{rows}\n"
                f"  P(reject H0) = {self.reject:.6f}; expected total n = {self.expected_n:.2f}")


@dataclass(frozen=True)
class SequentialDesign:
    """An exact private two-arm group-sequential design (the result of :func:`sequential_design`).

    Attributes
    ----------
    theta1, theta2 : float
        The rates the design is planned for (arm 1 experimental, arm 2 control).
    alternative : {'greater', 'less'}
        The one-sided alternative: ``theta1 > theta2`` when the planned ``theta1`` is larger.
    alpha, power : float
        One-sided significance level and target power.
    epsilon, delta : float or None
        Privacy of every stage's release (the whole design's, by parallel composition);
        ``epsilon`` None for the non-private design.
    spending : str
        The alpha-spending function ('obrien-fleming', 'pocock' or 'custom').
    futility : str or None
        None or 'non-binding'.
    ratio : float
        Allocation ``n2 / n1``.
    information : tuple of float
        The planned information fractions (the spending function's arguments).
    n1, n2 : tuple of int
        Cumulative sample sizes of each arm at each look.
    efficacy : tuple of int
        The boundaries on the lattice ``W_k = a K1 - b K2`` (``ratio = a / b``; sign flipped for
        ``alternative = 'less'``): stop for efficacy when ``W_k >= efficacy[k]``.
    efficacy_difference : tuple of float or None
        The same boundaries on the released difference of cumulative proportions
        ``round(Z1) / N1 - round(Z2) / N2``: stop for efficacy at look ``k`` when it is
        ``>= efficacy_difference[k]`` (``<=`` for ``'less'``); None at a look whose spending
        is too small for any outcome to stop there (printed "(none)").
    futility_bounds, futility_difference : tuple
        Futility boundaries on ``W`` and on the difference (stop when ``W_k <= f_k``),
        None where there is none (always at the last look).
    spent : tuple of float
        The spending function's cumulative alpha at each look.
    cumulative_alpha : tuple of float
        The exact cumulative type-I error at each look at the worst common rate (a certified
        upper bound of the supremum over ``theta1 = theta2``), each ``<= spent``.
    exact_power : float
        Exact power at the planned rates (futility boundaries followed).
    expected_n0, expected_n1 : float
        Expected total sample size at ``theta1 = theta2 = theta2`` and at the planned rates.
    nonprivate : SequentialDesign or None
        The same design without noise (the price of privacy is the difference).
    """

    theta1: float
    theta2: float
    alternative: str
    alpha: float
    power: float
    epsilon: float | None
    delta: float
    spending: str
    futility: str | None
    ratio: float
    information: tuple
    n1: tuple
    n2: tuple
    efficacy: tuple
    efficacy_difference: tuple
    futility_bounds: tuple
    futility_difference: tuple
    spent: tuple
    cumulative_alpha: tuple
    exact_power: float
    expected_n0: float
    expected_n1: float
    nonprivate: "SequentialDesign | None" = field(default=None, repr=False)
    _lattice: object = field(default=None, repr=False, compare=False)

    @property
    def looks(self):
        """Number of looks."""
        return len(self.n1)

    @property
    def max_n(self):
        """Maximum total sample size (both arms)."""
        return self.n1[-1] + self.n2[-1]

    def stage_sizes(self):
        """New patients of each arm at each look: ``((n1_1, n2_1), (n1_2 - n1_1, ...), ...)``."""
        return tuple(self._lattice.stage(k) for k in range(self.looks))

    def operating_characteristics(self, theta1, theta2):
        """Exact operating characteristics at the rates ``(theta1, theta2)``.

        Returns
        -------
        SequentialCharacteristics
        """
        theta1 = _check_probability(theta1, "theta1")
        theta2 = _check_probability(theta2, "theta2")
        eff, fut, en = _gs.characteristics(self._lattice, self.efficacy, self.futility_bounds, [theta1], [theta2])
        return SequentialCharacteristics(theta1, theta2, float(eff[0].sum()), tuple(map(float, eff[0])),
                                         tuple(map(float, fut[0])), float(en[0]))

    def plot(self, difference=None, *, theta2=None, ax=None, title=None):
        """The exact operating characteristics against the true difference ``theta1 - theta2``.

        See :func:`dpinfer.plot.oc_curves` (matplotlib is imported here, not before): the
        probability of stopping for efficacy and of stopping before the last look, the
        expected total sample size on a second y axis, at the control rate ``theta2``
        (default the planned one), with the null, the planned difference, alpha and the
        power marked.  ``difference``: the x values.  Returns the matplotlib Axes.
        """
        from ...plot import oc_curves

        return oc_curves(self, difference, theta2=theta2, ax=ax, title=title)

    def decide(self, look, z1, z2):
        """The decision after look ``look`` (1-based) from the released values so far.

        ``z1``, ``z2``: each arm's released values of looks ``1..look`` (sequences, one
        value per look; a single value for look 1).  ``round`` is applied to each release
        (the design reads ``round(Z) = X + D``), then the integer parts are summed.
        Returns 'continue', 'stop for efficacy' or 'stop for futility'.
        """
        look = _check_int(look, "look", minimum=1, maximum=self.looks)
        w = self._statistic(look, z1, z2)
        k = look - 1
        if w >= self.efficacy[k]:
            return "stop for efficacy"
        if look == self.looks or (self.futility_bounds[k] is not None and w <= self.futility_bounds[k]):
            return "stop for futility"
        return "continue"

    def _statistic(self, look, z1, z2):
        lat = self._lattice
        k1, k2 = (sum(_round_release(z, name) for z in _released(values, name, look)[:look])
                  for values, name in ((z1, "z1"), (z2, "z2")))
        return lat.sign * (lat.a * k1 - lat.b * k2)

    def staged_release(self, *, budget=None, label="group-sequential design", released=()):
        """A :class:`~dpinfer.StagedRelease` that runs this design (two arms, its stage sizes).

        Each stage's new counts are released once at the design's ``(epsilon, delta)``; after
        each look the design's rule (:meth:`decide`) says continue or stop.  With a
        ``budget`` the whole design is one parallel set: one epsilon for all stages.
        ``released``: the pairs (arm 1, arm 2) of the looks already released, to continue a
        run (the ``dpinfer release --design FILE --stage S --earlier ...`` command).
        """
        if self.epsilon is None:
            raise ValueError("a non-private design (`epsilon` = None) has no release to run; plan it with "
                             "an epsilon.")
        from ...releasers.staged import StagedRelease

        def rule(stage, releases):
            z1 = [r[0].value for r in releases]
            z2 = [r[1].value for r in releases]
            return self.decide(stage, z1, z2)
        return StagedRelease(self.stage_sizes(), epsilon=self.epsilon, delta=self.delta,
                             arms=("arm 1", "arm 2"), budget=budget, label=label, rule=rule, released=released)

    def to_dict(self):
        """A JSON-safe dict of the design (with the non-private design's numbers under ``nonprivate``)."""
        out = {k: getattr(self, k) for k in (
            "theta1", "theta2", "alternative", "alpha", "power", "epsilon", "delta", "spending", "futility",
            "ratio", "exact_power", "expected_n0", "expected_n1")}
        for k in ("information", "n1", "n2", "efficacy", "efficacy_difference", "futility_bounds",
                  "futility_difference", "spent", "cumulative_alpha"):
            out[k] = list(getattr(self, k))
        out["looks"] = self.looks
        out["max_n"] = self.max_n
        out["nonprivate"] = None if self.nonprivate is None else self.nonprivate.to_dict()
        return out

    def __str__(self):
        greater = self.alternative == "greater"
        cmp_, fcmp = (">=", "<=") if greater else ("<=", ">=")
        lines = ["Group-sequential design, two arms, exact" + (" (private)" if self.epsilon is not None else ""),
                 f"  H0: theta1 {'<=' if greater else '>='} theta2 against H1: theta1 {'>' if greater else '<'} "
                 "theta2",
                 f"  planned: theta1 = {self.theta1:g}, theta2 = {self.theta2:g}, n2/n1 = {self.ratio:g}; "
                 f"one-sided alpha = {self.alpha:g}, power = {self.power:g}",
                 f"  alpha spending: {_SPENDING_TEXT.get(self.spending, 'user function')}"
                 + ("; non-binding futility (beta spending)" if self.futility else "")]
        if self.epsilon is None:
            lines.append("  privacy: none (the non-private design)")
        else:
            lines += [f"  privacy: epsilon = {self.epsilon:g}, delta = {self.delta:g} per stage release (Tulap);",
                      "           one epsilon for the whole design (stages and arms are disjoint people)"]
        lines += ["", f"  look   info     n1     n2  efficacy: diff {cmp_}  spent alpha  exact cum. alpha"
                  + (f"  futility: diff {fcmp}" if self.futility else "")]
        for k in range(self.looks):
            fd = self.futility_difference[k]
            ed = self.efficacy_difference[k]
            lines.append(f"  {k + 1:>4}  {self.n1[k] / self.n1[-1]:.3f}  {self.n1[k]:>5}  {self.n2[k]:>5}"
                         + (f"  {ed:>17.4f}" if ed is not None else f"  {'(none)':>17}")
                         + f"  {self.spent[k]:>11.6f}"
                         f"  {self.cumulative_alpha[k]:>16.6f}"
                         + ((f"  {fd:>17.4f}" if fd is not None else f"  {'-':>17}") if self.futility else ""))
        lines += ["",
                  f"  maximum n = {self.max_n} ({self.n1[-1]} + {self.n2[-1]}), exact power {self.exact_power:.4f}",
                  f"  expected n: {self.expected_n0:.1f} under H0 (theta1 = theta2 = {self.theta2:g}), "
                  f"{self.expected_n1:.1f} under H1"]
        if self.nonprivate is not None:
            np_ = self.nonprivate
            lines += [f"  non-private design: maximum n = {np_.max_n} ({np_.n1[-1]} + {np_.n2[-1]}), exact power "
                      f"{np_.exact_power:.4f},",
                      f"                      expected n {np_.expected_n0:.1f} / {np_.expected_n1:.1f}"]
        lines.append("  The design reads round(Z) = X + D of each stage's release (exact, not normal).")
        return "\n".join(lines)


def _released(values, name, look):
    """The released values of looks ``1..look`` as a float array (one value per look)."""
    try:
        out = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a sequence of released values, one per look; got "
                        f"{type(values).__name__}.") from None
    if out.ndim != 1 or out.size < look:
        raise ValueError(f"`{name}` must hold one released value for each of looks 1..{look}; got "
                         f"{out.size} value(s).")
    return out


def _round_release(z, name):
    if not math.isfinite(z):
        raise ValueError(f"`{name}` must hold finite released values; got a non-finite value.")
    if z == math.floor(z):
        raise ValueError(f"`{name}` must hold released values (a Tulap release is never a whole number); "
                         "got a whole number, which would be a confidential count.")
    return math.floor(z + 0.5)


def _check_information(information, looks):
    if information is None:
        return tuple((k + 1) / looks for k in range(looks))
    try:
        values = [float(_check_real(t, "information")) for t in information]
    except TypeError:
        raise TypeError(f"`information` must be None or a sequence of {looks} increasing fractions ending "
                        f"at 1; got {_show(information)}.") from None
    if (len(values) != looks or any(t <= 0.0 for t in values) or any(np.diff(values) <= 0.0)
            or abs(values[-1] - 1.0) > 1e-12):
        raise ValueError(f"`information` must hold `looks` = {looks} increasing fractions in (0, 1], the last "
                         f"equal to 1; got {values}.")
    values[-1] = 1.0
    return tuple(values)


def _normal_start(theta1, theta2, ratio, epsilon, looks, alpha, power):
    """Arm 1's fixed-sample size by the normal approximation with the noise's variance."""
    z = stats.norm.isf(alpha) + stats.norm.isf(1.0 - power)
    target = ((theta1 - theta2) / z) ** 2
    a_term = theta1 * (1 - theta1) + theta2 * (1 - theta2) / ratio
    if epsilon is not None and epsilon < 1e-6:
        return math.inf  # the noise alone needs more than any lattice allows
    b_term = 0.0 if epsilon is None else (
        looks * 2 * math.exp(-epsilon) / math.expm1(-epsilon) ** 2 * (1 + 1 / ratio ** 2))
    if b_term < 1e-12 * a_term:
        return a_term / target  # no noise, or none that matters
    x = (-a_term + math.sqrt(a_term ** 2 + 4 * b_term * target)) / (2 * b_term)
    return 1.0 / x


def _build(theta1, theta2, n1_max, structure, certify=True):
    """The design (boundaries, futility, power, expected n) at arm 1's maximum size."""
    fractions, a, b, sign, epsilon, delta, alpha, spending, futility, power = structure
    lat = _gs.lattice(n1_max, fractions, a, b, sign, epsilon, delta)
    if _gs.width(lat) > _gs.LATTICE_LIMIT:
        raise ValueError(f"the design's lattice ({_gs.width(lat)} points at the last look, from n1 = {lat.n1[-1]}, "
                         f"n2 = {lat.n2[-1]}, `epsilon` = {epsilon}) exceeds the limit of the exact recursion "
                         f"({_gs.LATTICE_LIMIT}); use fewer patients, fewer looks or a larger epsilon.")
    spent = spending_values(spending, fractions, alpha)
    eff, sups = _gs.efficacy_boundaries(lat, spent, certify=certify)
    if futility:
        beta_spent = spending_values(spending, fractions, 1.0 - power, name="spending")
        fut = _gs.futility_boundaries(lat, eff, [theta1], [theta2], beta_spent)
    else:
        fut = (None,) * lat.looks
    e1, _, en1 = _gs.characteristics(lat, eff, fut, [theta1], [theta2])
    _, _, en0 = _gs.characteristics(lat, eff, fut, [theta2], [theta2])
    return lat, spent, eff, sups, fut, float(e1.sum()), float(en1[0]), float(en0[0])


def _search(theta1, theta2, structure, ratio, looks):
    """The smallest arm-1 size (a multiple of ``b``) found by bisection whose exact power reaches the target."""
    fractions, a, b, sign, epsilon, delta, alpha, spending, futility, power = structure
    cache = {}

    def power_at(n, certify=False):
        key = (n, certify)
        if key not in cache:
            cache[key] = _build(theta1, theta2, n, structure, certify)
        return cache[key][5]

    def up(n):
        return b * max(looks, math.ceil(n / b))
    limit = b * (min(MAX_N, math.floor(MAX_N / ratio)) // b)

    def refuse():
        raise ValueError(f"no design with at most {MAX_N} patients per arm reaches `power` = {power:g} at "
                         f"`theta1` = {theta1:g}, `theta2` = {theta2:g} (`epsilon` = {epsilon}, `alpha` = "
                         f"{alpha:g}); the exact recursion is limited to {MAX_N} per arm. Plan for a larger "
                         "difference or a larger epsilon.")
    normal = _normal_start(theta1, theta2, ratio, epsilon, looks, alpha, power)
    if normal > 2 * limit:
        refuse()  # the fixed-sample normal size alone is twice the limit: no exact search needed
    start = min(up(normal), limit)
    lo, hi = None, None
    n = start
    for _ in range(_SEARCH_STEPS):
        if power_at(n) >= power:
            hi = n
            if n <= up(looks):
                break
            n = up(n * 0.85)
            if lo is not None and n <= lo:
                break
        else:
            lo = n
            if n >= limit:
                refuse()
            n = min(up(n * 1.25), limit)
            if hi is not None and n >= hi:
                break
        if lo is not None and hi is not None:
            break
    lo = up(looks) - b if lo is None else lo
    while hi - lo > b:
        mid = up((lo + hi) / 2 - b / 2)
        if mid <= lo or mid >= hi:
            break
        if power_at(mid) >= power:
            hi = mid
        else:
            lo = mid
    n = hi
    while power_at(n, certify=True) < power:
        if n >= limit:
            refuse()
        n += b
    return cache[(n, True)]


def sequential_design(theta1, theta2, *, looks=3, alpha=0.025, power=0.8, epsilon, delta=0.0,
                      spending="obrien-fleming", futility=None, ratio=1.0, information=None):
    """An exact private two-arm group-sequential design with alpha spending (as ``rpact``/``gsDesign``).

    Arm 1 (experimental, rate ``theta1``) and arm 2 (control, ``theta2``) are enrolled in
    ``looks`` stages; each stage's new patients of each arm are released once with Tulap
    noise at ``(epsilon, delta)`` (:meth:`SequentialDesign.staged_release`).  At look ``k``
    the released difference of cumulative proportions is compared with an efficacy
    boundary whose exact cumulative type-I error, at the worst common rate, is at most the
    spending function's value; the maximum sample size is the smallest whose exact power at
    the planned rates reaches ``power``.  The design orders by that difference, not by
    :func:`~dpinfer.binom2_ump_test`'s default score: the exact law across looks is that of
    the released sums (stage-wise increments).

    Parameters
    ----------
    theta1, theta2 : float
        The planned rates, in (0, 1), not equal: ``theta1 > theta2`` plans the one-sided test
        of ``H0: theta1 <= theta2`` against ``theta1 > theta2`` (``'greater'``), ``theta1 <
        theta2`` the mirror one (``'less'``).
    looks : int, default 3
        Number of looks (2 to 6), the last one at the maximum sample size.
    alpha : float, default 0.025
        One-sided significance level, in [1e-6, 0.5) (the default of ``rpact`` and
        ``gsDesign``: a one-sided 0.025 test is the two-sided 0.05 test's one tail, what
        regulators expect of a superiority trial; rpact's range).
    power : float, default 0.8
        Target power at the planned rates, in (alpha, 1).
    epsilon : float or None
        Privacy of every stage's release (and, by parallel composition, of the whole design).
        None plans the non-private design (exact binomial boundaries).
    delta : float, default 0.0
        Approximate-DP slack of every release, in [0, 1).
    spending : {'obrien-fleming', 'pocock'} or callable, default 'obrien-fleming'
        The Lan-DeMets alpha-spending function, or ``spending(t, alpha)`` returning the
        cumulative alpha at the information fraction ``t`` (non-decreasing, ``alpha`` at 1).
    futility : None or 'non-binding', default None
        'non-binding': futility boundaries at the interim looks from the same spending
        function applied to ``beta = 1 - power`` at the planned rates; the efficacy
        boundaries ignore them (the type-I error holds whether or not the trial stops for
        futility), the power and expected sizes follow them.
    ratio : float, default 1
        Allocation ``n2 / n1``: a ratio of whole numbers up to 4 (1, 2, 0.5, 1.5, ...).
    information : sequence of float, optional
        The planned information fractions of the looks (increasing, the last 1); equally
        spaced by default.  Arm 1's cumulative sizes are the nearest multiples of ``b``
        (``ratio = a / b``) to ``t_k n1``.

    Returns
    -------
    SequentialDesign
        Frozen; prints like a ``gsDesign``/``rpact`` summary with the privacy line and the
        non-private design's numbers beside; ``to_dict()``,
        ``operating_characteristics(theta1, theta2)``, ``decide``, ``staged_release``.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments; or when no design within ``MAX_N`` = 1000 patients per arm
        (or a lattice of 60000 points at the last look) reaches the power.

    Notes
    -----
    **The statistic.**  Stage ``s`` releases each arm's new count as ``Z = X + D + U``
    (Tulap; ``round(Z) = X + D`` exactly, the part of the release that depends on the
    count: the uniform ``U`` is independent of it when ``delta = 0``).  With ``ratio = a /
    b`` the released difference of cumulative proportions of the integer parts is
    ``T_k = W_k / (a N1_k)`` with ``W_k = a K1(k) - b K2(k)`` an integer random walk with
    independent increments; its joint law over the looks is an exact finite convolution,
    computed for a whole grid of rates at once (see ``_walk_law``).

    **The boundaries.**  At look ``k`` the efficacy boundary ``c_k`` is the smallest whole
    number with ``sup_nu P_{nu, nu}(stop for efficacy by look k) <= alpha(t_k)``, the
    supremum over the common rate certified as in the exact two-arm test
    (``two_arm._certify``: an upper bound from a bound on the curvature).  Stopping for
    efficacy is an increasing event in the arm-1 counts and decreasing in the arm-2 ones,
    so the supremum over the whole null ``theta1 <= theta2`` is on the line.  The lattice
    is discrete, so the exact cumulative alpha is at most, not equal to, the spending
    function's value.  O'Brien-Fleming type: ``alpha(t) = 2 - 2 Phi(z_{1-alpha/2} /
    sqrt(t))``; Pocock type: ``alpha log(1 + (e - 1) t)`` (Lan & DeMets 1983).

    **The sample size** is found by bisection on the exact power (boundaries located,
    then certified at the answer); power is not monotone in the size of a discrete design,
    so a smaller size may also reach the target.  Limits (refused, decided from public
    numbers): 2 to 6 looks, at most 1000 patients per arm, a lattice of at most 60000
    points (``width`` grows like the sizes plus ``looks x 84 / epsilon``).

    References
    ----------
    Lan, K. K. G. & DeMets, D. L. (1983).  Discrete sequential boundaries for clinical
    trials.  Biometrika 70, 659-663.
    Jennison, C. & Turnbull, B. W. (2000).  Group Sequential Methods with Applications to
    Clinical Trials.  Chapman & Hall/CRC, ch. 7 and 12.
    Awan, J. & Slavkovic, A. (2018).  Differentially private uniformly most powerful tests
    for binomial data.  NeurIPS 2018.

    Examples
    --------
    >>> from dpinfer import sequential_design
    >>> d = sequential_design(0.5, 0.3, looks=3, epsilon=1.0)
    >>> d.n1, d.n2
    ((41, 81, 122), (41, 81, 122))
    >>> [round(b, 4) for b in d.efficacy_difference]
    [0.4634, 0.2222, 0.1475]
    >>> round(d.exact_power, 4), d.nonprivate.max_n
    (0.8052, 202)
    """
    theta1 = _check_probability(theta1, "theta1", open_low=True, open_high=True)
    theta2 = _check_probability(theta2, "theta2", open_low=True, open_high=True)
    if theta1 == theta2:
        raise ValueError(f"`theta1` and `theta2` must differ (the design is planned for a difference); "
                         f"got both {theta1!r}.")
    looks = _check_int(looks, "looks", minimum=2, maximum=MAX_LOOKS)
    alpha = _check_alpha(alpha)
    if not 1e-6 <= alpha < 0.5:
        raise ValueError(f"`alpha` must lie in [1e-6, 0.5) (a one-sided level, as rpact asks; below 1e-6 the "
                         f"exact recursion's resolution, 1e-13, is too coarse); got {alpha!r}.")
    power = _check_probability(power, "power", open_low=True, open_high=True)
    if power <= alpha:
        raise ValueError(f"`power` must exceed `alpha` = {alpha!r}; got {power!r}.")
    epsilon = None if epsilon is None else _check_epsilon(epsilon)
    delta = _check_delta(delta)
    if epsilon is None and delta != 0.0:
        raise ValueError(f"`delta` must be 0 for a non-private design (`epsilon` = None); got {delta!r}.")
    if callable(spending):
        name = "custom"
    else:
        name = _check_choice(spending, "spending", SPENDING, " Or give a callable spending(t, alpha).")
    if futility is not None:
        _check_choice(futility, "futility", ("non-binding",), " Or None for no futility boundary.")
    ratio = _check_real(ratio, "ratio")
    terms = _gs.ratio_terms(ratio) if ratio > 0 else None
    if terms is None:
        raise ValueError(f"`ratio` must be a positive ratio of whole numbers up to {_gs.RATIO_TERMS} "
                         f"(1, 2, 0.5, 1.5, ...); got {ratio!r}.")
    fractions = _check_information(information, looks)
    sign = 1 if theta1 > theta2 else -1
    spending_arg = spending if callable(spending) else name
    if callable(spending):
        spending_values(spending, fractions, alpha)  # refuse a bad function before the search

    def one(eps, delta_):
        structure = (fractions, terms[0], terms[1], sign, eps, delta_, alpha, spending_arg, futility, power)
        lat, spent, eff, sups, fut, pw, en1, en0 = _search(theta1, theta2, structure, ratio, looks)
        scales = [lat.scale(k) for k in range(lat.looks)]
        return dict(n1=lat.n1, n2=lat.n2, efficacy=eff,
                    efficacy_difference=tuple(None if c > _gs.largest(lat, k) else sign * c / s
                                              for k, (c, s) in enumerate(zip(eff, scales))),
                    futility_bounds=fut,
                    futility_difference=tuple(None if f is None else sign * f / s for f, s in zip(fut, scales)),
                    spent=spent, cumulative_alpha=tuple(float(v) for v in sups),
                    exact_power=pw, expected_n0=en0, expected_n1=en1, _lattice=lat)
    common = dict(theta1=theta1, theta2=theta2, alternative="greater" if sign > 0 else "less", alpha=alpha,
                  power=power, spending=name, futility=futility, ratio=ratio, information=fractions)
    nonprivate = SequentialDesign(epsilon=None, delta=0.0, **common, **one(None, 0.0))
    if epsilon is None:
        return nonprivate
    return SequentialDesign(epsilon=epsilon, delta=delta, **common, **one(epsilon, delta), nonprivate=nonprivate)
