"""The validation studies in --quick mode: shapes, and the properties that must hold.

Each study's ``main(argv)`` is run into a temporary directory and its CSV is read back
with ``read_csv``.  Expected values are independent of the code under test: the
nominal level (DP-UMP and the randomised UMP test have size alpha by construction),
scipy sums written here, or a Monte Carlo estimate compared within 4 standard errors
(each budget is written next to its assertion).
"""

import json

import numpy as np
import pytest
from scipy import stats

import dpinfer
from validation import coverage, power, size, two_sided
from validation.harness import read_csv


def _run(module, tmp_path, *extra):
    assert module.main(["--quick", "--out", str(tmp_path), "--no-progress", *extra]) == 0
    mode = "simulate" if "simulate" in extra else "exact"
    meta, rows = read_csv(tmp_path / f"{module.STUDY}_{mode}_quick.csv")
    assert (tmp_path / f"{module.STUDY}_{mode}_quick.png").stat().st_size > 10_000
    assert not list(tmp_path.glob(".*.cells.jsonl"))  # the resume cache is removed when done
    return meta, rows


def _pick(rows, **where):
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


@pytest.fixture(scope="module")
def size_exact(tmp_path_factory):
    return _run(size, tmp_path_factory.mktemp("size"))


def test_size_exact_shape_and_metadata(size_exact):
    meta, rows = size_exact
    assert meta["study"] == "size" and meta["mode"] == "exact"
    for key in ("dpinfer_version", "numpy_version", "seed", "date", "n", "epsilon", "alpha"):
        assert meta[key]
    # 5 methods x 2 alternatives x 3 p0, plus DP-JIMI at a finite number of draws.
    assert len(rows) == 5 * 2 * 3 + 2 * 3
    assert {r["method"] for r in rows} == set(size.METHODS)
    assert all(r["theta"] == r["p0"] for r in rows)


def test_size_dp_ump_and_randomised_ump_are_exactly_alpha(size_exact):
    _, rows = size_exact
    for r in _pick(rows, method="dp_ump"):
        assert abs(r["size"] - 0.05) < 1e-9
    for r in _pick(rows, method="ump_nonprivate"):
        assert abs(r["size"] - 0.05) < 1e-12


def test_size_dp_ump_agrees_with_its_power_function(size_exact):
    _, rows = size_exact
    for r in _pick(rows, method="dp_ump"):
        expected = dpinfer.binom_ump_power(r["p0"], r["n"], r["p0"], epsilon=r["epsilon"],
                                           alpha=r["alpha"], alternative=r["alternative"])
        assert r["size"] == pytest.approx(expected, abs=1e-9)


def test_size_exact_binomial_is_conservative_and_matches_binomtest(size_exact):
    _, rows = size_exact
    for r in _pick(rows, method="exact_binomial"):
        n, p0 = r["n"], r["p0"]
        reject = [x for x in range(n + 1)
                  if stats.binomtest(x, n, p0, alternative=r["alternative"]).pvalue <= 0.05]
        expected = sum(stats.binom.pmf(x, n, p0) for x in reject)
        assert r["size"] == pytest.approx(expected, abs=1e-12)
        assert r["size"] <= 0.05


def test_size_normal_matches_its_exact_power_function(size_exact):
    # Two independent exact computations: our p-value threshold + release law, and
    # dpinfer's closed-form sum over x of Binom(x) times the Laplace tail.
    _, rows = size_exact
    for r in _pick(rows, method="normal"):
        expected = dpinfer.binom_normal_power(r["p0"], r["n"], r["p0"], epsilon=r["epsilon"],
                                              alpha=r["alpha"], alternative=r["alternative"])
        assert r["size"] == pytest.approx(expected, abs=1e-10)
    # The size drift of the approximation at p0 = 0.1 is visible (Vu & Slavkovic 2009).
    drift = [abs(r["size"] - 0.05) for r in _pick(rows, method="normal", p0=0.1)]
    assert max(drift) > 0.004


def test_size_symmetry_between_alternatives(size_exact):
    # theta <-> 1 - theta maps 'greater' at p0 to 'less' at 1 - p0 for every method.
    _, rows = size_exact
    for r in rows:
        mirror = _pick(rows, method=r["method"], alternative={"greater": "less",
                                                              "less": "greater"}[r["alternative"]],
                       p0=round(1 - r["p0"], 10), n_sim=r["n_sim"])
        assert len(mirror) == 1
        assert r["size"] == pytest.approx(mirror[0]["size"], abs=1e-9)


@pytest.mark.slow
def test_size_simulated_agrees_with_exact(size_exact, tmp_path):
    # Simulate mode with 4000 releases per cell; DP-JIMI with 200 draws per test.  The
    # exact-mode CSV for the same n_sim gives the exact rejection probability of that
    # finite-draw test, so every comparison is pure Monte Carlo: |sim - exact| must be
    # below 4 SE with SE = sqrt(p (1 - p) / 4000) <= 0.0036 at p ~ 0.05.
    _, exact_rows = _run(size, tmp_path / "exact", "--n-sim", "200")
    meta, sim_rows = _run(size, tmp_path / "sim", "--mode", "simulate", "--reps", "4000",
                          "--n-sim", "200")
    assert meta["reps"] == "4000" and meta["n_sim"] == "200"
    assert len(sim_rows) == 5 * 2 * 3
    for r in sim_rows:
        want = _pick(exact_rows, method=r["method"], alternative=r["alternative"], p0=r["p0"],
                     n_sim=200 if r["method"] == "dp_jimi" else None)
        assert len(want) == 1
        p = want[0]["size"]
        se = np.sqrt(p * (1 - p) / 4000)
        assert abs(r["size"] - p) < 4 * se, (r, p)
        assert r["mc_se"] == pytest.approx(np.sqrt(r["size"] * (1 - r["size"]) / 4000))


def test_power_exact_quick(tmp_path):
    meta, rows = _run(power, tmp_path)
    assert {r["panel"] for r in rows} == {"theta", "n", "epsilon"}
    # 3 points per panel x 5 methods + DP-JIMI at finite draws.
    assert len(rows) == 3 * 3 * 5 + 3 * 3
    for r in rows:
        assert 0.0 <= r["power"] <= 1.0
    for panel in ("theta", "n", "epsilon"):
        dp = sorted(_pick(rows, panel=panel, method="dp_ump"), key=lambda r: (r["theta"], r["n"],
                                                                             r["epsilon"]))
        ump = {(r["theta"], r["n"], r["epsilon"]): r["power"]
               for r in _pick(rows, panel=panel, method="ump_nonprivate")}
        for r in dp:
            # A DP test is a test: it cannot beat the non-private UMP test.
            assert r["power"] <= ump[(r["theta"], r["n"], r["epsilon"])] + 1e-12
            expected = dpinfer.binom_ump_power(r["theta"], r["n"], r["p0"], epsilon=r["epsilon"],
                                               alpha=r["alpha"], alternative="greater")
            assert r["power"] == pytest.approx(expected, abs=1e-9)
    at_null = _pick(rows, panel="theta", method="dp_ump", theta=0.2)
    assert at_null[0]["power"] == pytest.approx(0.05, abs=1e-9)
    # Power grows with theta, with n and with epsilon for DP-UMP.
    for panel, var in (("theta", "theta"), ("n", "n"), ("epsilon", "epsilon")):
        curve = [r["power"] for r in sorted(_pick(rows, panel=panel, method="dp_ump"),
                                            key=lambda r: r[var])]
        assert np.all(np.diff(curve) > 0)


@pytest.fixture(scope="module")
def coverage_exact(tmp_path_factory):
    return _run(coverage, tmp_path_factory.mktemp("coverage"))


def test_coverage_exact_quick(coverage_exact):
    meta, rows = coverage_exact
    assert len(rows) == 4 * (4 + 3)
    for r in _pick(rows, method="clopper_pearson"):
        assert r["coverage"] >= 0.95
    for r in _pick(rows, method="wald"):
        x = np.arange(r["n"] + 1)
        p = x / r["n"]
        half = stats.norm.ppf(0.975) * np.sqrt(p * (1 - p) / r["n"])
        inside = (p - half <= r["theta"]) & (r["theta"] <= p + half)
        assert r["coverage"] == pytest.approx(stats.binom.pmf(x, r["n"], r["theta"]) @ inside,
                                              abs=1e-12)
    for r in _pick(rows, method="dp_ump") + _pick(rows, method="dp_jimi"):
        assert r["neglected_mass"] < 1e-11
        assert 0.0 < r["mean_length"] < 1.0
    # DP-JIMI: approximate coverage, close to the level at n = 30 (Romanus et al. 2025).
    for r in _pick(rows, method="dp_jimi"):
        assert abs(r["coverage"] - 0.95) < 0.01


def test_coverage_dp_ump_two_sided_interval_is_exact(coverage_exact):
    # The interval inverts a test of exact size alpha, so its coverage is the level.
    _, rows = coverage_exact
    for r in _pick(rows, method="dp_ump"):
        assert abs(r["coverage"] - 0.95) < 1e-9


@pytest.mark.slow
def test_coverage_dp_ump_mean_length_against_direct_quadrature():
    # Independent route: integrate the interval's length over the exact law of Z
    # (density constant on unit cells; 16 Gauss-Legendre nodes per cell) and compare
    # with the Pratt-identity value the study uses.  Both rules meet kinks, so they
    # agree to about 1e-5, not to rounding.
    from validation import _intervals
    from validation import _methods as M

    law = M.CountLaw(30, 1.0)
    thetas = np.array([0.1, 0.5, 0.98])
    z, w, neglected = law.quadrature(thetas, nodes=16)
    ci = np.asarray(dpinfer.binom_ump_ci(z, 30, epsilon=1.0))
    direct = w @ (ci[:, 1] - ci[:, 0])
    pratt, _ = _intervals.ump_mean_length(law, thetas, 0.05)
    np.testing.assert_allclose(pratt, direct, atol=1e-5)
    assert np.all(neglected < 1e-12)


@pytest.mark.slow
def test_coverage_dp_jimi_mean_length_against_direct_quadrature():
    # The study interpolates the DP-JIMI endpoints (piecewise Chebyshev); here the
    # exact interval is evaluated at every quadrature node instead.
    from validation import _intervals
    from validation import _methods as M

    law = M.ProportionLaw(30, 1.0)
    thetas = np.array([0.1, 0.5])
    pi, w, _ = law.quadrature(thetas, nodes=8)
    ci = np.asarray(dpinfer.binom_jimi_ci(pi, 30, epsilon=1.0, n_sim=None))
    direct = w @ (ci[:, 1] - ci[:, 0])
    row = _intervals.interval_cell({"method": "dp_jimi", "n": 30, "epsilon": 1.0,
                           "confidence_level": 0.95, "thetas": list(thetas), "mode": "exact",
                           "reps": None, "n_sim": None}, None)
    np.testing.assert_allclose([r["mean_length"] for r in row], direct, atol=2e-6)


@pytest.mark.slow
def test_coverage_dp_jimi_exact_and_simulated_agree(coverage_exact, tmp_path):
    # 3000 releases per point, H = 1000 draws per interval, compared with the exact limit.
    # Coverage: budget 4 SE, SE = sqrt(c (1 - c) / 3000) ~ 0.004; the finite-draw noise in
    # the endpoints changes the coverage only at second order.
    # Mean length: budget 4 SE plus the finite-draw bias of the percentile interval.  The
    # bounds are order statistics X_(k), whose mean exceeds the quantile by about
    # Q''(p) p (1 - p) / (2 H) (delta method); for a near-normal fiducial law with sd
    # sigma, Q''(p) = sigma z / phi(z)^2 at p = 0.975, and both ends move outward, so
    # the length grows by about sigma z / phi(z)^2 * p (1 - p) / H (1.4e-3 at n = 30).
    _, exact_rows = coverage_exact
    _, sim_rows = _run(coverage, tmp_path / "sim", "--mode", "simulate", "--reps", "3000",
                       "--n-sim", "1000", "--methods", "dp_jimi")
    assert {r["method"] for r in sim_rows} == {"dp_jimi"} and len(sim_rows) == 4 + 3
    z = stats.norm.ppf(0.975)
    for r in sim_rows:
        want = _pick(exact_rows, method="dp_jimi", panel=r["panel"], n=r["n"], theta=r["theta"])
        assert len(want) == 1
        c = want[0]["coverage"]
        assert abs(r["coverage"] - c) < 4 * np.sqrt(c * (1 - c) / 3000)
        sigma = np.sqrt(0.25 / r["n"] + 2 / (r["epsilon"] * r["n"]) ** 2)
        bias = sigma * z / stats.norm.pdf(z) ** 2 * 0.975 * 0.025 / 1000
        assert abs(r["mean_length"] - want[0]["mean_length"]) < 4 * r["mc_se_length"] + bias


@pytest.fixture(scope="module")
def two_sided_exact(tmp_path_factory):
    return _run(two_sided, tmp_path_factory.mktemp("two_sided"))


def test_two_sided_exact_quick(two_sided_exact):
    meta, rows = two_sided_exact
    assert len(rows) == 4 * len(two_sided.THETAS_QUICK)
    for method in two_sided.METHODS:
        curve = {r["theta"]: r["power"] for r in _pick(rows, method=method)}
        assert curve[0.5] == pytest.approx(0.05, abs=1e-9)  # size alpha at p0
    umpu = {r["theta"]: r["power"] for r in _pick(rows, method="dp_ump_umpu")}
    assert min(umpu.values()) >= 0.05 - 1e-9  # unbiased: power >= alpha everywhere
    # At p0 = 1/2 the naive equal-tailed test is unbiased too (symmetry), so the UMPU
    # test, most powerful among unbiased tests, dominates it.
    for r in _pick(rows, method="dp_ump_naive"):
        assert umpu[r["theta"]] >= r["power"] - 1e-12
    # Power of the UMPU test from the test function (an independent sum over x).
    phi = dpinfer.binom_ump_phi(30, 0.5, epsilon=0.1, alpha=0.05, alternative="two-sided",
                               two_sided_method="umpu")
    for theta, pw in umpu.items():
        assert pw == pytest.approx(stats.binom.pmf(np.arange(31), 30, theta) @ phi, abs=1e-12)
    # The naive equal-tailed test agrees with dpinfer's own power for that rule.
    for r in _pick(rows, method="dp_ump_naive"):
        expected = dpinfer.binom_ump_power(r["theta"], 30, 0.5, epsilon=0.1, alpha=0.05,
                                           alternative="two-sided",
                                           two_sided_method="equal-tailed")
        assert r["power"] == pytest.approx(expected, abs=1e-9)
    for r in _pick(rows, method="dp_ump_unbiased"):
        expected = dpinfer.binom_ump_power(r["theta"], 30, 0.5, epsilon=0.1, alpha=0.05,
                                           alternative="two-sided",
                                           two_sided_method="asymptotically-unbiased")
        assert r["power"] == pytest.approx(expected, abs=1e-9)


def test_two_sided_simulated_within_monte_carlo_error(two_sided_exact, tmp_path):
    # 2000 releases per theta: |sim - exact| < 4 SE, SE = sqrt(p (1 - p) / 2000) (>= 0.0016
    # unless p is 0 or 1, where the simulation must match exactly).
    _, exact_rows = two_sided_exact
    _, sim_rows = _run(two_sided, tmp_path, "--mode", "simulate", "--reps", "2000")
    for r in sim_rows:
        p = _pick(exact_rows, method=r["method"], theta=r["theta"])[0]["power"]
        assert abs(r["power"] - p) <= 4 * np.sqrt(p * (1 - p) / 2000) + 1e-12


def _data_lines(path):
    return [line for line in path.read_text().splitlines() if not line.startswith("# ")]


SMALL_SIM = ["--mode", "simulate", "--reps", "400", "--n-sim", "50"]


# Under heavy load distributed may warn that creating its scratch folder was slow.
@pytest.mark.filterwarnings("ignore:Creating scratch directories:UserWarning")
def test_dask_sweep_gives_byte_identical_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    _run(power, tmp_path / "local", *SMALL_SIM)
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=":0") as cluster:
        meta, _ = _run(power, tmp_path / "dask", *SMALL_SIM, "--executor", "dask",
                       "--scheduler", cluster.scheduler_address)
    assert meta["executor"] == "dask"
    local = _data_lines(tmp_path / "local" / "power_simulate_quick.csv")
    remote = _data_lines(tmp_path / "dask" / "power_simulate_quick.csv")
    assert len(local) == 1 + 3 * 3 * 5
    assert remote == local


def test_interrupted_sweep_resumes_from_written_cells(tmp_path):
    from validation import _methods, harness

    fresh_dir, resumed_dir = tmp_path / "fresh", tmp_path / "resumed"
    _run(size, fresh_dir, *SMALL_SIM)
    args = harness.resolve_common(size.build_parser().parse_args(
        ["--quick", *SMALL_SIM, "--out", str(resumed_dir)]))
    cells = size.build_cells(args)
    cache = resumed_dir / ".size_simulate_quick.cells.jsonl"
    # An "interrupted" run: the first 7 cells finished and were written to the cache.
    harness.run_cells(_methods.one_sided_cell, cells[:7], seed=args.seed, cache=cache)
    assert len(cache.read_text().splitlines()) == 7
    # Mark cell 0's cached result: if the resumed run reuses the cache, the mark shows.
    lines = cache.read_text().splitlines()
    first = json.loads(lines[0])
    assert first["index"] == 0
    first["result"][0]["size"] = 0.123456
    cache.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    _run(size, resumed_dir, *SMALL_SIM)
    fresh = _data_lines(fresh_dir / "size_simulate_quick.csv")
    resumed = _data_lines(resumed_dir / "size_simulate_quick.csv")
    assert ",0.123456," in resumed[1]
    assert resumed[2:] == fresh[2:] and resumed[0] == fresh[0]
