"""The one composition rule of a result computed from several releases.

Shared and private.  Whether two releases are about disjoint people is a fact of
the design, not of the method, so every method and door that combines releases
(two arms, two groups of means, strata, sites, the stages of a design) asks this
module, and nothing else, which composition its privacy line states:

* ``composition=None`` (every function's default) reads the releases: the result
  is ``'parallel'`` only when every input is a release that records the disjoint
  group it was charged to (its ``disjoint`` record, ``(scope, group)``, set when a
  budget's ``parallel(label).group(name)`` handle was charged), all in one scope
  and each in a group of its own.  Otherwise ``'sequential'``: the sum of the
  epsilons, which never understates what the releases cost together.
* ``composition='sequential'`` is always allowed (it can only overstate).
* ``composition='parallel'`` is the user's statement about the design (typed
  numbers carry no record); it is refused when the releases record the contrary:
  two of them charged to the same group of the same scope, that is the same
  people.
"""

from __future__ import annotations

from fractions import Fraction

from ._validation import _show

__all__ = []  # package-internal: the names below are imported explicitly

SEQUENTIAL = "sequential"
PARALLEL = "parallel"
CHOICES = (SEQUENTIAL, PARALLEL)


def _record(release):
    """``(scope, group)`` a release records, or None (numbers, or a release charged to no disjoint group)."""
    record = getattr(release, "disjoint", None)
    if record is None:
        return None
    scope, group = record
    return str(scope), str(group)


def proves_disjoint(releases):
    """True when the releases record pairwise different groups of one parallel scope."""
    records = [_record(r) for r in releases]
    if len(records) < 2 or any(r is None for r in records):
        return False
    return len({scope for scope, _ in records}) == 1 and len(set(records)) == len(records)


def composition_rule(composition, releases, *, name="composition"):
    """``'parallel'`` or ``'sequential'``: the composition a result of ``releases`` states.

    ``releases`` are the inputs in order (Releases, or numbers standing for
    them).  See the module docstring for the rule.
    """
    if composition is not None and not isinstance(composition, str):
        raise TypeError(f"`{name}` must be None, 'sequential' or 'parallel'; got {_show(composition)}.")
    if composition is not None and composition not in CHOICES:
        raise ValueError(f"`{name}` must be None, 'sequential' or 'parallel'; got {composition!r}.")
    if composition is None:
        return PARALLEL if proves_disjoint(releases) else SEQUENTIAL
    if composition == PARALLEL:
        records = [r for r in map(_record, releases) if r is not None]
        if len(set(records)) < len(records):
            raise ValueError(
                f"`{name}` = 'parallel' contradicts the releases: two of them record the same group of the same "
                "parallel scope of a budget (the same people). Leave `composition` out, or pass 'sequential'.")
    return composition


def combined_privacy(epsilons, deltas, composition):
    """``(epsilon, delta)`` of releases used together: sums (sequential) or maxima (parallel), exact sums."""
    if composition == PARALLEL:
        return float(max(epsilons)), float(max(deltas))
    return float(sum(map(Fraction, epsilons), Fraction(0))), float(sum(map(Fraction, deltas), Fraction(0)))
