"""The command with a Tulap count of sensitivity k > 1: release, test, ci, power, sample-size."""

import json
import math

import numpy as np
import pytest
from scipy import stats

from dpinfer import Tulap, binom_ump_ci, binom_ump_power, binom_ump_sample_size


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _pvalue_greater(z, n, p0, epsilon, k):
    """sum_x Binom(x; n, p0) F(x - z), F the Tulap(exp(-epsilon / k)) cdf (continuous; the
    release grid of 2**-40 moves it by < 1e-11)."""
    x = np.arange(n + 1)
    return float(np.sum(stats.binom.pmf(x, n, p0) * Tulap(b=math.exp(-epsilon / k)).cdf(x - z)))


def test_release_file_carries_k_to_test_and_ci(capsys, tmp_path):
    code, out, err = call(capsys, "release", "--x", 11, "--n", 30, "--epsilon", 1, "--sensitivity", 3,
                          "--seed", 4, "--format", "json")
    assert code == 0 and "--seed 4 makes the noise reproducible" in err
    record = json.loads(out)
    assert record["sensitivity"] == 3.0 and record["epsilon"] == 1.0
    path = tmp_path / "rel.json"
    path.write_text(out)
    code, out, _ = call(capsys, "test", "--release", path, "--p0", 0.2, "--alternative", "greater",
                        "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert result["pvalue"] == pytest.approx(_pvalue_greater(record["value"], 30, 0.2, 1.0, 3), rel=1e-9)
    assert "sensitivity 3" in result["method"]
    code, out, _ = call(capsys, "ci", "--release", path)
    assert code == 0 and "sensitivity 3" in out
    code, _, err = call(capsys, "test", "--release", path, "--sensitivity", 3)
    assert code == 2 and "--sensitivity must not be given with --release" in err


def test_typed_value_with_sensitivity(capsys):
    code, out, _ = call(capsys, "ci", "--z", 12.3, "--n", 30, "--epsilon", 1, "--sensitivity", 2,
                        "--format", "json")
    assert code == 0
    ci = json.loads(out)
    want = binom_ump_ci(12.3, 30, epsilon=1.0, sensitivity=2)
    assert (ci["conf_low"], ci["conf_high"]) == (want.low, want.high)
    code, _, err = call(capsys, "test", "--z", 0.3, "--n", 30, "--epsilon", 1, "--sensitivity", 2,
                        "--method", "normal")
    assert code == 2 and "--sensitivity applies to --method ump" in err


def test_power_and_sample_size_with_sensitivity(capsys):
    code, out, _ = call(capsys, "power", "--theta", 0.2, 0.45, "--n", 30, "--p0", 0.2, "--epsilon", 1,
                        "--sensitivity", 2, "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert rows[0]["power"] == pytest.approx(0.05, abs=1e-10) and rows[0]["sensitivity"] == 2
    assert rows[1]["power"] == binom_ump_power(0.45, 30, 0.2, epsilon=1.0, sensitivity=2)
    code, out, _ = call(capsys, "sample-size", "--theta1", 0.45, "--p0", 0.2, "--epsilon", 1,
                        "--sensitivity", 3)
    assert code == 0 and "sensitivity = 3" in out
    assert f"\n\nn = {binom_ump_sample_size(0.45, 0.2, epsilon=1.0, sensitivity=3)} (exact power" in out


def test_laplace_release_refuses_sensitivity(capsys):
    code, _, err = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 1, "--mechanism", "laplace",
                        "--sensitivity", 2)
    assert code == 2 and "--sensitivity applies to --mechanism tulap only" in err
