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

The events include bit-level ones (the lowest set bit of the output, exact
representability on a grid ``2**t``, parities), which catch a releaser whose
floating-point arithmetic makes the set of possible outputs depend on the input
(Mironov 2012).  Layout: :func:`audit_releaser` draws the releases, then
``_select_event`` chooses the event on the selection half and ``_bound_event``
bounds it on the evaluation half; ``_bit_cells`` is the bit-level feature, shared
with the test suite's bit-privacy check.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from ._printing import _r_format
from ._validation import (
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_rng,
    _show,
)
from .budget._charging import MECHANISMS, check_budget
from .releasers.release import Release

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
            f"releases drawn: 2 x {self.n_samples} on the audit's inputs x and x' (use synthetic inputs: "
            "on real data each draw spends epsilon)\n"
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
    budget=None,
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
    budget : PrivacyBudget or budget handle, optional
        Charged ``2 n_samples`` releases at the claimed ``(epsilon, delta)``
        (``epsilon``/``delta`` if given, else the releaser's) before anything is
        drawn.  None (the default) charges nothing: audits are meant for
        synthetic inputs (see Notes).

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
    BudgetExceededError
        If ``budget`` cannot pay for the ``2 n_samples`` releases (nothing is drawn).

    See Also
    --------
    dpinfer.TulapReleaser, dpinfer.LaplaceReleaser, dpinfer.TwoCoinRRReleaser

    Notes
    -----
    **Procedure.**  ``n_samples`` outputs are drawn from each input and split in
    halves.  On the first half (the selection half) an event is chosen among

    * for a discrete output (at most 4096 distinct values and at least 20 draws
      per value in the selection half, vectors compared whole): sets of output
      values, ordered by their empirical likelihood ratio (the Neyman-Pearson
      sets; they include every event of the output, bit-level ones too);
    * for a real output, five families, on each coordinate of a vector output:

      - values: threshold events ``{Z > t}``, ``{Z < t}`` (256 candidate
        ``t``, quantiles of the pooled half) and 32 histogram bins, on the
        output or, for a vector, also on the projection onto the difference of
        the two mean outputs;
      - bit cells: sets of cells ``(floor(Z) clipped to [-8, 8], e)``, where
        ``e`` is the exponent of the lowest set bit of ``Z`` (``|Z| = odd *
        2**e``; 0 lies on every grid), ordered as the Neyman-Pearson sets;
      - grids: ``{Z on the grid 2**t}`` (exactly representable as a multiple of
        ``2**t``, i.e. ``e >= t``) and its complement;
      - lowest bits: sets of values of ``e``, among them ``{e = t}``
        (``Z * 2**-t`` an odd integer);
      - parity: ``floor(|Z| * 2**-t)`` odd, or even, for the 256 most common
        ``e = t``.

      ``x + noise`` computed in floating point rounds differently for
      different ``x``, so some of these events are impossible under one input
      (Mironov 2012): they catch that leak where the value events see
      nothing.  The more candidates a family has, the more its best score on the data it was fitted to flatters it; so the family
      is chosen on held-out data (each family's best event is fitted on the
      first half of the selection half and scored on its second half; the
      values family wins ties) and then refitted on the whole selection half;

    in both directions (``x`` over ``x'`` and back), maximising the bound below
    computed on the selection data (the raw empirical log ratio would pick
    events seen a handful of times, with ratio infinity).  On the second half
    (the evaluation half), with ``k`` and ``k'`` occurrences of the chosen
    event among ``m`` draws each, Clopper-Pearson gives ``p_lower <= P_x(E)``
    and ``p_upper >= P_x'(E)``, each one-sided at level
    ``1 - (1 - confidence_level) / 2`` (Bonferroni), and

        ``epsilon_lower = log((p_lower - delta) / p_upper)``  (0 if not positive).

    **Privacy cost.**  The audit draws ``2 n_samples`` releases (200,000 by
    default), ``n_samples`` on ``x`` and as many on ``x'``: by basic composition
    that is ``2 n_samples`` times the releaser's epsilon about whatever ``x`` and
    ``x'`` describe.  Run audits on synthetic inputs (their purpose is to test the
    mechanism, not to learn about data); the result's printout says how many
    releases were drawn.  Nothing is charged to a data set's budget unless one is
    passed as ``budget``.

    **Guarantee (method and error rate).**  If the releaser is
    (epsilon, delta)-DP, then ``P(epsilon_lower > epsilon) <= 1 -
    confidence_level``: however the event was chosen, it was fixed before the
    evaluation half is seen (selection, held-out family choice and refit use the
    selection half only), so the two exact one-sided Clopper-Pearson bounds
    hold jointly with probability at least ``confidence_level``, and then
    ``(p_lower - delta) / p_upper <= (P_x(E) - delta) / P_x'(E) <= exp(epsilon)``.
    A violation verdict is therefore a false alarm with probability at most
    ``1 - confidence_level`` (checked in the test suite: 400 audits at level
    0.8).  The bound says nothing about inputs or events not tried: "no
    violation detected" is not a proof of privacy; the exact checks in the test
    suite are.

    References
    ----------
    Ding, Z., Wang, Y., Wang, G., Zhang, D. and Kifer, D. (2018).  Detecting
    violations of differential privacy.  ACM CCS.
    Jagielski, M., Ullman, J. and Oprea, A. (2020).  Auditing differentially
    private machine learning: how private is private SGD?  NeurIPS 33.
    Kong, W., Munoz Medina, A., Ribero, M. and Syed, U. (2024).  DP-Auditorium:
    a large scale library for auditing differential privacy.  IEEE S&P.
    Mironov, I. (2012).  On significance of the least significant bits for
    differential privacy.  ACM CCS.

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
    _charge_audit(budget, mechanism, epsilon, delta, n_samples)
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

    event = _select_event(sel_x, sel_y, delta_claim, tail)
    k_num, k_den, p_lower, p_upper, eps_lower = _bound_event(event, ev_x, ev_y, delta_claim, tail)
    violation = bool(eps_lower > eps_claim)
    return AuditResult(
        epsilon_lower=eps_lower,
        epsilon=eps_claim,
        delta=delta_claim,
        violation=violation,
        verdict="violation" if violation else "no violation detected",
        confidence_level=confidence_level,
        event=event.label,
        direction="x over x'" if event.forward else "x' over x",
        counts=(k_num, k_den),
        n_eval=m,
        n_samples=n_samples,
        p_lower=p_lower,
        p_upper=p_upper,
        mechanism=mech_name,
    )


# -- boundary helpers --------------------------------------------------------


def _charge_audit(budget, mechanism, epsilon, delta, n_samples):
    """Charge ``budget`` (if any) for the audit's ``2 n_samples`` releases, before any draw."""
    budget = check_budget(budget)
    if budget is None:
        return
    owner = mechanism if not inspect.isroutine(mechanism) else getattr(mechanism, "__self__", None)
    if epsilon is None:
        epsilon = getattr(owner, "epsilon", None)
        if epsilon is None:
            raise TypeError("`epsilon` must be given to charge `budget` for an audit of a plain callable "
                            "(its releases' epsilon is not known before drawing).")
    if delta is None:
        delta = getattr(owner, "delta", 0.0)
    name = type(owner).__name__ if owner is not None else "mechanism"
    budget.charge(epsilon, delta, mechanism=MECHANISMS.get(name, "audited mechanism"), count=2 * n_samples,
                  label=f"audit_releaser of {name}: 2 x {n_samples} releases")


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


# -- bounds: the chosen event on the evaluation half ---------------------------


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


def _bound_event(event, ev_x, ev_y, delta, tail):
    """The lower confidence bound for one fixed event, from the evaluation half.

    ``event`` was chosen without looking at ``ev_x``, ``ev_y`` (the selection
    half only), so the occurrence counts are binomial with the event's true
    probabilities and the two one-sided Clopper-Pearson bounds, each at level
    ``1 - tail``, hold jointly with probability ``>= 1 - 2 tail`` (Bonferroni).

    Returns
    -------
    tuple
        ``(k_num, k_den, p_lower, p_upper, epsilon_lower)``: the counts under the
        numerator and denominator inputs, the lower bound on the numerator
        probability, the upper bound on the denominator probability, and
        ``log((p_lower - delta) / p_upper)`` floored at 0.
    """
    m = ev_x.shape[0]
    in_x, in_y = int(event.mask(ev_x).sum()), int(event.mask(ev_y).sum())
    k_num, k_den = (in_x, in_y) if event.forward else (in_y, in_x)
    p_lower = float(_cp_lower(k_num, m, tail))
    p_upper = float(_cp_upper(k_den, m, tail))
    return k_num, k_den, p_lower, p_upper, _bound(p_lower, p_upper, delta)


# -- event selection: the selection half only -----------------------------------


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


def _select_event(sel_x, sel_y, delta, tail):
    """The event to evaluate, chosen on the selection half only.

    A discrete output (few distinct values, many draws of each) is searched
    over sets of output values (the Neyman-Pearson sets), which contain every
    event of the output, bit-level ones included.  A real output has several
    families of events (``_FAMILIES``: thresholds and bins on the values, and
    four bit-level families); the more candidates a family has, the more its
    best score on the data it was fitted to flatters it.  So the family is
    chosen on held-out data: each family's best event is fitted on the first
    half of the selection half and scored (the Clopper-Pearson bound) on the
    second half; the family scoring highest (the value events on a tie) is
    then refitted on the whole selection half.
    """
    encoder = _discrete_encoder(np.concatenate([sel_x, sel_y]))
    if encoder is not None:
        return _choose_discrete(sel_x, sel_y, encoder, delta, tail)
    cut = sel_x.shape[0] // 2
    fit_x, fit_y, rank_x, rank_y = sel_x[:cut], sel_y[:cut], sel_x[cut:], sel_y[cut:]
    held_out = []
    for family in _FAMILIES:
        event = family(fit_x, fit_y, delta, tail)
        held_out.append(_bound_event(event, rank_x[: fit_x.shape[0]], rank_y[: fit_y.shape[0]], delta, tail)[4])
    family = _FAMILIES[int(np.argmax(held_out))]  # the first on a tie
    return family(sel_x, sel_y, delta, tail)


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


# -- bit-level events -----------------------------------------------------------

_INT_CLIP = 8  # the integer part of a bit cell is clipped to [-8, 8]
# Codes of the lowest set bit for outputs that have none: 0 lies on every grid
# 2**t (above every finite double's code, at most 971), a non-finite output on none.
_LSB_ZERO = 2000
_LSB_NONFINITE = -2000
_MAX_BIT_POSITIONS = 256  # bit positions tried per coordinate (the most common lowest bits)
_CELL_RADIX = 2 * _INT_CLIP + 1


def _significand(values):
    """``(sig, base)`` with ``|z| = sig * 2**base`` exactly, ``sig`` a 53-bit unsigned integer.

    From the IEEE 754 binary64 fields: a normal double has the implicit leading
    bit and ``base = biased exponent - 1075``; a subnormal (biased exponent 0)
    has ``base = -1074``.  Non-finite values give meaningless fields (callers
    mask them).
    """
    z = np.ascontiguousarray(values, dtype=np.float64)
    bits = z.view(np.uint64)
    biased = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    sig = bits & np.uint64((1 << 52) - 1)
    sig = np.where(biased > 0, sig | np.uint64(1 << 52), sig)
    return sig, np.maximum(biased, 1) - 1075


def _lowest_set_bit(values):
    """Exponent ``e`` of the lowest set bit of each value: ``|z| = odd * 2**e``.

    ``z`` lies on the grid ``2**t`` exactly when ``e >= t``, and ``z * 2**-e``
    is odd.  Zero gets ``_LSB_ZERO`` (on every grid), a non-finite value
    ``_LSB_NONFINITE``.  Exact: integer operations on the binary64 fields
    (``sig & -sig`` isolates the lowest set bit, a power of two whose binary
    exponent ``frexp`` returns exactly).
    """
    z = np.asarray(values, dtype=np.float64)
    sig, base = _significand(z)
    low = sig & (~sig + np.uint64(1))
    trailing = np.frexp(np.maximum(low, np.uint64(1)).astype(np.float64))[1].astype(np.int64) - 1
    out = base + trailing
    out = np.where(sig == 0, _LSB_ZERO, out)
    return np.where(np.isfinite(z), out, _LSB_NONFINITE)


def _bit_cells(values):
    """The bit-level feature of each output: ``(integer part, lowest set bit)``.

    Returns an int64 array of shape ``values.shape + (2,)``: ``floor(z)``
    clipped to ``[-8, 8]`` (``+-inf`` to ``+-8``) and :func:`_lowest_set_bit`.
    A mechanism whose output's set of possible values does not depend on the
    input gives every cell positive probability under both inputs or under
    neither; a float addition ``x + noise`` does not (its rounding depends on
    ``x``).  Used by :func:`audit_releaser` and by ``tests/test_bit_privacy.py``.
    """
    z = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        whole = np.clip(np.floor(np.nan_to_num(z, nan=0.0)), -_INT_CLIP, _INT_CLIP).astype(np.int64)
    return np.stack([whole, _lowest_set_bit(z)], axis=-1)


def _bit_at(values, position):
    """Bit ``2**position`` of ``|z|``: the parity of ``floor(|z| * 2**-position)`` (0 for non-finite)."""
    z = np.asarray(values, dtype=np.float64)
    sig, base = _significand(z)
    shift = position - base
    inside = (shift >= 0) & (shift <= 52) & np.isfinite(z)
    bit = (sig >> np.clip(shift, 0, 52).astype(np.uint64)) & np.uint64(1)
    return inside & (bit == 1)


def _cell_code(cells):
    """One integer per bit cell (lowest set bit in the high digits, integer part in the low)."""
    return (cells[..., 1] + 4 * _LSB_ZERO) * _CELL_RADIX + (cells[..., 0] + _INT_CLIP)


def _pow2(t):
    return "0" if t == _LSB_ZERO else ("non-finite" if t == _LSB_NONFINITE else f"2^{int(t)}")


def _best_over_coordinates(sel_x, sel_y, propose):
    """The best of ``propose(fx, fy, values_x, values_y, name, j)`` over the output's coordinates."""
    best = _Event(_nothing, "", True, -1.0)
    n_dim = sel_x.shape[1]
    for j in range(n_dim):
        name = f"Z[{j}]" if n_dim > 1 else "Z"
        event = propose(_bit_cells(sel_x[:, j]), _bit_cells(sel_y[:, j]), sel_x[:, j], sel_y[:, j], name, j)
        if event.score > best.score:
            best = event
    return best


def _nothing(values):
    return np.zeros(values.shape[0], dtype=bool)


def _choose_bit_cells(sel_x, sel_y, delta, tail):
    """Sets of bit cells ``(floor(Z) clipped to [-8, 8], lowest set bit of Z)`` (Neyman-Pearson sets)."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        score, forward, members = _best_set(_cell_code(cx), _cell_code(cy), m, delta, tail)
        shown = [divmod(int(c), _CELL_RADIX) for c in members]
        cells = [f"({w - _INT_CLIP}, {_pow2(e - 4 * _LSB_ZERO)})" for e, w in shown[:6]]
        more = f", ... ({len(shown)} cells)" if len(shown) > 6 else ""
        label = f"(floor({name}) in [-8, 8], lowest set bit of {name}) in {{{', '.join(cells)}{more}}}"
        return _Event(_member_mask(j, members, cell=True), label, forward, score)

    return _best_over_coordinates(sel_x, sel_y, propose)


def _choose_grid(sel_x, sel_y, delta, tail):
    """``{Z on the grid 2**t}`` (lowest set bit ``>= t``, exactly representable) or its complement."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        score, forward, t, upper = _best_threshold(cx[:, 1], cy[:, 1], m, delta, tail)
        label = f"{name} {'on' if upper else 'off'} the grid {_pow2(t)}"
        return _Event(_grid_mask(j, t, upper), label, forward, score)

    return _best_over_coordinates(sel_x, sel_y, propose)


def _choose_lowest_bit(sel_x, sel_y, delta, tail):
    """Sets of values of the lowest set bit (``{e = t}``: ``Z * 2**-t`` an odd integer)."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        score, forward, members = _best_set(cx[:, 1], cy[:, 1], m, delta, tail)
        more = f", ... ({members.size} values)" if members.size > 6 else ""
        label = f"lowest set bit of {name} in {{{', '.join(_pow2(t) for t in members[:6])}{more}}}"
        return _Event(_member_mask(j, members, cell=False), label, forward, score)

    return _best_over_coordinates(sel_x, sel_y, propose)


def _choose_parity(sel_x, sel_y, delta, tail):
    """The parity of ``floor(|Z| * 2**-t)`` (bit ``2**t`` of ``|Z|``) at the commonest lowest bits ``t``."""
    m = sel_x.shape[0]

    def propose(cx, cy, zx, zy, name, j):
        seen, counts = np.unique(np.concatenate([cx[:, 1], cy[:, 1]]), return_counts=True)
        keep = (seen != _LSB_ZERO) & (seen != _LSB_NONFINITE)
        positions = seen[keep][np.argsort(-counts[keep], kind="stable")[:_MAX_BIT_POSITIONS]]
        best = _Event(_nothing, "", True, -1.0)
        if positions.size == 0:
            return best
        ones_x = np.array([_bit_at(zx, t).sum() for t in positions])
        ones_y = np.array([_bit_at(zy, t).sum() for t in positions])
        for value, kx, ky in ((1, ones_x, ones_y), (0, m - ones_x, m - ones_y)):
            for forward, num, den in ((True, kx, ky), (False, ky, kx)):
                scores = _bound(_cp_lower(num, m, tail), _cp_upper(den, m, tail), delta)
                i = int(np.argmax(scores))
                if scores[i] > best.score:
                    t = int(positions[i])
                    label = f"floor(|{name}| * 2^{-t}) {'odd' if value else 'even'}"
                    best = _Event(_parity_mask(j, t, value), label, forward, float(scores[i]))
        return best

    return _best_over_coordinates(sel_x, sel_y, propose)


# Event families of a real output, in order of preference on a tie.
_FAMILIES = (_choose_continuous, _choose_bit_cells, _choose_grid, _choose_lowest_bit, _choose_parity)


def _member_mask(j, members, *, cell):
    def mask(values):
        cells = _bit_cells(values[:, j])
        return np.isin(_cell_code(cells) if cell else cells[:, 1], members)

    return mask


def _grid_mask(j, t, upper):
    def mask(values):
        on = _lowest_set_bit(values[:, j]) >= t
        return on if upper else ~on

    return mask


def _parity_mask(j, t, value):
    def mask(values):
        odd = _bit_at(values[:, j], t)
        return odd if value else ~odd

    return mask
