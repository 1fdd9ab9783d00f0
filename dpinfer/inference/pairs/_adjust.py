"""Multiplicity adjustment of p-values, as R's ``p.adjust`` (public function)."""

from __future__ import annotations

import numpy as np

from ..._validation import _check_int, _show

__all__ = ["adjust_pvalues"]

METHODS = ("holm", "hochberg", "bonferroni", "BH", "BY", "none")
_ALIASES = {"fdr": "BH"}


def _pvalues(p):
    """A 1-d float array of p-values in [0, 1] from numbers or results with a ``pvalue``."""
    if hasattr(p, "pvalue") and not isinstance(p, (list, tuple, np.ndarray)):
        p = p.pvalue
    if isinstance(p, (list, tuple)):
        p = [getattr(x, "pvalue", x) for x in p]
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`p` must be p-values (numbers in [0, 1]) or results with a `pvalue`; got {_show(p)}.") \
            from None
    if arr.ndim > 1:
        raise ValueError(f"`p` must be one-dimensional; got shape {arr.shape}.")
    arr = arr.reshape(-1)
    bad = ~((arr >= 0.0) & (arr <= 1.0))
    if bad.any():
        raise ValueError(f"`p` must contain p-values in [0, 1]; position {int(np.flatnonzero(bad)[0])} is "
                         f"{arr[bad][0]!r}.")
    return arr


def adjust_pvalues(p, method="holm", *, n=None):
    """Adjust p-values for multiple comparisons, as R's ``p.adjust(p, method, n)``.

    In the release-then-infer model an adjustment is post-processing of released results:
    it costs no privacy budget.  Its validity rests only on the joint law of the p-values,
    which for dpinfer's exact tests is known (each p-value is valid: ``P(p <= u) <= u``).

    Parameters
    ----------
    p : sequence of float, or of results with a ``pvalue`` (e.g. :class:`~dpinfer.HTestResult`)
        The unadjusted p-values.
    method : {'holm', 'hochberg', 'bonferroni', 'BH', 'BY', 'none'}, default 'holm'
        R's names (``'fdr'`` is accepted for ``'BH'``, as in R).
    n : int, optional
        The number of hypotheses (at least ``len(p)``); default ``len(p)``.

    Returns
    -------
    ndarray
        The adjusted p-values, in the order of ``p``.

    Raises
    ------
    TypeError, ValueError
        ``p`` not numbers in [0, 1] (the message names the position), an unknown method,
        ``n`` below ``len(p)``.

    Notes
    -----
    The formulas are R's (``stats::p.adjust``), with ``p_(1) <= ... <= p_(m)`` sorted and ``n``
    hypotheses:

    * ``'bonferroni'``: ``min(1, n p_i)``.  Family-wise error (FWER) at most alpha under
      *any* dependence.
    * ``'holm'`` (Holm 1979): ``min(1, max_{j <= i} (n - j + 1) p_(j))``.  FWER under any
      dependence, uniformly more powerful than Bonferroni.
    * ``'hochberg'`` (Hochberg 1988): ``min(1, min_{j >= i} (n - j + 1) p_(j))``.  FWER only
      when the Simes inequality holds: independent p-values, or positively dependent ones
      (multivariate totally positive of order 2, Sarkar 1998).  One-sided many-to-one
      comparisons sharing a control are positively dependent (each arm's statistic
      decreases in the control's release); for two-sided ones use Holm or the
      Dunnett-type adjustment.
    * ``'BH'`` (Benjamini & Hochberg 1995): ``min(1, min_{j >= i} n p_(j) / j)``.  False
      discovery rate (not FWER) at most alpha under independence or positive regression
      dependence (PRDS; Benjamini & Yekutieli 2001).
    * ``'BY'`` (Benjamini & Yekutieli 2001): BH times ``sum_{k <= n} 1/k``; FDR under any
      dependence.

    Checked against R's ``p.adjust`` (R run for real; the calls are cited in
    ``tests/inference/pairs/test_adjust.py``): identical to 1e-15.

    References
    ----------
    Holm, S. (1979). Scand. J. Statist. 6, 65-70.  Hochberg, Y. (1988). Biometrika 75,
    800-802.  Sarkar, S. K. (1998). Ann. Statist. 26, 494-504.  Benjamini, Y. and
    Hochberg, Y. (1995). JRSS B 57, 289-300.  Benjamini, Y. and Yekutieli, D. (2001).
    Ann. Statist. 29, 1165-1188.

    Examples
    --------
    >>> from dpinfer import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], 'holm').tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], 'hochberg').tolist()
    [0.03, 0.04, 0.04, 0.02]
    """
    arr = _pvalues(p)
    if not isinstance(method, str):
        raise TypeError(f"`method` must be one of {', '.join(map(repr, METHODS))}; got {_show(method)}.")
    method = _ALIASES.get(method, method)
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {', '.join(map(repr, METHODS))}; got {method!r}.")
    m = arr.size
    n = m if n is None else _check_int(n, "n", minimum=1)
    if n < m:
        raise ValueError(f"`n` must be at least the number of p-values ({m}); got {n}.")
    if n <= 1 or method == "none" or m == 0:
        return arr.copy()
    if method == "bonferroni":
        return np.minimum(1.0, n * arr)
    if method == "holm":
        order = np.argsort(arr, kind="stable")
        i = np.arange(1, m + 1)
        adjusted = np.minimum(1.0, np.maximum.accumulate((n - i + 1) * arr[order]))
    else:
        order = np.argsort(-arr, kind="stable")  # decreasing
        i = np.arange(m, 0, -1)
        if method == "hochberg":
            scaled = (n - i + 1) * arr[order]
        else:
            scaled = n / i * arr[order]
            if method == "BY":
                scaled = scaled * np.sum(1.0 / np.arange(1, n + 1))
        adjusted = np.minimum(1.0, np.minimum.accumulate(scaled))
    out = np.empty(m)
    out[order] = adjusted
    return out
