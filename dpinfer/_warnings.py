"""Warning classes raised by dpinfer, and :func:`warn`, the one way dpinfer issues a warning.

Every warning of the package goes through :func:`warn`, which attributes it to the
user's line: the first frame outside the ``dpinfer`` package, however many of the
package's frames lie between (a public function calling another, a ``release_first``
wrapper, ``prop_test`` dispatching to a method).  No ``stacklevel`` is counted by hand,
and no warning is caught and re-issued (``warnings.catch_warnings`` swaps process-wide
state and is not thread-safe; validation sweeps call dpinfer from Dask worker threads).
"""

import os
import sys
import warnings

from ._validation import _NamedMessage

__all__ = ["DPInferWarning", "ApproximationWarning", "InputWarning", "PrivacyWarning"]

#: the package's directory, with a trailing separator: a frame whose file starts with it is dpinfer's
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _caller_stacklevel():
    """The ``stacklevel``, for a ``warnings.warn`` in :func:`warn`, of the first frame outside dpinfer."""
    frame, level = sys._getframe(1), 1  # level 1: warn's own frame
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn(message, category):
    """Issue ``message`` (text, or a warning built from parts) as ``category`` at the user's line.

    Package-internal (not in ``__all__``).  The line is that of the first frame outside
    the ``dpinfer`` package (see the module's docstring); ``category`` is ignored, as by
    :func:`warnings.warn`, when ``message`` is already a warning instance.
    """
    warnings.warn(message, category, stacklevel=_caller_stacklevel())


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


class InputWarning(DPInferWarning):
    """An input is valid but looks like a slip: a proportion given where a noisy count
    belongs, or a release that no parameter value makes plausible."""
