"""audit_releaser: draw releases on two neighbouring inputs, select an event on one half, bound it on the other."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from .._printing import _r_format
from .._validation import (
    _check_confidence_level,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_rng,
    _show,
)
from .. import _mechanisms
from ..budget._charging import check_budget
from ..releasers.release import Release
from ._bounds import _bound_event
from ._selection import _select_event

__all__ = ["AuditResult", "audit_releaser"]


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
    call, x, x_prime, n_samples, confidence_level, epsilon, delta, gen = _check_arguments(
        mechanism, x, x_prime, args, epsilon, delta, n_samples, confidence_level, vectorized, rng)
    _charge_audit(budget, mechanism, epsilon, delta, n_samples)
    out_x, rec_x, out_y, rec_y = _draw_pair(call, x, x_prime, args, n_samples, vectorized, gen)
    eps_claim, delta_claim, mech_name = _claim(rec_x, rec_y, epsilon, delta)
    (sel_x, ev_x), (sel_y, ev_y) = _halves(out_x, n_samples), _halves(out_y, n_samples)
    tail = (1.0 - confidence_level) / 2.0  # each of the two one-sided bounds (Bonferroni)
    event = _select_event(sel_x, sel_y, delta_claim, tail)  # sees the selection half only
    bound = _bound_event(event, ev_x, ev_y, delta_claim, tail)  # sees the evaluation half only
    return _audit_result(event, bound, eps_claim, delta_claim, mech_name, confidence_level, n_samples)


# -- the steps of audit_releaser, in order ---------------------------------------


def _check_arguments(mechanism, x, x_prime, args, epsilon, delta, n_samples, confidence_level, vectorized, rng):
    """audit_releaser's one validation step: every argument but ``budget``, in this order."""
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
    return call, x, x_prime, n_samples, confidence_level, epsilon, delta, gen


def _draw_pair(call, x, x_prime, args, n_samples, vectorized, gen):
    """``n_samples`` outputs on each input from independent streams, and what the releases record."""
    gens = gen.spawn(2)
    out_x, rec_x = _draw(call, x, args, n_samples, vectorized, gens[0], "x")
    out_y, rec_y = _draw(call, x_prime, args, n_samples, vectorized, gens[1], "x_prime")
    if out_x.shape[1:] != out_y.shape[1:]:
        raise ValueError(
            f"the mechanism's outputs for `x` and `x_prime` differ in shape: {out_x.shape[1:]} "
            f"and {out_y.shape[1:]}; the two inputs must be neighbours of the same kind."
        )
    return out_x, rec_x, out_y, rec_y


def _halves(out, n_samples):
    """(selection half, evaluation half) of one input's outputs; the second has the odd draw."""
    half = n_samples // 2
    return out[:half], out[half:]


def _audit_result(event, bound, eps_claim, delta_claim, mech_name, confidence_level, n_samples):
    """The AuditResult of the chosen event and its bound ``(k_num, k_den, p_lower, p_upper, eps_lower)``."""
    k_num, k_den, p_lower, p_upper, eps_lower = bound
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
        n_eval=n_samples - n_samples // 2,
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
    declared = _mechanisms.semantics_of(owner)
    budget.charge(epsilon, delta, mechanism=declared.mechanism if declared else "audited mechanism", count=2 * n_samples,
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

    An error of the mechanism about its input is re-raised naming the audit's
    argument (``x`` or ``x_prime``) wherever the releaser's own message names its
    first parameter (``x`` for every dpinfer releaser).
    """
    try:
        return call(inputs, *args, rng=gen)
    except ValueError as exc:
        raise ValueError(f"the mechanism rejected `{name}`: {_renamed(call, exc, name)}") from exc
    except TypeError as exc:
        text = str(exc)
        if "positional argument" in text or "keyword argument" in text:
            raise TypeError(
                f"`mechanism` could not be called as mechanism(inputs, *args, rng=generator): {text}. "
                "Pass its other positional arguments with `args`, e.g. args=(n,) for "
                "TulapReleaser.release(x, n)."
            ) from exc
        renamed = _renamed(call, exc, name)
        if renamed == text:
            raise
        raise TypeError(f"the mechanism rejected `{name}`: {renamed}") from exc


def _renamed(call, exc, name):
    """The mechanism's message with its first parameter's name replaced by the audit's ``name``."""
    text = str(exc)
    try:
        first = next(iter(inspect.signature(call).parameters))
    except (TypeError, ValueError, StopIteration):
        return text
    return text.replace(f"`{first}`", f"`{name}`")


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
