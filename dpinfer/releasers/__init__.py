"""Mechanisms that turn confidential data into a :class:`Release`."""

from .laplace import LaplaceReleaser
from .release import Release
from .tulap import TulapReleaser

__all__ = ["LaplaceReleaser", "Release", "TulapReleaser"]
