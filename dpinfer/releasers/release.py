"""The :class:`Release`: what a releaser hands out, and everything inference needs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._printing import _r_format
from .._validation import (
    _as_real_array,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_positive,
    _show,
)

__all__ = ["Release"]


@dataclass(frozen=True, eq=False)
class Release:
    """A privatized statistic and the record of what it cost.

    Attributes
    ----------
    value : float or ndarray
        The noisy statistic (an array when many inputs were released at once; the
        array is read-only).
    mechanism : str
        ``'tulap'`` or ``'laplace'`` (and the local-DP mechanisms' names).
    epsilon, delta : float
        The privacy parameters of the mechanism, per released element: what a
        scalar release spends.  An array of ``k`` separate statistics of one data
        set spends ``k`` times this; a :class:`~dpinfer.PrivacyBudget` passed to
        the releaser charges accordingly (its ``array=`` argument).
    sensitivity : float
        Largest change of the true statistic between neighbouring datasets.
    n : int or None
        Number of records (public), when the statistic is a count or proportion.
    kind : str
        ``'count'`` (a count out of n), ``'proportion'`` (count / n), ``'value'``,
        ``'reports'`` (one privatized report per respondent, local DP), or
        ``'table'`` (an r x c table of noisy counts, see
        :class:`~dpinfer.ContingencyTableReleaser`).
    secure : bool
        True when the hardened path drew the noise (random bits from the operating
        system's cryptographic source); False for the seeded research path (bits
        from a numpy Generator: reproducible, hence predictable).  Both paths
        build the output in integers and release exactly the same law.
    ledger_digest : str or None
        The head digest of the :class:`~dpinfer.PrivacyBudget` ledger right after
        this release's charge (SHA-256, hex; see
        :attr:`~dpinfer.PrivacyBudget.head_digest`); None when no budget was
        charged.  Published with the release, it ties the release to the ledger:
        a later edit of the ledger's entries up to this one breaks the match.

    Notes
    -----
    A Release never carries the confidential input.  Inference functions accept a
    Release in place of ``z`` or ``pi_hat`` and then take ``n``, ``epsilon`` and
    ``delta`` from it (and, for a Tulap count, its ``sensitivity`` ``k``: the
    noise is the Tulap law of ``epsilon / k``, see :class:`~dpinfer.TulapReleaser`).
    """

    value: float | np.ndarray
    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float
    n: int | None
    kind: str
    secure: bool = False
    ledger_digest: str | None = None

    def __post_init__(self):
        value = _as_real_array(self.value, "value")
        for name in ("mechanism", "kind"):
            text = getattr(self, name)
            if not isinstance(text, str) or not text:
                raise TypeError(f"`{name}` must be a non-empty string; got {_show(text)}.")
        if self.kind not in _KINDS:
            raise ValueError(f"`kind` must be one of {', '.join(map(repr, _KINDS))}; got {self.kind!r}.")
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", _check_delta(self.delta))
        object.__setattr__(self, "sensitivity", _check_positive(self.sensitivity, "sensitivity"))
        if self.n is not None:
            object.__setattr__(self, "n", _check_int(self.n, "n", minimum=1))
        if not isinstance(self.secure, (bool, np.bool_)):
            raise TypeError(f"`secure` must be True or False; got {_show(self.secure)}.")
        object.__setattr__(self, "secure", bool(self.secure))
        if self.ledger_digest is not None and not isinstance(self.ledger_digest, str):
            raise TypeError(f"`ledger_digest` must be None or a string; got {_show(self.ledger_digest)}.")
        if value.ndim == 0:
            value = float(value)
        else:
            value = value.copy()
            value.setflags(write=False)
        object.__setattr__(self, "value", value)

    def __str__(self):
        value = self.value
        if isinstance(value, float):
            shown = _r_format([value], 7)[0]
        else:
            shown = f"array of {value.size} values, shape {value.shape}"
        what = {"count": "noisy count", "proportion": "noisy proportion",
                "reports": "privatized reports",
                "table": "noisy contingency table"}.get(self.kind, "noisy value")
        n_part = f" out of n = {self.n}" if self.n is not None else ""
        eps = _r_format([self.epsilon], 7)[0]
        delta = _r_format([self.delta], 7)[0]
        sens = _r_format([self.sensitivity], 7)[0]
        return (
            f"dpinfer release ({self.mechanism} mechanism)\n"
            f"  value:       {shown} ({what}{n_part})\n"
            f"  privacy:     epsilon = {eps}, delta = {delta}\n"
            f"  sensitivity: {sens}\n"
            f"  sampling:    {_SAMPLING[self.secure]}"
            + (f"\n  ledger:      head digest {self.ledger_digest} (after this release's charge)"
               if self.ledger_digest else "")
        )

    def to_dict(self):
        """A JSON-safe dict (an array value becomes a list)."""
        value = self.value if isinstance(self.value, float) else self.value.tolist()
        return {
            "value": value,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sensitivity": self.sensitivity,
            "n": self.n,
            "kind": self.kind,
            "secure": self.secure,
            "ledger_digest": self.ledger_digest,
        }


_KINDS = ("count", "proportion", "value", "reports", "table")

_SAMPLING = {
    True: "hardened (OS cryptographic source, exact integer noise)",
    False: "seeded numpy generator (exact integer noise; predictable: research only)",
}
