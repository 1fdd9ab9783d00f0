"""``workers=``: where the independent tasks of a simulation run (scipy's idiom).

Every public function whose cost is independent replicates or cells takes ``workers=``
and hands its tasks to :func:`map_tasks`, the one place that reads it:

* ``None`` (the default): the function's own serial code path, unchanged (the answer
  of earlier releases, bit for bit);
* an int: ``1`` runs the tasks in this process, ``k > 1`` in a pool of ``k`` local
  processes, ``-1`` in one process per CPU (as ``scipy.optimize.differential_evolution``);
* a map-like callable ``workers(func, iterable)`` returning the results in order
  (``multiprocessing.Pool().map``, Ray's ``ray.util.multiprocessing.Pool().map``);
* a :class:`concurrent.futures.Executor` (a process pool, or a Dask cluster through
  ``distributed.Client(...).get_executor()``), used as is and left open.

The answer never depends on which of these runs the tasks: each task carries its own
:class:`numpy.random.SeedSequence`, the ``i``-th child (:func:`child_seed`) of one root
fixed before any task runs, and the tasks themselves (their number and sizes) are fixed
by the problem, never by the number of workers.  A worker's exception reaches the caller
with its own type (``Executor.map`` and ``Pool.map`` re-raise it).  Messages name the
rule and the value of ``workers`` only, which is never confidential.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import numbers
import os

import numpy as np

from ._validation import DPInferTypeError, DPInferValueError, _arg, _show

__all__ = []  # private module

_RULE = ("must be None, an int (1 = this process, k > 1 = k local processes, -1 = all CPUs), "
         "a map-like callable workers(func, iterable) or a concurrent.futures.Executor")


def check_workers(workers, name="workers"):
    """``workers`` as given (None, an int >= 1 or -1, a callable or an Executor), else an error."""
    if workers is None or isinstance(workers, cf.Executor):
        return workers
    if isinstance(workers, (bool, np.bool_)):
        raise DPInferTypeError(_arg(name), f" {_RULE}; got {_show(workers)}.")
    if isinstance(workers, (numbers.Integral, np.integer)):
        value = int(workers)
        if value >= 1 or value == -1:
            return value
        raise DPInferValueError(_arg(name), f" {_RULE}; got {value}.")
    if callable(workers):
        return workers
    raise DPInferTypeError(_arg(name), f" {_RULE}; got {_show(workers)}.")


def n_processes(workers):
    """The local pool size of an int ``workers`` (-1: the CPUs of this machine)."""
    return (os.cpu_count() or 1) if workers == -1 else workers


def process_pool(size):
    """A local pool of ``size`` processes (also the validation harness's ``processes`` executor)."""
    # forkserver (or spawn) rather than fork: a forked child of a threaded parent
    # (numba, BLAS, a notebook's kernel) can deadlock.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    return cf.ProcessPoolExecutor(max_workers=size, mp_context=context)


def map_tasks(func, tasks, workers):
    """``[func(t) for t in tasks]``, run where ``workers`` says (checked), in task order.

    ``func`` is a module-level function (picklable for processes and clusters) and
    each task a picklable argument.  ``workers=None`` and ``1`` run in this process.
    """
    workers = check_workers(workers)
    tasks = list(tasks)
    if isinstance(workers, cf.Executor):
        return list(workers.map(func, tasks))
    if workers is None or (isinstance(workers, int) and (n_processes(workers) == 1 or len(tasks) <= 1)):
        return [func(task) for task in tasks]
    if isinstance(workers, int):
        with process_pool(min(n_processes(workers), len(tasks))) as pool:
            return list(pool.map(func, tasks))
    return list(workers(func, tasks))


def child_seed(root, index):
    """The ``index``-th child of the SeedSequence ``root``, without spawning the others.

    Identical to ``root.spawn(k)[index]`` for any ``k > index`` on a fresh ``root``:
    the child depends only on the root and the index, so on no worker count.
    """
    return np.random.SeedSequence(entropy=root.entropy, spawn_key=tuple(root.spawn_key) + (int(index),),
                                  pool_size=root.pool_size)


def root_seed(gen):
    """A SeedSequence fixed by the Generator ``gen`` (four 63-bit words drawn from it)."""
    return np.random.SeedSequence([int(w) for w in gen.integers(0, 2**63, size=4)])


def _block_task(task):
    func, rows, seed = task
    return func(*rows, seed)


def seeded_blocks(func, arrays, block, gen, workers):
    """``[func(*rows_i, seed_i)]`` over blocks of ``block`` rows of the equal-length ``arrays``.

    ``rows_i`` are the arrays' rows ``[i block, (i + 1) block)``, sliced here so that a
    task carries only its own rows; ``seed_i`` is child ``i`` of one root fixed by
    ``gen`` (:func:`root_seed`).  ``block`` is fixed by the caller from public numbers
    (never from ``workers``), so the results do not depend on where the blocks run.
    ``func``: a module-level function, or a :func:`functools.partial` of one.
    """
    root = root_seed(gen)
    total = len(arrays[0])
    tasks = [(func, [arr[a:a + block] for arr in arrays], child_seed(root, i))
             for i, a in enumerate(range(0, total, block))]
    return map_tasks(_block_task, tasks, workers)
