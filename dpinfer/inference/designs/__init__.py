"""Exact private designs with interim looks (issue 36).

Two-arm group-sequential designs (:func:`~dpinfer.sequential_design`): alpha spending with
the exact law of the staged Tulap releases, the supremum over the common rate certified; exact inference at the end (:func:`~dpinfer.sequential_test`).
"""

from ._sequential import SequentialCharacteristics, SequentialDesign, sequential_design
from ._sequential_test import sequential_test

__all__ = ["SequentialCharacteristics", "SequentialDesign", "sequential_design", "sequential_test"]
