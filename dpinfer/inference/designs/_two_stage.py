"""Simon's two-stage design (one arm), made private: the search and the design object."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..._validation import _check_alpha, _check_choice, _check_delta, _check_epsilon, _check_int, _check_probability
from ...releasers.staged import CONTINUE, EFFICACY, FUTILITY, StagedRelease
from ._increments import Increment, trimmed, upper_sf

__all__ = ["SimonDesign", "simon_design"]

#: the search asks the computed size to be at most ``alpha - SIZE_SLACK``: it covers the trimmed
#: noise tails (each probability within 4 * 2**-50 < 4e-15 of the untrimmed one) and the rounding
#: of the cumulative sums (below 1e-14), so the exact size is at most alpha
SIZE_SLACK = 1e-12
_DESIGNS = ("optimal", "minimax")
#: smallest epsilon searched: the search's cost grows like (n + 110 / epsilon)**2 per pair of stage sizes
MIN_EPSILON = 0.25


class OperatingCharacteristics(NamedTuple):
    """The operating characteristics of a two-stage design at each ``p``: arrays of the shape of ``p``."""

    p: np.ndarray
    reject: np.ndarray  #: probability of rejecting H0 (continuing and ``K1 + K2 > r``)
    pet: np.ndarray  #: probability of early termination (``K1 <= r1``)
    en: np.ndarray  #: expected sample size ``n1 + (1 - PET) n2``


@dataclass(frozen=True)
class SimonDesign:
    """A one-arm two-stage design (Simon 1989), exact for the private release of each stage.

    Made by :func:`simon_design`; not built directly.

    Attributes
    ----------
    p0, p1 : float
        Unacceptable and desirable response rates (H0: p <= p0; power at p1).
    alpha, target_power : float
        The size bound and the power asked for.
    epsilon, delta : float or None
        Privacy of each stage's release (``epsilon=None``: Simon's non-private design).
    design : {'optimal', 'minimax'}
    n1, n : int
        Stage-1 size and total size (``n2 = n - n1``).
    r1, r : int
        Thresholds on the integer parts of the releases, ``K_s = round(Z_s)``: stop for
        futility after stage 1 when ``K_1 <= r1``; at the end reject H0 when ``K_1 + K_2 > r``.
        Without privacy, Simon's ``r1/n1, r/n``.
    size, power : float
        Exact probability of rejecting H0 at ``p0`` and at ``p1``.
    pet0, en0 : float
        Probability of early termination and expected sample size at ``p0``.
    max_n : int
        The largest ``n`` searched.
    reference : SimonDesign or None
        The non-private design of the same kind for the same ``p0, p1, alpha, power``
        (None for a non-private design): the price of privacy is the difference.
    """

    p0: float
    p1: float
    alpha: float
    target_power: float
    epsilon: float | None
    delta: float
    design: str
    n1: int
    n: int
    r1: int
    r: int
    size: float
    power: float
    pet0: float
    en0: float
    max_n: int
    reference: SimonDesign | None = field(default=None, compare=False)

    @property
    def n2(self):
        """Stage-2 size ``n - n1``."""
        return self.n - self.n1

    @property
    def stage_sizes(self):
        """``(n1, n2)``: the new patients of each stage (the public design of a staged release)."""
        return (self.n1, self.n2)

    def operating_characteristics(self, p):
        """Exact reject probability, PET and expected sample size at each ``p`` (array or scalar).

        Returns
        -------
        OperatingCharacteristics
            Named tuple ``(p, reject, pet, en)`` of arrays with the shape of ``p``.

        Notes
        -----
        ``reject = sum_{k1 > r1} P(K1 = k1) P(K2 > r - k1)``, ``pet = P(K1 <= r1)``,
        ``en = n1 + (1 - pet) n2``, with ``K_s`` the binomial pmf convolved with the
        integer part of the stage's noise, exactly (see :func:`simon_design`).
        """
        arr = np.asarray(p, dtype=float)
        flat = np.array([_check_probability(v, "p") for v in arr.reshape(-1)], dtype=float)
        reject, pet = _oc(self.n1, self.n2, self.r1, self.r, self.epsilon, self.delta, flat)
        en = self.n1 + (1.0 - pet) * self.n2
        shape = arr.shape
        return OperatingCharacteristics(arr, reject.reshape(shape), pet.reshape(shape), en.reshape(shape))

    def plot(self, p=None, *, ax=None, title=None):
        """The exact operating characteristics against the true response probability ``p``.

        See :func:`dpinfer.plot.oc_curves` (matplotlib is imported here, not before): the
        probability of rejecting H0 and of stopping for futility after stage 1, the
        expected sample size on a second y axis, ``p0`` and ``p1`` marked with the size
        and power.  ``p``: the x values (201 points over [0, 1] by default).  Returns the
        matplotlib Axes.
        """
        from ...plot import oc_curves

        return oc_curves(self, p, ax=ax, title=title)

    # ------------------------------------------------------------------ running
    def decide(self, stage, releases):
        """The design's rule after ``stage`` (1 or 2) from the releases so far (a :class:`StagedRelease` rule).

        ``releases`` holds one entry per stage released, each a Release (or a one-element
        tuple of it) or a released value.  Stage 1: ``'stop for futility'`` when
        ``round(z1) <= r1``, else ``'continue'``; stage 2: ``'stop for efficacy'`` (reject H0)
        when ``round(z1) + round(z2) > r``, else ``'stop for futility'``.
        """
        k = [_integer_part(v) for v in releases[:stage]]
        if stage == 1:
            return FUTILITY if k[0] <= self.r1 else CONTINUE
        return EFFICACY if k[0] + k[1] > self.r else FUTILITY

    def staged_release(self, *, budget=None, label="Simon two-stage design", released=()):
        """A :class:`~dpinfer.StagedRelease` that runs this design (requires ``epsilon``).

        Its stages release ``n1`` and ``n2`` new patients' counts at the design's epsilon
        and delta, charged once to ``budget.parallel(label)``, and it says after each
        look what :meth:`decide` says.  ``released`` continues a run from its earlier
        stage releases (see :class:`~dpinfer.StagedRelease`).
        """
        if self.epsilon is None:
            raise ValueError("`epsilon` of the design is None (the non-private design): nothing to release "
                             "privately; plan the design with an epsilon.")
        return StagedRelease([self.n1, self.n2], epsilon=self.epsilon, delta=self.delta, budget=budget,
                             label=label, rule=self.decide, released=released)

    # ------------------------------------------------------------------ printing
    def to_dict(self):
        """A flat JSON-safe dict of the design (the non-private reference nested under ``'reference'``)."""
        out = {"method": "Simon two-stage design", "design": self.design, "p0": self.p0, "p1": self.p1,
               "alpha": self.alpha, "target_power": self.target_power, "epsilon": self.epsilon,
               "delta": self.delta, "n1": self.n1, "n2": self.n2, "n": self.n, "r1": self.r1, "r": self.r,
               "size": self.size, "power": self.power, "pet0": self.pet0, "en0": self.en0, "max_n": self.max_n}
        out["reference"] = None if self.reference is None else self.reference.to_dict()
        return out

    def to_json(self, **kwargs):
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), **kwargs)

    def __str__(self):
        rows = [self] + ([self.reference] if self.reference is not None else [])
        label = {True: "private", False: "no privacy"}
        header = ("", "r1", "n1", "r", "n", "EN(p0)", "PET(p0)", "size", "power")
        table = [header]
        for d in rows:
            name = d.design.capitalize() + f" ({label[d.epsilon is not None]})"
            table.append((name, str(d.r1), str(d.n1), str(d.r), str(d.n), f"{d.en0:.2f}", f"{d.pet0:.4f}",
                          f"{d.size:.4f}", f"{d.power:.4f}"))
        widths = [max(len(r[j]) for r in table) for j in range(len(header))]
        lines = ["", " Simon 2-stage Phase II design" + (" (private stages)" if self.epsilon is not None else ""),
                 "", f"Unacceptable response rate:  {self.p0:g} ",
                 f"Desirable response rate:  {self.p1:g} ",
                 f"Error rates: alpha =  {self.alpha:g} ; beta =  {1.0 - self.target_power:g} ", ""]
        for r in table:
            lines.append(r[0].ljust(widths[0]) + " " + " ".join(c.rjust(w) for c, w in zip(r[1:], widths[1:])))
        lines.append("")
        if self.epsilon is None:
            lines.append("privacy: none (Simon's design on the true counts)")
        else:
            lines.append(f"privacy: epsilon = {self.epsilon:g}, delta = {self.delta:g} for the whole design "
                         "(each stage's new patients released once, Tulap noise; stages are disjoint "
                         "patients: parallel composition)")
            lines.append(f"rule:    stop for futility after stage 1 if round(Z1) <= {self.r1}; reject H0 at "
                         f"the end if round(Z1) + round(Z2) > {self.r}")
            if self.reference is not None:
                lines.append(f"price of privacy: EN(p0) {self.en0 - self.reference.en0:+.2f}, "
                             f"n {self.n - self.reference.n:+d}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"SimonDesign(design={self.design!r}, p0={self.p0!r}, p1={self.p1!r}, epsilon={self.epsilon!r}, "
                f"delta={self.delta!r}, r1={self.r1}, n1={self.n1}, r={self.r}, n={self.n}, en0={self.en0:.4f})")


def _integer_part(value):
    """``round(z)`` of a release (or a one-arm tuple of it, or a released value): ``K = X + D``."""
    if isinstance(value, tuple):
        (value,) = value
    value = float(getattr(value, "value", value))
    return int(math.floor(value + 0.5))


def _oc(n1, n2, r1, r, epsilon, delta, theta):
    """``(reject, pet)`` at each ``theta`` (m,), exactly from the untrimmed pmfs of ``K1``, ``K2``."""
    k1_min, f1 = Increment(n1, epsilon, delta).k_pmf(theta)
    k2_min, f2 = Increment(n2, epsilon, delta).k_pmf(theta)
    s2 = upper_sf(f2)
    k1 = k1_min + np.arange(f1.shape[1])
    cont = k1 > r1
    # P(K2 > r - k1) = s2[:, r - k1 + 1 - k2_min], 1 below the support and 0 above it
    idx = r - k1[cont] + 1 - k2_min
    tail = np.where(idx[None, :] <= 0, 1.0, s2[:, np.clip(idx, 0, f2.shape[1])])
    reject = np.einsum("mk,mk->m", f1[:, cont], tail)
    pet = f1[:, ~cont].sum(axis=1)
    return np.clip(reject, 0.0, 1.0), np.clip(pet, 0.0, 1.0)


def _laws(max_n, epsilon, delta, p0, p1):
    """The trimmed pmf of ``K`` at ``(p0, p1)`` and its upper tails, for every stage size ``1..max_n - 1``."""
    out = {}
    for m in range(1, max_n):
        k_min, pmf = Increment(m, epsilon, delta).k_pmf([p0, p1])
        if epsilon is not None:
            k_min, pmf = trimmed(k_min, pmf)
        out[m] = (k_min, pmf, upper_sf(pmf), np.cumsum(pmf[0]))
    return out


def _pair(law1, law2, n1, n, alpha, power):
    """Every feasible ``(r1, r)`` of stage sizes ``(n1, n - n1)``: arrays ``(r1, r, size, power, pet0)``.

    ``A[., i, j] = sum_{i' > i} f1[i'] P(K2 > r_j - k1_{i'})``, for all thresholds at once: the
    size (row p0) and the power (row p1); for each ``r1`` the smallest ``r >= r1`` of size at most
    ``alpha - SIZE_SLACK`` (the size falls as ``r`` grows) and its power.  Pruned without loss:
    rows with ``P_p1(K1 > r1) < power`` cannot reach the power; columns beyond ``r_max`` are
    never needed, where ``r_max`` is the smaller of the first ``r`` with ``P_p0(K1 + K2 > r)``
    at most the size bound (every row's size is below it there) and the last ``r`` with
    ``P_p1(K1 + K2 > r)`` at least the power (beyond, no row reaches the power).
    """
    k1_min, f1, _, cdf1 = law1
    k2_min, f2, s2, _ = law2
    w1, w2 = f1.shape[1], f2.shape[1]
    bound = alpha - SIZE_SLACK
    k1 = k1_min + np.arange(w1)
    rows = np.nonzero(1.0 - np.cumsum(f1[1]) >= power)[0]  # P_p1(K1 > k1[i]) >= power
    if rows.size == 0:
        return (np.empty(0, dtype=np.int64),) * 2 + (np.empty(0),) * 3
    total0, total1 = np.convolve(f1[0], f2[0]), np.convolve(f1[1], f2[1])  # K1 + K2 from k1_min + k2_min
    sf0 = np.cumsum(total0[::-1])[::-1][1:]  # P(K1 + K2 > k1_min + k2_min + j)
    sf1 = np.cumsum(total1[::-1])[::-1][1:]
    if not (sf1 >= power).any():
        return (np.empty(0, dtype=np.int64),) * 2 + (np.empty(0),) * 3
    top = rows[-1]
    first = k1_min + k2_min - 1  # r_values[0]: below the support of K1 + K2
    # columns up to the size bound's quantile, or up to r1 where Simon's r >= r1 asks for more, never
    # beyond the power's quantile
    last = min(int(np.nonzero(sf1 >= power)[0][-1]), max(int(np.argmax(sf0 <= bound)), int(k1[top]) - first))
    r_values = first + np.arange(last + 2)  # r from below the support to r_max
    idx = np.clip(r_values[None, :] - k1[:, None] + 1 - k2_min, 0, w2)  # index into s2 (1 below, 0 above)
    g = f1[:, :, None] * s2[:, idx]  # (2, w1, R)
    a = np.cumsum(g[:, ::-1, :], axis=1)[:, ::-1, :]
    a = a[:, 1:top + 2, :]  # sum over k1 > r1 = k1[i], rows 0..top
    size, pw = a[0], a[1]
    # Simon's r >= r1 (an r below r1 would reject whenever stage 2 runs, whatever its patients show)
    jstar = np.maximum(np.count_nonzero(size > bound, axis=1)[rows], k1[rows] - first)
    ok = jstar < r_values.size
    rows, jstar = rows[ok], jstar[ok]
    powers = pw[rows, jstar]
    keep = powers >= power
    rows, jstar, powers = rows[keep], jstar[keep], powers[keep]
    return k1[rows], r_values[jstar], size[rows, jstar], powers, cdf1[rows]


def _search(p0, p1, alpha, power, epsilon, delta, design, max_n):
    """The design minimising EN0 (optimal) or n then EN0 (minimax); None when none is feasible."""
    laws = _laws(max_n, epsilon, delta, p0, p1)
    best = None  # (key, n1, n, r1, r, size, power, pet0, en0)
    for n in range(2, max_n + 1):
        if design == "minimax" and best is not None:
            break
        for n1 in range(1, n):
            if best is not None and design == "optimal" and n1 >= best[0][0]:
                break  # EN0 >= n1: no smaller EN0 from here on at this n
            r1, r, size, pw, pet0 = _pair(laws[n1], laws[n - n1], n1, n, alpha, power)
            if r1.size == 0:
                continue
            en0 = n1 + (1.0 - pet0) * (n - n1)
            i = int(np.argmin(en0))
            key = (float(en0[i]), n, n1) if design == "optimal" else (n, float(en0[i]), n1)
            if best is None or key < best[0]:
                best = (key, n1, n, int(r1[i]), int(r[i]), float(size[i]), float(pw[i]), float(pet0[i]),
                        float(en0[i]))
    return best


def simon_design(p0, p1, *, alpha=0.05, power=0.8, epsilon, delta=0.0, design="optimal", max_n=100):
    """Simon's optimal or minimax two-stage design, exact for private stage releases.

    Parameters
    ----------
    p0 : float
        Unacceptable response rate, in (0, 1): H0 is ``p <= p0``.
    p1 : float
        Desirable response rate, in ``(p0, 1)``: the power is computed at ``p1``.
    alpha : float, default 0.05
        Bound on the exact size (the probability of rejecting H0 at ``p0``).
    power : float, default 0.8
        Power asked for at ``p1`` (``1 - beta``), in ``(alpha, 1)``.
    epsilon : float or None
        Privacy of each stage's release, at least 0.25 (required; ``None`` gives Simon's
        non-private design).
    delta : float, default 0.0
        Approximate-DP slack of each release, in [0, 1).
    design : {'optimal', 'minimax'}, default 'optimal'
        ``'optimal'`` minimises the expected sample size under ``p0`` (EN0);
        ``'minimax'`` the total size ``n``, ties by EN0 (Simon 1989).
    max_n : int, default 100
        Largest total size searched (``clinfun::ph2simon``'s ``nmax``), 2 to 500.

    Returns
    -------
    SimonDesign
        ``n1``, ``n``, thresholds ``r1``, ``r``, exact ``size``, ``power``, ``pet0``, ``en0``,
        the method ``operating_characteristics(p)``, ``staged_release()`` to run it, and
        ``reference``: the non-private design beside it.

    Raises
    ------
    TypeError, ValueError
        For invalid arguments, or when no design up to ``max_n`` meets the size and power
        (the message says to raise ``max_n``).

    See Also
    --------
    StagedRelease, simon_test

    Notes
    -----
    **The law.**  Stage ``s`` releases the count of its ``n_s`` new patients, ``Z_s = X_s +
    N_s`` with ``X_s ~ Binomial(n_s, p)`` and ``N_s`` the Tulap noise at ``(epsilon, delta)``
    (:class:`~dpinfer.StagedRelease`); the stages are independent.  ``N_s = D_s + U_s`` with
    ``D_s`` an integer and ``U_s`` within its unit cell, so ``K_s = round(Z_s) = X_s + D_s``
    exactly (a release is never a half-integer).

    **The rule is on the integer parts** ``K_s``: stop for futility after stage 1 when
    ``K_1 <= r1``; reject H0 at the end when ``K_1 + K_2 > r``.  Then

        ``size(p) = sum_{k1 > r1} P(K_1 = k1) P(K_2 > r - k1)``,   ``PET(p) = P(K_1 <= r1)``,

    with the pmf of ``K_s`` the binomial pmf convolved with that of ``D_s``, exactly (the
    two-arm law's convolution: non-negative terms only).  *Why integer parts.*  Thresholds
    on the real values would add the uniforms' randomisation (a size of exactly alpha) at
    the cost of a two-dimensional continuous search per pair of stage sizes; the integer
    rule keeps Simon's structure (his search, with the pmf of ``K`` in place of the
    binomial), is Simon's design exactly without noise (``D = 0``), and its discreteness
    shrinks as the noise grows (the pmf of ``K`` is smooth for small epsilon), so the size
    it gives up is largest exactly where privacy costs least.  The uniform parts are not
    wasted: the inference at the end orders outcomes within a stage by the released value
    (:func:`simon_test`).  The grid of the release plays no role in the rule (``round`` of a
    grid value is ``K`` exactly).

    **The search** (Simon 1989): for every ``n <= max_n`` and ``n1 < n``, every ``r1`` at
    once (vectorised), the smallest ``r >= r1`` whose exact size is at most ``alpha`` (as
    Simon: a smaller ``r`` would reject whenever stage 2 runs, its patients unseen), kept when its
    exact power is at least ``power``; optimal: the smallest EN0 ``= n1 + (1 - PET0)(n - n1)``;
    minimax: the smallest ``n``, then EN0.  For the private search the noise's far tails
    are trimmed where each side's mass is below ``2**-50``; the search asks the computed
    size to be at most ``alpha - 1e-12``, which covers that and the rounding, so **the
    exact size of every design returned is at most alpha** (the tests check each against
    an independent mpmath summation).  The reported ``size``, ``power``, ``pet0`` and
    ``en0`` come from the untrimmed law.

    **Privacy.**  Each stage's release is (epsilon, delta)-DP for its new patients; the
    stages are disjoint patients, so the design costs (epsilon, delta) once (parallel
    composition); the interim decision is post-processing.

    Checked against: Simon (1989), Tables 1 and 2 (the non-private limit), a brute-force
    search in the tests, and an mpmath summation over the stage counts with numerical
    integration of the noise (``tests/reference/make_simon_oc.py``, to 1e-10).  R:
    ``clinfun::ph2simon(pu = p0, pa = p1, ep1 = alpha, ep2 = 1 - power, nmax = max_n)``
    gives the non-private designs.

    References
    ----------
    Simon, R. (1989).  Optimal two-stage designs for phase II clinical trials.
    Controlled Clinical Trials 10, 1-10.

    Awan, J. and Slavkovic, A. (2018).  Differentially private uniformly most powerful
    tests for binomial data.  NeurIPS 31.

    Examples
    --------
    >>> from dpinfer import simon_design
    >>> d = simon_design(0.1, 0.3, epsilon=None)
    >>> (d.r1, d.n1, d.r, d.n), round(d.en0, 1), round(d.pet0, 2)
    ((1, 10, 5, 29), 15.0, 0.74)
    >>> private = simon_design(0.1, 0.3, epsilon=2.0, max_n=60)
    >>> private.size <= 0.05 and private.power >= 0.8
    True
    """
    p0 = _check_probability(p0, "p0", open_low=True, open_high=True)
    p1 = _check_probability(p1, "p1", open_low=True, open_high=True)
    if not p1 > p0:
        raise ValueError(f"`p1` must be larger than `p0` = {p0!r} (the desirable response rate); got {p1!r}.")
    alpha = _check_alpha(alpha)
    power = _check_probability(power, "power", open_low=True, open_high=True)
    if not power > alpha:
        raise ValueError(f"`power` must be larger than `alpha` = {alpha!r}; got {power!r}.")
    if epsilon is not None:
        epsilon = _check_epsilon(epsilon)
        if epsilon < MIN_EPSILON:
            raise ValueError(f"`epsilon` must be at least {MIN_EPSILON} for a design search; got {epsilon!r}. Below, "
                             "the noise spreads each stage's count over hundreds of values and the exact search "
                             "over every (n1, n) takes minutes to hours.")
    delta = _check_delta(delta)
    if epsilon is None and delta != 0.0:
        raise ValueError(f"`delta` must be 0 without privacy (`epsilon` = None); got {delta!r}.")
    design = _check_choice(design, "design", _DESIGNS)
    max_n = _check_int(max_n, "max_n", minimum=2, maximum=500)
    found = _search(p0, p1, alpha, power, epsilon, delta, design, max_n)
    if found is None:
        raise ValueError(
            f"no {design} two-stage design with n <= `max_n` = {max_n} has size <= {alpha:g} and power >= "
            f"{power:g} at p1 = {p1:g}" + (f" (epsilon = {epsilon:g})" if epsilon is not None else "")
            + "; raise `max_n`" + (" or epsilon." if epsilon is not None else "."))
    reference = None
    if epsilon is not None:
        plain = _search(p0, p1, alpha, power, None, 0.0, design, max_n)
        reference = None if plain is None else _built(plain, p0, p1, alpha, power, None, 0.0, design, max_n, None)
    return _built(found, p0, p1, alpha, power, epsilon, delta, design, max_n, reference)


def _built(found, p0, p1, alpha, power, epsilon, delta, design, max_n, reference):
    """The :class:`SimonDesign` of a search's result, its numbers from the untrimmed law."""
    _, n1, n, r1, r, _, _, _, _ = found
    reject, pet = _oc(n1, n - n1, r1, r, epsilon, delta, np.array([p0, p1]))
    return SimonDesign(p0=p0, p1=p1, alpha=alpha, target_power=power, epsilon=epsilon, delta=delta, design=design,
                       n1=n1, n=n, r1=r1, r=r, size=float(reject[0]), power=float(reject[1]), pet0=float(pet[0]),
                       en0=float(n1 + (1.0 - pet[0]) * (n - n1)), max_n=max_n, reference=reference)
