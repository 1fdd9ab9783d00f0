"""The ledger's parts: the refusal error, one ledger entry, and the checks and bounds every handle shares."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import namedtuple
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from fractions import Fraction

from .._json import strict_loads
from .._validation import _check_delta, _check_epsilon, _check_int, _check_positive, _show

__all__ = [
    "BudgetExceededError",
    "LedgerEntry",
]


_FORMAT = "dpinfer.PrivacyBudget"
_VERSION = 2  # 2: the hash chain, the release events' metadata and the allocation plan
_COMPOSITIONS = ("sequential", "parallel", "advanced-reserve", "advanced")

_Remaining = namedtuple("Remaining", ["epsilon", "delta"])
_Remaining.__doc__ = "What a budget has left: ``(epsilon, delta)``."


class BudgetExceededError(ValueError):
    """A charge would take a :class:`PrivacyBudget` past its total; nothing was drawn or charged.

    Attributes
    ----------
    detail : str
        The message without its leading "`budget` cannot pay for this release: ".
    requested_epsilon, requested_delta : float
        What the refused charge would have added to the spent totals.
    remaining_epsilon, remaining_delta : float
        What the budget (or the advanced-composition block) had left.
    """

    def __init__(self, detail, *, requested=(0.0, 0.0), remaining=(0.0, 0.0)):
        super().__init__(f"`budget` cannot pay for this release: {detail}")
        self.detail = detail
        self.requested_epsilon, self.requested_delta = (float(v) for v in requested)
        self.remaining_epsilon, self.remaining_delta = (float(v) for v in remaining)


# A traceback names an exception by its module: keep the public one, where users catch it.
BudgetExceededError.__module__ = "dpinfer.budget"


@dataclass(frozen=True)
class LedgerEntry:
    """One charge in a :class:`PrivacyBudget`'s ledger.

    Attributes
    ----------
    mechanism : str
        What was released (``'tulap'``, ``'laplace'``, ..., ``'manual'`` for a
        charge made with :meth:`PrivacyBudget.charge`, ``'advanced composition'``
        for a block's reservation).
    epsilon, delta : float
        The privacy parameters of each release (each element of an array).
    count : int
        How many releases at ``(epsilon, delta)`` the entry stands for (an array
        of ``count`` separate statistics; the planned releases of a block).
    charged_epsilon, charged_delta : float
        What this entry added to the budget's spent totals: ``count`` times the
        parameters under sequential composition, the rise of the group maximum
        under parallel composition, the bound for the whole block when an
        advanced block is reserved, 0 for a release inside a reserved block.
    composition : str
        ``'sequential'``, ``'parallel'``, ``'advanced-reserve'`` or ``'advanced'``.
    scope : str
        The label of the parallel set or advanced block the entry belongs to
        (empty for a sequential charge).
    group : str
        The group of a parallel set (empty otherwise).
    time : str
        When the charge was made, ISO 8601 in UTC.
    label : str
        Free text: what was released and why (never a confidential value).
    sensitivity : float or None
        The sensitivity of the released statistic (None when not recorded, as
        for a manual charge that does not give it).
    neighbours : str
        The neighbouring relation the guarantee holds under, in
        :class:`~dpinfer.Release`'s vocabulary and as the releaser declares it
        (``'replace-one'`` or ``'add-remove'``; a local-DP release says what its
        Release says, ``'replace-one'``); ``''`` when not recorded.  An entry
        written before 0.1 recorded ``neighbouring`` (with ``'local'`` and ``'as
        the sensitivity assumes'`` among its values): it is read with those mapped
        to ``'replace-one'``, and keeps its key and value as written in
        :meth:`to_dict` and the file, which its digest was computed from.
    grid : float or None
        The spacing of the grid the noise was added on, in the units of the
        released statistic (None for label-valued reports or when not recorded).
    plan_line : str
        The allocation-plan line the charge was accounted to (``''`` without a plan).
    previous : str
        The SHA-256 digest (hex) of the entry before this one, or of the budget's
        header (totals, description, plan) for the first entry: the hash chain.

    Notes
    -----
    :attr:`digest` is the SHA-256 of the entry's canonical JSON (sorted keys, no
    spaces, floats as Python's shortest round-trip repr), ``previous`` included;
    the last entry's digest is the budget's :attr:`~PrivacyBudget.head_digest`.

    **What the chain protects.**  Each :class:`~dpinfer.Release` made with a
    budget records the head digest after its charge.  An entry removed, changed
    or reordered, or the totals or plan edited, breaks the chain, and
    :meth:`PrivacyBudget.from_json` refuses the file.  It does **not** stop a
    person who can write the file from rewriting it whole (the digests carry no
    secret key: anyone can recompute them) or from removing the newest
    entries; such a rewrite then disagrees with the digests already published
    with the releases, which is how it is found.  Keep the published releases
    (or their digests) apart from the ledger file.
    """

    mechanism: str
    epsilon: float
    delta: float
    count: int
    charged_epsilon: float
    charged_delta: float
    composition: str
    scope: str
    group: str
    time: str
    label: str
    sensitivity: float | None = None
    neighbours: str = ""
    grid: float | None = None
    plan_line: str = ""
    previous: str = ""
    _neighbouring_as_written: str | None = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """A flat JSON-safe dict of the attributes (an entry written before 0.1 as it was written)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_neighbouring_as_written"}
        if self._neighbouring_as_written is not None:  # hashed under the old key: keep it as written
            del out["neighbours"]
            out["neighbouring"] = self._neighbouring_as_written
        return out

    @property
    def digest(self):
        """SHA-256 (hex) of the entry's canonical JSON, ``previous`` included: the next entry's ``previous``."""
        return _digest(self.to_dict())


def _canonical(obj):
    """The canonical JSON text hashed by the chain: sorted keys, no spaces, ASCII, no NaN."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _digest(obj):
    return hashlib.sha256(_canonical(obj).encode("ascii")).hexdigest()


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _fmt(value):
    return f"{float(value):.6g}"


def _check_text(value, name):
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a string; got {_show(value)}.")
    return value


def _check_scope_label(label, what):
    label = _check_text(label, "label")
    if not label.strip():
        raise ValueError(f"`label` must name the {what} (a non-empty string); got {label!r}.")
    return label


def _as_written(value):
    """``value`` rounded to a double, as the exact rational of its shortest round-trip decimal (what prints)."""
    return Fraction(repr(float(value)))


def _round_up(x, ulps=4):
    """``x`` moved up by a few units in the last place (a float bound that is never below the true one)."""
    for _ in range(ulps):
        x = math.nextafter(x, math.inf)
    return x


def _drv_bound(k, epsilon, delta_slack):
    """``sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1)``, rounded up (DRV 2010, Thm. III.3).

    Each of the few operations is correctly rounded or within an ulp (IEEE sqrt,
    libm log and expm1), so four ulps of headroom make the float an upper bound.
    """
    try:
        bound = math.sqrt(2.0 * k * -math.log(delta_slack)) * epsilon + k * epsilon * math.expm1(epsilon)
    except OverflowError:  # e^epsilon beyond the doubles: the bound is useless, basic composition wins
        return math.inf
    return _round_up(bound)


def _parse_slack(label, where):
    """The ``delta_slack`` an advanced-composition reservation records at the end of its label."""
    marker = "delta_slack = "
    at = label.rfind(marker)
    if at >= 0:
        try:
            return float(label[at + len(marker):])
        except ValueError:
            pass
    raise ValueError(f"{where}: an advanced-composition reservation must record its delta_slack in its label.")


@dataclass(frozen=True)
class _Request:
    mechanism: str
    epsilon: float
    delta: float
    count: int
    label: str
    sensitivity: float | None = None
    neighbours: str = ""
    grid: float | None = None
    neighbouring_as_written: str | None = None


#: the relations a ledger entry records (Release's vocabulary; '' when not recorded)
NEIGHBOURS = ("", "replace-one", "add-remove")

#: what an entry written before 0.1 recorded as ``neighbouring``, in Release's vocabulary: a
#: local-DP release's Release said 'replace-one' (one respondent's answer replaced), and
#: LaplaceReleaser.release's 'replace-one' with the sensitivity the user declared
OLD_NEIGHBOURING = {"local": "replace-one", "as the sensitivity assumes": "replace-one"}


def entry_event(raw, i):
    """``(relation key, event keywords)`` of ledger entry ``i`` as written, its field set checked.

    An entry written before 0.1 records ``neighbouring``: its relation is mapped to
    Release's vocabulary and the text kept (the entry's digest was computed from it).
    """
    fields = [name for name in LedgerEntry.__dataclass_fields__ if not name.startswith("_")]
    old = [("neighbouring" if name == "neighbours" else name) for name in fields]
    if not isinstance(raw, dict) or set(raw) not in (set(fields), set(old)):
        raise ValueError(f"ledger entry {i} must hold exactly the fields {', '.join(fields)}.")
    event = {"sensitivity": raw["sensitivity"], "grid": raw["grid"]}
    if "neighbours" in raw:
        return "neighbours", {**event, "neighbours": raw["neighbours"]}
    written = _check_text(raw["neighbouring"], f"neighbouring of ledger entry {i}")
    return "neighbouring", {**event, "neighbours": OLD_NEIGHBOURING.get(written, written),
                            "neighbouring_as_written": written}


def budget_id(value):
    """A budget's ``id`` as its file records it: 16 lower-case hex digits."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{16}", value):
        raise ValueError(f"its \"id\" must be 16 lower-case hex digits; got {_show(value)}.")
    return value


def _request(epsilon, delta, mechanism, count, label, where="", *, sensitivity=None, neighbours="", grid=None,
             neighbouring_as_written=None):
    """A checked charge request; ``where`` (e.g. "ledger entry 3") is named in its errors."""
    of = f" of {where}" if where else ""
    epsilon = _check_epsilon(epsilon, "epsilon" + of)
    delta = _check_delta(delta, "delta" + of)
    mechanism = _check_text(mechanism, "mechanism" + of)
    if not mechanism:
        raise ValueError(f"`mechanism{of}` must be a non-empty string; got ''.")
    count = _check_int(count, "count" + of, minimum=1, maximum=10**12)
    if sensitivity is not None:
        sensitivity = _check_positive(sensitivity, "sensitivity" + of)
    if grid is not None:
        grid = _check_positive(grid, "grid" + of)
    neighbours = _check_text(neighbours, "neighbours" + of)
    if neighbouring_as_written is None and neighbours not in NEIGHBOURS:
        raise ValueError(f"`neighbours{of}` must be '', 'replace-one' or 'add-remove' (a Release's relation); "
                         f"got {neighbours!r}.")
    return _Request(mechanism, epsilon, delta, count, _check_text(label, "label" + of), sensitivity,
                    neighbours, grid, neighbouring_as_written)


def _load_json(text, what):
    """``json.loads(text)`` refusing duplicate keys and deep nesting with a ValueError naming ``what``.

    A duplicate key would let a file say two things at once (json keeps the last
    silently): refused by :func:`dpinfer._json.strict_loads`, the one rule every
    reader of a dpinfer file applies; nesting deeper than Python's recursion limit
    would crash the parser.
    """
    try:
        return strict_loads(text)
    except json.JSONDecodeError as exc:  # first: it is a ValueError too
        raise ValueError(f"{what} is not JSON ({exc.msg}, line {exc.lineno}).") from exc
    except ValueError as exc:  # a key twice in one object
        raise ValueError(f"{what} holds a {exc} in one object; a hand edit? Each key may appear once.") from exc
    except RecursionError:
        raise ValueError(f"{what} nests lists or objects too deeply to be read.") from None
