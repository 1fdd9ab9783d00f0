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


def test_a_design_runs_stage_by_stage_from_the_command_line(capsys, tmp_path):
    from dpinfer import PrivacyBudget, TulapReleaser

    design_file, ledger = tmp_path / "design.json", tmp_path / "ledger.json"
    code, out, _ = call(capsys, "design", "simon", "--p0", 0.1, "--p1", 0.3, "--epsilon", 1, "--max-n", 60,
                        "--format", "json")
    design_file.write_text(out)
    code, out, err = call(capsys, "release", "--design", design_file, "--stage", 1, "--x", 5, "--n", 17,
                          "--budget", ledger, "--total-epsilon", 1, "--seed", 1, "--format", "json")
    assert code == 0 and "stage 1 of 2 -> continue" in err
    assert json.loads(out)["value"] == TulapReleaser(1.0).release(5, 17, rng=1).value
    (tmp_path / "s1.json").write_text(out)
    # the same stage again: refused by the ledger, nothing charged
    code, _, err = call(capsys, "release", "--design", design_file, "--stage", 1, "--x", 5, "--n", 17,
                        "--budget", ledger, "--seed", 1, "--format", "json")
    assert code == 2 and "a stage is released once" in err
    code, _, err = call(capsys, "release", "--design", design_file, "--stage", 2, "--x", 9, "--n", 17,
                        "--earlier", tmp_path / "s1.json", "--budget", ledger, "--format", "json")
    assert code == 2 and "stage 2 of the design has 24 new patients, but the input has n = 17" in err
    code, out, err = call(capsys, "release", "--design", design_file, "--stage", 2, "--x", 9, "--n", 24,
                          "--earlier", tmp_path / "s1.json", "--budget", ledger, "--seed", 2, "--format", "json")
    assert code == 0 and "stage 2 of 2 -> stop for efficacy" in err
    (tmp_path / "s2.json").write_text(out)
    budget = PrivacyBudget.from_json(ledger.read_text())
    assert budget.spent_epsilon == 1.0 and [e.group for e in budget.ledger] == ["stage 1", "stage 2"]
    code, out, _ = call(capsys, "test", "--design", design_file, "--release", tmp_path / "s1.json",
                        "--release", tmp_path / "s2.json", "--alternative", "greater", "--format", "json")
    record = json.loads(out)
    assert code == 0 and record["pvalue"] < 0.05 and "stage-wise ordering" in record["method"]


def test_release_stage_errors(capsys, tmp_path):
    design_file = tmp_path / "design.json"
    _, out, _ = call(capsys, "design", "simon", "--p0", 0.1, "--p1", 0.3, "--epsilon", 2, "--max-n", 40,
                     "--format", "json")
    design_file.write_text(out)
    code, _, err = call(capsys, "release", "--design", design_file, "--stage", 1, "--x", 2, "--n", 11,
                        "--epsilon", 1)
    assert code == 2 and "--epsilon must not be given with --design" in err
    code, _, err = call(capsys, "release", "--stage", 1, "--x", 2, "--n", 11)
    assert code == 2 and "--stage and --earlier apply to --design FILE only" in err
    code, _, err = call(capsys, "release", "--design", design_file, "--stage", 2, "--x", 2, "--n", 22)
    assert code == 2 and "--stage 2 needs the release file(s) of the 1 earlier stage(s)" in err
    edited = json.loads(out)
    edited["r"] += 1
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    code, _, err = call(capsys, "test", "--design", tmp_path / "edited.json", "--release", design_file)
    assert code == 2 and "but its settings give" in err
