"""``dpinfer release --budget FILE`` and ``dpinfer budget FILE``: a ledger file kept across invocations.

The concurrency and crash tests run real separate processes on one ledger file.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
from fractions import Fraction

import pytest

from dpinfer import PrivacyBudget
from dpinfer.cli import main


def call(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _release(ledger, epsilon, *extra):
    return ("release", "--x", 11, "--n", 30, "--epsilon", epsilon, "--budget", ledger, *extra)


def test_ledger_is_created_charged_and_printed(capsys, tmp_path):
    ledger = tmp_path / "trial.budget.json"
    code, out, err = call(capsys, *_release(ledger, 1, "--total-epsilon", 2, "--label", "primary endpoint"))
    assert code == 0, err
    assert "budget: spent epsilon = 1 of 2, delta = 0 of 0; remaining epsilon = 1" in out
    code, out, err = call(capsys, *_release(ledger, 0.5, "--mechanism", "laplace"))
    assert code == 0, err
    assert "spent epsilon = 1.5 of 2" in out
    budget = PrivacyBudget.from_json(ledger.read_text())
    assert [e.label for e in budget.ledger] == ["primary endpoint (TulapReleaser.release, n = 30)",
                                                "LaplaceReleaser.proportion, n = 30"]
    code, out, err = call(capsys, "budget", ledger)
    assert code == 0 and "spent:     epsilon = 1.5, delta = 0" in out and "primary endpoint" in out
    code, out, err = call(capsys, "budget", ledger, "--format", "json")
    assert code == 0 and PrivacyBudget.from_json(out) == budget


def test_over_budget_release_exits_2_with_one_line_and_changes_nothing(capsys, tmp_path):
    ledger = tmp_path / "b.json"
    assert call(capsys, *_release(ledger, 1.5, "--total-epsilon", 2))[0] == 0
    before = ledger.read_bytes()
    code, out, err = call(capsys, *_release(ledger, 1))
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"dpinfer release: error: ledger {str(ledger)!r} cannot pay for this release: "
                          "it would charge epsilon = 1")
    assert "Nothing was drawn and nothing was charged." in err
    assert ledger.read_bytes() == before


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (False, ("--total-delta", 0.1), "--total-delta needs --budget FILE"),
        (True, ("--budget", "{ledger}"), "does not exist; create it on the first release with --total-epsilon E"),
        (False, ("--budget", "{ledger}", "--total-epsilon", 3), "--total-epsilon 3 differs from the total 2"),
        (False, ("--budget", "{ledger}", "--total-delta", 1e-6), "--total-delta 1e-06 differs from the total 0"),
        (True, ("--budget", "{ledger}", "--total-epsilon", -1), "`--total-epsilon` must be a positive finite"),
    ],
)
def test_ledger_usage_errors(capsys, tmp_path, setup, args, message):
    ledger = tmp_path / "b.json"
    if not setup:
        assert call(capsys, *_release(ledger, 1, "--total-epsilon", 2))[0] == 0
    args = [str(a).replace("{ledger}", str(tmp_path / ("new.json" if setup else "b.json"))) for a in args]
    code, out, err = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 0.5, *args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err, err


def test_budget_command_errors(capsys, tmp_path):
    code, _, err = call(capsys, "budget", tmp_path / "missing.json")
    assert code == 2 and "does not exist" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "dpinfer.PrivacyBudget", "version": 1}')
    code, _, err = call(capsys, "budget", bad)
    assert code == 2 and "is not a valid dpinfer budget" in err and err.count("\n") == 1


_WORKER = textwrap.dedent("""
    import sys
    from dpinfer.cli import main
    ledger, reps, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    for i in range(reps):
        code = main(["release", "--x", "3", "--n", "30", "--epsilon", "0.25", "--format", "json",
                     "--budget", ledger, "--total-epsilon", "1000", "--label", f"{tag} {i}"])
        assert code == 0, code
""")


@pytest.mark.slow
def test_concurrent_invocations_never_lose_a_charge(tmp_path):
    # Two processes, 50 releases each, on one ledger: every charge must be in the file.
    # (Without the lock, read-modify-write races lose charges: in three trial runs with
    # fcntl.flock replaced by a no-op, only 52, 57 and 53 of the 100 charges were kept.)
    ledger = tmp_path / "shared.json"
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(ledger), "50", tag],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for tag in ("first", "second")]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    budget = PrivacyBudget.from_json(ledger.read_text())
    labels = [e.label.split(" (")[0] for e in budget.ledger]
    assert sorted(labels) == sorted(f"{tag} {i}" for tag in ("first", "second") for i in range(50))
    assert budget.spent_epsilon == float(Fraction(1, 4) * 100) == 25.0
    # each process's own charges are in its order
    for tag in ("first", "second"):
        assert [int(lab.split()[1]) for lab in labels if lab.startswith(tag)] == list(range(50))


_KILLED = textwrap.dedent("""
    import sys, time
    import dpinfer.cli._ledger_file as lf
    from dpinfer.cli import main

    def stall(handle):  # the new ledger is in the temporary file, not yet renamed
        handle.flush()
        print("mid-write", flush=True)
        time.sleep(120)

    lf._flush_to_disk = stall
    main(["release", "--x", "3", "--n", "30", "--epsilon", "0.5", "--budget", sys.argv[1], "--label", "killed"])
""")


def test_ledger_survives_a_process_killed_mid_write(capsys, tmp_path):
    ledger = tmp_path / "b.json"
    assert call(capsys, *_release(ledger, 1, "--total-epsilon", 3, "--label", "before"))[0] == 0
    before = ledger.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(ledger)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "mid-write"
        temporary = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        assert len(temporary) == 1 and "killed" in temporary[0].read_text()  # it was mid-write
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
        rest = proc.stdout.read()
    finally:
        proc.stdout.close()
        proc.stderr.close()
    assert "dpinfer release" not in rest  # the killed release was never shown
    assert ledger.read_bytes() == before  # the old ledger, whole
    # the lock died with the process; the next release reads the old ledger and adds to it
    code, out, err = call(capsys, *_release(ledger, 0.5, "--label", "after"))
    assert code == 0, err
    budget = PrivacyBudget.from_json(ledger.read_text())
    assert [e.label.split(" (")[0] for e in budget.ledger] == ["before", "after"]
    assert budget.spent_epsilon == 1.5


def test_ledger_written_before_the_release_is_shown(capsys, tmp_path, monkeypatch):
    # A failure writing the ledger means the release is never printed (no uncharged output).
    import dpinfer.cli._ledger_file as lf

    def broken(handle):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lf, "_flush_to_disk", broken)
    ledger = tmp_path / "b.json"
    code, out, err = call(capsys, *_release(ledger, 1, "--total-epsilon", 2))
    assert code == 2 and "cannot write ledger file" in err and "No space left on device" in err
    assert "noisy count" not in out and not ledger.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["b.json.lock"]  # no temporary file left behind


def test_written_ledger_keeps_file_mode(capsys, tmp_path):
    ledger = tmp_path / "b.json"
    assert call(capsys, *_release(ledger, 1, "--total-epsilon", 3))[0] == 0
    os.chmod(ledger, 0o640)
    assert call(capsys, *_release(ledger, 1))[0] == 0
    assert ledger.stat().st_mode & 0o777 == 0o640
    assert json.loads(ledger.read_text())["spent_epsilon"] == 2.0


def test_demo_ends_with_the_budget_line(capsys):
    code, out, err = call(capsys, "demo")
    assert code == 0, err
    assert out.rstrip().splitlines()[-1] == (
        "budget: spent epsilon = 2 of 2, delta = 0 of 0; remaining epsilon = 0, delta = 0 (2 ledger entries)")
    code, out, err = call(capsys, "demo", "--epsilon", 0.5, "--delta", 1e-6)
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("budget: spent epsilon = 1 of 1, delta = 1e-06 of 1e-06")


def test_readme_shows_the_budget_line():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "dpinfer demo" in readme
    assert ("budget: spent epsilon = 2 of 2, delta = 0 of 0; remaining epsilon = 0, delta = 0 (2 ledger entries)"
            in readme)
