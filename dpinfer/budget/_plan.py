"""AllocationPlan: the shares of a budget fixed in advance, per endpoint or analysis."""

from __future__ import annotations

import json
from collections import namedtuple
from fractions import Fraction

import numpy as np

from .._validation import _check_delta, _check_epsilon, _show
from ._ledger import BudgetExceededError, _as_written, _check_text, _digest, _fmt, _load_json

__all__ = [
    "AllocationPlan",
]

_PLAN_FORMAT = "dpinfer.AllocationPlan"
_PLAN_VERSION = 1


_Line = namedtuple("PlanLine", ["label", "epsilon", "delta"])
_Line.__doc__ = "One line of an :class:`AllocationPlan`: ``(label, epsilon, delta)``."


class AllocationPlan:
    """How a privacy budget is to be spent, fixed before any release: one line per endpoint.

    A trial's analysis plan names its endpoints; the allocation plan gives each
    its share of the budget.  A :class:`PrivacyBudget` created with ``plan=``
    then accounts every charge to one line and refuses, with the line named,
    a charge that no line covers or that would pass its line's share.  Nothing
    is drawn or charged for a refused release.

    Parameters
    ----------
    lines : sequence
        One item per line: ``(label, epsilon)``, ``(label, epsilon, delta)`` or a
        dict with keys ``label``, ``epsilon`` and optionally ``delta``.  Labels
        are non-empty and distinct; epsilon > 0, delta in [0, 1) (default 0).
    description : str, default ''
        Free text (e.g. the trial, the version of the statistical analysis plan).

    Attributes
    ----------
    lines : tuple
        ``(label, epsilon, delta)`` named tuples, in the plan's order.
    description : str
    epsilon, delta : float
        The sums of the shares (exact sums, rounded to the nearest double).
    digest : str
        SHA-256 (hex) of the plan's canonical JSON: the plan a ledger was created
        with is part of the ledger's hash chain.

    Notes
    -----
    **Which line pays.**  A charge belongs to the line whose label its own label
    is, or starts with followed by ``" ("``: the label a
    ``budget.with_label(line)`` handle (``dpinfer release --label LINE``) gives.
    A parallel-composition set or an advanced-composition block belongs to the
    line its label names, and its charges to the budget (the rise of the group
    maximum; the block's reservation) are accounted to that line.  Labels are
    matched longest first.

    **Fixed in advance.**  A plan is given when the budget is created and is
    part of the header its hash chain starts from, so changing the plan later
    breaks the chain; the ledger file keeps it (``dpinfer release --budget FILE
    --plan PLAN.json`` on the first release).

    Examples
    --------
    >>> from dpinfer import AllocationPlan, PrivacyBudget, TulapReleaser
    >>> plan = AllocationPlan([("primary endpoint", 0.6), ("safety", 0.4)], description="SAP v1.0")
    >>> budget = PrivacyBudget(1.0, plan=plan)
    >>> rel = TulapReleaser(0.5).release(11, 30, rng=7, budget=budget.with_label("primary endpoint"))
    >>> budget.ledger[0].plan_line
    'primary endpoint'
    >>> TulapReleaser(0.2).release(11, 30, rng=7, budget=budget.with_label("primary endpoint"))
    Traceback (most recent call last):
    ...
    dpinfer.budget.BudgetExceededError: `budget` cannot pay for this release: plan line 1 ('primary endpoint':
    epsilon = 0.6, delta = 0) has epsilon = 0.5, delta = 0 spent; this release (primary endpoint
    (TulapReleaser.release, n = 30)) would charge epsilon = 0.2, delta = 0. Nothing was drawn and nothing
    was charged.
    """

    def __init__(self, lines, *, description=""):
        self._description = _check_text(description, "description")
        if isinstance(lines, (str, bytes)) or not hasattr(lines, "__iter__") or (
                isinstance(lines, np.ndarray) and lines.ndim == 0):
            raise TypeError(f"`lines` must be a sequence of (label, epsilon[, delta]) lines; got {_show(lines)}.")
        checked = []
        for i, line in enumerate(lines, 1):
            checked.append(_check_line(line, i))
        if not checked:
            raise ValueError("`lines` must hold at least one line.")
        labels = [line.label for line in checked]
        for label in labels:
            if labels.count(label) > 1:
                raise ValueError(f"`lines` name {label!r} twice; each line's label must be distinct.")
        self._lines = tuple(checked)

    @property
    def lines(self):
        """The lines, ``(label, epsilon, delta)``, in order."""
        return self._lines

    @property
    def description(self):
        """Free text describing the plan."""
        return self._description

    @property
    def epsilon(self):
        """The sum of the lines' epsilon shares."""
        return float(sum((Fraction(line.epsilon) for line in self._lines), Fraction(0)))

    @property
    def delta(self):
        """The sum of the lines' delta shares."""
        return float(sum((Fraction(line.delta) for line in self._lines), Fraction(0)))

    def to_dict(self):
        """The plan as a JSON-safe dict (what :meth:`to_json` writes)."""
        return {
            "format": _PLAN_FORMAT,
            "version": _PLAN_VERSION,
            "description": self._description,
            "lines": [{"label": line.label, "epsilon": line.epsilon, "delta": line.delta} for line in self._lines],
        }

    @property
    def digest(self):
        """SHA-256 (hex) of the plan's canonical JSON."""
        return _digest(self.to_dict())

    def to_json(self):
        """The plan as JSON text (:meth:`from_json` reads it back)."""
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data, what="`plan`"):
        """A plan from the dict :meth:`to_dict` gives (ValueError naming ``what`` otherwise)."""
        if not isinstance(data, dict) or data.get("format") != _PLAN_FORMAT:
            raise ValueError(f"{what} is not a dpinfer allocation plan (its \"format\" must be {_PLAN_FORMAT!r}).")
        if data.get("version") != _PLAN_VERSION:
            raise ValueError(f"{what} has plan format version {data.get('version')!r}; this dpinfer reads "
                             f"version {_PLAN_VERSION}.")
        if set(data) != {"format", "version", "description", "lines"}:
            raise ValueError(f"{what} must hold exactly the fields format, version, description, lines.")
        if not isinstance(data["lines"], list):
            raise ValueError(f"{what}: its \"lines\" must be a list of {{label, epsilon, delta}} objects.")
        try:
            return cls(data["lines"], description=data["description"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} is not a valid allocation plan: {exc}") from exc

    @classmethod
    def from_json(cls, text):
        """A plan from JSON text (duplicate keys are refused).

        The text is either what :meth:`to_json` writes or the short form
        ``{"lines": [{"label": ..., "epsilon": ..., "delta": ...}, ...],
        "description": ...}`` that a person writes by hand.
        """
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"`text` must be the JSON text of an allocation plan; got {_show(text)}.")
        data = _load_json(text, "`text`")
        if isinstance(data, dict) and "format" not in data and "lines" in data:
            if not set(data) <= {"lines", "description"}:
                raise ValueError("`text` must hold only \"lines\" and \"description\" (the short form of a plan).")
            data = {"format": _PLAN_FORMAT, "version": _PLAN_VERSION, "description": data.get("description", ""),
                    "lines": data["lines"]}
        return cls.from_dict(data, "`text`")

    def line_for(self, label):
        """The index (from 0) of the line ``label`` belongs to (see Notes), or None."""
        best = None
        for i, line in enumerate(self._lines):
            if label == line.label or label.startswith(line.label + " ("):
                if best is None or len(line.label) > len(self._lines[best].label):
                    best = i
        return best

    def describe(self, i):
        """``"plan line 2 ('safety': epsilon = 0.4, delta = 0)"``: a line named in messages."""
        line = self._lines[i]
        return f"plan line {i + 1} ({line.label!r}: epsilon = {_fmt(line.epsilon)}, delta = {_fmt(line.delta)})"

    def __eq__(self, other):
        if not isinstance(other, AllocationPlan):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return f"AllocationPlan({[tuple(line) for line in self._lines]!r})"

    def __str__(self):
        head = "Allocation plan" + (f": {self._description}" if self._description else "")
        rows = [f"  {i}. {line.label}: epsilon = {_fmt(line.epsilon)}, delta = {_fmt(line.delta)}"
                for i, line in enumerate(self._lines, 1)]
        return "\n".join([head, *rows])


def _check_line(line, i):
    where = f"line {i} of the plan"
    if isinstance(line, dict):
        if not {"label", "epsilon"} <= set(line) <= {"label", "epsilon", "delta"}:
            raise ValueError(f"{where} must have the keys label, epsilon and optionally delta; got "
                             f"{', '.join(map(repr, line))}.")
        label, epsilon, delta = line["label"], line["epsilon"], line.get("delta", 0.0)
    elif isinstance(line, (tuple, list)) and len(line) in (2, 3):
        label, epsilon, delta = (*line, 0.0) if len(line) == 2 else line
    else:
        raise TypeError(f"{where} must be (label, epsilon[, delta]) or a dict; got {_show(line)}.")
    at = f"lines[{i - 1}]"  # named as Python indexes it; the messages say which line of the plan it is
    label = _check_text(label, f"{at}.label")
    if not label.strip():
        raise ValueError(f"`{at}.label` ({where}) must be a non-empty string; got {label!r}.")
    return _Line(label, _check_epsilon(epsilon, f"{at}.epsilon"), _check_delta(delta, f"{at}.delta"))


def plan_charge(plan, line_spent, label, mechanism, scope, d_eps, d_delta, more):
    """``(line index, its new spent)`` of a charge under ``plan``; BudgetExceededError naming the line.

    ``line_spent`` maps a line index to its exact spent ``(epsilon, delta)``
    followed by the same sums as written (``more`` is the charge as written; see
    ``PrivacyBudget._commit``): the share is passed when either sum passes it.
    The caller records the new value once the whole charge is accepted.
    """
    what = label or mechanism
    line = plan.line_for(scope or label)
    if line is None:
        names = "; ".join(f"{i}: {ln.label!r}" for i, ln in enumerate(plan.lines, 1))
        raise BudgetExceededError(
            f"it is outside the allocation plan: its label {(scope or label)!r} names none of the plan's "
            f"lines ({names}). Give the release its line's label (with_label(LINE), --label LINE). "
            "Nothing was drawn and nothing was charged.", requested=(d_eps, d_delta))
    spent = line_spent.get(line, (Fraction(0),) * 4)
    new = (spent[0] + d_eps, spent[1] + d_delta, spent[2] + more[0], spent[3] + more[1])
    share = plan.lines[line]
    if (float(new[0]) > share.epsilon or float(new[1]) > share.delta
            or new[2] > _as_written(share.epsilon) or new[3] > _as_written(share.delta)):
        raise BudgetExceededError(
            f"{plan.describe(line)} has epsilon = {_fmt(spent[0])}, delta = {_fmt(spent[1])} spent; "
            f"this release ({what}) would charge epsilon = {_fmt(d_eps)}, delta = {_fmt(d_delta)}. "
            "Nothing was drawn and nothing was charged.",
            requested=(d_eps, d_delta),
            remaining=(max(Fraction(share.epsilon) - spent[0], 0), max(Fraction(share.delta) - spent[1], 0)))
    return line, new


def check_plan(plan, epsilon, delta):
    """``plan`` itself if it is None or an AllocationPlan whose shares fit the totals ``epsilon``, ``delta``."""
    if plan is not None and not isinstance(plan, AllocationPlan):
        raise TypeError(f"`plan` must be None or a dpinfer.AllocationPlan; got {_show(plan)}.")
    if plan is not None and (plan.epsilon > epsilon or plan.delta > delta):
        raise ValueError(
            f"`plan` allocates epsilon = {_fmt(plan.epsilon)}, delta = {_fmt(plan.delta)} in all, more than "
            f"the budget's totals epsilon = {_fmt(epsilon)}, delta = {_fmt(delta)}.")
    return plan
