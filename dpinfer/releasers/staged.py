"""The staged release of a trial with interim looks: each stage's new patients released once."""

from __future__ import annotations

import numpy as np

from .._validation import _check_counts, _check_delta, _check_epsilon, _check_int, _check_rng, _show
from ..budget import PrivacyBudget
from .tulap import TulapReleaser

__all__ = ["StagedRelease"]

CONTINUE = "continue"
EFFICACY = "stop for efficacy"
FUTILITY = "stop for futility"
DECISIONS = (CONTINUE, EFFICACY, FUTILITY)


class StagedRelease:
    """Run a design with ``S`` stages and one or more arms: release each stage's new count once.

    At stage ``s`` the count of responders among the stage's *new* patients of each
    arm (``x`` out of the stage's size ``n[s][a]``) is released once with Tulap noise
    at the design's ``(epsilon, delta)``
    (:class:`~dpinfer.TulapReleaser`); the releases are kept, and after each look the
    design's decision rule (if given) says ``'continue'``, ``'stop for efficacy'`` or
    ``'stop for futility'``.

    Parameters
    ----------
    stage_sizes : sequence
        The public design: one entry per stage, in order; an entry is the number of
        new patients of the stage (an int, one arm) or a sequence of ints, one per arm
        (the same number of arms at every stage).
    epsilon : float
        Privacy-loss parameter of every stage's release, > 0: the whole design costs
        this once (see Notes).
    delta : float, default 0.0
        Approximate-DP slack of every release, in [0, 1).
    arms : sequence of str, optional
        Names of the arms (default ``('arm',)`` for one arm, ``('arm 1', 'arm 2', ...)``).
    budget : PrivacyBudget, optional
        The trial's budget.  The design is charged to its parallel set
        ``budget.parallel(label)``, one group per (stage, arm): the ledger records each
        release with its stage and arm, and the set costs ``(epsilon, delta)`` once.
        None (the default) charges nothing.
    label : str, default 'staged design'
        Names the parallel set in the budget (it must not already hold charges) and
        heads each ledger entry's label.
    rule : callable, optional
        The design's decision rule, ``rule(stage, releases) -> str``: ``stage`` the
        stage just released (1-based), ``releases`` the tuple (one entry per stage
        released so far) of tuples (one :class:`~dpinfer.Release` per arm).  It returns
        one of ``'continue'``, ``'stop for efficacy'``, ``'stop for futility'``, and
        must stop at the last stage.  A design's ``staged_release`` method passes its
        own rule (e.g. :meth:`SimonDesign.staged_release`).
    released : sequence, default ()
        To continue a run begun in an earlier session (e.g. the ``dpinfer`` command): the
        releases of the stages already released, in order, each a Release (one arm) or one
        per arm; each must be the stage's Tulap count at the design's privacy.  The rule is
        applied to them again.  With a budget, its parallel set ``label`` must hold exactly
        their charges (one per stage and arm); without ``released`` it must hold none.

    Attributes
    ----------
    stage_sizes : tuple of tuple of int
        ``stage_sizes[s][a]``: new patients of arm ``a`` at stage ``s + 1``.
    arms : tuple of str
    n_stages : int
    epsilon, delta : float
    label : str
    releases : tuple of tuple of Release
        What has been released so far, one tuple (over arms) per stage.
    decisions : tuple of str or None
        The rule's word after each look (None for a look without a rule).
    decision : str or None
        The last one (None before the first look or without a rule).
    stopped : bool
        True once the rule stopped the trial or the last stage was released.
    next_stage : int or None
        The stage that may be released next (None once stopped).

    Raises
    ------
    TypeError, ValueError
        For invalid sizes, privacy parameters, arms, budget, label or rule; or a
        label whose parallel set in ``budget`` already holds charges.

    Notes
    -----
    **Why the design costs epsilon once.**  The stages' new patients are different
    people, and so are the arms': the design partitions the trial's patients into
    groups fixed in advance (stage and arm of enrolment, public like the stage
    sizes), and each release reads only its own group.  By parallel composition
    (McSherry 2009, Thm. 4; :meth:`PrivacyBudget.parallel`) every patient's loss is
    that of the one release of their group, whatever the looks decide, so the
    interim looks are free.  The choice of stopping depends only on earlier
    releases (post-processing), and a stage that is never released spends nothing.

    **Refusals** come before any charge or draw and are decided from public numbers
    (the stage asked for, the stages already released, the decisions): a stage out
    of order, a stage released twice, a look the design does not have (a stage
    beyond ``S``, or any stage after the trial stopped).  A count outside ``[0, n]``
    is refused naming its position, never its value.

    **The releases** are ordinary Tulap count releases of each stage's new count
    (``Z_s = X_s + N_s``), so each stage's noise is independent and the inference at
    the end (e.g. :func:`~dpinfer.simon_test`) uses the exact law of the increments.

    References
    ----------
    McSherry, F. (2009).  Privacy integrated queries.  SIGMOD 2009, 19-30.

    Examples
    --------
    >>> from dpinfer import PrivacyBudget, StagedRelease
    >>> budget = PrivacyBudget(1.0, description="phase II trial")
    >>> run = StagedRelease([10, 19], epsilon=1.0, budget=budget, label="Simon design")
    >>> rel = run.release(1, 3, rng=11)
    >>> run.next_stage, budget.spent_epsilon
    (2, 1.0)
    >>> rel = run.release(2, 6, rng=12)
    >>> budget.spent_epsilon, [e.label for e in budget.ledger]
    (1.0, ['Simon design: stage 1 of 2 (TulapReleaser.release, n = 10)', 'Simon design: stage 2 of 2 (TulapReleaser.release, n = 19)'])
    >>> run.release(2, 6, rng=12)
    Traceback (most recent call last):
    ...
    ValueError: `stage` = 2 was released already, and the trial has stopped (the design has 2 stages); nothing was drawn or charged.
    """

    CONTINUE = CONTINUE
    EFFICACY = EFFICACY
    FUTILITY = FUTILITY

    def __init__(self, stage_sizes, *, epsilon, delta=0.0, arms=None, budget=None, label="staged design",
                 rule=None, released=()):
        self._sizes = _check_sizes(stage_sizes)
        n_arms = len(self._sizes[0])
        self._arms = _check_arms(arms, n_arms)
        self._releaser = TulapReleaser(_check_epsilon(epsilon), _check_delta(delta))
        if not isinstance(label, str):
            raise TypeError(f"`label` must be a non-empty string; got {_show(label)}.")
        if not label.strip():
            raise ValueError(f"`label` must be a non-empty string; got {label!r}.")
        self._label = label
        if budget is not None and not isinstance(budget, PrivacyBudget):
            raise TypeError("`budget` of a staged release must be None or a dpinfer.PrivacyBudget (the design "
                            f"is charged to its own parallel set); got {_show(budget)}.")
        if rule is not None and not callable(rule):
            raise TypeError(f"`rule` must be None or a callable rule(stage, releases); got {_show(rule)}.")
        self._rule = rule
        self._releases = []
        self._decisions = []
        self._resume(released)
        self._scope = None
        if budget is not None:
            scope = budget.parallel(label)
            expected = {self._group(s, a): (self.epsilon, self.delta)
                        for s in range(1, len(self._releases) + 1) for a in range(n_arms)}
            if scope.spent != expected:
                raise ValueError(
                    f"`label` {label!r} names a parallel set of this budget whose charges ({_groups(scope.spent)}) "
                    f"are not those of the {len(self._releases)} stage(s) in `released` ({_groups(expected)}); "
                    "a stage is released once: give a new design a label of its own, and a continued one "
                    "exactly its earlier releases.")
            self._scope = scope

    # ------------------------------------------------------------------ reading
    @property
    def stage_sizes(self):
        """``stage_sizes[s][a]``: the new patients of arm ``a`` at stage ``s + 1`` (public)."""
        return self._sizes

    @property
    def arms(self):
        """The arms' names."""
        return self._arms

    @property
    def n_stages(self):
        """Number of stages ``S``."""
        return len(self._sizes)

    @property
    def epsilon(self):
        """Epsilon of every release (and of the whole design)."""
        return self._releaser.epsilon

    @property
    def delta(self):
        """Delta of every release (and of the whole design)."""
        return self._releaser.delta

    @property
    def label(self):
        """The design's label in the budget."""
        return self._label

    @property
    def releases(self):
        """Tuple (over stages released) of tuples (over arms) of :class:`~dpinfer.Release`."""
        return tuple(self._releases)

    @property
    def decisions(self):
        """The rule's word after each look so far (None where no rule was given)."""
        return tuple(self._decisions)

    @property
    def decision(self):
        """The word after the last look, or None."""
        return self._decisions[-1] if self._decisions else None

    @property
    def stopped(self):
        """True once the rule stopped the trial or the last stage was released."""
        return len(self._releases) == self.n_stages or self.decision in (EFFICACY, FUTILITY)

    @property
    def next_stage(self):
        """The stage that may be released next (1-based), or None once stopped."""
        return None if self.stopped else len(self._releases) + 1

    def values(self):
        """The released values so far as a float array of shape ``(stages released, arms)``."""
        return np.array([[r.value for r in stage] for stage in self._releases], dtype=float).reshape(
            len(self._releases), len(self._arms))

    # ------------------------------------------------------------------ releasing
    def release(self, stage, x, *, rng=None, secure=None):
        """Release stage ``stage``'s new count(s) ``x`` (charge first, then draw).

        Parameters
        ----------
        stage : int
            The stage (1-based); it must be :attr:`next_stage`.
        x : int or sequence of int
            The count of responders among the stage's new patients (one arm), or one
            count per arm, in the order of :attr:`arms`.  Confidential.
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None``: the hardened path (see :meth:`TulapReleaser.release`).  A seed or
            generator: the seeded research path (normalised once; the arms draw from it
            in order).
        secure : bool or None
            As in :meth:`TulapReleaser.release`.

        Returns
        -------
        Release or tuple of Release
            The stage's release (one arm) or one per arm.

        Raises
        ------
        ValueError
            A stage out of order, released twice, or that the design does not have
            (beyond the last, or after the trial stopped); a count outside its stage
            size.  Nothing is drawn or charged.
        BudgetExceededError
            If the budget cannot pay for the design (nothing drawn or charged).
        """
        stage = self._check_stage(stage)
        counts = self._check_counts(x, stage)
        gen = None if rng is None else _check_rng(rng)
        sizes = self._sizes[stage - 1]
        out = []
        for a, (count, n) in enumerate(zip(counts, sizes)):
            out.append(self._releaser.release(count, n, rng=gen, secure=secure, budget=self._handle(stage, a)))
        out = tuple(out)
        self._releases.append(out)
        self._decisions.append(self._decide(stage))
        return out[0] if len(out) == 1 else out

    def _group(self, stage, arm):
        return f"stage {stage}" + (f", {self._arms[arm]}" if len(self._arms) > 1 else "")

    def _resume(self, released):
        """Take the releases of earlier sessions (public values), checked against the design, and re-decide."""
        from .release import Release

        stages = _as_list(released)
        if stages is None:
            raise TypeError(f"`released` must be a sequence (one entry per stage already released); got "
                            f"{_show(released)}.")
        if len(stages) > self.n_stages:
            raise ValueError(f"`released` holds {len(stages)} stages; the design has {self.n_stages}.")
        for s, entry in enumerate(stages, 1):
            if self.stopped:
                raise ValueError(f"`released` holds stage {s}, but the rule stopped the trial at stage {s - 1} "
                                 f"({self.decision}).")
            rels = [entry] if isinstance(entry, Release) else _as_list(entry)
            if rels is None or len(rels) != len(self._arms):
                raise TypeError(f"`released[{s - 1}]` must be one Release per arm ({len(self._arms)}); got "
                                f"{_show(entry)}.")
            for a, (rel, n) in enumerate(zip(rels, self._sizes[s - 1])):
                if not isinstance(rel, Release):
                    raise TypeError(f"`released[{s - 1}]` must hold Releases; got {_show(rel)}.")
                record = (rel.mechanism, rel.kind, rel.n, rel.epsilon, rel.delta, rel.sensitivity, np.ndim(rel.value))
                if record != ("tulap", "count", n, self.epsilon, self.delta, 1.0, 0):
                    raise ValueError(
                        f"`released[{s - 1}]` must be the stage's Tulap count release (n = {n}, epsilon = "
                        f"{self.epsilon!r}, delta = {self.delta!r}, sensitivity 1, one value); got a {rel.mechanism} "
                        f"{rel.kind} release with n = {rel.n}, epsilon = {rel.epsilon!r}, delta = {rel.delta!r}.")
            self._releases.append(tuple(rels))
            self._decisions.append(self._decide(s))

    def _handle(self, stage, arm):
        if self._scope is None:
            return None
        group = self._group(stage, arm)
        where = f"{self._label}: stage {stage} of {self.n_stages}" + (
            f", {self._arms[arm]}" if len(self._arms) > 1 else "")
        return self._scope.group(group).with_label(where)

    def _check_stage(self, stage):
        if isinstance(stage, (bool, np.bool_)) or not isinstance(stage, (int, np.integer)):
            raise TypeError(f"`stage` must be a whole number (1-based); got {_show(stage)}.")
        stage = int(stage)
        done = len(self._releases)
        tail = "; nothing was drawn or charged."
        if not 1 <= stage <= self.n_stages:
            raise ValueError(f"`stage` = {stage} is not a look of this design, which has stages 1 to "
                             f"{self.n_stages}{tail}")
        if stage <= done:
            more = ", and the trial has stopped" if self.stopped else f"; the next stage is {done + 1}"
            raise ValueError(f"`stage` = {stage} was released already{more} (the design has {self.n_stages} "
                             f"stages){tail}")
        if self.stopped:
            raise ValueError(f"`stage` = {stage} is not a look of this run: the trial stopped at stage {done} "
                             f"({self.decision}){tail}")
        if stage != done + 1:
            raise ValueError(f"`stage` = {stage} is out of order: the next stage is {done + 1}{tail}")
        return stage

    def _check_counts(self, x, stage):
        sizes = self._sizes[stage - 1]
        if len(sizes) == 1:
            values = [x]
        else:
            values = _as_list(x)
            if values is None or len(values) != len(sizes):
                raise TypeError(f"`x` must hold one count per arm ({len(sizes)}: {', '.join(self._arms)}); "
                                f"got {type(x).__name__}.")
        out = []
        for a, (value, n) in enumerate(zip(values, sizes)):
            name = "x" if len(sizes) == 1 else f"x[{a}]"
            arr = _check_counts(value, n, name=name, n_name=f"the stage {stage} size n")
            if arr.ndim != 0:
                raise TypeError(f"`{name}` must be one count (a whole number); got an array of shape {arr.shape}.")
            out.append(int(arr))
        return out

    def _decide(self, stage):
        if self._rule is None:
            return None
        word = self._rule(stage, self.releases)
        if word not in DECISIONS:
            raise ValueError(f"`rule` returned {_show(word)} after stage {stage}; it must return one of "
                             f"{', '.join(map(repr, DECISIONS))}.")
        if word == CONTINUE and stage == self.n_stages:
            raise ValueError(f"`rule` returned 'continue' after the last stage ({stage}); a design's rule must "
                             "stop at its last look.")
        return word

    # ------------------------------------------------------------------ printing
    def to_dict(self):
        """A JSON-safe dict: the public design, the released values, the decisions."""
        return {
            "label": self._label,
            "arms": list(self._arms),
            "stage_sizes": [list(s) for s in self._sizes],
            "epsilon": self.epsilon,
            "delta": self.delta,
            "released": [[r.value for r in stage] for stage in self._releases],
            "decisions": list(self._decisions),
            "next_stage": self.next_stage,
        }

    def __repr__(self):
        return (f"StagedRelease(stage_sizes={[list(s) if len(s) > 1 else s[0] for s in self._sizes]!r}, "
                f"epsilon={self.epsilon!r}, delta={self.delta!r}, released={len(self._releases)}, "
                f"decision={self.decision!r})")

    def __str__(self):
        lines = [f"Staged release: {self._label}",
                 f"  privacy: epsilon = {self.epsilon:g}, delta = {self.delta:g} for the whole design "
                 "(stages and arms are disjoint patients: parallel composition)"]
        for s, sizes in enumerate(self._sizes, 1):
            size = ", ".join(f"{a} n = {n}" for a, n in zip(self._arms, sizes)) if len(sizes) > 1 else f"n = {sizes[0]}"
            if s <= len(self._releases):
                values = ", ".join(f"{r.value:.7g}" for r in self._releases[s - 1])
                word = self._decisions[s - 1]
                lines.append(f"  stage {s} ({size}): released {values}" + (f" -> {word}" if word else ""))
            else:
                lines.append(f"  stage {s} ({size}): " + ("not released" if self.stopped else "to come"))
        return "\n".join(lines)


def _groups(spent):
    return ", ".join(sorted(spent)) or "none"


def _as_list(value):
    """``list(value)`` for a sized sequence (not a string, not a 0-d array), else None."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        return None
    try:
        return list(value)
    except TypeError:
        return None


def _check_sizes(stage_sizes):
    entries = _as_list(stage_sizes)
    if not entries:
        raise TypeError(f"`stage_sizes` must be a non-empty sequence (one entry per stage); got {_show(stage_sizes)}.")
    out = []
    for s, entry in enumerate(entries, 1):
        if isinstance(entry, (int, np.integer)) and not isinstance(entry, (bool, np.bool_)):
            entry = (entry,)
        entry = _as_list(entry)
        if not entry:
            raise TypeError(f"`stage_sizes` entry {s} must be a whole number or a sequence of them (one per arm); "
                            f"got {_show(entries[s - 1])}.")
        out.append(tuple(_check_int(n, f"stage_sizes[{s - 1}]", minimum=1) for n in entry))
    if len({len(e) for e in out}) != 1:
        raise ValueError("`stage_sizes` must give the same number of arms at every stage; got "
                         f"{[len(e) for e in out]}.")
    return tuple(out)


def _check_arms(arms, n_arms):
    if arms is None:
        return ("arm",) if n_arms == 1 else tuple(f"arm {a}" for a in range(1, n_arms + 1))
    names = _as_list(arms)
    if names is None or not all(isinstance(a, str) and a for a in names):
        raise TypeError(f"`arms` must be None or a sequence of non-empty strings; got {_show(arms)}.")
    arms = names
    if len(arms) != n_arms or len(set(arms)) != n_arms:
        raise ValueError(f"`arms` must name the {n_arms} arm(s) of `stage_sizes`, each once; got {list(arms)!r}.")
    return tuple(arms)
