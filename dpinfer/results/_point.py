"""The result of a point estimator: :class:`PointEstimate`.

The local-DP estimators debias the noise, which gives an unbiased estimate that can fall
outside the parameter space.  One rule, the one the tests follow with ``estimate`` and
``estimate_raw`` (:class:`~dpinfer.HTestResult`): report the estimate projected onto the
parameter space, and keep the unbiased value beside it as its own field.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import _check_epsilon, _check_int
from .._printing import (
    _MECHANISM_CODES,
    _csv_text,
    _format_point_estimate,
    _json_float,
    _json_text,
    _write_or_return,
)

__all__ = ["PointEstimate"]

#: estimate names whose single estimate is one number (else a vector along the last axis)
_SCALAR_ESTIMANDS = ("proportion", "mean")


@dataclass(frozen=True, eq=False, repr=False)
class PointEstimate:
    """A point estimate in the parameter space, with the unbiased estimate beside it.

    Returned by the local-DP estimators (:func:`~dpinfer.rr_proportion_estimate`,
    :func:`~dpinfer.krr_frequency_estimate`, :func:`~dpinfer.unary_frequency_estimate`,
    :func:`~dpinfer.local_laplace_mean_estimate`, :func:`~dpinfer.ldp_histogram_density`).
    The rule is the one of the tests' ``estimate``/``estimate_raw``: debiasing the noise
    gives an unbiased estimate that can fall outside the parameter space (a negative
    frequency, a proportion above 1); ``estimate`` is its projection onto the space (what
    to report), ``estimate_raw`` the unbiased value itself (what to average over data sets
    or pass to a meta-analysis).  Where the unbiased value lies in the space the two agree.

    The object converts to an array of ``estimate`` (``np.asarray(result)``, numpy
    functions, indexing and ``len`` see the estimate), and to a float when it holds one
    number.

    Attributes
    ----------
    estimate : float or ndarray
        The unbiased estimate projected onto the parameter space: clipped to an interval
        for a proportion or a mean, the Euclidean projection onto the probability simplex
        for frequencies (Wang & Carreira-Perpinan 2013) and for histogram bin
        probabilities.
    estimate_raw : float or ndarray
        The unbiased estimate, same shape.
    estimate_name : str
        What is estimated ("proportion", "category frequencies", "mean", "density").
    parameter_space : str
        The space ``estimate`` lies in, in words ("[0, 1]", "the probability simplex").
    method : str
        One line naming the estimator.
    epsilon : float
        The local-DP level of the reports.
    mechanism : str
        The mechanism code, as the Release records it ('krr', 'unary_encoding', ...).
    n : int or None
        Number of reports per data set (None when it varies across a batch).
    privacy : PrivacyRecord
        ``epsilon`` and ``mechanism`` as a :class:`PrivacyRecord` (read-only property).

    Examples
    --------
    >>> from dpinfer import krr_frequency_estimate
    >>> est = krr_frequency_estimate(counts=[50, 30, 20], epsilon=1.0, k=3)
    >>> est.estimate_raw.round(4)
    array([ 0.791 ,  0.2418, -0.0328])
    >>> est.estimate.round(4)
    array([0.7746, 0.2254, 0.    ])
    """

    estimate: object
    estimate_raw: object
    estimate_name: str
    parameter_space: str
    method: str
    epsilon: float
    mechanism: str = ""
    n: int | None = None

    def __post_init__(self):
        for name in ("estimate", "estimate_raw"):
            value = getattr(self, name)
            if np.ndim(value) == 0:
                object.__setattr__(self, name, float(value))
            else:
                arr = np.array(value, dtype=float)
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)
        if np.shape(self.estimate) != np.shape(self.estimate_raw):
            raise ValueError(
                "`estimate` and `estimate_raw` must have the same shape; got "
                f"{np.shape(self.estimate)} and {np.shape(self.estimate_raw)}.")
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        for name in ("estimate_name", "parameter_space", "method", "mechanism"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"`{name}` must be a string; got {getattr(self, name)!r}.")
        object.__setattr__(self, "mechanism", _MECHANISM_CODES.get(self.mechanism, self.mechanism))
        if self.n is not None:
            object.__setattr__(self, "n", _check_int(self.n, "n", minimum=1))

    @property
    def privacy(self):
        """The :class:`PrivacyRecord` of the estimate (the local-DP level of one release of reports;
        a local mechanism protects one respondent's answer, whoever typed the counts)."""
        from .. import _mechanisms
        from ._privacy import PrivacyRecord

        unit = _mechanisms.LOCAL_UNIT if self.mechanism in _mechanisms.LOCAL else ""
        return PrivacyRecord(self.epsilon, 0.0, self.mechanism, privacy_unit=unit)

    # -- the estimate as a number or an array -------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return np.array(self.estimate, dtype=dtype)

    def __float__(self):
        if np.ndim(self.estimate) != 0:
            raise TypeError(
                f"only a single estimate converts to float; this one has shape "
                f"{np.shape(self.estimate)} (use .estimate).")
        return float(self.estimate)

    def __len__(self):
        if np.ndim(self.estimate) == 0:
            raise TypeError("a single estimate has no len(); use float(result) or .estimate.")
        return len(self.estimate)

    def __getitem__(self, index):
        if np.ndim(self.estimate) == 0:
            raise TypeError("a single estimate cannot be indexed; use float(result) or .estimate.")
        return self.estimate[index]

    def __iter__(self):
        if np.ndim(self.estimate) == 0:
            raise TypeError("a single estimate is not iterable; use float(result) or .estimate.")
        return iter(self.estimate)

    @property
    def projected(self):
        """Whether the projection moved the estimate (any entry of it)."""
        return bool(np.any(np.asarray(self.estimate) != np.asarray(self.estimate_raw)))

    # -- printing and export ----------------------------------------------------------------
    def __str__(self):
        return _format_point_estimate(self)

    def __repr__(self):
        return str(self)

    def _unit_ndim(self):
        """Dimensions of one estimate: 0 for a proportion or mean, 1 for a vector."""
        return 0 if self.estimate_name in _SCALAR_ESTIMANDS else 1

    def to_dict(self):
        """A JSON-safe dict: the two estimates (numbers or nested lists, non-finite -> None)
        and the descriptive fields."""
        def plain(v):
            if np.ndim(v) == 0:
                return _json_float(v)
            return np.vectorize(_json_float, otypes=[object])(np.asarray(v)).tolist()

        return {
            "estimate": plain(self.estimate),
            "estimate_raw": plain(self.estimate_raw),
            "estimate_name": self.estimate_name,
            "parameter_space": self.parameter_space,
            "method": self.method,
            "epsilon": self.epsilon,
            "mechanism": self.mechanism,
            "n": self.n,
        }

    def to_frame(self):
        """A long :class:`pandas.DataFrame`: one row per number, with ``estimate`` and
        ``estimate_raw`` columns and an index column per array axis (``data_set`` for a
        batch, ``category`` or ``bin`` for a vector)."""
        try:
            import pandas as pd
        except ImportError as exc:  # optional dependency
            raise ImportError("PointEstimate.to_frame needs pandas; install it with "
                              "`pip install pandas`.") from exc

        return pd.DataFrame(self._long_columns())

    def _long_columns(self):
        """The columns of :meth:`to_frame` as a dict of 1-d arrays (no pandas needed)."""
        est = np.asarray(self.estimate, dtype=float)
        raw = np.asarray(self.estimate_raw, dtype=float)
        unit = self._unit_ndim()
        batch = est.ndim - unit
        names = [f"data_set_{i}" if batch > 1 else "data_set" for i in range(batch)]
        if unit:
            names.append("bin" if self.estimate_name == "density" else "category")
        index = np.indices(est.shape).reshape(est.ndim, est.size)
        data = {name: index[i] for i, name in enumerate(names)}
        data["estimate"] = est.ravel()
        data["estimate_raw"] = raw.ravel()
        return data

    def to_json(self, path=None):
        """:meth:`to_dict` as JSON text; written to ``path`` (and None returned) when given."""
        return _write_or_return(_json_text(self.to_dict()) + "\n", path)

    def to_csv(self, path=None):
        """The rows of :meth:`to_frame` as CSV text (non-finite numbers as empty cells);
        written to ``path`` (and None returned) when given.

        Examples
        --------
        >>> from dpinfer import krr_frequency_estimate
        >>> print(krr_frequency_estimate(counts=[50, 30, 20], epsilon=1.0, k=3).to_csv())
        ... # doctest: +ELLIPSIS
        category,estimate,estimate_raw
        0,0.7...
        """
        columns = self._long_columns()
        rows = [{name: (int(col[i]) if col.dtype.kind == "i" else _json_float(col[i]))
                 for name, col in columns.items()} for i in range(columns["estimate"].size)]
        return _write_or_return(_csv_text(rows), path)


PointEstimate.__module__ = "dpinfer.results"  # pickles and docs name the public path
