"""The command's parallel groups (``--parallel LABEL --group G``): two arms released into two
groups of one ledger's parallel set; the ledger's spent epsilon is the two-arm result's privacy line.

The expected epsilon is computed here from the epsilons typed on the command line: parallel
composition costs the larger of the two groups (Dwork & Roth 2014, Thm. 3.16 for disjoint
data), charged to the budget itself the arms cost the sum (Thm. 3.16's sequential case).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from dpinfer import PrivacyBudget

EPS = (1.0, 0.75)


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _privacy_epsilon(printed):
    """The epsilon of the printed result's ``privacy:`` line."""
    (line,) = [s for s in printed.splitlines() if s.startswith("privacy:")]
    return float(re.match(r"privacy: epsilon = ([0-9.]+),", line).group(1)), line


def _arm_csv(tmp_path, name, centre, seed):
    x = np.random.default_rng(seed).normal(centre, 15.0, 60).round(1)
    path = tmp_path / f"{name}.csv"
    path.write_text("sbp\n" + "".join(f"{v}\n" for v in x))
    return path


@pytest.mark.parametrize("parallel", [True, False])
def test_two_mean_arms_in_parallel_groups_cost_the_privacy_lines_epsilon(capsys, tmp_path, parallel):
    ledger, files = tmp_path / "ledger.json", []
    for i, (arm, centre) in enumerate((("treated", 125.0), ("control", 135.0))):
        groups = ["--parallel", "arms", "--group", arm] if parallel else []
        code, out, _ = call(capsys, "mean-release", "--csv", _arm_csv(tmp_path, arm, centre, i), "--column", "sbp",
                            "--lower", 80, "--upper", 180, "--epsilon", EPS[i], "--seed", 5 + i, "--format", "json",
                            "--budget", ledger, "--total-epsilon", 2, *groups)
        assert code == 0
        files.append(tmp_path / f"{arm}.json")
        files[-1].write_text(out)
    code, out, _ = call(capsys, "mean-test", "--release", files[0], "--release", files[1], "--method", "naive",
                        "--sigma", 15)
    assert code == 0
    epsilon, line = _privacy_epsilon(out)
    spent = PrivacyBudget.from_json(ledger.read_text()).spent_epsilon
    assert epsilon == spent == (max(EPS) if parallel else sum(EPS))
    assert ("parallel composition" in line) == parallel
    code, out, _ = call(capsys, "budget", ledger, "--format", "json")
    assert code == 0 and json.loads(out)["spent_epsilon"] == spent


def test_two_count_arms_in_parallel_groups_cost_the_privacy_lines_epsilon(capsys, tmp_path):
    ledger, files = tmp_path / "ledger.json", []
    for i, (x, arm) in enumerate(((41, "treated"), (27, "control"))):
        code, out, _ = call(capsys, "release", "--x", x, "--n", 60, "--epsilon", EPS[i], "--seed", 1 + i,
                            "--format", "json", "--budget", ledger, "--total-epsilon", 2, "--parallel", "arms",
                            "--group", arm)
        assert code == 0
        files.append(tmp_path / f"{arm}.json")
        files[-1].write_text(out)
    code, out, _ = call(capsys, "test", "--release", files[0], "--release", files[1])
    assert code == 0
    epsilon, line = _privacy_epsilon(out)
    assert epsilon == PrivacyBudget.from_json(ledger.read_text()).spent_epsilon == max(EPS)
    assert "parallel composition" in line
    record = json.loads(files[1].read_text())
    assert record["disjoint"][1] == "control"
