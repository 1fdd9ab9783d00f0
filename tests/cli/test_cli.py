"""The installed ``dpinfer`` command, run in a subprocess as a shell user would run it.

Expected numbers come from independent computations written here (the defining
DP-UMP sum with scipy's binomial pmf), never from the command's own output.
"""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from dpinfer import Tulap, load_example_trial


def _command():
    local = Path(sys.executable).with_name("dpinfer")
    if local.is_file():
        return [str(local)]
    found = shutil.which("dpinfer")
    return [found] if found else [sys.executable, "-m", "dpinfer.cli"]


def run(*args, cwd=None, stdin=None):
    env = {**os.environ, "PYTHONWARNINGS": ""}
    return subprocess.run([*_command(), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, input=stdin, env=env, timeout=120)


def call(capsys, *args):
    """Run ``dpinfer ARGS`` in this process (fast path for the many error cases)."""
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _ump_pvalue(z, n, p0, epsilon, alternative):
    """The defining sum of Awan & Slavkovic (2018) with scipy's binomial pmf."""
    x = np.arange(n + 1)
    shift = x - z if alternative == "greater" else z - x
    return float(np.sum(binom.pmf(x, n, p0) * Tulap(b=np.exp(-epsilon)).cdf(shift)))


@pytest.fixture(scope="module")
def trial_csv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    path = folder / "trial.csv"
    shutil.copy(load_example_trial().path, path)
    return path


@pytest.mark.slow
def test_help_reads_like_a_man_page():
    out = run("--help")
    assert out.returncode == 0
    for part in ("Statistical inference on differentially private", "examples:", "dpinfer demo",
                 "privacy:", "MAKES THE NOISE REPRODUCIBLE", "exit status:",
                 "release", "test", "ci", "power", "sample-size", "validate"):
        assert part in out.stdout, part
    sub = run("test", "--help")
    assert sub.returncode == 0 and "--alternative" in sub.stdout and "--release FILE" in sub.stdout


@pytest.mark.slow
def test_version():
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("dpinfer ")


@pytest.mark.slow
def test_test_text_prints_r_layout():
    out = run("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--p0", 0.2, "--alternative", "greater")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("\t")  # strwrap(method, prefix = "\t")
    assert "alternative hypothesis: true probability of success is greater than 0.2" in lines
    assert "95 percent confidence interval:" in lines
    # typed numbers, not a Release: the privacy line claims no sampling path (as in Python)
    assert lines[-1] == "privacy: epsilon = 1, delta = 0, Tulap mechanism"
    pval = f"{_ump_pvalue(12.7, 30, 0.2, 1.0, 'greater'):.4g}"
    assert f"p-value = {pval}" in out.stdout


@pytest.mark.slow
def test_test_json_matches_the_direct_sum():
    out = run("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--p0", 0.2, "--alternative", "less",
              "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["pvalue"] == pytest.approx(_ump_pvalue(12.7, 30, 0.2, 1.0, "less"), rel=1e-12)
    assert data["alternative"] == "less" and data["null_value"] == 0.2
    assert data["conf_high"] <= 1.0 and data["conf_low"] == 0.0


@pytest.mark.slow
def test_test_csv_is_one_tidy_row():
    out = run("test", "--z", 0.41, "--n", 30, "--epsilon", 1, "--p0", 0.2, "--method", "normal",
              "--format", "csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 1
    assert list(rows[0])[:6] == ["estimate", "statistic", "pvalue", "parameter", "conf_low", "conf_high"]
    # Vu & Slavkovic's z score with the null variance plus the Laplace variance
    z = (0.41 - 0.2) / np.sqrt(0.2 * 0.8 / 30 + 2 / 30**2)
    assert float(rows[0]["statistic"]) == pytest.approx(z, rel=1e-12)
    assert rows[0]["mechanism"].lower() == "laplace"


@pytest.mark.slow
def test_release_from_csv_column_counts_ones_and_rows(trial_csv):
    # epsilon = 1e6: Laplace noise of scale 1/(1e6 * 30) on the proportion, so the
    # released value shows the count the command read (11 ones among 30 rows).
    out = run("release", "--csv", trial_csv, "--column", "response", "--epsilon", 1e6,
              "--mechanism", "laplace", "--kind", "count", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["n"] == 30 and data["kind"] == "count" and data["secure"] is True
    assert data["value"] == pytest.approx(11, abs=1e-3)


@pytest.mark.slow
def test_release_text_and_csv_and_seed_warning():
    text = run("release", "--x", 11, "--n", 30, "--epsilon", 1)
    assert text.returncode == 0 and "tulap mechanism" in text.stdout and "hardened" in text.stdout
    assert text.stderr == ""
    seeded = [run("release", "--x", 11, "--n", 30, "--epsilon", 1, "--seed", 5, "--format", "csv")
              for _ in range(2)]
    assert seeded[0].stdout == seeded[1].stdout  # reproducible, hence not private
    assert "--seed 5 makes the noise reproducible" in seeded[0].stderr
    row = next(csv.DictReader(io.StringIO(seeded[0].stdout)))
    assert row["mechanism"] == "tulap" and row["n"] == "30" and row["secure"] == "False"


@pytest.mark.slow
def test_pipeline_release_file_then_test_and_ci(tmp_path, trial_csv):
    rel = run("release", "--csv", trial_csv, "--column", "response", "--epsilon", 1, "--format", "json")
    assert rel.returncode == 0, rel.stderr
    path = tmp_path / "rel.json"
    path.write_text(rel.stdout)
    z = json.loads(rel.stdout)["value"]
    out = run("test", "--release", path, "--p0", 0.2, "--alternative", "greater", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["pvalue"] == pytest.approx(_ump_pvalue(z, 30, 0.2, 1.0, "greater"), rel=1e-12)
    piped = run("ci", "--release", "-", "--format", "json", stdin=rel.stdout)
    assert piped.returncode == 0, piped.stderr
    ci = json.loads(piped.stdout)
    assert 0.0 <= ci["conf_low"] < ci["conf_high"] <= 1.0 and ci["conf_level"] == 0.95


def test_power_and_sample_size(capsys):
    code, out, _ = call(capsys, "power", "--theta", 0.2, 0.5, "--n", 30, "--p0", 0.2, "--epsilon", 1,
                        "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [r["theta"] for r in rows] == [0.2, 0.5]
    assert rows[0]["power"] == pytest.approx(0.05, abs=1e-9)  # exact size at theta = p0
    assert rows[1]["power"] > 0.5
    code, out, _ = call(capsys, "sample-size", "--theta1", 0.5, "--p0", 0.2, "--epsilon", 1, "--format", "json")
    assert code == 0
    n = json.loads(out)["n"]

    def power_at(size):
        return json.loads(call(capsys, "power", "--theta", 0.5, "--n", size, "--p0", 0.2, "--epsilon", 1,
                               "--format", "json")[1])[0]["power"]

    assert power_at(n) >= 0.8 > power_at(n - 1)
    code, out, _ = call(capsys, "power", "--theta", 0.3, "--n", 30, "--p0", 0.2, "--epsilon", 1,
                        "--method", "normal", "--alternative", "two-sided")
    assert code == 0 and "normal-approximation" in out and "theta" in out


@pytest.mark.slow
def test_demo_shows_three_methods_side_by_side():
    out = run("demo")
    assert out.returncode == 0, out.stderr
    for part in ("11 responders out of n = 30", "DP-UMP", "Normal approximation", "DP-JIMI",
                 "Side by side", "95% CI", "never seed a real release"):
        assert part in out.stdout, part
    table = out.stdout.split("== Side by side")[1].splitlines()
    assert table[1].split()[:3] == ["method", "noise", "release"]
    assert max(len(line) for line in out.stdout.splitlines()) <= 100  # issue 27: no line over 100
    assert len([line for line in table if line.startswith(("DP-UMP", "Normal", "DP-JIMI"))]) == 3
    data = json.loads(run("demo", "--format", "json").stdout)
    assert [d["label"] for d in data] == ["DP-UMP", "Normal approximation", "DP-JIMI (exact limit)"]
    assert all(0.0 <= d["pvalue"] <= 1.0 for d in data)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("release", "--x", 3, "--n", 30, "--epsilon", -1),
         "dpinfer release: error: --epsilon must be a positive finite number; got -1.0."),
        (("release", "--x", 31, "--n", 30, "--epsilon", 1),
         "dpinfer release: error: --x must lie between 0 and --n = 30; the value does not."),
        (("release", "--x", 3, "--n", 30),
         "dpinfer release: error: the following arguments are required: --epsilon"),
        (("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--alternative", "two.sided"),
         "dpinfer test: error: argument --alternative: invalid choice: 'two.sided'"),
        (("test", "--z", 12.7, "--n", 30), "give --release FILE, or all of --z, --n and --epsilon"),
        (("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--confidence-level", 95),
         "--confidence-level must lie in the open interval (0, 1) (give 0.95, not 95)"),
        (("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--n-sim", 100),
         "--n-sim, --seed and --workers apply to --method jimi only"),
        (("ci", "--z", 0.4, "--n", 30, "--epsilon", 1, "--interval", "score"),
         "--interval applies to --method normal only"),
        (("validate", "no_such_study"), "dpinfer validate: error: unknown study 'no_such_study'"),
        ((), "dpinfer: error: give a command"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, message):
    code, out, err = call(capsys, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("release", "--x", 3, "--n", 30, "--epsilon", -1),
         "dpinfer release: error: --epsilon must be a positive finite number; got -1.0.\n"),
        (("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--alternative", "two.sided"),
         "dpinfer test: error: argument --alternative: invalid choice: 'two.sided'"),
    ],
)
def test_installed_command_exits_2_with_one_line(args, message):
    out = run(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith(message)


def test_csv_errors_name_the_problem(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,response\n1,1\n2,NA\n3,0\n")
    code, _, err = call(capsys, "release", "--csv", bad, "--column", "response", "--epsilon", 1)
    assert code == 2 and "data row 2 holds something else" in err and "'NA'" not in err
    code, _, err = call(capsys, "release", "--csv", bad, "--column", "resp", "--epsilon", 1)
    assert code == 2 and "column 'resp' not found" in err and "'response'" in err
    code, _, err = call(capsys, "release", "--csv", tmp_path / "missing.csv", "--column", "response", "--epsilon", 1)
    assert code == 2 and "cannot read CSV file" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("id,response\n")
    code, _, err = call(capsys, "release", "--csv", empty, "--column", "response", "--epsilon", 1)
    assert code == 2 and "has a header but no data rows" in err
    code, _, err = call(capsys, "release", "--csv", bad, "--epsilon", 1)
    assert code == 2 and "--csv needs --column NAME" in err


def test_r_logicals_are_counted(capsys, tmp_path):
    # R's write.csv writes logicals as TRUE/FALSE; 2 TRUE of 3 rows, epsilon 1e6 so
    # the Laplace count shows the count read.
    path = tmp_path / "r.csv"
    path.write_text('"id","response"\n"a",TRUE\n"b",FALSE\n"c",TRUE\n')
    code, out, _ = call(capsys, "release", "--csv", path, "--column", "response", "--epsilon", 1e6,
                        "--mechanism", "laplace", "--kind", "count", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["n"] == 3 and data["value"] == pytest.approx(2, abs=1e-3)


def test_mechanism_mismatch_from_a_release_file(capsys, tmp_path):
    _, rel, _ = call(capsys, "release", "--x", 11, "--n", 30, "--epsilon", 1, "--mechanism", "laplace",
                     "--format", "json")
    path = tmp_path / "laplace.json"
    path.write_text(rel)
    code, _, err = call(capsys, "test", "--release", path, "--p0", 0.2)
    assert code == 2
    assert "--method ump needs a Tulap-noised count" in err
    assert "Use --method normal or --method jimi" in err
    code, _, err = call(capsys, "test", "--release", path, "--n", 30)
    assert code == 2 and "--n must not be given with --release" in err
    code, out, _ = call(capsys, "test", "--release", path, "--p0", 0.2, "--method", "jimi")
    assert code == 0 and "DP-JIMI" in out
    (tmp_path / "junk.json").write_text("{not json")
    code, _, err = call(capsys, "test", "--release", tmp_path / "junk.json")
    assert code == 2 and "is not JSON" in err
    bad = json.loads(rel)
    bad["epsilon"] = -2
    (tmp_path / "bad_eps.json").write_text(json.dumps(bad))
    code, _, err = call(capsys, "test", "--release", tmp_path / "bad_eps.json", "--method", "jimi")
    assert code == 2 and "epsilon in release file" in err and "must be a positive finite number; got -2.0" in err
    (tmp_path / "partial.json").write_text('{"value": 3.2, "n": 30}')
    code, _, err = call(capsys, "ci", "--release", tmp_path / "partial.json")
    assert code == 2 and "lacks mechanism, epsilon, delta, sensitivity, kind" in err


def test_validate_without_checkout_is_a_clear_error(monkeypatch, tmp_path, capsys):
    from dpinfer.cli import _commands as cli_commands
    from dpinfer import cli

    monkeypatch.setattr(cli_commands, "_validation_dir", lambda: tmp_path / "validation")
    assert cli.main(["validate", "--list"]) == 2
    err = capsys.readouterr().err
    assert "no validation studies at" in err and "source checkout" in err


@pytest.mark.slow
def test_validate_lists_studies_of_the_checkout():
    out = run("validate", "--list")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    expected = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "validation").glob("*.py")
                      if not p.stem.startswith("_") and p.stem != "harness")
    assert [line.split()[0] for line in lines] == expected
    assert all(len(line.split()) > 3 for line in lines)  # each study with its one-line description


def test_validate_runs_the_study_main_with_its_arguments(monkeypatch, capsys):
    from types import SimpleNamespace

    from dpinfer.cli import _commands as cli_commands
    from dpinfer import cli

    seen = {}

    def fake_import(name):
        seen["module"] = name
        return SimpleNamespace(main=lambda argv: seen.setdefault("argv", argv) and 3)

    study = sorted(p.stem for p in cli_commands._validation_dir().glob("*.py")
                   if not p.stem.startswith("_") and p.stem != "harness")[0]
    monkeypatch.setattr(cli_commands.importlib, "import_module", fake_import)
    assert cli.main(["validate", study, "--quick", "--seed", "3"]) == 3  # the study's own status
    assert seen == {"module": f"validation.{study}", "argv": ["--quick", "--seed", "3"]}
    assert cli.main(["validate"]) == 2
    assert "name a study to run; available:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "returned, status, message",
    [(None, 0, ""), (0, 0, ""), (1, 1, ""), ([{"row": 1}], 1,
     "dpinfer validate: internal error: study 'demo' returned a list from main(), not an exit "
     "status (None or an int); its results may have been written.")],
)
def test_validate_exit_status_from_what_the_study_returns(monkeypatch, capsys, returned, status,
                                                          message):
    # A study's main returns an exit status; anything else is the study's bug, reported as
    # an internal error (1) naming the study, not as a usage error (2).
    from types import SimpleNamespace

    from dpinfer.cli import _commands as cli_commands
    from dpinfer import cli

    monkeypatch.setattr(cli_commands, "_studies", lambda folder: ["demo"])
    monkeypatch.setattr(cli_commands.importlib, "import_module",
                        lambda name: SimpleNamespace(main=lambda argv: returned))
    assert cli.main(["validate", "demo"]) == status
    assert capsys.readouterr().err.strip() == message


STUDIES = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "validation").glob("*.py")
                 if not p.stem.startswith("_") and p.stem != "harness")


@pytest.mark.parametrize("study", STUDIES)
def test_validate_runs_every_quick_study(capsys, tmp_path, study):
    # In this process (the whole list takes about 6 s); the studies are those of
    # `dpinfer validate --list` (test_validate_lists_studies_of_the_checkout).
    code, out, err = call(capsys, "validate", study, "--quick", "--out", tmp_path, "--no-progress")
    assert (code, err) == (0, "")
    assert list(tmp_path.glob("*_quick.csv")) and list(tmp_path.glob("*_quick.png")), out


@pytest.mark.slow
@pytest.mark.parametrize("study, stem", [("size", "size_exact_quick"),
                                         ("robust_study", "robust_simulate_quick")])
def test_validate_runs_a_real_quick_study(tmp_path, study, stem):
    out = run("validate", study, "--quick", "--out", tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / f"{stem}.csv").is_file() and (tmp_path / f"{stem}.png").is_file(), out.stdout


def test_warnings_go_to_stderr_on_one_line(capsys):
    # n = 10, p0 = 0.05, epsilon = 0.5: the normal approximation's exact size is far
    # from alpha, so binom_normal_test raises an ApproximationWarning; the command
    # still answers (status 0) and forwards the warning.
    code, out, err = call(capsys, "test", "--z", 0.1013, "--n", 10, "--epsilon", 0.5, "--p0", 0.05,
                          "--method", "normal", "--format", "json")
    assert code == 0 and json.loads(out)["pvalue"] > 0
    assert err.startswith("dpinfer test: warning: The normal approximation is poor here")
    assert len(err.strip().splitlines()) == 1


def test_a_reader_that_stops_early_gets_no_traceback():
    # `dpinfer power ... | head -1`: the reader closes the pipe after one line, while the
    # command still has about 250 kB to write (more than a pipe holds), so a write fails.
    thetas = [f"{0.3 + i * 1e-4:.4f}" for i in range(6000)]
    proc = subprocess.Popen([*_command(), "power", "--theta", *thetas, "--n", "50", "--p0", "0.3",
                             "--epsilon", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"Exact power")
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 1  # Python's status for a closed pipe
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()


@pytest.mark.parametrize("args", [("test", "--z", "23.4", "--n", "60", "--p0", "0.25", "--epsilon", "1"),
                                  ("ci", "--z", "23.4", "--n", "60", "--epsilon", "1")])
def test_a_first_dp_ump_answer_at_the_command_loads_neither_numba_nor_scipy(args):
    # the command's start-up (issue 28): a DP-UMP answer must not import the other methods'
    # packages (scipy.stats), as prop_test's method table once did at import, nor statsmodels
    code = ("import sys, runpy\n"
            f"sys.argv = ['dpinfer', *{list(args)!r}]\n"
            "try:\n"
            "    runpy.run_module('dpinfer.cli', run_name='__main__')\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'scipy', 'statsmodels'}), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip().splitlines()[-1] == "[]", out.stderr
