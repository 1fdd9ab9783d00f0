"""The budget's package-internal interface: how the other parts charge and compose.

Package-internal (not for users): the releasers charge a budget through
:func:`charge_release` before drawing; the audit checks its ``budget=`` with
:func:`check_budget` and names the mechanism with :data:`MECHANISMS`; the
two-sample tests record the privacy of two releases with
:func:`two_sample_privacy`.  Other parts import these names, never the
budget's private helpers.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

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


def charge_release(budget, releaser, method, *, shape=None, array=None, n=None, rng=None, secure=False,
                   sensitivity=None, grid=None):
    """Charge ``budget`` for one call of ``releaser.method`` (the releasers' one charge call).

    ``shape`` is the shape of the statistics of a central release (None for a
    local releaser, whose array holds one report per respondent and is charged
    once).  With ``secure=False`` the ``rng`` is validated first, so that a bad
    generator fails before anything is charged; nothing is drawn from it.
    ``sensitivity`` and ``grid`` (the output grid's spacing) go into the ledger
    entry with :func:`neighbouring_of` the releaser.  Returns the ledger's head
    digest after the charge (the release records it), or None without a budget.
    """
    budget = check_budget(budget)
    if array is not None:
        if not isinstance(array, str) or array not in _ARRAY_CHOICES:
            raise (TypeError if not isinstance(array, str) else ValueError)(
                f"`array` must be None, 'separate' or 'disjoint'; got {_show(array)}.")
    if budget is None:
        return None
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
    entry = budget.charge(releaser.epsilon, delta, mechanism=MECHANISMS.get(name, name), count=count, label=where,
                          sensitivity=sensitivity, neighbouring=neighbouring_of(releaser, method), grid=grid)
    return entry.digest


_LOCAL = ("RandomizedResponseReleaser", "TwoCoinRRReleaser", "KRRReleaser", "UnaryEncodingReleaser",
          "LocalLaplaceReleaser", "LDPHistogramReleaser")


def neighbouring_of(releaser, method):
    """The neighbouring relation a release's guarantee holds under, as the ledger records it.

    ``'replace-one'`` (a count or proportion with n public), the table's own
    ``neighbours``, ``'local'`` (any two values of one respondent's own report),
    or ``'as the sensitivity assumes'`` for ``LaplaceReleaser.release``, whose
    sensitivity the caller chose for a relation of their own.  The one place
    that reads it from the releaser.
    """
    name = type(releaser).__name__
    relation = getattr(releaser, "neighbours", None)
    if isinstance(relation, str):
        return relation
    if name in _LOCAL:
        return "local"
    if name == "LaplaceReleaser" and method == "release":
        return "as the sensitivity assumes"
    return "replace-one"


MECHANISMS = {
    "TulapReleaser": "tulap",
    "LaplaceReleaser": "laplace",
    "ContingencyTableReleaser": "laplace",
    "RandomizedResponseReleaser": "randomized_response",
    "TwoCoinRRReleaser": "two_coin_rr",
    "KRRReleaser": "krr",
    "UnaryEncodingReleaser": "unary_encoding",
    "LocalLaplaceReleaser": "local_laplace",
    "LDPHistogramReleaser": "ldp_histogram",
}


_TWO_SAMPLE_COMPOSITIONS = ("sequential", "parallel")


def check_two_sample_composition(composition):
    """``'sequential'`` or ``'parallel'`` (the two-sample tests' ``composition``)."""
    if not isinstance(composition, str):
        raise TypeError(f"`composition` must be 'sequential' or 'parallel'; got {_show(composition)}.")
    if composition not in _TWO_SAMPLE_COMPOSITIONS:
        raise ValueError(f"`composition` must be 'sequential' or 'parallel'; got {composition!r}.")
    return composition


def two_sample_privacy(e1, d1, e2, d2, composition):
    """The ``(epsilon, delta)`` a two-sample result records: sums (sequential) or maxima (parallel)."""
    if composition == "parallel":
        return max(e1, e2), max(d1, d2)
    return float(Fraction(e1) + Fraction(e2)), float(Fraction(d1) + Fraction(d2))
