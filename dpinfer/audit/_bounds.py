"""Bounds: the chosen event's probabilities bounded on the evaluation half (Clopper-Pearson)."""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv


def _cp_lower(k, m, tail):
    """One-sided Clopper-Pearson lower bound on a probability from k successes in m."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(k > 0, betaincinv(np.maximum(k, 1.0), m - k + 1.0, tail), 0.0)


def _cp_upper(k, m, tail):
    """One-sided Clopper-Pearson upper bound on a probability from k successes in m."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(k < m, betaincinv(k + 1.0, np.maximum(m - k, 1.0), 1.0 - tail), 1.0)


def _bound(p_lower, p_upper, delta):
    """log((p_lower - delta) / p_upper), floored at 0 (vectorised)."""
    num = np.asarray(p_lower, dtype=float) - delta
    den = np.asarray(p_upper, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.where((num > 0) & (den > 0), np.log(np.maximum(num, 1e-300) / np.maximum(den, 1e-300)), 0.0)
    val = np.maximum(val, 0.0)
    return float(val) if val.ndim == 0 else val


def _bound_event(event, ev_x, ev_y, delta, tail):
    """The lower confidence bound for one fixed event, from the evaluation half.

    ``event`` was chosen without looking at ``ev_x``, ``ev_y`` (the selection
    half only), so the occurrence counts are binomial with the event's true
    probabilities and the two one-sided Clopper-Pearson bounds, each at level
    ``1 - tail``, hold jointly with probability ``>= 1 - 2 tail`` (Bonferroni).

    Returns
    -------
    tuple
        ``(k_num, k_den, p_lower, p_upper, epsilon_lower)``: the counts under the
        numerator and denominator inputs, the lower bound on the numerator
        probability, the upper bound on the denominator probability, and
        ``log((p_lower - delta) / p_upper)`` floored at 0.
    """
    m = ev_x.shape[0]
    in_x, in_y = int(event.mask(ev_x).sum()), int(event.mask(ev_y).sum())
    k_num, k_den = (in_x, in_y) if event.forward else (in_y, in_x)
    p_lower = float(_cp_lower(k_num, m, tail))
    p_upper = float(_cp_upper(k_den, m, tail))
    return k_num, k_den, p_lower, p_upper, _bound(p_lower, p_upper, delta)
