"""The pieces of Loader's binomial pmf shared by the DP-UMP kernels and their two twins.

One definition each, so the numpy kernels (``_kernels``), the compiled twin (``_jit``)
and the Python twin (``_twin``) compute the same doubles: the ``stirlerr`` table and
Dekker's exact two-product (``x - n p`` in Loader's ``bd0``; numba compiles this same
function in ``_jit``).
"""

from __future__ import annotations

import numpy as np

__all__ = []  # private module

# stirlerr(k) = log k! - (k + 1/2) log k + k - log sqrt(2 pi), k = 0..15 (mpmath, 40 digits)
_STIRLERR = np.array([
    0.0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834,
    0.020790672103765093, 0.016644691189821193, 0.013876128823070748,
    0.01189670994589177, 0.010411265261972096, 0.009255462182712733,
    0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
    0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
])


def _two_product_error(a, b, prod):
    """``a b - prod`` exactly for ``prod = fl(a b)`` (Dekker's split; no overflow for |a| < 2**970)."""
    split = 134217729.0  # 2**27 + 1
    c = split * a
    ah = c - (c - a)
    al = a - ah
    c = split * b
    bh = c - (c - b)
    bl = b - bh
    return ((ah * bh - prod) + ah * bl + al * bh) + al * bl
