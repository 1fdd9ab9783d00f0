"""Logistic regression with categorical predictors from a noisy table (DP-JIMI).

:func:`logistic_jimi` gives the coefficients of ``glm(y ~ a + b, family =
binomial)`` (treatment contrasts) from a table whose rows are the cells of a
full factorial of predictor levels and whose two columns count the outcome 0 and
1, every cell released with Laplace noise (:class:`~dpinfer.ContingencyTableReleaser`).
The method is the fiducial matching of Romanus, Boulaguiem & Molinari (2025) as
the ``fima`` R package's ``fima_logistic`` applies it: a fiducial law for each
cell's probability of success, pushed through the map from cell probabilities
to coefficients.  :class:`LogisticJimiResult` holds the answer, printed in the
shape of R's ``summary(glm)`` coefficient table.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import special

from .._validation import (
    _as_real_array,
    _check_choice,
    _check_confidence_level,
    _check_epsilon,
    _check_n_sim,
    _position,
    _show,
)
from .. import _mechanisms
from .._streams import _mc_note, _share_se, _stream
from .._warnings import ApproximationWarning, warn
from .._workers import check_workers, child_seed, map_tasks, root_seed
from ._draw_summary import draw_share, pvalue_from_shares
from ..results import LogisticJimiResult
from ._resolve import accepts, resolve

__all__ = ["LogisticJimiResult", "logistic_jimi"]

_MODELS = ("main-effects", "saturated")
_NEIGHBOURS = {"replace-one": 2.0, "add-remove": 1.0}
#: Most draws x cells x coefficients held in memory at once (about 8 bytes x p each).
_MAX_SIM_WORK = 20_000_000
#: Newton iterations for the main-effects fit; every draw converges in fewer than 15 in
#: the validation study (strictly concave log-likelihood, responses strictly inside (0, 1)).
_MAX_ITER = 100
#: Convergence: largest Newton step, on the scale of the coefficients (log-odds).
_STEP_TOL = 1e-10
_TINY = np.finfo(float).tiny
_MAX_CELL = 2.0**53
_MAX_STEP = 5.0
#: Cell log-odds are held within +/- this in the main-effects fit (probabilities within
#: about 1e-13 of 0 or 1), where the weights y (1 - y) would underflow.  Only draws with
#: a cell's fiducial probability that extreme change (P(Beta(1/2, m + 1/2) < 1e-13) is
#: about 4e-7 sqrt(m)), and they stay in the same extreme tail.
_LOGIT_BOUND = 30.0


# --------------------------------------------------------------------------- design
def _check_design(design, k):
    """``design`` -> ``(names, levels)``: predictor names and their level labels (C order over rows)."""
    if design is None:
        return ("x",), ((tuple(str(i + 1) for i in range(k))),)
    if not isinstance(design, dict) or not design:
        raise TypeError(
            "`design` must be None or a non-empty dict {predictor name: list of its level labels, the "
            f"reference level first}}; got {_show(design)}.")
    names, levels = [], []
    for name, labels in design.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"`design` keys must be non-empty strings (predictor names); got {_show(name)}.")
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
            raise TypeError(f"`design` entry {name!r} must be a list of level labels; got {_show(labels)}.")
        labels = tuple(str(v) for v in labels)
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ValueError(
                f"`design` entry {name!r} must list at least 2 distinct levels; got {list(labels)!r}.")
        names.append(name)
        levels.append(labels)
    cells = math.prod(len(v) for v in levels)
    if cells != k:
        shape = " x ".join(str(len(v)) for v in levels)
        raise ValueError(
            f"`design` must describe one table row per cell: its levels make {shape} = {cells} cells, "
            f"but the table has {k} rows. Rows are the cells in the order of itertools.product over "
            "the levels (the last predictor varying fastest).")
    return tuple(names), tuple(levels)


def _design_matrix(names, levels, model):
    """Treatment-contrast design matrix (cells x coefficients) and coefficient names, R's order.

    Columns of the saturated model are the products of one column per predictor
    (the intercept or a non-reference level indicator); the main-effects model
    keeps those with at most one predictor.  Ordered as R's ``model.matrix``:
    by interaction order, then by the predictors involved, with the first
    predictor's level varying fastest within a term.
    """
    cells = list(itertools.product(*(range(len(v)) for v in levels)))
    cols = []
    for combo in itertools.product(*(range(len(v)) for v in levels)):
        involved = tuple(i for i, j in enumerate(combo) if j > 0)
        if model == "main-effects" and len(involved) > 1:
            continue
        key = (len(involved), involved, tuple(reversed([combo[i] for i in involved])))
        cols.append((key, combo, involved))
    cols.sort(key=lambda c: c[0])
    matrix = np.zeros((len(cells), len(cols)))
    terms = []
    for c, (_, combo, involved) in enumerate(cols):
        for r, cell in enumerate(cells):
            matrix[r, c] = float(all(cell[i] == combo[i] for i in involved))
        terms.append(":".join(names[i] + levels[i][combo[i]] for i in involved) if involved else "(Intercept)")
    return matrix, tuple(terms)


# --------------------------------------------------------------------------- fiducial draws
def _fiducial_logits(gen, z, b, n_sim):
    """Fiducial draws of every cell's log-odds, and the cells' fiducial sizes.

    ``z`` (k, 2): noisy counts of outcome 0 and 1.  For each draw, fresh
    ``Laplace(0, b)`` per cell: ``c* = max(Z - L*, 0)`` (the counts that the
    release equation ``Z = X + L`` gives for this noise, projected onto the
    counts' range ``X >= 0``), then ``theta* ~ Beta(c1* + 1/2, c0* + 1/2)``,
    Hannig's half-corrected fiducial law of a binomial proportion given
    ``c1*`` successes out of ``c0* + c1*``.  The Beta is drawn as
    ``G1 / (G1 + G0)`` with independent ``Gamma(c + 1/2)`` variables, so the
    log-odds ``log G1 - log G0`` is exact even where ``theta*`` rounds to 0 or 1.
    Returns ``(logit (n_sim, k), a + b = c0* + c1* + 1 (n_sim, k))``.
    """
    counts = np.maximum(z[None, :, :] - gen.laplace(0.0, b, size=(n_sim,) + z.shape), 0.0)
    shapes = counts + 0.5
    g = np.maximum(gen.standard_gamma(shapes), _TINY)
    return np.log(g[..., 1]) - np.log(g[..., 0]), shapes.sum(axis=-1)


def _solve(a, rhs):
    """Solve the batched systems ``a (h, p, p) @ s = rhs (h, p)``, symmetric positive definite.

    A ridge of ``1e-12`` times the mean diagonal keeps a system whose weights
    have underflowed solvable; it moves a well-conditioned solution by about
    1e-12 relative.
    """
    p = a.shape[-1]
    ridge = 1e-12 * np.trace(a, axis1=-2, axis2=-1) / p + _TINY
    return np.linalg.solve(a + ridge[:, None, None] * np.eye(p), rhs[..., None])[..., 0]


def _loglik(eta, y, w):
    """Binomial log-likelihood of fractional responses ``y`` with weights ``w``, per draw."""
    return np.sum(w * (y * eta - np.logaddexp(0.0, eta)), axis=-1)


def _draw_beta(gen, z, b, n_sim, x):
    """``(beta (n_sim, p), converged (n_sim,))``: the coefficients of ``n_sim`` fiducial draws."""
    logit, weights = _fiducial_logits(gen, z, b, n_sim)
    if x.shape[0] == x.shape[1]:  # saturated (or one predictor): beta = X^-1 logit(theta), exact
        return logit @ np.linalg.inv(x).T, np.ones(n_sim, dtype=bool)
    return _fit_main_effects(logit, weights, x)


#: draws per task with ``workers`` (fixed: the tasks never depend on the number of workers)
_TASK_DRAWS = 2000


def _beta_task(task):
    z, b, n_sim, x, seed = task
    return _draw_beta(np.random.default_rng(seed), z, b, n_sim, x)


def _fit_main_effects(logit, weights, x):
    """Weighted logistic MLE for every draw at once (Newton-Raphson with step halving).

    ``logit`` (h, k) cell log-odds, ``weights`` (h, k) > 0, ``x`` (k, p) of full
    column rank.  Maximises ``sum_k w_k [y_k eta_k - log(1 + e^eta_k)]``,
    ``y = expit(logit)``, ``eta = x beta``: the main-effects logistic model fitted
    to the fiducial cell probabilities, each cell weighted by its fiducial
    size.  Strictly concave with ``0 < y < 1``, so the maximiser exists and is
    unique.  Start: weighted least squares of the log-odds (empirical-logit
    regression, weights ``w y (1 - y)``).  Each iteration solves all the
    ``p x p`` Newton systems in one call, caps a step at 5 in log-odds and
    halves the step of any draw whose log-likelihood would fall.  Returns ``(beta (h, p), converged (h,))``;
    private: assumes valid input.
    """
    logit = np.clip(logit, -_LOGIT_BOUND, _LOGIT_BOUND)
    y = special.expit(logit)
    xx = np.einsum("ki,kj->kij", x, x)
    v = weights * y * (1.0 - y)
    beta = _solve(np.einsum("hk,kij->hij", v, xx), np.einsum("hk,ki->hi", v * logit, x))
    eta = beta @ x.T
    ll = _loglik(eta, y, weights)
    converged = np.zeros(len(beta), dtype=bool)
    for _ in range(_MAX_ITER):
        active = ~converged
        if not active.any():
            break
        ya, wa, ea, ba, la = y[active], weights[active], eta[active], beta[active], ll[active]
        p = special.expit(ea)
        grad = np.einsum("hk,ki->hi", wa * (ya - p), x)
        hess = np.einsum("hk,kij->hij", wa * p * special.expit(-ea), xx)
        step = _solve(hess, grad)
        # at most _MAX_STEP in log-odds per iteration: far from the optimum (weights that
        # underflowed) a full step could overflow; near it the cap is inactive
        t = _MAX_STEP / np.maximum(np.max(np.abs(step), axis=1), _MAX_STEP)
        for _ in range(40):
            new_eta = (ba + t[:, None] * step) @ x.T
            new_ll = _loglik(new_eta, ya, wa)
            worse = ~(new_ll >= la - 1e-12 * np.abs(la))  # NaN counts as worse
            if not worse.any():
                break
            t[worse] *= 0.5
        ba = ba + t[:, None] * step
        beta[active], eta[active], ll[active] = ba, ba @ x.T, _loglik(ba @ x.T, ya, wa)
        done = np.max(np.abs(t[:, None] * step), axis=1) <= _STEP_TOL * (1.0 + np.max(np.abs(ba), axis=1))
        converged[np.flatnonzero(active)[done]] = True
    return beta, converged


# --------------------------------------------------------------------------- summaries
def _tail_count(tail, n_sim):
    """``ceil(tail * n_sim)``, at least 1 (the tiny shrink keeps ceil(0.025 * 10000) at 250)."""
    return min(max(int(np.ceil(tail * n_sim * (1.0 - 1e-9))), 1), n_sim)


def _summaries(draws, confidence_level):
    """Per column: median, equal-tailed order-statistic bounds, two-sided share p-value."""
    n_sim = draws.shape[0]
    k = _tail_count((1.0 - confidence_level) / 2, n_sim)
    ordered = np.sort(draws, axis=0)
    low, high = ordered[k - 1], ordered[n_sim - k]
    median = np.median(draws, axis=0)
    # the observed table counts as one of the draws: a p-value is never below 2 / (n_sim + 1) (issue 40)
    le, ge = (draw_share(np.count_nonzero(draws <= 0.0, axis=0), n_sim),
              draw_share(np.count_nonzero(draws >= 0.0, axis=0), n_sim))
    return median, low, high, pvalue_from_shares(le, ge, "two-sided")


# --------------------------------------------------------------------------- public
#: the releases logistic_jimi takes (bare noisy counts are its own number form: ``epsilon``, ``neighbours``)
ACCEPTS = accepts({(_mechanisms.LAPLACE, "table")}, ("logistic_jimi",),
                  "a Laplace-noised k x 2 table (ContingencyTableReleaser(epsilon).release(table))")


def _check_table_shape(z):
    if z.ndim != 2 or z.shape[1] != 2 or z.shape[0] < 2:
        raise ValueError(
            "`table` must hold one k x 2 table (k >= 2 rows: the cells of the predictors; columns: outcome "
            f"0 and outcome 1); got shape {z.shape}.")


def _table_input(table, epsilon, neighbours):
    """``(z (k, 2), b, epsilon, delta, secure, unit, n, relation)`` from a Release or bare noisy counts
    (``relation``: the Release's ``neighbours``; None for bare counts, which claim none)."""
    rec = resolve(table, epsilon=epsilon, accepts=ACCEPTS, method="logistic_jimi", name="table", numbers=False)
    if rec is not None:
        if neighbours is not None:
            raise ValueError(
                "`neighbours` must not be given when `table` is a Release: the release records it "
                f"(neighbours = {rec.neighbours!r}); got neighbours={_show(neighbours)}. Leave `neighbours` out.")
        z, b = rec.value, rec.sensitivity / rec.epsilon
        eps, delta, secure, unit, n = rec.epsilon, rec.delta, rec.secure, rec.privacy_unit, rec.n
        relation = rec.neighbours
    else:
        z = _as_real_array(table, "table")  # first: a wrong kind of `table` is named as such
        _check_table_shape(z)  # then its shape, before asking for what it would need
        if epsilon is None:
            raise TypeError("`epsilon` must be given with bare noisy counts (it is read from a Release).")
        eps = _check_epsilon(epsilon)
        neighbours = "replace-one" if neighbours is None else neighbours
        _check_choice(neighbours, "neighbours", tuple(_NEIGHBOURS))
        b = _NEIGHBOURS[neighbours] / eps
        delta, secure, unit, n, relation = 0.0, None, "", None, None
    _check_table_shape(z)
    bad = np.abs(z) > _MAX_CELL
    if bad.any():
        raise ValueError(
            f"`table` must hold noisy counts of absolute value at most 2**53; {_position(bad)} is not "
            "(a count that large is beyond exact floating-point integers).")
    return z, b, eps, delta, secure, unit, n, relation


def logistic_jimi(table, *, design=None, model="main-effects", epsilon=None, neighbours=None,
                  n_sim=10_000, confidence_level=0.95, draws=False, rng=None, workers=None):
    """Logistic-regression coefficients with categorical predictors from a noisy table (DP-JIMI).

    The private counterpart of ``glm(y ~ a + b, family = binomial)`` for
    categorical predictors, and of the ``fima`` R package's ``fima_logistic``.

    Parameters
    ----------
    table : Release or array_like, shape (k, 2)
        A Laplace release of kind ``'table'`` from
        :class:`~dpinfer.ContingencyTableReleaser` (its ``epsilon`` and
        ``sensitivity`` give the noise scale), or bare noisy counts with
        ``epsilon`` (and ``neighbours``).  Row ``i`` is one cell of the
        predictors (a combination of their levels); column 0 counts the outcome
        0, column 1 the outcome 1.
    design : dict or None
        ``{predictor name: [level labels, reference level first]}``; the rows
        of ``table`` are the cells in the order of
        ``itertools.product(*levels)`` (the last predictor varying fastest:
        ``a1 b1, a1 b2, a2 b1, a2 b2``; R's ``expand.grid`` varies the first
        one fastest, so list the predictors in reverse order, or reorder the
        rows).  None: one predictor ``x`` whose levels ``'1'`` ... ``'k'`` are
        the rows.
    model : {'main-effects', 'saturated'}, default 'main-effects'
        ``'main-effects'``: R's ``y ~ a + b``; ``'saturated'``: ``y ~ a * b``
        (every interaction; the coefficients are log-odds contrasts of the
        cells).  With one predictor the two coincide.
    epsilon : float, optional
        Only with bare counts: the release's privacy parameter.
    neighbours : {'replace-one', 'add-remove'}, optional
        Only with bare counts: the neighbouring relation of the release, which
        fixes the noise scale ``b = sensitivity / epsilon`` per cell
        (sensitivity 2 or 1, as :class:`~dpinfer.ContingencyTableReleaser`);
        default ``'replace-one'``.
    n_sim : int, default 10_000
        Number of fiducial draws.
    confidence_level : float, default 0.95
        Level of the equal-tailed intervals.
    draws : bool, default False
        Keep the fiducial draws of the coefficients in the result (``draws``
        attribute, shape ``(n_sim, p)``), as ``fima_logistic`` returns them.
    rng : None, int, SeedSequence or numpy.random.Generator
        Seeds the draws (numpy's default PCG64; reproducible, not
        cryptographic: the draws use only the public release).  None (the
        default) derives the seed from the public noisy table, its privacy
        parameters and ``n_sim``: the same table gives the same fit on every
        call (post-processing, no privacy cost).  The result's ``note`` states
        the stream and the largest Monte Carlo standard error of the p-values.
    workers : None, int, callable or concurrent.futures.Executor, default None
        Where the draws and their fits run (see :ref:`scale`): None (the default)
        draws them at once from one stream, as earlier releases did; otherwise in fixed
        tasks of 2000 draws, task ``i`` drawing from child ``i`` of a SeedSequence fixed
        by ``rng``, in this process (``1``), ``k`` local processes (``k``; ``-1`` all
        CPUs), a map-like callable ``workers(func, iterable)`` or an Executor (Dask:
        ``Client(...).get_executor()``).  Every ``workers`` other than None gives the
        same fit, bit for bit; it differs from None's by Monte Carlo error only.

    Returns
    -------
    LogisticJimiResult
        ``terms`` (R's coefficient names), ``estimate`` (fiducial medians),
        ``conf_low``, ``conf_high``, ``pvalue`` (two-sided, coefficient = 0),
        ``confidence_level``, ``formula``, ``model``, ``method``, ``epsilon``,
        ``delta``, ``mechanism``, ``n_sim``, ``data_name``, ``secure``,
        ``privacy_unit``, ``note``, ``draws``; ``conf_int(term)`` gives one
        :class:`~dpinfer.ConfidenceInterval`.

    Raises
    ------
    TypeError, ValueError
        ``table`` is neither a single-table Laplace release nor a k x 2 array;
        ``epsilon`` or ``neighbours`` given with a Release or missing without
        one; ``design`` does not describe the rows; ``n_sim``,
        ``confidence_level`` or ``model`` out of range; the draws would not fit
        in memory.

    See Also
    --------
    independence_jimi_test : DP-JIMI test of independence for the same kind of release.
    binom2_jimi_ci : DP-JIMI for two proportions (one binary predictor, proportions released).

    Notes
    -----
    **Model.**  ``P(Y = 1 | cell i) = expit(x_i' beta)`` with ``x_i`` the
    treatment-contrast row of cell ``i`` (R's default ``contr.treatment``).
    The release is ``Z = X + L``, ``X`` the true k x 2 counts and ``L``
    independent ``Laplace(0, b)`` per cell.

    **Algorithm** (fiducial matching, Romanus, Boulaguiem & Molinari 2025;
    ``fima_logistic``).  For each of the ``n_sim`` draws, with fresh noise:

    1. per cell, the counts the release equation gives for fresh noise,
       ``c* = max(Z - L*, 0)`` (both columns);
    2. the cell's probability of success from its fiducial law,
       ``theta_i* ~ Beta(c1* + 1/2, c0* + 1/2)`` (Hannig 2009's
       half-corrected fiducial binomial, as in ``fima_prop``, with the cell
       size ``c0* + c1*`` drawn too, since only the table is released);
    3. the coefficients from the cell probabilities: for the saturated model
       (and any single predictor) in closed form, ``beta* = X^-1
       logit(theta*)`` (log-odds contrasts); for the main-effects model the
       MLE of the logistic model fitted to the fiducial probabilities with
       cell weights ``c0* + c1* + 1`` (the Beta's total shape), by
       Newton-Raphson with step halving, all draws at once, to a step below
       ``1e-10`` (draws that do not converge within 100 iterations are
       reported by a warning).

    The public total ``n`` of a release, when there is one, is not used: the
    coefficients are conditional on the predictors, and each cell's size is
    drawn from its own noisy counts.

    The estimate is the median of ``beta*``, the interval its equal-tailed
    order statistics (the ``k``-th from each end, ``k = ceil(n_sim (1 -
    level) / 2)``), the p-value for ``beta = 0`` twice the smaller share of
    draws on either side of 0 (capped at 1), each share ``(k + 1) / (H + 1)``
    with the observed table counted as one of the draws (never 0), as for the
    DP-JIMI proportion tests.

    **Where this departs from the authors' code, and why.**
    ``fima_logistic`` (SMAC-Group/fima, commit 4178bd8) takes one noisy
    proportion per cell, all with the same ``n`` (commit f28c44c flags this:
    "wrong since each proportion has different base sample size n"), and
    returns the log-odds contrasts with the first cell, i.e. the saturated
    model of one predictor; FIMA simulation scripts for two additive
    predictors found in public repositories use three of the four cells
    (``beta1 = logit p10 - logit p00``).  Here the released
    object is the table itself, so each cell's size is drawn from its
    fiducial law, and the main-effects coefficients use every cell, weighted
    by its size, as the MLE does.  Where ``Z - L*`` falls below zero the
    authors set ``theta*`` to machine epsilon or clamp the proportion to
    [0.01, 0.99] (``logit = -36`` or ``-4.6``, values that then dominate the
    interval's end); here the count is projected onto ``[0, inf)`` and the
    Beta's half-count keeps the log-odds finite and continuous in the noise.

    **Validity.**  Approximate, like every DP-JIMI method: the coverage of
    each coefficient's interval is measured in
    ``validation/logistic_coverage.py`` (see the validation gallery).  As
    epsilon grows the draws centre on the non-private MLE and the interval
    approaches the Wald interval (checked in the tests against a Newton fit
    of the exact counts).

    **Privacy.**  Post-processing of the release: costs no budget.

    References
    ----------
    .. [1] Romanus, O. M., Boulaguiem, Y. & Molinari, R. (2025). Fiducial
       matching: differentially private inference for categorical data.
       arXiv:2507.11762.  R package ``fima`` (github.com/SMAC-Group/fima).
    .. [2] Hannig, J. (2009). On generalized fiducial inference. Statistica
       Sinica 19, 491-544.

    Examples
    --------
    >>> from dpinfer import ContingencyTableReleaser, logistic_jimi
    >>> counts = [[60, 40], [35, 65],    # arm placebo: sex F, sex M  (outcome 0, 1)
    ...           [30, 70], [15, 85]]    # arm drug:    sex F, sex M
    >>> rel = ContingencyTableReleaser(epsilon=1.0).release(counts, rng=5)
    >>> fit = logistic_jimi(rel, design={"arm": ["placebo", "drug"], "sex": ["F", "M"]},
    ...                     n_sim=4000, rng=1)
    >>> print(fit)
    <BLANKLINE>
    	DP-JIMI fiducial logistic regression (4000 draws)
    <BLANKLINE>
    model:  y ~ arm + sex  (main-effects, treatment contrasts)
    data:   noisy 4 x 2 table (n = 400, Laplace scale 2 per cell)
    <BLANKLINE>
    Coefficients:
                Estimate   2.5 %   97.5 %  Pr(fid.)
    (Intercept)  -0.4864 -0.8813 -0.08481    0.0195
    armdrug       1.2902  0.7717  1.85868 0.0004999
    sexM          1.0917  0.5941  1.61796 0.0004999
    ---
    Estimate: fiducial median; interval: equal-tailed fiducial quantiles;
    Pr(fid.): two-sided fiducial p-value for coefficient = 0
    note: Monte Carlo: 4000 draws from the given rng; standard error of the p-values at most 0.0031
    <BLANKLINE>
    privacy: epsilon = 1, delta = 0, Laplace mechanism, seeded path (research only), 4000 Monte Carlo draws
    unit of privacy: one record (replace-one, sensitivity 2 per table)
    <BLANKLINE>
    >>> ci = fit.conf_int("armdrug")
    >>> round(ci.low, 3), round(ci.high, 3), ci.level
    (0.772, 1.859, 0.95)
    """
    z, b, eps, delta, secure, unit, n, relation = _table_input(table, epsilon, neighbours)
    k = z.shape[0]
    names, levels = _check_design(design, k)
    _check_choice(model, "model", _MODELS)
    n_sim = _check_n_sim(n_sim, allow_none=False)
    if n_sim < 2:
        raise ValueError(f"`n_sim` must be at least 2 (an interval needs draws on both sides); got {n_sim}.")
    level = _check_confidence_level(confidence_level)
    if not isinstance(draws, (bool, np.bool_)):
        raise TypeError(f"`draws` must be True or False; got {_show(draws)}.")
    x, terms = _design_matrix(names, levels, model)
    p = x.shape[1]
    if n_sim * k * p > _MAX_SIM_WORK:
        raise ValueError(
            f"`n_sim` times cells times coefficients must be at most {_MAX_SIM_WORK:_} (the draws are held "
            f"in memory at once); got n_sim = {n_sim} for {k} cells and {p} coefficients.")
    workers = check_workers(workers)
    gen, derived = _stream(rng, "logistic_jimi", z, b, eps, delta, n, n_sim)

    if workers is None:
        beta, converged = _draw_beta(gen, z, b, n_sim, x)
    else:  # fixed tasks of _TASK_DRAWS draws, task i from child i of one root: the same for every workers
        root = root_seed(gen)
        tasks = [(z, b, min(_TASK_DRAWS, n_sim - a), x, child_seed(root, i))
                 for i, a in enumerate(range(0, n_sim, _TASK_DRAWS))]
        parts = map_tasks(_beta_task, tasks, workers)
        beta, converged = (np.concatenate(column) for column in zip(*parts))
    notes = []
    if p != k:
        bad = int(np.count_nonzero(~converged))
        if bad:
            notes.append(f"{bad} of {n_sim} draws did not converge in {_MAX_ITER} Newton iterations")
            warn(f"logistic_jimi: {notes[0]}; their last iterate is used.", ApproximationWarning)
    median, low, high, pvalue = _summaries(beta, level)
    se = max(_share_se(p_j / 2.0, n_sim, 2.0) for p_j in pvalue)
    note = "; ".join(notes + [_mc_note(n_sim, se, derived, what="p-values at most")])

    formula = "y ~ " + (" * " if model == "saturated" else " + ").join(names)
    total = f"n = {n}" if n is not None else "n private"
    data_name = (f"noisy {k} x 2 table ({total}, Laplace scale {b:.4g} per cell)" if unit
                 else f"noisy {k} x 2 counts (Laplace scale {b:.4g} per cell)")
    return LogisticJimiResult(
        terms=terms, estimate=tuple(map(float, median)), conf_low=tuple(map(float, low)),
        conf_high=tuple(map(float, high)), pvalue=tuple(map(float, pvalue)), confidence_level=level,
        formula=formula, model=model, method=f"DP-JIMI fiducial logistic regression ({n_sim} draws)",
        epsilon=float(eps), delta=float(delta), mechanism=_mechanisms.LAPLACE, n_sim=n_sim, data_name=data_name,
        secure=secure, privacy_unit=unit, neighbours=relation, note=note, draws=beta if draws else None,
    )
