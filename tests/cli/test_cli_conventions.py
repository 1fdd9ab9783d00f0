"""The command's conventions: one vocabulary of keys, every status said once, hints for
other tools' spellings (issues 27 and 29), and messages spelt from the names the
library's errors carry as data (issue 24)."""

import csv
import io
import json
import pickle
import re
import warnings

import pytest

from dpinfer import binom_normal_test, binom_ump_test
from dpinfer._validation import DPInferTypeError, DPInferValueError, _check_alternative, _check_epsilon
from dpinfer._warnings import ApproximationWarning


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(text):
    return list(csv.DictReader(io.StringIO(text)))


# --------------------------------------------------------------------------- output keys
def test_ci_csv_uses_the_keys_of_test(capsys):
    common = ("--z", 12.7, "--n", 30, "--epsilon", 1, "--format", "csv")
    code, ci_out, _ = call(capsys, "ci", *common)
    assert code == 0
    code, test_out, _ = call(capsys, "test", *common)
    assert code == 0
    ci_keys, test_keys = list(_rows(ci_out)[0]), list(_rows(test_out)[0])
    assert "value" not in ci_keys and "n" not in ci_keys
    assert set(ci_keys) <= set(test_keys)
    assert ci_keys == [k for k in test_keys if k in ci_keys]  # test's order
    ci_row, test_row = _rows(ci_out)[0], _rows(test_out)[0]
    for key in ("conf_low", "conf_high", "conf_level", "epsilon", "delta", "mechanism", "secure"):
        assert ci_row[key] == test_row[key], key
    assert ci_row["data_name"] == "released value = 12.7, n = 30"


def test_release_json_with_budget_reports_the_ledger_on_stderr(capsys, tmp_path):
    ledger = tmp_path / "ledger.json"
    for fmt in ("json", "csv"):
        code, out, err = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 0.5, "--budget", ledger,
                              "--total-epsilon", 2, "--format", fmt)
        assert code == 0
        assert "budget:" not in out  # stdout stays the release file 'dpinfer test --release' reads
        assert err.startswith("dpinfer release: budget: spent epsilon = ") and str(ledger) in err
    assert "spent epsilon = 1 of 2" in err
    code, out, _ = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 0.5, "--budget", ledger)
    assert code == 0 and "spent epsilon = 1.5 of 2" in out  # text: on stdout, as before


def test_budget_csv_has_one_row_per_charge(capsys, tmp_path):
    ledger = tmp_path / "ledger.json"
    for label in ("first", "second"):
        code, _, _ = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 0.25, "--budget", ledger,
                          "--total-epsilon", 1, "--label", label)
        assert code == 0
    code, out, err = call(capsys, "budget", ledger, "--format", "csv")
    assert code == 0 and err == ""
    rows = _rows(out)
    assert [r["entry"] for r in rows] == ["1", "2"]
    assert [r["label"].split(" (")[0] for r in rows] == ["first", "second"]
    assert all(r["mechanism"] == "tulap" and float(r["epsilon"]) == 0.25 for r in rows)


def test_power_normal_says_its_size_warning_once(capsys):
    # n = 30, p0 = 0.5, epsilon = 0.5, two-sided: the exact size is above alpha = 0.05
    code, out, err = call(capsys, "power", "--method", "normal", "--theta", 0.3, "--n", 30, "--p0", 0.5,
                          "--epsilon", 0.5, "--alternative", "two-sided")
    assert code == 0
    phrase = "part of its power comes from rejecting true nulls too often"
    assert (out + err).count(phrase) == 1
    assert phrase in err and "exact size (power at theta = p0)" in out


def test_sample_size_takes_a_method(capsys):
    args = ("sample-size", "--theta1", 0.4, "--p0", 0.2, "--epsilon", 1)
    code, out, _ = call(capsys, *args, "--method", "ump", "--format", "json")
    assert code == 0 and json.loads(out)["method"] == "ump"
    code, _, err = call(capsys, *args, "--method", "normal")
    assert code == 2 and "no sample-size search" in err and "dpinfer power --method normal" in err


def test_validate_list_describes_each_study(capsys):
    code, out, _ = call(capsys, "validate", "--list")
    assert code == 0
    lines = dict(line.split(None, 1) for line in out.splitlines())
    assert lines["size"] == "Size of the one-sided tests of a proportion under differential privacy."
    assert all(text.strip() for text in lines.values())


def test_ci_does_not_offer_the_table_test(capsys):
    code, out, _ = call(capsys, "ci", "--help")
    assert code == 0
    assert "{ump,normal,jimi}" in out and "mc" not in out.split("--method", 1)[1].split("\n", 1)[0]
    code, _, err = call(capsys, "ci", "--z", 0.4, "--n", 30, "--epsilon", 1, "--method", "mc")
    assert code == 2 and "invalid choice: 'mc'" in err and "dpinfer test --table FILE --method mc" in err


# --------------------------------------------------------------------------- tables
@pytest.fixture()
def counts_csv(tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text(",improved,not improved\nplacebo,40,10\nactive,15,35\n")
    return path


def test_table_release_and_test_keep_the_csv_names(capsys, tmp_path, counts_csv):
    code, out, _ = call(capsys, "release", "--table", counts_csv, "--epsilon", 1, "--seed", 3)
    assert code == 0
    lines = out.splitlines()
    assert lines[-3].split() == ["improved", "not", "improved"]
    assert lines[-2].split()[0] == "placebo" and lines[-1].split()[0] == "active"
    code, out, _ = call(capsys, "release", "--table", counts_csv, "--epsilon", 1, "--seed", 3, "--format", "json")
    record = json.loads(out)
    assert record["row_names"] == ["placebo", "active"]
    assert record["column_names"] == ["improved", "not improved"]
    path = tmp_path / "table.json"
    path.write_text(out)
    code, out, _ = call(capsys, "test", "--release", path, "--n-sim", 200, "--seed", 1, "--format", "csv")
    assert code == 0
    row = _rows(out)[0]
    assert row["data_name"].endswith("; rows: placebo, active; columns: improved, not improved")
    assert row["estimate"] == "" and row["estimate_name"] == ""  # no "probability of success"
    noisy = tmp_path / "noisy.csv"
    noisy.write_text("site,a,b\nnorth,40.2,9.7\nsouth,14.9,35.3\n")
    code, out, _ = call(capsys, "test", "--table", noisy, "--epsilon", 1, "--n", 100, "--n-sim", 200, "--seed", 1)
    assert code == 0 and "rows: north, south; columns: a, b" in out


def test_release_file_with_bad_names_is_refused(capsys, tmp_path, counts_csv):
    code, out, _ = call(capsys, "release", "--table", counts_csv, "--epsilon", 1, "--seed", 3, "--format", "json")
    record = json.loads(out)
    record["row_names"] = ["only one"]
    path = tmp_path / "table.json"
    path.write_text(json.dumps(record))
    code, _, err = call(capsys, "test", "--release", path)
    assert code == 2 and "row_names must be a list of 2 strings" in err


# --------------------------------------------------------------------------- refusals and hints
def test_kind_proportion_with_tulap_is_refused(capsys):
    code, _, err = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 1, "--kind", "proportion")
    assert code == 2 and "--kind proportion applies to --mechanism laplace only" in err
    code, out, _ = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 1, "--kind", "count",
                        "--format", "json")
    assert code == 0 and json.loads(out)["kind"] == "count"  # what a Tulap release is


@pytest.mark.parametrize("p0", [25, 0, 1, -1])
def test_one_p0_rule_per_method(capsys, p0):
    code, _, err = call(capsys, "test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--p0", p0)
    assert code == 2 and f"--p0 must lie in (0, 1); got {float(p0)!r}." in err


def test_jimi_p0_rule_is_the_closed_interval(capsys):
    code, _, err = call(capsys, "test", "--z", 0.4013, "--n", 30, "--epsilon", 1, "--method", "jimi", "--p0", 25)
    assert code == 2 and "--p0 must lie in [0, 1]; got 25.0." in err


@pytest.mark.parametrize(("typed", "meant"), [("--conf-level", "--confidence-level"),
                                              ("--conf.level", "--confidence-level"),
                                              ("--confidence_level", "--confidence-level"),
                                              ("--alterative", "--alternative")])
def test_an_unknown_option_gets_a_suggestion(capsys, typed, meant):
    code, out, err = call(capsys, "test", "--z", 12.7, "--n", 30, "--epsilon", 1, typed, 0.9)
    assert code == 2 and out == ""
    assert f"unrecognized arguments: {typed} 0.9; did you mean {meant}?" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("spelling", "hint"), [
    ("two.sided", "R's 'two.sided' is spelled 'two-sided' here"),
    ("larger", "statsmodels' 'larger' is 'greater' here"),
    ("smaller", "statsmodels' 'smaller' is 'less' here"),
])
@pytest.mark.parametrize("verb", [("test", "--z", 12.7, "--n", 30, "--epsilon", 1),
                                  ("power", "--theta", 0.4, "--n", 30, "--p0", 0.2, "--epsilon", 1)])
def test_other_tools_spellings_of_the_alternative_get_a_hint(capsys, verb, spelling, hint):
    code, _, err = call(capsys, *verb, "--alternative", spelling)
    assert code == 2 and f"invalid choice: '{spelling}'" in err and hint in err
    with pytest.raises(ValueError, match=re.escape(hint)):
        binom_ump_test(12.7, 30, epsilon=1.0, alternative=spelling)


def test_a_semicolon_csv_gets_a_delimiter_hint(capsys, tmp_path):
    column = tmp_path / "trial.csv"
    column.write_text("id;response\n1;0\n2;1\n")
    code, _, err = call(capsys, "release", "--csv", column, "--column", "response", "--epsilon", 1)
    assert code == 2 and "looks semicolon-separated" in err
    table = tmp_path / "counts.csv"
    table.write_text("40;10\n15;35\n")
    code, _, err = call(capsys, "release", "--table", table, "--epsilon", 1)
    assert code == 2 and "looks semicolon-separated" in err
    shown = err.replace(str(table), "")  # the file's path may hold any digits (pytest's numbered tmp dirs)
    assert "40" not in shown and "35" not in shown  # the counts are confidential


# --------------------------------------------------------------------------- names as data
def test_library_errors_carry_the_argument_name():
    with pytest.raises(DPInferValueError) as info:
        _check_epsilon(-1.0)
    exc = info.value
    assert isinstance(exc, ValueError) and exc.argument == "epsilon"
    assert str(exc) == "`epsilon` must be a positive finite number; got -1.0."  # unchanged for Python users
    assert exc.spelled(lambda name: name.name.upper()) == "EPSILON must be a positive finite number; got -1.0."
    again = pickle.loads(pickle.dumps(exc))
    assert str(again) == str(exc) and again.argument == "epsilon"
    with pytest.raises(DPInferTypeError) as info:
        _check_alternative(2)
    assert isinstance(info.value, TypeError) and info.value.argument == "alternative"
    with pytest.raises(ValueError, match="statsmodels' 'larger' is 'greater' here") as info:
        _check_alternative("larger")
    assert info.value.argument == "alternative"


def test_warnings_carry_their_names():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        binom_normal_test(0.1013, 10, 0.05, epsilon=0.5)
    (w,) = caught
    assert isinstance(w.message, ApproximationWarning)
    assert "alternative = 'two-sided'" in str(w.message) and "binom_normal_power(p0, n, p0, ...)" in str(w.message)
    kinds = {part.kind for part in w.message.parts if not isinstance(part, str)}
    assert kinds == {"setting", "call", "method"}
    assert ApproximationWarning("plain text").parts == ("plain text",)


def test_the_command_spells_names_as_options(capsys):
    code, _, err = call(capsys, "test", "--z", 0.1013, "--n", 10, "--p0", 0.05, "--epsilon", 0.5,
                        "--method", "normal")
    assert code == 0
    assert "--alternative two-sided the exact size" in err
    assert "'dpinfer power --method normal' with --theta equal to --p0 gives" in err
    assert "(e.g. DP-JIMI, --method jimi)" in err and "binom_" not in err
    code, _, err = call(capsys, "sample-size", "--theta1", 0.4, "--p0", 0.2, "--epsilon", 1, "--power", 0.01)
    assert code == 2 and "--power must lie strictly between --alpha = 0.05 and 1; got 0.01." in err


def test_plain_messages_are_shown_as_they_are():
    # The command spells only the names a message carries as data; it never rewrites text.
    from dpinfer.cli import _cli_message

    assert _cli_message(ValueError("`epsilon`  must\n be positive; method='ump'")) == (
        "`epsilon` must be positive; method='ump'")
    from dpinfer._validation import _arg, _method, _setting

    named = DPInferValueError(_arg("n_sim"), " needs ", _setting("alternative", "less"), " and ",
                              _method("jimi", "binom_jimi_test"), "; `delta` as text stays.")
    assert str(named) == "`n_sim` needs alternative='less' and binom_jimi_test; `delta` as text stays."
    assert _cli_message(named) == "--n-sim needs --alternative less and --method jimi; `delta` as text stays."
