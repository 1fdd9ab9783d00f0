"""The ledger as a list of mechanism events others can re-account (shaped like dp_accounting's DpEvent)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

from .._validation import _check_real, _show
from ._ledger import _load_json, _round_up

__all__ = []  # package-internal: PrivacyBudget.export_events and from_events call these

_EXPORT_FORMAT = "dpinfer.LedgerEvents"
_EXPORT_VERSION = 1
_NOT_AN_EVENT = "advanced-reserve"  # a block's reservation: bookkeeping, its releases are their own events

OF_RECORD = (
    "charged: what the ledger charged, each charge composed as it was declared (sequential, a parallel set's "
    "largest group, an advanced block's reservation); basic and advanced re-account the mechanism events alone "
    "and are given for comparison.")


def dp_event(entry):
    """The ``DpEvent``-shaped dict of one ledger entry (``NoOpDpEvent`` for a block's reservation)."""
    if entry.composition == _NOT_AN_EVENT:
        return {"name": "NoOpDpEvent"}
    event = {"name": "EpsilonDeltaDpEvent", "epsilon": entry.epsilon, "delta": entry.delta}
    if entry.count > 1:
        return {"name": "SelfComposedDpEvent", "event": event, "count": entry.count}
    return event


def composed_totals(entries, spent, delta_slack):
    """Basic and advanced composition of the mechanism events, and the ledger's charged totals.

    Basic: the exact sums of ``count * epsilon`` and ``count * delta``, rounded
    once to the nearest double (as the ledger's own sums).  Advanced (Kairouz,
    Oh & Viswanath 2017, Thm. 3.5, in the looser form of Dwork, Rothblum &
    Vadhan 2010, Thm. III.3, which it implies term by term):
    ``sqrt(2 ln(1/delta') sum c_i epsilon_i**2) + sum c_i epsilon_i (e**epsilon_i - 1)``
    with delta ``sum c_i delta_i + delta'``, rounded up by four ulps (None if it
    overflows).
    """
    events = [e for e in entries if e.composition != _NOT_AN_EVENT]
    basic_eps = sum((Fraction(e.epsilon) * e.count for e in events), Fraction(0))
    basic_delta = sum((Fraction(e.delta) * e.count for e in events), Fraction(0))
    if events:
        try:
            squares = math.fsum(e.count * e.epsilon**2 for e in events)
            drift = math.fsum(e.count * e.epsilon * math.expm1(e.epsilon) for e in events)
            adv_eps = _round_up(math.sqrt(2.0 * squares * -math.log(delta_slack)) + drift)
        except OverflowError:
            adv_eps = math.inf
        adv_delta = float(basic_delta + Fraction(delta_slack))
    else:
        adv_eps, adv_delta = 0.0, 0.0
    return {
        "charged": {"epsilon": spent[0], "delta": spent[1]},
        "basic": {"epsilon": float(basic_eps), "delta": float(basic_delta)},
        "advanced": {"epsilon": adv_eps if math.isfinite(adv_eps) else None, "delta": adv_delta,
                     "delta_slack": delta_slack},
        "of_record": "charged",
        "note": OF_RECORD,
    }


def export_events(budget, delta_slack):
    """The JSON-safe export of ``budget`` (see :meth:`PrivacyBudget.export_events`)."""
    delta_slack = _check_real(delta_slack, "delta_slack")
    if not 0.0 < delta_slack < 1.0:
        raise ValueError(f"`delta_slack` must lie in the open interval (0, 1); got {delta_slack!r}.")
    with budget._lock:
        entries = list(budget._ledger)
        # every event gives ``neighbours`` (an entry written before 0.1 also its ``neighbouring`` as hashed)
        events = [{**e.to_dict(), "neighbours": e.neighbours, "dp_event": dp_event(e), "digest": e.digest}
                  for e in entries]
        return {
            "format": _EXPORT_FORMAT,
            "version": _EXPORT_VERSION,
            "budget": {**budget._header(), "id": budget.id},  # the id is not hashed: not in the genesis
            "genesis_digest": budget._genesis(),
            "events": events,
            "head_digest": budget.head_digest,
            "composed": composed_totals(entries, (budget.spent_epsilon, budget.spent_delta), delta_slack),
        }


def budget_from_events(cls, data, releases=None):
    """The budget an export describes, replayed and checked (see :meth:`PrivacyBudget.from_events`)."""
    if isinstance(data, (str, bytes)):
        data = _load_json(data, "`data`")
    if not isinstance(data, dict) or data.get("format") != _EXPORT_FORMAT:
        raise (ValueError if isinstance(data, dict) else TypeError)(
            f"`data` must be a dpinfer ledger export (a dict or JSON text with \"format\" {_EXPORT_FORMAT!r}); "
            f"got {_show(data) if not isinstance(data, dict) else 'format ' + repr(data.get('format'))}.")
    if data.get("version") != _EXPORT_VERSION:
        raise ValueError(f"`data` has export version {data.get('version')!r}; this dpinfer reads "
                         f"version {_EXPORT_VERSION}.")
    keys = {"format", "version", "budget", "genesis_digest", "events", "head_digest", "composed"}
    if set(data) != keys:
        raise ValueError(f"`data` must hold exactly the fields {', '.join(sorted(keys))}.")
    header, events, composed = data["budget"], data["events"], data["composed"]
    if not isinstance(header, dict) or not isinstance(events, list) or not isinstance(composed, dict):
        raise ValueError("`data`: \"budget\" and \"composed\" must be objects and \"events\" a list.")
    ledger = []
    for i, event in enumerate(events, 1):
        if not isinstance(event, dict) or "dp_event" not in event or "digest" not in event:
            raise ValueError(f"event {i} of `data` must be an object with its \"dp_event\" and \"digest\".")
        added = ("dp_event", "digest", "neighbours") if "neighbouring" in event else ("dp_event", "digest")
        ledger.append({k: v for k, v in event.items() if k not in added})
    charged = composed.get("charged")
    if not isinstance(charged, dict) or set(charged) != {"epsilon", "delta"}:
        raise ValueError("`data`: \"composed\" must give the \"charged\" epsilon and delta.")
    text = json.dumps({**header, "spent_epsilon": charged["epsilon"], "spent_delta": charged["delta"],
                       "head_digest": data["head_digest"], "ledger": ledger})
    try:
        budget = cls._from_text(text, "the export")
    except ValueError as exc:
        raise ValueError(f"`data` does not describe a valid ledger: {exc}") from exc
    if budget._genesis() != data["genesis_digest"]:
        raise ValueError("`data` records a genesis digest that its \"budget\" header does not have.")
    for i, (entry, event) in enumerate(zip(budget.ledger, events), 1):
        if event["digest"] != entry.digest or event["dp_event"] != dp_event(entry):
            raise ValueError(f"event {i} of `data` records a digest or dp_event that its fields do not give.")
    slack = composed.get("advanced", {}).get("delta_slack") if isinstance(composed.get("advanced"), dict) else None
    if not isinstance(slack, float) or composed != composed_totals(
            budget.ledger, (budget.spent_epsilon, budget.spent_delta), slack):
        raise ValueError("`data`: its \"composed\" totals are not those of its events.")
    if releases is not None:
        report = budget.verify(releases)
        if not report.ok:
            raise ValueError(
                f"`data` is behind or off the published `releases` (an old or truncated export, or a rewritten "
                f"ledger): {len(report.problems)} of {report.checked} are not in its chain: "
                + "; ".join(report.problems) + ".")
    return budget
