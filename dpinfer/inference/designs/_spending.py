"""Alpha- and beta-spending functions of group-sequential designs (Lan & DeMets 1983).

Kernels (valid input assumed except for a user's callable, which :func:`spending_values`
checks).  A spending function ``f(t; alpha)`` gives the cumulative error allowed by the
information fraction ``t`` in [0, 1], increasing, with ``f(0) = 0`` and ``f(1) = alpha``:

* O'Brien-Fleming type (Lan & DeMets 1983, eq. (4); rpact ``typeOfDesign = "asOF"``,
  gsDesign ``sfLDOF``), one-sided: ``f(t) = 2 - 2 Phi(z_{1 - alpha/2} / sqrt(t))``;
* Pocock type (Lan & DeMets 1983, eq. (5); rpact ``"asP"``, gsDesign ``sfLDPocock``):
  ``f(t) = alpha log(1 + (e - 1) t)``.

The same functions spend the type II error ``beta = 1 - power`` for a futility boundary
(rpact ``typeBetaSpending = "bsOF"``/``"bsP"``; gsDesign ``sfu``/``sfl``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from ..._validation import _show

__all__ = []  # private module

SPENDING = ("obrien-fleming", "pocock")


def obrien_fleming(t, alpha):
    """Lan-DeMets O'Brien-Fleming-type spending ``2 - 2 Phi(z_{1 - alpha/2} / sqrt(t))`` (0 at t = 0)."""
    t = np.asarray(t, float)
    z = stats.norm.isf(alpha / 2.0)
    with np.errstate(divide="ignore"):
        # 2 Phi(-x) = erfc(x / sqrt 2): the upper tail without cancellation
        return np.where(t > 0.0, special.erfc(z / np.sqrt(np.where(t > 0.0, t, 1.0)) / math.sqrt(2.0)), 0.0)


def pocock(t, alpha):
    """Lan-DeMets Pocock-type spending ``alpha log(1 + (e - 1) t)``."""
    return alpha * np.log1p((math.e - 1.0) * np.asarray(t, float))


def spending_values(spending, fractions, alpha, name="spending"):
    """The cumulative spending at each fraction (a tuple), for a name or a user's callable.

    A callable is called as ``spending(t, alpha)`` with ``t`` one float at a time; it must
    return numbers in [0, alpha], non-decreasing in ``t``, equal to ``alpha`` at ``t = 1``
    (within 1e-12 relative; the last look then spends exactly ``alpha``).
    """
    if spending == "obrien-fleming":
        values = obrien_fleming(fractions, alpha)
    elif spending == "pocock":
        values = pocock(fractions, alpha)
    else:
        values = []
        for t in fractions:
            v = spending(float(t), alpha)
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise TypeError(f"`{name}` must return a number for each information fraction; "
                                f"got {_show(v)} at t = {float(t)!r}.") from None
            values.append(v)
        values = np.array(values)
        if not np.all(np.isfinite(values)) or np.any(values < 0.0) or np.any(values > alpha * (1 + 1e-12)):
            raise ValueError(f"`{name}` must return values in [0, alpha] = [0, {alpha!r}] at the information "
                             f"fractions; got {[float(v) for v in values]}.")
        if np.any(np.diff(values) < 0.0):
            raise ValueError(f"`{name}` must be non-decreasing in the information fraction; got "
                             f"{[float(v) for v in values]}.")
        if abs(values[-1] - alpha) > 1e-12 * alpha:
            raise ValueError(f"`{name}` must spend all of alpha = {alpha!r} at t = 1; got {float(values[-1])!r}.")
    values = np.minimum(np.asarray(values, float), alpha)
    values[-1] = alpha
    return tuple(float(v) for v in values)
