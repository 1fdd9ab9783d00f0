"""``dpinfer design simon``: the design as text and JSON, and its errors (issue 36, item 5)."""

from __future__ import annotations

import json

from dpinfer import simon_design


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_design_simon_prints_the_design_and_its_non_private_reference(capsys):
    code, out, err = call(capsys, "design", "simon", "--p0", 0.1, "--p1", 0.3, "--epsilon", 2, "--max-n", 60)
    assert code == 0 and err == ""
    assert out.strip() == str(simon_design(0.1, 0.3, epsilon=2.0, max_n=60)).strip()
    assert "Optimal (no privacy)  1 10 5 29  15.01  0.7361" in out


def test_design_simon_json_is_the_design_record(capsys):
    code, out, _ = call(capsys, "design", "simon", "--p0", 0.1, "--p1", 0.3, "--epsilon", "none",
                        "--design", "minimax", "--format", "json")
    record = json.loads(out)
    assert code == 0 and (record["r1"], record["n1"], record["r"], record["n"]) == (1, 15, 5, 25)
    assert record["epsilon"] is None and record["reference"] is None


def test_design_errors_are_one_line_with_exit_status_2(capsys):
    code, _, err = call(capsys, "design", "simon", "--p0", 0.1, "--p1", 0.05, "--epsilon", 1)
    assert code == 2 and "`p1` must be larger than `p0`" in err
    code, _, err = call(capsys, "design")
    assert code == 2 and "KIND" in err
    code, _, err = call(capsys, "design", "simon", "--p0", 0.1, "--p1", 0.3, "--epsilon", 1, "--max-n", 12)
    assert code == 2 and "no optimal two-stage design" in err
