"""The command with a contingency table: release --table, test --table / --release (issue 20)."""

import json

import numpy as np
import pytest
from scipy import stats

from dpinfer import ContingencyTableReleaser, independence_jimi_test, independence_mc_test, prop_test
from dpinfer.releasers.release import Release

COUNTS = [[30, 20, 12], [22, 25, 18]]  # a 2 x 3 table, n = 127; association modest (p ~ 0.3 non-private)


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _write(path, text):
    path.write_text(text)
    return path


def _clamped_x2(z):
    """Pearson's X^2 of max(Z, 0) + 1/2 by scipy (no continuity correction): an independent route."""
    return stats.chi2_contingency(np.maximum(z, 0.0) + 0.5, correction=False).statistic


LAYOUTS = {
    "bare": "30,20,12\n22,25,18\n",
    "header": "yes,maybe,no\n30,20,12\n22,25,18\n",
    "row names": "A,30,20,12\nB,22,25,18\n",
    "write.csv": '"","yes","maybe","no"\n"A",30,20,12\n"B",22,25,18\n',
    "write.table": "yes maybe no\n".replace(" ", ",") + "A,30,20,12\n\nB, 22 ,25,18\n",
    # R's write.csv(m) of a matrix without dimnames: row names 1, 2 under an empty corner cell
    "write.csv default names": '"","V1","V2","V3"\n"1",30,20,12\n"2",22,25,18\n',
    # write.table(m, sep = ",") with numeric row names: no header cell above them
    "write.table numeric names": '"V1","V2","V3"\n"1",30,20,12\n"2",22,25,18\n',
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_release_table_matches_the_releaser(capsys, tmp_path, layout):
    path = _write(tmp_path / "counts.csv", LAYOUTS[layout])
    code, out, err = call(capsys, "release", "--table", path, "--epsilon", 1, "--seed", 5, "--format", "json")
    assert code == 0, err
    assert "--seed 5 makes the noise reproducible" in err
    record = json.loads(out)
    expected = ContingencyTableReleaser(1.0).release(COUNTS, rng=5)
    assert record["kind"] == "table" and record["mechanism"] == "laplace"
    assert record["n"] == 127 and record["sensitivity"] == 2.0 and record["delta"] == 0.0
    np.testing.assert_array_equal(np.array(record["value"]), expected.value)  # same seed, same bits


def test_release_table_add_remove_hides_the_total(capsys, tmp_path):
    path = _write(tmp_path / "counts.csv", LAYOUTS["bare"])
    code, out, _ = call(capsys, "release", "--table", path, "--epsilon", 0.5, "--neighbours", "add-remove",
                        "--seed", 2, "--format", "json")
    assert code == 0
    record = json.loads(out)
    expected = ContingencyTableReleaser(0.5, neighbours="add-remove", margins="private").release(COUNTS, rng=2)
    assert record["n"] is None and record["sensitivity"] == 1.0
    np.testing.assert_array_equal(np.array(record["value"]), expected.value)
    code, _, err = call(capsys, "release", "--table", path, "--epsilon", 0.5, "--neighbours", "add-remove",
                        "--margins", "total")
    assert code == 2 and "`margins` must be 'private'" in err


def test_release_table_text_and_budget(capsys, tmp_path):
    path = _write(tmp_path / "counts.csv", LAYOUTS["header"])
    ledger = tmp_path / "budget.json"
    code, out, err = call(capsys, "release", "--table", path, "--epsilon", 0.75, "--seed", 1, "--budget", ledger,
                          "--total-epsilon", 1, "--label", "site x AE")
    assert code == 0, err
    assert "noisy contingency table out of n = 127" in out and "noisy cells:" in out
    assert "budget: spent epsilon = 0.75 of 1" in out
    from dpinfer.cli._ledger_file import read_budget

    budget = read_budget(ledger)
    assert budget.spent_epsilon == pytest.approx(0.75) and "site x AE" in ledger.read_text()
    # a second release of 0.75 does not fit in the total of 1: refused, nothing printed
    code, out, err = call(capsys, "release", "--table", path, "--epsilon", 0.75, "--seed", 1, "--budget", ledger)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1  # the error; no seed warning (issue 26, U6)


def _release_file(capsys, tmp_path, *extra):
    path = _write(tmp_path / "counts.csv", LAYOUTS["bare"])
    code, out, _ = call(capsys, "release", "--table", path, "--epsilon", 1, "--seed", 11, "--format", "json", *extra)
    assert code == 0
    rel_path = _write(tmp_path / "table.json", out)
    return rel_path, json.loads(out)


def test_test_release_file_equals_python_functions(capsys, tmp_path):
    rel_path, record = _release_file(capsys, tmp_path)
    code, out, err = call(capsys, "test", "--release", rel_path, "--seed", 3, "--n-sim", 4000, "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    release = Release(np.array(record["value"]), "laplace", 1.0, 0.0, 2.0, 127, "table")
    direct = independence_jimi_test(release, n_sim=4000, rng=3)
    via_prop = prop_test(release, n_sim=4000, rng=3)
    # one question, one answer: the command, prop_test and the function agree to the bit
    assert result["pvalue"] == direct.pvalue == via_prop.pvalue
    assert 0.01 < result["pvalue"] < 0.99  # a p-value in the body of its law, where seeds matter
    assert result["statistic"] == pytest.approx(_clamped_x2(np.array(record["value"])), rel=1e-12)
    assert result["method"] == "DP-JIMI fiducial test of independence (4000 draws)"
    assert result["n_sim"] == 4000 and result["secure"] is False


def test_test_table_default_draws_and_mc(capsys, tmp_path):
    rel_path, record = _release_file(capsys, tmp_path)
    release = Release(np.array(record["value"]), "laplace", 1.0, 0.0, 2.0, 127, "table")
    code, out, _ = call(capsys, "test", "--release", rel_path, "--seed", 9, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == independence_jimi_test(release, rng=9).pvalue  # 10 000 draws both
    assert json.loads(out)["n_sim"] == 10_000
    code, out, _ = call(capsys, "test", "--release", rel_path, "--method", "mc", "--seed", 9, "--n-sim", 3000,
                        "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == independence_mc_test(release, n_sim=3000, rng=9).pvalue
    assert json.loads(out)["pvalue"] == prop_test(release, method="mc", n_sim=3000, rng=9).pvalue


@pytest.mark.parametrize("header", [False, True])
def test_test_typed_table_equals_release_file(capsys, tmp_path, header):
    rel_path, record = _release_file(capsys, tmp_path)
    lines = [",".join(repr(v) for v in row) for row in record["value"]]  # repr: exact round trip
    if header:
        lines = [",a,b,c"] + [f"row{i},{line}" for i, line in enumerate(lines)]
    noisy = _write(tmp_path / "noisy.csv", "\n".join(lines) + "\n")
    code, typed, err = call(capsys, "test", "--table", noisy, "--epsilon", 1, "--n", 127, "--seed", 4,
                            "--n-sim", 2000, "--format", "json")
    assert code == 0, err
    code, saved, _ = call(capsys, "test", "--release", rel_path, "--seed", 4, "--n-sim", 2000, "--format", "json")
    typed, saved = json.loads(typed), json.loads(saved)
    assert typed["pvalue"] == saved["pvalue"] and typed["statistic"] == saved["statistic"]
    assert typed["secure"] is None and typed["privacy_unit"] == ""  # numbers typed in claim no path
    code, text, _ = call(capsys, "test", "--table", noisy, "--epsilon", 1, "--n", 127, "--seed", 4, "--n-sim", 2000)
    assert "DP-JIMI fiducial test of independence (2000 draws)" in text
    assert "X-squared (noisy, clamped) =" in text and "noisy 2 x 3 table (n = 127" in text


def test_test_typed_table_private_total(capsys, tmp_path):
    rel_path, record = _release_file(capsys, tmp_path, "--neighbours", "add-remove")
    noisy = _write(tmp_path / "noisy.csv", "\n".join(",".join(map(repr, r)) for r in record["value"]))
    code, out, err = call(capsys, "test", "--table", noisy, "--epsilon", 1, "--neighbours", "add-remove",
                          "--seed", 2, "--n-sim", 1000, "--format", "json")
    assert code == 0, err
    release = Release(np.array(record["value"]), "laplace", 1.0, 0.0, 1.0, None, "table")
    assert json.loads(out)["pvalue"] == independence_jimi_test(release, n_sim=1000, rng=2).pvalue
    code, _, err = call(capsys, "test", "--table", noisy, "--epsilon", 1, "--neighbours", "add-remove",
                        "--n", 127)
    assert code == 2 and "--n must not be given with --neighbours add-remove" in err


SECRET = "73919"  # a confidential-looking token: must never appear in a message


@pytest.mark.parametrize("text, message", [
    ("1,2,3\n4,5\n", "line 2 has 2 cells and line 1 has 3"),
    (f"1,2\n3,{SECRET}x\n", "line 2, column 2 must hold a whole number >= 0"),
    (f"1,2\n3,-{SECRET}\n", "line 2, column 2 must hold a whole number >= 0"),
    (f"1,2\n3,{SECRET}.5\n", "line 2, column 2 must hold a whole number >= 0"),
    (f"1,2\n3,\n", "line 2, column 2 must hold a whole number >= 0"),
    ("a,b,c\n1,2,3\n", "holds a 1 x 3 table"),
    ("1\n2\n3\n", "holds a 3 x 1 table"),
    ("a,b\n", "has a header but no rows of numbers"),
    ("\n\n", "is empty"),
    ("1,2\n3," + "9" * 30 + "\n", "more than 15 digits"),
    ("x" * (1 << 21), "longer than 1_048_576 characters"),
    # an empty corner cell above a column of numbers other than 1, 2: row names or counts? refused
    (f',a,b\n{SECRET},2,3\n7,8,9\n', "the header's first cell is empty"),
    ("a,b,c,d\n1,2\n3,4\n", "the header (line 1) has 4 cells and line 2 has 2"),
])
def test_release_bad_table_is_one_line_without_values(capsys, tmp_path, text, message):
    path = _write(tmp_path / "counts.csv", text)
    code, out, err = call(capsys, "release", "--table", path, "--epsilon", 1)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert SECRET not in err and "9" * 16 not in err and "Traceback" not in err


def test_bad_noisy_table_and_misplaced_options(capsys, tmp_path):
    noisy = _write(tmp_path / "noisy.csv", "1.5,nan\n2,3\n")
    code, _, err = call(capsys, "test", "--table", noisy, "--epsilon", 1)
    assert code == 2 and "line 1, column 2 must hold a finite number" in err
    good = _write(tmp_path / "good.csv", "1.5,-2\n2,3\n")
    cases = [
        (("test", "--table", good), "--table needs --epsilon"),
        (("test", "--table", good, "--epsilon", 1, "--method", "ump"), "--method ump tests one proportion"),
        (("test", "--table", good, "--epsilon", 1, "--p0", 0.3), "--p0 does not apply"),
        (("test", "--table", good, "--epsilon", 1, "--alternative", "greater"), "--alternative does not apply"),
        (("test", "--table", good, "--epsilon", 1, "--z", 3), "--z must not be given with --table"),
        (("test", "--table", good, "--epsilon", 1, "--sensitivity", 2), "--sensitivity must not be given"),
        (("test", "--z", 3, "--n", 10, "--epsilon", 1, "--method", "mc"), "--method mc"),
        (("release", "--table", good, "--epsilon", 1, "--format", "csv"), "cannot hold a table"),
        (("release", "--table", good, "--epsilon", 1, "--mechanism", "tulap"), "--mechanism tulap must not"),
        (("release", "--x", 3, "--n", 10, "--epsilon", 1, "--neighbours", "add-remove"),
         "--neighbours applies to --table only"),
    ]
    for argv, message in cases:
        code, _, err = call(capsys, *argv)
        assert code == 2 and message in err and "Traceback" not in err, (argv, err)


def test_ci_and_mixed_files_refuse_tables(capsys, tmp_path):
    rel_path, record = _release_file(capsys, tmp_path)
    code, _, err = call(capsys, "ci", "--release", rel_path)
    assert code == 2 and "has no interval for a proportion" in err
    scalar = {"value": 0.4, "mechanism": "laplace", "epsilon": 1.0, "delta": 0.0, "sensitivity": 1 / 30,
              "n": 30, "kind": "proportion"}
    mixed = _write(tmp_path / "mixed.json", json.dumps([record, scalar]))
    code, _, err = call(capsys, "test", "--release", mixed)
    assert code == 2 and "mixes tables and single values" in err
    broken = dict(record, value=[[1.0, 2.0], [3.0]])
    path = _write(tmp_path / "broken.json", json.dumps(broken))
    code, _, err = call(capsys, "test", "--release", path)
    assert code == 2 and "all rows as long" in err
