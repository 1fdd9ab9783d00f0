"""Warning classes raised by dpinfer (always with ``stacklevel=2`` or deeper)."""

__all__ = ["DPInferWarning", "ApproximationWarning", "InputWarning", "PrivacyWarning"]


class DPInferWarning(UserWarning):
    """Base class of every warning dpinfer raises."""


class ApproximationWarning(DPInferWarning):
    """An approximate method is known to be inaccurate for the inputs given."""


class PrivacyWarning(DPInferWarning):
    """A release may not carry the guarantee it records (for example a seeded generator)."""


class InputWarning(DPInferWarning):
    """An input is valid but looks like a slip: a proportion given where a noisy count
    belongs, or a release that no parameter value makes plausible."""
