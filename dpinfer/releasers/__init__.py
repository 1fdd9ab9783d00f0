"""Mechanisms that turn confidential data into a :class:`Release`."""

import importlib

# Each releaser's module, imported on first use (PEP 562): the inference functions import
# ``releasers.release`` for the Release record, and a first p-value should not pay for the
# local-DP channels (scipy.special) or the ledger of releasers it never uses.
_PUBLIC = {
    "ContingencyTableReleaser": ".table",
    "KRRReleaser": ".local",
    "LDPHistogramReleaser": ".local",
    "LaplaceReleaser": ".laplace",
    "LocalLaplaceReleaser": ".local",
    "RandomizedResponseReleaser": ".randomized_response",
    "Release": ".release",
    "TulapReleaser": ".tulap",
    "TwoCoinRRReleaser": ".randomized_response",
    "UnaryEncodingReleaser": ".local",
}


def __getattr__(name):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "ContingencyTableReleaser",
    "KRRReleaser",
    "LDPHistogramReleaser",
    "LaplaceReleaser",
    "LocalLaplaceReleaser",
    "RandomizedResponseReleaser",
    "Release",
    "TulapReleaser",
    "TwoCoinRRReleaser",
    "UnaryEncodingReleaser",
]
