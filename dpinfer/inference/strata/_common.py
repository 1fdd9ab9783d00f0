"""What the pooled and the stratified results share: the privacy record and the interval search."""

from __future__ import annotations

from ..._composition_rule import PARALLEL, combined_privacy, composition_rule
from .._resolve import provenance

__all__ = []  # private module


def privacy(sites, composition, labels):
    """``(epsilon, delta, note, fields)`` of a result from ``sites`` (labels name each).

    The composition is decided only by :func:`dpinfer._composition_rule.composition_rule`
    from the releases' records; the note lists every release's own budget; ``fields`` are
    the result's provenance and the composition as decided.
    """
    rule = composition_rule(composition, [s.release for s in sites])
    epsilon, delta = combined_privacy([s.record.epsilon for s in sites], [s.record.delta for s in sites], rule)

    def one(s):
        text = f"epsilon = {s.record.epsilon:g}"
        if s.record.delta:
            text += f", delta = {s.record.delta:g}"
        k = s.record.sensitivity
        return text if k == 1 else f"{text} (sensitivity {k:g})"

    how = "parallel composition (disjoint people)" if rule == PARALLEL else "sequential composition"
    note = "; ".join(f"{label}: {one(s)}" for label, s in zip(labels, sites)) + f"; {how}"
    return epsilon, delta, note, {**provenance(*[s.record for s in sites]), "composition": rule}


def rejected_end(pvalue, level, low, high, iterations=60):
    """The end of the set ``{x in [low, high]: pvalue(x) > level}`` on the side of ``low``.

    ``pvalue`` is taken as increasing in ``x`` (the tail of a stochastically increasing
    statistic).  Returns ``low`` when ``pvalue(low) > level`` and ``high`` when no point
    exceeds it; else bisects and returns the bracket's rejected end, so the interval it
    bounds never leaves out a point the search saw accepted.
    """
    if pvalue(low) > level:
        return low
    if pvalue(high) <= level:
        return high
    a, b = low, high
    for _ in range(iterations):
        mid = 0.5 * (a + b)
        if pvalue(mid) > level:
            b = mid
        else:
            a = mid
        if b - a <= 1e-12:
            break
    return a
