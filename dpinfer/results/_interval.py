"""A confidence interval with its level: :class:`ConfidenceInterval`."""

from __future__ import annotations

from dataclasses import dataclass

from .._printing import _csv_text, _format_interval, _json_end, _json_text, _write_or_return
from .._validation import _check_confidence_level, _check_real

__all__ = ["ConfidenceInterval"]


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
        """``{'conf_low', 'conf_high', 'conf_level'}``; an unbounded end stays ``-inf``/``inf`` (an
        answer, not a missing value: JSON and CSV text write it "-Inf"/"Inf", R's spelling)."""
        return {
            "conf_low": _json_end(self.low),
            "conf_high": _json_end(self.high),
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


ConfidenceInterval.__module__ = "dpinfer.results"  # pickles and docs name the public path
