"""Several arms against one shared control: exact per-arm tests and their adjustment (public function)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ... import _mechanisms
from ..._printing import _r_format, _r_format_pval
from ..._validation import _check_alternative, _check_confidence_level, _check_real, _kind_of, _show
from ...distributions._tulap_law import tulap_grid
from ...releasers.release import Release
from ...results import ConfidenceInterval, PrivacyRecord
from ...results._privacy import path_of
from .._resolve import accepts, composed, provenance, resolve
from ..two_arm import binom2_ump_ci, binom2_ump_test
from ..two_arm._arguments import ACCEPTS as TWO_ARM_ACCEPTS
from ._adjust import adjust_pvalues
from ._dunnett import sup_max_tail

__all__ = ["ManyToOneResult", "binom_many_to_one_test"]

ADJUSTMENTS = ("dunnett", "holm", "hochberg", "bonferroni", "none")


@dataclass(frozen=True)
class ManyToOneResult:
    """Several arms compared with one control: a table like ``summary(multcomp::glht(...))``.

    Attributes
    ----------
    names : tuple of str
        The comparisons (``'arm 1 - control'``, ...).
    estimate, statistic, pvalue, adjusted : tuple of float
        Per comparison: the difference of released proportions, the standardized difference
        ``(z_k / n_k - z_0 / n_0 - margin) / sqrt(1/n_k + 1/n_0)``, the exact two-arm p-value,
        and the adjusted p-value.
    conf_int : tuple of ConfidenceInterval
        Simultaneous intervals (Bonferroni over the arms; per-arm when ``adjust='none'``).
    adjust, alternative, margin, confidence_level, composition
        As passed (the composition as decided).
    epsilon, delta, mechanism, secure, neighbours, privacy_unit
        The privacy of the releases used together (:mod:`dpinfer._composition_rule`);
        ``privacy`` gathers them in a :class:`~dpinfer.PrivacyRecord`.
    """

    names: tuple
    estimate: tuple
    statistic: tuple
    pvalue: tuple
    adjusted: tuple
    conf_int: tuple
    adjust: str
    alternative: str
    margin: float
    confidence_level: float
    composition: str
    epsilon: float
    delta: float
    mechanism: str
    secure: bool | None = None
    neighbours: str | None = None
    privacy_unit: str = ""

    @property
    def privacy(self):
        """The :class:`~dpinfer.PrivacyRecord` of the releases used together."""
        return PrivacyRecord(self.epsilon, self.delta, self.mechanism, self.neighbours, self.privacy_unit,
                             path_of(self.secure), self.composition)

    def __str__(self):
        sign = {"two-sided": "==", "greater": "<=", "less": ">="}[self.alternative]
        null = _r_format([self.margin], 7)[0].strip()
        rows = [f"{name} {sign} {null}" for name in self.names]
        width = max(len(r) for r in rows)
        level = _r_format([100 * self.confidence_level], 7)[0].strip()
        head = (f"{'':{width}}  {'Estimate':>9}  {'lower':>9}  {'upper':>9}  {'z value':>8}  "
                f"{'Pr(raw)':>8}  {'Pr(adj)':>8}")
        lines = ["", "\t Simultaneous Tests for Many-to-One Comparisons (exact, private releases)", "",
                 f"Comparisons with the control: {self.alternative}, difference in proportions", "",
                 "Hypotheses:", head]
        columns = [_r_format(list(values), 4) for values in (
            self.estimate, [c.low for c in self.conf_int], [c.high for c in self.conf_int], self.statistic)]
        for r, est, lo, hi, z, p, q in zip(rows, *columns, self.pvalue, self.adjusted):
            lines.append(f"{r:{width}}  {est:>9}  {lo:>9}  {hi:>9}  {z:>8}  {_fmt_p(p):>8}  {_fmt_p(q):>8}")
        lines += [f"(Adjusted p values reported -- {self.adjust} method; {level}% simultaneous intervals"
                  f"{', Bonferroni' if self.adjust != 'none' else ', per comparison'})", "",
                  *self.privacy.lines(), ""]
        return "\n".join(lines)

    def to_dict(self):
        """A JSON-safe dict: one list per column, plus the settings and the privacy record."""
        return {"names": list(self.names), "estimate": list(self.estimate), "statistic": list(self.statistic),
                "pvalue": list(self.pvalue), "adjusted": list(self.adjusted),
                "conf_low": [c.low for c in self.conf_int], "conf_high": [c.high for c in self.conf_int],
                "adjust": self.adjust, "alternative": self.alternative, "margin": self.margin,
                "confidence_level": self.confidence_level, "composition": self.composition,
                "epsilon": self.epsilon, "delta": self.delta, "mechanism": self.mechanism,
                "secure": self.secure, "neighbours": self.neighbours, "privacy_unit": self.privacy_unit}

    def plot(self, *, ax=None, title=None):
        """The forest plot of the per-arm intervals (:func:`dpinfer.plot.forest_plot`)."""
        from ...plot import forest_plot

        return forest_plot(self, ax=ax, title=title)

    def to_frame(self):
        """One row per comparison (pandas imported lazily), broom-like columns."""
        import pandas as pd

        d = self.to_dict()
        return pd.DataFrame({"contrast": d["names"], "estimate": d["estimate"], "statistic": d["statistic"],
                             "p.value": d["pvalue"], "adj.p.value": d["adjusted"], "conf.low": d["conf_low"],
                             "conf.high": d["conf_high"]})


def _fmt_p(p):
    text = _r_format_pval(p)
    return text.replace("< ", "<")


#: What the many-to-one test takes (see :mod:`dpinfer.inference._resolve`): what the two-arm test takes.
ACCEPTS = accepts(TWO_ARM_ACCEPTS.pairs, ("binom_many_to_one_test",),
                  "Tulap-noised counts (TulapReleaser(...).release(x, n)) or Laplace-noised counts or proportions, "
                  "one per arm and one for the control")


def _check_releases(control, arms):
    """Releases only (the arms' sizes and privacy come from them); each checked by the one resolver."""
    if resolve(control, accepts=ACCEPTS, method="binom_many_to_one_test", name="control", numbers=False) is None:
        raise TypeError(f"`control` must be a Release (TulapReleaser(...).release(x, n)); got {_kind_of(control)}.")
    if isinstance(arms, Release) or not isinstance(arms, (list, tuple)):
        raise TypeError(f"`arms` must be a list of Releases, one per arm; got {_kind_of(arms)}.")
    if len(arms) < 1:
        raise ValueError("`arms` must hold at least one release; got none.")
    for i, arm in enumerate(arms):
        if not isinstance(arm, Release):
            raise TypeError(f"`arms` must be a list of Releases; position {i} is {_kind_of(arm)}.")
        resolve(arm, accepts=ACCEPTS, method="binom_many_to_one_test", name=f"arms[{i}]", numbers=False)
    return list(arms)


def binom_many_to_one_test(control, arms, *, margin=0.0, alternative="two-sided", adjust="dunnett",
                           confidence_level=0.95, composition=None, names=None):
    """Compare several arms with one shared control from private releases, with a multiplicity adjustment.

    Parameters
    ----------
    control : Release
        The control arm's Tulap count (:class:`~dpinfer.TulapReleaser`).
    arms : list of Release
        The other arms' Tulap counts (each released once; any sizes).
    margin : float, default 0.0
        ``Delta0`` of every ``H0_k: theta_k - theta_0 = Delta0`` (one-sided: ``<=`` for
        ``'greater'``, ``>=`` for ``'less'``).
    alternative : {'two-sided', 'less', 'greater'}
    adjust : {'dunnett', 'holm', 'hochberg', 'bonferroni', 'none'}, default 'dunnett'
        ``'dunnett'``: the exact single-step max-statistic adjustment using the shared control
        (Notes); the others: :func:`~dpinfer.adjust_pvalues` on the exact per-arm p-values.
    confidence_level : float, default 0.95
        Of the simultaneous intervals (Bonferroni over the arms: each per-arm exact interval
        at ``1 - (1 - level) / K``; per-arm intervals with ``adjust='none'``).
    composition : {None, 'parallel', 'sequential'}
        How the releases' privacy adds up (:mod:`dpinfer._composition_rule`: None is
        ``'parallel'`` only when the releases record disjoint groups of one budget scope).
    names : list of str, optional
        The arms' names (default ``'arm 1'``, ...).

    Returns
    -------
    ManyToOneResult
        Prints like ``summary(multcomp::glht(...))`` plus the privacy lines; ``to_dict``,
        ``to_frame``.

    Raises
    ------
    TypeError, ValueError
        Not Releases; a release the two-arm test does not take; ``adjust='dunnett'`` with a
        release that is not a Tulap count of ``delta = 0`` and sensitivity 1 (use ``'holm'``).

    Notes
    -----
    *Per-arm p-values* are the exact unconditional two-arm tests
    (:func:`~dpinfer.binom2_ump_test`) of each arm against the control, and the intervals
    its intervals, ordered by the difference (``statistic='difference'``, not the two-arm
    default, the score): the Dunnett adjustment's exact joint law is that of the linear
    statistics ``U_k`` below, and the raw and adjusted p-values and the intervals answer
    one question by one ordering.

    *Dunnett-type adjustment* (single step, Dunnett 1955, exact for the released law): with
    ``U_k = (Z_k / n_k - Z_0 / n_0 - Delta0) / sqrt(1/n_k + 1/n_0)`` (observed ``u_k``, moved by
    half a grid cell towards the null as in the two-arm test), the adjusted p-value of arm ``i``
    is ``sup_theta0 P(max_k U_k >= u_i)`` (two-sided: ``max_k |U_k| >= |u_i|``; ``'less'``: the
    mirror image) under the global null ``theta_k = theta_0 + Delta0``.  Given the control's
    release the arms are independent, so the tail is one sum over the control's integer part
    and one integral over its uniform part of a product of the arms' exact cdfs, a piecewise
    polynomial integrated exactly (:mod:`dpinfer.inference.pairs._dunnett`; mpmath reference
    in ``tests/reference/make_dunnett.py``).  *Exact:* the tail at each ``theta_0``.  *A
    supremum:* over ``theta_0``, located (65-point grid and Brent) and certified: the p-value is an
    upper bound of the supremum, at most 1e-9 relative above the best tail found
    (:func:`~dpinfer.inference.pairs._dunnett.certified_sup_max_tail`).  It controls
    the family-wise error strongly: the law of the true-null arms' statistics depends only on
    them and the control (subset pivotality), and their maximum is at most the maximum over
    all arms under the global null with the same ``theta_0``; a one-sided composite null
    reduces to its boundary as each ``U_k`` increases with ``theta_k``.

    *Holm* and *Bonferroni* need no assumption on the dependence; *Hochberg* needs the
    Simes inequality (positive dependence), which the shared control gives one-sided
    comparisons; see :func:`~dpinfer.adjust_pvalues`.  Every adjustment is post-processing:
    no budget is spent on multiplicity.

    References
    ----------
    Dunnett, C. W. (1955). JASA 50, 1096-1121.  Hothorn, T., Bretz, F. and Westfall, P. (2008).
    Simultaneous inference in general parametric models. Biometrical Journal 50, 346-363.

    Examples
    --------
    >>> from dpinfer import TulapReleaser, binom_many_to_one_test
    >>> rel = TulapReleaser(epsilon=1.0)
    >>> control = rel.release(12, 40, rng=1)
    >>> arms = [rel.release(14, 40, rng=2), rel.release(27, 40, rng=3)]
    >>> res = binom_many_to_one_test(control, arms, alternative='greater')
    >>> [round(p, 4) for p in res.adjusted]
    [0.5243, 0.0154]
    """
    arms = _check_releases(control, arms)
    margin = _check_real(margin, "margin")
    if not -1.0 < margin < 1.0:
        raise ValueError(f"`margin` must be in (-1, 1) (a difference of proportions); got {margin!r}.")
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    if not isinstance(adjust, str):
        raise TypeError(f"`adjust` must be one of {', '.join(map(repr, ADJUSTMENTS))}; got {_show(adjust)}.")
    if adjust not in ADJUSTMENTS:
        raise ValueError(f"`adjust` must be one of {', '.join(map(repr, ADJUSTMENTS))}; got {adjust!r}.")
    releases = [control, *arms]
    composition, epsilon, delta = composed(composition, releases)
    k = len(arms)
    if names is None:
        names = [f"arm {i + 1}" for i in range(k)]
    elif not isinstance(names, (list, tuple)) or len(names) != k or not all(isinstance(x, str) for x in names):
        raise ValueError(f"`names` must be a list of {k} strings, one per arm; got {_show(names)}.")
    if adjust == "dunnett":
        for i, r in enumerate(releases):
            if r.mechanism != _mechanisms.TULAP or r.kind != "count" or r.delta != 0.0 or r.sensitivity != 1.0:
                where = "`control`" if i == 0 else f"`arms` position {i - 1}"
                raise ValueError(f"adjust='dunnett' needs Tulap counts with delta = 0 and sensitivity 1; {where} is "
                                 f"a {r.mechanism} {r.kind} release (delta = {r.delta}, sensitivity = "
                                 f"{r.sensitivity}). Use adjust='holm' (valid under any dependence).")
    # the difference ordering whatever the two-arm default: U_k below is linear (see Notes)
    results = [binom2_ump_test(arm, control, margin=margin, alternative=alternative, composition="sequential",
                               statistic="difference") for arm in arms]
    raw = [r.pvalue for r in results]
    n0, z0 = control.n, float(control.value)
    scale = [math.sqrt(1.0 / a.n + 1.0 / n0) for a in arms]
    stats = [(float(a.value) / a.n - z0 / n0 - margin) / s for a, s in zip(arms, scale)]
    if adjust == "dunnett":
        adjusted = _dunnett(control, arms, margin, alternative, stats, scale)
    else:
        adjusted = adjust_pvalues(raw, adjust).tolist()
    level = confidence_level if adjust == "none" else 1.0 - (1.0 - confidence_level) / k
    intervals = [binom2_ump_ci(arm, control, alternative=alternative, confidence_level=level,
                               statistic="difference") for arm in arms]
    intervals = [ConfidenceInterval(ci.low, ci.high, confidence_level) for ci in intervals]
    records = [resolve(r, accepts=ACCEPTS, method="binom_many_to_one_test", numbers=False) for r in releases]
    return ManyToOneResult(
        names=tuple(names), estimate=tuple(float(a.value) / a.n - z0 / n0 for a in arms),
        statistic=tuple(stats), pvalue=tuple(raw), adjusted=tuple(float(p) for p in adjusted),
        conf_int=tuple(intervals), adjust=adjust, alternative=alternative, margin=margin,
        confidence_level=confidence_level, composition=composition, epsilon=epsilon, delta=delta,
        mechanism=control.mechanism, **provenance(*records))


def _half_cell(release):
    return tulap_grid(release.n, release.epsilon, 0.0).step / 2.0


def _dunnett(control, arms, margin, alternative, stats, scale):
    """The single-step adjusted p-values (see :func:`binom_many_to_one_test`)."""
    n0 = control.n
    sizes = [a.n for a in arms]
    epsilons = [a.epsilon for a in arms] + [control.epsilon]
    shift = [(_half_cell(a) / a.n + _half_cell(control) / n0) / s for a, s in zip(arms, scale)]
    out = []
    for u, h in zip(stats, shift):
        if alternative == "greater":
            p = sup_max_tail(sizes, n0, epsilons, margin, u - h, False)
        elif alternative == "less":
            # the mirror image: counts n - x have proportions 1 - theta, statistics -U_k, margin -Delta0
            p = sup_max_tail(sizes, n0, epsilons, -margin, -u - h, False)
        else:
            p = sup_max_tail(sizes, n0, epsilons, margin, max(abs(u) - h, 0.0), True)
        out.append(min(p, 1.0))
    return out
