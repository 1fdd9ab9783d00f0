"""Designs with interim looks: exact private two-stage and group-sequential designs (issue 36).

A design's stages release the count of each stage's *new* patients once
(:class:`~dpinfer.StagedRelease`): stages are disjoint patients, so the whole design
costs epsilon once and every interim look is free; the cumulative released statistic is a
sum of independent (Binomial convolved with Tulap) increments, whose law is an exact finite
convolution.  Operating characteristics follow without simulation.

* :func:`~dpinfer.simon_design` / :class:`~dpinfer.SimonDesign`: one-arm two-stage designs
  (Simon 1989), optimal or minimax, exact size at most alpha for the private releases.
* :func:`~dpinfer.simon_test`: the inference at the end of a Simon design (stage-wise
  ordering: exact p-value, interval with exact coverage, median-unbiased estimate).
"""

from ._two_stage import SimonDesign, simon_design
from ._stagewise import simon_test

__all__ = ["SimonDesign", "simon_design", "simon_test"]
