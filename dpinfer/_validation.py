"""Argument checks shared by every public function.

Each public function validates its arguments exactly once, at its boundary, with
these helpers; the private kernels behind it assume valid input.  Every failure is
a ``TypeError`` (wrong kind of object) or a ``ValueError`` (right kind, bad value)
whose message names the argument, the rule and the value received, in the form::

    `epsilon` must be a positive finite number; got -1.0.
"""

from __future__ import annotations

import decimal
import math
import numbers
import operator
import os

import numpy as np

__all__ = []  # private module


# --------------------------------------------------------------------------- named messages
class _Name:
    """A Python name inside a message, kept as data so that another front end can spell it.

    ``kind`` is 'argument' (a parameter, ```epsilon```), 'setting' (a parameter with
    its value, ``alternative='greater'``), 'method' (the functions of one inference
    method, ``binom_ump_test``) or 'call' (a call of a public function).  ``python``
    is how the message spells it for Python users; the ``dpinfer`` command spells
    it as an option (``--epsilon``, ``--alternative greater``, ``--method ump``).
    """

    __slots__ = ("kind", "name", "value", "python")

    def __init__(self, kind, name, value=None, python=None):
        self.kind, self.name, self.value = kind, name, value
        self.python = python if python is not None else f"`{name}`"

    def __str__(self):
        return self.python

    def __repr__(self):
        return f"_Name({self.kind!r}, {self.name!r}, {self.value!r}, {self.python!r})"


def _arg(name):
    """An argument's name in a message: ```name``` for Python users."""
    return _Name("argument", name)


def _setting(name, value, python=None):
    """``name=value`` in a message (``alternative='greater'``); ``python`` overrides the spelling."""
    return _Name("setting", name, value, python if python is not None else f"{name}={value!r}")


def _method(method, python):
    """The functions of one inference method (``python``, e.g. 'binom_ump_test') in a message."""
    return _Name("method", "method", method, python)


def _call(function, python):
    """A call of the public ``function`` in a message (``python``, e.g. 'binom_ump_power(p0, n, p0, ...)')."""
    return _Name("call", function, None, python)


class _NamedMessage:
    """A message made of text and :class:`_Name` parts (mixed into exceptions and warnings).

    ``str()`` is the message for Python users, as before; ``argument`` is the name of
    the argument at fault (the first argument named, unless given), or None; ``parts``
    the text and names, from which :meth:`spelled` builds the message another front
    end shows.  Built from one plain string, it is that string with no names.
    """

    def __init__(self, *parts, argument=None):
        parts = tuple(parts)
        super().__init__("".join(map(str, parts)))
        self.parts = parts
        if argument is None:
            argument = next((p.name for p in parts if isinstance(p, _Name) and p.kind == "argument"), None)
        self.argument = argument

    def spelled(self, spell):
        """The message with every name spelt by ``spell(name)`` (a :class:`_Name` -> str)."""
        return "".join(spell(p) if isinstance(p, _Name) else p for p in self.parts)


class DPInferValueError(_NamedMessage, ValueError):
    """A ``ValueError`` whose message names its argument as data (``argument``, ``parts``)."""


class DPInferTypeError(_NamedMessage, TypeError):
    """A ``TypeError`` whose message names its argument as data (``argument``, ``parts``)."""

_ALTERNATIVES = ("two-sided", "less", "greater")

#: Other tools' spellings of an alternative -> the hint given with the refusal (R, statsmodels)
_ALTERNATIVE_HINTS = {
    "two.sided": "R's 'two.sided' is spelled 'two-sided' here",
    "larger": "statsmodels' 'larger' is 'greater' here",
    "smaller": "statsmodels' 'smaller' is 'less' here",
}


def _show(value):
    """A short, unambiguous rendering of a received value for an error message."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        # repr of a huge int is long, and beyond 4300 digits Python refuses to make it.
        return f"an integer of {value.bit_length()} bits (about 10**{int(value.bit_length() * 0.30103)})"
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (np.ndarray, list, tuple, dict, set, frozenset)) or (
            not isinstance(value, str) and isinstance(getattr(value, "shape", None), tuple)):
        # A container where one value belongs may be the data themselves (a column passed as
        # `epsilon`, a Series as `x`): it is described by its kind and size, never printed.
        return _kind_of(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_real_scalar(value):
    # Decimal is not registered as numbers.Real, but it is a real number just as
    # Fraction is: both are accepted and converted to the nearest double.
    return isinstance(value, (numbers.Real, decimal.Decimal, np.floating, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )


def _to_float(value, name):
    """``float(value)``, with a ValueError naming ``name`` for an int beyond the double range."""
    try:
        return float(value)
    except OverflowError:
        raise DPInferValueError(
            _arg(name), f" must be a finite real number within the range of doubles (|x| < 1.8e308); "
            f"got {_show(value)}."
        ) from None


def _check_real(value, name, *, finite=True):
    """Return ``value`` as a Python float; reject non-numbers, booleans, NaN (and inf)."""
    if type(value) is float and (math.isfinite(value) or not (finite or math.isnan(value))):
        return value  # the common case, without the checks below (same answer)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_real_scalar(value):
        raise DPInferTypeError(_arg(name), f" must be a real number; got {_show(value)}.")
    value = _to_float(value, name)
    if np.isnan(value) or (finite and not np.isfinite(value)):
        rule = "a finite real number" if finite else "a real number, not NaN"
        raise DPInferValueError(_arg(name), f" must be {rule}; got {value!r}.")
    return value


_EPSILON_RANGE = (1e-300, 1e12)


def _check_epsilon(epsilon, name="epsilon"):
    """Privacy-loss parameter: a positive finite real number in [1e-300, 1e12].

    Below 1e-300 the noise scale 1/epsilon leaves the doubles; above 1e12 the noise is
    far below the spacing of doubles (epsilon = 1e9 already gives the non-private limit).
    """
    value = _check_real(epsilon, name, finite=False)
    if not (0.0 < value < np.inf):
        raise DPInferValueError(_arg(name), f" must be a positive finite number; got {value!r}.")
    low, high = _EPSILON_RANGE
    if not (low <= value <= high):
        raise DPInferValueError(
            _arg(name), f" must lie in [{low:g}, {high:g}] (outside it the noise scale 1/epsilon "
            f"cannot be represented usefully in double precision); got {value!r}."
        )
    return value


def _check_delta(delta, name="delta"):
    """Approximate-DP slack: a real number in [0, 1)."""
    value = _check_real(delta, name)
    if not (0.0 <= value < 1.0):
        raise DPInferValueError(_arg(name), f" must lie in [0, 1); got {value!r}.")
    return value


def _check_probability(p, name, *, open_low=False, open_high=False):
    """A probability in [0, 1], optionally excluding either end."""
    value = _check_real(p, name)
    lo_ok = value > 0.0 if open_low else value >= 0.0
    hi_ok = value < 1.0 if open_high else value <= 1.0
    if not (lo_ok and hi_ok):
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise DPInferValueError(_arg(name), f" must lie in {interval}; got {value!r}.")
    if 0.0 < value < 1e-300:
        # Logs, odds and reciprocals of such values overflow or lose every digit.
        raise DPInferValueError(_arg(name), f" must be 0 or at least 1e-300; got {value!r}.")
    return value


def _check_positive(value, name):
    """A positive finite real number (a sensitivity, a scale)."""
    value = _check_real(value, name, finite=False)
    if not (0.0 < value < np.inf):
        raise DPInferValueError(_arg(name), f" must be a positive finite number; got {value!r}.")
    return value


def _check_confidence_level(confidence_level, name="confidence_level"):
    """A confidence level strictly between 0 and 1 (0.95, not 95 and not alpha)."""
    value = _check_real(confidence_level, name)
    if not (0.0 < value < 1.0):
        hint = " (give 0.95, not 95)" if 1.0 < value <= 100.0 else ""
        raise DPInferValueError(_arg(name), f" must lie in the open interval (0, 1){hint}; got {value!r}.")
    if 1.0 - value == 1.0:
        # 1 - level, the alpha every method works with, would round to 1 and reject everything.
        raise DPInferValueError(_arg(name), f" must be at least 1e-15 (below it 1 - level rounds to 1 in "
                                f"double precision); got {value!r}.")
    return value


def _check_alpha(alpha, name="alpha"):
    """A significance level strictly between 0 and 1, at least 1e-300."""
    value = _check_real(alpha, name)
    if not (0.0 < value < 1.0):
        raise DPInferValueError(_arg(name), f" must lie in the open interval (0, 1); got {value!r}.")
    if value < 1e-300:
        # Logs and reciprocals of subnormal levels overflow (as for _check_probability).
        raise DPInferValueError(_arg(name), f" must be at least 1e-300; got {value!r}.")
    return value


#: The effects a two-arm comparison of proportions can test (``effect=``)
_EFFECTS = ("difference", "ratio", "odds-ratio")


def _check_choice(value, name, choices, hint="", *, optional=False):
    """``value`` is one of the strings ``choices`` (or None when ``optional``); ``hint`` is
    appended to the ValueError.  The one rule for a choice argument: a non-string (False,
    '', [], an array) is refused by name, never read by its truth value as "the default"."""
    if optional and value is None:
        return None
    rule = ("None or " if optional else "") + f"one of {', '.join(map(repr, choices))}"
    if not isinstance(value, str):
        raise DPInferTypeError(_arg(name), f" must be {rule}; got {_show(value)}.")
    if value not in choices:
        raise DPInferValueError(_arg(name), f" must be {rule}; got {value!r}.{hint}")
    return value


def _check_alternative(alternative, name="alternative"):
    """One of 'two-sided', 'less', 'greater' (scipy's spelling, no abbreviations)."""
    if not isinstance(alternative, str):
        raise DPInferTypeError(
            _arg(name), f" must be one of {', '.join(map(repr, _ALTERNATIVES))}; "
            f"got {_show(alternative)}."
        )
    if alternative not in _ALTERNATIVES:
        hint = f" ({_ALTERNATIVE_HINTS[alternative]})" if alternative in _ALTERNATIVE_HINTS else ""
        raise DPInferValueError(
            _arg(name), f" must be one of {', '.join(map(repr, _ALTERNATIVES))}{hint}; "
            f"got {alternative!r}."
        )
    return alternative


def _check_int(value, name, *, minimum=0, maximum=2**53):
    """A whole number >= ``minimum``; integral floats such as 30.0 (R's doubles) are accepted."""
    if type(value) is int and minimum <= value <= maximum:
        return value  # the common case, without the checks below (same answer)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not _is_real_scalar(value):
        raise DPInferTypeError(_arg(name), f" must be an integer; got {_show(value)}.")
    if isinstance(value, (numbers.Integral, np.integer)):
        out = operator.index(value)
    else:
        fvalue = _to_float(value, name)
        if not np.isfinite(fvalue) or fvalue != np.floor(fvalue):
            raise DPInferValueError(_arg(name), f" must be a whole number; got {fvalue!r}.")
        out = int(fvalue)
    if out < minimum:
        raise DPInferValueError(_arg(name), f" must be an integer >= {minimum}; got {_show(out)}.")
    if out > maximum:
        # Beyond 2**53 doubles cannot hold every integer, and numpy's int64 ends at 2**63.
        raise DPInferValueError(_arg(name), f" must be an integer <= {maximum}; got {_show(out)}.")
    return out



def _as_int_array(value, name, *, minimum=0, maximum=2**53):
    """``_check_int`` for a scalar (returns an int) or each entry of an array (returns an
    int64 array).  For public whole numbers such as ``n``: the message shows the value."""
    try:
        scalar = np.ndim(value) == 0
    except ValueError:  # a ragged list: _as_real_array names the argument
        scalar = False
    if scalar:
        return _check_int(value, name, minimum=minimum, maximum=maximum)
    arr = _as_real_array(value, name)
    bad = arr != np.floor(arr)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must contain whole numbers; got {float(arr[bad].flat[0])!r}.")
    bad = (arr < minimum) | (arr > maximum)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must contain integers between {minimum} and {maximum}; "
                                f"got {int(arr[bad].flat[0])}.")
    return arr.astype(np.int64)


def _check_sensitivity(sensitivity):
    """A count's sensitivity: a whole number >= 1 (a count moves by whole units)."""
    return _check_int(sensitivity, "sensitivity", minimum=1, maximum=2**40)

def _check_n_sim(n_sim, name="n_sim", *, allow_none=True):
    """Number of Monte Carlo draws: a positive integer, or None for the exact limit."""
    if n_sim is None and allow_none:
        return None
    return _check_int(n_sim, name, minimum=1, maximum=10**9)


def _as_real_array(value, name, *, finite=True, ndim_max=None):
    """A float array from a scalar, list or array of real numbers; rejects NaN (and inf)."""
    if type(value) is float and (math.isfinite(value) or not (finite or math.isnan(value))):
        return np.array(value)  # the common cases first, without the checks below (same answer)
    if (type(value) is np.ndarray and value.dtype == np.float64 and value.size
            and (ndim_max is None or value.ndim <= ndim_max)
            and (np.isfinite(value).all() if finite else not np.isnan(value).any())):
        return value.astype(float)
    if isinstance(value, str) or value is None:
        raise DPInferTypeError(_arg(name), " must be a real number or an array of real numbers; "
                               f"got {_kind_of(value)}.")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged lists and the like
        raise DPInferTypeError(
            _arg(name), f" must be a real number or an array of real numbers; got {_show(value)}."
        ) from exc
    if arr.dtype == object:
        arr = _object_to_float(arr, value, name)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise DPInferTypeError(
            _arg(name), f" must be a real number or an array of real numbers; "
            f"got {_show(value)} (dtype {arr.dtype})."
        )
    if ndim_max is not None and arr.ndim > ndim_max:
        raise DPInferValueError(_arg(name), f" must have at most {ndim_max} dimension(s); got shape {arr.shape}.")
    if arr.size == 0:
        raise DPInferValueError(_arg(name), f" must not be empty; got shape {arr.shape}.")
    arr = arr.astype(float)
    bad = np.isnan(arr) if not finite else ~np.isfinite(arr)
    if bad.any():
        first = float(arr[bad].flat[0])
        rule = "finite real numbers" if finite else "real numbers, not NaN"
        raise DPInferValueError(_arg(name), f" must contain only {rule}; got {first!r}.")
    return arr


def _object_to_float(arr, value, name):
    """An object array of real scalars (Fraction, Decimal, ints beyond int64) as floats."""
    flat = arr.ravel()
    if not all(_is_real_scalar(v) for v in flat):
        raise DPInferTypeError(
            _arg(name), f" must be a real number or an array of real numbers; got {_show(value)} (dtype object)."
        )
    return np.array([_to_float(v, name) for v in flat], dtype=float).reshape(arr.shape)


def _as_probability_array(value, name):
    """A float array of probabilities in [0, 1], each 0 or at least 1e-300 (as _check_probability)."""
    arr = _as_real_array(value, name)
    bad = (arr < 0.0) | (arr > 1.0)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must lie in [0, 1]; got {float(arr[bad].flat[0])!r}.")
    tiny = (arr > 0.0) & (arr < 1e-300)
    if tiny.any():
        raise DPInferValueError(_arg(name), f" must be 0 or at least 1e-300; got {float(arr[tiny].flat[0])!r}.")
    return arr


def _kind_of(value):
    """A value's type and shape, never its content (for messages about confidential data).

    The one rule for every argument that may receive confidential data (``x``, a
    ``release`` slot given raw values by mistake, a table): the message says what kind of
    object arrived and how big it is, never a value in it, not even a scalar (a typed whole
    number is a confidential count).
    """
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    kind = type(value).__name__
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return f"a {kind} of {len(value)} item{'s' if len(value) != 1 else ''}"
    shape = getattr(value, "shape", None)  # pandas, polars, xarray and the like
    if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape):
        return f"a {type(value).__module__.split('.')[0]} {kind} of shape {shape}"
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(value)  # not data; naming None or a flag helps
    if _is_real_scalar(value):
        return f"a number ({kind})"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return f"an object of type {kind}"


def _position(bad):
    """Where the first True of ``bad`` sits: 'the value' (0-d) or 'the entry at position ...'."""
    if bad.ndim == 0:
        return "the value"
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"the entry at position {index[0] if len(index) == 1 else index}"


def _data_array(value, name, *, dtype_rule="a real number or an array of real numbers"):
    """Confidential data as a float array (scalar -> 0-d).

    Messages name the argument, the rule and the position, never the value: the
    data are what the release protects (DESIGN.md section 5).
    """
    if isinstance(value, str) or value is None:
        raise DPInferTypeError(_arg(name), f" must be {dtype_rule}; got {_kind_of(value)}.")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged lists and the like
        raise DPInferTypeError(
            _arg(name), f" must be {dtype_rule}; got {_kind_of(value)} that numpy cannot read as one.") from exc
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise DPInferTypeError(_arg(name), f" must be {dtype_rule}; got {_kind_of(arr)}.")
    if arr.size == 0:
        raise DPInferValueError(_arg(name), f" must not be empty; got shape {arr.shape}.")
    out = arr.astype(float)
    bad = ~np.isfinite(out)
    if np.issubdtype(arr.dtype, np.integer):
        bad = bad | (np.abs(arr) > 2**53)  # would not survive the float conversion
    if bad.any():
        raise DPInferValueError(
            _arg(name), f" must contain only finite numbers (at most 2**53 in magnitude); {_position(bad)} is not.")
    return out


def _check_counts(x, n, name="x", n_name="n"):
    """Counts 0 <= x <= n (scalar or array); returns an int64 array (0-d for a scalar).

    The counts are confidential: a message gives the position, never the value.
    """
    arr = _data_array(x, name)
    bad = arr != np.floor(arr)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must contain whole numbers (counts); {_position(bad)} is not.")
    bad = (arr < 0) | (arr > n)
    if bad.any():
        raise DPInferValueError(_arg(name), " must lie between 0 and ", _arg(n_name),
                                f" = {n}; {_position(bad)} does not.", argument=name)
    return arr.astype(np.int64)


def _check_label(value, name="label"):
    """A text label (a legend entry, a title): None or a string; anything else is refused by name."""
    if value is not None and not isinstance(value, str):
        raise DPInferTypeError(_arg(name), f" must be None or a string; got {_show(value)}.")
    return value


def _check_path(path, name="path"):
    """A file path: a string or an ``os.PathLike`` (``pathlib.Path``), not empty.

    Anything else is refused before ``open()`` sees it: ``open(True)`` or ``open(3)`` opens
    a file descriptor (stdout is 1) and closing it breaks the process's next print.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise DPInferTypeError(_arg(name), f" must be a file path (a string or a pathlib.Path); got {_show(path)}.")
    text = os.fspath(path)
    if not isinstance(text, str) or not text:
        raise DPInferValueError(_arg(name), f" must be a non-empty file path; got {_show(path)}.")
    return text


def _check_rng(rng, name="rng"):
    """Normalise ``rng`` (None, a seed, a SeedSequence or a Generator) to a Generator (SPEC 7)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_, float, str, np.random.RandomState)):
        raise DPInferTypeError(
            _arg(name), f" must be None, an integer seed, a SeedSequence or a numpy Generator; "
            f"got {_show(rng)}."
        )
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise DPInferTypeError(
            _arg(name), f" must be None, an integer seed, a SeedSequence or a numpy Generator; "
            f"got {_show(rng)}."
        ) from exc


def _scalar_or_array(arr):
    """Return a Python float for a 0-d result, else the array itself."""
    arr = np.asarray(arr)
    return float(arr) if arr.ndim == 0 else arr


#: Laplace noise scales beyond [0, 1] at which a "proportion" is taken for a count:
#: P(|Laplace| > 50 scales) = exp(-50) ~ 2e-22, so a true noisy proportion never trips it.
_SCALE_GUARD = 50.0


def _looks_like_proportion(value, n):
    """Whether a noisy *count* looks like a proportion typed by mistake: strictly between 0
    and 1 with ``n >= 5`` (a count that small out of 5 or more is possible but rare, so this
    is a warning, never a refusal).  The one rule of the Python API and the command."""
    return 0.0 < value < 1.0 and n >= 5


def _check_proportion_scale(pi_hat, n, epsilon, name, *, count_fix):
    """Refuse a released "proportion" that only a count could be (a count-for-proportion slip).

    A Laplace-noised proportion lies within ``50 / (epsilon n)`` of [0, 1] except
    with probability exp(-50); a value beyond that is not a noisy proportion, and
    testing it as one gives p < 2.2e-16 with a zero-width interval.  The decision
    uses only the released value (public) and the public n and epsilon.
    ``count_fix`` says how to pass a count instead.  Only a single value is
    checked: arrays are the vectorised path of simulation and exact-size grids,
    which evaluate the test at every possible release, however far out.
    """
    arr = np.asarray(pi_hat, dtype=float)
    if arr.ndim:
        return
    margin = _SCALE_GUARD / (epsilon * n)
    bad = (arr < -margin) | (arr > 1.0 + margin)
    if not np.any(bad):
        return
    value = float(arr)
    raise DPInferValueError(
        _arg(name), f" = {value:.6g} cannot be a Laplace-noised proportion with n = {n} and "
        f"epsilon = {epsilon:g}: it lies more than {_SCALE_GUARD:g} noise scales outside [0, 1] "
        f"(probability below 1e-21). It looks like a count: give the proportion "
        f"({value:.6g} / {n} = {value / n:.4g}), or {count_fix}."
    )


def _check_binary(x, name="x"):
    """0/1 answers of any shape (scalar allowed, booleans too); returns an int8 array.

    The answers are confidential: a message gives the position, never an answer.
    """
    arr = x
    try:
        if np.asarray(x).dtype == bool:
            arr = np.asarray(x).astype(np.int8)
    except (TypeError, ValueError):  # ragged input: _data_array names the argument
        pass
    arr = _data_array(arr, name, dtype_rule="0/1 answers (an integer or an array)")
    bad = (arr != 0.0) & (arr != 1.0)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must contain only 0 and 1 (no and yes); {_position(bad)} is not.")
    return arr.astype(np.int8)


def _check_categories(categories, d, name="categories"):
    """Integer category labels in {0, ..., d-1}, any shape (scalar allowed); int64 array.

    The labels are confidential answers: a message gives the position, never a label.
    """
    arr = _data_array(categories, name, dtype_rule="an integer or an array of integers")
    bad = arr != np.floor(arr)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must contain whole numbers (category labels); {_position(bad)} is not.")
    bad = (arr < 0) | (arr > d - 1)
    if bad.any():
        raise DPInferValueError(_arg(name), f" must contain labels in {{0, ..., {d - 1}}} (d = {d}); {_position(bad)} is not.")
    return arr.astype(np.int64)
