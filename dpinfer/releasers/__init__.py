"""Mechanisms that turn confidential data into a :class:`Release`."""

from .._lazy import lazy_getattr as _lazy_getattr

# Each releaser's module, imported on first use (PEP 562): the inference functions import
# ``releasers.release`` for the Release record, and a first p-value should not pay for the
# local-DP channels (scipy.special) or the ledger of releasers it never uses.
_PUBLIC = {
    "ContingencyTableReleaser": ".table",
    "KRRReleaser": ".local",
    "LDPHistogramReleaser": ".local",
    "LaplaceReleaser": ".laplace",
    "LifeTableReleaser": ".life_table",
    "LocalLaplaceReleaser": ".local",
    "MeanReleaser": ".mean",
    "PairedTableReleaser": ".paired",
    "RandomizedResponseReleaser": ".randomized_response",
    "Release": ".release",
    "TulapReleaser": ".tulap",
    "TwoCoinRRReleaser": ".randomized_response",
    "UnaryEncodingReleaser": ".local",
}


__getattr__ = _lazy_getattr(__name__, _PUBLIC)


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "ContingencyTableReleaser",
    "KRRReleaser",
    "LDPHistogramReleaser",
    "LaplaceReleaser",
    "LifeTableReleaser",
    "LocalLaplaceReleaser",
    "MeanReleaser",
    "PairedTableReleaser",
    "RandomizedResponseReleaser",
    "Release",
    "TulapReleaser",
    "TwoCoinRRReleaser",
    "UnaryEncodingReleaser",
]
