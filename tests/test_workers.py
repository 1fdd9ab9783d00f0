"""``workers=`` (issue 43): the same answer, bit for bit, on every executor.

Every function that takes ``workers=`` is run with ``workers=1`` (this process),
``workers=2`` (two local processes), a map-like callable and a Dask ``LocalCluster``
executor, and the four answers must be equal element by element.  The seeding contract
of :func:`dpinfer.run_cells` is checked against ``SeedSequence(seed, spawn_key=(i,))``
written here (numpy's documented spawn rule), and the harness's cells against it.
"""

import concurrent.futures as cf
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dpinfer import LaplaceReleaser, binom2_jimi_ci, binom2_jimi_test, binom_jimi_test, run_cells


def _serial_map(func, iterable):
    return list(map(func, iterable))


def _uniform_cell(cell, seed):
    """A cell of run_cells: ``cell`` uniforms from the cell's own stream."""
    return np.random.default_rng(seed).random(cell).tolist()


@pytest.fixture(scope="module")
def dask_executor():
    distributed = pytest.importorskip("distributed", reason="the Dask executor needs dask.distributed "
                                      "(pip install 'dpinfer[distributed]')")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    client = distributed.Client(cluster)
    yield client.get_executor()
    client.close()
    cluster.close()


def _executors(dask_executor):
    return {"1": 1, "2": 2, "callable": _serial_map, "dask": dask_executor}


@pytest.fixture(scope="module")
def releases():
    """130 released pairs (three blocks of 64, the last short), from the releasers."""
    gen = np.random.default_rng(43)
    rel = LaplaceReleaser(epsilon=1.0)
    x1, x2 = gen.binomial(60, 0.4, size=130), gen.binomial(60, 0.3, size=130)
    p1 = np.array([rel.proportion(int(x), 60, rng=gen).value for x in x1])
    p2 = np.array([rel.proportion(int(x), 60, rng=gen).value for x in x2])
    return p1, p2


def test_binom2_jimi_test_same_answer_on_every_executor(releases, dask_executor):
    p1, p2 = releases
    answers = {name: binom2_jimi_test(p1, 60, p2, 60, epsilon=1.0, n_sim=300, rng=5, workers=w)
               for name, w in _executors(dask_executor).items()}
    for name, value in answers.items():
        assert value.shape == (130,)
        assert np.array_equal(value, answers["1"]), name


def test_binom2_jimi_ci_same_answer_on_every_executor(releases, dask_executor):
    p1, p2 = releases
    answers = {name: binom2_jimi_ci(p1, 60, p2, 60, epsilon=1.0, n_sim=300, rng=5, workers=w)
               for name, w in _executors(dask_executor).items()}
    for name, value in answers.items():
        assert np.array_equal(value, answers["1"]), name


def test_binom2_jimi_executor_instance_and_all_cpus(releases):
    p1, p2 = releases
    one = binom2_jimi_test(p1[:70], 60, p2[:70], 60, epsilon=1.0, n_sim=200, rng=5, workers=1)
    with cf.ThreadPoolExecutor(2) as pool:
        assert np.array_equal(one, binom2_jimi_test(p1[:70], 60, p2[:70], 60, epsilon=1.0, n_sim=200, rng=5,
                                                    workers=pool))
    assert np.array_equal(one, binom2_jimi_test(p1[:70], 60, p2[:70], 60, epsilon=1.0, n_sim=200, rng=5,
                                                workers=-1))


def test_default_workers_is_the_serial_stream_and_agrees_in_law(releases):
    """workers=None keeps the earlier serial draws; the blocked draws estimate the same p-values.

    Both are Monte Carlo estimates of one p-value with n_sim = 2000 draws each: their
    difference has standard error at most sqrt(2 * 0.25 / 2000) * 2 = 0.032 (two-sided
    p-value, twice a share); every difference is within 4 SE.
    """
    p1, p2 = releases
    serial = binom2_jimi_test(p1[:20], 60, p2[:20], 60, epsilon=1.0, n_sim=2000, rng=9)
    again = binom2_jimi_test(p1[:20], 60, p2[:20], 60, epsilon=1.0, n_sim=2000, rng=9, workers=None)
    blocked = binom2_jimi_test(p1[:20], 60, p2[:20], 60, epsilon=1.0, n_sim=2000, rng=9, workers=1)
    assert np.array_equal(serial, again)
    se = 2.0 * math.sqrt(2 * 0.25 / 2000)
    assert np.max(np.abs(serial - blocked)) < 4 * se


def test_scalar_release_gives_an_htest_with_workers():
    rel = LaplaceReleaser(epsilon=1.0)
    r1, r2 = rel.proportion(30, 80, rng=1), rel.proportion(20, 80, rng=2)
    a = binom2_jimi_test(r1, pi_hat2=r2, n_sim=500, rng=3, workers=1)
    b = binom2_jimi_test(r1, pi_hat2=r2, n_sim=500, rng=3, workers=_serial_map)
    assert a.pvalue == b.pvalue and a.conf_int == b.conf_int
    # the confidence curve replays the same (blocked) draws, in this process
    assert b.pvalue_function(0.0) == b.pvalue
    one = binom_jimi_test(r1, p0=0.3, n_sim=500, rng=3, workers=_serial_map)
    assert one.pvalue_function(0.3) == one.pvalue


# --------------------------------------------------------------------------- run_cells
def test_run_cells_seed_contract_and_executors(dask_executor):
    cells = [3, 1, 4, 1, 5]
    expected = [np.random.default_rng(np.random.SeedSequence(11, spawn_key=(i,))).random(c).tolist()
                for i, c in enumerate(cells)]
    for name, w in {"none": None, **_executors(dask_executor)}.items():
        assert run_cells(_uniform_cell, cells, rng=11, workers=w) == expected, name
    assert run_cells(_uniform_cell, cells, rng=np.random.SeedSequence(11)) == expected


def test_run_cells_matches_the_harness():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    try:
        from validation.harness import run_cells as harness_run_cells
    finally:
        sys.path.pop(0)
    cells = [2, 3, 2]
    assert harness_run_cells(_uniform_cell, cells, seed=20181203) == run_cells(_uniform_cell, cells, rng=20181203)


def test_worker_exception_keeps_its_type():
    # divmod(cell, SeedSequence) raises TypeError inside the worker process
    with pytest.raises(TypeError, match="unsupported operand"):
        run_cells(divmod, [1, 2], rng=1, workers=2)
    with pytest.raises(TypeError, match="unsupported operand"):
        run_cells(divmod, [1, 2], rng=1, workers=_serial_map)


@pytest.mark.parametrize("bad, exc, shown", [
    (0, ValueError, "got 0"), (-2, ValueError, "got -2"), (True, TypeError, "got True"),
    ("2", TypeError, "got '2'"), (2.0, TypeError, "got 2.0"),
])
def test_bad_workers_named_with_rule_and_value(bad, exc, shown, releases):
    p1, p2 = releases
    with pytest.raises(exc, match=r"`workers` must be None, an int .*" + shown):
        run_cells(_uniform_cell, [1], rng=1, workers=bad)
    with pytest.raises(exc, match=r"`workers` must be None, an int .*" + shown):
        binom2_jimi_test(p1[:2], 60, p2[:2], 60, epsilon=1.0, n_sim=10, rng=1, workers=bad)


def test_run_cells_bad_func_and_rng():
    with pytest.raises(TypeError, match="`func` must be callable"):
        run_cells(3, [1], rng=1)
    with pytest.raises(TypeError, match="`rng` must be None, a non-negative integer seed or a SeedSequence"):
        run_cells(_uniform_cell, [1], rng=np.random.default_rng(1))
    with pytest.raises(TypeError, match="got -1"):
        run_cells(_uniform_cell, [1], rng=-1)


# --------------------------------------------------------------------------- Monte Carlo table tests
@pytest.fixture(scope="module")
def table_release():
    from dpinfer import ContingencyTableReleaser

    return ContingencyTableReleaser(epsilon=1.0).release([[20, 18, 9], [15, 19, 12]], rng=3)


@pytest.mark.parametrize("name", ["independence_jimi_test", "independence_mc_test"])
def test_table_tests_same_answer_on_every_executor(name, table_release, dask_executor):
    import dpinfer

    test = getattr(dpinfer, name)
    # 9000 draws: three tasks of 4096, 4096 and 808
    answers = {key: test(table_release, n_sim=9000, rng=2, workers=w).pvalue
               for key, w in _executors(dask_executor).items()}
    assert len(set(answers.values())) == 1, answers
    # the default (serial stream) estimates the same p-value: SE of each <= sqrt(0.25 / 9000)
    serial = test(table_release, n_sim=9000, rng=2).pvalue
    assert abs(serial - answers["1"]) < 4 * math.sqrt(2 * 0.25 / 9000)


# --------------------------------------------------------------------------- repro samples
@pytest.fixture(scope="module")
def mean_releases():
    from dpinfer import MeanReleaser

    gen = np.random.default_rng(5)
    releaser = MeanReleaser(1.0, lower=80.0, upper=180.0)
    return (releaser.release(gen.normal(125.0, 15.0, 300), rng=6),
            releaser.release(gen.normal(135.0, 15.0, 300), rng=7))


def test_mean_repro_test_same_answer_on_every_executor(mean_releases, dask_executor):
    from dpinfer import mean_repro_test

    # n = 300: tasks of 833 seeds, so 1200 seeds make two tasks
    answers = [mean_repro_test(mean_releases[0], mu0=120.0, sigma=15.0, n_sim=1200, rng=3, workers=w)
               for w in _executors(dask_executor).values()]
    for res in answers:
        assert (res.pvalue, res.conf_int, res.estimate) == (answers[0].pvalue, answers[0].conf_int,
                                                            answers[0].estimate)


def test_mean2_repro_test_same_answer_on_every_executor(mean_releases, dask_executor):
    from dpinfer import mean2_repro_test

    answers = [mean2_repro_test(*mean_releases, sigma=15.0, n_sim=1200, rng=3, workers=w)
               for w in _executors(dask_executor).values()]
    for res in answers:
        assert (res.pvalue, res.conf_int) == (answers[0].pvalue, answers[0].conf_int)
    with pytest.raises(ValueError, match="`workers` must be None, an int .*got 0"):
        mean2_repro_test(*mean_releases, sigma=15.0, rng=3, workers=0)


# --------------------------------------------------------------------------- logistic DP-JIMI
@pytest.mark.parametrize("model", ["main-effects", "saturated"])
def test_logistic_jimi_same_fit_on_every_executor(model, dask_executor):
    from dpinfer import ContingencyTableReleaser, logistic_jimi

    counts = [[60, 40], [35, 65], [55, 45], [30, 70]]
    rel = ContingencyTableReleaser(epsilon=1.0).release(counts, rng=5)
    design = {"arm": ["placebo", "drug"], "sex": ["F", "M"]}
    # 4500 draws: tasks of 2000, 2000 and 500
    fits = [logistic_jimi(rel, design=design, model=model, n_sim=4500, rng=1, draws=True, workers=w)
            for w in _executors(dask_executor).values()]
    for fit in fits:
        assert np.array_equal(fit.draws, fits[0].draws)


@pytest.mark.parametrize("name", ["binom_jimi_test", "binom_jimi_ci"])
def test_binom_jimi_one_sample_same_answer_on_every_executor(name, releases, dask_executor):
    import dpinfer

    func = getattr(dpinfer, name)
    p1, _ = releases
    kwargs = {"p0": 0.4} if name == "binom_jimi_test" else {}
    answers = [func(p1, 60, epsilon=1.0, n_sim=300, rng=5, workers=w, **kwargs)
               for w in _executors(dask_executor).values()]
    for value in answers:
        assert np.array_equal(value, answers[0])


# --------------------------------------------------------------------------- DP-JIMI means
def test_mean_jimi_tests_same_answer_on_every_executor(mean_releases, dask_executor):
    from dpinfer import mean2_jimi_test, mean_jimi_test

    # n = 300: tasks of 833 draws, so 1200 draws make two tasks
    one = [mean_jimi_test(mean_releases[0], mu0=120.0, sigma=15.0, n_sim=1200, rng=3, workers=w)
           for w in _executors(dask_executor).values()]
    two = [mean2_jimi_test(*mean_releases, sigma=15.0, n_sim=1200, rng=3, workers=w)
           for w in _executors(dask_executor).values()]
    for answers in (one, two):
        for res in answers:
            assert (res.pvalue, res.conf_int) == (answers[0].pvalue, answers[0].conf_int)


# --------------------------------------------------------------------------- the log-rank null
def test_logrank_test_same_answer_on_every_executor(dask_executor):
    from dpinfer import LifeTableReleaser, logrank_test

    gen = np.random.default_rng(8)
    group = np.repeat(["a", "b"], 120)
    time = np.where(group == "a", gen.exponential(4.0, 240), gen.exponential(6.0, 240))
    event = (gen.random(240) < 0.8).astype(int)
    release = LifeTableReleaser(1.0, (1.0, 2.0, 4.0, 8.0)).release(time, event, group, rng=9)
    # 4500 tables: tasks of 2000, 2000 and 500
    answers = [logrank_test(release, n_sim=4500, rng=2, workers=w) for w in _executors(dask_executor).values()]
    for res in answers:
        assert (res.pvalue, res.estimate, res.conf_int) == (answers[0].pvalue, answers[0].estimate,
                                                            answers[0].conf_int)


def test_the_dispatchers_pass_workers_to_the_method():
    """prop_test and mean_test give the method's own answer for the same ``workers``, and refuse it
    where the method draws nothing."""
    from dpinfer import (ContingencyTableReleaser, LaplaceReleaser, MeanReleaser, TulapReleaser,
                         independence_jimi_test, mean2_jimi_test, mean_repro_test, mean_test, prop_test)

    lap = LaplaceReleaser(1.0)
    a, b = lap.proportion(30, 60, rng=1), lap.proportion(20, 60, rng=2)
    assert prop_test(a, b, method="jimi", n_sim=300, rng=5, workers=_serial_map).pvalue == \
        binom2_jimi_test(a, pi_hat2=b, n_sim=300, rng=5, workers=1).pvalue
    assert prop_test(a, 0.4, method="jimi", n_sim=300, rng=5, workers=1).pvalue == \
        binom_jimi_test(a, p0=0.4, n_sim=300, rng=5, workers=_serial_map).pvalue
    table = ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3)
    assert prop_test(table, n_sim=400, rng=1, workers=1).pvalue == \
        independence_jimi_test(table, n_sim=400, rng=1, workers=_serial_map).pvalue
    tul = TulapReleaser(1.0)
    with pytest.raises(ValueError, match="`n_sim`, `rng` and `workers` apply to method='jimi' only"):
        prop_test(tul.release(30, 60, rng=1), tul.release(20, 60, rng=2), workers=1)
    with pytest.raises(ValueError, match="`workers`.* do(es)? not apply to several sites"):
        prop_test([tul.release(3, 10, rng=i) for i in range(3)], 0.3, workers=1)

    gen = np.random.default_rng(4)
    mr = MeanReleaser(1.0, 80.0, 180.0)
    x, y = mr.release(gen.normal(125, 15, 40), rng=5), mr.release(gen.normal(130, 15, 40), rng=6)
    assert mean_test(x, y, sigma=15.0, n_sim=200, rng=2, workers=1).pvalue == \
        mean2_jimi_test(x, y, sigma=15.0, n_sim=200, rng=2, workers=_serial_map).pvalue
    assert mean_test(x, mu0=120.0, method="repro", sigma=15.0, n_sim=199, rng=2, workers=1).pvalue == \
        mean_repro_test(x, 120.0, sigma=15.0, n_sim=199, rng=2, workers=_serial_map).pvalue
    with pytest.raises(ValueError, match="method='naive' draws nothing"):
        mean_test(x, mu0=120.0, method="naive", sigma=15.0, workers=1)
