"""The released life table as inference sees it, and the arithmetic of grouped survival data.

Package-internal.  :func:`life_table` turns a Release of kind ``'life_table'`` into a
frozen :class:`LifeTable` once (the integer part of every cell, the public layout,
the noise law); after that only these objects travel.  The other functions are
vectorised over any leading axes (a simulated stack of tables):

* :func:`consistent` the projection of noisy counts onto consistent life tables;
* :func:`km` the product-limit curve at the breaks (Kaplan-Meier or actuarial);
* :func:`logrank` the grouped-time log-rank score and its variance;
* :func:`simulate` fresh tables from interval hazards, with the release's noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import _mechanisms
from ..._validation import _kind_of
from ...distributions._tulap_law import unit_privacy
from ...releasers.release import Release
from .._resolve import accepts, resolve

__all__ = []  # package-internal

#: the releases the survival methods take (Releases only: a life table has no number form)
ACCEPTS = accepts({(_mechanisms.TULAP, "life_table")}, ("kaplan_meier", "logrank_test"),
                  "a Tulap life table (LifeTableReleaser(epsilon, breaks).release(time, event, group))")


@dataclass(frozen=True, eq=False)
class LifeTable:
    """A released life table: integer noisy counts, public layout, the per-cell noise ratio.

    ``counts`` (arms, J, 2) holds ``round(Z)``: the true count plus discrete-Laplace
    noise ``D`` with ``P(D = d)`` proportional to ``b**|d|`` exactly (the uniform part
    of the Tulap release lies strictly inside (-1/2, 1/2) and carries no information
    about the data; :class:`~dpinfer.LifeTableReleaser`, Notes).
    """

    counts: np.ndarray
    breaks: tuple
    groups: tuple
    sizes: tuple
    b: float
    record: object  # the resolver's record (privacy fields of the results)
    value: np.ndarray  # the released values (the derived stream's seed)

    @property
    def epsilon(self):
        return self.record.epsilon


def life_table(release, method, name="release"):
    """The :class:`LifeTable` of ``release`` (a Release of kind 'life_table'); TypeError/ValueError otherwise."""
    if not isinstance(release, Release):
        raise TypeError(f"`{name}` must be a dpinfer Release of kind 'life_table' (from "
                        f"LifeTableReleaser.release); got {_kind_of(release)}.")
    rec = resolve(release, accepts=ACCEPTS, method=method, name=name, numbers=False)
    if release.sensitivity != 2.0 or release.delta != 0.0:
        raise ValueError(f"`{name}` must be a life table as LifeTableReleaser releases it (sensitivity 2, delta 0: "
                         f"Tulap noise at epsilon / 2 per cell); got sensitivity {release.sensitivity!r} and delta "
                         f"{release.delta!r}, another noise law.")
    value = np.asarray(release.value, dtype=float)
    if value.ndim != 3:
        raise ValueError(f"`{name}` must hold one life table; got a stack of shape {value.shape}. "
                         "Analyse the tables of a stack one at a time.")
    eps1, _ = unit_privacy(release.epsilon, 0.0, int(release.sensitivity))
    counts = np.rint(value).astype(np.int64)
    counts.setflags(write=False)
    return LifeTable(counts, release.breaks, release.groups, release.group_sizes, float(np.exp(-eps1)), rec,
                     value)


def consistent(counts, sizes):
    """Project noisy counts ``(..., A, J, 2)`` onto life tables: ``(d, c, r)`` each ``(..., A, J)``, integers.

    The projection works on the cumulative counts, whose noise is unbiased (Hay,
    Rastogi, Miklau & Suciu 2010: consistency of a noisy histogram through its
    cumulative sums).  Per arm, the noisy cumulative events ``E_j = sum_(k <= j) K_dk``
    are replaced by their isotonic (nondecreasing least-squares) fit, rounded and
    clipped to ``[0, n_a]``; the cumulative censorings likewise, clipped to
    ``[0, n_a - E_J]``.  Then ``d_j = E_j - E_(j-1)``, ``c_j = C_j - C_(j-1)`` and
    ``r_j = n_a - E_(j-1) - C_(j-1)``: whole numbers >= 0 with ``d_j + c_j <= r_j``,
    so the product-limit curve is monotone and in [0, 1].  (Clipping each cell at 0
    instead would add about ``b / (1 - b^2)`` to every small cell, a bias that
    accumulates over the intervals.)
    """
    counts = np.asarray(counts)
    n = np.asarray(sizes, dtype=np.int64)[..., :, None]  # (A, 1), broadcast over the leading axes
    events = _round_clip(isotonic(np.cumsum(counts[..., 0], axis=-1)), 0, n)
    cens = _round_clip(isotonic(np.cumsum(counts[..., 1], axis=-1)), 0, n - events[..., -1:])
    zero = np.zeros(events.shape[:-1] + (1,), dtype=np.int64)
    before_e = np.concatenate([zero, events[..., :-1]], axis=-1)
    before_c = np.concatenate([zero, cens[..., :-1]], axis=-1)
    return events - before_e, cens - before_c, n - before_e - before_c


def _round_clip(x, low, high):
    return np.clip(np.rint(x).astype(np.int64), low, high)


#: most sequences x J^2 handled at once by the vectorised isotonic fit (memory: 8 bytes each)
_ISO_BLOCK = 4_000_000


def isotonic(y):
    """The nondecreasing least-squares fit of each sequence on the last axis of ``y`` (equal weights).

    The min-max formula (Barlow, Bartholomew, Bremner & Brunk 1972, Thm. 1.4):
    ``fit_j = max_(i <= j) min_(k >= j) mean(y_i .. y_k)``, vectorised over the
    sequences in blocks; exact (the same fit as the pool-adjacent-violators
    algorithm, ``scipy.optimize.isotonic_regression``, as the test suite checks).
    """
    y = np.asarray(y, dtype=float)
    shape = y.shape
    J = shape[-1]
    out = y.reshape(-1, J).copy()
    todo = np.flatnonzero(np.any(np.diff(out, axis=-1) < 0, axis=-1))  # a monotone sequence is its own fit
    if todo.size:
        out[todo] = _isotonic_rows(out[todo])
    return out.reshape(shape)


def _isotonic_rows(flat):
    """:func:`isotonic` of the rows of the 2-d array ``flat`` (the min-max formula, in blocks)."""
    J = flat.shape[-1]
    out = np.empty_like(flat)
    prefix = np.concatenate([np.zeros((flat.shape[0], 1)), np.cumsum(flat, axis=-1)], axis=-1)
    i = np.arange(J)[:, None]
    k = np.arange(J)[None, :]
    length = np.where(k >= i, k - i + 1, 1).astype(float)
    step = max(1, _ISO_BLOCK // (J * J))
    for s in range(0, flat.shape[0], step):
        p = prefix[s:s + step]
        means = (p[:, None, 1:] - p[:, :-1, None]) / length  # means[., i, k] of y_i .. y_k
        means = np.where(k >= i, means, np.inf)
        suffix_min = np.minimum.accumulate(means[..., ::-1], axis=-1)[..., ::-1]  # min over k >= j
        out[s:s + step] = np.max(np.where(i <= k, suffix_min, -np.inf), axis=-2)
    return out


def hazards(d, c, r):
    """Interval hazards of the event ``d / r`` and of censoring ``c / (r - d)`` (0 where nobody is at risk)."""
    h = np.divide(d, r, out=np.zeros(d.shape), where=r > 0)
    left = r - d
    g = np.divide(c, left, out=np.zeros(c.shape), where=left > 0)
    return h, g


def km(d, r, c=None):
    """The product-limit curve ``S(t_j) = prod_(k <= j) (1 - d_k / r'_k)`` (factor 1 where ``r'_k = 0``).

    ``c`` None: ``r' = r``, the Kaplan-Meier estimate on the grouped times (censorings at
    the interval's end).  ``c`` given: ``r' = r - c / 2``, the actuarial (life-table)
    estimate of Cutler & Ederer (1958), the censorings at risk for half the interval.
    """
    r = np.asarray(r, dtype=float)
    if c is not None:
        r = r - 0.5 * np.asarray(c, dtype=float)
    h = np.divide(d, r, out=np.zeros(np.shape(d)), where=r > 0)
    return np.cumprod(1.0 - h, axis=-1)


def logrank(d, r):
    """Grouped-time log-rank ``(U, V)`` of arm 0 against arm 1: ``d, r`` of shape ``(..., 2, J)``.

    ``U = sum_j (d_0j - r_0j d_j / r_j)``, ``V = sum_j r_0j r_1j d_j (r_j - d_j) / (r_j^2 (r_j - 1))``
    (the hypergeometric variance; Mantel 1966, Peto & Peto 1972; R ``survival::survdiff``
    with all times of an interval set to its end: censorings at ``t_j`` count at risk
    at ``t_j``).  Intervals with ``r_j <= 1`` add nothing to ``V``.
    """
    d0, d1 = d[..., 0, :].astype(float), d[..., 1, :].astype(float)
    r0, r1 = r[..., 0, :].astype(float), r[..., 1, :].astype(float)
    dd, rr = d0 + d1, r0 + r1
    expected = np.divide(r0 * dd, rr, out=np.zeros(rr.shape), where=rr > 0)
    var = np.divide(r0 * r1 * dd * (rr - dd), rr * rr * (rr - 1.0), out=np.zeros(rr.shape), where=rr > 1)
    return np.sum(d0 - expected, axis=-1), np.sum(var, axis=-1)


def observed_expected(d, r):
    """Per arm observed events and expected ones under a common hazard, ``(..., A)`` each (survdiff's columns)."""
    dd = d.sum(axis=-2, keepdims=True).astype(float)
    rr = r.sum(axis=-2, keepdims=True).astype(float)
    expected = np.divide(r * dd, rr, out=np.zeros(r.shape), where=rr > 0)
    return d.sum(axis=-1), expected.sum(axis=-1)


def simulate(gen, h, g, sizes, b, n_sim):
    """``n_sim`` noisy life tables ``(n_sim, A, J, 2)`` (integers) at hazards ``h``, ``g`` of shape ``(A, J)``.

    Each arm starts with its public size; in interval ``j``, ``D ~ Binomial(r, h_j)``
    events, then ``C ~ Binomial(r - D, g_j)`` censorings (the grouped-time model
    whose estimates :func:`hazards` gives), and each cell gets fresh discrete-Laplace
    noise of ratio ``b`` (the released law: a difference of two geometric variables).
    """
    A, J = h.shape
    r = np.broadcast_to(np.asarray(sizes, dtype=np.int64), (n_sim, A)).copy()
    out = np.empty((n_sim, A, J, 2), dtype=np.int64)
    for j in range(J):
        events = gen.binomial(r, h[:, j])
        cens = gen.binomial(r - events, g[:, j])
        out[:, :, j, 0] = events
        out[:, :, j, 1] = cens
        r = r - events - cens
    return out + discrete_laplace(gen, b, out.shape)


def discrete_laplace(gen, b, shape):
    """Discrete Laplace noise, ``P(D = d) = (1 - b)/(1 + b) b^|d|``: a difference of two geometrics."""
    if b <= 0.0:
        return np.zeros(shape, dtype=np.int64)
    p = 1.0 - b
    return gen.geometric(p, size=shape) - gen.geometric(p, size=shape)
