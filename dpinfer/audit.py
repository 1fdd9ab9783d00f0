"""Statistical privacy audits: a lower confidence bound on the privacy loss a releaser incurs.

A releaser *claims* (epsilon, delta)-differential privacy.  For a pair of
neighbouring inputs ``x`` and ``x'`` and any event ``E`` of the output, the claim
implies ``P_x(E) <= exp(epsilon) P_x'(E) + delta``.  Sampling the releaser many
times on both inputs, choosing an event on one half of the samples and bounding
the two probabilities on the other half gives a lower confidence bound on the
epsilon the releaser actually spends: a bound above the claim is statistical
evidence of a violation (a bug, a mislabelled epsilon, too little noise).  This
is the statistical tester of Ding et al. (2018) in the form used by
DP-Auditorium (Kong et al. 2024) and by Jagielski et al. (2020): Clopper-Pearson
bounds on the two event probabilities.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from ._validation import (
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_rng,
    _show,
)
from .releasers.release import Release
from .results import _r_format

__all__ = ["AuditResult", "audit_releaser"]

_N_THRESHOLDS = 256  # candidate thresholds per projection (quantiles of the selection half)
_N_BINS = 32  # histogram bins per projection
_MAX_CATEGORIES = 4096  # distinct outputs up to which the output is treated as discrete
_MIN_PER_CATEGORY = 20  # ... provided there are this many draws per distinct output


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_releaser`.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound (at ``confidence_level``) on the privacy loss the
        releaser incurs on this pair of inputs; 0.0 when the data show none.
    epsilon, delta : float
        The privacy level the releaser claims (recorded in its releases, or given).
    violation : bool
        ``epsilon_lower > epsilon``: the claim is refuted at ``confidence_level``.
    verdict : str
        ``'violation'`` or ``'no violation detected'``.
    confidence_level : float
        Joint level of the two Clopper-Pearson bounds (each one-sided at
        ``1 - (1 - confidence_level) / 2``).
    event : str
        The output event chosen on the selection half, e.g. ``'Z > 1.2'``.
    direction : str
        ``"x over x'"`` when the bound is on ``P_x(E) / P_x'(E)``, else ``"x' over x"``.
    counts : tuple of int
        Occurrences of the event in the evaluation half under the numerator
        input and under the denominator input.
    n_eval : int
        Evaluation-half sample size per input.
    n_samples : int
        Releases drawn per input (selection and evaluation halves together).
    p_lower, p_upper : float
        Clopper-Pearson lower bound on the numerator probability and upper bound
        on the denominator probability.
    mechanism : str or None
        The ``mechanism`` recorded in the releases, when the releaser returns them.
    """

    epsilon_lower: float
    epsilon: float
    delta: float
    violation: bool
    verdict: str
    confidence_level: float
    event: str
    direction: str
    counts: tuple
    n_eval: int
    n_samples: int
    p_lower: float
    p_upper: float
    mechanism: str | None

    def __str__(self):
        fmt = lambda v: _r_format([v], 5)[0]  # noqa: E731
        mech = f" ({self.mechanism} mechanism)" if self.mechanism else ""
        return (
            f"\n\tPrivacy audit{mech}\n\n"
            f"claimed: epsilon = {fmt(self.epsilon)}, delta = {fmt(self.delta)}\n"
            f"{fmt(100 * self.confidence_level)} percent lower confidence bound on epsilon: "
            f"{fmt(self.epsilon_lower)}\n"
            f"verdict: {self.verdict}\n"
            f"event: {self.event} ({self.direction}); counts {self.counts[0]} and {self.counts[1]} "
            f"of {self.n_eval} each\n"
        )

    def to_dict(self):
        """A flat JSON-safe dict of the attributes."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["counts"] = list(self.counts)
        return out


def audit_releaser(
    mechanism,
    x,
    x_prime,
    *,
    args=(),
    epsilon=None,
    delta=None,
    n_samples=100_000,
    confidence_level=0.95,
    vectorized=True,
    rng=None,
):
    """Lower confidence bound on the privacy loss of a releaser on neighbouring inputs.

    Parameters
    ----------
    mechanism : releaser or callable
        A dpinfer releaser (its ``release`` method is used), a bound method such
        as ``LaplaceReleaser(1.0).proportion``, or any callable.  It is called as
        ``mechanism(inputs, *args, rng=generator)`` and must return a
        :class:`~dpinfer.Release` or an array of numbers.  With ``vectorized``
        (the default) ``inputs`` stacks ``n_samples`` copies of the input along
        a new first axis and the output's first axis must match; otherwise it is
        called once per draw with the input itself.
    x, x_prime : scalar or array_like
        A pair of neighbouring inputs, under the releaser's neighbouring relation
        (for a count: ``x`` and ``x + 1``; for a local releaser: two answers).
    args : tuple, default ()
        Extra positional arguments after the input, e.g. ``(n,)`` for
        ``TulapReleaser.release(x, n)``.
    epsilon, delta : float, optional
        The claim to audit.  Default: the ``epsilon`` and ``delta`` recorded in
        the releases (required when the mechanism returns plain numbers).
    n_samples : int, default 100_000
        Releases drawn per input, 20 to 1e8; half select the event, half
        evaluate it.
    confidence_level : float, default 0.95
        Joint confidence of the lower bound.
    vectorized : bool, default True
        Whether ``mechanism`` accepts a stacked batch of inputs.
    rng : None, int, SeedSequence or numpy.random.Generator
        Passed (as a Generator) to ``mechanism``; the two inputs get independent
        streams spawned from it.

    Returns
    -------
    AuditResult
        ``epsilon_lower``, ``epsilon``, ``delta``, ``violation``, ``verdict``,
        ``confidence_level``, ``event``, ``direction``, ``counts``, ``n_eval``,
        ``n_samples``, ``p_lower``, ``p_upper``, ``mechanism``.

    Raises
    ------
    TypeError
        If ``mechanism`` is not callable, ``args`` is not a tuple, ``vectorized``
        is not a bool, the mechanism returns something that is not a Release or
        an array of real numbers, or the releases disagree with each other.
    ValueError
        If ``n_samples`` is outside [20, 1e8], ``confidence_level`` is not in (0, 1), no claim is
        available, the output shape does not match the batch, or the output
        contains NaN.

    See Also
    --------
    dpinfer.TulapReleaser, dpinfer.LaplaceReleaser, dpinfer.TwoCoinRRReleaser

    Notes
    -----
    **Procedure.**  ``n_samples`` outputs are drawn from each input and split in
    halves.  On the first half an event is chosen among

    * for a discrete output (at most 4096 distinct values and at least 20 draws
      per value in the selection half, vectors compared whole): sets of output
      values, ordered by their empirical likelihood ratio (the Neyman-Pearson
      sets);
    * for a real output: threshold events ``{Z > t}``, ``{Z < t}`` (256
      candidate ``t``, quantiles of the pooled half) and 32 histogram bins, on
      the output itself or, for a vector output, on each coordinate and on the
      projection onto the difference of the two mean outputs;

    in both directions (``x`` over ``x'`` and back), maximising the bound below
    computed on the first half (the raw empirical log ratio would pick events
    seen a handful of times, with ratio infinity).  On the second half, with
    ``k`` and ``k'`` occurrences of the chosen event among ``m`` draws each,
    Clopper-Pearson gives ``p_lower <= P_x(E)`` and ``p_upper >= P_x'(E)``, each
    one-sided at level ``1 - (1 - confidence_level) / 2`` (Bonferroni), and

        ``epsilon_lower = log((p_lower - delta) / p_upper)``  (0 if not positive).

    **Guarantee.**  If the releaser is (epsilon, delta)-DP, then
    ``P(epsilon_lower > epsilon) <= 1 - confidence_level``: the event is fixed
    before the second half is seen, so the two bounds hold jointly with that
    probability, and then ``(p_lower - delta) / p_upper <= (P_x(E) - delta) /
    P_x'(E) <= exp(epsilon)``.  A violation verdict is therefore a false alarm
    with probability at most ``1 - confidence_level``.  The bound says nothing
    about inputs or events not tried: "no violation detected" is not a proof of
    privacy; the exact checks in the test suite are.

    References
    ----------
    Ding, Z., Wang, Y., Wang, G., Zhang, D. and Kifer, D. (2018).  Detecting
    violations of differential privacy.  ACM CCS.
    Jagielski, M., Ullman, J. and Oprea, A. (2020).  Auditing differentially
    private machine learning: how private is private SGD?  NeurIPS 33.
    Kong, W., Munoz Medina, A., Ribero, M. and Syed, U. (2024).  DP-Auditorium:
    a large scale library for auditing differential privacy.  IEEE S&P.

    Examples
    --------
    >>> from dpinfer import LaplaceReleaser, audit_releaser
    >>> res = audit_releaser(LaplaceReleaser(1.0).count, 10, 11, args=(30,),
    ...                      n_samples=20_000, rng=1)
    >>> res.epsilon, res.violation
    (1.0, False)
    >>> 0.5 < res.epsilon_lower < 1.0
    True
    """
    call = _check_mechanism(mechanism)
    if not isinstance(args, tuple):
        raise TypeError(f"`args` must be a tuple of extra positional arguments; got {_show(args)}.")
    if not isinstance(vectorized, (bool, np.bool_)):
        raise TypeError(f"`vectorized` must be True or False; got {_show(vectorized)}.")
    n_samples = _check_int(n_samples, "n_samples", minimum=20, maximum=10**8)
    confidence_level = _check_confidence_level(confidence_level)
    if epsilon is not None:
        epsilon = _check_epsilon(epsilon)
    if delta is not None:
        delta = _check_delta(delta)
    x = _check_input(x, "x")
    x_prime = _check_input(x_prime, "x_prime")
    gen = _check_rng(rng)
    gens = gen.spawn(2)

    out_x, rec_x = _draw(call, x, args, n_samples, vectorized, gens[0], "x")
    out_y, rec_y = _draw(call, x_prime, args, n_samples, vectorized, gens[1], "x_prime")
    if out_x.shape[1:] != out_y.shape[1:]:
        raise ValueError(
            f"the mechanism's outputs for `x` and `x_prime` differ in shape: {out_x.shape[1:]} "
            f"and {out_y.shape[1:]}; the two inputs must be neighbours of the same kind."
        )
    claim = _claim(rec_x, rec_y, epsilon, delta)
    eps_claim, delta_claim, mech_name = claim

    half = n_samples // 2
    m = n_samples - half
    sel_x, ev_x = out_x[:half], out_x[half:]
    sel_y, ev_y = out_y[:half], out_y[half:]
    tail = (1.0 - confidence_level) / 2.0

    best = _choose_event(sel_x, sel_y, delta_claim, tail)
    mask, label, forward = best
    ind_x, ind_y = mask(ev_x), mask(ev_y)
    k_num, k_den = (int(ind_x.sum()), int(ind_y.sum())) if forward else (int(ind_y.sum()), int(ind_x.sum()))
    p_lower = float(_cp_lower(k_num, m, tail))
    p_upper = float(_cp_upper(k_den, m, tail))
    eps_lower = _bound(p_lower, p_upper, delta_claim)
    violation = bool(eps_lower > eps_claim)
    return AuditResult(
        epsilon_lower=eps_lower,
        epsilon=eps_claim,
        delta=delta_claim,
        violation=violation,
        verdict="violation" if violation else "no violation detected",
        confidence_level=confidence_level,
        event=label,
        direction="x over x'" if forward else "x' over x",
        counts=(k_num, k_den),
        n_eval=m,
        n_samples=n_samples,
        p_lower=p_lower,
        p_upper=p_upper,
        mechanism=mech_name,
    )


# -- boundary helpers --------------------------------------------------------


def _check_mechanism(mechanism):
    release = getattr(mechanism, "release", None)
    if callable(release) and not inspect.isroutine(mechanism):
        return release
    if not callable(mechanism):
        raise TypeError(
            "`mechanism` must be a dpinfer releaser or a callable mechanism(inputs, *args, rng=...); "
            f"got {_show(mechanism)}."
        )
    return mechanism


def _check_input(value, name):
    if value is None or isinstance(value, str):
        raise TypeError(f"`{name}` must be a number or an array of numbers; got {_show(value)}.")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be a number or an array of numbers; got {_show(value)}.") from exc
    if not (arr.dtype == bool or np.issubdtype(arr.dtype, np.number)):
        raise TypeError(f"`{name}` must be a number or an array of numbers; got {_show(value)}.")
    return arr


def _draw(call, value, args, n_samples, vectorized, gen, name):
    """``n_samples`` outputs for one input as an (n_samples, D) float array, plus the claim seen."""
    if vectorized:
        batch = np.broadcast_to(value, (n_samples,) + value.shape).copy()
        raw = _invoke(call, batch, args, gen, name)
        values, record = _unpack(raw, name)
        if values.ndim == 0 or values.shape[0] != n_samples:
            raise ValueError(
                f"the mechanism returned shape {values.shape} for {n_samples} stacked copies of `{name}`; "
                "a vectorised mechanism must return one output per copy along the first axis "
                "(pass vectorized=False for a mechanism that takes one input at a time)."
            )
    else:
        rows, record = [], None
        for _ in range(n_samples):
            one, rec = _unpack(_invoke(call, value.copy(), args, gen, name), name)
            rows.append(one)
            record = _same_record(record, rec)
        try:
            values = np.stack(rows)
        except ValueError as exc:
            raise ValueError("the mechanism's outputs do not all have the same shape.") from exc
    values = values.reshape(n_samples, -1)
    if np.isnan(values).any():
        raise ValueError(f"the mechanism returned NaN for `{name}`; an audit needs real outputs.")
    return values, record


def _invoke(call, inputs, args, gen, name="x"):
    """Call the mechanism; explain a signature mismatch (the usual mistake: a missing ``n``).

    A ValueError of the mechanism about its input is re-raised naming the audit's
    argument (``x`` or ``x_prime``): the releaser's own message calls it ``x``.
    """
    try:
        return call(inputs, *args, rng=gen)
    except ValueError as exc:
        raise ValueError(f"the mechanism rejected `{name}`: {exc}") from exc
    except TypeError as exc:
        text = str(exc)
        if "positional argument" in text or "keyword argument" in text:
            raise TypeError(
                f"`mechanism` could not be called as mechanism(inputs, *args, rng=generator): {text}. "
                "Pass its other positional arguments with `args`, e.g. args=(n,) for "
                "TulapReleaser.release(x, n)."
            ) from exc
        raise


def _unpack(raw, name):
    if isinstance(raw, Release):
        return np.asarray(raw.value, dtype=float), (raw.epsilon, raw.delta, raw.mechanism)
    try:
        values = np.asarray(raw)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"the mechanism must return a Release or numbers; got {_show(raw)}.") from exc
    if not (values.dtype == bool or np.issubdtype(values.dtype, np.number)) or np.iscomplexobj(values):
        raise TypeError(f"the mechanism must return a Release or real numbers; got {_show(raw)} for `{name}`.")
    return values.astype(float), None


def _same_record(old, new):
    if old is not None and new != old:
        raise TypeError(f"the mechanism's releases record different privacy claims: {old} and {new}.")
    return new if new is not None else old


def _claim(rec_x, rec_y, epsilon, delta):
    if rec_x is not None and rec_y is not None and rec_x != rec_y:
        raise TypeError(f"the releases for `x` and `x_prime` record different claims: {rec_x} and {rec_y}.")
    record = rec_x if rec_x is not None else rec_y
    if epsilon is None:
        if record is None:
            raise ValueError("`epsilon` is required when the mechanism returns plain numbers (no Release).")
        epsilon = float(record[0])
    if delta is None:
        delta = float(record[1]) if record is not None else 0.0
    return epsilon, delta, (record[2] if record is not None else None)


# -- statistics ----------------------------------------------------------------


def _cp_lower(k, m, tail):
    """One-sided Clopper-Pearson lower bound on a probability from k successes in m."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(k > 0, betaincinv(np.maximum(k, 1.0), m - k + 1.0, tail), 0.0)


def _cp_upper(k, m, tail):
    """One-sided Clopper-Pearson upper bound on a probability from k successes in m."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(k < m, betaincinv(k + 1.0, np.maximum(m - k, 1.0), 1.0 - tail), 1.0)


def _bound(p_lower, p_upper, delta):
    """log((p_lower - delta) / p_upper), floored at 0 (vectorised)."""
    num = np.asarray(p_lower, dtype=float) - delta
    den = np.asarray(p_upper, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.where((num > 0) & (den > 0), np.log(np.maximum(num, 1e-300) / np.maximum(den, 1e-300)), 0.0)
    val = np.maximum(val, 0.0)
    return float(val) if val.ndim == 0 else val


def _choose_event(sel_x, sel_y, delta, tail):
    """The event maximising the Clopper-Pearson bound on the selection half.

    Returns ``(mask, label, forward)``: a function mapping an (m, D) output array
    to a boolean vector, a description, and whether ``x`` is the numerator.
    """
    encoder = _discrete_encoder(np.concatenate([sel_x, sel_y]))
    if encoder is not None:
        return _choose_discrete(sel_x, sel_y, encoder, delta, tail)
    return _choose_continuous(sel_x, sel_y, delta, tail)


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


def _choose_discrete(sel_x, sel_y, encoder, delta, tail):
    encode, decode, codes = encoder
    m = sel_x.shape[0]
    cx = np.bincount(np.searchsorted(codes, encode(sel_x)), minlength=codes.size).astype(float)
    cy = np.bincount(np.searchsorted(codes, encode(sel_y)), minlength=codes.size).astype(float)
    best = (-1.0, None, None)
    for forward, num, den in ((True, cx, cy), (False, cy, cx)):
        order = np.argsort(-(num + 0.5) / (den + 0.5), kind="stable")
        k_num = np.cumsum(num[order])
        k_den = np.cumsum(den[order])
        scores = _bound(_cp_lower(k_num, m, tail), _cp_upper(k_den, m, tail), delta)
        i = int(np.argmax(scores))
        if scores[i] > best[0]:
            best = (float(scores[i]), forward, np.sort(codes[order[: i + 1]]))
    _, forward, members = best

    def mask(values):
        return np.isin(encode(values), members)

    return mask, _describe_values([decode(c) for c in members]), forward


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
    name, w, kind, a, b, forward = best[1]
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
    return mask, label, forward
