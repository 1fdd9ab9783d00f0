"""Reproducible default streams for Monte Carlo methods, derived from the public release.

A Monte Carlo method (two-sample DP-JIMI with draws, the table tests, the fiducial
logistic regression) called without ``rng`` draws from a stream derived from what is
public: the released values, their privacy parameters and the method's name and
settings.  Re-running a published analysis therefore gives the same p-value, from
Python, from :func:`~dpinfer.prop_test` and from the command.  This is post-processing
of the release (the seed is a function of released and public numbers only), so it costs
no privacy; it is not a secret and does not need to be.

The seed is the SHA-256 digest of a canonical encoding: a version tag, the method's name,
then each part tagged by its type (floats as IEEE-754 binary64 big-endian, arrays as
binary64 big-endian with their shape, integers in decimal, strings in UTF-8), so that the
same numbers give the same seed on every platform and ``41.0`` given as a number or inside
a :class:`~dpinfer.Release` give the same seed.  ``rng=`` given by the caller overrides it.
"""

from __future__ import annotations

import hashlib
import math
import numbers

import numpy as np

from ._validation import _check_rng

__all__ = []  # private module

_TAG = b"dpinfer release-derived stream v1\x00"


def _encode(part):
    """Canonical bytes of one public part (see the module docstring)."""
    if part is None:
        return b"N;"
    if isinstance(part, str):
        data = part.encode("utf-8")
        return b"S%d:" % len(data) + data
    if isinstance(part, (bool, np.bool_)):
        return b"B1;" if part else b"B0;"
    if isinstance(part, numbers.Integral):
        return b"I%d;" % int(part)
    if isinstance(part, numbers.Real):
        return b"F" + np.asarray(float(part), dtype=">f8").tobytes()
    if isinstance(part, (list, tuple)):
        return b"L%d:" % len(part) + b"".join(_encode(p) for p in part)
    arr = np.asarray(part, dtype=float)
    shape = ",".join(str(s) for s in arr.shape).encode()
    return b"A" + shape + b":" + np.ascontiguousarray(arr, dtype=">f8").tobytes()


def _derived_seed(method, *parts):
    """The :class:`numpy.random.SeedSequence` of ``method`` on the public ``parts``."""
    digest = hashlib.sha256(_TAG + _encode(method) + b"".join(_encode(p) for p in parts)).digest()
    return np.random.SeedSequence(int.from_bytes(digest, "big"))


def _stream(rng, method, *parts):
    """``(Generator, derived)``: ``rng`` normalised, or the stream derived from the parts.

    ``derived`` is True when ``rng`` was None and the stream comes from the public
    parts (the method's name, the released values, n, epsilon, delta and settings).
    """
    if rng is not None:
        return _check_rng(rng), False
    return np.random.default_rng(_derived_seed(method, *parts)), True


def _mc_note(n_sim, se, derived, *, what="p-value", per="draws"):
    """The sentence a Monte Carlo result prints: draws, stream and standard error."""
    stream = ("from a stream derived from the release (reproducible; pass rng= for another)"
              if derived else "from the given rng")
    text = f"Monte Carlo: {n_sim} {per} {stream}"
    if se is not None and math.isfinite(se):
        text += f"; standard error of the {what} {se:.2g}"
    return text


def _share_se(share, n_sim, factor=1.0):
    """``factor * sqrt(s (1 - s) / n_sim)``: the standard error of a share of draws."""
    share = min(max(float(share), 0.0), 1.0)
    return factor * math.sqrt(share * (1.0 - share) / n_sim)
