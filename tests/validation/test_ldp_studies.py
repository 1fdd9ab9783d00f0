"""The local-DP validation studies run with --quick and their numbers make sense."""

import numpy as np
import pytest

from validation import ldp_coverage, ldp_gof_size, ldp_rr_accuracy, ldp_unary_rates
from validation.harness import read_csv


def _run(module, tmp_path, *extra):
    assert module.main(["--quick", "--out", str(tmp_path), "--no-progress", *extra]) == 0
    stem = f"{module.STUDY}_{'simulate' if '--mode' in extra else 'exact'}_quick"
    assert (tmp_path / f"{stem}.png").stat().st_size > 0
    return read_csv(tmp_path / f"{stem}.csv")


def test_rr_accuracy_exact(tmp_path):
    meta, rows = _run(ldp_rr_accuracy, tmp_path)
    assert meta["study"] == "ldp_rr_accuracy" and len(rows) == 3 * len(ldp_rr_accuracy.EPSILONS_QUICK)
    for r in rows:
        a0, a1 = 1 / (1 + np.exp(r["epsilon"])), 1 / (1 + np.exp(-r["epsilon"]))
        lam = a0 + (a1 - a0) * r["p"]
        assert r["se"] == pytest.approx(np.sqrt(lam * (1 - lam) / r["n"]) / (a1 - a0), rel=1e-12)
        assert r["se"] >= r["se_nonprivate"]
        assert r["example_low"] <= r["example_high"]
    for n in ldp_rr_accuracy.NS:
        widths = [r["mean_width"] for r in sorted(rows, key=lambda r: r["epsilon"]) if r["n"] == n]
        assert widths == sorted(widths, reverse=True)  # more privacy budget, narrower intervals


def test_rr_accuracy_simulate(tmp_path):
    _, rows = _run(ldp_rr_accuracy, tmp_path, "--mode", "simulate")
    for r in rows:  # the estimator is unbiased: |bias| within 4 Monte Carlo SE
        assert abs(r["bias"]) <= 4 * r["bias_mc_se"]


@pytest.mark.parametrize("mode", [(), ("--mode", "simulate")])
def test_unary_rates_slopes(tmp_path, mode):
    meta, rows = _run(ldp_unary_rates, tmp_path, *mode)
    for sweep, spec in ldp_unary_rates.SWEEPS.items():
        assert meta[f"ok_{sweep}"] == "true"
        assert abs(float(meta[f"slope_{sweep}"]) - spec["slope"]) <= float(meta[f"tolerance_{sweep}"])
    for r in rows:  # the exact formula, recomputed here
        h = np.exp(r["epsilon"] / 2)
        assert r["mse_exact"] == pytest.approx((r["d"] * h / (h - 1) ** 2 + 1 - 1 / r["d"]) / r["n"], rel=1e-12)


def test_coverage_quick(tmp_path):
    _, rows = _run(ldp_coverage, tmp_path)
    for r in rows:
        if r["mc_se"] is None:  # exact coverage of the RR intervals
            assert 0.93 <= r["coverage"] <= 0.97
            if r["method"] in ("rr_exact", "two_coin_exact"):
                assert r["coverage"] >= 0.95 - 1e-12
        elif "scheffe" in r["method"]:  # conservative by design
            assert r["coverage"] >= 0.95 - 4 * r["mc_se"]
        else:
            assert abs(r["coverage"] - 0.95) <= 4 * r["mc_se"]


def test_gof_size_quick(tmp_path):
    _, rows = _run(ldp_gof_size, tmp_path)
    assert {r["test"] for r in rows} == {"krr_gof", "unary_gof", "rr_two_sample", "rr_exact_binomial"}
    for r in rows:
        if r["mc_se"] is None:
            assert r["size"] <= 0.05 + 1e-12
        else:
            assert abs(r["size"] - 0.05) <= 4 * r["mc_se"]
