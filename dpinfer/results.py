"""Result types: :class:`HTestResult` and :class:`ConfidenceInterval`.

They are modelled on R's ``htest`` objects so that a statistician coming from R
reads them at a glance: ``str(result)`` prints the layout of R's ``print.htest``
(same lines, same number formatting) followed by a ``privacy:`` line that says
what the release spent.  ``to_dict()`` is flat and JSON-safe; ``to_frame()``
returns a one-row tidy :class:`pandas.DataFrame` with broom-style column names,
and :func:`results_to_frame` stacks many results into one frame.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._printing import (
    _MECHANISM_CODES,
    _csv_text,
    _format_htest,
    _format_interval,
    _htest_notes,
    _htest_privacy_lines,
    _json_float,
    _json_text,
    _write_or_return,
)
from ._validation import (
    _as_real_array,
    _check_alternative,
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_real,
)

__all__ = ["ConfidenceInterval", "HTestResult", "HTestResults", "map_results", "results_to_frame"]

_R_ALTERNATIVE = {"two-sided": "two.sided", "less": "less", "greater": "greater"}


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval ``[low, high]`` with its confidence ``level``.

    Parameters
    ----------
    low, high : float
        Endpoints, ``low <= high``.  One-sided intervals put the parameter's own
        bound on the open side (0 or 1 for a proportion).
    level : float
        Confidence level in (0, 1), e.g. 0.95.

    Examples
    --------
    >>> ci = ConfidenceInterval(0.12, 0.51, 0.95)
    >>> print(ci)
    95 percent confidence interval: [0.12, 0.51]
    >>> ci.length
    0.39

    It unpacks and indexes like scipy's ``ConfidenceInterval`` (a named pair ``low, high``)
    and statsmodels' tuples:

    >>> low, high = ci
    >>> low, ci[1], len(ci), tuple(ci)
    (0.12, 0.51, 2, (0.12, 0.51))
    """

    low: float
    high: float
    level: float

    def __post_init__(self):
        low = _check_real(self.low, "low", finite=False)
        high = _check_real(self.high, "high", finite=False)
        level = _check_confidence_level(self.level, "level")
        if low > high:
            raise ValueError(f"`low` must not exceed `high`; got low={low!r}, high={high!r}.")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "level", level)

    @property
    def length(self):
        """``high - low``, rounded to 15 significant digits to hide representation noise."""
        return float(f"{self.high - self.low:.15g}")

    def contains(self, value):
        """Whether ``low <= value <= high``; ``value`` a real number (not NaN)."""
        value = _check_real(value, "value", finite=False)
        return bool(self.low <= value <= self.high)

    def __iter__(self):
        """``low, high = ci``: the two ends, in order (the level stays an attribute)."""
        return iter((self.low, self.high))

    def __len__(self):
        return 2

    def __getitem__(self, index):
        """``ci[0]`` is ``low``, ``ci[1]`` (or ``ci[-1]``) is ``high``; slices as a tuple's."""
        return (self.low, self.high)[index]

    def to_dict(self):
        """``{'conf_low', 'conf_high', 'conf_level'}``, JSON-safe (non-finite -> None)."""
        return {
            "conf_low": _json_float(self.low),
            "conf_high": _json_float(self.high),
            "conf_level": self.level,
        }

    def to_json(self, path=None):
        """:meth:`to_dict` as JSON text; written to ``path`` (and None returned) when given."""
        return _write_or_return(_json_text(self.to_dict()) + "\n", path)

    def to_csv(self, path=None):
        """:meth:`to_dict` as CSV text (a header line and one row); written to ``path`` when given."""
        return _write_or_return(_csv_text([self.to_dict()]), path)

    def __str__(self):
        return _format_interval(self)


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
    >>> r.to_dict()['pvalue'], r.mechanism
    (0.0412, 'tulap')
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

    def _privacy_lines(self):
        """``privacy:`` (budget, mechanism, sampling path, draws) and ``unit of privacy:``."""
        return _htest_privacy_lines(self)

    def to_dict(self):
        """A flat, JSON-safe dict of every field, keyed as in the table of the user guide.

        The keys are those of :meth:`to_frame`, the command's ``--format json`` and
        ``--format csv`` (see ``docs/results.rst``): the interval becomes
        ``conf_low``, ``conf_high``, ``conf_level`` (None when absent), ``note``
        joins the printed notes, and non-finite numbers become None.
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

    def plot(self, *, theta=None, ax=None):
        """The confidence curve (p-value function) with the interval marked.

        See :func:`dpinfer.plot.confidence_curve` (matplotlib is imported here, not
        before).  Returns the matplotlib Axes.
        """
        from .plot import confidence_curve

        return confidence_curve(self, theta=theta, ax=ax)

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
        ``privacy.unit``, ``n.sim``, ``estimate.raw`` and ``note``.  JSON-safe (non-finite -> None).

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
            "conf.int": None if ci is None else [_json_float(ci.low), _json_float(ci.high)],
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
    return pd.DataFrame(rows, columns=_TIDY_COLUMNS)


_TIDY_COLUMNS = [
    "estimate", "statistic", "pvalue", "parameter", "conf_low", "conf_high", "conf_level", "null_value",
    "method", "alternative", "epsilon", "delta", "mechanism", "secure", "privacy_unit", "n_sim",
    "data_name", "statistic_name", "parameter_name", "estimate_name", "null_name", "estimate_raw",
    "note",
]


def _is_count(value):
    """An integer (not a bool): a count such as the number of trials, kept as an ``int``."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _json_number(value):
    """An int stays an int (a count); anything else as :func:`_json_float`."""
    return value if _is_count(value) else _json_float(value)


class HTestResults:
    """Many test results, one per release, that tabulate and export together.

    Returned by :func:`map_results`.  A sequence: ``len``, indexing (a slice gives
    an ``HTestResults``), iteration over the :class:`HTestResult` objects.  The
    vectorised calls of the tests (an array ``z``) keep returning a bare array of
    p-values, the fast path for simulation; this collection is the opt-in for a
    report: one full result per release, with its interval.

    Attributes
    ----------
    pvalue : ndarray
        The p-values, in order (what the array call returns).

    Examples
    --------
    >>> from dpinfer import binom_ump_test, map_results
    >>> res = map_results(binom_ump_test, [3.0, 11.2], 30, p0=0.2, epsilon=1.0)
    >>> len(res), res.pvalue.round(4)
    (2, array([0.2434, 0.0464]))
    >>> print(res.to_csv().splitlines()[0][:40])
    estimate,statistic,pvalue,parameter,conf
    """

    def __init__(self, results):
        try:
            results = tuple(results)
        except TypeError as exc:
            raise TypeError(f"`results` must be an iterable of HTestResult objects; got "
                            f"{type(results).__name__}.") from exc
        for i, r in enumerate(results):
            if not isinstance(r, HTestResult):
                raise TypeError(f"`results` must contain HTestResult objects; element {i} is "
                                f"{type(r).__name__}.")
        self._results = results

    def __len__(self):
        return len(self._results)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return HTestResults(self._results[index])
        return self._results[index]

    def __iter__(self):
        return iter(self._results)

    def __eq__(self, other):
        return isinstance(other, HTestResults) and self._results == other._results

    __hash__ = None

    @property
    def pvalue(self):
        return np.array([r.pvalue for r in self._results], dtype=float)

    def __repr__(self):
        methods = sorted({r.method for r in self._results})
        return (f"<HTestResults: {len(self)} results of {'; '.join(methods) or 'no test'}; "
                "to_frame(), to_csv(), to_json(), or index one to print it>")

    def to_dict(self):
        """A list of :meth:`HTestResult.to_dict` records, one per result."""
        return [r.to_dict() for r in self._results]

    def to_frame(self):
        """A tidy :class:`pandas.DataFrame`, one row per result (:func:`results_to_frame`)."""
        return results_to_frame(self._results)

    def to_json(self, path=None):
        """A JSON list of the records; written to ``path`` (and None returned) when given."""
        return _write_or_return(_json_text(self.to_dict()) + "\n", path)

    def to_csv(self, path=None):
        """CSV text, a header line and one row per result (the command's ``--format csv``);
        written to ``path`` (and None returned) when given."""
        if not self._results:
            raise ValueError("an empty HTestResults has no CSV columns to write.")
        return _write_or_return(_csv_text(self.to_dict()), path)


def map_results(func, values, *args, **kwargs):
    """Run a test on each of many released values and collect the full results.

    ``func(value, *args, **kwargs)`` is called once per value and must return an
    :class:`HTestResult`; ``values`` is a sequence or array of released values
    (flattened), a sequence of :class:`~dpinfer.Release` objects, or one Release
    holding an array (split into one Release per element, in C order).

    Parameters
    ----------
    func : callable
        A test, e.g. :func:`~dpinfer.binom_ump_test` or :func:`~dpinfer.prop_test`.
    values : array_like, sequence of Release, or Release
    *args, **kwargs
        Passed on to ``func`` unchanged.

    Returns
    -------
    HTestResults

    Notes
    -----
    This runs the scalar path once per value, so each result carries its interval;
    for p-values alone the array call (``binom_ump_test(z_array, ...)``) is much faster.
    """
    import dataclasses

    from .releasers.release import Release

    if not callable(func):
        raise TypeError(f"`func` must be callable (a test function); got {type(func).__name__}.")
    if isinstance(values, Release):
        items = ([values] if np.ndim(values.value) == 0 else
                 [dataclasses.replace(values, value=float(v)) for v in np.ravel(values.value)])
    elif isinstance(values, (list, tuple)) and any(isinstance(v, Release) for v in values):
        items = list(values)
    else:
        items = [float(v) for v in _as_real_array(values, "values", finite=False).ravel()]
    out = []
    for v in items:
        result = func(v, *args, **kwargs)
        if not isinstance(result, HTestResult):
            raise TypeError(f"`func` must return an HTestResult for one value; "
                            f"{getattr(func, '__name__', 'func')} returned {type(result).__name__}.")
        out.append(result)
    return HTestResults(out)
