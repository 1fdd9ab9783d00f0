"""PrivacyBudget: a data set's total, the sequential charges, the JSON ledger."""

from __future__ import annotations

import json
import secrets
import threading
from fractions import Fraction

from .._validation import _check_delta, _check_epsilon, _check_int, _check_real, _show
from ._composition import AdvancedComposition, ParallelComposition, _Labelled
from ._plan import AllocationPlan, check_plan, plan_charge
from ._ledger import (
    BudgetExceededError,
    LedgerEntry,
    _COMPOSITIONS,
    _FORMAT,
    _Remaining,
    _Request,
    _VERSION,
    _as_written,
    _check_scope_label,
    _digest,
    _check_text,
    _fmt,
    _load_json,
    _now,
    _parse_slack,
    _request,
    budget_id,
    entry_event,
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
    plan : AllocationPlan, optional
        The allocation fixed in advance: every charge is accounted to one of its
        lines and refused when no line covers it or its line's share would be
        passed (see :class:`AllocationPlan`).  The shares must fit the totals.

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
    plan : AllocationPlan or None
    head_digest : str
        SHA-256 (hex) of the last ledger entry (of the header before the first
        charge): each entry records the digest of the one before it, and each
        release made with this budget records the head digest after its charge
        (``Release.ledger_digest``).

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
    neighbouring relation.  The sums are exact (rational arithmetic) and a
    charge is refused when the exact sum of the charges as the ledger prints
    them (each double read as its shortest decimal, e.g. 0.1 as 1/10) exceeds
    the total as written, or the exact sum of the doubles, rounded to the
    nearest double, exceeds it: ten charges of 0.1 spend exactly 1.0, and after
    ``charge(1.0)`` on a total of 1.0 even ``charge(1e-17)`` is refused.

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

    def __init__(self, epsilon, delta=0.0, *, description="", plan=None):
        self._epsilon = _check_epsilon(epsilon)
        self._delta = _check_delta(delta)
        self._description = _check_text(description, "description")
        self._plan = check_plan(plan, self._epsilon, self._delta)
        self._line_spent = {}  # plan line index -> (Fraction eps, Fraction delta, the same as written)
        self._head = self._genesis()
        self._lock = threading.RLock()
        self._ledger = []
        self._spent = (Fraction(0), Fraction(0))
        self._spent_written = (Fraction(0), Fraction(0))  # the charges as the ledger prints them: see _commit
        self._parallel = {}  # label -> ParallelComposition
        self._blocks = {}  # label -> AdvancedComposition
        self._id = secrets.token_hex(8)  # tells this budget's parallel sets from another's (their scope)

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
        """``Remaining(epsilon, delta)``: what can still be spent (never negative; the smaller of the
        doubles' and the written sums' remainders, as the refusal compares both)."""
        eps = min(Fraction(self._epsilon) - self._spent[0], _as_written(self._epsilon) - self._spent_written[0])
        delta = min(Fraction(self._delta) - self._spent[1], _as_written(self._delta) - self._spent_written[1])
        return _Remaining(float(max(eps, Fraction(0))), float(max(delta, Fraction(0))))

    id = property(lambda self: self._id, doc="16 random hex digits kept by :meth:`to_json`, the first part of "
                  ":attr:`ParallelComposition.scope` (a file written before 0.1 gets a new one; not hashed).")

    @property
    def ledger(self):
        """Tuple of :class:`LedgerEntry`, one per charge, oldest first."""
        return tuple(self._ledger)

    @property
    def plan(self):
        """The :class:`AllocationPlan` the budget was created with, or None."""
        return self._plan

    @property
    def head_digest(self):
        """SHA-256 (hex) of the last ledger entry, or of the header (totals, description, plan) before any."""
        return self._head

    def _header(self):
        return {"format": _FORMAT, "version": _VERSION, "epsilon": self._epsilon, "delta": self._delta,
                "description": self._description,
                "plan": None if self._plan is None else self._plan.to_dict()}

    def _genesis(self):
        """The digest the chain starts from: the header, so that editing the totals breaks the chain."""
        return _digest(self._header())

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
        if self._plan is not None:
            spent = self.line_spent()
            lines.append("  allocation plan" + (f" ({self._plan.description})" if self._plan.description else "")
                         + ": spent / share")
            for i, ln in enumerate(self._plan.lines, 1):
                e, d = spent[ln.label]
                lines.append(f"    {i}. {ln.label}: epsilon = {_fmt(e)} of {_fmt(ln.epsilon)}, "
                             f"delta = {_fmt(d)} of {_fmt(ln.delta)}")
        lines.append(f"  head digest: {self._head}")
        return "\n".join(line.rstrip() for line in lines)

    # ------------------------------------------------------------------ charging
    def charge(self, epsilon, delta=0.0, *, mechanism="manual", count=1, label="", sensitivity=None,
               neighbours="", grid=None):
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
            Free text for the ledger (never a confidential value); with a plan,
            it names the plan line (see :class:`AllocationPlan`).
        sensitivity, neighbours, grid : optional
            What the release's event records in :meth:`export_events`: the statistic's sensitivity,
            the neighbouring relation (a Release's: ``'replace-one'``, ``'add-remove'``), the grid step.

        Returns
        -------
        LedgerEntry
            The new entry.

        Raises
        ------
        BudgetExceededError
            If the charge would pass the total or its plan line's share, or no
            plan line covers it (nothing is recorded).
        TypeError, ValueError
            For invalid arguments.
        """
        req = _request(epsilon, delta, mechanism, count, label, sensitivity=sensitivity, neighbours=neighbours,
                       grid=grid)
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
            # The refusal compares exact sums, never a rounded one (1.0 then eleven 1e-17 would round
            # back to 1.0 each time): the sum of the charges as written (each double read as its
            # shortest decimal, so ten charges of 0.1 spend exactly 1; a sequential charge as count
            # times its parameters, so charge(0.1, count=3) is 3/10) must not pass the total as
            # written, nor may the sum of the doubles' own values rounded once.
            if composition == "sequential":
                more = (_as_written(req.epsilon) * req.count, _as_written(req.delta) * req.count)
            else:
                more = (_as_written(d_eps), _as_written(d_delta))
            written = (self._spent_written[0] + more[0], self._spent_written[1] + more[1])
            line, line_spent = self._plan_check(req, scope, d_eps, d_delta, more)
            if (float(new_eps) > self._epsilon or float(new_delta) > self._delta
                    or written[0] > _as_written(self._epsilon) or written[1] > _as_written(self._delta)):
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
            self._spent_written = written
            if line is not None:
                self._line_spent[line] = line_spent
            entry = LedgerEntry(
                mechanism=req.mechanism, epsilon=req.epsilon, delta=req.delta, count=req.count,
                charged_epsilon=float(d_eps), charged_delta=float(d_delta), composition=composition,
                scope=scope, group=group, time=_now() if time is None else time, label=req.label,
                sensitivity=req.sensitivity, neighbours=req.neighbours, grid=req.grid, previous=self._head,
                plan_line="" if line is None else self._plan.lines[line].label,
                _neighbouring_as_written=req.neighbouring_as_written)
            self._ledger.append(entry)
            self._head = entry.digest
            return entry

    def _plan_check(self, req, scope, d_eps, d_delta, more):
        """``(line, its new spent)`` for a charge under the plan (None, None without one)."""
        if self._plan is None:
            return None, None
        return plan_charge(self._plan, self._line_spent, req.label, req.mechanism, scope, d_eps, d_delta, more)

    def line_spent(self):
        """``{line label: (epsilon, delta)}``: what each plan line has spent (empty without a plan)."""
        with self._lock:
            if self._plan is None:
                return {}
            return {ln.label: tuple(float(v) for v in self._line_spent.get(i, (0, 0))[:2])
                    for i, ln in enumerate(self._plan.lines)}

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
                "plan": None if self._plan is None else self._plan.to_dict(),
                "spent_epsilon": self.spent_epsilon,
                "spent_delta": self.spent_delta,
                "head_digest": self._head,
                "id": self._id,
                "ledger": [e.to_dict() for e in self._ledger],
            }
        return json.dumps(data, indent=2) + "\n"

    def verify(self, releases):
        """Check that every published release is in this ledger's hash chain (a rollback or rewrite shows).

        Parameters
        ----------
        releases : list of Release
            The releases published from this data set (made with this budget, or
            read back from their files).

        Returns
        -------
        LedgerVerification
            ``ok`` (also its truth value), ``checked``, and ``problems``: one line
            per release that is not in the chain.

        Raises
        ------
        TypeError
            If ``releases`` is not a list or tuple of :class:`~dpinfer.Release`.

        Notes
        -----
        A release is in the chain when its ``ledger_digest`` (the head digest
        after its charge) is the digest of one of the ledger's entries and that
        entry records the release's mechanism, epsilon and delta.  The digests
        carry no key, so a ledger file can be rolled back (an older copy put
        back) or rewritten whole with the chain recomputed (entries deleted, an
        epsilon lowered, the total raised): such a ledger no longer passes
        through the digests the releases published before it, and ``verify``
        names those releases.  A release is found only when its entry and every
        entry before it (and the header) are as they were when it was charged.
        See ``docs/budget.rst`` for what is and is not detected.

        Examples
        --------
        >>> from dpinfer import PrivacyBudget, TulapReleaser
        >>> budget = PrivacyBudget(1.0)
        >>> old = PrivacyBudget.from_json(budget.to_json())  # a copy taken before the releases
        >>> releases = [TulapReleaser(0.4).release(11, 30, rng=s, budget=budget) for s in (1, 2)]
        >>> budget.verify(releases).ok
        True
        >>> report = old.verify(releases)
        >>> report.ok, len(report.problems)
        (False, 2)
        """
        from ._verify import verify_releases

        return verify_releases(self, releases)

    @classmethod
    def from_json(cls, text):
        """A budget from the text written by :meth:`to_json`.

        The ledger is replayed charge by charge: every entry's charged amounts
        must be what the composition rules give (and its plan line's share
        allows), every entry must record the digest of the one before it (the
        first, of the header: totals, description and plan), and the spent
        totals and head digest must be what the file records, or the text is
        rejected.  A duplicate key anywhere is refused.  See
        :class:`LedgerEntry` for what the chain does and does not protect.

        Raises
        ------
        TypeError
            If ``text`` is not a string.
        ValueError
            If it is not such JSON, or the ledger is inconsistent.
        """
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"`text` must be the JSON text of a PrivacyBudget; got {_show(text)}.")
        return cls._from_text(text, "`text`")

    @classmethod
    def _from_text(cls, text, what):
        """:meth:`from_json`, its messages naming ``what`` (the argument, a file, an export's ledger)."""
        data = _load_json(text, what)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"{what} is not a dpinfer privacy budget (its \"format\" must be {_FORMAT!r}).")
        if data.get("version") != _VERSION:
            raise ValueError(f"{what} has budget format version {data.get('version')!r}; this dpinfer reads "
                             f"version {_VERSION}.")
        for key in ("epsilon", "delta", "description", "plan", "spent_epsilon", "spent_delta", "head_digest",
                    "ledger"):
            if key not in data:
                raise ValueError(f"{what} lacks the budget field {key!r}.")
        try:
            plan = None if data["plan"] is None else AllocationPlan.from_dict(data["plan"], "its \"plan\"")
            budget = cls(data["epsilon"], data["delta"], description=data["description"], plan=plan)
            budget._id = budget_id(data["id"]) if "id" in data else budget._id  # absent before 0.1
            if not isinstance(data["ledger"], list):
                raise ValueError("its \"ledger\" must be a list of entries.")
            for i, raw in enumerate(data["ledger"], 1):
                budget._replay(raw, i)
        except BudgetExceededError as exc:
            raise ValueError(f"{what} holds a ledger that does not fit its totals: {exc.detail}") from exc
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} holds an invalid budget: {exc}") from exc
        if (budget.spent_epsilon, budget.spent_delta) != (data["spent_epsilon"], data["spent_delta"]):
            raise ValueError(
                f"{what} records spent epsilon = {data['spent_epsilon']!r}, delta = "
                f"{data['spent_delta']!r}, but its ledger adds up to {budget.spent_epsilon!r}, "
                f"{budget.spent_delta!r}.")
        if budget.head_digest != data["head_digest"]:
            raise ValueError(
                f"{what} records head digest {str(data['head_digest'])[:16]!r}..., but its entries chain to "
                f"{budget.head_digest[:16]!r}...: the last entry was removed or changed, or the header edited.")
        return budget

    def _replay(self, raw, i):
        (relation, event), where = entry_event(raw, i), f"ledger entry {i}"
        for name in ("mechanism", "composition", "scope", "group", "time", "label", relation, "plan_line", "previous"):
            _check_text(raw[name], f"{name} of {where}")
        if raw["previous"] != self._head:
            changed = "the header (totals, description, plan)" if i == 1 else f"entry {i - 1}"
            raise ValueError(
                f"{where} breaks the hash chain: it records previous digest {raw['previous'][:16]!r}..., but "
                f"{changed} has digest {self._head[:16]!r}...; an entry was removed, changed or reordered, "
                "or the header edited.")
        if raw["composition"] not in _COMPOSITIONS:
            raise ValueError(f"{where}: composition must be one of {', '.join(map(repr, _COMPOSITIONS))}; "
                             f"got {raw['composition']!r}.")
        comp, scope, time = raw["composition"], raw["scope"], raw["time"]
        if comp == "advanced-reserve":
            k = _check_int(raw["count"], f"count of {where}", minimum=1, maximum=10**12)
            slack = _parse_slack(raw["label"], where)
            block = AdvancedComposition(self, scope, k, _check_epsilon(raw["epsilon"], f"epsilon of {where}"),
                                        _check_delta(raw["delta"], f"delta of {where}"), slack)
            req = _request(block.epsilon, block.delta, raw["mechanism"], k, raw["label"], where, **event)
            if scope in self._blocks or scope in self._parallel or not scope:
                raise ValueError(f"{where}: block label {scope!r} is empty or already used.")
            entry = self._commit(req, comp, scope, "", block._reservation, time=time)
            self._blocks[scope] = block
        else:
            req = _request(raw["epsilon"], raw["delta"], raw["mechanism"], raw["count"], raw["label"], where, **event)
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
        if entry.plan_line != raw["plan_line"]:
            raise ValueError(f"{where} records plan line {raw['plan_line']!r}, but its label belongs to "
                             f"{entry.plan_line!r}.")
        if entry.to_dict() != raw:
            raise ValueError(f"{where} holds a value that does not survive the replay exactly (a number written "
                             "in another form, or a field of the wrong type).")

    # ------------------------------------------------------------------ export
    def export_events(self, *, delta_slack=1e-6):
        """The ledger as a list of mechanism events that others can re-account, with its hash chain.

        Parameters
        ----------
        delta_slack : float, default 1e-6
            ``delta'`` of the advanced-composition total given for comparison, in (0, 1).

        Returns
        -------
        dict
            JSON-safe (``json.dumps`` it); :meth:`from_events` reads it back.
            Keys: ``format`` (``'dpinfer.LedgerEvents'``), ``version`` (1),
            ``budget`` (the header: totals, description, plan), ``genesis_digest``
            (the header's digest), ``events`` (one per ledger entry, oldest
            first), ``head_digest`` and ``composed`` (the totals).

        Notes
        -----
        **An event** holds every field of its :class:`LedgerEntry` (``mechanism``,
        ``epsilon``, ``delta``, ``count``, ``sensitivity``, ``neighbours``,
        ``grid``, ``composition``, ``scope``, ``group``, ``charged_epsilon``,
        ``charged_delta``, ``time``, ``label``, ``plan_line``, ``previous``), its
        ``digest``, and ``dp_event``: the event in the shape of Google's
        ``dp_accounting`` ``DpEvent`` classes, as a dict whose ``name`` is the
        class and whose other keys are its attributes:
        ``{"name": "EpsilonDeltaDpEvent", "epsilon": e, "delta": d}``, wrapped as
        ``{"name": "SelfComposedDpEvent", "event": {...}, "count": k}`` for an
        entry of ``k`` releases, and ``{"name": "NoOpDpEvent"}`` for an
        advanced-composition block's reservation (its releases are their own
        events).  ``EpsilonDeltaDpEvent`` rather than ``LaplaceDpEvent``: the
        releases are exact laws on a grid whose guarantee is ``(epsilon, delta)``
        (a continuous-Laplace event would describe another law).  With
        ``dp_accounting`` installed, ``ComposedDpEvent`` of the events' objects
        re-accounts the ledger with any of its accountants.

        **Composed totals.**  ``composed["charged"]`` is what the ledger charged,
        each charge composed as declared (sequential; a parallel set's largest
        group; an advanced block's reservation): **the number of record**, equal
        to :attr:`spent_epsilon` and :attr:`spent_delta`.  ``composed["basic"]``
        re-accounts the mechanism events by basic composition (the exact sums of
        ``count * epsilon`` and ``count * delta``; equal to the charged totals when
        every charge is sequential).  ``composed["advanced"]`` applies the
        heterogeneous advanced composition bound
        ``sqrt(2 ln(1/delta') sum c_i epsilon_i**2) + sum c_i epsilon_i (e**epsilon_i - 1)``,
        with delta ``sum c_i delta_i + delta'`` (Kairouz, Oh & Viswanath 2017,
        Thm. 3.5, which implies this form of Dwork, Rothblum & Vadhan 2010, Thm.
        III.3), rounded up; it does not use disjointness.

        **The hash chain** (:class:`LedgerEntry` Notes) is in the events'
        ``previous`` and ``digest``: an export whose events were removed, changed
        or reordered is refused by :meth:`from_events`.

        Examples
        --------
        >>> from dpinfer import PrivacyBudget, TulapReleaser
        >>> budget = PrivacyBudget(1.0)
        >>> rel = TulapReleaser(0.25).release(11, 30, rng=7, budget=budget)
        >>> export = budget.export_events()
        >>> export["events"][0]["dp_event"]
        {'name': 'EpsilonDeltaDpEvent', 'epsilon': 0.25, 'delta': 0.0}
        >>> export["composed"]["of_record"], export["composed"]["charged"]
        ('charged', {'epsilon': 0.25, 'delta': 0.0})
        >>> rel.ledger_digest == export["head_digest"] == export["events"][0]["digest"]
        True
        >>> PrivacyBudget.from_events(export) == budget
        True
        """
        from ._export import export_events

        return export_events(self, delta_slack)

    @classmethod
    def from_events(cls, data, *, releases=None):
        """The budget an :meth:`export_events` export describes (a dict, or its JSON text), replayed as
        :meth:`from_json` replays a ledger; digests, ``dp_event`` and totals must be what it gives.

        Parameters
        ----------
        data : dict or str
            The export.
        releases : list of Release, optional
            The releases published from the data set: each must be in the
            export's chain (:meth:`verify`), or the export is refused as behind
            (an old or truncated export) or rewritten.  Without them an old
            export is a valid older state of the ledger and is read as such.

        Raises
        ------
        TypeError, ValueError
            If ``data`` is not such an export, any part of it disagrees, or a
            release in ``releases`` is not in its chain.
        """
        from ._export import budget_from_events

        return budget_from_events(cls, data, releases)

    def __eq__(self, other):
        if not isinstance(other, PrivacyBudget):
            return NotImplemented
        return (self._epsilon, self._delta, self._description, self._plan, self._ledger) == (
            other._epsilon, other._delta, other._description, other._plan, other._ledger)

    __hash__ = None
