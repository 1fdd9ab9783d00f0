"""DP-JIMI's shared steps: input handling, tails and p-values, and the one-sample fiducial draws.

Private helpers of :mod:`dpinfer.inference.jimi` (one sample) and
``_jimi_two_sample``; they assume valid input unless they say otherwise.
"""

from __future__ import annotations

import numpy as np

from . import _kernels as _k
from ..._printing import _r_format
from ..._validation import (
    DPInferValueError,
    _arg,
    _method,
    _as_real_array,
    _check_epsilon,
    _check_int,
    _check_n_sim,
    _check_proportion_scale,
    _show,
)


_KINDS = ("proportion", "count")

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


def _resolve(value, n, epsilon, kind, *, value_name, n_name, epsilon_name, kind_name):
    """Validate one release's inputs; return (pi_hat, n, epsilon, kind, is_scalar, raw).

    ``raw`` is the released value as given (a noisy count for kind 'count').

    A :class:`~dpinfer.Release` supplies n, epsilon (and its kind); a plain number
    needs ``n`` and ``epsilon``, and is a proportion unless ``kind='count'``.
    """
    from ...releasers.release import Release  # local: releasers import results, not inference

    if kind is not None and not isinstance(kind, str):  # before `in`: an array would compare elementwise
        raise TypeError(f"`{kind_name}` must be None, 'proportion' or 'count'; got {_show(kind)}.")
    if kind is not None and kind not in _KINDS:
        raise ValueError(f"`{kind_name}` must be None, 'proportion' or 'count'; got {kind!r}.")
    if isinstance(value, Release):
        rel = value
        if n is not None or epsilon is not None:
            given = [nm for nm, v in ((n_name, n), (epsilon_name, epsilon)) if v is not None]
            raise ValueError(
                f"{', '.join(f'`{g}`' for g in given)} must not be given with a Release: "
                f"the release records n = {rel.n} and epsilon = {rel.epsilon:g}."
            )
        if rel.mechanism == "tulap":
            raise DPInferValueError(
                _arg(value_name), " is a Tulap release; DP-JIMI here inverts the Laplace mechanism "
                "(pi_hat = X/n + Laplace noise). For a Tulap release use ",
                _method("ump", "binom_ump_test / binom_ump_ci"), ", which are exact for Tulap noise."
            )
        if rel.mechanism != "laplace":
            raise ValueError(
                f"`{value_name}` must be a Laplace release (LaplaceReleaser.proportion or "
                f".count); got mechanism {rel.mechanism!r}."
            )
        if rel.kind not in _KINDS or rel.n is None:
            raise ValueError(
                f"`{value_name}` must be a Laplace release of a proportion or a count out of n "
                f"(LaplaceReleaser.proportion or .count); got kind {rel.kind!r}."
            )
        if kind is not None and kind != rel.kind:
            raise ValueError(
                f"`{kind_name}` = {kind!r} contradicts the release, whose kind is {rel.kind!r}; "
                f"leave `{kind_name}` out when passing a Release."
            )
        expected = 1.0 / rel.n if rel.kind == "proportion" else 1.0
        if not np.isclose(rel.sensitivity, expected, rtol=1e-12, atol=0.0):
            raise ValueError(
                f"`{value_name}` must have sensitivity {expected:g} for a {rel.kind} out of "
                f"n = {rel.n}; got {rel.sensitivity!r}."
            )
        if rel.delta != 0.0:
            raise ValueError(f"`{value_name}` must be a pure-DP Laplace release (delta = 0); got {rel.delta!r}.")
        raw, n, epsilon, kind = rel.value, rel.n, rel.epsilon, rel.kind
    else:
        if n is None:
            raise TypeError(f"`{n_name}` is required unless `{value_name}` is a Release.")
        if epsilon is None:
            raise TypeError(f"`{epsilon_name}` is required unless `{value_name}` is a Release.")
        n = _check_int(n, n_name, minimum=1)
        epsilon = _check_epsilon(epsilon, epsilon_name)
        kind = "proportion" if kind is None else kind
        raw = value
    if epsilon * n < 1e-150:
        raise ValueError(
            f"`{epsilon_name}` * n must be at least 1e-150 (the Laplace noise, of scale "
            f"1/(epsilon n), would swamp any data); got epsilon = {epsilon!r} with n = {n}."
        )
    arr = _as_real_array(raw, value_name)
    if kind == "proportion":
        _check_proportion_scale(arr, n, epsilon, value_name,
                                count_fix=f"pass the noisy count with `{kind_name}`='count'")
    pi_hat = arr / n if kind == "count" else arr
    return pi_hat, n, epsilon, kind, arr.ndim == 0, arr


def _data_name(value, n, epsilon, kind):
    shown = _r_format([value], 4)[0].strip()
    what = "noisy count" if kind == "count" else "pi_hat"
    return f"{what} = {shown}, n = {n}, epsilon = {_r_format([epsilon], 7)[0].strip()}"


def _tails(confidence_level, alternative):
    """Tail probabilities (lower, upper) outside the interval; None marks the parameter's own bound."""
    a = 1.0 - confidence_level
    if alternative == "two-sided":
        return 0.5 * a, 0.5 * a
    if alternative == "greater":
        return a, None
    return None, a


def _pvalue(share_le, share_ge, alternative):
    if alternative == "greater":
        return share_le
    if alternative == "less":
        return share_ge
    return np.minimum(1.0, 2.0 * np.minimum(share_le, share_ge))


_EXACT_BLOCK = 4096  # releases per block on the exact path


# --------------------------------------------------------------------------- one sample: kernels
def _one_sample(pi_hat, n, epsilon, tails, p0, n_sim, gen, low=0.0):
    """Interval bounds and, if p0 is given, (share <= p0, share >= p0) per release.

    ``pi_hat`` flat (m,); ``tails`` = (lower, upper) tail probabilities, None for
    the parameter's own bound (``low`` and 1); ``n_sim`` None is the exact limit.
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
    le = np.empty(pi_hat.size)
    ge = np.empty(pi_hat.size)
    for sl in _k._chunks(pi_hat.size, n_sim):
        draws = _k._draw_theta(gen, pi_hat[sl], n, epsilon, n_sim)
        _fill(sl, draws, tails, p0, lo, hi, le, ge)
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
    if tails != (None, None):
        b_lo, b_hi = _k._sample_bounds(draws, *tails)
        if b_lo is not None:
            lo[sl] = b_lo
        if b_hi is not None:
            hi[sl] = b_hi


def _stack(lo, hi, shape):
    return np.stack([lo, hi], axis=-1).reshape(shape + (2,))
