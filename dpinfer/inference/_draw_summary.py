"""What a simulation-based method reads off its draws: the interval's tails and the p-value.

Shared by DP-JIMI for proportions (:mod:`dpinfer.inference.jimi`) and for means
(:mod:`dpinfer.inference.means`): an interval at ``confidence_level`` leaves the tail
probabilities of :func:`interval_tails` outside it, and a p-value is the share of draws
on the far side of the null value (:func:`pvalue_from_shares`, also the rule of every
other method that combines two one-sided p-values).
"""

from __future__ import annotations

import numpy as np

__all__ = []  # package-internal


def interval_tails(confidence_level, alternative):
    """Tail probabilities (lower, upper) outside the interval; None marks an unbounded side."""
    a = 1.0 - confidence_level
    if alternative == "two-sided":
        return 0.5 * a, 0.5 * a
    if alternative == "greater":
        return a, None
    return None, a


def pvalue_from_shares(share_le, share_ge, alternative):
    """The p-value from the shares of draws ``<= p0`` and ``>= p0`` (two-sided: twice the smaller).

    The one rule by which the package turns the two one-sided p-values (against
    ``'greater'``: ``share_le``; against ``'less'``: ``share_ge``) into the alternative's,
    for draws, rank counts (repro samples) and closed forms alike.
    """
    if alternative == "greater":
        return share_le
    if alternative == "less":
        return share_ge
    return np.minimum(1.0, 2.0 * np.minimum(share_le, share_ge))
