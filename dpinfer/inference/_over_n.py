"""Power functions over an array of sample sizes: one exact computation per distinct ``n``."""

from __future__ import annotations

import numpy as np


def _power_over_n(theta, n, power_at):
    """``power_at(theta_values, n)`` for each distinct ``n``, broadcast against ``theta``.

    ``theta`` is a float array and ``n`` an int64 array (both validated); ``power_at``
    takes a 1-d float array and a Python int.  The rule of each test depends on ``n``, so
    it is built once per distinct ``n``.  Returns a float array of the broadcast shape.
    """
    theta_b, n_b = np.broadcast_arrays(np.asarray(theta, dtype=float), n)
    out = np.empty(theta_b.shape, dtype=float)
    for value in np.unique(n_b):
        mask = n_b == value
        out[mask] = power_at(theta_b[mask], int(value))
    return out
