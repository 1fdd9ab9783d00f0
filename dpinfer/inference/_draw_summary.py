"""What a simulation-based method reads off its draws: the interval's tails and the p-value.

Shared by DP-JIMI for proportions (:mod:`dpinfer.inference.jimi`) and for means
(:mod:`dpinfer.inference.means`): an interval at ``confidence_level`` leaves the tail
probabilities of :func:`interval_tails` outside it, and a p-value is the share of draws
on the far side of the null value (:func:`pvalue_from_shares`, also the rule of every
other method that combines two one-sided p-values), counted with the observed release
as one of the draws (:func:`draw_share`), so a simulated p-value is never 0.
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


def draw_share(count, draws):
    """``(count + 1) / (draws + 1)``: the one-sided simulated p-value from ``count`` of ``draws`` draws.

    The observed release counts as one of the draws (Davison & Hinkley 1997, eq. 4.11;
    fima's DP-JIMI reports ``(k + 1) / (H + 1)``), so the p-value is never below
    ``1 / (draws + 1)``: with ``k / H`` a release beyond every draw claimed p = 0 and a
    Monte Carlo standard error of 0 (issue 40).  The one rule of every simulated p-value
    (DP-JIMI for proportions, means and logistic regression; repro samples; the log-rank
    test); ``count`` may be an array, or a share times ``draws`` (mid-p ties count halves).
    """
    return (count + 1.0) / (draws + 1.0)


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
