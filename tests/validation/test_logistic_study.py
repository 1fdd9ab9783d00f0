"""The logistic-regression coverage study runs with --quick and its numbers are sane."""

import numpy as np
from scipy import special

from validation import logistic_coverage
from validation.harness import read_csv


def test_logistic_study_quick(tmp_path):
    assert logistic_coverage.main(["--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "logistic_coverage_simulate_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "logistic_coverage_simulate_quick.csv")
    assert len(rows) == 2 * 3  # (DP-JIMI, Wald) x 3 coefficients at "2 binary", n = 400, epsilon = 1
    assert {r["term"] for r in rows} == {"(Intercept)", "a1", "b1"}
    for r in rows:
        # 200 data sets: coverage within 4 SE (sqrt(.95 .05 / 200) = 0.0154) of 0.95.
        assert r["reps"] == 200 and abs(r["coverage"] - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 200)
        assert abs(r["mc_se"] - np.sqrt(r["coverage"] * (1 - r["coverage"]) / 200)) < 1e-12
    by = {(r["method"], r["term"]): r for r in rows}
    for term in ("(Intercept)", "a1", "b1"):  # the private interval is the longer one
        assert by[("dp_jimi", term)]["mean_length"] > by[("wald_nonprivate", term)]["mean_length"]


def test_wald_helper_is_the_textbook_interval():
    # One binary predictor: the MLE is closed form (logit of each cell's proportion) and the
    # SEs are sqrt(1/x + 1/(n - x)) (Agresti 2013, sec. 3.1.3): the helper must reproduce them.
    _, _, x, _ = logistic_coverage.design_of("1 binary")
    counts = np.array([[30, 20], [12, 38]])
    lo, hi = logistic_coverage.wald_interval(x, counts)
    b0 = special.logit(20 / 50)
    b1 = special.logit(38 / 50) - b0
    se0 = np.sqrt(1 / 30 + 1 / 20)
    se1 = np.sqrt(1 / 30 + 1 / 20 + 1 / 12 + 1 / 38)
    np.testing.assert_allclose((lo + hi) / 2, [b0, b1], rtol=1e-9)
    np.testing.assert_allclose((hi - lo) / 2, 1.959963984540054 * np.array([se0, se1]), rtol=1e-9)
    assert logistic_coverage.wald_interval(x, np.array([[30, 0], [12, 38]])) is None  # separation
