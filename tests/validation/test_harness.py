"""Tests of the validation harness: seeded cells, executors, resume cache, study arguments."""

import concurrent.futures as cf

import numpy as np
import pytest

from validation import harness
from validation.harness import run_cells, study_parser


def _draw(cell, seed_sequence):
    """A cell function: a few uniforms from the cell's own stream, plus the cell."""
    rng = np.random.default_rng(seed_sequence)
    return {"k": cell["k"], "u": rng.random(3)}


def _fail_on_three(cell, seed_sequence):
    if cell["k"] == 3 and cell.get("fail"):
        raise RuntimeError("cell 3 interrupted")
    return _draw(cell, seed_sequence)


CELLS = [{"k": k} for k in range(6)]


def test_cell_streams_are_the_spawned_children():
    # The independent definition: the i-th child of SeedSequence(seed).spawn(k).
    children = np.random.SeedSequence(123).spawn(len(CELLS))
    out = run_cells(_draw, CELLS, seed=123)
    for i, (cell, child) in enumerate(zip(CELLS, children)):
        expected = np.random.default_rng(child).random(3).tolist()
        assert out[i] == {"k": cell["k"], "u": expected}


def test_results_do_not_depend_on_executor_or_worker_count():
    local = run_cells(_draw, CELLS, seed=7)
    with cf.ThreadPoolExecutor(max_workers=4) as pool:
        threaded = run_cells(_draw, CELLS, seed=7, executor=pool)
    # The first cells of a longer grid get the same streams (index-based children).
    longer = run_cells(_draw, CELLS + [{"k": 99}], seed=7)[: len(CELLS)]
    assert threaded == local
    assert longer == local
    assert run_cells(_draw, CELLS, seed=8) != local


@pytest.mark.slow
def test_process_pool_matches_local():
    assert run_cells(_draw, CELLS, seed=11, executor="processes", max_workers=2) == run_cells(
        _draw, CELLS, seed=11
    )


# Under heavy load distributed may warn that creating its scratch folder was slow.
@pytest.mark.filterwarnings("ignore:Creating scratch directories:UserWarning")
def test_dask_client_matches_local():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            out = run_cells(_draw, CELLS, seed=5, executor="dask", scheduler=client)
    assert out == run_cells(_draw, CELLS, seed=5)


def test_interrupted_sweep_resumes_from_cache(tmp_path):
    cache = tmp_path / "cells.jsonl"
    cells = [dict(c, fail=True) for c in CELLS]
    with pytest.raises(RuntimeError, match="cell 3 interrupted"):
        run_cells(_fail_on_three, cells, seed=3, cache=cache)
    lines = cache.read_text().splitlines()
    assert len(lines) == 3  # cells 0, 1, 2 finished before the failure (local runs in order)
    # Simulate a line cut short by a kill: it must be ignored, not crash the resume.
    with open(cache, "a") as fh:
        fh.write('{"key": "abc", "res')
    calls = []

    def counting(cell, seed_sequence):
        calls.append(cell["k"])
        return _draw(cell, seed_sequence)

    counting.__qualname__ = _fail_on_three.__qualname__
    counting.__module__ = _fail_on_three.__module__
    resumed = run_cells(counting, cells, seed=3, cache=cache)
    assert calls == [3, 4, 5]
    assert resumed == run_cells(_draw, cells, seed=3)
    # A different seed must not reuse the cached cells.
    calls.clear()
    run_cells(counting, cells, seed=4, cache=cache)
    assert calls == list(range(6))


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"seed": -1}, TypeError, "`seed` must be a non-negative integer"),
        ({"seed": 1.5}, TypeError, "`seed` must be a non-negative integer"),
        ({"seed": True}, TypeError, "`seed` must be a non-negative integer"),
        ({"seed": 1, "executor": "mpi"}, ValueError, "`executor` must be one of"),
    ],
)
def test_run_cells_rejects_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        run_cells(_draw, CELLS, **kwargs)


def test_study_parser_options(tmp_path):
    parser = study_parser("demo")
    args = parser.parse_args(["--quick", "--seed", "9", "--reps", "100", "--n-sim", "50",
                              "--out", str(tmp_path), "--mode", "simulate", "--executor", "dask",
                              "--scheduler", "tcp://h:8786"])
    assert (args.quick, args.seed, args.reps, args.n_sim, args.out, args.mode, args.executor,
            args.scheduler) == (True, 9, 100, 50, tmp_path, "simulate", "dask", "tcp://h:8786")
    defaults = harness.resolve_common(parser.parse_args([]))
    assert (defaults.mode, defaults.executor, defaults.reps, defaults.n_sim) == (
        "exact", "local", 10_000, 1_000)
    with pytest.raises(SystemExit):
        parser.parse_args(["--mode", "approximate"])


def test_study_parser_without_n_sim_and_simulate_only(tmp_path, capsys):
    # A study without DP-JIMI offers no --n-sim; an always-simulated study has one mode.
    parser = study_parser("demo", reps_help="data sets per cell (default: 20)", n_sim_help=None,
                          modes=("simulate",))
    args = harness.resolve_common(parser.parse_args(["--out", str(tmp_path)]), reps=20)
    assert (args.mode, args.reps, hasattr(args, "n_sim")) == ("simulate", 20, False)
    meta = harness.study_metadata("demo", args, k=5)
    assert (meta["mode"], meta["reps"], "n_sim" in meta, meta["k"]) == ("simulate", 20, False, 5)
    text = parser.format_help()
    assert "data sets per cell (default: 20)" in text and "--n-sim" not in text
    assert "always 'simulate'" in text
    for argv in (["--n-sim", "5"], ["--mode", "exact"]):
        with pytest.raises(SystemExit) as exc:
            parser.parse_args(argv)
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --n-sim 5" in err and "invalid choice: 'exact'" in err


@pytest.mark.parametrize(
    "argv, tags, stem",
    [(["--mode", "exact"], (), "demo_exact"),
     (["--mode", "simulate", "--quick"], (), "demo_simulate_quick"),
     (["--quick"], ("k400",), "demo_exact_k400_quick"),
     ([], ("k400", "x"), "demo_exact_k400_x")],
)
def test_study_stem(argv, tags, stem):
    assert harness.study_stem("demo", study_parser("demo").parse_args(argv), *tags) == stem


@pytest.mark.parametrize(
    "argv, message",
    [(["--reps", "0"], "argument --reps: must be an integer >= 1; got 0"),
     (["--n-sim", "x"], "argument --n-sim: must be an integer; got 'x'"),
     (["--seed", "-3"], "argument --seed: must be an integer >= 0; got -3"),
     (["--workers", "0"], "argument --workers: must be an integer >= 1; got 0")],
)
def test_study_parser_rejects_bad_numbers(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        study_parser("demo").parse_args(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "parse, text, message",
    [(harness.positive_float, "-1", "must be a positive finite number; got -1.0"),
     (harness.positive_float, "inf", "must be a positive finite number; got inf"),
     (harness.positive_float, "one", "must be a number; got 'one'"),
     (harness.open_unit_float, "1", r"must lie in the open interval \(0, 1\); got 1.0"),
     (harness.open_unit_float, "nan", r"must lie in the open interval \(0, 1\); got nan"),
     (harness.open_unit_float, "a", "must be a number; got 'a'")],
)
def test_argument_types_reject_bad_values(parse, text, message):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)
    assert harness.positive_float("0.5") == 0.5 and harness.open_unit_float("0.05") == 0.05


def test_progress_bar_is_shown_for_the_sweep(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(harness, "PROGRESS_DELAY", 0.0)  # (a bar shows after 2 s by default)
    out = run_cells(_draw, CELLS, seed=2, progress=True, desc="demo")
    assert out == run_cells(_draw, CELLS, seed=2)
    err = capsys.readouterr().err
    assert "demo" in err and f"0/{len(CELLS)}" in err  # a bar sized to the sweep


@pytest.mark.parametrize(
    "argv, reps",
    [([], 200), (["--full"], 2000), (["--quick"], 50), (["--full", "--quick"], 50),
     (["--reps", "30"], 30), (["--reps", "30", "--full"], 30), (["--reps", "70", "--quick"], 50)],
)
def test_default_run_uses_fewer_replicates_than_full(argv, reps):
    # issue 28: the default run finishes within a minute, --full is the papers' count,
    # --quick caps the full count as before (so quick results do not move)
    parser = study_parser("demo")
    args = harness.parse_study_args(parser, argv, reps=2000, reps_quick=50, reps_default=200)
    assert args.reps == reps


def test_plain_progress_line_appears_after_the_delay(monkeypatch, capsys):
    # without tqdm: nothing for a run shorter than PROGRESS_DELAY, then "NAME: k/N cells"
    clock = iter([0.5, 2.5])
    bar = harness._PlainProgress(3, "demo")
    monkeypatch.setattr(bar, "_clock", lambda: next(clock))
    bar.start = 0.0
    bar.update()
    assert capsys.readouterr().err == ""
    bar.update()
    bar.close()
    assert capsys.readouterr().err == "\rdemo: 2/3 cells, 2 s\n"
