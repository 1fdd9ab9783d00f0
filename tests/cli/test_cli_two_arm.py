"""The command with two arms (issue 25 item 4): test, ci, power and sample-size.

The command adds no statistics: each answer must be the Python function's
(binom2_ump_test / prop_test, binom2_ump_ci, binom2_ump_power, binom2_ump_sample_size),
whose values are checked against independent references in tests/inference/two_arm/.
"""

import csv
import io
import json

import pytest

from dpinfer import (
    LaplaceReleaser,
    TulapReleaser,
    binom2_jimi_test,
    binom2_ump_ci,
    binom2_ump_power,
    binom2_ump_sample_size,
    binom2_ump_test,
)


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def arms():
    rel = TulapReleaser(epsilon=1.0)
    return rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)


@pytest.fixture
def files(arms, tmp_path):
    paths = []
    for i, release in enumerate(arms, start=1):
        path = tmp_path / f"arm{i}.json"
        path.write_text(json.dumps(release.to_dict()))
        paths.append(path)
    return paths


def _typed(arms):
    a, b = arms
    return ["--z1", repr(a.value), "--n1", 60, "--z2", repr(b.value), "--n2", 60, "--epsilon", 1]


def test_two_release_files_text_like_prop_test(arms, files, capsys):
    code, out, _ = call(capsys, "test", "--release", files[0], "--release", files[1])
    expected = binom2_ump_test(*arms)
    assert code == 0
    assert out.strip("\n") == str(expected).strip("\n")
    # releases charged to no budget: sequential composition, the two epsilons added (issue 35)
    assert "difference in proportions" in out and "epsilon = 2, delta = 0, sequential composition" in out


@pytest.mark.parametrize("fmt", ["json", "csv", "htest-json"])
def test_two_arm_test_formats(arms, files, capsys, fmt):
    options = ["--margin", -0.1, "--alternative", "greater"]
    expected = binom2_ump_test(*arms, margin=-0.1, alternative="greater")
    code, out, _ = call(capsys, "test", "--release", files[0], "--release", files[1], *options, "--format", fmt)
    assert code == 0
    if fmt == "json":
        assert json.loads(out)["pvalue"] == expected.pvalue
    elif fmt == "csv":
        (row,) = csv.DictReader(io.StringIO(out))
        assert float(row["pvalue"]) == expected.pvalue and float(row["null_value"]) == -0.1
    else:
        record = json.loads(out)
        assert record["p.value"] == expected.pvalue and record["null.value"] == {
            "difference in proportions": -0.1}


def test_typed_arms_give_the_same_test_without_a_sampling_path(arms, capsys):
    code, out, _ = call(capsys, "test", *_typed(arms), "--format", "json")
    record = json.loads(out)
    assert code == 0 and record["pvalue"] == binom2_ump_test(*arms).pvalue
    assert record["secure"] is None


def test_ratio_effect(arms, files, capsys):
    code, out, _ = call(capsys, "test", "--release", files[0], "--release", files[1], "--effect", "ratio",
                        "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == binom2_ump_test(*arms, effect="ratio").pvalue


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_two_arm_ci(arms, files, capsys, fmt):
    code, out, _ = call(capsys, "ci", "--release", files[0], "--release", files[1], "--confidence-level", 0.9,
                        "--format", fmt)
    ci = binom2_ump_ci(*arms, confidence_level=0.9)
    assert code == 0
    if fmt == "text":
        assert "90 percent confidence interval" in out and "difference in proportions" in out
    elif fmt == "json":
        record = json.loads(out)
        assert (record["conf_low"], record["conf_high"]) == (ci.low, ci.high)
    else:
        (row,) = csv.DictReader(io.StringIO(out))
        assert (float(row["conf_low"]), float(row["conf_high"])) == (ci.low, ci.high)


def test_laplace_arms_default_to_the_exact_test(tmp_path, capsys):
    rel = LaplaceReleaser(epsilon=1.0)
    a, b = rel.proportion(41, 60, rng=1), rel.proportion(27, 60, rng=2)
    paths = []
    for name, release in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(json.dumps(release.to_dict()))
        paths += ["--release", tmp_path / name]
    code, out, _ = call(capsys, "test", *paths, "--format", "json")
    record = json.loads(out)
    expected = binom2_ump_test(a, b)
    assert code == 0 and record["pvalue"] == expected.pvalue and record["mechanism"] == "laplace"
    code, out, _ = call(capsys, "ci", *paths, "--format", "json")
    assert (json.loads(out)["conf_low"], json.loads(out)["conf_high"]) == tuple(expected.conf_int[:2])
    code, out, _ = call(capsys, "test", *paths, "--method", "jimi", "--format", "json")
    assert json.loads(out)["pvalue"] == binom2_jimi_test(a, b).pvalue and "DP-JIMI" in json.loads(out)["method"]
    code, out, _ = call(capsys, "test", *paths, "--method", "jimi", "--seed", 3, "--n-sim", 500, "--format", "json")
    assert json.loads(out)["pvalue"] == binom2_jimi_test(a, b, n_sim=500, rng=3).pvalue


def test_typed_laplace_counts_and_planning(capsys):
    rel = LaplaceReleaser(epsilon=1.0)
    a, b = rel.count(41, 60, rng=1), rel.count(27, 60, rng=2)
    code, out, _ = call(capsys, "test", "--z1", repr(a.value), "--n1", 60, "--z2", repr(b.value), "--n2", 60,
                        "--epsilon", 1, "--mechanism", "laplace", "--alternative", "greater", "--format", "json")
    assert code == 0 and json.loads(out)["pvalue"] == binom2_ump_test(a, b, alternative="greater").pvalue
    code, out, _ = call(capsys, "power", "--theta1", 0.6, "--theta2", 0.4, "--n1", 50, "--n2", 50, "--epsilon", 1,
                        "--mechanism", "laplace", "--format", "json")
    assert json.loads(out)[0]["power"] == pytest.approx(
        float(binom2_ump_power(0.6, 0.4, 50, 50, epsilon=1.0, mechanism="laplace")), rel=1e-12)
    code, out, _ = call(capsys, "sample-size", "--theta1", 0.6, "--theta2", 0.4, "--epsilon", 1,
                        "--mechanism", "laplace")
    assert code == 0 and "Laplace releases" in out


@pytest.mark.parametrize("args, match", [
    (("--mechanism", "laplace", "--method", "jimi"), "--mechanism laplace with typed values"),
    (("--mechanism", "laplace", "--seed", 1), "--n-sim, --seed and --workers"),
])
def test_typed_laplace_refusals(capsys, args, match):
    code, _, err = call(capsys, "test", "--z1", 40.2, "--n1", 60, "--z2", 27.1, "--n2", 60, "--epsilon", 1, *args)
    assert code != 0 and match in err


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_two_arm_power(capsys, fmt):
    code, out, _ = call(capsys, "power", "--theta1", 0.6, 0.7, "--theta2", 0.4, "--n1", 100, "--n2", 80,
                        "--epsilon", 1, "--format", fmt)
    # the command evaluates both thetas in one call: equal to the scalar calls to rounding
    expected = [float(binom2_ump_power(t, 0.4, 100, 80, epsilon=1.0)) for t in (0.6, 0.7)]
    assert code == 0
    if fmt == "text":
        assert "alternative = two-sided" in out and f"{expected[0]:.4f}" in out
    elif fmt == "json":
        assert [r["power"] for r in json.loads(out)] == pytest.approx(expected, rel=1e-12)
    else:
        assert [float(r["power"]) for r in csv.DictReader(io.StringIO(out))] == pytest.approx(expected, rel=1e-12)


def test_two_arm_power_with_a_non_inferiority_margin(capsys):
    code, out, _ = call(capsys, "power", "--theta1", 0.5, "--theta2", 0.5, "--n1", 150, "--n2", 150,
                        "--epsilon", 1, "--margin", -0.15, "--alternative", "greater", "--format", "json")
    expected = float(binom2_ump_power(0.5, 0.5, 150, 150, epsilon=1.0, margin=-0.15, alternative="greater"))
    assert code == 0 and json.loads(out)[0]["power"] == expected


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_two_arm_sample_size(capsys, fmt):
    code, out, _ = call(capsys, "sample-size", "--theta1", 0.6, "--theta2", 0.4, "--epsilon", 1,
                        "--ratio", 2, "--format", fmt)
    n1, n2 = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, ratio=2.0)
    assert code == 0
    if fmt == "text":
        assert f"n1 = {n1}, n2 = {n2}" in out
    elif fmt == "json":
        record = json.loads(out)
        assert (record["n1"], record["n2"]) == (n1, n2)
    else:
        (row,) = csv.DictReader(io.StringIO(out))
        assert (int(row["n1"]), int(row["n2"])) == (n1, n2)


@pytest.mark.parametrize("args, match", [
    (["test", "--z1", 40, "--n1", 60, "--z2", 27], "missing --n2, --epsilon"),
    (["test", "--z1", 40, "--n1", 60, "--z2", 27, "--n2", 60, "--epsilon", 1, "--p0", 0.3], "--p0 is the null"),
    (["test", "--z", 12, "--n", 30, "--epsilon", 1, "--margin", 0.1], "--margin apply to two arms"),
    (["test", "--z", 12, "--n", 30, "--epsilon", 1, "--statistic", "score"], "--statistic apply to two arms"),
    (["ci", "--release", "a", "--release", "b", "--release", "c"], "given 3 times"),
    (["test", "--release", "a", "--release", "b", "--delta", 0.001], "must not be given with two release files"),
    (["power", "--theta", 0.3, "--n", 30, "--epsilon", 1], "required: --p0"),
    (["power", "--theta1", 0.5, "--theta2", 0.4, "--n1", 30, "--epsilon", 1], "missing --n2"),
    (["power", "--theta", 0.5, "--theta2", 0.4, "--n1", 30, "--n2", 30, "--epsilon", 1], "--theta describe"),
    (["power", "--theta1", 0.5, "--theta2", 0.4, "--n1", 30, "--n2", 30, "--epsilon", 1, "--method", "normal"],
     "no two-arm planning"),
    (["sample-size", "--theta1", 0.5, "--theta2", 0.4, "--p0", 0.2, "--epsilon", 1], "--p0 describes one arm"),
    (["sample-size", "--theta1", 0.5, "--p0", 0.2, "--epsilon", 1, "--margin", 0.1], "apply to two arms"),
    (["power", "--theta1", 0.5, "--theta2", 1.5, "--n1", 30, "--n2", 30, "--epsilon", 1],
     "--theta2 must lie in [0, 1]"),
])
def test_two_arm_usage_errors(capsys, args, match):
    code, _, err = call(capsys, *args)
    assert code == 2 and match in err


def test_two_arm_statistic_option(arms, capsys):
    # --statistic reaches the exact test, its interval and the planning functions unchanged
    a, b = arms
    code, out, _ = call(capsys, "test", *_typed(arms), "--statistic", "difference", "--format", "json")
    res = binom2_ump_test(a.value, 60, b.value, 60, epsilon=1.0, statistic="difference")
    record = json.loads(out)
    assert code == 0 and record["pvalue"] == res.pvalue and "difference of the released" in record["method"]
    code, out, _ = call(capsys, "power", "--theta1", 0.3, "--theta2", 0.1, "--n1", 30, "--n2", 30,
                        "--epsilon", 1, "--statistic", "difference", "--format", "json")
    expected = float(binom2_ump_power(0.3, 0.1, 30, 30, epsilon=1.0, statistic="difference"))
    assert code == 0 and json.loads(out)[0]["power"] == expected
    assert json.loads(out)[0]["statistic"] == "difference"


def test_odds_ratio_effect(capsys):
    # --effect odds-ratio reaches the exact test (score ordering), its interval and the power unchanged
    typed = ["--z1", 14.3, "--n1", 20, "--z2", 8.2, "--n2", 20, "--epsilon", 1, "--effect", "odds-ratio"]
    code, out, _ = call(capsys, "test", *typed, "--margin", 1.5)
    expected = binom2_ump_test(14.3, 20, 8.2, 20, epsilon=1.0, effect="odds-ratio", margin=1.5)
    assert code == 0 and out.strip("\n") == str(expected).strip("\n")
    assert "true odds ratio is not equal to 1.5" in out
    code, out, _ = call(capsys, "ci", *typed, "--format", "json")
    ci = expected.conf_int  # the interval the test prints is binom2_ump_ci's
    record = json.loads(out)
    assert code == 0 and (record["conf_low"], record["conf_high"]) == (ci.low, ci.high)
    assert "odds ratio" in record["method"]
    code, out, _ = call(capsys, "power", "--theta1", 0.7, "--theta2", 0.4, "--n1", 30, "--n2", 30, "--epsilon", 1,
                        "--effect", "odds-ratio")
    power = float(binom2_ump_power(0.7, 0.4, 30, 30, epsilon=1.0, effect="odds-ratio"))
    assert code == 0 and "H0: theta1 (1 - theta2) / (theta2 (1 - theta1)) = 1" in out and f"{power:.4f}" in out
    code, _, err = call(capsys, "test", *typed, "--statistic", "difference")
    assert code == 2 and "cannot order an odds-ratio null" in err
