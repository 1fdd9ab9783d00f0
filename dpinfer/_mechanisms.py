"""The one registry of mechanisms: their codes, printed names and privacy semantics.

Shared and private.  A :class:`~dpinfer.Release` records its mechanism by the code
defined here (one spelling per mechanism: ``'tulap'``, never ``'Tulap'``), its
neighbouring relation (:data:`REPLACE_ONE` or :data:`ADD_REMOVE`) and its unit of
privacy in words.  Each releaser class declares the three once, in its
``_semantics(method)`` (a :class:`Semantics`); :func:`semantics_of` reads that
declaration for the :class:`~dpinfer.Release` the releaser builds and for the
budget's ledger entry it charges, so the two always say the same.  Inference,
the audit and the printed results read the release and never guess.

:func:`default_semantics` is the rule that fills the two semantic fields of a
release that does not carry them: a release file written before the fields
existed, or a Release built by hand.  It reproduces the units dpinfer has always
printed for such releases.
"""

from __future__ import annotations

from dataclasses import dataclass

TULAP = "tulap"
LAPLACE = "laplace"
RANDOMIZED_RESPONSE = "randomized_response"
TWO_COIN_RR = "two_coin_rr"
KRR = "krr"
UNARY_ENCODING = "unary_encoding"
LOCAL_LAPLACE = "local_laplace"
LDP_HISTOGRAM = "ldp_histogram"

#: code -> printed name ("Laplace mechanism" in a result's ``privacy:`` line)
NAMES = {
    TULAP: "Tulap", LAPLACE: "Laplace", KRR: "k-ary randomized response",
    UNARY_ENCODING: "unary encoding", RANDOMIZED_RESPONSE: "randomized response",
    TWO_COIN_RR: "two-coin randomized response", LOCAL_LAPLACE: "local Laplace",
    LDP_HISTOGRAM: "local-DP histogram",
}

#: the local-DP mechanisms (one privatized report per respondent, kind 'reports')
LOCAL = (RANDOMIZED_RESPONSE, TWO_COIN_RR, KRR, UNARY_ENCODING, LOCAL_LAPLACE, LDP_HISTOGRAM)

#: The neighbouring relations: one record replaced (``n`` unchanged, hence public),
#: or one record added or removed (``n`` changes, hence private).
REPLACE_ONE = "replace-one"
ADD_REMOVE = "add-remove"
NEIGHBOURS = (REPLACE_ONE, ADD_REMOVE)

#: the unit of privacy of a count or proportion out of a public n (sensitivity 1 or 1/n)
CENTRAL_UNIT = "one record (replace-one, n public)"
#: the unit of privacy of a local-DP release
LOCAL_UNIT = "one respondent's answer (local DP)"
#: the unit of privacy of a clipped sum of values (MeanReleaser)
MEAN_UNIT = "one person's value (replace-one; n and the clipping bounds public)"
#: the unit of privacy of a life table (LifeTableReleaser)
LIFE_TABLE_UNIT = ("one patient (replace-one within an arm: the arm sizes public; the patient's "
                   "(time, event) moves between two cells)")
#: the unit of privacy of a paired 2 x 2 table (:class:`~dpinfer.PairedTableReleaser`)
PAIR_UNIT = "one pair (replace-one: its two outcomes; n pairs public)"
#: the unit of privacy of a released value whose sensitivity the user declared
VALUE_UNIT = "one record (the statistic moves by at most its sensitivity)"


def code(mechanism):
    """The registry code of ``mechanism`` (a code or a printed name); unknown names unchanged."""
    if mechanism in NAMES:
        return mechanism
    for key, name in NAMES.items():
        if name == mechanism:
            return key
    return mechanism


def printed(mechanism):
    """The printed name of a mechanism code (the code itself when it is not registered)."""
    return NAMES.get(mechanism, mechanism)


@dataclass(frozen=True)
class Semantics:
    """What a releaser declares about one of its release methods: mechanism code,
    neighbouring relation (:data:`NEIGHBOURS`) and unit of privacy in words."""

    mechanism: str
    neighbours: str
    privacy_unit: str


def semantics_of(releaser, method="release"):
    """The :class:`Semantics` ``releaser`` declares for ``method`` (its ``_semantics``), or None
    for an object that is not a dpinfer releaser (a plain callable given to the audit)."""
    declare = getattr(releaser, "_semantics", None)
    return None if declare is None else declare(method)


def count_unit(sensitivity):
    """Unit of privacy of a count out of a public n that one person moves by up to ``sensitivity``."""
    if sensitivity == 1:
        return CENTRAL_UNIT
    return f"one person, moving the count by up to {sensitivity:g} (n public)"


def table_unit(neighbours, sensitivity):
    """Unit of privacy of a noisy contingency table under ``neighbours``."""
    relation = "replace-one" if neighbours == REPLACE_ONE else "add/remove"
    return f"one record ({relation}, sensitivity {sensitivity:g} per table)"


def table_neighbours(sensitivity):
    """The relation a table's L1 sensitivity stands for: 2 under replace-one, 1 under add/remove."""
    return REPLACE_ONE if sensitivity == 2.0 else ADD_REMOVE


def default_semantics(mechanism, kind, sensitivity):
    """``(neighbours, privacy_unit)`` of a release that does not record them.

    The rule dpinfer applied before releases carried their semantics: local
    reports protect one respondent's answer; a count or proportion out of a
    public n one record under replace-one (one person moving a Tulap count by up
    to its sensitivity ``k``); a table the relation its sensitivity stands for.
    """
    if kind == "reports":
        return REPLACE_ONE, LOCAL_UNIT
    if kind == "table":
        neighbours = table_neighbours(sensitivity)
        return neighbours, table_unit(neighbours, sensitivity)
    if kind == "count" and mechanism == TULAP:
        return REPLACE_ONE, count_unit(sensitivity)
    if kind in ("count", "proportion"):
        return REPLACE_ONE, CENTRAL_UNIT
    if kind == "clipped_sum":
        return REPLACE_ONE, MEAN_UNIT
    if kind == "life_table":
        return REPLACE_ONE, LIFE_TABLE_UNIT
    if kind == "paired":
        return REPLACE_ONE, PAIR_UNIT
    return REPLACE_ONE, VALUE_UNIT
