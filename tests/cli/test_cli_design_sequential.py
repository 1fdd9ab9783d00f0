"""``dpinfer design sequential``: text, JSON and CSV agree with the Python call; errors exit 2."""

from __future__ import annotations

import json

import pytest

from dpinfer import sequential_design


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


ARGS = ("design", "sequential", "--theta1", 0.6, "--theta2", 0.3, "--looks", 2, "--epsilon", 2,
        "--spending", "pocock")


@pytest.fixture(scope="module")
def expected():
    return sequential_design(0.6, 0.3, looks=2, epsilon=2.0, spending="pocock")


def test_text_and_json_match_python(capsys, expected):
    code, out, _ = call(capsys, *ARGS)
    assert code == 0 and out.strip() == str(expected).strip()
    code, out, _ = call(capsys, *ARGS, "--format", "json")
    assert code == 0 and json.loads(out) == json.loads(json.dumps(expected.to_dict()))


def test_csv_one_row_per_look(capsys, expected):
    code, out, _ = call(capsys, *ARGS, "--format", "csv")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].startswith("look,n1,n2,efficacy_difference") and len(lines) == 3
    assert lines[1].split(",")[1] == str(expected.n1[0])


def test_nonprivate(capsys):
    code, out, _ = call(capsys, "design", "sequential", "--theta1", 0.6, "--theta2", 0.3, "--looks", 2,
                        "--epsilon", "none", "--format", "json")
    assert code == 0 and json.loads(out)["epsilon"] is None


@pytest.mark.parametrize("args, match", [
    (("design", "sequential", "--theta1", 0.5, "--theta2", 0.3, "--epsilon", -1), "--epsilon must be a positive"),
    (("design", "sequential", "--theta1", 0.5, "--theta2", 0.5, "--epsilon", 1), "must differ"),
    (("design", "sequential", "--theta1", 0.5, "--theta2", 0.3, "--epsilon", 1, "--ratio", 0.7), "ratio"),
])
def test_errors(capsys, args, match):
    code, _, err = call(capsys, *args)
    assert code == 2 and match in err
