"""``dpinfer mean-release`` and ``dpinfer mean-test``: round trip through a release file, and errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpinfer import MeanReleaser, mean_test


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def column(tmp_path):
    x = np.random.default_rng(1).normal(130.0, 15.0, 80).round(1)
    path = tmp_path / "sbp.csv"
    path.write_text("id,sbp\n" + "".join(f"{i},{v}\n" for i, v in enumerate(x)))
    return path, x


def test_release_then_test_matches_python(capsys, column, tmp_path):
    path, x = column
    code, out, err = call(capsys, "mean-release", "--csv", path, "--column", "sbp", "--lower", 80, "--upper", 180,
                          "--epsilon", 1, "--spread", "--seed", 3, "--format", "json")
    assert code == 0 and "--seed 3 makes the noise reproducible" in err
    record = json.loads(out)
    assert record["kind"] == "clipped_sum" and record["bounds"] == [80.0, 180.0] and record["n"] == 80
    expected = MeanReleaser(1.0, 80.0, 180.0, spread=True).release(x, rng=3)
    assert record["value"] == expected.value.tolist()
    file = tmp_path / "rel.json"
    file.write_text(out)
    code, out, _ = call(capsys, "mean-test", "--release", file, "--mu0", 125, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == mean_test(expected, mu0=125.0).pvalue
    code, out, _ = call(capsys, "mean-test", "--release", file, "--release", file, "--method", "naive")
    assert code == 0 and "Naive two-sample z test of clipped means" in out


def test_a_bad_cell_names_its_row_never_its_value(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("sbp\n120.5\n131.25\nNA\n")
    code, _, err = call(capsys, "mean-release", "--csv", path, "--column", "sbp", "--lower", 80, "--upper", 180,
                        "--epsilon", 1)
    assert code == 2 and "data row 3 does not" in err and "131.25" not in err


def test_mean_test_usage_errors_and_method_repro(capsys, column, tmp_path):
    path, x = column
    code, out, _ = call(capsys, "mean-release", "--csv", path, "--column", "sbp", "--lower", 80, "--upper", 180,
                        "--epsilon", 1, "--seed", 1, "--format", "json")
    file = tmp_path / "rel.json"
    file.write_text(out)
    code, _, err = call(capsys, "mean-test", "--release", file, "--sigma", 1, 2)
    assert code == 2 and "--sigma takes one value per group; got 2 for 1" in err
    code, out, _ = call(capsys, "mean-test", "--release", file, "--sigma", 15, "--mu0", 130)
    assert code == 0 and "sigma known" in " ".join(out.split())
    code, out, _ = call(capsys, "mean-test", "--release", file, "--method", "repro", "--sigma", 15, "--mu0", 125,
                        "--format", "json")
    expected = mean_test(MeanReleaser(1.0, 80.0, 180.0).release(x, rng=1), mu0=125.0, sigma=15.0, method="repro")
    assert code == 0 and json.loads(out)["pvalue"] == expected.pvalue
    code, _, err = call(capsys, "mean-test", "--release", file, "--method", "repro")
    assert code == 2 and "`sigma` is needed for the repro-samples method" in err



def test_mean_test_repro_two_groups(capsys, column, tmp_path):
    path, x = column
    files = []
    for seed in (1, 2):
        code, out, _ = call(capsys, "mean-release", "--csv", path, "--column", "sbp", "--lower", 80, "--upper", 180,
                            "--epsilon", 1, "--seed", seed, "--format", "json")
        files.append(tmp_path / f"rel{seed}.json")
        files[-1].write_text(out)
    code, out, _ = call(capsys, "mean-test", "--release", files[0], "--release", files[1], "--method", "repro",
                        "--sigma", 15, "--n-sim", 39, "--format", "json")
    releaser = MeanReleaser(1.0, 80.0, 180.0)
    expected = mean_test(releaser.release(x, rng=1), releaser.release(x, rng=2), sigma=15.0, method="repro",
                         n_sim=39)
    assert code == 0 and json.loads(out)["pvalue"] == expected.pvalue
    assert "Repro-samples test of two clipped means" in json.loads(out)["method"]
    code, _, err = call(capsys, "mean-test", "--release", files[0], "--release", files[1], "--method", "repro")
    assert code == 2 and "`sigma` is needed for the two-group repro-samples test" in err


def test_mean_power_door_matches_python(capsys):
    from dpinfer import mean_power, mean_sample_size

    common = ["--mu1", 128, "--sigma", 15, "--lower", 80, "--upper", 180, "--epsilon", 1]
    code, out, _ = call(capsys, "mean-power", *common, "--mu0", 120, "--n", 100, "--format", "json")
    assert code == 0
    assert json.loads(out)["power"] == float(mean_power(128.0, 100, mu0=120.0, sigma=15.0, lower=80.0, upper=180.0,
                                                        epsilon=1.0))
    code, out, _ = call(capsys, "mean-power", *common, "--mu2", 120, "--power", 0.8, "--ratio", 2)
    expected = mean_sample_size(128.0, mu2=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0, ratio=2.0)
    assert code == 0 and str(expected) in out and f"n1 = {expected[0]}" in out
    # DP-JIMI's plan: exact for one group (the same number), simulated and seeded for two
    code, out, _ = call(capsys, "mean-power", *common, "--mu0", 120, "--n", 60, "--method", "jimi", "--format", "json")
    assert code == 0 and json.loads(out)["power"] == float(
        mean_power(128.0, 60, mu0=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0, method="jimi"))
    code, out, _ = call(capsys, "mean-power", *common, "--mu2", 120, "--n", 30, "--method", "jimi", "--n-sim", 50,
                        "--seed", 4, "--format", "json")
    row = json.loads(out)
    assert code == 0 and row["n_sim"] == 50 and row["power"] == float(
        mean_power(128.0, 30, mu2=120.0, sigma=15.0, lower=80.0, upper=180.0, epsilon=1.0, method="jimi", n_sim=50,
                   rng=4))


def test_mean_power_door_needs_n_or_power(capsys):
    common = ["--mu1", 1, "--sigma", 1, "--lower", -3, "--upper", 3, "--epsilon", 1]
    code, _, err = call(capsys, "mean-power", *common)
    assert code == 2 and "give --n (for the power) or --power (for the sample size)" in err
    code, _, err = call(capsys, "mean-power", *common, "--n", 10, "--power", 0.8)
    assert code == 2 and "not both nor neither" in err


def test_workers_door_gives_pythons_answer(capsys, column, tmp_path):
    from dpinfer import binom_jimi_test

    path, x = column
    code, out, _ = call(capsys, "mean-release", "--csv", path, "--column", "sbp", "--lower", 80, "--upper", 180,
                        "--epsilon", 1, "--spread", "--seed", 3, "--format", "json")
    file = tmp_path / "rel.json"
    file.write_text(out)
    code, out, _ = call(capsys, "mean-test", "--release", file, "--mu0", 125, "--n-sim", 300, "--seed", 4,
                        "--workers", 1, "--format", "json")
    rel = MeanReleaser(1.0, 80.0, 180.0, spread=True).release(x, rng=3)
    assert code == 0 and json.loads(out)["pvalue"] == mean_test(rel, mu0=125.0, n_sim=300, rng=4, workers=1).pvalue
    code, out, _ = call(capsys, "test", "--z", 0.4123, "--n", 30, "--epsilon", 1, "--method", "jimi", "--n-sim", 300,
                        "--seed", 5, "--workers", 1, "--format", "json")
    assert code == 0 and json.loads(out)["pvalue"] == binom_jimi_test(0.4123, 30, epsilon=1.0, p0=0.5, n_sim=300,
                                                                       rng=5, workers=1).pvalue
    code, _, err = call(capsys, "test", "--z", 0.4123, "--n", 30, "--epsilon", 1, "--method", "jimi", "--workers", 1)
    assert code == 2 and "--seed and --workers need --n-sim" in err
