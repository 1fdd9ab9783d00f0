"""The results of the survival methods: a Kaplan-Meier table per arm, and the log-rank test."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._printing import _hanging, _r_format, _strwrap
from ...results import HTestResult
from ...results._privacy import PrivacyRecord, path_of

__all__ = ["KaplanMeierResult", "LogRankResult"]


@dataclass(frozen=True, eq=False)
class KaplanMeierResult:
    """Kaplan-Meier curves from a private life table, printed like R's ``summary(survfit(...))``.

    Attributes
    ----------
    time : tuple of float
        The interval ends ``t_1 < ... < t_J`` (the public breaks): the curve is known there.
    groups : tuple of str
        The arm labels.
    n : tuple of int
        The public arm sizes.
    n_risk, n_event, n_censor : ndarray of int, shape (arms, J)
        The consistent life table (the projection of the noisy counts; see Notes of
        :func:`~dpinfer.kaplan_meier`).
    surv : ndarray, shape (arms, J)
        ``S(t_j)``, the product-limit estimate.
    std_err : ndarray, shape (arms, J)
        The standard deviation of ``S(t_j)`` over the simulated releases (sampling and noise).
    lower, upper : ndarray, shape (arms, J)
        The pointwise confidence limits.
    median, median_lower, median_upper : ndarray, shape (arms,)
        The median survival (the first break where ``S <= 1/2``) and its interval (the first
        breaks where the upper and lower limits reach 1/2); NaN when not reached.
    confidence_level : float
    method : str
        The interval method, in words.
    epsilon, delta, mechanism, secure, privacy_unit, neighbours, n_sim, note
        The privacy record of the release (also as :attr:`privacy`) and the Monte Carlo record.
    """

    time: tuple
    groups: tuple
    n: tuple
    n_risk: np.ndarray
    n_event: np.ndarray
    n_censor: np.ndarray
    surv: np.ndarray
    std_err: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    median: np.ndarray
    median_lower: np.ndarray
    median_upper: np.ndarray
    confidence_level: float
    method: str
    epsilon: float
    delta: float
    mechanism: str
    secure: bool | None
    privacy_unit: str
    n_sim: int
    note: str = ""
    neighbours: str | None = None

    @property
    def privacy(self):
        """The :class:`~dpinfer.results.PrivacyRecord` of the result (one release: no composition)."""
        return PrivacyRecord(self.epsilon, self.delta, self.mechanism, self.neighbours, self.privacy_unit,
                             path_of(self.secure), None)

    def __str__(self):
        level = _r_format([100 * self.confidence_level], 7)[0].strip()
        head = ["time", "n.risk", "n.event", "survival", "std.err", f"lower {level}% CI", f"upper {level}% CI"]
        lines = ["", *_strwrap(self.method), ""]
        for a, group in enumerate(self.groups):
            cols = [_r_format(list(self.time), 7), [str(v) for v in self.n_risk[a]],
                    [str(v) for v in self.n_event[a]], _r_format(list(self.surv[a]), 3),
                    _r_format(list(self.std_err[a]), 3), _r_format(list(self.lower[a]), 3),
                    _r_format(list(self.upper[a]), 3)]
            widths = [max(len(h), *(len(v.strip()) for v in col)) for h, col in zip(head, cols)]
            title = f"group={group}" if len(self.groups) > 1 else ""
            if title:
                lines.append(title.center(sum(widths) + len(widths)).rstrip())
            lines.append(" ".join(h.rjust(w) for h, w in zip(head, widths)))
            for row in zip(*cols):
                lines.append(" ".join(v.strip().rjust(w) for v, w in zip(row, widths)))
            lines.append("")
        lines.append(f"median survival ({level}% CI):")
        for a, group in enumerate(self.groups):
            shown = [("NA" if not np.isfinite(v) else _r_format([v], 7)[0].strip())
                     for v in (self.median[a], self.median_lower[a], self.median_upper[a])]
            lines.append(f"  {group} (n = {self.n[a]}): {shown[0]} [{shown[1]}, {shown[2]}]")
        if self.note:
            lines += _hanging("note: ", self.note)
        lines += ["", *self.privacy.lines(self.n_sim), ""]
        return "\n".join(lines)

    def __repr__(self):
        return str(self)

    def to_dict(self):
        """A JSON-safe dict: the layout, the curves as lists per arm, the privacy record (NaN -> None)."""
        def arr(x):
            return [[None if not np.isfinite(v) else float(v) for v in row] for row in np.asarray(x, float)]

        def vec(x):
            return [None if not np.isfinite(v) else float(v) for v in np.asarray(x, float)]

        return {
            "time": list(self.time), "groups": list(self.groups), "n": list(self.n),
            "n_risk": self.n_risk.tolist(), "n_event": self.n_event.tolist(), "n_censor": self.n_censor.tolist(),
            "surv": arr(self.surv), "std_err": arr(self.std_err), "lower": arr(self.lower),
            "upper": arr(self.upper), "median": vec(self.median), "median_lower": vec(self.median_lower),
            "median_upper": vec(self.median_upper), "confidence_level": self.confidence_level,
            "method": self.method, "epsilon": self.epsilon, "delta": self.delta, "mechanism": self.mechanism,
            "secure": self.secure, "privacy_unit": self.privacy_unit, "neighbours": self.neighbours,
            "n_sim": self.n_sim, "note": self.note,
        }

    def to_frame(self):
        """One row per arm and break (tidy, like ``broom::tidy(survfit)``): pandas imported lazily.

        Columns ``group``, ``time``, ``n_risk``, ``n_event``, ``n_censor``, ``estimate``,
        ``std_error``, ``conf_low``, ``conf_high``, ``conf_level``.
        """
        import pandas as pd

        rows = []
        for a, group in enumerate(self.groups):
            for j, t in enumerate(self.time):
                rows.append({"group": group, "time": t, "n_risk": int(self.n_risk[a, j]),
                             "n_event": int(self.n_event[a, j]), "n_censor": int(self.n_censor[a, j]),
                             "estimate": float(self.surv[a, j]), "std_error": float(self.std_err[a, j]),
                             "conf_low": float(self.lower[a, j]), "conf_high": float(self.upper[a, j]),
                             "conf_level": self.confidence_level})
        return pd.DataFrame(rows)

    def plot(self, ax=None, **kwargs):
        """The curves with their bands and the numbers at risk (:func:`dpinfer.plot.km_curves`)."""
        from ...plot import km_curves

        return km_curves(self, ax=ax, **kwargs)


@dataclass(frozen=True, eq=False)
class LogRankResult(HTestResult):
    """The private log-rank test: an :class:`~dpinfer.HTestResult` printed after R's ``survdiff`` table.

    Besides the attributes of :class:`~dpinfer.HTestResult`:

    Attributes
    ----------
    groups : tuple of str
    group_n : tuple of int
        The public arm sizes.
    observed, expected : tuple of float
        Per arm, the events of the consistent table and those expected under a common
        hazard (``survdiff``'s ``obs`` and ``exp``).
    variance : float
        The log-rank variance ``V`` (``survdiff``'s ``var[1, 1]``).
    """

    groups: tuple = ()
    group_n: tuple = ()
    observed: tuple = ()
    expected: tuple = ()
    variance: float = float("nan")

    def survdiff_table(self):
        """The ``survdiff`` table: N, Observed, Expected, (O-E)^2/E, (O-E)^2/V per arm."""
        head = ["", "N", "Observed", "Expected", "(O-E)^2/E", "(O-E)^2/V"]
        rows = []
        for g, m, o, e in zip(self.groups, self.group_n, self.observed, self.expected):
            oe = (o - e) ** 2
            rows.append([f"group={g}", str(m), _r_format([o], 3)[0].strip(), _r_format([e], 3)[0].strip(),
                         _r_format([oe / e if e > 0 else float('nan')], 3)[0].strip(),
                         _r_format([oe / self.variance if self.variance > 0 else float('nan')], 3)[0].strip()])
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        lines = [" ".join([head[0].ljust(widths[0])] + [h.rjust(w) for h, w in zip(head[1:], widths[1:])])]
        for r in rows:
            lines.append(" ".join([r[0].ljust(widths[0])] + [v.rjust(w) for v, w in zip(r[1:], widths[1:])]))
        return "\n".join(lines)

    def __str__(self):
        return "\n" + self.survdiff_table() + "\n" + super().__str__()

    def __repr__(self):
        return str(self)
