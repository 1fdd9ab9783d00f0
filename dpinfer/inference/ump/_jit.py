"""The DP-UMP sum kernels of ``_sums`` compiled by numba (private).

Imported only by ``_kernels._jit()`` the first time a large DP-UMP sum runs, and only when
numba is importable (the optional extra ``dpinfer[fast]``); otherwise the numpy code of
``_kernels`` runs.  Nothing here restates a formula: every function of ``_sums.COMPILED``
is compiled from ``_sums``'s own code object, with this module's globals, in which the
storage and rounding helpers are numba's (an array for a buffer, ``np.floor`` for a floor;
the same doubles) and every call goes to the compiled functions.  So the compiled kernels
and the Python run of ``_sums`` are one source (checked bit for bit in
``tests/inference/ump/test_ump_jit.py``), and they agree with the numpy path to rounding
(the sums run in a different order; 1e-13 relative in the same tests).

Compiled code is cached on disk (``cache=True``): the first run compiles (a few seconds),
later processes load it.  numba's cache keys each function on ``_sums.py``'s modification
time, so editing ``_sums.py`` recompiles them.
"""

from __future__ import annotations

import math
import types

import numpy as np
from numba import njit

from .. import _roots
from . import _intervals, _sums
from ._loader_parts import _STIRLERR
from ._loader_parts import _two_product_error as _python_two_product_error

_compile = njit(cache=True, error_model="numpy")

# _sums's numeric constants (_LOG_TOL, _WCAP, ...) for the compiled functions; numba indexes
# the numpy table _STIRLERR imported above, not _sums's tuple of Python floats
globals().update({name: value for name, value in vars(_sums).items()
                  if name[:1] == "_" and name[1:].isupper() and isinstance(value, (int, float))})

# ``a b - prod`` exactly: the shared function of ``_loader_parts``, compiled (pure arithmetic on scalars)
_two_product_error = _compile(_python_two_product_error)


# numba's storage and rounding (np.floor and np.ceil keep floats: numba's math.floor and
# math.ceil return int64, which wraps for |z| >= 2**63)
@_compile
def _buffer(size):
    return np.empty(size)


@_compile
def _memo():
    return np.array([math.nan, 0.0])


@_compile
def _values(a):
    return a


@_compile
def _rint(x):
    return np.rint(x)


@_compile
def _ceil(x):
    return np.ceil(x)


@_compile
def _floor(x):
    return np.floor(x)


def _from_source(name):
    """``_sums``'s function ``name`` compiled with this module's globals (its calls go to the
    compiled functions here): one code object, two runs."""
    return _compile(types.FunctionType(getattr(_sums, name).__code__, globals(), name))


for _name in _sums.COMPILED:
    globals()[_name] = _from_source(_name)
del _name


# -- the bookkeeping of one vectorised Illinois step (``inference/_roots.py``) and the
# interval searches' gauge (``_intervals._gauge``): their numpy source, compiled
illinois_propose = _compile(_roots.illinois_propose)
illinois_update = _compile(_roots.illinois_update)
gauge = _compile(_intervals._gauge)


def smoke():
    """Run the smallest kernel once (compiles it, or loads it from the disk cache), so that a
    numba that imports but cannot compile here is found before any result depends on it.
    The other kernels load on first use (about 70 ms each from the cache)."""
    gauge(np.array([-1.0]), math.log(0.05))
