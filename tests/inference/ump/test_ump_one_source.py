"""The compiled DP-UMP kernels are numba's compilation of one source, not a second copy.

Every kernel ``_jit`` hands out is compiled from the code object of its namesake in
``ump/_sums.py`` (the Python run) or, for the interval search's bookkeeping, from the
numpy source in ``inference/_roots.py`` and ``ump/_intervals.py``; the doubles agree bit
for bit (``test_ump_jit.py``).
"""

import inspect

import pytest

from dpinfer.inference import _roots
from dpinfer.inference.ump import _intervals, _kernels, _sums


@pytest.fixture(scope="module")
def jit():
    compiled = _kernels._jit()
    if compiled is None:
        pytest.skip("numba is not installed")
    return compiled


def test_every_kernel_is_compiled_from_the_python_source(jit):
    functions = {name for name, f in vars(_sums).items()
                 if inspect.isfunction(f) and f.__module__ == _sums.__name__}
    helpers = {"_buffer", "_memo", "_values", "_rint", "_ceil", "_floor"}  # storage and rounding only
    assert set(_sums.COMPILED) == functions - helpers
    for name in _sums.COMPILED:
        assert getattr(jit, name).py_func.__code__ is getattr(_sums, name).__code__, name


def test_the_interval_bookkeeping_is_compiled_from_its_numpy_source(jit):
    assert jit.illinois_propose.py_func is _roots.illinois_propose
    assert jit.illinois_update.py_func is _roots.illinois_update
    assert jit.gauge.py_func is _intervals._gauge


def test_the_compiled_module_writes_no_kernel_of_its_own(jit):
    # what _jit defines itself: the six storage/rounding helpers and the smoke test
    own = {name for name, f in vars(jit).items()
           if callable(f) and getattr(getattr(f, "py_func", f), "__module__", None) == jit.__name__
           and getattr(getattr(f, "py_func", f), "__code__", None) is not None
           and getattr(f, "py_func", f).__code__.co_filename == jit.__file__}
    assert own == {"_buffer", "_memo", "_values", "_rint", "_ceil", "_floor", "_from_source", "smoke"}
