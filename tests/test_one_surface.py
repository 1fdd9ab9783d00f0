"""One question, one answer, whatever the door (issue 17).

Python functions, prop_test and the command share their defaults, call order and
key vocabulary; results print R's htest layout at a prompt, carry the release's
provenance, and refuse a count typed where a proportion belongs.  Expected
p-values come from the defining sums written here with scipy (never from the
package's own output); the rest are structural checks of the surfaces.
"""

import csv
import io
import json

import numpy as np
import pytest
from scipy.stats import binom, norm

import dpinfer
from dpinfer import (
    HTestResult,
    LaplaceReleaser,
    Tulap,
    TulapReleaser,
    binom2_jimi_test,
    binom2_normal_test,
    binom_jimi_ci,
    binom_jimi_test,
    binom_normal_ci,
    binom_normal_test,
    binom_ump_ci,
    binom_ump_test,
    prop_test,
    results_to_frame,
)
from dpinfer.cli import main

TULAP = TulapReleaser(1.0).release(11, 30, rng=2024)
LAPLACE = LaplaceReleaser(1.0).proportion(11, 30, rng=2024)
LAPLACE2 = LaplaceReleaser(1.0).proportion(5, 40, rng=7)


def call(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _ump_pvalue_greater(z, n, p0, epsilon):
    """Awan & Slavkovic (2018): sum_x Binom(x; n, p0) F(x - z), F the Tulap(0, e^-eps) cdf."""
    x = np.arange(n + 1)
    return float(np.sum(binom.pmf(x, n, p0) * Tulap(b=np.exp(-epsilon)).cdf(x - z)))


# ----------------------------------------------------------------- call order
@pytest.mark.parametrize("func, rel", [(binom_ump_test, TULAP), (binom_normal_test, LAPLACE),
                                       (binom_jimi_test, LAPLACE)])
def test_release_then_p0_by_position(func, rel):
    by_position = func(rel, 0.2, alternative="greater")
    by_keyword = func(rel, p0=0.2, alternative="greater")
    assert by_position == by_keyword and by_position.null_value == 0.2


def test_release_then_p0_matches_the_defining_sum():
    res = binom_ump_test(TULAP, 0.2, alternative="greater")
    # float64 sum of 31 terms vs the package's log-space kernel: 1e-12 relative
    assert res.pvalue == pytest.approx(_ump_pvalue_greater(TULAP.value, 30, 0.2, 1.0), rel=1e-12)


def test_two_sample_releases_then_null_by_position():
    a = binom2_jimi_test(LAPLACE, LAPLACE2, 0.1, n_sim=2000, rng=3)
    b = binom2_jimi_test(LAPLACE, pi_hat2=LAPLACE2, margin=0.1, n_sim=2000, rng=3)
    assert a == b and a.null_value == 0.1
    assert binom2_normal_test(LAPLACE, LAPLACE2) == binom2_normal_test(LAPLACE, pi_hat2=LAPLACE2)


def test_positional_and_keyword_for_the_same_argument_is_an_error():
    with pytest.raises(TypeError, match="two values for `p0`"):
        binom_ump_test(TULAP, 0.2, p0=0.3)
    with pytest.raises(TypeError, match="at most 1 positional arguments after a Release"):
        binom_ump_ci(TULAP, 0.95)


def test_bare_numbers_keep_r_order():
    # binom.test(x, n, p): numbers, n, p0
    assert binom_ump_test(11.3, 30, 0.2, epsilon=1.0).null_value == 0.2


# ----------------------------------------------------------------- one default per door
def test_jimi_default_is_the_exact_limit_in_every_door(capsys):
    py = binom_jimi_test(LAPLACE, 0.2)
    assert py.n_sim is None and py == prop_test(LAPLACE, 0.2, method="jimi")
    code, out, _ = call(capsys, "test", "--z", LAPLACE.value, "--n", 30, "--epsilon", 1,
                        "--p0", 0.2, "--method", "jimi", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["n_sim"] is None and data["pvalue"] == py.pvalue


def test_normal_interval_default_is_the_score_interval_in_every_door(capsys):
    ci = binom_normal_ci(LAPLACE)
    assert binom_normal_test(LAPLACE, 0.2).conf_int == ci
    assert ci == binom_normal_ci(LAPLACE, method="score")
    code, out, _ = call(capsys, "ci", "--z", LAPLACE.value, "--n", 30, "--epsilon", 1,
                        "--method", "normal", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["conf_low"], data["conf_high"]) == (ci.low, ci.high)
    assert "score" in data["method"]
    # The score interval's ends solve |pi_hat - p| = z sqrt(p (1 - p)/n + 2/(eps n)^2)
    # (Vu & Slavkovic 2009): check the defining equation, 1e-9 absolute.
    z = norm.ppf(0.975)
    for p in (ci.low, ci.high):
        assert abs(LAPLACE.value - p) == pytest.approx(
            z * np.sqrt(p * (1 - p) / 30 + 2 / 30**2), abs=1e-9)


@pytest.mark.parametrize("verb, default", [("test", "two-sided"), ("ci", "two-sided"),
                                           ("power", "two-sided"), ("sample-size", "two-sided")])
def test_each_verb_states_its_alternative_default_in_help(capsys, verb, default):
    assert main([verb, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"default {default}" in text


def test_demo_asks_and_tests_a_one_sided_question(capsys):
    code, out, _ = call(capsys, "demo", "--format", "json")
    assert code == 0
    assert {d["alternative"] for d in json.loads(out)} == {"greater"}
    code, out, _ = call(capsys, "demo")
    assert "H1: rate > 0.2 (one-sided)" in out and "one-sided tests of H0: rate <= 0.2" in out
    assert "Asymptotically unbiased" not in out and "two-sided" not in out


# ----------------------------------------------------------------- printing
def test_repr_is_the_htest_layout_and_html_escapes_it():
    res = binom_ump_test(TULAP, 0.2)
    assert repr(res) == str(res)
    assert repr(res).splitlines()[1].startswith("\t")
    html = res._repr_html_()
    assert html.startswith("<pre>") and html.endswith("</pre>")
    assert "alternative hypothesis: true probability of success is not equal to 0.2" in html


def test_privacy_lines_carry_path_and_unit_from_the_release():
    seeded = binom_ump_test(TULAP, 0.2)
    lines = str(seeded).splitlines()
    assert "privacy: epsilon = 1, delta = 0, Tulap mechanism, seeded path (research only)" in lines
    assert "unit of privacy: one record (replace-one, n public)" in lines
    hardened = TulapReleaser(1.0).release(11, 30, secure=True)
    res = prop_test(hardened, 0.2)
    assert res.secure is True and "hardened path (OS source)" in str(res)
    bare = binom_ump_test(11.3, 30, 0.2, epsilon=1.0)
    assert bare.secure is None and "path" not in str(bare) and "unit of privacy" not in str(bare)


def test_zero_width_interval_prints_a_note():
    # Z = 33 > n = 30 (issue 17): the two-sided interval is the point 1
    res = binom_ump_test(33.25, 30, epsilon=1.0)
    assert res.conf_int.low == res.conf_int.high == 1.0
    text = str(res)
    assert "note: the interval [1, 1] has zero width" in text
    assert "zero width" in res.to_dict()["note"] and "zero width" in res.to_htest()["note"]
    inside = binom_ump_test(12.25, 30, epsilon=1.0)
    assert "note:" not in str(inside) and inside.to_dict()["note"] == ""


def test_hull_interval_prints_why():
    res = binom_ump_test(31.5, 30, epsilon=1.0)
    assert res.conf_int.low < res.conf_int.high
    assert "note: the release lies outside [0, n] = [0, 30]: the interval is the" in str(res)
    assert binom_ump_test(31.5, 30, epsilon=1.0, alternative="greater").note == ""


# ----------------------------------------------------------------- one vocabulary
def test_one_key_vocabulary_across_dict_frame_json_csv(capsys):
    res = binom_ump_test(TULAP, 0.2)
    keys = list(res.to_dict())
    assert keys == list(res.to_frame().columns) == list(results_to_frame([res, res]).columns)
    assert "pvalue" in keys and "p_value" not in keys
    args = ("test", "--z", 12.7, "--n", 30, "--epsilon", 1, "--p0", 0.2)
    _, out, _ = call(capsys, *args, "--format", "json")
    assert list(json.loads(out)) == keys
    _, out, _ = call(capsys, *args, "--format", "csv")
    assert next(csv.reader(io.StringIO(out))) == keys
    # mechanism named as the Release names it
    assert res.mechanism == TULAP.mechanism == "tulap"
    assert binom_jimi_test(LAPLACE).mechanism == LAPLACE.mechanism == "laplace"


def test_key_table_in_the_docs_lists_every_key():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "results.rst").read_text()
    for key in binom_ump_test(TULAP, 0.2).to_dict():
        assert f"``{key}``" in page, key


# ----------------------------------------------------------------- to_htest
def test_to_htest_has_r_field_names_and_privacy_fields():
    res = binom_ump_test(TULAP, 0.2, alternative="greater")
    h = res.to_htest()
    assert list(h)[:10] == ["statistic", "parameter", "p.value", "conf.int", "conf.level", "estimate",
                            "null.value", "alternative", "method", "data.name"]
    assert h["statistic"] == {"Z": res.statistic}
    assert h["parameter"] == {"number of trials": 30.0}
    assert h["p.value"] == res.pvalue and h["alternative"] == "greater"
    assert h["conf.int"] == [res.conf_int.low, 1.0] and h["conf.level"] == 0.95
    assert h["estimate"] == {"probability of success": res.estimate}
    assert h["null.value"] == {"probability of success": 0.2}
    assert (h["epsilon"], h["delta"], h["mechanism"], h["secure"]) == (1.0, 0.0, "tulap", False)
    assert h["privacy.unit"] == "one record (replace-one, n public)" and h["n.sim"] is None
    assert binom_ump_test(TULAP, 0.2).to_htest()["alternative"] == "two.sided"
    json.dumps(h, allow_nan=False)


def test_command_htest_json_one_value_and_several(capsys):
    args = ("test", "--n", 30, "--epsilon", 1, "--p0", 0.2, "--alternative", "greater",
            "--format", "htest-json")
    code, out, _ = call(capsys, *args[:1], "--z", 12.7, *args[1:])
    one = json.loads(out)
    assert code == 0 and isinstance(one, dict)
    assert one["p.value"] == pytest.approx(_ump_pvalue_greater(12.7, 30, 0.2, 1.0), rel=1e-12)
    code, out, _ = call(capsys, *args[:1], "--z", 12.7, 3.2, 20.25, *args[1:])
    many = json.loads(out)
    assert code == 0 and [m["statistic"]["Z"] for m in many] == [12.7, 3.2, 20.25]
    for m, z in zip(many, (12.7, 3.2, 20.25)):
        assert m["p.value"] == pytest.approx(_ump_pvalue_greater(z, 30, 0.2, 1.0), rel=1e-12)
    code, _, err = call(capsys, "ci", "--z", 12.7, "--n", 30, "--epsilon", 1, "--format", "htest-json")
    assert code == 2 and "invalid choice: 'htest-json'" in err


# ----------------------------------------------------------------- scale guards
@pytest.mark.parametrize("func", [binom_normal_test, binom_jimi_test])
def test_count_given_as_a_proportion_is_refused_with_the_fix(func):
    with pytest.raises(ValueError, match=r"`pi_hat` = 11.31 cannot be a Laplace-noised proportion.*"
                                         r"give the proportion \(11.31 / 30 = 0.377\)"):
        func(11.31, 30, 0.2, epsilon=1.0)
    # a whole count is refused first, as the confidential count it looks like, and not shown
    with pytest.raises(ValueError, match="looks like the confidential count") as info:
        func(11, 30, 0.2, epsilon=1.0)
    assert "11" not in str(info.value)
    # 50 noise scales (1/(epsilon n)) is the line: 1 + 49.3/30 passes
    assert isinstance(func(1 + 49.3 / 30, 30, 0.2, epsilon=1.0), HTestResult)
    with pytest.raises(ValueError, match="cannot be a Laplace-noised proportion"):
        func(1 + 51.3 / 30, 30, 0.2, epsilon=1.0)


def test_jimi_count_kind_is_not_refused():
    res = binom_jimi_test(11.3, 30, 0.2, epsilon=1.0, kind="count")
    assert res.estimate == pytest.approx(11.3 / 30)


def test_command_scale_guards_name_flags(capsys):
    code, out, err = call(capsys, "test", "--z", 11, "--n", 30, "--epsilon", 1, "--method", "normal")
    assert code == 2 and out == ""
    assert "--z 11 cannot be a Laplace-noised proportion with --n 30" in err
    assert "give --z 0.3667" in err and "binom_" not in err and "Releaser" not in err
    code, out, err = call(capsys, "test", "--z", 0.37, "--n", 30, "--epsilon", 1)
    assert code == 0 and "p-value" in out
    assert "warning: --z 0.37 is read as a noisy count" in err and "give --z 11.1" in err


def test_command_mechanism_mismatch_names_command_flags(capsys, tmp_path):
    path = tmp_path / "lap.json"
    path.write_text(json.dumps(LAPLACE.to_dict()))
    code, _, err = call(capsys, "test", "--release", path)
    assert code == 2 and "--method ump needs a Tulap-noised count ('dpinfer release --mechanism tulap')" in err
    assert "Releaser" not in err and "method='" not in err


# ----------------------------------------------------------------- release files
def test_command_reads_its_own_csv_release(capsys, tmp_path):
    code, out, _ = call(capsys, "release", "--x", 11, "--n", 30, "--epsilon", 1, "--seed", 5,
                        "--format", "csv")
    assert code == 0
    path = tmp_path / "rel.csv"
    path.write_text(out)
    z = float(next(csv.DictReader(io.StringIO(out)))["value"])
    code, out, _ = call(capsys, "test", "--release", path, "--p0", 0.2, "--alternative", "greater",
                        "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["statistic"] == z and data["secure"] is False
    assert data["pvalue"] == pytest.approx(_ump_pvalue_greater(z, 30, 0.2, 1.0), rel=1e-12)
    # several releases in one CSV: one result each
    rows = out_rows = [TULAP.to_dict(), TulapReleaser(1.0).release(20, 30, rng=1).to_dict()]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(out_rows)
    (tmp_path / "two.csv").write_text(buffer.getvalue())
    code, out, _ = call(capsys, "test", "--release", tmp_path / "two.csv", "--format", "json")
    assert code == 0 and [d["statistic"] for d in json.loads(out)] == [r["value"] for r in rows]
    (tmp_path / "junk.csv").write_text("a,b\n1,2\n")
    code, _, err = call(capsys, "test", "--release", tmp_path / "junk.csv")
    assert code == 2 and "neither JSON nor the CSV that 'dpinfer release --format csv' writes" in err


def test_validate_accepts_the_readme_study_name(monkeypatch):
    from types import SimpleNamespace

    from dpinfer.cli import _commands as cli_commands
    from dpinfer import cli

    seen = {}
    monkeypatch.setattr(cli_commands.importlib, "import_module",
                        lambda name: seen.setdefault("module", name) and SimpleNamespace(main=lambda argv: 0))
    assert cli.main(["validate", "robust", "--quick"]) == 0
    assert seen["module"] == "validation.robust_study"


def test_public_api_still_exports_the_release_first_functions():
    for name in ("binom_ump_test", "binom_normal_test", "binom_jimi_test", "binom_jimi_ci"):
        assert getattr(dpinfer, name).__wrapped__.__name__ == name


def test_normal_one_sided_hull_prints_why():
    # beyond 1 + 2 n c (c = 2/(epsilon n)^2; 1.133 at n = 30, epsilon = 1) the one-sided
    # score acceptance set need not reach 1: the reported interval is a hull
    far = binom_normal_test(1.2013, 30, 0.5, epsilon=1.0, alternative="greater")
    assert "note: the release lies so far outside [0, 1]" in str(far)
    near = binom_normal_test(1.1013, 30, 0.5, epsilon=1.0, alternative="greater")
    assert near.note == "" and binom_normal_test(1.2013, 30, 0.5, epsilon=1.0).note == ""


def test_command_messages_translate_python_names(capsys, tmp_path):
    # the library's size warning names Python functions; the command names its own flags
    code, _, err = call(capsys, "test", "--z", 0.1013, "--n", 10, "--epsilon", 0.5, "--p0", 0.05,
                        "--method", "normal")
    assert code == 0 and "warning: The normal approximation is poor here" in err
    assert "binom_" not in err and "'dpinfer power --method normal' with --theta equal to --p0" in err
    assert "--alternative two-sided" in err and "--method jimi" in err
    bad = LAPLACE.to_dict()
    bad["value"] = 11.0
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    code, _, err = call(capsys, "test", "--release", tmp_path / "bad.json", "--method", "normal")
    assert code == 2 and "cannot be a Laplace-noised proportion (--method normal)" in err
    assert "'dpinfer release --mechanism laplace --kind count'" in err and "Releaser" not in err


@pytest.mark.filterwarnings("default")
def test_warning_points_at_the_callers_line_for_release_and_numbers():
    import warnings

    from dpinfer import ApproximationWarning

    small = LaplaceReleaser(0.5).proportion(1, 10, rng=1)
    for args, kwargs in (((small, 0.05), {}), ((0.1013, 10, 0.05), dict(epsilon=0.5))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            binom_normal_test(*args, **kwargs)
        assert [w.category for w in caught] == [ApproximationWarning]
        assert caught[0].filename == __file__
