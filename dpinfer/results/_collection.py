"""Many results together: :class:`HTestResults` and :func:`map_results`."""

from __future__ import annotations

import numpy as np

from .._printing import _csv_text, _json_text, _write_or_return
from .._validation import _as_real_array
from ._htest import HTestResult, results_to_frame

__all__ = ["HTestResults", "map_results"]


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
    >>> res = map_results(binom_ump_test, [3.04, 11.2], 30, p0=0.2, epsilon=1.0)
    >>> len(res), res.pvalue.round(4)
    (2, array([0.2496, 0.0464]))
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

    def plot(self, *, ax=None, title=None):
        """The forest plot of every result's interval, labelled with its data
        (:func:`dpinfer.plot.forest_plot`).  Returns the matplotlib Axes."""
        from ..plot import forest_plot

        return forest_plot(self, ax=ax, title=title)

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

    from ..releasers.release import Release

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


for _cls in (HTestResults, map_results):
    _cls.__module__ = "dpinfer.results"  # pickles and docs name the public path
