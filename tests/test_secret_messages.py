"""No confidential value in any exception, warning or printout (DESIGN.md section 5).

Recognisable secrets go through every releaser's bad-input paths and through the
command; every message (exception text, warnings, the command's stdout and
stderr) must name the argument, the rule and the position, and never the secret.
"""

import warnings

import numpy as np
import pytest

from dpinfer import (
    ContingencyTableReleaser,
    KRRReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

SECRET_INT = 987654
SECRET_FLOAT = 12.3456789
SECRET_TEXT = "HIV+secret"
SECRETS = ("987654", "12.3456789", "12.345", "HIV+secret", "HIV+")

BAD_CALLS = [
    lambda: TulapReleaser(1.0).release(SECRET_INT, 30),
    lambda: TulapReleaser(1.0).release([1, 2, SECRET_INT], 30),
    lambda: TulapReleaser(1.0).release(SECRET_FLOAT, 30),
    lambda: TulapReleaser(1.0).release([1, SECRET_TEXT], 30),
    lambda: TulapReleaser(1.0).release(SECRET_TEXT, 30),
    lambda: TulapReleaser(1.0).release([1.0, np.nan, -SECRET_FLOAT], 30),
    lambda: TulapReleaser(1.0, sensitivity=3).release(SECRET_INT, 30),
    lambda: TulapReleaser(1.0, 0.01, sensitivity=2).release([1, 2, SECRET_FLOAT], 30),
    lambda: LaplaceReleaser(1.0).count(SECRET_INT, 30),
    lambda: LaplaceReleaser(1.0).proportion([SECRET_FLOAT], 30),
    lambda: LaplaceReleaser(1.0).release([SECRET_TEXT]),
    lambda: LaplaceReleaser(1.0).release([SECRET_FLOAT, np.inf]),
    lambda: RandomizedResponseReleaser(1.0).release([0, 1, SECRET_INT]),
    lambda: RandomizedResponseReleaser(1.0).release([0, SECRET_TEXT]),
    lambda: TwoCoinRRReleaser(0.3, 0.7).release([SECRET_FLOAT]),
    lambda: KRRReleaser(1.0, 4).release([0, SECRET_INT]),
    lambda: KRRReleaser(1.0, 4).release([0, SECRET_FLOAT]),
    lambda: UnaryEncodingReleaser(1.0, 4).release([SECRET_INT]),
    lambda: UnaryEncodingReleaser(1.0, 4).release(SECRET_TEXT),
    lambda: LocalLaplaceReleaser(1.0, 1.0).release([0.2, SECRET_FLOAT]),
    lambda: LDPHistogramReleaser(1.0, 5).release([0.5, SECRET_FLOAT]),
    lambda: ContingencyTableReleaser(1.0).release([[1, SECRET_FLOAT], [2, 3]]),
    lambda: ContingencyTableReleaser(1.0).release([[1, -SECRET_INT], [2, 3]]),
    lambda: ContingencyTableReleaser(1.0).release([[1, SECRET_TEXT], [2, 3]]),
]


def _clean(text):
    return not any(secret in text for secret in SECRETS)


@pytest.mark.parametrize("call", BAD_CALLS)
def test_releaser_errors_name_position_not_value(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises((TypeError, ValueError)) as info:
            call()
    assert _clean(str(info.value)), str(info.value)
    assert "`" in str(info.value)  # names the argument
    assert all(_clean(str(w.message)) for w in caught)


def test_position_is_reported():
    with pytest.raises(ValueError, match="position 2"):
        TulapReleaser(1.0).release([1, 2, SECRET_INT], 30)
    with pytest.raises(ValueError, match=r"position \(1, 0\)"):
        KRRReleaser(1.0, 4).release([[0, 1], [SECRET_INT, 2]])


@pytest.mark.parametrize("args", [
    ["release", "--x", SECRET_INT, "--n", 30, "--epsilon", 1],
    ["release", "--x", SECRET_TEXT, "--n", 30, "--epsilon", 1],
    ["release", "--x", SECRET_FLOAT, "--n", 30, "--epsilon", 1],
    ["release", "--x", SECRET_INT, "--n", 30, "--epsilon", 1, "--mechanism", "laplace"],
    ["release", "--x", SECRET_INT, "--n", 30, "--epsilon", 1, "--sensitivity", 3],
])
def test_command_errors_do_not_echo_the_count(args, capsys):
    from dpinfer.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out = capsys.readouterr()
    assert code == 2
    assert _clean(out.out) and _clean(out.err), out.err


def test_command_csv_cell_is_not_echoed(tmp_path, capsys):
    from dpinfer.cli import main

    path = tmp_path / "trial.csv"
    path.write_text(f"id,hiv\n1,0\n2,{SECRET_TEXT}\n3,1\n")
    code = main(["release", "--csv", str(path), "--column", "hiv", "--epsilon", "1"])
    out = capsys.readouterr()
    assert code == 2 and "row 2" in out.err
    assert _clean(out.out) and _clean(out.err), out.err


def test_command_csv_without_header_names_columns_by_position(tmp_path, capsys):
    # Issue 26, S1: a header-less CSV's first row is data; its cells are never shown as column names.
    from dpinfer.cli import main

    path = tmp_path / "f.csv"
    path.write_text(f"SECRET-{SECRET_TEXT},1\n0,1\n")
    code = main(["release", "--csv", str(path), "--column", "resp", "--epsilon", "1"])
    out = capsys.readouterr()
    assert code == 2 and "named by position: --column 1 to --column 2" in out.err
    assert _clean(out.out) and _clean(out.err), out.err
    assert "SECRET" not in out.err
    # the first row counts as a record when the columns are named by position
    assert main(["release", "--csv", str(path), "--column", "2", "--epsilon", "1", "--seed", "1",
                 "--format", "json"]) == 0
    assert '"n": 2' in capsys.readouterr().out
    code = main(["release", "--csv", str(path), "--column", "1", "--epsilon", "1"])
    out = capsys.readouterr()
    assert code == 2 and "data row 1" in out.err and _clean(out.err), out.err
