"""The result of a hypothesis test, in the shape of R's ``htest``: :class:`HTestResult`.

``str(result)`` prints the layout of R's ``print.htest`` (same lines, same number
formatting) followed by the result's privacy lines (its :class:`PrivacyRecord`).
``to_dict()`` is flat and JSON-safe; ``to_frame()`` returns a one-row tidy
:class:`pandas.DataFrame` with broom-style column names, and
:func:`results_to_frame` stacks many results into one frame.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .._printing import (
    _MECHANISM_CODES,
    _csv_text,
    _format_htest,
    _htest_notes,
    _json_end,
    _json_float,
    _json_text,
    _write_or_return,
)
from .._validation import (
    _check_alternative,
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_real,
)
from ._interval import ConfidenceInterval
from ._privacy import PrivacyRecord, path_of

__all__ = ["HTestResult", "results_to_frame"]

_R_ALTERNATIVE = {"two-sided": "two.sided", "less": "less", "greater": "greater"}


@dataclass(frozen=True)
class HTestResult:
    """The result of a hypothesis test, in the shape of R's ``htest``.

    Attributes
    ----------
    statistic : float
        The test statistic (for DP tests usually the released value itself).
    pvalue : float
        The p-value.
    null_value : float or None
        The parameter value under the null hypothesis (``p0``); None for a test whose
        null is no parameter value (independence, goodness of fit), as R's
        ``chisq.test`` has no ``null.value`` (the print then has no alternative line).
    alternative : {'two-sided', 'less', 'greater'}
        The alternative hypothesis.
    method : str
        What test was run, in words.
    estimate : float or None
        Point estimate of the parameter.
    conf_int : ConfidenceInterval or None
        The interval that matches the test (same alternative).
    epsilon, delta : float
        The privacy budget of the release the test consumed.
    data_name : str
        What data the test was computed from (R's ``data.name``).
    statistic_name, estimate_name, null_name : str
        Names printed beside the statistic, the estimate and the null value
        (R's ``names(x$statistic)`` and so on).
    mechanism : str
        The privacy mechanism of the release ('Tulap', 'Laplace', ...).
    n_sim : int or None
        Monte Carlo draws behind the answer; None when it is exact.
    parameter : int, float or None
        A parameter of the test's null distribution, printed after the
        statistic (R's ``x$parameter``, e.g. the number of trials).  An integer
        given (a count such as ``n``) stays an ``int``.
    parameter_name : str
        Name printed beside ``parameter`` (R's ``names(x$parameter)``).
    estimate_raw : float or None
        The unbiased estimate before projection onto the parameter space, when
        the method has one (None otherwise).  The rule of every dpinfer test:
        ``estimate`` is the projection of ``estimate_raw`` onto the space of the
        reported parameter (a proportion clipped to [0, 1], a difference of two
        proportions to [-1, 1]), and the print says so in a line of its own
        when the two differ.
    secure : bool or None
        The sampling path of the release behind the result: True for the
        hardened path (OS cryptographic source), False for the seeded numpy
        path (research only), None when the test was given bare numbers.
        Copied from :attr:`Release.secure <dpinfer.Release.secure>` when the
        input is a Release.
    privacy_unit : str
        What the release's guarantee protects, e.g. ``'one record (replace-one,
        n public)'``; empty when the test was given bare numbers.
    neighbours : str or None
        The neighbouring relation the releases' guarantee holds under
        (``'replace-one'`` or ``'add-remove'``, as the Release records it); None
        for bare numbers.
    composition : {'sequential', 'parallel'} or None
        How the releases of a result of several (two arms, two groups) were
        composed; None for a result of one release.  ``epsilon`` and ``delta``
        are then the sums (sequential) or the largest (parallel: the releases
        record disjoint groups of one budget's parallel set).
    privacy : PrivacyRecord
        The fields above gathered in one frozen record (read-only property):
        what the result prints as its ``privacy:`` lines.
    note : str
        A one-line remark of the method printed under the result (e.g. why an
        interval is a hull).  A zero-width interval adds its own note.
    pvalue_function : callable or None
        ``f(p0)``: the p-value the same test gives the same data at other null
        values (an array of them), which draws the confidence curve
        (:meth:`plot`, :func:`dpinfer.plot.confidence_curve`); None when the
        method does not provide it.  Not printed, not compared, not in
        :meth:`to_dict`.

    ``mechanism`` is stored as the Release names it (``'tulap'``,
    ``'laplace'``, ``'krr'``, ...); the print shows its display name.
    ``repr(result)`` is the printed layout (as at R's prompt), and notebooks
    show it through ``_repr_html_``.

    Examples
    --------
    >>> r = HTestResult(statistic=7.3, pvalue=0.0412, null_value=0.5, alternative='less',
    ...                 method='Example test', estimate=0.243, epsilon=1.0,
    ...                 conf_int=ConfidenceInterval(0.0, 0.48, 0.95), data_name='z = 7.3, n = 30',
    ...                 statistic_name='z', mechanism='Tulap')
    >>> print(r)
    <BLANKLINE>
    	Example test
    <BLANKLINE>
    data:  z = 7.3, n = 30
    z = 7.3, p-value = 0.0412
    alternative hypothesis: true probability of success is less than 0.5
    95 percent confidence interval:
     0.00 0.48
    sample estimates:
    probability of success 
                     0.243 
    <BLANKLINE>
    privacy: epsilon = 1, delta = 0, Tulap mechanism
    <BLANKLINE>
    >>> r.to_dict()['pvalue'], r.mechanism, r.privacy.composition
    (0.0412, 'tulap', None)
    """

    statistic: float
    pvalue: float
    null_value: float | None
    alternative: str
    method: str
    estimate: float | None
    conf_int: ConfidenceInterval | None
    epsilon: float
    delta: float = 0.0
    data_name: str = ""
    statistic_name: str = "statistic"
    estimate_name: str = "probability of success"
    null_name: str = "probability of success"
    mechanism: str = ""
    n_sim: int | None = None
    parameter: float | None = None
    parameter_name: str = "parameter"
    estimate_raw: float | None = None
    secure: bool | None = None
    privacy_unit: str = ""
    note: str = ""
    pvalue_function: Callable | None = field(default=None, compare=False, repr=False)
    neighbours: str | None = None
    composition: str | None = None

    def __post_init__(self):
        for name in ("statistic", "null_value"):
            if name == "null_value" and self.null_value is None:
                continue
            object.__setattr__(self, name, _check_real(getattr(self, name), name, finite=False))
        object.__setattr__(self, "pvalue", _check_real(self.pvalue, "pvalue"))
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", _check_delta(self.delta))
        for name in ("estimate", "parameter", "estimate_raw"):
            value = getattr(self, name)
            if name == "parameter" and _is_count(value):
                object.__setattr__(self, name, _check_int(value, name, minimum=-2**53))
            elif value is not None:
                object.__setattr__(self, name, _check_real(value, name, finite=False))
        if self.pvalue_function is not None and not callable(self.pvalue_function):
            raise TypeError(f"`pvalue_function` must be callable or None; got "
                            f"{type(self.pvalue_function).__name__}.")
        for name in ("method", "data_name", "statistic_name", "estimate_name", "null_name",
                     "mechanism", "parameter_name", "privacy_unit", "note"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"`{name}` must be a string; got {getattr(self, name)!r}.")
        # One vocabulary: the result names its mechanism as the Release does ('tulap').
        object.__setattr__(self, "mechanism", _MECHANISM_CODES.get(self.mechanism, self.mechanism))
        if self.secure is not None:
            if not isinstance(self.secure, bool) and type(self.secure).__name__ != "bool_":
                raise TypeError(f"`secure` must be True, False or None; got {self.secure!r}.")
            object.__setattr__(self, "secure", bool(self.secure))
        if self.n_sim is not None:
            object.__setattr__(self, "n_sim", _check_int(self.n_sim, "n_sim", minimum=1))
        self.privacy  # noqa: B018 -- the record checks neighbours and composition
        _check_alternative(self.alternative)
        if not (0.0 <= self.pvalue <= 1.0):
            raise ValueError(f"`pvalue` must lie in [0, 1]; got {self.pvalue!r}.")
        if self.conf_int is not None and not isinstance(self.conf_int, ConfidenceInterval):
            raise TypeError(f"`conf_int` must be a ConfidenceInterval or None; got {self.conf_int!r}.")

    def __str__(self):
        return _format_htest(self)

    def __repr__(self):
        # What a prompt (Python, IPython, reticulate) shows: the htest layout, as R does.
        return str(self)

    def _repr_html_(self):
        """The htest layout in a ``<pre>`` block, for Jupyter."""
        import html

        return f"<pre>{html.escape(str(self).strip(chr(10)))}</pre>"

    def _notes(self):
        """One-line notes printed under the result: the method's own, then a zero-width interval."""
        return _htest_notes(self)

    @property
    def privacy(self):
        """The :class:`PrivacyRecord` of the result (epsilon, delta, mechanism, neighbours, unit,
        sampling path, composition)."""
        return PrivacyRecord(self.epsilon, self.delta, self.mechanism, self.neighbours, self.privacy_unit,
                             path_of(self.secure), self.composition)

    def _privacy_lines(self):
        """``privacy:`` (budget, composition, mechanism, sampling path, draws) and ``unit of privacy:``."""
        return self.privacy.lines(self.n_sim)

    def to_dict(self):
        """A flat, JSON-safe dict of every field, keyed as in the table of the user guide.

        The keys are those of :meth:`to_frame`, the command's ``--format json`` and
        ``--format csv`` (see ``docs/results.rst``): the interval becomes
        ``conf_low``, ``conf_high``, ``conf_level`` (None when absent), ``note``
        joins the printed notes, and non-finite numbers become None, except an interval's
        unbounded end, which stays ``-inf``/``inf`` (JSON and CSV text: "-Inf"/"Inf").
        """
        ci = self.conf_int.to_dict() if self.conf_int is not None else {
            "conf_low": None, "conf_high": None, "conf_level": None}
        return {
            "estimate": _json_float(self.estimate),
            "statistic": _json_float(self.statistic),
            "pvalue": _json_float(self.pvalue),
            "parameter": _json_number(self.parameter),
            **ci,
            "null_value": _json_float(self.null_value),
            "method": self.method,
            "alternative": self.alternative,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "mechanism": self.mechanism,
            "secure": self.secure,
            "privacy_unit": self.privacy_unit,
            "neighbours": self.neighbours,
            "composition": self.composition,
            "n_sim": self.n_sim,
            "data_name": self.data_name,
            "statistic_name": self.statistic_name,
            "parameter_name": self.parameter_name,
            "estimate_name": self.estimate_name,
            "null_name": self.null_name,
            "estimate_raw": _json_float(self.estimate_raw),
            "note": " ".join(self._notes()),
        }

    def to_json(self, path=None):
        """:meth:`to_dict` as JSON text (the command's ``--format json``); written to ``path``
        (and None returned) when given."""
        return _write_or_return(_json_text(self.to_dict()) + "\n", path)

    def to_csv(self, path=None):
        """:meth:`to_dict` as CSV text, a header line and one row (the command's ``--format
        csv``); written to ``path`` (and None returned) when given."""
        return _write_or_return(_csv_text([self.to_dict()]), path)

    def confidence_interval(self, confidence_level=None):
        """The interval that matches the test (scipy's name for it): ``conf_int``.

        Parameters
        ----------
        confidence_level : float, optional
            Must be the level the test was run at (``conf_int.level``) when given: the
            result holds one interval.  For another level run the test again with
            ``confidence_level=``.

        Raises
        ------
        ValueError
            When the test has no interval, or for another level.
        """
        if self.conf_int is None:
            raise ValueError(f"this test ({self.method}) reports no confidence interval.")
        if confidence_level is not None:
            level = _check_confidence_level(confidence_level)
            if level != self.conf_int.level:
                raise ValueError(
                    f"`confidence_level` must be the level the test was run at, "
                    f"{self.conf_int.level!r}; got {level!r}. Run the test again with "
                    f"confidence_level={level!r} for that interval.")
        return self.conf_int

    def plot(self, *, theta=None, ax=None, xlabel=None, title=None, line_kw=None):
        """The confidence curve (p-value function) of the effect with the interval marked.

        See :func:`dpinfer.plot.confidence_curve` (matplotlib is imported here, not
        before): the axis names the effect (risk difference, risk ratio or odds ratio on
        a log scale, mean...), a new figure has the report defaults.  Returns the
        matplotlib Axes.  A result without a p-value function raises a TypeError naming
        the results that plot.
        """
        from ..plot import confidence_curve

        return confidence_curve(self, theta=theta, ax=ax, xlabel=xlabel, title=title, line_kw=line_kw)

    def to_frame(self):
        """One-row tidy :class:`pandas.DataFrame` whose columns are the keys of :meth:`to_dict`.

        The first columns follow broom's ``tidy()`` (``estimate``, ``statistic``,
        ``pvalue``, ``parameter``, ``conf_low``, ``conf_high``, ...); the names
        are the package's one vocabulary, the same in ``to_dict()``, JSON and CSV.
        """
        return results_to_frame([self])

    def to_htest(self):
        """A dict shaped like R's ``htest`` object, plus the privacy fields.

        Keys: ``statistic``, ``parameter``, ``estimate`` and ``null.value`` as
        one-entry dicts ``{name: value}`` (R's named vectors; ``parameter`` is
        None when the test has none); ``p.value``; ``conf.int`` as ``[low,
        high]`` with ``conf.level`` beside it (R keeps the level as an attribute
        of ``conf.int``); ``alternative`` spelled as R does (``'two.sided'``,
        ``'less'``, ``'greater'``); ``method``; ``data.name``.  Privacy and
        provenance: ``epsilon``, ``delta``, ``mechanism``, ``secure``,
        ``privacy.unit``, ``neighbours``, ``composition``, ``n.sim``, ``estimate.raw`` and ``note``.
        JSON-safe (non-finite -> None), but an unbounded end of ``conf.int`` stays
        ``-inf``/``inf`` (written "-Inf"/"Inf" in JSON text).

        ``docs/coming_from_r.rst`` gives the R function that turns this (read with
        ``jsonlite::fromJSON(simplifyVector = FALSE)``) into a real ``htest``.

        Examples
        --------
        >>> r = HTestResult(statistic=7.3, pvalue=0.0412, null_value=0.5, alternative='two-sided',
        ...                 method='Example test', estimate=0.243, epsilon=1.0,
        ...                 conf_int=ConfidenceInterval(0.1, 0.48, 0.95), statistic_name='Z')
        >>> h = r.to_htest()
        >>> h['statistic'], h['p.value'], h['alternative'], h['conf.int'], h['conf.level']
        ({'Z': 7.3}, 0.0412, 'two.sided', [0.1, 0.48], 0.95)
        """
        ci = self.conf_int
        return {
            "statistic": {self.statistic_name: _json_float(self.statistic)},
            "parameter": (None if self.parameter is None
                          else {self.parameter_name: _json_number(self.parameter)}),
            "p.value": _json_float(self.pvalue),
            "conf.int": None if ci is None else [_json_end(ci.low), _json_end(ci.high)],
            "conf.level": None if ci is None else ci.level,
            "estimate": None if self.estimate is None else {self.estimate_name: _json_float(self.estimate)},
            "null.value": (None if self.null_value is None
                           else {self.null_name: _json_float(self.null_value)}),
            "alternative": _R_ALTERNATIVE[self.alternative],
            "method": self.method,
            "data.name": self.data_name,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "mechanism": self.mechanism,
            "secure": self.secure,
            "privacy.unit": self.privacy_unit,
            "neighbours": self.neighbours,
            "composition": self.composition,
            "n.sim": self.n_sim,
            "estimate.raw": _json_float(self.estimate_raw),
            "note": " ".join(self._notes()),
        }


def results_to_frame(results):
    """Stack test results into one tidy :class:`pandas.DataFrame`, one row each.

    Parameters
    ----------
    results : iterable of HTestResult

    Returns
    -------
    pandas.DataFrame
        The columns of :meth:`HTestResult.to_frame`, one row per result, in order.

    Raises
    ------
    TypeError
        If an element is not an :class:`HTestResult`.
    ValueError
        If ``results`` is empty.
    ImportError
        If pandas is not installed (``pip install pandas``).
    """
    try:
        import pandas as pd
    except ImportError as exc:  # optional dependency
        raise ImportError("results_to_frame needs pandas; install it with `pip install pandas`.") from exc
    if isinstance(results, HTestResult):
        results = [results]
    try:
        results = list(results)
    except TypeError as exc:
        raise TypeError(
            f"`results` must be an iterable of HTestResult objects; got {type(results).__name__}."
        ) from exc
    rows = []
    for i, r in enumerate(results):
        if not isinstance(r, HTestResult):
            raise TypeError(f"`results` must contain HTestResult objects; element {i} is {type(r).__name__}.")
        rows.append(r.to_dict())
    if not rows:
        raise ValueError(
            "`results` must hold at least one HTestResult; got an empty iterable (a frame without rows "
            "would hide that nothing was computed)."
        )
    return pd.DataFrame(rows, columns=TIDY_COLUMNS)


TIDY_COLUMNS = [
    "estimate", "statistic", "pvalue", "parameter", "conf_low", "conf_high", "conf_level", "null_value",
    "method", "alternative", "epsilon", "delta", "mechanism", "secure", "privacy_unit", "neighbours",
    "composition", "n_sim",
    "data_name", "statistic_name", "parameter_name", "estimate_name", "null_name", "estimate_raw",
    "note",
]


def _is_count(value):
    """An integer (not a bool): a count such as the number of trials, kept as an ``int``."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _json_number(value):
    """An int stays an int (a count); anything else as :func:`_json_float`."""
    return value if _is_count(value) else _json_float(value)


for _cls in (HTestResult, results_to_frame):
    _cls.__module__ = "dpinfer.results"  # pickles and docs name the public path
