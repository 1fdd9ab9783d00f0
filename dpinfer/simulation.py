"""Simulation studies at scale: a grid of cells, each with its own seed, run on ``workers``.

:func:`run_cells` is the engine of the validation studies (``validation/harness.py``
adds a resume cache, a progress bar and the command-line options on top of it), public
so that a user's own sweep (operating characteristics over a grid of sample sizes and
effects, at regulatory Monte Carlo precision) runs on local processes or a Dask or Ray
cluster with the same answer, bit for bit, as in one process.
"""

from __future__ import annotations

import numpy as np

from ._validation import DPInferTypeError, _arg, _show
from ._workers import check_workers, child_seed, map_tasks

__all__ = ["run_cells"]


def _root(rng):
    """The root SeedSequence of ``rng``: a SeedSequence, a non-negative int, or None (fresh)."""
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return np.random.SeedSequence(int(rng))
    raise DPInferTypeError(_arg("rng"), " must be None, a non-negative integer seed or a SeedSequence "
                           f"(a Generator's stream cannot be split by index); got {_show(rng)}.")


def _run_cell(task):
    func, cell, seed = task
    return func(cell, seed)


def run_cells(func, cells, *, rng=None, workers=None):
    """Run ``func(cell, seed_sequence)`` over ``cells``; return the results in cell order.

    Parameters
    ----------
    func : callable
        ``func(cell, seed_sequence)``: one cell of the study (for example the rejection
        rate of a test over ``reps`` releases at one sample size), drawing only from
        ``np.random.default_rng(seed_sequence)``.  A module-level function (picklable)
        when ``workers`` runs other processes or machines.
    cells : iterable
        The cells' settings (any picklable objects, typically dicts).
    rng : None, int or numpy.random.SeedSequence, keyword-only
        Root seed: cell ``i`` gets ``SeedSequence(rng, spawn_key=(i,))``, the ``i``-th
        child of ``SeedSequence(rng)`` (that of ``validation/harness.py`` with
        ``--seed rng``).  None: fresh entropy (not reproducible).
    workers : None, int, callable or concurrent.futures.Executor, keyword-only
        None or 1: this process; ``k``: ``k`` local processes (``-1``: all CPUs); a
        map-like callable ``workers(func, iterable)`` (``multiprocessing.Pool().map``,
        Ray's ``ray.util.multiprocessing.Pool().map``); or an Executor, left open (Dask:
        ``distributed.Client(address).get_executor()``).  See :ref:`scale`.

    Returns
    -------
    list
        ``results[i] = func(cells[i], SeedSequence(rng, spawn_key=(i,)))``, whatever
        ``workers`` is: a cell's seed depends on its index only.

    Raises
    ------
    TypeError, ValueError
        ``func`` not callable, a bad ``rng`` or ``workers`` (named with the rule and
        the value); an exception raised by ``func`` in a worker is re-raised here with
        its own type.

    Examples
    --------
    The size of an exact two-arm test at two sample sizes, 200 releases a cell:

    >>> import numpy as np
    >>> from dpinfer import run_cells
    >>> def cell(n, seed):
    ...     gen = np.random.default_rng(seed)
    ...     return float(np.mean(gen.binomial(n, 0.3, size=200) > 0.4 * n))
    >>> a = run_cells(cell, [20, 40], rng=7)
    >>> a == run_cells(cell, [20, 40], rng=7, workers=lambda f, it: list(map(f, it)))
    True
    """
    if not callable(func):
        raise DPInferTypeError(_arg("func"), f" must be callable, func(cell, seed_sequence); got {_show(func)}.")
    workers = check_workers(workers)
    root = _root(rng)
    tasks = [(func, cell, child_seed(root, i)) for i, cell in enumerate(cells)]
    return map_tasks(_run_cell, tasks, workers)
