"""Handles that charge a PrivacyBudget by parallel or advanced composition, or under a label."""

from __future__ import annotations

import math
from fractions import Fraction

from ._ledger import BudgetExceededError, _check_text, _drv_bound, _fmt, _request

__all__ = [
    "AdvancedComposition",
    "ParallelComposition",
]


class ParallelComposition:
    """A partition of the data set into disjoint groups, charged by parallel composition.

    Made by :meth:`PrivacyBudget.parallel`; not built directly.  Releases of a
    group are passed ``budget=partition.group(name)``.  The budget is charged,
    at each release, by the rise of the largest group total (epsilon and delta
    separately), so the whole set costs ``max_g (sum over group g)``.  The
    neighbouring relation assumed is in :class:`PrivacyBudget`'s Notes.

    Attributes
    ----------
    label : str
    scope : str
        The identity of this set: ``'<budget id>/<label>'`` (see
        :attr:`PrivacyBudget.id`).  A release charged to one of its groups records
        ``(scope, group)`` in :attr:`Release.disjoint <dpinfer.Release.disjoint>`;
        two sets with the same label in two budgets have different scopes, and a
        budget read back with :meth:`~PrivacyBudget.from_json` keeps its scopes.
    spent : dict
        ``{group: (epsilon, delta)}``, each group's sequential total.
    spent_epsilon, spent_delta : float
        The largest group totals (what the set has charged the budget).

    Examples
    --------
    >>> from dpinfer import PrivacyBudget, TulapReleaser
    >>> b = PrivacyBudget(1.0)
    >>> sites = b.parallel("responders by site")
    >>> for site, (x, n) in {"A": (5, 20), "B": (9, 25), "C": (2, 12)}.items():
    ...     rel = TulapReleaser(1.0).release(x, n, rng=1, budget=sites.group(site))
    >>> b.spent_epsilon
    1.0
    """

    def __init__(self, budget, label):
        self._budget = budget
        self.label = label
        self._sums = {}  # group -> (Fraction eps, Fraction delta)

    @property
    def scope(self):
        """``'<budget id>/<label>'``: what a release charged to a group of this set records."""
        return f"{self._budget.id}/{self.label}"

    def group(self, name):
        """The handle of group ``name`` (a non-empty string), to pass as ``budget=``."""
        name = _check_text(name, "name")
        if not name:
            raise ValueError("`name` of a group must be a non-empty string; got ''.")
        return _Group(self, name)

    @property
    def spent(self):
        """``{group: (epsilon, delta)}``: each group's sequential total."""
        with self._budget._lock:
            return {g: (float(e), float(d)) for g, (e, d) in self._sums.items()}

    def _max(self):
        eps = max((e for e, _ in self._sums.values()), default=Fraction(0))
        delta = max((d for _, d in self._sums.values()), default=Fraction(0))
        return eps, delta

    @property
    def spent_epsilon(self):
        """The largest group epsilon total."""
        with self._budget._lock:
            return float(self._max()[0])

    @property
    def spent_delta(self):
        """The largest group delta total."""
        with self._budget._lock:
            return float(self._max()[1])

    def __repr__(self):
        return f"ParallelComposition(label={self.label!r}, groups={len(self._sums)})"


class _Group:
    """Handle of one group of a :class:`ParallelComposition` (pass it as ``budget=``)."""

    def __init__(self, partition, name):
        self._partition = partition
        self.name = name

    def charge(self, epsilon, delta=0.0, *, mechanism="manual", count=1, label="", **event):
        """Charge ``count`` releases at ``(epsilon, delta)`` to this group (see :meth:`PrivacyBudget.charge`;
        ``event`` holds its ``sensitivity``, ``neighbours`` and ``grid``)."""
        return self._charge_request(_request(epsilon, delta, mechanism, count, label, **event))

    def with_label(self, label):
        """A handle charging this group with ``label`` in front of each entry's label."""
        return _Labelled(self, _check_text(label, "label"))

    def _charge_request(self, req, *, time=None):
        part, budget = self._partition, self._partition._budget
        with budget._lock:
            old_max = part._max()
            e0, d0 = part._sums.get(self.name, (Fraction(0), Fraction(0)))
            new = (e0 + Fraction(req.epsilon) * req.count, d0 + Fraction(req.delta) * req.count)
            new_max = (max(old_max[0], new[0]), max(old_max[1], new[1]))

            def apply():
                part._sums[self.name] = new

            cost = (new_max[0] - old_max[0], new_max[1] - old_max[1], apply)
            return budget._commit(req, "parallel", part.label, self.name, cost, time=time)

    def __repr__(self):
        return f"<group {self.name!r} of parallel set {self._partition.label!r}>"


class AdvancedComposition:
    """A block of up to ``k`` releases reserved by advanced composition.

    Made by :meth:`PrivacyBudget.advanced`; pass the block as ``budget=`` to each
    of its releases.  The reservation was charged when the block was made; a
    release of at most ``epsilon`` and ``delta`` uses one of the ``k`` slots (an
    array of ``m`` separate statistics uses ``m``) and charges nothing more.  A
    release above the block's parameters, or past ``k``, raises
    :class:`BudgetExceededError`.

    Attributes
    ----------
    label : str
    k : int
    epsilon, delta, delta_slack : float
    rule : str
        ``'advanced composition'`` or ``'basic composition'`` (when ``k epsilon``
        is the smaller bound).
    reserved_epsilon, reserved_delta : float
        What the block charged the budget.
    used : int
        Slots used so far.
    """

    def __init__(self, budget, label, k, epsilon, delta, delta_slack):
        self._budget = budget
        self.label = label
        self.k, self.epsilon, self.delta, self.delta_slack = k, epsilon, delta, delta_slack
        basic = Fraction(epsilon) * k
        bound = _drv_bound(k, epsilon, delta_slack)
        advanced = Fraction(bound) if math.isfinite(bound) else None
        if advanced is not None and advanced < basic:
            self.rule = "advanced composition"
            cost = (advanced, Fraction(delta) * k + Fraction(delta_slack))
        else:
            self.rule = "basic composition"
            cost = (basic, Fraction(delta) * k)
        self._reservation = (cost[0], cost[1], None)
        self.used = 0

    @property
    def reserved_epsilon(self):
        """Epsilon the block charged the budget."""
        return float(self._reservation[0])

    @property
    def reserved_delta(self):
        """Delta the block charged the budget."""
        return float(self._reservation[1])

    @property
    def remaining_releases(self):
        """Slots left (``k - used``)."""
        return self.k - self.used

    def charge(self, epsilon, delta=0.0, *, mechanism="manual", count=1, label="", **event):
        """Use ``count`` slots for releases at ``(epsilon, delta)`` (each at most the block's; ``event`` as in
        :meth:`PrivacyBudget.charge`)."""
        return self._charge_request(_request(epsilon, delta, mechanism, count, label, **event))

    def with_label(self, label):
        """A handle charging this block with ``label`` in front of each entry's label."""
        return _Labelled(self, _check_text(label, "label"))

    def _charge_request(self, req, *, time=None):
        budget = self._budget
        with budget._lock:
            what = req.label or req.mechanism
            if req.epsilon > self.epsilon or req.delta > self.delta:
                raise BudgetExceededError(
                    f"block {self.label!r} holds releases of at most epsilon = {_fmt(self.epsilon)}, delta = "
                    f"{_fmt(self.delta)}; this one ({what}) has epsilon = {_fmt(req.epsilon)}, delta = "
                    f"{_fmt(req.delta)}. Nothing was drawn and nothing was charged.",
                    requested=(req.epsilon, req.delta), remaining=(self.epsilon, self.delta))
            if self.used + req.count > self.k:
                raise BudgetExceededError(
                    f"block {self.label!r} was reserved for {self.k} releases and {self.used} are used; this one "
                    f"({what}) needs {req.count}. Nothing was drawn and nothing was charged.",
                    requested=(req.epsilon, req.delta), remaining=(0.0, 0.0))

            def apply():
                self.used += req.count

            return budget._commit(req, "advanced", self.label, "", (Fraction(0), Fraction(0), apply), time=time)

    def __repr__(self):
        return (f"AdvancedComposition(label={self.label!r}, k={self.k}, epsilon={self.epsilon!r}, "
                f"delta={self.delta!r}, used={self.used})")


class _Labelled:
    """A budget handle that puts ``label`` in front of each entry's label."""

    def __init__(self, target, label):
        self._target = target
        self.label = label

    def charge(self, epsilon, delta=0.0, *, mechanism="manual", count=1, label="", **event):
        """Charge the underlying budget or handle, with this handle's label in front."""
        return self._target.charge(epsilon, delta, mechanism=mechanism, count=count, label=self._join(label),
                                   **event)

    def with_label(self, label):
        """A handle with one more label."""
        return _Labelled(self, _check_text(label, "label"))

    def _join(self, label):
        if not label:
            return self.label
        return f"{self.label} ({label})" if self.label else label

    def __repr__(self):
        return f"<{self._target!r} labelled {self.label!r}>"
