"""Events on the output's values: sets of discrete outputs, thresholds and bins, and the event record."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._bounds import _bound, _cp_lower, _cp_upper


_N_THRESHOLDS = 256  # candidate thresholds per projection (quantiles of the selection half)
_N_BINS = 32  # histogram bins per projection
_MAX_CATEGORIES = 4096  # distinct outputs up to which the output is treated as discrete
_MIN_PER_CATEGORY = 20  # ... provided there are this many draws per distinct output


@dataclass(frozen=True)
class _Event:
    """An output event fixed on the selection half.

    ``mask`` maps an (m, D) output array to a boolean vector; ``forward`` says
    whether ``x`` is the numerator; ``score`` is the bound the event reached on
    the selection half (used only to choose).
    """

    mask: object
    label: str
    forward: bool
    score: float


def _discrete_encoder(pooled):
    """A map from output rows to integer codes when the output takes few values, else None.

    Each coordinate's values seen in ``pooled`` are indexed and the row is
    coded in mixed radix (rows with a coordinate value never seen get -1).
    """
    levels = []
    size = 1
    for j in range(pooled.shape[1]):
        u = np.unique(pooled[:, j])
        size *= u.size
        if u.size > _MAX_CATEGORIES or size > 2**62:
            return None
        levels.append(u)

    def encode(values):
        code = np.zeros(values.shape[0], dtype=np.int64)
        valid = np.ones(values.shape[0], dtype=bool)
        for j, u in enumerate(levels):
            idx = np.clip(np.searchsorted(u, values[:, j]), 0, u.size - 1)
            valid &= u[idx] == values[:, j]
            code = code * u.size + idx
        return np.where(valid, code, -1)

    def decode(code):
        row = []
        for u in reversed(levels):
            code, idx = divmod(int(code), u.size)
            row.append(u[idx])
        return np.array(row[::-1])

    codes = np.unique(encode(pooled))
    # a quantised real output (the hardened Laplace grid) is not "discrete" here:
    # value sets need many draws per value to be estimated
    if codes.size > min(_MAX_CATEGORIES, pooled.shape[0] / _MIN_PER_CATEGORY):
        return None
    return encode, decode, codes


def _describe_values(rows):
    shown = []
    for row in rows[:6]:
        shown.append(_fmt_num(row[0]) if row.size == 1 else "(" + ", ".join(_fmt_num(v) for v in row) + ")")
    more = f", ... ({len(rows)} values)" if len(rows) > 6 else ""
    return "Z in {" + ", ".join(shown) + more + "}"


def _fmt_num(v):
    return f"{v:.6g}"


def _best_set(code_x, code_y, m, delta, tail):
    """The best Neyman-Pearson set of codes: ``(score, forward, members)``.

    Codes are ordered by their smoothed empirical ratio ``(k + 1/2) / (k' + 1/2)``
    (the raw ratio would put codes seen once, ratio infinity, first) and the
    prefix maximising the Clopper-Pearson bound is kept, in each direction.
    """
    codes = np.unique(np.concatenate([code_x, code_y]))
    cx = np.bincount(np.searchsorted(codes, code_x), minlength=codes.size).astype(float)
    cy = np.bincount(np.searchsorted(codes, code_y), minlength=codes.size).astype(float)
    best = (-1.0, True, codes[:0])
    for forward, num, den in ((True, cx, cy), (False, cy, cx)):
        order = np.argsort(-(num + 0.5) / (den + 0.5), kind="stable")
        scores = _bound(_cp_lower(np.cumsum(num[order]), m, tail), _cp_upper(np.cumsum(den[order]), m, tail), delta)
        i = int(np.argmax(scores))
        if scores[i] > best[0]:
            best = (float(scores[i]), forward, np.sort(codes[order[: i + 1]]))
    return best


def _best_threshold(fx, fy, m, delta, tail):
    """The best event ``{f >= t}`` or ``{f < t}`` for an ordered feature: ``(score, forward, t, upper)``."""
    fx, fy = np.sort(fx), np.sort(fy)
    levels = np.unique(np.concatenate([fx, fy]))
    ge_x = m - np.searchsorted(fx, levels, side="left")
    ge_y = m - np.searchsorted(fy, levels, side="left")
    best = (-1.0, True, levels[0], True)
    for upper, kx, ky in ((True, ge_x, ge_y), (False, m - ge_x, m - ge_y)):
        for forward, num, den in ((True, kx, ky), (False, ky, kx)):
            scores = _bound(_cp_lower(num, m, tail), _cp_upper(den, m, tail), delta)
            i = int(np.argmax(scores))
            if scores[i] > best[0]:
                best = (float(scores[i]), forward, levels[i], upper)
    return best


def _choose_discrete(sel_x, sel_y, encoder, delta, tail):
    encode, decode, _ = encoder
    score, forward, members = _best_set(encode(sel_x), encode(sel_y), sel_x.shape[0], delta, tail)

    def mask(values):
        return np.isin(encode(values), members)

    return _Event(mask, _describe_values([decode(c) for c in members]), forward, score)


def _choose_continuous(sel_x, sel_y, delta, tail):
    m = sel_x.shape[0]
    n_dim = sel_x.shape[1]
    projections = [(f"Z[{j}]" if n_dim > 1 else "Z", np.eye(n_dim)[j]) for j in range(n_dim)]
    if n_dim > 1:
        # scaled before normalising so that outputs near the float limits do not overflow
        with np.errstate(over="ignore", invalid="ignore"):
            direction = sel_x.mean(axis=0) - sel_y.mean(axis=0)
            scale = np.max(np.abs(direction))
            if np.isfinite(scale) and scale > 0:
                w = direction / scale
                w = w / np.linalg.norm(w)
                if np.isfinite(sel_x @ w).all() and np.isfinite(sel_y @ w).all():
                    projections.append(("w.Z", w))
    best = (-1.0, None)
    probs = np.linspace(0.0, 1.0, _N_THRESHOLDS + 2)[1:-1]
    edges_p = np.linspace(0.0, 1.0, _N_BINS + 1)[1:-1]
    for name, w in projections:
        px = np.sort(sel_x @ w)
        py = np.sort(sel_y @ w)
        pooled = np.concatenate([px, py])
        # sample values as thresholds (no interpolation, which could overflow)
        thresholds = np.unique(np.quantile(pooled, probs, method="inverted_cdf"))
        # counts of {P > t} under each input, then {P < t} (= m - #{P >= t})
        gt_x = m - np.searchsorted(px, thresholds, side="right")
        gt_y = m - np.searchsorted(py, thresholds, side="right")
        lt_x = np.searchsorted(px, thresholds, side="left")
        lt_y = np.searchsorted(py, thresholds, side="left")
        edges = np.unique(np.concatenate([[-np.inf], np.quantile(pooled, edges_p, method="inverted_cdf"), [np.inf]]))
        lo, hi = edges[:-1], edges[1:]
        bin_x = np.searchsorted(px, hi, side="left") - np.searchsorted(px, lo, side="left")
        bin_y = np.searchsorted(py, hi, side="left") - np.searchsorted(py, lo, side="left")
        candidates = [
            ("gt", thresholds, None, gt_x, gt_y),
            ("lt", thresholds, None, lt_x, lt_y),
            ("bin", lo, hi, bin_x, bin_y),
        ]
        for kind, a, b, kx, ky in candidates:
            for forward, num, den in ((True, kx, ky), (False, ky, kx)):
                scores = _bound(_cp_lower(num, m, tail), _cp_upper(den, m, tail), delta)
                if np.ndim(scores) == 0 or scores.size == 0:
                    continue
                i = int(np.argmax(scores))
                if scores[i] > best[0]:
                    best = (float(scores[i]), (name, w, kind, a[i], None if b is None else b[i], forward))
    score, (name, w, kind, a, b, forward) = best
    if kind == "gt":
        label = f"{name} > {_fmt_num(a)}"

        def mask(values):
            return values @ w > a
    elif kind == "lt":
        label = f"{name} < {_fmt_num(a)}"

        def mask(values):
            return values @ w < a
    else:
        label = f"{_fmt_num(a)} <= {name} < {_fmt_num(b)}"

        def mask(values):
            proj = values @ w
            return (proj >= a) & (proj < b)
    return _Event(mask, label, forward, score)
