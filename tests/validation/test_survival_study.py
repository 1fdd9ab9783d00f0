"""The survival study runs with --quick; its truths and censoring are what its docstring says."""

import math

import numpy as np

from validation import survival
from validation.harness import read_csv


def test_survival_study_quick(tmp_path):
    assert survival.main(["--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "survival_simulate_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "survival_simulate_quick.csv")
    methods = {(r["question"], r["method"]) for r in rows}
    assert {("size", m) for m in survival.TESTS + survival.INTERVAL_METHODS} <= methods
    assert {("power", m) for m in survival.TESTS} <= methods
    for r in rows:
        assert 0.0 <= float(r["value_min"]) <= float(r["value"]) <= 1.0
        assert int(r["reps"]) == 40 and int(r["n_sim"]) == survival.N_SIM


def test_truths_and_censoring_rates():
    # both truths have S(tau) = exp(-tau) in the control arm
    assert math.isclose(survival.survival("weibull", survival.TAU), survival.survival("exponential", survival.TAU),
                        rel_tol=1e-14)
    gen = np.random.default_rng(11)
    reps = 200_000
    for truth in survival.TRUTHS:
        t = survival.draw_times(gen, truth, reps)
        # the event times follow the stated law: share beyond tau within 4 SE of S(tau)
        s = float(survival.survival(truth, survival.TAU))
        assert abs(np.mean(t > survival.TAU) - s) < 4 * math.sqrt(s * (1 - s) / reps)
        for cens in (0.2, 0.4):
            mu = survival.censoring_rate(truth, cens)
            c = gen.exponential(1.0 / mu, reps)
            assert abs(np.mean(c < t) - cens) < 4 * math.sqrt(cens * (1 - cens) / reps)
    # the exponential truth has the closed form mu = cens / (1 - cens)
    assert math.isclose(survival.censoring_rate("exponential", 0.2), 0.25, rel_tol=1e-8)
