"""The one resolver: "a Release, or the numbers that stand for one" -> one frozen record.

Package-internal (the inference part only).  Every inference method declares,
next to its public functions, which releases it takes (:func:`accepts`: the
(mechanism, kind) pairs, the functions, a phrase for messages), and turns its
arguments into a :class:`Resolved` record with :func:`resolve`.  Results take
their privacy record (``epsilon``, ``delta``, ``mechanism``, ``secure``,
``neighbours``, ``privacy_unit``) from it; :func:`provenance` combines the
records of the releases behind one result, and :func:`composed` decides the
composition of several with the one rule of :mod:`dpinfer._composition_rule`.

The rules, the same for every method:

* A Release carries ``n``, ``epsilon`` and ``delta``: giving one of them again
  is a ValueError (``kind`` and ``sensitivity`` may be repeated when they agree).
* A release whose (mechanism, kind) the method does not take is a ValueError
  with one wording, naming the functions that do take it.
* A Laplace count or proportion must have the sensitivity of a count (1) or of
  a proportion (``1/n``) out of its ``n``, up to the rounding of one double
  (relative 1e-12): any larger difference is another noise law.
* Only the Tulap law depends on ``delta``; a release of any other mechanism
  must have ``delta = 0`` (those mechanisms are pure epsilon-DP, and a method
  computing their law has no place for a ``delta``).
* Plain numbers need ``n`` and ``epsilon``; they claim no sampling path
  (``secure=None``) and no unit of privacy (``privacy_unit=''``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
from dataclasses import dataclass

import numpy as np

from .. import _mechanisms
from .._composition_rule import combined_privacy, composition_rule
from .._validation import (DPInferValueError, _arg, _as_real_array, _call, _check_delta, _check_epsilon, _check_int,
                           _check_sensitivity, _show)
from ..distributions._laplace_grid import count_grid, count_grid_resolves_whole
from ..releasers.release import Release

__all__ = []  # package-internal: the names below are imported explicitly

#: relative tolerance of a Laplace release's sensitivity: the rounding of one double
SENSITIVITY_RTOL = 1e-12


@dataclass(frozen=True)
class Accepts:
    """What a method takes: ``pairs`` of (mechanism, kind), by ``functions``, described by ``what``.

    ``numbers`` is the (mechanism, kind) that plain numbers stand for (None: the
    method takes Releases only, or resolves its number forms itself).
    """

    pairs: frozenset
    functions: tuple
    what: str
    numbers: tuple | None = None


#: every declaration made so far (each method module declares at import)
_DECLARED = []

#: the modules that declare what their methods accept (``dpinfer`` imports lazily,
#: so :func:`declared` imports them all before it answers)
DECLARING_MODULES = (
    "dpinfer.inference.ump._release_inference",
    "dpinfer.inference.normal._kernels",
    "dpinfer.inference.jimi._common",
    "dpinfer.inference.table",
    "dpinfer.inference.logistic",
    "dpinfer.inference.local._krr",
    "dpinfer.inference.local._unary",
    "dpinfer.inference.local._laplace",
    "dpinfer.inference.local._histogram",
    "dpinfer.inference.local._randomized_response",
    "dpinfer.inference.local._robust",
    "dpinfer.inference.two_arm._arguments",
    "dpinfer.inference.means._common",
    "dpinfer.inference.strata._arguments",
    "dpinfer.inference.survival._table",
    "dpinfer.inference.pairs._mcnemar",
    "dpinfer.inference.pairs._many_to_one",
    "dpinfer.inference.designs._arguments",
)


def accepts(pairs, functions, what, *, numbers=None):
    """Declare which releases ``functions`` take; returns the :class:`Accepts` (a module constant).

    The first of ``functions`` names the method in messages ("For this release use ...").
    """
    declared = Accepts(frozenset(pairs), tuple(functions), what, numbers)
    _DECLARED.append(declared)
    return declared


def fitting(mechanism, kind):
    """The methods that take a release of ``(mechanism, kind)``: each declaration's first function, sorted."""
    return sorted({d.functions[0] for d in declared() if (mechanism, kind) in d.pairs})


def declared():
    """All declarations, every declaring module imported first (an error path and the tests)."""
    for module in DECLARING_MODULES:
        importlib.import_module(module)
    return tuple(_DECLARED)


def mismatch_message(name, release, method, accepted):
    """The one wording of "this release does not fit this method"."""
    fits = fitting(release.mechanism, release.kind)
    where = (f"use {', '.join(fits)}" if fits
             else "no dpinfer inference function takes it")
    return (f"`{name}` is a {_mechanisms.printed(release.mechanism)} release of kind {release.kind!r}, "
            f"which {method} does not take: it takes {accepted.what}. For this release {where}.")


@dataclass(frozen=True)
class Resolved:
    """One release (or the numbers standing for it), validated: what inference needs.

    ``value`` is the released value as a float array (a count for kind 'count';
    the caller divides by ``n`` where it works on proportions).  ``secure`` is
    None and ``privacy_unit`` '' for plain numbers, which claim neither.
    """

    value: np.ndarray
    n: int | None
    epsilon: float
    delta: float
    sensitivity: float
    mechanism: str
    kind: str
    neighbours: str | None
    privacy_unit: str
    secure: bool | None
    from_release: bool
    disjoint: tuple | None = None

    @property
    def scalar(self):
        return self.value.ndim == 0


def provenance(*records):
    """``secure``, ``neighbours`` and ``privacy_unit`` of a result computed from ``records``.

    Only when every input was a Release does the result claim a path, a relation
    and a unit (units and relations joined with '; ' when they differ).  None
    stands for an input given as numbers in a method that reads its own number forms.
    """
    if not records or not all(r is not None and r.from_release for r in records):
        return {"secure": None, "neighbours": None, "privacy_unit": ""}
    units = sorted({r.privacy_unit for r in records})
    relations = sorted({r.neighbours for r in records if r.neighbours})
    return {"secure": all(r.secure for r in records), "neighbours": "; ".join(relations) or None,
            "privacy_unit": "; ".join(units)}


def composed(composition, records, epsilons=None, deltas=None):
    """``(composition, epsilon, delta)`` of a result of several releases: the one rule.

    ``records`` are the inputs in order (:class:`Resolved` records, Releases, or
    None for numbers); :func:`~dpinfer._composition_rule.composition_rule` decides
    ``'parallel'`` or ``'sequential'`` from them and ``composition`` (None, the
    default of every function, reads the releases), and
    :func:`~dpinfer._composition_rule.combined_privacy` gives the result's
    epsilon and delta from ``epsilons`` and ``deltas`` (default: the records').
    Call it while validating, before any computation: a bad ``composition`` is
    refused first.
    """
    rule = composition_rule(composition, records)
    epsilons = [r.epsilon for r in records] if epsilons is None else epsilons
    deltas = [r.delta for r in records] if deltas is None else deltas
    return (rule, *combined_privacy(epsilons, deltas, rule))


def _expected_sensitivity(mechanism, kind, n):
    if mechanism == _mechanisms.LAPLACE and kind == "count":
        return 1.0
    if mechanism == _mechanisms.LAPLACE and kind == "proportion":
        return 1.0 / n
    return None


def resolve(value, n=None, *, epsilon=None, delta=None, sensitivity=None, kind=None, accepts,
            method, name="value", suffix="", names=None, numbers=True):
    """Validate "a Release or numbers" against ``accepts``; return a :class:`Resolved` record.

    ``name`` is the argument holding the release (``'z'``, ``'pi_hat1'``); the number
    arguments are named ``n``, ``epsilon``, ``delta``, ``kind`` plus ``suffix``
    (``'n1'``), except those ``names`` maps to other names.  ``delta``/``sensitivity``/``kind`` None: the function has no such
    argument or the user left it out.  With ``numbers=False`` a value that is
    not a Release returns None (the method reads its own number forms).
    """
    names = {key: key + suffix for key in ("n", "epsilon", "delta", "kind")} | dict(names or {})
    if kind is not None and not isinstance(kind, str):  # before `in`: an array compares elementwise
        raise TypeError(f"`{names['kind']}` must be None, 'proportion' or 'count'; got {_show(kind)}.")
    kinds = [accepts.numbers[1]] if accepts.numbers else []
    kinds += sorted({k for _, k in accepts.pairs} - set(kinds))
    if kind is not None and kind not in kinds:
        shown = ", ".join(map(repr, kinds[:-1])) + f" or {kinds[-1]!r}" if len(kinds) > 1 else repr(kinds[0])
        raise ValueError(f"`{names['kind']}` must be None, {shown}; got {kind!r}.")
    if sensitivity is not None:
        sensitivity = _check_sensitivity(sensitivity)
    if isinstance(value, Release):
        return _from_release(value, n, epsilon, delta, sensitivity, kind, accepts, method, name, names)
    if not numbers:
        return None
    for key, given in (("n", n), ("epsilon", epsilon)):
        if given is None:
            raise TypeError(f"`{names[key]}` is required when `{name}` is a number or an array "
                            f"(only a Release carries its own {key}); got None.")
    mechanism, default_kind = accepts.numbers
    arr = _as_real_array(value, name)
    n = _check_int(n, names["n"], minimum=1)
    epsilon = _check_epsilon(epsilon, names["epsilon"])
    delta = _check_delta(0.0 if delta is None else delta, names["delta"])
    kind = default_kind if kind is None else kind
    refuse_unreleased(arr, n, epsilon, mechanism, kind, name, names["n"])
    return Resolved(arr, n, epsilon, delta, 1.0 if sensitivity is None else float(sensitivity), mechanism,
                    kind, None, "", None, False)


#: the line that releases a confidential count, per (mechanism, kind) typed as numbers: the
#: name a front end spells (the command: 'dpinfer release ...'; R: dp_release_count(...)) and
#: the Python call
RELEASE_CALLS = {
    (_mechanisms.TULAP, "count"): ("TulapReleaser.release", "TulapReleaser(epsilon).release(x, n)"),
    (_mechanisms.LAPLACE, "count"): ("LaplaceReleaser.count", "LaplaceReleaser(epsilon).count(x, n)"),
    (_mechanisms.LAPLACE, "proportion"): ("LaplaceReleaser.proportion",
                                          "LaplaceReleaser(epsilon).proportion(x, n)"),
}


#: the largest chance that a genuine Laplace release is refused (a whole count or k / n):
#: above it (epsilon beyond about 30 at the full grid) the rule refuses nothing
MAX_CHANCE = 1e-6


def unreleased(arr, n, epsilon, mechanism, kind):
    """Where ``arr`` holds values that the releaser of (mechanism, kind) out of ``n`` does not output.

    Returns ``(mask, chance)``: ``mask`` True at a value no release of ours takes except
    with probability ``chance`` (0.0 for the Tulap law), or ``(None, None)`` when the rule
    says nothing for this (mechanism, kind, n, epsilon).  The rule, from the output grids:

    * **Tulap count**: never a whole number.  :class:`~dpinfer.TulapReleaser` outputs
      ``x + D + U`` with ``U`` a midpoint of the grid of step ``2**-k`` (``k >= 1``) in
      ``(-1/2, 1/2)``: an odd multiple of ``2**-(k+1)``, exact in a double
      (:mod:`dpinfer.distributions._tulap_grid`), for every sensitivity and delta.
    * **Laplace count**: a whole number only when the discrete Laplace draw is a multiple
      of ``2**g`` (probability 6.4e-8 at ``epsilon = 1``; see
      ``distributions._laplace_grid.count_grid_resolves_whole``, which also bounds the sizes
      where doubles keep the grid exact: beyond them the rule says nothing).  Where that
      probability exceeds :data:`MAX_CHANCE` (a large epsilon, beyond about 30 at the full
      grid: the noise is then often a whole number of counts) the rule says nothing either.
    * **Laplace proportion**: equal to the double nearest some ``k / n`` only under the
      same event (same function: the proof that doubles keep the two apart).
    """
    if mechanism == _mechanisms.TULAP and kind == "count":
        return arr == np.floor(arr), 0.0
    if mechanism != _mechanisms.LAPLACE or kind not in ("count", "proportion"):
        return None, None
    if not count_grid_resolves_whole(n, epsilon):
        return None, None
    g, lam = count_grid(n, epsilon)
    chance = math.tanh(lam / 2.0) / math.tanh(2**g * lam / 2.0)
    if chance > MAX_CHANCE:  # a large epsilon: the noise is often a whole number of counts
        return None, None
    if kind == "count":
        return arr == np.floor(arr), chance
    with np.errstate(over="ignore"):  # a value near the largest double: times n it is inf, never k / n
        return arr == np.rint(arr * n) / n, chance  # k = rint(value n) is exact below 2**28 (the proof)


def refuse_unreleased(arr, n, epsilon, mechanism, kind, name, n_name="n"):
    """Refuse typed values that no release of (mechanism, kind) is: they look like the confidential count.

    The message names the argument and, for an array (a vector of releases, e.g. a
    simulation), how many positions and the first: never the value, which may be the
    confidential count itself.  It shows the line that releases the count.
    """
    mask, chance = unreleased(arr, n, epsilon, mechanism, kind)
    if mask is None or not mask.any():
        return
    what = "a whole number" if kind == "count" else f"k / {n_name} for a whole k"
    if arr.ndim == 0:
        where, looks = f" is {what}", "it looks like the confidential count, not a released value"
    else:
        first = tuple(int(i) for i in np.argwhere(mask)[0])
        where = (f" holds {int(mask.sum())} of {arr.size} values that are each {what} (the first at position "
                 f"{first[0] if len(first) == 1 else first})")
        looks = "they look like confidential counts, not released values"
    if chance == 0.0:
        never = f"no {_mechanisms.printed(mechanism)} release is one (its outputs lie on an offset grid)"
    else:
        never = (f"a {_mechanisms.printed(mechanism)} {kind} release is one only with probability {chance:.2g} "
                 "at this n and epsilon")
    call_name, python = RELEASE_CALLS[(mechanism, kind)]
    raise DPInferValueError(
        _arg(name), f"{where}, and {never}: {looks}. Release the count first, ",
        _call(call_name, python + ", and pass the Release"), " (or type all the digits it prints).",
        argument=name)


def _from_release(rel, n, epsilon, delta, sensitivity, kind, accepted, method, name, names):
    for key, given, recorded in (("n", n, rel.n), ("epsilon", epsilon, rel.epsilon), ("delta", delta, rel.delta)):
        if given is not None:
            raise ValueError(
                f"`{names[key]}` must not be given when `{name}` is a Release: the release records it "
                f"({key} = {recorded!r}); got {names[key]}={_show(given)}. Leave `{names[key]}` out.")
    if (rel.mechanism, rel.kind) not in accepted.pairs:
        raise ValueError(mismatch_message(name, rel, method, accepted))
    if kind is not None and kind != rel.kind:
        raise ValueError(f"`{names['kind']}` = {kind!r} contradicts the release, whose kind is {rel.kind!r}; "
                         f"leave `{names['kind']}` out when passing a Release.")
    if rel.kind in ("count", "proportion") and rel.n is None:
        raise ValueError(f"`{name}` must record n (a {rel.kind} out of n); its n is None.")
    expected = _expected_sensitivity(rel.mechanism, rel.kind, rel.n)
    if expected is not None and not math.isclose(rel.sensitivity, expected, rel_tol=SENSITIVITY_RTOL):
        raise ValueError(
            f"`{name}` is a {_mechanisms.printed(rel.mechanism)} {rel.kind} release with sensitivity "
            f"{rel.sensitivity!r}, but {method} needs the sensitivity of a {rel.kind} out of n = {rel.n}, "
            f"which is {expected!r} (noise scale 1/(epsilon n) on the proportion).")
    if rel.mechanism == _mechanisms.TULAP:
        k = _check_sensitivity(rel.sensitivity)
        if sensitivity is not None and sensitivity != k:
            raise ValueError(f"`sensitivity` = {sensitivity} conflicts with the release's sensitivity "
                             f"{k}; leave `sensitivity` out to use the release's.")
    elif rel.delta != 0.0:
        raise ValueError(
            f"`{name}` must be a pure-DP release (delta = 0): the {_mechanisms.printed(rel.mechanism)} "
            f"mechanism is epsilon-DP and {method} has no use for a delta; got delta = {rel.delta!r}.")
    return Resolved(_as_real_array(rel.value, name), rel.n, rel.epsilon, rel.delta, float(rel.sensitivity),
                    rel.mechanism, rel.kind, rel.neighbours, rel.privacy_unit, rel.secure, True, rel.disjoint)


def release_first(skip=()):
    """Decorate a public function whose first argument may be a Release.

    When the first positional argument is a Release, the positional arguments
    after it skip the parameters in ``skip`` (``n``, ``n1``, ``n2``: the release
    records them), so ``binom_ump_test(rel, 0.2)`` means ``p0 = 0.2``.  With
    plain numbers the call is unchanged.  Argument binding only: the function
    resolves its arguments with :func:`resolve`.
    """

    def decorate(func):
        params = inspect.signature(func).parameters
        positional = [key for key, p in params.items() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        names = [key for key in positional if key not in skip]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if args and isinstance(args[0], Release):
                if len(args) > len(names):
                    raise TypeError(
                        f"{func.__name__}() takes at most {len(names)} positional arguments "
                        f"after a Release ({', '.join(names)}); got {len(args)}."
                    )
                for key, given in zip(names, args):
                    if key in kwargs:
                        raise TypeError(
                            f"{func.__name__}() got two values for `{key}`: one by position "
                            f"(after a Release, the arguments are {', '.join(names)}) and one "
                            "by keyword."
                        )
                    kwargs[key] = given
                args = ()
            return func(*args, **kwargs)

        return wrapper

    return decorate


def arm_pair(value, name):
    """``(value_1, value_2)`` from one value for both arms or a pair (list or tuple)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"`{name}` must be one value for both arms or a pair (arm 1, arm 2); "
                             f"got {len(value)} values.")
        return value[0], value[1]
    return value, value

