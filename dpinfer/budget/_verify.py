"""Anchoring the ledger outside its file: published releases and the head sidecar, checked against the chain.

The hash chain lets anyone recompute every digest, so a file alone cannot show
that it was rolled back (an older copy put back) or rewritten whole (entries
deleted, an epsilon lowered, the total raised, the chain recomputed).  Two
anchors kept *outside* the file can: the head digest each published release
records (``Release.ledger_digest``), and the ``(entries, head digest)`` pair
the command keeps beside the file (``FILE.head``).  Both name a head the chain
must pass through.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validation import _show

__all__ = ["LedgerVerification"]


def chain_heads(budget):
    """The heads the chain passed through: the genesis (header) digest, then each entry's digest, oldest first."""
    with budget._lock:
        return [budget._genesis(), *(entry.digest for entry in budget._ledger)]


@dataclass(frozen=True)
class LedgerVerification:
    """What :meth:`PrivacyBudget.verify` found: which published releases the ledger's chain holds.

    Attributes
    ----------
    ok : bool
        True when every release checked is in the chain with its matching entry.
    checked : int
        How many releases were checked.
    problems : tuple of str
        One line per release that is not (its position, 1-based, and why).
    entries : int
        The ledger's number of entries.
    head_digest : str
        The ledger's head digest.
    """

    ok: bool
    checked: int
    problems: tuple
    entries: int
    head_digest: str

    def __bool__(self):
        return self.ok

    def __str__(self):
        head = (f"ledger: {self.entries} entr{'y' if self.entries == 1 else 'ies'}, head digest "
                f"{self.head_digest[:16]}...")
        if self.ok:
            return f"{head}\nall {self.checked} release(s) are in the chain with their entries: OK"
        lines = [head, f"{len(self.problems)} of {self.checked} release(s) are NOT in the chain:"]
        lines += [f"  {p}" for p in self.problems]
        lines.append("The ledger was rolled back or rewritten after these releases were charged, or they "
                     "were charged to another ledger: it does not account for them.")
        return "\n".join(lines)

    def to_dict(self):
        """The attributes as a JSON-safe dict (``problems`` as a list)."""
        return {"ok": self.ok, "checked": self.checked, "problems": list(self.problems),
                "entries": self.entries, "head_digest": self.head_digest}


def verify_releases(budget, releases, names=None):
    """A :class:`LedgerVerification` of ``releases`` (Release objects) against ``budget``'s chain.

    A release is in the chain when its ``ledger_digest`` is the digest of entry
    ``k`` (k >= 1) and that entry records the release's mechanism, epsilon and
    delta.  ``names`` (e.g. file names) label the problems instead of positions.
    """
    from ..releasers import Release

    if isinstance(releases, Release) or not isinstance(releases, (list, tuple)):
        raise TypeError(f"`releases` must be a list or tuple of Release objects; got {_show(releases)}.")
    for i, release in enumerate(releases):
        if not isinstance(release, Release):
            raise TypeError(f"`releases[{i}]` must be a Release; got {_show(release)}.")
    heads = chain_heads(budget)
    at = {digest: k for k, digest in enumerate(heads)}
    entries = budget.ledger
    problems = []
    for i, release in enumerate(releases):
        name = f"release {i + 1}" if names is None else f"release {i + 1} ({names[i]})"
        digest = release.ledger_digest
        if digest is None:
            problems.append(f"{name}: records no ledger digest (it was not charged to a ledger)")
            continue
        k = at.get(digest, 0)
        if k == 0:
            problems.append(f"{name}: its ledger digest {digest[:16]}... is no head this chain passed through")
            continue
        entry = entries[k - 1]
        if (entry.mechanism, entry.epsilon, entry.delta) != (release.mechanism, release.epsilon, release.delta):
            problems.append(f"{name}: entry {k} has its digest but records {entry.mechanism} at epsilon = "
                            f"{entry.epsilon!r}, delta = {entry.delta!r}, not the release's {release.mechanism} "
                            f"at epsilon = {release.epsilon!r}, delta = {release.delta!r}")
    return LedgerVerification(not problems, len(releases), tuple(problems), len(entries), heads[-1])


def anchor_problem(budget, entries, digest):
    """Why ``budget`` is behind or off the anchor ``(entries, digest)``, or None when its chain passes through it."""
    heads = chain_heads(budget)
    held = len(heads) - 1
    if entries > held:
        return (f"it holds {held} entr{'y' if held == 1 else 'ies'}, but {entries} were recorded (head digest "
                f"{digest[:16]}...): it is behind, an older copy or a truncated ledger")
    if heads[entries] != digest:
        return (f"its chain does not pass through the head digest {digest[:16]}... recorded after entry "
                f"{entries}: it was rewritten")
    return None
