"""DP-JIMI's shared steps: input handling, tails and p-values, and the one-sample fiducial draws.

Private helpers of :mod:`dpinfer.inference.jimi` (one sample) and
``_jimi_two_sample``; they assume valid input unless they say otherwise.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from . import _kernels as _k
from ..._printing import _r_format, _released
from ... import _mechanisms
from ..._validation import DPInferValueError, _arg, _check_n_sim, _check_proportion_scale
from ..._workers import seeded_blocks
from .._draw_summary import draw_share, interval_tails, pvalue_from_shares
from .._resolve import accepts

#: Most fiducial draws per release.  One release's draws are held in memory at once
#: (about 40 bytes per draw across the working arrays: 400 MB at this limit), so the
#: limit is decided from ``n_sim`` before anything is allocated.
_MAX_N_SIM = 10_000_000


def _check_jimi_n_sim(n_sim, *, allow_none=True):
    """``n_sim``: None (exact limit, one sample only) or a positive int <= _MAX_N_SIM."""
    n_sim = _check_n_sim(n_sim, allow_none=allow_none)
    if n_sim is not None and n_sim > _MAX_N_SIM:
        exact = (" For more precision use n_sim=None, the exact limit of infinitely many draws."
                 if allow_none else "")
        raise DPInferValueError(
            _arg("n_sim"), f" must be at most {_MAX_N_SIM:_} (a release's draws are held in memory at once, "
            f"about 40 bytes each: {n_sim:_} draws would need {40 * n_sim / 1e9:.3g} GB); "
            f"got {n_sim!r}.{exact}"
        )
    return n_sim


#: the releases every DP-JIMI function takes (plain numbers stand for a Laplace proportion)
ACCEPTS = accepts(
    {(_mechanisms.LAPLACE, "proportion"), (_mechanisms.LAPLACE, "count")},
    ("binom_jimi_test", "binom_jimi_ci", "binom2_jimi_ci", "binom2_jimi_test", "binom_jimi_sample",
     "binom2_jimi_sample"),
    "a Laplace-noised proportion or count (LaplaceReleaser(epsilon).proportion(x, n) or .count(x, n))",
    numbers=(_mechanisms.LAPLACE, "proportion"))


def _proportions(rec, name, suffix=""):
    """The released proportions of a resolved record (a count divided by n), after the scale checks."""
    n, epsilon = rec.n, rec.epsilon
    if epsilon * n < 1e-150:
        raise ValueError(
            f"`epsilon{suffix}` * n must be at least 1e-150 (the Laplace noise, of scale "
            f"1/(epsilon n), would swamp any data); got epsilon = {epsilon!r} with n = {n}."
        )
    if rec.kind == "proportion":
        _check_proportion_scale(rec.value, n, epsilon, name,
                                count_fix=f"pass the noisy count with `kind{suffix}`='count'")
        return rec.value
    return rec.value / n


def _data_name(value, n, epsilon, kind):
    shown = _released(value)
    what = "noisy count" if kind == "count" else "pi_hat"
    return f"{what} = {shown}, n = {n}, epsilon = {_r_format([epsilon], 7)[0].strip()}"


_tails = interval_tails
_pvalue = pvalue_from_shares


_EXACT_BLOCK = 4096  # releases per block on the exact path


# --------------------------------------------------------------------------- one sample: kernels
def _one_sample(pi_hat, n, epsilon, tails, p0, n_sim, gen, low=0.0, workers=None):
    """Interval bounds and, if p0 is given, (share <= p0, share >= p0) per release.

    ``pi_hat`` flat (m,); ``tails`` = (lower, upper) tail probabilities, None for
    the parameter's own bound (``low`` and 1); ``n_sim`` None is the exact limit.
    ``workers`` other than None: the draws in blocks run there (:mod:`dpinfer._workers`).
    """
    lo_tail, hi_tail = tails
    lo = np.full(pi_hat.size, low)
    hi = np.ones(pi_hat.size)
    shares = None
    if n_sim is None:
        levels = [lv for lv in (lo_tail, None if hi_tail is None else 1.0 - hi_tail) if lv is not None]
        if p0 is not None:
            shares = (np.empty(pi_hat.size), np.empty(pi_hat.size))
        # Blocks of releases bound the quadrature's memory (~25 kB per release).
        for start in range(0, pi_hat.size, _EXACT_BLOCK):
            sl = slice(start, start + _EXACT_BLOCK)
            if levels:  # all bounds of the block's releases in one vectorised root search
                qs = list(_k._exact_quantile(np.array(levels)[:, None], pi_hat[None, sl], n, epsilon))
                if lo_tail is not None:
                    lo[sl] = qs.pop(0)
                if hi_tail is not None:
                    hi[sl] = qs.pop(0)
            if p0 is not None:
                shares[0][sl] = _k._exact_cdf(p0, pi_hat[sl], n, epsilon)
                shares[1][sl] = _k._exact_upper(p0, pi_hat[sl], n, epsilon)
        return lo, hi, shares
    if workers is not None:  # fixed blocks of BLOCK_ROWS releases, block i from child i of one root
        task = functools.partial(_one_sample_task, n, epsilon, tails, p0, n_sim, low)
        return join_blocks(seeded_blocks(task, (pi_hat,), BLOCK_ROWS, gen, workers), p0)
    le = np.empty(pi_hat.size)
    ge = np.empty(pi_hat.size)
    for sl in _k._chunks(pi_hat.size, n_sim):
        draws = _k._draw_theta(gen, pi_hat[sl], n, epsilon, n_sim)
        _fill(sl, draws, tails, p0, lo, hi, le, ge)
    return lo, hi, ((le, ge) if p0 is not None else None)


#: releases per task with ``workers`` (fixed: the blocks, hence the answer, never depend
#: on the number of workers)
BLOCK_ROWS = 64


def _one_sample_task(n, epsilon, tails, p0, n_sim, low, pi_hat, seed):
    """One block of releases of :func:`_one_sample` with ``workers``: ``(lo, hi, le, ge)``."""
    lo, hi, shares = _one_sample(pi_hat, n, epsilon, tails, p0, n_sim, np.random.default_rng(seed), low)
    return (lo, hi) + (shares if shares is not None else (lo[:0], lo[:0]))


def join_blocks(parts, p0):
    """``(lo, hi, shares)`` from the blocks' ``(lo, hi, le, ge)`` (shares None without a null)."""
    lo, hi, le, ge = (np.concatenate(column) for column in zip(*parts))
    return lo, hi, ((le, ge) if p0 is not None else None)


def _fill(sl, draws, tails, p0, lo, hi, le, ge, *, mid_ties=False):
    """Write one block's sample bounds and null-side shares into the outputs.

    ``mid_ties``: draws equal to p0 count one half on each side (mid-p), the rule
    of the two-sample test (see :func:`binom2_jimi_test`).
    """
    if p0 is not None:
        if mid_ties:
            below, tied = np.mean(draws < p0, axis=1), np.mean(draws == p0, axis=1)
            le[sl] = below + 0.5 * tied
            ge[sl] = (1.0 - below - tied) + 0.5 * tied
        else:
            le[sl], ge[sl] = _k._tail_shares(draws, p0)
        h = draws.shape[1]  # the observed release counts as one of the draws (never p = 0, issue 40)
        le[sl], ge[sl] = draw_share(le[sl] * h, h), draw_share(ge[sl] * h, h)
    if tails != (None, None):
        b_lo, b_hi = _k._sample_bounds(draws, *tails)
        if b_lo is not None:
            lo[sl] = b_lo
        if b_hi is not None:
            hi[sl] = b_hi


def _stack(lo, hi, shape):
    return np.stack([lo, hi], axis=-1).reshape(shape + (2,))


def _curve(run, gen, alternative, values):
    """The p-value at each null value in ``values`` from the same draws as the test
    (``run(value, gen)`` gives ``(lo, hi, (le, ge))``; ``gen`` is copied for every value, so
    each value sees the stream the reported p-value and interval came from)."""
    values = np.asarray(values, dtype=float)
    out = np.empty(values.shape)
    for i, value in enumerate(values.flat):
        _, _, (le, ge) = run(float(value), copy.deepcopy(gen))
        out.flat[i] = float(np.clip(np.ravel(_pvalue(le, ge, alternative))[0], 0.0, 1.0))
    return out if values.ndim else float(out)
