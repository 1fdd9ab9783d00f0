"""``workers=`` at every door: ``prop_test``, ``mean_test`` and the command's ``--workers``.

The dispatchers compute nothing: with ``workers`` given, their answer is the answer of the
method's own function called with the same ``workers`` (the comparator here), and
``workers=None`` keeps the serial stream (the same answer as leaving it out).  Only
in-process workers (``1``, a map-like callable) are used, so the file stays fast.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpinfer import (ContingencyTableReleaser, LaplaceReleaser, LifeTableReleaser, MeanReleaser, PairedTableReleaser,
                     TulapReleaser, binom2_jimi_test, binom_jimi_test, independence_jimi_test, independence_mc_test,
                     logrank_test, mean2_jimi_test, mean_jimi_test, mean_repro_test, mean_test, prop_test)


def _serial_map(func, iterable):
    return list(map(func, iterable))


def _same(a, b):
    assert a.pvalue == b.pvalue and a.estimate == b.estimate and a.conf_int == b.conf_int


@pytest.fixture(scope="module")
def laplace_pair():
    rel = LaplaceReleaser(epsilon=1.0)
    return rel.proportion(30, 60, rng=1), rel.proportion(20, 60, rng=2)


@pytest.fixture(scope="module")
def table():
    return ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3)


@pytest.fixture(scope="module")
def means():
    gen = np.random.default_rng(5)
    releaser = MeanReleaser(1.0, 80.0, 180.0, spread=True)
    return (releaser.release(gen.normal(125.0, 15.0, 150), rng=6),
            releaser.release(gen.normal(135.0, 15.0, 150), rng=7))


@pytest.mark.parametrize("workers", [1, _serial_map])
def test_prop_test_passes_workers_to_the_simulating_methods(laplace_pair, table, workers):
    one = laplace_pair[0]
    _same(prop_test(one, 0.3, method="jimi", n_sim=400, rng=1, workers=workers),
          binom_jimi_test(one, p0=0.3, n_sim=400, rng=1, workers=workers))
    _same(prop_test(*laplace_pair, method="jimi", n_sim=1000, rng=3, workers=workers),
          binom2_jimi_test(*laplace_pair, n_sim=1000, rng=3, workers=workers))
    _same(prop_test(table, n_sim=1000, rng=1, workers=workers),
          independence_jimi_test(table, n_sim=1000, rng=1, workers=workers))
    _same(prop_test(table, method="mc", n_sim=1000, rng=1, workers=workers),
          independence_mc_test(table, n_sim=1000, rng=1, workers=workers))


def test_prop_test_workers_none_keeps_the_serial_stream(laplace_pair, table):
    one = laplace_pair[0]
    _same(prop_test(one, 0.3, method="jimi", n_sim=400, rng=1, workers=None),
          binom_jimi_test(one, p0=0.3, n_sim=400, rng=1))
    _same(prop_test(*laplace_pair, method="jimi", n_sim=1000, rng=3, workers=None),
          binom2_jimi_test(*laplace_pair, n_sim=1000, rng=3))
    _same(prop_test(table, n_sim=1000, rng=1, workers=None), independence_jimi_test(table, n_sim=1000, rng=1))


def test_prop_test_refuses_workers_where_nothing_is_drawn(laplace_pair):
    tulap = TulapReleaser(epsilon=1.0)
    arm1, arm2 = tulap.release(41, 60, rng=1), tulap.release(27, 60, rng=2)
    with pytest.raises(ValueError, match=r"`workers` apply to method='jimi' only \(method='ump' is exact and draws "
                                         r"nothing\); got n_sim=None, rng=None, workers=2"):
        prop_test(arm1, 0.5, workers=2)
    with pytest.raises(ValueError, match=r"method='normal' is a closed-form approximation and draws nothing\); "
                                         r".*workers=1"):
        prop_test(laplace_pair[0], 0.3, method="normal", workers=1)
    with pytest.raises(ValueError, match=r"`workers` apply to method='jimi' only \(method='ump' draws nothing\).*"
                                         r"workers=2"):
        prop_test(arm1, arm2, workers=2)
    with pytest.raises(ValueError, match=r"`workers` does not apply to several sites or strata"):
        prop_test([arm1, arm2, tulap.release(30, 60, rng=3)], workers=2)
    with pytest.raises(ValueError, match=r"tested by mcnemar_test, which takes .* only; got `workers`"):
        prop_test(PairedTableReleaser(epsilon=1.0).release([[20, 5], [9, 16]], rng=1), workers=2)
    with pytest.raises(ValueError, match=r"`workers` must be None, an int"):
        prop_test(laplace_pair[0], 0.3, method="jimi", n_sim=100, rng=1, workers=0)


@pytest.mark.parametrize("workers", [1, _serial_map])
def test_mean_test_passes_workers_to_jimi_and_repro(means, workers):
    x, y = means
    _same(mean_test(x, mu0=125.0, n_sim=300, rng=1, workers=workers),
          mean_jimi_test(x, 125.0, n_sim=300, rng=1, workers=workers))
    _same(mean_test(x, y, n_sim=300, rng=1, workers=workers), mean2_jimi_test(x, y, n_sim=300, rng=1, workers=workers))
    _same(mean_test(x, mu0=125.0, method="repro", n_sim=99, rng=1, workers=workers),
          mean_repro_test(x, 125.0, n_sim=99, rng=1, workers=workers))


def test_mean_test_workers_none_and_naive_refusal(means):
    x, y = means
    _same(mean_test(x, y, n_sim=300, rng=1, workers=None), mean2_jimi_test(x, y, n_sim=300, rng=1))
    with pytest.raises(ValueError, match=r"`workers` applies to the methods that draw .*method='naive' draws "
                                         r"nothing; got workers=1"):
        mean_test(x, method="naive", workers=1)


# ---------------------------------------------------------------- the command


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _file(tmp_path, name, release):
    path = tmp_path / name
    path.write_text(json.dumps(release.to_dict()))
    return path


def test_command_workers_matches_python(capsys, tmp_path, laplace_pair, table, means):
    one = _file(tmp_path, "one.json", laplace_pair[0])
    two = _file(tmp_path, "two.json", laplace_pair[1])
    code, out, _ = call(capsys, "test", "--release", one, "--p0", 0.3, "--method", "jimi", "--n-sim", 400,
                        "--seed", 1, "--workers", 1, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == binom_jimi_test(laplace_pair[0], p0=0.3, n_sim=400, rng=1, workers=1).pvalue
    code, out, _ = call(capsys, "test", "--release", one, "--release", two, "--method", "jimi", "--n-sim", 1000,
                        "--seed", 3, "--workers", 1, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == binom2_jimi_test(*laplace_pair, n_sim=1000, rng=3, workers=1).pvalue
    code, out, _ = call(capsys, "test", "--release", _file(tmp_path, "t.json", table), "--n-sim", 1000, "--seed", 1,
                        "--workers", 1, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == independence_jimi_test(table, n_sim=1000, rng=1, workers=1).pvalue
    x, y = means
    code, out, _ = call(capsys, "mean-test", "--release", _file(tmp_path, "x.json", x), "--release",
                        _file(tmp_path, "y.json", y), "--n-sim", 300, "--seed", 1, "--workers", 1, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == mean2_jimi_test(x, y, n_sim=300, rng=1, workers=1).pvalue


def test_command_survival_workers_matches_python(capsys, tmp_path):
    gen = np.random.default_rng(5)
    time, event = np.round(gen.exponential(8.0, 120), 2), (gen.random(120) < 0.8).astype(int)
    release = LifeTableReleaser(1.0, (3, 6, 9, 12)).release(time, event, np.repeat(["a", "b"], 60), rng=3)
    code, out, _ = call(capsys, "survival-test", "--release", _file(tmp_path, "lt.json", release), "--n-sim", 300,
                        "--workers", 1, "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == logrank_test(release, n_sim=300, workers=1).pvalue


def test_command_workers_usage_errors(capsys, tmp_path, laplace_pair):
    one = _file(tmp_path, "one.json", laplace_pair[0])
    code, _, err = call(capsys, "test", "--release", one, "--method", "normal", "--workers", 2)
    assert code == 2 and "--n-sim, --seed and --workers apply to --method jimi only" in err
    code, _, err = call(capsys, "test", "--release", one, "--method", "jimi", "--workers", 2)
    assert code == 2 and "--seed and --workers need --n-sim" in err
    code, _, err = call(capsys, "test", "--release", one, "--method", "jimi", "--n-sim", 10, "--workers", 0)
    assert code == 2 and "`workers` must be None, an int (1 = this process" in err and "got 0." in err
    code, _, err = call(capsys, "test", "--release", one, "--method", "jimi", "--n-sim", 10, "--workers", "two")
    assert code == 2 and "argument --workers: invalid int value: 'two'" in err
