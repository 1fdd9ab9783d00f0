"""Release files are validated against what their mechanism can have produced (issue 26 W3)."""

import json

import pytest


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _release_json(capsys, tmp_path, *args):
    code, out, _ = call(capsys, "release", *args, "--seed", 1, "--format", "json")
    assert code == 0
    return json.loads(out)


def _written(tmp_path, record):
    path = tmp_path / "release.json"
    path.write_text(json.dumps(record))
    return path


TABLE = "30,20,12\n22,25,18\n"


@pytest.mark.parametrize("edit,rule", [
    ({"sensitivity": 3.0}, "a table has sensitivity 2 (neighbours replace-one) or 1 (add-remove)"),
    ({"sensitivity": 0.5}, "a table has sensitivity 2"),
    ({"sensitivity": 1.0}, "has no public total n"),
])
def test_table_release_file_outside_the_mechanism_is_refused(capsys, tmp_path, edit, rule):
    counts = tmp_path / "counts.csv"
    counts.write_text(TABLE)
    record = _release_json(capsys, tmp_path, "--table", counts, "--epsilon", 1)
    path = _written(tmp_path, {**record, **edit})
    code, out, err = call(capsys, "test", "--release", path, "--seed", 1, "--n-sim", 100)
    assert code == 2 and out == ""
    assert "cannot have produced" in err and rule in err


def test_table_release_files_the_command_writes_are_accepted(capsys, tmp_path):
    counts = tmp_path / "counts.csv"
    counts.write_text(TABLE)
    for extra in ((), ("--neighbours", "add-remove", "--margins", "private")):
        record = _release_json(capsys, tmp_path, "--table", counts, "--epsilon", 1, *extra)
        code, _, err = call(capsys, "test", "--release", _written(tmp_path, record), "--seed", 1, "--n-sim", 100)
        assert code == 0, err


@pytest.mark.parametrize("release_args,edit,method,rule", [
    (("--mechanism", "tulap"), {"sensitivity": 1.5}, "ump", "whole-number sensitivity"),
    (("--mechanism", "laplace", "--kind", "count"), {"sensitivity": 2.0}, "normal", "a Laplace count has sensitivity 1"),
    (("--mechanism", "laplace", "--kind", "proportion"), {"sensitivity": 1.0}, "normal", "sensitivity 1 / n"),
    (("--mechanism", "laplace", "--kind", "proportion"), {"n": 60}, "jimi", "sensitivity 1 / n"),
    (("--mechanism", "laplace", "--kind", "count"), {"delta": 0.01}, "normal", "delta 0"),
])
def test_scalar_release_file_outside_the_mechanism_is_refused(capsys, tmp_path, release_args, edit, method, rule):
    record = _release_json(capsys, tmp_path, "--x", 11, "--n", 30, "--epsilon", 1, *release_args)
    code, _, err = call(capsys, "test", "--release", _written(tmp_path, record), "--method", method)
    assert code == 0, err  # as written: accepted
    code, out, err = call(capsys, "test", "--release", _written(tmp_path, {**record, **edit}), "--method", method)
    assert code == 2 and out == ""
    assert "cannot have produced" in err and rule in err
