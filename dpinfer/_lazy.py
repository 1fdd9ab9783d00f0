"""Packages whose public names are imported on first use (PEP 562), shared by ``dpinfer``
and ``dpinfer.releasers``: a first p-value then pays only for the modules it touches."""

from __future__ import annotations

import importlib
import sys


def lazy_getattr(package, public):
    """A module ``__getattr__`` for ``package`` that imports ``public[name]`` (a relative
    module name) on first use and caches the attribute in the package."""

    def __getattr__(name):
        module = public.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    return __getattr__
