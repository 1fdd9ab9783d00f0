"""The means study's two-group part (size and power) runs with --quick and its numbers are what it says."""

import math

import pytest
from scipy import stats
from statsmodels.stats.power import TTestIndPower

from validation import _means_two_group as two_group
from validation import harness
from validation.harness import read_csv


def _quick_args(tmp_path):
    parser = harness.study_parser("two-group part", modes=("simulate",), n_sim_help="draws", reps_help="reps")
    return harness.parse_study_args(parser, ["--quick", "--out", str(tmp_path), "--no-progress"],
                                    reps=1000, reps_quick=60, reps_default=100)


def test_two_group_quick(tmp_path):
    assert two_group.run(_quick_args(tmp_path), ["--quick"]) == 0
    assert (tmp_path / "means_two_group_simulate_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "means_two_group_simulate_quick.csv")
    assert meta["n_sim"] == "39" and float(meta["draws_level"]) == 0.05
    # normal truth: size (2 methods) and 2 differences (3 methods); log-normal: size; clip 0 and 0.2
    assert len(rows) == 2 * (2 + 2 * 3) + 2 * 2
    for r in rows:
        if r["computed"] == "simulated":
            assert r["reps"] == 60
            assert abs(r["mc_se"] - math.sqrt(r["rejection_rate"] * (1 - r["rejection_rate"]) / 60)) < 1e-12
        if r["kind"] == "size":
            assert math.isclose(r["z_size"], (r["rejection_rate"] - 0.05) / math.sqrt(0.05 * 0.95 / 60))
        if r["truth"] == "normal" and r["method"] == "dp_jimi" and r["kind"] == "size":
            # under the model: within 4 SE (sqrt(.05 .95 / 60) = 0.028) of 0.05
            assert abs(r["rejection_rate"] - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 60)
    by = {(r["truth"], r["clip"], r["effect"], r["method"]): r for r in rows}
    # the treated group shifted up by half a standard deviation is clipped more than the control
    r = by[("normal", 0.2, 0.5, "dp_jimi")]
    assert r["clipped_share_treated"] > r["clipped_share_control"] + 0.1
    # with 20% clipped the naive difference shrinks towards 0 and loses power (SEs about 0.06 each)
    assert by[("normal", 0.2, 0.5, "dp_jimi")]["rejection_rate"] > by[("normal", 0.2, 0.5, "naive")]["rejection_rate"]


@pytest.mark.parametrize("d, n", [(0.25, 30), (0.5, 100), (0.25, 500)])
def test_t_test_power_against_statsmodels(d, n):
    assert math.isclose(two_group.t_test_power(d, n), TTestIndPower().power(d, n, 0.05), rel_tol=1e-9)


@pytest.mark.parametrize("n_sim", [39, 79, 199, 200, 399, 1000])
def test_draws_level_is_the_beta_binomial_tail(n_sim):
    # an exact p-value is uniform; the count on one side is then BetaBinomial(H, 1, 1)
    m = max(k for k in range(n_sim + 1) if 2 * k / n_sim <= 0.05)
    assert math.isclose(two_group.draws_level(n_sim), 2 * stats.betabinom(n_sim, 1, 1).cdf(m), rel_tol=1e-12)


class _Stop(Exception):
    pass


@pytest.mark.parametrize("argv, reps, n_sim", [
    ([], 50, 79), (["--full"], 1000, 399), (["--reps", "7", "--n-sim", "9"], 7, 9), (["--quick"], 60, 39)])
def test_default_pairs_and_draws(argv, reps, n_sim, monkeypatch, tmp_path):
    seen = []

    def capture(func, cells, **kwargs):
        seen.extend(cells)
        raise _Stop

    monkeypatch.setattr(harness, "run_cells", capture)
    parser = harness.study_parser("two-group part", modes=("simulate",), n_sim_help="draws", reps_help="reps")
    full = [*argv, "--out", str(tmp_path), "--no-progress"]
    args = harness.parse_study_args(parser, full, reps=1000, reps_quick=60, reps_default=100)
    args.n_sim = args.n_sim or 200  # as validation.means fills it
    with pytest.raises(_Stop):
        two_group.run(args, full)
    assert {c["reps"] for c in seen} == {reps} and {c["n_sim"] for c in seen} == {n_sim}
