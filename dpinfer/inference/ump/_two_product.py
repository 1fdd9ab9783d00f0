"""Dekker's exact two-product, shared by the DP-UMP kernels, their compiled twin and the Python twin.

One definition (pure arithmetic on scalars or arrays), so the three paths compute
``x - n p`` in Loader's ``bd0`` to the same double; numba compiles this same
function in ``_jit``.
"""

from __future__ import annotations

__all__ = []  # private module


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
