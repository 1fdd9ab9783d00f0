"""PrivacyBudget: a data set's total, the sequential charges, the JSON ledger."""

from __future__ import annotations

import json
from fractions import Fraction

import threading

from .._validation import _check_delta, _check_epsilon, _check_int, _check_real, _show
from ._composition import AdvancedComposition, ParallelComposition, _Labelled
from ._ledger import (
    BudgetExceededError,
    LedgerEntry,
    _COMPOSITIONS,
    _FORMAT,
    _Remaining,
    _Request,
    _VERSION,
    _check_scope_label,
    _check_text,
    _fmt,
    _load_json,
    _now,
    _parse_slack,
    _request,
)

__all__ = [
    "PrivacyBudget",
]


class PrivacyBudget:
    """The privacy budget of one data set: its total, what has been spent, and the ledger.

    Parameters
    ----------
    epsilon : float
        Total epsilon approved for the data set, > 0.
    delta : float, default 0.0
        Total delta, in [0, 1).  With 0 only pure epsilon-DP releases fit.
    description : str, default ''
        Free text naming the data set (e.g. the trial and analysis set).

    Attributes
    ----------
    epsilon, delta : float
        The totals.
    description : str
    spent_epsilon, spent_delta : float
        What has been charged so far (exact rational sums of the charges, rounded
        once to the nearest double).
    remaining : tuple
        ``Remaining(epsilon, delta)``, a named tuple: what is still available
        (never negative).
    ledger : tuple of LedgerEntry
        One entry per charge, oldest first.

    Raises
    ------
    TypeError, ValueError
        If ``epsilon`` is not a positive finite number, ``delta`` is not in
        [0, 1), or ``description`` is not a string.

    See Also
    --------
    BudgetExceededError, LedgerEntry, ParallelComposition, AdvancedComposition

    Notes
    -----
    **What a budget is.**  The total privacy loss any one person in the data set
    may incur from everything released about it.  Pass the budget to each release
    (``TulapReleaser(1.0).release(x, n, budget=budget)``): the release charges it
    before drawing any noise, and raises :class:`BudgetExceededError` (drawing
    nothing, charging nothing) when the charge would take the spent epsilon or
    delta past the total.  A release that fails *after* its charge (an error while
    drawing) keeps the charge: the error itself may depend on the data.

    **Sequential (basic) composition** is the default: releases ``M_1, ..., M_m``
    of the same data, each ``(epsilon_i, delta_i)``-DP and chosen adaptively, are
    together ``(sum epsilon_i, sum delta_i)``-DP (Dwork & Roth 2014, Thm. 3.16 and
    its adaptive form, Dwork, Rothblum & Vadhan 2010).  It holds under any
    neighbouring relation.  The sums are exact (rational arithmetic on the
    doubles given) and a charge is refused when the sum, rounded to the nearest
    double, exceeds the total: ten charges of 0.1 spend exactly 1.0, and the
    overshoot this rounding allows is below 1.2e-16 of the total.

    **Parallel composition** (:meth:`parallel`): when the data set is split into
    groups fixed in advance (e.g. trial sites or arms), every person belongs to
    exactly one group, and group membership and sizes are public (as ``n`` is for
    a count), a neighbouring data set changes one person's record *within* their
    group.  Releases computed from one group then leave every other group's
    releases unchanged in law, so the loss of any person is the sequential total of
    their own group, and the set costs the largest group total (McSherry 2009,
    Thm. 4).  The budget is charged, at each release, by how much that maximum
    rises.  If changing a record can move a person between groups (membership is
    confidential) or a person can be in two groups, use sequential composition.

    **Advanced composition** (:meth:`advanced`): ``k`` releases planned in advance,
    each ``(epsilon, delta)``-DP and chosen adaptively, are together
    ``(epsilon', k delta + delta')``-DP for any ``delta' > 0``, with

        ``epsilon' = sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1)``

    (Dwork, Rothblum & Vadhan 2010, Thm. III.3; Dwork & Roth 2014, Thm. 3.20).  It
    beats ``k epsilon`` when epsilon is small and k large (k = 100, epsilon =
    0.01, delta' = 1e-6: 0.536 instead of 1); the block reserves the cheaper of
    the two bounds.  The proof bounds the privacy-loss martingale conditional on
    all earlier outputs, so the block's releases may be interleaved with other
    releases of the same data.

    **Arrays.**  Without a budget an array release charges nothing: each element
    may be its own (synthetic) data set, as in a simulation, and the release
    records the per-element epsilon that inference needs.  With a budget (one data
    set) a central releaser's array is several statistics of that data set, and
    the caller says which kind with ``array=``: ``'separate'`` (each element may
    depend on every record: ``count`` times the parameters) or ``'disjoint'``
    (each person's record moves at most one element, e.g. counts of disjoint
    groups: the parameters once, by parallel composition).  A local releaser's
    array holds one report per respondent, each depending only on its own
    respondent, and is charged once.

    References
    ----------
    Dwork, C., Rothblum, G. N. and Vadhan, S. (2010).  Boosting and differential
    privacy.  FOCS 2010, 51-60.
    Dwork, C. and Roth, A. (2014).  The algorithmic foundations of differential
    privacy.  Foundations and Trends in Theoretical Computer Science 9, 211-407.
    McSherry, F. (2009).  Privacy integrated queries.  SIGMOD 2009, 19-30.

    Examples
    --------
    >>> from dpinfer import PrivacyBudget, TulapReleaser
    >>> budget = PrivacyBudget(epsilon=1.5, description="phase II trial, primary analysis")
    >>> rel = TulapReleaser(1.0).release(11, 30, rng=7, budget=budget)
    >>> budget.spent_epsilon, budget.remaining.epsilon
    (1.0, 0.5)
    >>> TulapReleaser(1.0).release(11, 30, rng=7, budget=budget)
    Traceback (most recent call last):
    ...
    dpinfer.budget.BudgetExceededError: `budget` cannot pay for this release: it would charge
    epsilon = 1, delta = 0 (TulapReleaser.release, n = 30), but epsilon = 1 of 1.5 and delta = 0 of 0
    are spent (remaining epsilon = 0.5, delta = 0). Nothing was drawn and nothing was charged.
    >>> len(budget.ledger), budget.ledger[0].mechanism
    (1, 'tulap')
    """

    def __init__(self, epsilon, delta=0.0, *, description=""):
        self._epsilon = _check_epsilon(epsilon)
        self._delta = _check_delta(delta)
        self._description = _check_text(description, "description")
        self._lock = threading.RLock()
        self._ledger = []
        self._spent = (Fraction(0), Fraction(0))
        self._parallel = {}  # label -> ParallelComposition
        self._blocks = {}  # label -> AdvancedComposition

    # ------------------------------------------------------------------ reading
    @property
    def epsilon(self):
        """Total epsilon approved for the data set."""
        return self._epsilon

    @property
    def delta(self):
        """Total delta approved for the data set."""
        return self._delta

    @property
    def description(self):
        """Free text naming the data set."""
        return self._description

    @property
    def spent_epsilon(self):
        """Epsilon charged so far (the exact sum of the charges, rounded once)."""
        return float(self._spent[0])

    @property
    def spent_delta(self):
        """Delta charged so far (the exact sum of the charges, rounded once)."""
        return float(self._spent[1])

    @property
    def remaining(self):
        """``Remaining(epsilon, delta)``: what can still be spent (never negative)."""
        eps = max(Fraction(self._epsilon) - self._spent[0], Fraction(0))
        delta = max(Fraction(self._delta) - self._spent[1], Fraction(0))
        return _Remaining(float(eps), float(delta))

    @property
    def ledger(self):
        """Tuple of :class:`LedgerEntry`, one per charge, oldest first."""
        return tuple(self._ledger)

    def summary(self):
        """One line: spent, total and remaining epsilon and delta, and the number of ledger entries."""
        rem = self.remaining
        n = len(self._ledger)
        return (f"budget: spent epsilon = {_fmt(self.spent_epsilon)} of {_fmt(self._epsilon)}, "
                f"delta = {_fmt(self.spent_delta)} of {_fmt(self._delta)}; remaining epsilon = "
                f"{_fmt(rem.epsilon)}, delta = {_fmt(rem.delta)} ({n} ledger entr{'y' if n == 1 else 'ies'})")

    def __repr__(self):
        return (f"PrivacyBudget(epsilon={self._epsilon!r}, delta={self._delta!r}, "
                f"spent_epsilon={self.spent_epsilon!r}, spent_delta={self.spent_delta!r}, "
                f"entries={len(self._ledger)})")

    def __str__(self):
        head = "Privacy budget" + (f": {self._description}" if self._description else "")
        rem = self.remaining
        lines = [
            head,
            f"  total:     epsilon = {_fmt(self._epsilon)}, delta = {_fmt(self._delta)}",
            f"  spent:     epsilon = {_fmt(self.spent_epsilon)}, delta = {_fmt(self.spent_delta)}",
            f"  remaining: epsilon = {_fmt(rem.epsilon)}, delta = {_fmt(rem.delta)}",
            f"  ledger ({len(self._ledger)} entr{'y' if len(self._ledger) == 1 else 'ies'}):",
        ]
        header = ("#", "time (UTC)", "mechanism", "epsilon", "delta", "count", "charged eps",
                  "charged delta", "composition", "label")
        rows = [header]
        for i, e in enumerate(self._ledger, 1):
            comp = e.composition + (f" [{e.scope}" + (f"/{e.group}" if e.group else "") + "]" if e.scope else "")
            rows.append((str(i), e.time[:19].replace("T", " "), e.mechanism, _fmt(e.epsilon), _fmt(e.delta),
                         str(e.count), _fmt(e.charged_epsilon), _fmt(e.charged_delta), comp, e.label))
        widths = [max(len(r[j]) for r in rows) for j in range(len(header) - 1)]
        for r in rows:
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
        return "\n".join(line.rstrip() for line in lines)

    # ------------------------------------------------------------------ charging
    def charge(self, epsilon, delta=0.0, *, mechanism="manual", count=1, label=""):
        """Charge ``count`` releases at ``(epsilon, delta)`` by sequential composition.

        For releases made outside dpinfer, or planned ones; dpinfer's releasers
        charge themselves when given ``budget=``.

        Parameters
        ----------
        epsilon : float
            Epsilon of each release, > 0.
        delta : float, default 0.0
            Delta of each release, in [0, 1).
        mechanism : str, default 'manual'
            What was released (recorded in the ledger).
        count : int, default 1
            Number of releases at these parameters (>= 1).
        label : str, default ''
            Free text for the ledger (never a confidential value).

        Returns
        -------
        LedgerEntry
            The new entry.

        Raises
        ------
        BudgetExceededError
            If the charge would pass the total (nothing is recorded).
        TypeError, ValueError
            For invalid arguments.
        """
        req = _request(epsilon, delta, mechanism, count, label)
        return self._commit(req, "sequential", "", "", self._sequential_cost(req))

    def with_label(self, label):
        """A handle that charges this budget with ``label`` in front of each entry's label.

        Pass it as ``budget=``: ``rel = releaser.release(x, n, budget=b.with_label("primary endpoint"))``.
        """
        return _Labelled(self, _check_text(label, "label"))

    def parallel(self, label):
        """The parallel-composition set called ``label`` (created on first use).

        Parameters
        ----------
        label : str
            Names the partition, e.g. ``'responders by site'`` (unique within the
            budget; calling again with the same label returns the same set, also
            after :meth:`from_json`).

        Returns
        -------
        ParallelComposition
            Its :meth:`~ParallelComposition.group` handles are passed as ``budget=``.

        Notes
        -----
        Assumes the neighbouring relation of the class Notes: groups fixed in
        advance, each person in exactly one group, membership and sizes public,
        neighbours differing in one person's record within their group.
        """
        label = _check_scope_label(label, "partition")
        with self._lock:
            if label in self._blocks:
                raise ValueError(f"`label` {label!r} already names an advanced-composition block of this budget.")
            if label not in self._parallel:
                self._parallel[label] = ParallelComposition(self, label)
            return self._parallel[label]

    def advanced(self, k, epsilon, delta=0.0, *, delta_slack, label):
        """Reserve budget for ``k`` releases at ``(epsilon, delta)`` by advanced composition.

        The reservation is charged now (one ledger entry); the block then accepts
        up to ``k`` releases of at most ``epsilon`` and ``delta`` each, charging
        nothing more.

        Parameters
        ----------
        k : int
            Number of releases planned, >= 1.
        epsilon : float
            Largest epsilon of each release, > 0.
        delta : float, default 0.0
            Largest delta of each release, in [0, 1).
        delta_slack : float
            ``delta'`` of the bound, in (0, 1); it is added to the spent delta.
        label : str
            Names the block (unique within the budget; calling again with the same
            label and parameters returns the same block, also after
            :meth:`from_json`).

        Returns
        -------
        AdvancedComposition
            Pass it as ``budget=`` to the block's releases.

        Raises
        ------
        BudgetExceededError
            If the reservation does not fit in the remaining budget.
        ValueError
            If ``label`` names a block with other parameters, or a parallel set.

        Notes
        -----
        The reservation is ``min(epsilon', k epsilon)`` and, respectively,
        ``k delta + delta'`` or ``k delta``, with (Dwork, Rothblum & Vadhan
        2010, Thm. III.3; Dwork & Roth 2014, Thm. 3.20)

            ``epsilon' = sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1)``

        for k adaptively chosen ``(epsilon, delta)``-DP releases.  The float
        ``epsilon'`` is rounded up by four units in the last place so that it is
        never below the exact value.

        Examples
        --------
        >>> from dpinfer import PrivacyBudget
        >>> b = PrivacyBudget(1.0, delta=1e-5)
        >>> block = b.advanced(100, 0.01, delta_slack=1e-6, label="interim looks")
        >>> round(b.spent_epsilon, 4), b.spent_delta
        (0.5357, 1e-06)
        """
        k = _check_int(k, "k", minimum=1, maximum=10**12)
        epsilon = _check_epsilon(epsilon)
        delta = _check_delta(delta)
        delta_slack = _check_real(delta_slack, "delta_slack")
        if not 0.0 < delta_slack < 1.0:
            raise ValueError(f"`delta_slack` must lie in the open interval (0, 1); got {delta_slack!r}.")
        label = _check_scope_label(label, "block")
        with self._lock:
            if label in self._parallel:
                raise ValueError(f"`label` {label!r} already names a parallel-composition set of this budget.")
            old = self._blocks.get(label)
            if old is not None:
                if (old.k, old.epsilon, old.delta, old.delta_slack) != (k, epsilon, delta, delta_slack):
                    raise ValueError(
                        f"`label` {label!r} names a block reserved for k = {old.k} releases at epsilon = "
                        f"{old.epsilon!r}, delta = {old.delta!r} (delta_slack = {old.delta_slack!r}); "
                        "choose another label for a new block.")
                return old
            block = AdvancedComposition(self, label, k, epsilon, delta, delta_slack)
            req = _Request("advanced composition", epsilon, delta, k,
                           f"{block.rule} for up to {k} releases, delta_slack = {delta_slack!r}")
            self._commit(req, "advanced-reserve", label, "", block._reservation)
            self._blocks[label] = block
            return block

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _sequential_cost(req):
        return Fraction(req.epsilon) * req.count, Fraction(req.delta) * req.count, None

    def _commit(self, req, composition, scope, group, cost, *, time=None):
        """Check ``cost = (d_eps, d_delta, apply)`` against the total, then record it (under the lock)."""
        d_eps, d_delta, apply = cost
        with self._lock:
            new_eps, new_delta = self._spent[0] + d_eps, self._spent[1] + d_delta
            if float(new_eps) > self._epsilon or float(new_delta) > self._delta:
                rem = self.remaining
                what = req.label or req.mechanism
                raise BudgetExceededError(
                    f"it would charge epsilon = {_fmt(d_eps)}, delta = {_fmt(d_delta)} ({what}), "
                    f"but epsilon = {_fmt(self.spent_epsilon)} of {_fmt(self._epsilon)} and delta = "
                    f"{_fmt(self.spent_delta)} of {_fmt(self._delta)} are spent (remaining epsilon = "
                    f"{_fmt(rem.epsilon)}, delta = {_fmt(rem.delta)}). Nothing was drawn and nothing was charged.",
                    requested=(d_eps, d_delta), remaining=rem)
            if apply is not None:
                apply()
            self._spent = (new_eps, new_delta)
            entry = LedgerEntry(
                mechanism=req.mechanism, epsilon=req.epsilon, delta=req.delta, count=req.count,
                charged_epsilon=float(d_eps), charged_delta=float(d_delta), composition=composition,
                scope=scope, group=group, time=_now() if time is None else time, label=req.label)
            self._ledger.append(entry)
            return entry

    # ------------------------------------------------------------------ JSON
    def to_json(self):
        """The budget and its whole ledger as JSON text (exact: :meth:`from_json` restores it)."""
        with self._lock:
            data = {
                "format": _FORMAT,
                "version": _VERSION,
                "epsilon": self._epsilon,
                "delta": self._delta,
                "description": self._description,
                "spent_epsilon": self.spent_epsilon,
                "spent_delta": self.spent_delta,
                "ledger": [e.to_dict() for e in self._ledger],
            }
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_json(cls, text):
        """A budget from the text written by :meth:`to_json`.

        The ledger is replayed charge by charge: every entry's charged amounts
        must be what the composition rules give, and the spent totals what
        the file records, or the text is rejected.

        Raises
        ------
        TypeError
            If ``text`` is not a string.
        ValueError
            If it is not such JSON, or the ledger is inconsistent.
        """
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"`text` must be the JSON text of a PrivacyBudget; got {_show(text)}.")
        data = _load_json(text, "`text`")
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"`text` is not a dpinfer privacy budget (its \"format\" must be {_FORMAT!r}).")
        if data.get("version") != _VERSION:
            raise ValueError(f"`text` has budget format version {data.get('version')!r}; this dpinfer reads "
                             f"version {_VERSION}.")
        for key in ("epsilon", "delta", "description", "spent_epsilon", "spent_delta", "ledger"):
            if key not in data:
                raise ValueError(f"`text` lacks the budget field {key!r}.")
        try:
            budget = cls(data["epsilon"], data["delta"], description=data["description"])
            if not isinstance(data["ledger"], list):
                raise ValueError("its \"ledger\" must be a list of entries.")
            for i, raw in enumerate(data["ledger"], 1):
                budget._replay(raw, i)
        except BudgetExceededError as exc:
            raise ValueError(f"`text` holds a ledger that does not fit its totals: {exc.detail}") from exc
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`text` holds an invalid budget: {exc}") from exc
        if (budget.spent_epsilon, budget.spent_delta) != (data["spent_epsilon"], data["spent_delta"]):
            raise ValueError(
                f"`text` records spent epsilon = {data['spent_epsilon']!r}, delta = "
                f"{data['spent_delta']!r}, but its ledger adds up to {budget.spent_epsilon!r}, "
                f"{budget.spent_delta!r}.")
        return budget

    def _replay(self, raw, i):
        fields = LedgerEntry.__dataclass_fields__
        if not isinstance(raw, dict) or set(raw) != set(fields):
            raise ValueError(f"ledger entry {i} must hold exactly the fields {', '.join(fields)}.")
        where = f"ledger entry {i}"
        for name in ("mechanism", "composition", "scope", "group", "time", "label"):
            _check_text(raw[name], f"{name} of {where}")
        if raw["composition"] not in _COMPOSITIONS:
            raise ValueError(f"{where}: composition must be one of {', '.join(map(repr, _COMPOSITIONS))}; "
                             f"got {raw['composition']!r}.")
        comp, scope, time = raw["composition"], raw["scope"], raw["time"]
        if comp == "advanced-reserve":
            k = _check_int(raw["count"], f"count of {where}", minimum=1, maximum=10**12)
            slack = _parse_slack(raw["label"], where)
            block = AdvancedComposition(self, scope, k, _check_epsilon(raw["epsilon"], f"epsilon of {where}"),
                                        _check_delta(raw["delta"], f"delta of {where}"), slack)
            req = _Request(raw["mechanism"], block.epsilon, block.delta, k, raw["label"])
            if scope in self._blocks or scope in self._parallel or not scope:
                raise ValueError(f"{where}: block label {scope!r} is empty or already used.")
            entry = self._commit(req, comp, scope, "", block._reservation, time=time)
            self._blocks[scope] = block
        else:
            req = _request(raw["epsilon"], raw["delta"], raw["mechanism"], raw["count"], raw["label"], where)
            if comp == "sequential":
                entry = self._commit(req, comp, "", "", self._sequential_cost(req), time=time)
            elif comp == "parallel":
                entry = self.parallel(scope).group(raw["group"])._charge_request(req, time=time)
            else:
                if scope not in self._blocks:
                    raise ValueError(f"{where}: release in block {scope!r}, which the ledger has not reserved.")
                entry = self._blocks[scope]._charge_request(req, time=time)
        recorded = (raw["charged_epsilon"], raw["charged_delta"], raw["scope"], raw["group"])
        if (entry.charged_epsilon, entry.charged_delta, entry.scope, entry.group) != recorded:
            raise ValueError(
                f"{where} records charged epsilon = {raw['charged_epsilon']!r}, delta = {raw['charged_delta']!r}, "
                f"but the composition rules give {entry.charged_epsilon!r}, {entry.charged_delta!r}.")

    def __eq__(self, other):
        if not isinstance(other, PrivacyBudget):
            return NotImplemented
        return (self._epsilon, self._delta, self._description, self._ledger) == (
            other._epsilon, other._delta, other._description, other._ledger)

    __hash__ = None
