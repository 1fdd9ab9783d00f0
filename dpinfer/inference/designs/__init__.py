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
* :func:`~dpinfer.sequential_design` / :class:`~dpinfer.SequentialDesign`: two-arm
  group-sequential designs with Lan-DeMets alpha spending, the supremum over the common
  rate certified; :func:`~dpinfer.sequential_test` the inference at their end.
"""

from ._group_sequential import SequentialCharacteristics, SequentialDesign, sequential_design
from ._stagewise import simon_test
from ._two_arm_analysis import sequential_test
from ._two_stage import SimonDesign, simon_design

__all__ = ["SequentialCharacteristics", "SequentialDesign", "SimonDesign", "sequential_design", "sequential_test",
           "simon_design", "simon_test"]
