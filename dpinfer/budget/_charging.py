"""The budget's package-internal interface: how the other parts charge and compose.

Package-internal (not for users): the releasers charge a budget through
:func:`charge_release` before drawing; the audit checks its ``budget=`` with
:func:`check_budget` (the mechanism's name comes from :mod:`dpinfer._mechanisms`).
Results of several releases compose them with :mod:`dpinfer._composition_rule`.
Other parts import these names, never the budget's private helpers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _mechanisms
from .._validation import _show
from ._composition import AdvancedComposition, _Group, _Labelled
from ._privacy_budget import PrivacyBudget

__all__ = []  # package-internal: the names below are imported explicitly


_HANDLES = (PrivacyBudget, _Group, AdvancedComposition, _Labelled)

_ARRAY_CHOICES = ("separate", "disjoint")


def check_budget(budget):
    """``budget`` itself if it is None, a PrivacyBudget or one of its handles; TypeError otherwise."""
    if budget is not None and not isinstance(budget, _HANDLES):
        raise TypeError(
            "`budget` must be None, a dpinfer.PrivacyBudget, or a handle from its parallel(...).group(...), "
            f"advanced(...) or with_label(...); got {_show(budget)}.")
    return budget


@dataclass(frozen=True)
class Charge:
    """What a release records of its releaser's declaration and of the charge made for it.

    ``semantics`` is the releaser's declaration (:func:`dpinfer._mechanisms.semantics_of`),
    the one source of the Release's mechanism, neighbours and unit and of the
    ledger entry's; ``ledger_digest`` the ledger's head digest after the charge
    (None without a budget); ``disjoint`` the ``(scope, group)`` of a charge to a
    group of a :class:`~dpinfer.ParallelComposition` (None otherwise).
    """

    semantics: _mechanisms.Semantics
    ledger_digest: str | None = None
    disjoint: tuple | None = None

    @property
    def mechanism(self):
        """The registry code of the mechanism (the Release's ``mechanism``)."""
        return self.semantics.mechanism

    @property
    def fields(self):
        """The Release keywords this charge fills: neighbours, privacy_unit, ledger_digest, disjoint."""
        return {"neighbours": self.semantics.neighbours, "privacy_unit": self.semantics.privacy_unit,
                "ledger_digest": self.ledger_digest, "disjoint": self.disjoint}


def charge_release(budget, releaser, method, *, shape=None, array=None, n=None, rng=None, secure=False,
                   sensitivity=None, grid=None):
    """Charge ``budget`` for one call of ``releaser.method`` (the releasers' one charge call).

    ``shape`` is the shape of the statistics of a central release (None for a
    local releaser, whose array holds one report per respondent and is charged
    once).  With ``secure=False`` the ``rng`` is validated first, so that a bad
    generator fails before anything is charged; nothing is drawn from it.
    ``sensitivity`` and ``grid`` (the output grid's spacing) go into the ledger
    entry with the mechanism and neighbouring relation the releaser declares
    (its ``_semantics(method)``).  Returns the :class:`Charge` the release
    records (its semantics, the ledger's head digest after the charge and the
    disjoint group charged; only the semantics without a budget).
    """
    budget = check_budget(budget)
    semantics = _mechanisms.semantics_of(releaser, method)
    if array is not None:
        if not isinstance(array, str) or array not in _ARRAY_CHOICES:
            raise (TypeError if not isinstance(array, str) else ValueError)(
                f"`array` must be None, 'separate' or 'disjoint'; got {_show(array)}.")
    if budget is None:
        return Charge(semantics)
    if not secure:
        from .._validation import _check_rng

        _check_rng(rng)
    name = type(releaser).__name__
    where = f"{name}.{method}" + (f", n = {n}" if n is not None else "")
    size = 1 if shape is None else int(np.prod(shape, dtype=np.int64))  # a local release is charged once
    count = 1
    if shape is not None and size > 1:
        if array is None:
            raise ValueError(
                f"`array` must say what the {size} values released against a budget are: 'separate' "
                "(separate statistics of the same records: charged "
                f"{size} times) or 'disjoint' (each person's record moves at most one value, e.g. counts "
                "of disjoint groups: charged once). Without a budget (e.g. a simulation over many "
                "synthetic data sets) nothing is charged.")
        if array == "separate":
            count = size
            where += f", {size} separate statistics"
        else:
            where += f", {size} values of disjoint groups"
    delta = getattr(releaser, "delta", 0.0)
    entry = budget.charge(releaser.epsilon, delta, mechanism=semantics.mechanism, count=count, label=where,
                          sensitivity=sensitivity, neighbours=semantics.neighbours, grid=grid)
    return Charge(semantics, entry.digest, _disjoint_record(budget))


def _disjoint_record(handle):
    """``(scope, group)`` when ``handle`` charges a group of a parallel set (through labels), else None."""
    while isinstance(handle, _Labelled):
        handle = handle._target
    if isinstance(handle, _Group):
        return handle._partition.scope, handle.name
    return None
