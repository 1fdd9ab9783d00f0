"""Tests of independence for a Laplace-noised r x c contingency table.

Two simulation tests for a :class:`~dpinfer.Release` of kind ``'table'`` (from
:class:`~dpinfer.ContingencyTableReleaser`), whose cells are ``Z = X + L`` with
``X`` the confidential table and ``L`` independent ``Laplace(0, b)`` noise,
``b = sensitivity / epsilon``:

* :func:`independence_jimi_test`: fiducial matching (DP-JIMI; Romanus,
  Boulaguiem & Molinari 2025, the ``fima`` R package's ``fima_chi2``);
* :func:`independence_mc_test`: the plug-in Monte Carlo test of Gaboardi, Lim,
  Rogers & Vadhan (2016), the comparator a referee expects.

Both compare a statistic of the released table with its law under independence,
simulated by re-running the whole data-generating equation (multinomial table,
then fresh Laplace noise) and applying *the same* statistic to every simulated
table.  They differ in how the unknown margins enter: DP-JIMI draws them from a
fiducial law per simulated table; the Monte Carlo test plugs in one estimate.
"""

from __future__ import annotations

import numpy as np

from .. import _mechanisms
from .._streams import _mc_note, _share_se, _stream
from .._progress import _check_progress, start
from .._validation import DPInferValueError, _arg, _check_n_sim, _kind_of
from .._workers import check_workers, child_seed, map_tasks, root_seed
from ..results import HTestResult
from ._resolve import accepts, provenance, resolve

__all__ = ["independence_jimi_test", "independence_mc_test"]

#: Most simulated cells (n_sim x r x c) held in memory at once (about 60 bytes each).
_MAX_SIM_CELLS = 50_000_000
# Where a fiducial margin probability falls outside (0, 1) it is set just inside, as in
# the authors' code (fima_count: .Machine$double.eps and 1 - .Machine$double.eps).
_TINY = np.finfo(float).eps


#: the releases the tests of independence take (Releases only: a table has no number form here)
ACCEPTS = accepts({(_mechanisms.LAPLACE, "table")}, ("independence_jimi_test", "independence_mc_test"),
                  "a Laplace-noised contingency table (ContingencyTableReleaser(epsilon).release(table))")


def _table_input(release, n_sim, method, name="release"):
    """The resolved table release and ``(Z, b, n_sim)``; the table's shape and ``n_sim`` checked."""
    rec = resolve(release, accepts=ACCEPTS, method=method, name=name, numbers=False)
    if rec is None:
        raise TypeError(
            f"`{name}` must be a dpinfer Release of kind 'table' (from ContingencyTableReleaser.release); "
            f"got {_kind_of(release)}.")
    z = rec.value
    if z.ndim != 2:
        raise ValueError(
            f"`{name}` must hold one r x c table; got shape {z.shape}. Test the tables of a stack one at a time.")
    n_sim = _check_n_sim(n_sim, allow_none=False)
    if n_sim * z.size > _MAX_SIM_CELLS:
        raise DPInferValueError(
            _arg("n_sim"), " times the number of cells must be at most {_MAX_SIM_CELLS:_} (the simulated tables are "
            f"held in memory at once); got n_sim = {n_sim!r} for {z.size} cells.")
    return rec, z, rec.sensitivity / rec.epsilon, n_sim


def _clamped_chi2(tables):
    """Pearson's X^2 of ``max(table, 0) + 1/2`` with margins of that table (last two axes).

    The statistic of ``fima_chi2`` (Romanus et al. 2025): clamping keeps expected
    counts positive and the 1/2 (Haldane-Anscombe) keeps them away from zero.
    """
    t = np.maximum(tables, 0.0) + 0.5
    total = t.sum(axis=(-2, -1), keepdims=True)
    expected = t.sum(axis=-1, keepdims=True) * t.sum(axis=-2, keepdims=True) / total
    return np.sum((t - expected) ** 2 / expected, axis=(-2, -1))


def _plugin_margins(tables):
    """Row and column probabilities from noisy tables: sums clamped at 1/2, normalised."""
    rows = np.maximum(tables.sum(axis=-1), 0.5)
    cols = np.maximum(tables.sum(axis=-2), 0.5)
    return rows / rows.sum(axis=-1, keepdims=True), cols / cols.sum(axis=-1, keepdims=True)


def _plugin_chi2(tables, n):
    """Gaboardi et al.'s statistic: sum (Z - n p q)^2 / (n p q), p, q plug-in margins of Z itself."""
    p, q = _plugin_margins(tables)
    expected = np.asarray(n, dtype=float)[..., None, None] * p[..., :, None] * q[..., None, :]
    return np.sum((tables - expected) ** 2 / expected, axis=(-2, -1))


def _simulate(gen, n, probs, b, shape):
    """Multinomial(n, probs) tables plus fresh Laplace(0, b) noise; ``probs`` (n_sim, r, c)."""
    n_sim = probs.shape[0]
    counts = gen.multinomial(n, probs.reshape(n_sim, -1)).reshape((n_sim,) + shape)
    return counts + gen.laplace(0.0, b, size=counts.shape)


def _fiducial_probabilities(gen, sums, n, b, terms):
    """Fiducial draws of one margin's probabilities (``fima_count``, vectorised).

    ``sums`` (k,) are noisy margin sums, each the sum of ``terms`` noisy cells;
    ``n`` (n_sim,) the (fiducial) totals.  For each draw: ``pi* = (sum - sum of
    terms fresh Laplace) / n``, then ``theta ~ Beta(n pi* + 1/2, n (1 - pi*) + 1/2)``
    (Hannig's fiducial law of a binomial proportion) inside (0, 1), and
    ``theta`` just inside 0 or 1 otherwise.  Returns (n_sim, k), rows normalised.
    """
    n_sim, k = n.shape[0], sums.shape[0]
    noise = gen.laplace(0.0, b, size=(n_sim, k, terms)).sum(axis=-1)
    nn = n[:, None].astype(float)
    pi = (sums[None, :] - noise) / nn
    inside = (pi > 0.0) & (pi < 1.0)
    safe = np.where(inside, pi, 0.5)
    theta = gen.beta(nn * safe + 0.5, nn * (1.0 - safe) + 0.5)
    theta = np.where(inside, theta, np.where(pi >= 1.0, 1.0 - _TINY, _TINY))
    return theta / theta.sum(axis=-1, keepdims=True)


def _fiducial_total(gen, z, n, b, n_sim):
    """The public ``n`` repeated, or fiducial totals ``round(sum Z - sum of r c fresh Laplace)`` >= 1."""
    if n is not None:
        return np.full(n_sim, n, dtype=np.int64)
    noise = gen.laplace(0.0, b, size=(n_sim, z.size)).sum(axis=-1)
    return np.maximum(np.rint(z.sum() - noise), 1).astype(np.int64)


#: Simulated cells (draws x r x c) per block: memory stays near 60 MB whatever ``n_sim``.
_BLOCK_CELLS = 1 << 20


def _blocks(n_sim, cells):
    """Sizes of the blocks of draws, in order.

    One block when ``n_sim * cells <= _BLOCK_CELLS`` (the stream is then the unblocked one).
    """
    per = max(1, _BLOCK_CELLS // cells)
    return [min(per, n_sim - start) for start in range(0, n_sim, per)]


def _jimi_hits(gen, size, z, n, b, stat):
    """Simulated clamped statistics >= ``stat`` among ``size`` DP-JIMI draws."""
    r, c = z.shape
    n_star = _fiducial_total(gen, z, n, b, size)
    rows = _fiducial_probabilities(gen, z.sum(axis=1), n_star, b, c)
    cols = _fiducial_probabilities(gen, z.sum(axis=0), n_star, b, r)
    sims = _simulate(gen, n_star, rows[:, :, None] * cols[:, None, :], b, z.shape)
    return np.count_nonzero(_clamped_chi2(sims) >= stat)


def _mc_hits(gen, size, z, n_used, b, stat, p, q):
    """Simulated plug-in statistics >= ``stat`` among ``size`` draws of Gaboardi et al.'s null."""
    probs = np.broadcast_to(p[:, None] * q[None, :], (size,) + z.shape)
    sims = _simulate(gen, np.full(size, n_used, dtype=np.int64), probs, b, z.shape)
    return np.count_nonzero(_plugin_chi2(sims, np.full(size, n_used)) >= stat)


#: draws per task when ``workers`` is given (fixed: the tasks, hence the answer, never
#: depend on the number of workers)
_TASK_DRAWS = 4096


def _count_hits(hits, args, gen, n_sim, workers, progress, method):
    """Total of ``hits(gen, size, *args)`` over the blocks of ``n_sim`` draws.

    ``workers=None``: the blocks of :func:`_blocks` from ``gen`` in turn (the stream of
    earlier releases).  Otherwise tasks of ``_TASK_DRAWS`` draws (fewer in the last),
    task ``i`` drawing from child ``i`` of a SeedSequence fixed by ``gen``, run where
    ``workers`` says (:mod:`dpinfer._workers`): the same count for every ``workers``.
    """
    z = args[0]
    total = 0
    with start(progress, n_sim, method, "draws") as bar:
        if workers is None:
            for size in _blocks(n_sim, z.size):
                total += hits(gen, size, *args)
                bar.advance(size)
            return total
        root = root_seed(gen)
        per = min(_TASK_DRAWS, max(1, _BLOCK_CELLS // z.size))
        tasks = [(hits, min(per, n_sim - a), args, child_seed(root, i))
                 for i, a in enumerate(range(0, n_sim, per))]
        total = int(sum(map_tasks(_hits_task, tasks, workers)))
        bar.advance(n_sim)
    return total


def _hits_task(task):
    hits, size, args, seed = task
    return hits(np.random.default_rng(seed), size, *args)


def _table_stream(rng, method, rec, n_sim):
    """The draws' generator: ``rng``, or the stream derived from the public release and ``n_sim``."""
    return _stream(rng, method, rec.value, rec.n, rec.epsilon, rec.delta, rec.sensitivity, n_sim)


def _result(stat, pvalue, method, rec, n, statistic_name, n_sim, derived):
    r, c = rec.value.shape
    total = f"n = {n}" if rec.n is not None else "n private"
    return HTestResult(
        statistic=float(stat), pvalue=float(pvalue), null_value=None, alternative="greater",
        method=method, estimate=None, conf_int=None, epsilon=rec.epsilon, delta=rec.delta,
        data_name=(f"noisy {r} x {c} table ({total}, Laplace scale "
                   f"{rec.sensitivity / rec.epsilon:.4g} per cell)"),
        statistic_name=statistic_name, estimate_name="", null_name="association between rows and columns",
        mechanism=rec.mechanism, n_sim=n_sim, **provenance(rec),
        note=_mc_note(n_sim, _share_se(pvalue, n_sim), derived),
    )


def independence_jimi_test(release, *, n_sim=10_000, rng=None, progress=None, workers=None):
    """DP-JIMI (fiducial matching) test of independence for a noisy r x c table.

    Parameters
    ----------
    release : Release
        A Laplace release of kind ``'table'`` (one table), from
        :class:`~dpinfer.ContingencyTableReleaser`.  Its ``epsilon`` and
        ``sensitivity`` give the noise scale ``b = sensitivity / epsilon`` per
        cell; its ``n`` the public total (or None: the total is drawn from its
        fiducial law too).
    n_sim : int, default 10_000
        Number of fiducial draws (simulated tables).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seeds the draws (numpy's default PCG64; reproducible, not
        cryptographic: the draws use only the public release).  None (the
        default) derives the seed from the public release (its values, n,
        epsilon, delta, sensitivity) and ``n_sim``: the same release gives the
        same p-value on every call (post-processing, no privacy cost).  The
        result's ``note`` states the stream and the Monte Carlo standard error.
    progress : None, bool or callable, default None
        Progress over the draws (see :ref:`progress`): None shows a line on stderr once
        the call has run 2 s, if stderr is a terminal; True always, False never; a
        callable gets ``(done, total, message)``, the units being draws.  The cost is about 1 microsecond per
        simulated cell (``n_sim`` x r x c): a 50 x 50 table at ``n_sim = 10_000``
        takes about 30 s.  Memory stays near 60 MB: the draws are made in blocks
        of about 2**20 cells.
    workers : None, int, callable or concurrent.futures.Executor, default None
        Where the draws run (see :ref:`scale`): None (the default) draws the blocks in
        turn from one stream, as earlier releases did; otherwise the draws are split
        into fixed tasks of 4096 draws (fewer for tables of more than 256 cells), task
        ``i`` drawing from child ``i`` of a SeedSequence fixed by ``rng``, run in this
        process (``1``), in ``k`` local processes (``k``; ``-1`` all CPUs), by a
        map-like callable ``workers(func, iterable)`` or by an Executor (Dask:
        ``Client(...).get_executor()``).  Every ``workers`` other than None gives the
        same p-value, bit for bit; it differs from None's by Monte Carlo error only.

    Returns
    -------
    HTestResult
        ``statistic`` the clamped chi-square ``X^2`` of the released table (named
        ``'X-squared (noisy, clamped)'``), ``pvalue`` (simulated, never from a
        chi-square law, so no degrees of freedom are reported), ``method``,
        ``epsilon``, ``delta``,
        ``mechanism='Laplace'``, ``n_sim``; ``alternative='greater'`` (larger
        statistics are evidence of association), ``estimate=None``.

    Raises
    ------
    TypeError, ValueError
        ``release`` is not a single-table Laplace release; ``n_sim`` is not a
        positive integer or the draws would not fit in memory.

    See Also
    --------
    independence_mc_test : the plug-in Monte Carlo comparator.
    binom2_jimi_test : DP-JIMI for two proportions (a 2 x 2 table released as two counts).

    Notes
    -----
    **Statistic.**  ``T(Z)`` = Pearson's ``X^2`` of ``max(Z, 0) + 1/2`` computed
    with that table's own margins and total, as in ``fima_chi2``.

    **Algorithm** (Romanus, Boulaguiem & Molinari 2025, the chi-square test;
    ``fima_chi2`` and ``fima_count`` as read in the ``fima`` R package source).  For each of the
    ``n_sim`` draws, with fresh noise every time:

    1. the total: the public ``n``, or (``n`` private) ``n* = round(sum Z -
       sum of r c fresh Laplace(b))``, at least 1;
    2. each row probability from its noisy row sum ``R_i`` (a sum of ``c``
       noisy cells): ``pi* = (R_i - sum of c fresh Laplace(b)) / n*``, then
       ``theta_i ~ Beta(n* pi* + 1/2, n* (1 - pi*) + 1/2)``, set just inside
       (0, 1) when ``pi*`` falls outside; the same for every column (``r``
       terms); rows and columns are normalised to sum to 1;
    3. a table ``X* ~ Multinomial(n*, theta_row theta_col^T)`` (independence
       holds by construction), released again: ``Z* = X* + fresh Laplace(b)``;
    4. ``T* = T(Z*)``.

    The p-value is ``(1 + #{T* >= T(Z)}) / (1 + n_sim)``, the Monte Carlo
    p-value of Davison & Hinkley (1997, eq. 4.11), as in ``fima_infer``.
    Every step is vectorised over the draws (one ``multinomial`` call with a
    row of probabilities per draw).

    **Where this departs from the authors' code, and why.**  ``fima_chi2``
    clamps and adds 1/2 to the *released* table, but builds the simulated
    tables as ``multinomial + 1/2`` and then adds noise *without* clamping, so
    its reference law is that of a different statistic from the one observed.
    Here the same map ``T`` (clamp, then + 1/2) is applied to the released
    table and to every simulated noisy table: the p-value compares like with
    like.  The margins are normalised explicitly (``rmultinom`` does it
    silently), and a private total is drawn from its fiducial law rather
    than asked for.  The fiducial draws of the margins follow ``fima_count``
    (including the values just inside 0 and 1).  The per-cell noise of the
    release is the exact grid version of Laplace; the simulation uses
    continuous Laplace, within ``epsilon / 2**(g+2)`` in cdf (``g >= 20`` at
    ``epsilon = 1``).

    **Validity.**  Not exact: the fiducial margins make it approximately valid,
    and the size over a grid of null tables is measured in
    ``validation/table_size.py`` (see the validation gallery).

    References
    ----------
    .. [1] Romanus, O. M., Boulaguiem, Y. & Molinari, R. (2025). Fiducial
       matching: differentially private inference for categorical data.
       arXiv:2507.11762.
    .. [2] Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their
       Application. Cambridge University Press.

    Examples
    --------
    >>> from dpinfer import ContingencyTableReleaser, independence_jimi_test
    >>> rel = ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3)
    >>> res = independence_jimi_test(rel, n_sim=2000, rng=1)
    >>> res.pvalue < 0.01
    True
    """
    rec, z, b, n_sim = _table_input(release, n_sim, "independence_jimi_test")
    progress = _check_progress(progress)
    workers = check_workers(workers)
    n = rec.n
    gen, derived = _table_stream(rng, "independence_jimi_test", rec, n_sim)
    stat = _clamped_chi2(z)
    hits = _count_hits(_jimi_hits, (z, n, b, stat), gen, n_sim, workers, progress, "independence_jimi_test")
    pvalue = (1.0 + hits) / (1.0 + n_sim)
    return _result(stat, pvalue, f"DP-JIMI fiducial test of independence ({n_sim} draws)", rec, n,
                   "X-squared (noisy, clamped)", n_sim, derived)


def independence_mc_test(release, *, n_sim=10_000, rng=None, progress=None, workers=None):
    """Monte Carlo test of independence for a noisy r x c table (Gaboardi et al. 2016).

    Parameters
    ----------
    release : Release
        A Laplace release of kind ``'table'`` (one table), from
        :class:`~dpinfer.ContingencyTableReleaser`.
    n_sim : int, default 10_000
        Number of simulated tables.
    rng : None, int, SeedSequence or numpy.random.Generator
        Seeds the simulation (numpy's default PCG64).  None (the default)
        derives the seed from the public release and ``n_sim``, as
        :func:`independence_jimi_test` does: the same p-value on every call.
    progress : None, bool or callable, default None
        As :func:`independence_jimi_test` (draws in blocks).
    workers : None, int, callable or concurrent.futures.Executor, default None
        As :func:`independence_jimi_test`.

    Returns
    -------
    HTestResult
        As :func:`independence_jimi_test`, with ``statistic`` the plug-in
        statistic ``Q^2`` (named ``'Q-squared (noisy)'``).

    Raises
    ------
    TypeError, ValueError
        As :func:`independence_jimi_test`.

    See Also
    --------
    independence_jimi_test : the fiducial-matching test.

    Notes
    -----
    The Monte Carlo independence test of Gaboardi, Lim, Rogers & Vadhan (2016;
    their "MC" tests, here with Laplace noise), a parametric bootstrap:

    1. plug-in margins from the released table: ``p_i`` proportional to
       ``max(R_i, 1/2)``, ``q_j`` to ``max(C_j, 1/2)`` (noisy row and column
       sums; the clamp at 1/2 is ours, to keep the expected counts positive);
    2. the statistic ``Q^2 = sum (Z_ij - n p_i q_j)^2 / (n p_i q_j)`` on the
       unclamped noisy cells, with the public ``n`` (or, if the total is
       private, ``n = max(1, round(sum Z))``, a plug-in of ours);
    3. ``n_sim`` tables ``X* ~ Multinomial(n, p q^T)`` with fresh noise
       ``Z* = X* + Laplace(b)``, each with its own plug-in margins and ``Q^2``;
    4. p-value ``(1 + #{Q*^2 >= Q^2}) / (1 + n_sim)``.

    Written from the paper's description, not checked against its authors'
    code.  Its size is measured alongside DP-JIMI's in
    ``validation/table_size.py``.

    References
    ----------
    .. [1] Gaboardi, M., Lim, H. W., Rogers, R. & Vadhan, S. (2016).
       Differentially private chi-squared hypothesis testing: goodness of fit
       and independence testing. ICML 2016, PMLR 48, 2111-2120.

    Examples
    --------
    >>> from dpinfer import ContingencyTableReleaser, independence_mc_test
    >>> rel = ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3)
    >>> independence_mc_test(rel, n_sim=2000, rng=1).pvalue < 0.01
    True
    """
    rec, z, b, n_sim = _table_input(release, n_sim, "independence_mc_test")
    progress = _check_progress(progress)
    workers = check_workers(workers)
    n = rec.n
    gen, derived = _table_stream(rng, "independence_mc_test", rec, n_sim)
    n_used = n if n is not None else max(1, int(np.rint(z.sum())))
    stat = _plugin_chi2(z, n_used)
    p, q = _plugin_margins(z)
    hits = _count_hits(_mc_hits, (z, n_used, b, stat, p, q), gen, n_sim, workers, progress,
                       "independence_mc_test")
    pvalue = (1.0 + hits) / (1.0 + n_sim)
    return _result(stat, pvalue, f"Monte Carlo test of independence, Gaboardi et al. 2016 ({n_sim} draws)",
                   rec, n_used, "Q-squared (noisy)", n_sim, derived)
