"""Shared plumbing of the validation studies: arguments, seeded cells, CSV, figures.

A study is a grid of *cells* (JSON-serialisable dicts of settings).  ``run_cells``
hands each cell to ``func(cell, seed_sequence)`` with its own
``np.random.SeedSequence(seed, spawn_key=(index,))`` -- the ``index``-th child of
``SeedSequence(seed)`` -- so a cell's result depends only on (seed, cell index,
cell), never on the order the cells run in nor on the number of workers.  Cells run
in this process (``'local'``), in a process pool (``'processes'``) or on a Dask
cluster (``'dask'``), all through the ``concurrent.futures`` interface, with an
optional tqdm progress bar and an optional cache file that lets an interrupted sweep
resume from the cells already finished.

Results go to a CSV file whose first lines are ``# key: value`` metadata (dpinfer,
numpy, scipy and Python versions, seed, settings, date), then one header row and
the data rows; floats are written with ``repr`` (shortest round-trip form), so a
rerun with the same seed writes byte-identical rows.

Figures use matplotlib's object-oriented API with the Agg/SVG canvases (no pyplot,
no global state): one panel per question, a legend naming each method, the nominal
level as a dashed line, and +/- 2 Monte Carlo standard-error bands where a curve is
simulated.

The seeding is that of the public :func:`dpinfer.run_cells` (``rng=seed``), which a
user's own sweep calls with ``workers=``; this module adds the executors by name, the
Dask cluster's start-up, the progress bar and the resume cache on top.

Layout: the CSV files are written and read in ``_csv``, the figures drawn in
``_figures``; both are re-exported here, the one module the studies import.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
from pathlib import Path

import numpy as np

from dpinfer._workers import process_pool  # the one local pool (forkserver or spawn), as workers= uses

from ._csv import _to_builtin, read_csv, write_csv
from ._figures import (
    METHOD_STYLES,
    add_legend,
    computed_label,
    finish_axes,
    log_axis,
    mc_se,
    method_style,
    new_figure,
    plot_band,
    plot_curves,
    plot_nominal,
    readable_label,
    save_figure,
    text_overlaps,
)


__all__ = [
    "METHOD_STYLES",
    "DEFAULT_OUT",
    "add_legend",
    "computed_label",
    "finish_axes",
    "log_axis",
    "mc_se",
    "method_style",
    "new_figure",
    "plot_band",
    "plot_curves",
    "nonnegative_int",
    "open_unit_float",
    "parse_study_args",
    "plot_nominal",
    "positive_float",
    "positive_int",
    "read_csv",
    "readable_label",
    "resolve_common",
    "run_cells",
    "run_study_rows",
    "save_figure",
    "study_metadata",
    "study_parser",
    "study_stem",
    "text_overlaps",
    "write_csv",
]

DEFAULT_OUT = Path(__file__).resolve().parent / "out"
EXECUTORS = ("local", "processes", "dask")


def _int_at_least(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer; got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}; got {value}")
        return value

    parse.__name__ = "integer"
    return parse


positive_int = _int_at_least(1)
nonnegative_int = _int_at_least(0)


def positive_float(text):
    """argparse type: a positive finite number (epsilon)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number; got {text!r}") from None
    if not (0.0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive finite number; got {value!r}")
    return value


def open_unit_float(text):
    """argparse type: a number strictly between 0 and 1 (alpha, p0, a confidence level)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number; got {text!r}") from None
    if not (0.0 < value < 1.0):
        raise argparse.ArgumentTypeError(f"must lie in the open interval (0, 1); got {value!r}")
    return value


DEFAULT_REPS, DEFAULT_N_SIM = 10_000, 1_000
REPS_HELP = f"releases simulated per point in simulate mode (default: {DEFAULT_REPS})"
N_SIM_HELP = f"draws per DP-JIMI test or interval in simulate mode (default: {DEFAULT_N_SIM})"
N_SIM_HELP_TESTS = ("DP-JIMI draws per test: exact mode adds the exact rejection probability at "
                    "this many draws, simulate mode draws them for each test "
                    f"(default: {DEFAULT_N_SIM})")


def study_parser(description, *, reps_help=REPS_HELP, n_sim_help=N_SIM_HELP,
                 modes=("exact", "simulate")):
    """The argument parser every study shares.

    Options: ``--quick`` (a small grid for the test suite), ``--seed``, ``--reps``
    (Monte Carlo replicates; ``reps_help`` says per what, when they are used and the
    study's default), ``--n-sim`` (DP-JIMI draws, offered only when ``n_sim_help``
    is given: studies without DP-JIMI pass None), ``--out DIR``, ``--mode`` (one of
    ``modes``, the first is the default; a study that is always simulated passes
    ``("simulate",)``), ``--executor {local,processes,dask}``, ``--scheduler
    ADDRESS`` (a running Dask scheduler; default: a LocalCluster), ``--workers``,
    ``--progress``/``--no-progress``, ``--fresh`` (ignore the resume cache) and
    ``--format {png,svg,pdf}``.  Studies add their own options to the returned parser.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small grid (seconds), for tests")
    parser.add_argument("--full", action="store_true",
                        help="the papers' replicate counts where the default run uses fewer to "
                             "finish within a minute (see --reps; slow: use --executor dask)")
    parser.add_argument("--seed", type=nonnegative_int, default=20181203,
                        help="root seed of the cells' SeedSequence (default: %(default)s)")
    parser.add_argument("--reps", type=positive_int, default=None, help=reps_help)
    if n_sim_help is not None:
        parser.add_argument("--n-sim", type=positive_int, default=None, dest="n_sim",
                            help=n_sim_help)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="folder for the CSV and the figure (default: validation/out)")
    if tuple(modes) == ("simulate",):
        mode_help = "always 'simulate': this study has no exact mode"
    else:
        mode_help = ("exact finite sums / integrals, or the simulation design "
                     f"(default: {modes[0]})")
    parser.add_argument("--mode", choices=tuple(modes), default=modes[0], help=mode_help)
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="where the cells run (default: local)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler (with --executor dask); "
                             "default: start a LocalCluster")
    parser.add_argument("--workers", type=positive_int, default=None,
                        help="worker processes (processes / dask LocalCluster); default: CPUs")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar after 2 s (tqdm if installed; default: when stderr "
                             "is a terminal)")
    parser.add_argument("--fresh", action="store_true",
                        help="ignore cells cached by an interrupted earlier run")
    parser.add_argument("--format", choices=("png", "svg", "pdf"), default="png",
                        help="figure file format (default: png)")
    return parser


def resolve_common(args, *, reps=DEFAULT_REPS, n_sim=DEFAULT_N_SIM):
    """Fill the ``args.reps`` / ``args.n_sim`` defaults and ``args.progress``; return ``args``.

    ``args.n_sim`` is left absent when the study's parser has no ``--n-sim``.
    """
    args.reps = reps if args.reps is None else args.reps
    if hasattr(args, "n_sim"):
        args.n_sim = n_sim if args.n_sim is None else args.n_sim
    if args.progress is None:
        args.progress = _stderr_isatty()
    return args


def add_methods_argument(parser, methods):
    """Add ``--methods`` (a subset of ``methods``, all by default) to a study's parser."""
    parser.add_argument("--methods", nargs="+", choices=methods, default=list(methods),
                        metavar="METHOD",
                        help=f"methods to run (default: all of {', '.join(methods)})")
    return parser


def study_stem(study, args, *tags):
    """File stem of a study's outputs: ``NAME_<mode>[_TAG...][_quick]``."""
    return "_".join([study, args.mode, *tags]) + ("_quick" if args.quick else "")


def parse_study_args(parser, argv, *, reps, reps_quick, reps_default=None):
    """Parse a study's arguments and fill the defaults; ``--quick`` caps ``--reps`` at
    ``reps_quick`` (the local-DP studies' convention).

    ``reps`` is the full (papers') replicate count; ``reps_default``, when given, the
    default run's (chosen so that it finishes within a minute on 2 cores), which
    ``--full`` replaces by ``reps``.  ``--quick`` caps the full count as before.
    """
    args = parser.parse_args(argv)
    short = reps_default is not None and not args.full and not args.quick
    args = resolve_common(args, reps=reps_default if short else reps)
    if args.quick:
        args.reps = min(args.reps, reps_quick)
    return args


def run_study_rows(study, args, func, cells):
    """Run cells that return one row each (no resume cache); return ``(stem, rows)``."""
    rows = run_cells(func, cells, seed=args.seed, executor=args.executor, scheduler=args.scheduler,
                     progress=args.progress, max_workers=args.workers, desc=study)
    return study_stem(study, args), rows


def run_study_cells(study, args, func, cells):
    """Run a study's cells with its resumable cache; return ``(stem, cache, rows)``.

    ``func(cell, seed_sequence)`` returns a list of rows per cell; the rows come
    back flattened in cell order.  The cache of finished cells is
    ``<out>/.<stem>.cells.jsonl`` (``--fresh`` discards it).
    """
    stem = study_stem(study, args)
    cache = args.out / f".{stem}.cells.jsonl"
    if args.fresh and cache.exists():
        cache.unlink()
    results = run_cells(func, cells, seed=args.seed, executor=args.executor,
                        scheduler=args.scheduler, progress=args.progress, cache=cache,
                        max_workers=args.workers, desc=study)
    return stem, cache, [row for cell_rows in results for row in cell_rows]


def finish_study(study, args, stem, cache, rows, meta, plot):
    """Write the CSV and the figure ``plot(rows, meta_as_text, path)``, drop the cache (if
    any); return 0."""
    csv_path = write_csv(args.out / f"{stem}.csv", rows, meta)
    fig_path = plot(rows, {k: str(v) for k, v in meta.items()}, args.out / f"{stem}.{args.format}")
    if cache is not None:
        cache.unlink(missing_ok=True)
    print(f"{study}: wrote {csv_path} and {fig_path}")
    return 0


def _stderr_isatty():
    try:
        import sys

        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def study_metadata(study, args, **settings):
    """Metadata for a study's CSV: name, seed, mode, replicates and the study's settings."""
    meta = {
        "study": study,
        "mode": args.mode,
        "seed": args.seed,
        "quick": bool(args.quick),
    }
    if args.mode == "simulate":
        meta["reps"] = args.reps
        if getattr(args, "n_sim", None) is not None:
            meta["n_sim"] = args.n_sim
    meta["executor"] = args.executor
    meta.update(settings)
    return meta


def _cell_seed(seed, index):
    # Identical to SeedSequence(seed).spawn(k)[index] for any k > index.
    return np.random.SeedSequence(entropy=seed, spawn_key=(index,))


def _cell_key(func, seed, index, cell):
    try:
        from dpinfer import __version__ as version
    except ImportError:  # pragma: no cover - the harness is used with dpinfer installed
        version = "unknown"
    payload = json.dumps(
        {"func": f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', repr(func))}",
         "seed": seed, "index": index, "cell": _to_builtin(cell), "dpinfer": version},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def _run_one(func, cell, seed_sequence):
    return _to_builtin(func(cell, seed_sequence))


def _load_cache(path):
    done = {}
    if path is None or not Path(path).exists():
        return done
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
                done[record["key"]] = record["result"]
            except (json.JSONDecodeError, KeyError, TypeError):
                # A line cut short by an interruption: that cell simply reruns.
                continue
    return done


#: Seconds before a progress bar appears: a run that ends sooner prints none.
PROGRESS_DELAY = 2.0


class _PlainProgress:
    """A progress line on stderr (``NAME: k/N cells, t s``) where tqdm is not installed,
    shown once the run has taken ``PROGRESS_DELAY`` seconds."""

    def __init__(self, total, desc):
        import sys
        import time

        self._clock, self._stream = time.monotonic, sys.stderr
        self.total, self.desc, self.done = total, desc or "cells", 0
        self.start, self.shown = self._clock(), False

    def update(self, k=1):
        self.done += k
        elapsed = self._clock() - self.start
        if elapsed >= PROGRESS_DELAY:
            self._stream.write(f"\r{self.desc}: {self.done}/{self.total} cells, {elapsed:.0f} s")
            self._stream.flush()
            self.shown = True

    def close(self):
        if self.shown:
            self._stream.write("\n")
            self._stream.flush()


def _progress_bar(total, desc, enabled):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _PlainProgress(total, desc)
    return tqdm(total=total, desc=desc, unit="cell", leave=False, delay=PROGRESS_DELAY)


def _dask_executor(scheduler, max_workers):
    """(executor, closer) for a Dask Client given as object, address, or a new LocalCluster."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ImportError(
            "--executor dask needs dask.distributed: pip install 'dpinfer[distributed]'."
        ) from exc
    if isinstance(scheduler, Client):
        return scheduler.get_executor(), lambda: None
    if scheduler:
        client = Client(scheduler)
        return client.get_executor(), client.close
    cluster = LocalCluster(
        n_workers=max_workers or os.cpu_count() or 1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # any free port: never the fixed 8787
    )
    client = Client(cluster)

    def close():
        client.close()
        cluster.close()

    return client.get_executor(), close


def run_cells(func, cells, *, seed, executor="local", scheduler=None, progress=False,
              cache=None, max_workers=None, desc=None):
    """Run ``func(cell, seed_sequence)`` over ``cells``; return the results in cell order.

    Parameters
    ----------
    func : callable
        A module-level function (picklable for the process and Dask executors) taking a
        cell and its ``np.random.SeedSequence``; it returns JSON-serialisable data
        (numpy scalars and arrays are converted to Python floats and lists).
    cells : sequence
        JSON-serialisable cell descriptions (dicts of settings).
    seed : int
        Root seed; cell ``i`` gets ``SeedSequence(seed, spawn_key=(i,))``.
    executor : {'local', 'processes', 'dask'} or concurrent.futures.Executor
        Where cells run.  An Executor instance is used as is and left open.
    scheduler : str or distributed.Client, optional
        For ``'dask'``: a Client, or the address of a running scheduler; by default
        a LocalCluster with ``max_workers`` single-threaded worker processes.
    progress : bool
        Show a progress bar once the run has taken ``PROGRESS_DELAY`` (2) seconds: tqdm's,
        or a plain line on stderr if tqdm is missing.
    cache : path-like, optional
        A JSON-lines file: each finished cell is appended (and flushed) as it
        completes, keyed by a hash of (func, seed, index, cell, dpinfer version); a
        rerun with the same file skips the cells found there.  The studies delete it
        once their CSV is written.
    max_workers : int, optional
        Pool size for ``'processes'`` and the default LocalCluster.
    desc : str, optional
        Label of the progress bar.

    Returns
    -------
    list
        ``results[i]`` is ``func(cells[i], SeedSequence(seed, spawn_key=(i,)))``
        (converted to plain Python objects), whatever the executor.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"`seed` must be a non-negative integer; got {seed!r}.")
    seed = int(seed)
    cells = list(cells)
    keys = [_cell_key(func, seed, i, cell) for i, cell in enumerate(cells)]
    done = _load_cache(cache)
    results = [None] * len(cells)
    pending = []
    for i, key in enumerate(keys):
        if key in done:
            results[i] = done[key]
        else:
            pending.append(i)

    bar = _progress_bar(len(pending), desc, progress)
    cache_fh = None
    if cache is not None:
        Path(cache).parent.mkdir(parents=True, exist_ok=True)
        cache_fh = open(cache, "a", encoding="utf-8")

    def record(i, result):
        results[i] = result
        if cache_fh is not None:
            cache_fh.write(json.dumps({"key": keys[i], "index": i, "result": result}) + "\n")
            cache_fh.flush()
        if bar is not None:
            bar.update(1)

    try:
        if isinstance(executor, cf.Executor):
            _run_pool(executor, func, cells, seed, pending, record)
        elif executor == "local":
            for i in pending:
                record(i, _run_one(func, cells[i], _cell_seed(seed, i)))
        elif executor == "processes":
            with process_pool(max_workers) as pool:
                _run_pool(pool, func, cells, seed, pending, record)
        elif executor == "dask":
            pool, close = _dask_executor(scheduler, max_workers)
            try:
                _run_pool(pool, func, cells, seed, pending, record)
            finally:
                close()
        else:
            raise ValueError(
                f"`executor` must be one of {', '.join(map(repr, EXECUTORS))} or a "
                f"concurrent.futures.Executor; got {executor!r}."
            )
    finally:
        if cache_fh is not None:
            cache_fh.close()
        if bar is not None:
            bar.close()
    return results


def _run_pool(pool, func, cells, seed, pending, record):
    futures = {pool.submit(_run_one, func, cells[i], _cell_seed(seed, i)): i for i in pending}
    try:
        for future in cf.as_completed(futures):
            record(futures[future], future.result())
    except BaseException:
        for future in futures:
            future.cancel()
        raise
