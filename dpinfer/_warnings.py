"""Warning classes raised by dpinfer (always with ``stacklevel=2`` or deeper)."""

from ._validation import _NamedMessage

__all__ = ["DPInferWarning", "ApproximationWarning", "PrivacyWarning"]


class DPInferWarning(_NamedMessage, UserWarning):
    """Base class of every warning dpinfer raises.

    Built from one string, as any warning; built from parts (text and the Python
    names it mentions), it keeps those names as data (``parts``), from which the
    ``dpinfer`` command spells them as options.
    """


class ApproximationWarning(DPInferWarning):
    """An approximate method is known to be inaccurate for the inputs given."""


class PrivacyWarning(DPInferWarning):
    """A release may not carry the guarantee it records (for example a seeded generator)."""
