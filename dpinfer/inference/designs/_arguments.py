"""What the designs' inference functions take, declared through the one resolver.

``simon_test`` and ``sequential_test`` analyse the stage releases of a design: Tulap
counts of each stage's new patients (a :class:`~dpinfer.StagedRelease` makes them).  A
release of another mechanism or kind is refused with the resolver's one wording before
the design's own checks (sizes, privacy) run.
"""

from __future__ import annotations

from ... import _mechanisms
from .._resolve import accepts, resolve

__all__ = []  # private module

ACCEPTS = accepts({(_mechanisms.TULAP, "count")}, ("simon_test", "sequential_test"),
                  "Tulap-noised counts of a design's stages (its StagedRelease, or "
                  "TulapReleaser(epsilon).release(x, n) per stage and arm)")


def stage_record(release, name, method):
    """The resolver's record of one stage release (argument ``name``): mechanism, kind, n, sensitivity checked."""
    return resolve(release, accepts=ACCEPTS, method=method, name=name)
