"""Release an r x c contingency table of counts with Laplace noise per cell."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import _check_epsilon, _data_array, _position, _show
from .. import _mechanisms
from ..budget._charging import charge_release
from ..distributions._laplace_grid import grid_step
from ._secure_path import _bit_source, _laplace_on_grid
from .release import Release

__all__ = ["ContingencyTableReleaser"]

_NEIGHBOURS = ("replace-one", "add-remove")
_MARGINS = ("total", "private")
# Each cell is clipped to this public bound before the noise (a 1-Lipschitz map per
# cell, so the table's L1 sensitivity is unchanged); no real table comes near it.
_CELL_BOUND = 2**40


def check_count_cells(arr):
    """Every cell of the array ``table`` a whole number >= 0; errors name a position, never a count."""
    bad = arr != np.floor(arr)
    if bad.any():
        raise ValueError(f"`table` must contain whole numbers (counts); {_position(bad)} is not.")
    bad = arr < 0
    if bad.any():
        raise ValueError(f"`table` must contain counts >= 0; {_position(bad)} is not.")


@dataclass(frozen=True)
class ContingencyTableReleaser:
    """Laplace noise on every cell of an r x c table of counts.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter of the whole table, > 0 (delta = 0).
    neighbours : {'replace-one', 'add-remove'}, default 'replace-one'
        The neighbouring relation, which fixes the sensitivity.  Under
        ``'replace-one'`` (one person's record is replaced; ``n`` fixed and
        public) one cell loses 1 and another gains 1, so the table moves by 2
        in L1: ``sensitivity = 2``.  Under ``'add-remove'`` (one person's
        record is added or removed; ``n`` changes, so it is private) one cell
        moves by 1: ``sensitivity = 1``.
    margins : {'total', 'private'}, default 'total'
        What is public besides the noisy cells.  ``'total'``: the grand total
        ``n`` is published exactly (``Release.n``).  This costs no privacy under
        ``'replace-one'`` (every neighbour has the same ``n``) and is refused
        under ``'add-remove'``, where ``n`` is confidential.  ``'private'``:
        nothing but the noisy cells (``Release.n`` is None); the row, column and
        grand totals are then known only through sums of noisy cells.  Row or
        column totals are never published exactly: a person's row may change
        between replace-one neighbours.

    Notes
    -----
    **Guarantee.**  epsilon-differential privacy for the whole table under the
    chosen relation, with noise of scale ``sensitivity / epsilon`` on each cell
    (Dwork & Roth 2014, Thm. 3.6, with the L1 sensitivity of a histogram, their
    Sec. 3.3): ``2 / epsilon`` under replace-one, ``1 / epsilon`` under
    add/remove.  The release is charged as one epsilon-DP mechanism.

    **Exact integer noise, on both paths.**  The cells are divided by the
    sensitivity, ``u = counts / sensitivity`` (``counts / 2`` under
    replace-one: multiples of 1/2, and neighbouring tables differ by 1/2 in
    two cells, L1 distance exactly 1 in these units; ``counts`` themselves under
    add/remove, L1 distance 1).  Each unit is placed on the dyadic grid of
    step ``2**-g`` (exactly: the units are multiples of 1/2), so neighbours are
    exactly ``2**g`` grid steps apart in L1, and independent discrete Laplace
    noise with ratio ``exp(-epsilon / 2**g)`` per step is added to every cell in
    64-bit integers (:func:`dpinfer.releasers._secure_path._laplace_on_grid`);
    the sum of the per-cell privacy losses is at most ``epsilon`` by the L1
    bound.  The noisy units are multiplied back by the sensitivity once.  The
    per-cell noise is the grid version of ``Laplace(0, sensitivity /
    epsilon)`` (cdf within ``epsilon / 2**(g+2)`` of it; at ``epsilon = 1``,
    ``g = 21`` under replace-one and ``20`` under add/remove).  Cells are
    first clipped to the public bound ``2**40`` (1-Lipschitz per cell: the
    sensitivity is unchanged; nothing is refused
    on account of the data).  ``rng=None`` draws the bits from the operating
    system's cryptographic source; a seeded ``rng`` gives the same law
    reproducibly (research only).

    The noisy cells are not clamped or rounded: inference
    (:func:`~dpinfer.independence_jimi_test`) inverts the noise law and needs
    the raw release.

    Examples
    --------
    >>> from dpinfer import ContingencyTableReleaser
    >>> rel = ContingencyTableReleaser(epsilon=1.0).release([[12, 8], [5, 15]], rng=7)
    >>> rel.kind, rel.value.shape, rel.sensitivity, rel.n
    ('table', (2, 2), 2.0, 40)
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.LAPLACE, self.neighbours,
                                   _mechanisms.table_unit(self.neighbours, self.sensitivity))

    epsilon: float
    neighbours: str = "replace-one"
    margins: str = "total"

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        for name, choices in (("neighbours", _NEIGHBOURS), ("margins", _MARGINS)):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {_show(value)}.")
            if value not in choices:
                raise ValueError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}.")
        if self.neighbours == "add-remove" and self.margins == "total":
            raise ValueError(
                "`margins` must be 'private' when `neighbours` is 'add-remove'; got 'total'. Under "
                "add/remove the grand total n differs between neighbours, so publishing it exactly "
                "is not differentially private. Use neighbours='replace-one' if n is public.")

    @property
    def sensitivity(self):
        """L1 sensitivity of the table: 2.0 (replace-one) or 1.0 (add/remove)."""
        return 2.0 if self.neighbours == "replace-one" else 1.0

    def release(self, table, *, rng=None, secure=None, budget=None, array=None):
        """Release the table with independent Laplace noise on every cell.

        Parameters
        ----------
        table : array_like of int, shape (r, c) or (..., r, c)
            Counts (whole numbers >= 0), ``r, c >= 2``.  Extra leading axes hold
            several tables released at once (e.g. a simulation); each is one
            release of ``epsilon``.
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path, random bits from the
            operating system's cryptographic source.  A seed or generator: the
            seeded research path (reproducible, hence predictable).
        secure : bool or None, default None
            ``None``: hardened exactly when ``rng`` is None.  ``True`` forces the
            hardened path (an ``rng`` given with it warns and is ignored).
        budget : PrivacyBudget or budget handle, optional
            Charged ``epsilon`` per table before any noise is drawn; a release
            that does not fit raises :class:`~dpinfer.BudgetExceededError` and
            draws nothing.
        array : {None, 'separate', 'disjoint'}
            Required with a budget when several tables are released at once
            (as in :meth:`LaplaceReleaser.release`).  Ignored without a budget.

        Returns
        -------
        Release
            ``mechanism='laplace'``, ``kind='table'``, ``value`` the noisy table
            (same shape as ``table``), ``sensitivity`` 2 or 1, ``n`` the grand
            total when ``margins='total'`` (an int for one table; None for a
            stack or when ``margins='private'``), ``delta=0``.

        Raises
        ------
        TypeError, ValueError
            The messages name the position of a bad cell, never its value.
        """
        arr = _data_array(table, "table", dtype_rule="an array of counts (whole numbers) of shape (r, c)")
        if arr.ndim < 2 or arr.shape[-2] < 2 or arr.shape[-1] < 2:
            raise ValueError(
                "`table` must have at least 2 rows and 2 columns (shape (r, c) or (..., r, c)); "
                f"got shape {arr.shape}.")
        check_count_cells(arr)
        counts = np.minimum(arr, float(_CELL_BOUND)).astype(np.int64)
        n = None
        if self.margins == "total" and arr.ndim == 2:
            n = int(counts.sum())  # public under replace-one (the same for every neighbour)
            if n < 1:
                raise ValueError("`table` must hold at least one record when margins='total'; it holds none.")
        bits = _bit_source(secure, rng, self.epsilon)
        s = self.sensitivity
        charge = charge_release(budget, self, "release", shape=arr.shape[:-2], array=array, rng=rng,
                                secure=bits.hardened, sensitivity=s, grid=grid_step(_CELL_BOUND / s, self.epsilon, s))
        units = counts / s  # exact: multiples of 1/2 (replace-one) or integers (add/remove)
        noisy = _laplace_on_grid(bits, units, self.epsilon, bound=_CELL_BOUND / s, exact=True) * s
        return Release(noisy, charge.mechanism, self.epsilon, 0.0, s, n, "table", secure=bits.hardened,
                       **charge.fields)
