"""Mechanisms that turn confidential data into a :class:`Release`."""

from .laplace import LaplaceReleaser
from .local import KRRReleaser, LDPHistogramReleaser, LocalLaplaceReleaser, UnaryEncodingReleaser
from .randomized_response import RandomizedResponseReleaser, TwoCoinRRReleaser
from .release import Release
from .table import ContingencyTableReleaser
from .tulap import TulapReleaser

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
