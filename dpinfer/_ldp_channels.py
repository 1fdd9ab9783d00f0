"""The local mechanisms' channels in closed form, shared below the releasers and the inference.

The releasers draw reports through these channels (``dpinfer.releasers.local``,
``dpinfer.releasers.randomized_response``); the local-DP inference
(``dpinfer.inference.local``) inverts them.  Private; inputs are valid.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy import special


def _unary_keep_prob(epsilon):
    """Probability that unary encoding keeps a bit: ``e^(eps/2) / (1 + e^(eps/2))``.

    Computed as ``expit(eps/2)``, which neither overflows nor warns for any
    ``eps`` (``_unary_keep_prob(-eps)`` is the flip probability ``1 - q``).
    Private: assumes ``epsilon`` is a valid float (or array).
    """
    return special.expit(0.5 * np.asarray(epsilon, dtype=float))


def _two_coin_epsilon(p1, p2):
    """True privacy level of the two-coin protocol, rounded up (private; valid p1, p2 in (0, 1)).

    ``ln max{(1 - p1 + p1 p2) / (p1 p2), (1 - p1 p2) / (p1 (1 - p2))}``
    ``= ln(1 + (1 - p1) / (p1 min(p2, 1 - p2)))``.  The coins are doubles, so the
    ratio is an exact rational; its logarithm is enclosed by interval arithmetic
    (``mpmath.iv``, 128 bits) and the result is the smallest double at or above the
    enclosure's upper end: a recorded epsilon is never below the true level (the
    floating-point ``log1p`` form was up to 1.5e-15 relative below it, issue 26).
    """
    from mpmath import iv
    from mpmath.libmp import to_float

    p1, p2 = Fraction(float(p1)), Fraction(float(p2))
    ratio = 1 + (1 - p1) / (p1 * min(p2, 1 - p2))
    saved = iv.prec
    try:
        iv.prec = 128
        high = iv.log(iv.mpf(ratio.numerator) / iv.mpf(ratio.denominator))._mpi_[1]
    finally:
        iv.prec = saved
    return to_float(high, rnd="c")
