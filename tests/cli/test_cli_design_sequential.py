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


def _design_file(capsys, tmp_path):
    path = tmp_path / "design.json"
    code, out, _ = call(capsys, *ARGS, "--format", "json")
    assert code == 0
    path.write_text(out)
    return path


def test_a_two_arm_design_runs_look_by_look_and_is_analysed_as_in_python(capsys, tmp_path, expected):
    from dpinfer import PrivacyBudget, sequential_test

    design, ledger = _design_file(capsys, tmp_path), tmp_path / "ledger.json"
    code, out, err = call(capsys, "release", "--design", design, "--stage", 1, "--x", 13, "--n", 24, "--x2", 8,
                          "--n2", 24, "--budget", ledger, "--total-epsilon", 2, "--seed", 1, "--format", "json")
    assert code == 0 and "stage 1 of 2 -> continue" in err
    (tmp_path / "s1.json").write_text(out)
    # the same look again: refused by the ledger, nothing charged
    code, _, err = call(capsys, "release", "--design", design, "--stage", 1, "--x", 13, "--n", 24, "--x2", 8,
                        "--n2", 24, "--budget", ledger, "--seed", 1)
    assert code == 2 and "a stage is released once" in err
    code, out, err = call(capsys, "release", "--design", design, "--stage", 2, "--x", 16, "--n", 24, "--x2", 7,
                          "--n2", 24, "--earlier", tmp_path / "s1.json", "--budget", ledger, "--seed", 2,
                          "--format", "json")
    assert code == 0 and "stage 2 of 2 -> stop for efficacy" in err
    (tmp_path / "s2.json").write_text(out)
    budget = PrivacyBudget.from_json(ledger.read_text())
    assert budget.spent_epsilon == 2.0 and len(budget.ledger) == 4  # one epsilon for both looks and both arms
    # the same run in Python (the command draws both arms of a look from one seeded generator)
    run = expected.staged_release()
    run.release(1, [13, 8], rng=1)
    run.release(2, [16, 7], rng=2)
    released = [[r["value"] for r in json.loads((tmp_path / f"s{s}.json").read_text())] for s in (1, 2)]
    assert released == [[r.value for r in stage] for stage in run.releases]
    python = sequential_test(expected, run, margin=0.05, composition="parallel")
    code, out, _ = call(capsys, "test", "--design", design, "--release", tmp_path / "s1.json",
                        "--release", tmp_path / "s2.json", "--margin", 0.05, "--format", "json")
    record = json.loads(out)
    assert code == 0 and record["pvalue"] == python.pvalue and (record["conf_low"], record["conf_high"]) == (python.conf_int.low, python.conf_int.high)
    assert record["epsilon"] == 2.0 and "stage-wise ordering" in record["method"]


@pytest.mark.parametrize("extra, match", [
    (("--stage", 1, "--x", 13, "--n", 24), "needs both arms' counts: --x X1 --n N1 (arm 1) and --x2 X2 --n2 N2"),
    (("--stage", 1, "--x", 13, "--n", 24, "--x2", 8, "--n2", 23),
     "stage 1 of the design has 24 new patients of arm 2, but the input has n2 = 23"),
    (("--stage", 3, "--x", 13, "--n", 24, "--x2", 8, "--n2", 24), "--design needs --stage 1 to 2"),
    (("--stage", 2, "--x", 13, "--n", 24, "--x2", 8, "--n2", 24), "needs the release file(s) of the 1 earlier"),
])
def test_release_stage_errors_of_a_two_arm_design(capsys, tmp_path, extra, match):
    design = _design_file(capsys, tmp_path)
    code, _, err = call(capsys, "release", "--design", design, *extra)
    assert code == 2 and match in err


def test_test_design_errors_of_a_two_arm_design(capsys, tmp_path):
    design = _design_file(capsys, tmp_path)
    one = tmp_path / "one.json"
    code, out, _ = call(capsys, "release", "--x", 5, "--n", 24, "--epsilon", 2, "--seed", 1, "--format", "json")
    one.write_text(out)
    code, _, err = call(capsys, "test", "--design", design, "--release", one)
    assert code == 2 and "must hold one stage's releases of both arms (2); it holds 1" in err
    code, _, err = call(capsys, "test", "--design", design, "--release", one, "--alternative", "less")
    assert code == 2 and "it holds 1" in err
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps([json.loads(one.read_text())] * 2))
    code, _, err = call(capsys, "test", "--design", design, "--release", pair, "--alternative", "less")
    assert code == 2 and "--alternative less does not fit this design: its test is one-sided" in err
    edited = json.loads(design.read_text())
    edited["n1"][0] += 1
    design.write_text(json.dumps(edited))
    code, _, err = call(capsys, "test", "--design", design, "--release", one)
    assert code == 2 and "records sizes n1 = [25, 48]" in err
    code, _, err = call(capsys, "release", "--x", 5, "--n", 24, "--x2", 3, "--epsilon", 1)
    assert code == 2 and "--x2 and --n2 apply to --design FILE only" in err
