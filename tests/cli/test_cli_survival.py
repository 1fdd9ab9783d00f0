"""``dpinfer survival-release`` and ``dpinfer survival-test``: a round trip through a release file, and errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpinfer import LifeTableReleaser, kaplan_meier, logrank_test


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def trial(tmp_path):
    gen = np.random.default_rng(5)
    time = np.round(gen.exponential(8.0, 120), 2)
    event = (gen.random(120) < 0.8).astype(int)
    arm = np.repeat(["control", "treated"], 60)
    path = tmp_path / "trial.csv"
    path.write_text("id,time,status,arm\n" + "".join(f"{i},{t},{e},{a}\n" for i, (t, e, a)
                                                    in enumerate(zip(time, event, arm))))
    return path, time, event, arm


def test_release_then_test_matches_python(capsys, trial, tmp_path):
    path, time, event, arm = trial
    code, out, err = call(capsys, "survival-release", "--csv", path, "--time", "time", "--event", "status",
                          "--arm", "arm", "--breaks", "3,6,9,12", "--epsilon", 1, "--seed", 3, "--format", "json")
    assert code == 0 and "--seed 3 makes the noise reproducible" in err
    record = json.loads(out)
    expected = LifeTableReleaser(1.0, (3, 6, 9, 12)).release(time, event, arm, rng=3)
    assert record["kind"] == "life_table" and record["value"] == expected.value.tolist()
    assert record["groups"] == ["control", "treated"] and record["group_sizes"] == [60, 60]
    file = tmp_path / "rel.json"
    file.write_text(out)
    code, out, _ = call(capsys, "survival-test", "--release", file, "--n-sim", 500, "--format", "json")
    assert code == 0
    res = logrank_test(expected, n_sim=500)
    assert json.loads(out)["pvalue"] == res.pvalue and json.loads(out)["estimate"] == res.estimate
    code, out, _ = call(capsys, "survival-test", "--release", file, "--n-sim", 500, "--km")
    assert code == 0 and "group=control" in out and "Chisq =" in out
    assert str(kaplan_meier(expected)).strip() in out and "Actuarial life-table estimate" in out
    code, out, _ = call(capsys, "survival-test", "--release", file, "--n-sim", 500, "--km", "--estimator", "km")
    assert code == 0 and str(kaplan_meier(expected, estimator="km")).strip() in out


@pytest.mark.parametrize("args, message", [
    (["--time", "status", "--breaks", "3,6"], None),
    (["--time", "arm", "--breaks", "3,6"], "column 'arm' must hold follow-up times (finite numbers >= 0); data row 1"),
    (["--time", "time", "--breaks", "3,x"], "--breaks must be comma-separated numbers"),
    (["--time", "time", "--breaks", "6,3"], "strictly increasing"),
])
def test_release_errors_name_rows_never_values(capsys, trial, args, message):
    path, *_ = trial
    code, out, err = call(capsys, "survival-release", "--csv", path, "--event", "status", "--epsilon", 1,
                          "--seed", 1, *args)
    if message is None:
        assert code == 0
        return
    assert code == 2 and message in err and "control" not in err


def test_a_life_table_is_written_as_json_not_csv(capsys, trial):
    path, *_ = trial
    code, out, err = call(capsys, "survival-release", "--csv", path, "--time", "time", "--event", "status",
                          "--breaks", "3,6", "--epsilon", 1, "--seed", 1, "--format", "csv")
    assert code == 2 and "--format csv cannot hold a life table" in err and out == ""


def test_event_column_must_be_binary(capsys, trial):
    path, *_ = trial
    code, _, err = call(capsys, "survival-release", "--csv", path, "--time", "time", "--event", "time",
                        "--breaks", "3,6", "--epsilon", 1, "--seed", 1)
    assert code == 2 and "must hold event indicators 1/0 (or TRUE/FALSE); data row 1 holds something else" in err


def test_test_needs_a_life_table_of_two_arms(capsys, trial, tmp_path):
    path, *_ = trial
    code, out, _ = call(capsys, "survival-release", "--csv", path, "--time", "time", "--event", "status",
                        "--breaks", "3,6", "--epsilon", 1, "--seed", 1, "--format", "json")
    file = tmp_path / "one.json"
    file.write_text(out)
    code, _, err = call(capsys, "survival-test", "--release", file)
    assert code == 2 and "the log-rank test compares two. Give --km" in err
    code, out, _ = call(capsys, "survival-test", "--release", file, "--km")
    assert code == 0 and "median survival" in out
    record = json.loads(file.read_text())
    record["sensitivity"] = 1.0
    file.write_text(json.dumps(record))
    code, _, err = call(capsys, "survival-test", "--release", file, "--km")
    assert code == 2 and "a life table is a Tulap release of sensitivity 2" in err
