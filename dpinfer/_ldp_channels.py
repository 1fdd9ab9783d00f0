"""The local mechanisms' channels in closed form, shared below the releasers and the inference.

The releasers draw reports through these channels (``dpinfer.releasers.local``,
``dpinfer.releasers.randomized_response``); the local-DP inference
(``dpinfer.inference.local``) inverts them.  Private; inputs are valid.
"""

from __future__ import annotations

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
    """True privacy level of the two-coin protocol (private; valid p1, p2 in (0, 1)).

    ``ln max{(1 - p1 + p1 p2) / (p1 p2), (1 - p1 p2) / (p1 (1 - p2))}``
    ``= log1p((1 - p1) / (p1 min(p2, 1 - p2)))``, the second form exact in
    floating point for p1 near 1; evaluated as ``logaddexp(0, log(1 - p1) - log p1
    - log min(p2, 1 - p2))`` so that tiny coins (p1 p2 below the doubles) stay finite.
    """
    p1 = np.asarray(p1, dtype=float)
    p2 = np.asarray(p2, dtype=float)
    return np.logaddexp(0.0, np.log1p(-p1) - np.log(p1) - np.log(np.minimum(p2, 1.0 - p2)))
