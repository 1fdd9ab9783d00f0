"""Exact private designs with interim looks (issue 36).

Two-arm group-sequential designs (:func:`~dpinfer.sequential_design`): alpha spending with
the exact law of the staged Tulap releases, the supremum over the common rate certified.
"""

from ._sequential import SequentialCharacteristics, SequentialDesign, sequential_design

__all__ = ["SequentialCharacteristics", "SequentialDesign", "sequential_design"]
