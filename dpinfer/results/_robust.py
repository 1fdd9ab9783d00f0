"""The result of :func:`~dpinfer.robust_frequency_estimate`: :class:`RobustEstimate`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _mechanisms
from ._privacy import PrivacyRecord

__all__ = ["RobustEstimate"]


@dataclass(frozen=True, eq=False)
class RobustEstimate:
    """Result of :func:`robust_frequency_estimate`.

    Attributes
    ----------
    estimate : ndarray, shape (d,)
        The robust estimate of the category probabilities, on the simplex
        (non-negative, sums to 1).  Read-only.
    weighted_mean : ndarray, shape (d,)
        The filter's weighted mean of debiased batch means before projection
        (unbiased for good data, may leave the simplex).  Read-only.
    naive_estimate : ndarray, shape (d,)
        The unweighted mean of all batches projected onto the simplex, for
        comparison (what one gets without the filter).  Read-only.
    weights : ndarray, shape (n_batches,)
        Final weight of each batch in ``[0, 1]`` (1 = untouched).  Read-only.
    removed : ndarray of int
        Indices of the batches whose weight reached 0.
    removed_weight : float
        Share of the total weight taken off by the filter, ``1 - mean(weights)``;
        at most ``2 * contamination``.
    n_iter : int
        Number of filtering passes, tail or soft steps (0 when nothing was removed).
    excess : float
        Final top eigenvalue of (weighted covariance of batch means minus the
        covariance expected of good batches).
    threshold : float
        The threshold ``excess`` was compared with at the last pass.
    stop_reason : str
        ``'within_threshold'`` or ``'budget_exhausted'`` (``2 * contamination`` of
        the weight removed while ``excess`` was still above ``threshold``).
    epsilon, contamination : float
        Privacy level of the reports and the contamination bound used.
    n_batches, k, d : int
        Number of batches, answers per batch, categories.
    privacy : PrivacyRecord
        ``epsilon`` of the unary-encoding reports as a :class:`PrivacyRecord`
        (read-only property).
    """

    estimate: np.ndarray
    weighted_mean: np.ndarray
    naive_estimate: np.ndarray
    weights: np.ndarray
    removed: np.ndarray
    removed_weight: float
    n_iter: int
    excess: float
    threshold: float
    stop_reason: str
    epsilon: float
    contamination: float
    n_batches: int
    k: int
    d: int

    def __post_init__(self):
        for name in ("estimate", "weighted_mean", "naive_estimate", "weights", "removed"):
            arr = np.array(getattr(self, name))
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    def __str__(self):
        est = ", ".join(f"{x:.4g}" for x in self.estimate)
        return (
            "Robust frequency estimate from contaminated batches (unary encoding, spectral filter)\n"
            f"  estimate:  [{est}]\n"
            f"  batches:   {self.n_batches} of k = {self.k} answers, d = {self.d} categories; "
            f"{self.removed.size} removed, weight removed {self.removed_weight:.4g} "
            f"(bound 2 * contamination = {2 * self.contamination:.4g})\n"
            f"  filter:    {self.n_iter} passes, excess {self.excess:.4g} vs threshold "
            f"{self.threshold:.4g} ({self.stop_reason})\n"
            f"  privacy:   local epsilon = {self.epsilon:.4g} per answer"
        )

    @property
    def privacy(self):
        """The :class:`PrivacyRecord` of the estimate (local DP, unary encoding, per answer)."""
        return PrivacyRecord(self.epsilon, 0.0, _mechanisms.UNARY_ENCODING)

    def to_dict(self):
        """A flat JSON-safe dict (arrays become lists)."""
        return {
            "estimate": self.estimate.tolist(),
            "weighted_mean": self.weighted_mean.tolist(),
            "naive_estimate": self.naive_estimate.tolist(),
            "weights": self.weights.tolist(),
            "removed": self.removed.tolist(),
            "removed_weight": self.removed_weight,
            "n_iter": self.n_iter,
            "excess": self.excess,
            "threshold": self.threshold,
            "stop_reason": self.stop_reason,
            "epsilon": self.epsilon,
            "contamination": self.contamination,
            "n_batches": self.n_batches,
            "k": self.k,
            "d": self.d,
        }


RobustEstimate.__module__ = "dpinfer.results"  # pickles and docs name the public path
