"""Release a paired 2 x 2 table (McNemar's data) on the exact Tulap grid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import _check_epsilon, _data_array
from .. import _mechanisms
from ..budget._charging import charge_release
from ..distributions._tulap_law import tulap_grid, unit_privacy
from ._secure_path import _bit_source
from .release import Release
from .table import check_count_cells
from .tulap import _release_tulap

__all__ = ["PairedTableReleaser"]


@dataclass(frozen=True)
class PairedTableReleaser:
    """Release the discordance of a paired 2 x 2 table: ``(n10 - n01, n01 + n10)`` with Tulap noise.

    ``n`` pairs (matched subjects, before/after, two raters), each with two binary
    outcomes; ``table[i][j]`` is the number of pairs whose first outcome is ``i`` and
    second is ``j`` (R's ``mcnemar.test`` layout).  The release is the pair
    ``(Z_D, Z_S)``: ``Z_D = D + N_D`` with ``D = n10 - n01`` (the difference McNemar's
    test is about) and ``Z_S = S + N_S`` with ``S = n01 + n10`` (the discordant pairs),
    ``N_D``, ``N_S`` independent grid-Tulap noises of the unit privacy
    ``epsilon_1 = epsilon / 2`` (rounded down).  ``n`` is public.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter of the whole release, > 0 (``delta = 0``).

    Notes
    -----
    **Sensitivity.**  Under replace-one (one pair's two outcomes replaced, ``n`` fixed)
    the pair moves from one cell to another.  Between the concordant cells nothing
    released moves; between a concordant and a discordant cell ``D`` and ``S`` move
    by 1 each; between the two discordant cells ``D`` moves by 2 and ``S`` not at all.
    So the L1 sensitivity of ``(D, S)`` is 2, and with each coordinate released by a
    Tulap law of ``epsilon_1`` per unit (privacy loss ``epsilon_1 |shift|``, Awan &
    Slavkovic 2018, Thm. 2.4) the loss of any neighbour is at most
    ``2 epsilon_1 <= epsilon``: epsilon-DP for one pair.  The test suite checks this
    from the exact law (the density ratio of neighbours over a grid of outputs).

    **Why these two numbers, not the cells.**  The cells' own sensitivity is the
    same (a pair moving changes two cells by 1 each, so the whole table or the two
    discordant cells at ``epsilon / 2`` per cell), but McNemar's statistic is then
    ``Z10 - Z01``, carrying two noises, and the discordance ``Z10 + Z01`` two more.
    Releasing the rotation ``(D, S)`` puts one noise of the same law on each: half
    the noise variance on both numbers the test reads (``2 Var(N)`` for ``Z10 - Z01``
    against ``Var(N)`` for ``Z_D``), whatever the data, and the test's ordering reads
    nothing else.  The concordant cells carry nothing about ``p10 - p01`` beyond
    ``n - S``, so releasing the whole table spends the same budget on four noisy cells
    for no further information.  (The choice rests on this variance comparison; an exact
    power comparison would need the law of a difference of two Tulap noises in the
    McNemar sums, which the package does not compute for paired data.)

    **Exact arithmetic.**  ``D + n`` is released as a count out of ``2 n`` and ``S`` as
    a count out of ``2 n`` (one grid, decided from the public ``n`` and ``epsilon``:
    :func:`dpinfer.distributions._tulap_law.tulap_grid`), by the integer path of
    :class:`~dpinfer.TulapReleaser`; subtracting the public ``n`` from an odd multiple
    of the grid step ``2**-(k+1)`` is exact.  Every output is such a multiple, in a
    range fixed by ``n`` and ``epsilon``, whatever the table.

    Examples
    --------
    >>> from dpinfer import PairedTableReleaser
    >>> rel = PairedTableReleaser(epsilon=1.0).release([[40, 5], [15, 40]], rng=7)
    >>> rel.kind, rel.n, rel.value.shape, rel.sensitivity
    ('paired', 100, (2,), 2.0)
    """

    _mechanism = _mechanisms.TULAP  # the registry code (see dpinfer._mechanisms)

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))

    def _semantics(self, method):
        """The declaration every release of this releaser records (``dpinfer._mechanisms``)."""
        return _mechanisms.Semantics(_mechanisms.TULAP, _mechanisms.REPLACE_ONE, _mechanisms.PAIR_UNIT)

    @property
    def unit_epsilon(self):
        """``epsilon_1``: the Tulap law's epsilon per unit shift of each coordinate (``epsilon / 2``, rounded down)."""
        return unit_privacy(self.epsilon, 0.0, 2)[0]

    def release(self, table, *, rng=None, secure=None, budget=None, array=None):
        """Release ``(n10 - n01, n01 + n10)`` of a paired table with Tulap noise.

        Parameters
        ----------
        table : array_like of int, shape (2, 2) or (..., 2, 2)
            ``table[i][j]``: pairs with first outcome ``i``, second ``j``.  Extra leading
            axes hold several tables with one total ``n`` (e.g. a simulation).
        rng, secure, budget, array
            As for :meth:`TulapReleaser.release <dpinfer.TulapReleaser.release>`; the
            budget is charged ``epsilon`` per table before any noise is drawn.

        Returns
        -------
        Release
            ``mechanism='tulap'``, ``kind='paired'``, ``value`` the pair
            ``(z_difference, z_discordant)`` on the last axis, ``n`` the number of
            pairs, ``sensitivity`` 2 (L1, the pair), ``delta = 0``.

        Raises
        ------
        TypeError, ValueError
            Not a (..., 2, 2) array of whole numbers >= 0, or tables of different
            totals, or no pair: the messages name positions, never counts.
        """
        arr = _data_array(table, "table", dtype_rule="an array of counts (whole numbers) of shape (2, 2)")
        if arr.ndim < 2 or arr.shape[-2:] != (2, 2):
            raise ValueError(f"`table` must have shape (2, 2) or (..., 2, 2); got shape {arr.shape}.")
        check_count_cells(arr)
        if arr.max(initial=0) >= 2**40:
            raise ValueError("`table` must contain counts below 2**40 (the release grid's reach).")
        counts = arr.astype(np.int64)
        totals = counts.sum(axis=(-2, -1))
        n = int(totals.reshape(-1)[0])
        if np.any(totals != n):
            raise ValueError("`table` must hold tables of one total n (n is public and shared by the "
                             "stacked tables); the totals differ.")
        if n < 1:
            raise ValueError("`table` must hold at least one pair; it holds none.")
        unit = self.unit_epsilon
        bits = _bit_source(secure, rng, self.epsilon, 2)
        grid = tulap_grid(2 * n, unit, 0.0)  # refuses numbers without a grid, before the charge
        charge = charge_release(budget, self, "release", shape=counts.shape[:-2], array=array, n=n, rng=rng,
                                secure=bits.hardened, sensitivity=2.0, grid=2.0**-grid.bits)
        difference = counts[..., 1, 0] - counts[..., 0, 1]
        discordant = counts[..., 1, 0] + counts[..., 0, 1]
        z_difference = _release_tulap(bits, difference + n, 2 * n, unit, 0.0) - n  # exact: one grid, public n
        z_discordant = _release_tulap(bits, discordant, 2 * n, unit, 0.0)
        value = np.stack([z_difference, z_discordant], axis=-1)
        return Release(value, charge.mechanism, self.epsilon, 0.0, 2.0, n, "paired", secure=bits.hardened,
                       **charge.fields)
