"""The one releaser catalogue (tests/_releaser_catalogue.py) and the semantics every release carries."""

import json

import pytest

import dpinfer
from dpinfer import _mechanisms
from dpinfer.cli._input import _releases_from_file

from _releaser_catalogue import RELEASE_METHODS, release

_RELEASE_METHOD_NAMES = ("release", "proportion", "count")


def test_the_catalogue_lists_every_release_method_of_every_releaser():
    classes = {name for name in dpinfer.releasers.__all__ if name != "Release"}
    listed = {(type(r).__name__, m) for _, r, m, _, _ in RELEASE_METHODS}
    expected = {(c, m) for c in classes for m in _RELEASE_METHOD_NAMES if hasattr(getattr(dpinfer, c), m)}
    assert listed == expected
    assert "ContingencyTableReleaser" in {c for c, _ in listed}


def test_the_other_per_releaser_tables_name_every_releaser():
    from audit._audit_cases import CASES
    from test_bit_privacy import RELEASERS

    classes = {type(r).__name__ for _, r, _, _, _ in RELEASE_METHODS}
    for table in (CASES, RELEASERS):
        named = {case[0].split("-")[0].split(".")[0] for case in table}
        assert classes <= named


#: what each release protects, written out by hand from the releasers' Notes (mechanism code, relation)
EXPECTED = {"tulap": ("tulap", "replace-one"), "laplace.release": ("laplace", "replace-one"),
            "laplace.proportion": ("laplace", "replace-one"), "laplace.count": ("laplace", "replace-one"),
            "table": ("laplace", "replace-one"), "mean": ("laplace", "replace-one"),
            "rr": ("randomized_response", "replace-one"), "two_coin": ("two_coin_rr", "replace-one"),
            "krr": ("krr", "replace-one"), "unary": ("unary_encoding", "replace-one"),
            "local_laplace": ("local_laplace", "replace-one"), "ldp_histogram": ("ldp_histogram", "replace-one"),
            "life_table": ("tulap", "replace-one"),
            "paired": ("tulap", "replace-one")}


@pytest.mark.parametrize("name", [c[0] for c in RELEASE_METHODS])
def test_the_release_and_its_ledger_entry_read_the_releasers_one_declaration(name):
    (_, releaser, method, _, _), = [c for c in RELEASE_METHODS if c[0] == name]
    declared = _mechanisms.semantics_of(releaser, method)
    budget = dpinfer.PrivacyBudget(100.0, 0.5)
    rel = release(name, budget=budget)
    (entry,) = budget.ledger
    assert (declared.mechanism, declared.neighbours) == EXPECTED[name]
    assert (rel.mechanism, rel.neighbours, rel.privacy_unit) == (declared.mechanism, declared.neighbours,
                                                                 declared.privacy_unit)
    # the ledger speaks the Release's vocabulary: a local-DP entry says what its Release says
    assert (entry.mechanism, entry.neighbours) == (rel.mechanism, rel.neighbours)
    assert rel.disjoint is None and rel.ledger_digest == budget.head_digest


def test_a_table_under_add_remove_declares_it_to_the_release_and_the_ledger():
    budget = dpinfer.PrivacyBudget(10.0)
    rel = dpinfer.ContingencyTableReleaser(1.0, "add-remove", "private").release([[3, 4], [5, 6]], rng=1,
                                                                                  budget=budget)
    assert rel.neighbours == budget.ledger[0].neighbours == "add-remove"


@pytest.mark.parametrize("name", [c[0] for c in RELEASE_METHODS])
def test_every_release_records_its_semantics_from_the_registry(name):
    rel = release(name)
    assert rel.mechanism in _mechanisms.NAMES
    assert rel.neighbours in _mechanisms.NEIGHBOURS and rel.privacy_unit
    # a file written before releases carried the fields reads back with the same semantics
    assert (rel.neighbours, rel.privacy_unit) == _mechanisms.default_semantics(rel.mechanism, rel.kind,
                                                                             rel.sensitivity)


@pytest.mark.parametrize("releaser, unit", [
    (dpinfer.ContingencyTableReleaser(1.0), "one record (replace-one, sensitivity 2 per table)"),
    (dpinfer.ContingencyTableReleaser(1.0, "add-remove", "private"), "one record (add/remove, sensitivity 1 per table)"),
])
def test_a_table_release_states_its_neighbouring_relation(releaser, unit):
    rel = releaser.release([[3, 4], [5, 6]], rng=1)
    assert rel.neighbours == releaser.neighbours and rel.privacy_unit == unit


def test_tulap_count_sensitivity_k_protects_one_person():
    rel = dpinfer.TulapReleaser(1.0, sensitivity=2).release(5, 30, rng=1)
    assert rel.privacy_unit == "one person, moving the count by up to 2 (n public)"


def test_old_release_files_still_load_with_the_former_units(tmp_path):
    for name in ("tulap", "laplace.proportion", "table"):
        rel = release(name)
        record = rel.to_dict()
        assert record["neighbours"] == rel.neighbours and record["privacy_unit"] == rel.privacy_unit
        old = {k: v for k, v in record.items() if k not in ("neighbours", "privacy_unit")}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(old))
        (back,) = _releases_from_file(str(path))
        assert (back.neighbours, back.privacy_unit, back.mechanism) == (rel.neighbours, rel.privacy_unit,
                                                                        rel.mechanism)


def test_release_refuses_unknown_mechanisms_and_relations():
    with pytest.raises(ValueError, match="`mechanism` must be one of 'tulap', 'laplace'"):
        dpinfer.Release(0.3, "Laplace", 1.0, 0.0, 1 / 30, 30, "proportion")
    with pytest.raises(ValueError, match="`neighbours` must be None, 'replace-one' or 'add-remove'"):
        dpinfer.Release(0.3, "laplace", 1.0, 0.0, 1 / 30, 30, "proportion", neighbours="add/remove")
    with pytest.raises(TypeError, match="`privacy_unit` must be None or a non-empty string"):
        dpinfer.Release(0.3, "laplace", 1.0, 0.0, 1 / 30, 30, "proportion", privacy_unit="")
