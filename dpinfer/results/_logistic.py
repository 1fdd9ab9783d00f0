"""The result of :func:`~dpinfer.logistic_jimi`: :class:`LogisticJimiResult`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._printing import _json_float
from .._validation import _show
from ._interval import ConfidenceInterval
from ._privacy import PrivacyRecord, path_of

__all__ = ["LogisticJimiResult"]


def _fmt(values, digits=4):
    """A column as R's ``printCoefmat`` shows it: one number of decimals, enough for
    ``digits`` significant digits in every entry (at most 10), right-aligned."""
    finite = [abs(v) for v in values if math.isfinite(v) and v != 0.0]
    decimals = min(10, max([0] + [digits - 1 - math.floor(math.log10(v)) for v in finite]))
    out = []
    for v in values:
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        else:
            out.append(f"{v:.{decimals}f}")
    width = max(len(s) for s in out)
    return [s.rjust(width) for s in out]


def _fmt_pvalue(p, n_sim):
    if p == 0.0:
        return f"< {2.0 / n_sim:.1g}"  # no draw on one side: two-sided resolution 2 / n_sim
    return f"{p:.4g}"


@dataclass(frozen=True, eq=False)
class LogisticJimiResult:
    """Coefficients of a logistic regression fitted to a private table, as R's ``summary(glm)``.

    Attributes
    ----------
    terms : tuple of str
        Coefficient names as R's ``glm`` gives them under treatment contrasts:
        ``'(Intercept)'``, then predictor name + level (``'armdrug'``), and
        for interactions the names joined by ``':'``.
    estimate : tuple of float
        The median of each coefficient's fiducial draws.
    conf_low, conf_high : tuple of float
        Equal-tailed fiducial interval at ``confidence_level``.
    pvalue : tuple of float
        Two-sided fiducial p-value for ``coefficient = 0``:
        ``min(1, 2 min(P*(beta <= 0), P*(beta >= 0)))`` over the draws.
    confidence_level : float
        Level of the intervals.
    formula : str
        The model fitted, in R's notation (``'y ~ arm + sex'``).
    model : {'main-effects', 'saturated'}
    method : str
        What was computed, in words.
    epsilon, delta : float
        The privacy budget of the release behind the result.
    mechanism : str
        ``'laplace'``.
    n_sim : int
        Fiducial draws behind the answer.
    data_name : str
        What the result was computed from.
    secure : bool or None
        The release's sampling path (True hardened, False seeded), None for
        bare numbers.
    privacy_unit : str
        What the release's guarantee protects; empty for bare numbers.
    note : str
        A remark printed under the table (empty when there is none).
    neighbours : str or None
        The release's neighbouring relation; None for bare numbers.
    privacy : PrivacyRecord
        The privacy fields as one :class:`PrivacyRecord` (read-only property),
        printed as the result's privacy lines.
    draws : ndarray or None
        The fiducial draws of the coefficients, shape ``(n_sim, len(terms))``,
        when asked for (``draws=True``), as ``fima_logistic`` returns them:
        any functional (an odds ratio, a predicted probability) can be
        computed from them.

    Notes
    -----
    ``str(result)`` prints R's coefficient-table layout with the interval
    columns of ``confint()`` (``'2.5 %'``, ``'97.5 %'``) and the privacy lines
    of :class:`~dpinfer.HTestResult`; :meth:`to_frame` is broom's ``tidy(fit,
    conf.int = TRUE)`` shape, one row per coefficient.

    Examples
    --------
    >>> from dpinfer import logistic_jimi
    >>> fit = logistic_jimi([[41.2, 9.7], [18.3, 30.9]], epsilon=1.0, n_sim=2000, rng=3)
    >>> fit.terms, fit.formula
    (('(Intercept)', 'x2'), 'y ~ x')
    >>> [round(v, 2) for v in fit.conf_low], [round(v, 2) for v in fit.conf_high]
    ([-2.72, 0.86], [-0.62, 3.39])
    >>> fit.to_dict()["coefficients"][1]["term"]
    'x2'
    """

    terms: tuple
    estimate: tuple
    conf_low: tuple
    conf_high: tuple
    pvalue: tuple
    confidence_level: float
    formula: str
    model: str
    method: str
    epsilon: float
    delta: float
    mechanism: str
    n_sim: int
    data_name: str = ""
    secure: bool | None = None
    privacy_unit: str = ""
    note: str = ""
    draws: np.ndarray | None = None
    neighbours: str | None = None

    @property
    def privacy(self):
        """The :class:`PrivacyRecord` of the fit (one table release)."""
        return PrivacyRecord(self.epsilon, self.delta, self.mechanism, self.neighbours, self.privacy_unit,
                             path_of(self.secure))

    def conf_int(self, term):
        """The :class:`~dpinfer.ConfidenceInterval` of the coefficient named ``term``."""
        i = self._index(term)
        return ConfidenceInterval(self.conf_low[i], self.conf_high[i], self.confidence_level)

    def _index(self, term):
        if not isinstance(term, str):
            raise TypeError(f"`term` must be a coefficient name (a string); got {_show(term)}.")
        if term not in self.terms:
            raise ValueError(f"`term` must be one of {', '.join(map(repr, self.terms))}; got {term!r}.")
        return self.terms.index(term)

    def _labels(self):
        a = 100 * (1 - self.confidence_level) / 2
        return f"{a:.3g} %", f"{100 - a:.3g} %"

    def __str__(self):
        lo_name, hi_name = self._labels()
        columns = [("Estimate", _fmt(self.estimate)), (lo_name, _fmt(self.conf_low)),
                   (hi_name, _fmt(self.conf_high)),
                   ("Pr(fid.)", [_fmt_pvalue(p, self.n_sim) for p in self.pvalue])]
        name_width = max(len(t) for t in self.terms)
        widths = [max(len(h), *(len(v) for v in vals)) for h, vals in columns]
        header = " " * name_width + "".join(" " + h.rjust(w) for (h, _), w in zip(columns, widths))
        rows = [t.ljust(name_width) + "".join(" " + vals[i].rjust(w) for (_, vals), w in zip(columns, widths))
                for i, t in enumerate(self.terms)]
        lines = ["", f"\t{self.method}", "", f"model:  {self.formula}  ({self.model}, treatment contrasts)",
                 f"data:   {self.data_name}", "", "Coefficients:", header, *rows, "---",
                 "Estimate: fiducial median; interval: equal-tailed fiducial quantiles;",
                 "Pr(fid.): two-sided fiducial p-value for coefficient = 0"]
        if self.note:
            lines.append(f"note: {self.note}")
        lines += ["", *self.privacy.lines(self.n_sim), ""]
        return "\n".join(lines)

    def __repr__(self):
        return str(self)

    def _repr_html_(self):
        import html

        return f"<pre>{html.escape(str(self).strip(chr(10)))}</pre>"

    def to_dict(self):
        """A JSON-safe dict: one entry per coefficient under ``'coefficients'``, then the scalar fields.

        Each coefficient is ``{'term', 'estimate', 'conf_low', 'conf_high',
        'pvalue'}`` (non-finite numbers become None); the draws are left out.
        """
        rows = [{"term": t, "estimate": _json_float(e), "conf_low": _json_float(lo),
                 "conf_high": _json_float(hi), "pvalue": _json_float(p)}
                for t, e, lo, hi, p in zip(self.terms, self.estimate, self.conf_low, self.conf_high,
                                           self.pvalue)]
        return {"coefficients": rows, "conf_level": self.confidence_level, "formula": self.formula,
                "model": self.model, "method": self.method, "epsilon": self.epsilon, "delta": self.delta,
                "mechanism": self.mechanism, "secure": self.secure, "privacy_unit": self.privacy_unit,
                "neighbours": self.neighbours,
                "n_sim": self.n_sim, "data_name": self.data_name, "note": self.note}

    def plot(self, *, odds_ratio=False, ax=None, title=None):
        """The forest plot of the coefficients' fiducial intervals (:func:`dpinfer.plot.forest_plot`).

        ``odds_ratio=True`` draws ``exp`` of the coefficients (odds ratios; the intercept's, the
        baseline odds) on a log axis.  Returns the matplotlib Axes.
        """
        from ..plot import forest_plot

        return forest_plot(self, ax=ax, title=title, odds_ratio=odds_ratio)

    def to_frame(self):
        """A tidy :class:`pandas.DataFrame`, one row per coefficient (broom's ``tidy(conf.int = TRUE)``).

        Columns ``term``, ``estimate``, ``pvalue``, ``conf_low``, ``conf_high``,
        ``conf_level``, then ``method``, ``epsilon``, ``delta``, ``mechanism``,
        ``n_sim`` repeated on every row.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # optional dependency
            raise ImportError("to_frame needs pandas; install it with `pip install pandas`.") from exc
        return pd.DataFrame({
            "term": list(self.terms), "estimate": list(self.estimate), "pvalue": list(self.pvalue),
            "conf_low": list(self.conf_low), "conf_high": list(self.conf_high),
            "conf_level": self.confidence_level, "method": self.method, "epsilon": self.epsilon,
            "delta": self.delta, "mechanism": self.mechanism, "n_sim": self.n_sim,
        })


LogisticJimiResult.__module__ = "dpinfer.results"  # pickles and docs name the public path
