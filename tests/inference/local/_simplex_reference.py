"""An independent reference for the Euclidean projection onto the probability simplex.

The projection of v is (v - tau)_+ with tau the root of g(tau) = sum (v - tau)_+ - 1,
which is continuous and strictly decreasing where positive.  The package sorts v and reads
tau off the cumulative sums; here tau is found by bisection on g instead: 200 halvings of
the bracket [min v - 1, max v] leave it at the root to the last bit of a double, far below
the 1e-12 the tests ask.
"""

import numpy as np


def simplex_shift(v):
    """tau with sum(max(v - tau, 0)) = 1, by bisection (v a 1-D array)."""
    v = np.asarray(v, dtype=float)
    lo, hi = v.min() - 1.0, v.max()  # g(lo) >= 1 + ... > 0 >= g(hi) - 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.maximum(v - mid, 0.0).sum() > 1.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
