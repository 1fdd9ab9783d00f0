"""The score ordering of an odds-ratio null (kernels; valid public input assumed).

The null ``theta1 (1 - theta2) / (theta2 (1 - theta1)) = psi0`` is ordered by the score
statistic of Miettinen & Nurminen (1985), used unconditionally by Agresti & Min (2002), of
the releases' integer parts ``j_i = clip(K_i, 0, n_i)`` with the noise variances added.

*Restricted MLE.*  Under the null, ``t1 = psi0 t2 / (1 + (psi0 - 1) t2)``, and the likelihood
equation ``j1 + j2 = n1 t1 + n2 t2`` is the quadratic ``A t2^2 + B t2 + C = 0`` with
``A = n2 (psi0 - 1)``, ``B = n1 psi0 + n2 - m (psi0 - 1)``, ``C = -m``, ``m = j1 + j2``
(Miettinen & Nurminen 1985, Appendix I); its root in ``[0, 1]`` is taken as ``2m / (B + sqrt(D))``
where ``B >= 0`` and as ``(-B + sqrt(D)) / (2A)`` otherwise (then ``psi0 > 1``, ``A > 0``), with
``D = B^2 + 4 n2 (psi0 - 1) m``: neither form cancels.  At ``m = 0`` and ``m = n1 + n2`` the root
is set to 0 and 1 exactly.

*The statistic.*  With ``a_i = n_i t_i (1 - t_i)`` and ``d = j1 - n1 t1`` (``= n2 t2 - j2``), the
Miettinen-Nurminen score is ``d sqrt(1/a1 + 1/a2)`` (without their factor
``sqrt(1 - 1/(n1 + n2))``, a constant that does not change the order).  It is the linearised log
odds ratio at the restricted MLE, ``(p1 - t1)/(t1 (1 - t1)) - (p2 - t2)/(t2 (1 - t2))
= d (1/a1 + 1/a2)``, over its standard deviation ``sqrt(1/a1 + 1/a2)``.  With the releases'
integer noise (variance ``v_i``) the variance of that numerator is ``(a1 + v1)/a1^2 + (a2 + v2)/a2^2``,
so the ordering is

    g = d (a1 + a2) / sqrt(a2^2 (a1 + v1) + a1^2 (a2 + v2)),

which is the Miettinen-Nurminen score at ``v = 0`` and, at ``psi0 = 1``, exactly the pooled z
with the noise variances added that orders a null of no difference (the restricted MLE is then
the pooled proportion), so the three effects agree at no effect.
"""

from __future__ import annotations

import numpy as np

__all__ = []  # private module


def _restricted_odds_ratio(j1, j2, n1, n2, psi):
    """The restricted MLE ``(t1, t2)`` under an odds ratio ``psi`` (arrays broadcast; see the module)."""
    m = np.asarray(j1 + j2, float)
    big_b = n1 * psi + n2 - m * (psi - 1.0)
    root = np.sqrt(np.maximum(big_b * big_b + 4.0 * n2 * (psi - 1.0) * m, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t2 = np.where(big_b >= 0.0, 2.0 * m / (big_b + root), (root - big_b) / (2.0 * n2 * (psi - 1.0)))
    t2 = np.where(m <= 0.0, 0.0, np.where(m >= n1 + n2, 1.0, np.clip(t2, 0.0, 1.0)))
    t1 = psi * t2 / (1.0 + (psi - 1.0) * t2)
    return np.where(m >= n1 + n2, 1.0, np.clip(t1, 0.0, 1.0)), t2


def _odds_ratio_terms(n1, n2, psi, v1, v2, rows=slice(None)):
    """``(numerator, variance)`` of the ordering ``g`` on the lattice's ``rows`` (``g = numerator / sqrt(variance)``)."""
    j1 = np.arange(n1 + 1, dtype=float)[rows, None]
    j2 = np.arange(n2 + 1, dtype=float)[None, :]
    t1, t2 = _restricted_odds_ratio(j1, j2, n1, n2, psi)
    a1, a2 = n1 * t1 * (1.0 - t1), n2 * t2 * (1.0 - t2)
    d = np.where((j1 + j2 <= 0) | (j1 + j2 >= n1 + n2), 0.0, j1 - n1 * t1)
    return d * (a1 + a2), a2 * a2 * (a1 + v1) + a1 * a1 * (a2 + v2)
