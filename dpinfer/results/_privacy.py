"""The privacy record every result carries: :class:`PrivacyRecord`."""

from __future__ import annotations

from dataclasses import dataclass

from .. import _mechanisms
from .._printing import _r_format
from .._validation import _check_delta, _check_epsilon, _show

__all__ = ["PrivacyRecord"]

#: the sampling paths a record names (None: the result was given bare numbers)
PATHS = ("hardened", "seeded")

_PATH_TEXT = {"hardened": "hardened path (OS source)", "seeded": "seeded path (research only)"}

#: sequential: the releases' epsilons and deltas added; parallel: the largest of each
_COMPOSITION_TEXT = {"sequential": "sequential composition", "parallel": "parallel composition (disjoint groups)"}


def path_of(secure):
    """``'hardened'``, ``'seeded'`` or None from a Release's ``secure`` (True, False, None)."""
    return None if secure is None else ("hardened" if secure else "seeded")


@dataclass(frozen=True)
class PrivacyRecord:
    """What the releases behind a result cost and protect: the result's ``privacy`` lines.

    Every result (:class:`HTestResult`, :class:`PointEstimate`,
    :class:`RobustEstimate`, :class:`LogisticJimiResult`) has one as its
    ``privacy`` attribute, built from the records of its releases (the resolver
    reads them from each :class:`~dpinfer.Release`); its print is the result's
    ``privacy:`` line and ``unit of privacy:`` line.

    Attributes
    ----------
    epsilon, delta : float
        What the releases behind the result spent together (see ``composition``).
    mechanism : str
        The mechanism code, as the Release records it (``'tulap'``, ``'laplace'``,
        ...); ``''`` when not known.
    neighbours : str or None
        The neighbouring relation of the guarantee (``'replace-one'`` or
        ``'add-remove'``, as the releases record it); None for bare numbers.
    privacy_unit : str
        What the guarantee protects, in words; ``''`` for bare numbers.
    path : {'hardened', 'seeded'} or None
        The sampling path of the releases (``'hardened'`` only when every one was
        drawn from the OS cryptographic source); None for bare numbers.
    composition : {'sequential', 'parallel'} or None
        How the releases of a result of several were composed (None for a result
        of one release): ``'parallel'`` only when the releases record different
        groups of one budget's parallel set (or the caller stated it), the largest
        epsilon and delta; else ``'sequential'``, the sums.  See
        :mod:`dpinfer._composition_rule`, the one rule every method applies.

    Examples
    --------
    >>> from dpinfer.results import PrivacyRecord
    >>> rec = PrivacyRecord(2.0, 0.0, "tulap", "replace-one", "one record (replace-one, n public)", "seeded",
    ...                     "sequential")
    >>> print(rec)
    privacy: epsilon = 2, delta = 0, sequential composition, Tulap mechanism, seeded path (research only)
    unit of privacy: one record (replace-one, n public)
    """

    epsilon: float
    delta: float = 0.0
    mechanism: str = ""
    neighbours: str | None = None
    privacy_unit: str = ""
    path: str | None = None
    composition: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", _check_delta(self.delta))
        for name in ("mechanism", "privacy_unit"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"`{name}` must be a string; got {_show(getattr(self, name))}.")
        object.__setattr__(self, "mechanism", _mechanisms.code(self.mechanism))
        for name, choices in (("path", PATHS), ("composition", ("sequential", "parallel"))):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or value not in choices):
                raise ValueError(f"`{name}` must be None, {' or '.join(map(repr, choices))}; got {_show(value)}.")
        if self.neighbours is not None and not (isinstance(self.neighbours, str) and self.neighbours):
            raise TypeError(f"`neighbours` must be None or a non-empty string; got {_show(self.neighbours)}.")

    def lines(self, n_sim=None):
        """The printed lines: ``privacy:`` (budget, composition, mechanism, path, and the
        result's ``n_sim`` Monte Carlo draws when given) and ``unit of privacy:``."""
        eps = _r_format([self.epsilon], 7)[0]
        delta = _r_format([self.delta], 7)[0]
        details = [f"epsilon = {eps}", f"delta = {delta}"]
        if self.composition is not None:
            details.append(_COMPOSITION_TEXT[self.composition])
        if self.mechanism:
            details.append(f"{_mechanisms.printed(self.mechanism)} mechanism")
        if self.path is not None:
            details.append(_PATH_TEXT[self.path])
        if n_sim is not None:
            details.append(f"{n_sim} Monte Carlo draws")
        lines = ["privacy: " + ", ".join(details)]  # one line each, so that grep and R's readLines find it
        if self.privacy_unit:
            lines.append(f"unit of privacy: {self.privacy_unit}")
        return lines

    def __str__(self):
        return "\n".join(self.lines())

    def to_dict(self):
        """The fields, JSON-safe, under the keys results use in ``to_dict()``/JSON/CSV."""
        return {"epsilon": self.epsilon, "delta": self.delta, "mechanism": self.mechanism,
                "neighbours": self.neighbours, "privacy_unit": self.privacy_unit, "path": self.path,
                "composition": self.composition}


PrivacyRecord.__module__ = "dpinfer.results"  # pickles and docs name the public path
