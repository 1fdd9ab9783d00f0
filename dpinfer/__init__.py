"""dpinfer: statistical inference on differentially private releases.

Release a statistic with a documented guarantee, then test and estimate from the
release with exact (where the mathematics allows) or simulation-based methods
whose answers print like R's ``htest``.
"""

from ._warnings import ApproximationWarning, DPInferWarning, PrivacyWarning
from .datasets import ExampleTrial, load_example_trial
from .distributions import Tulap
from .releasers import LaplaceReleaser, Release, TulapReleaser
from .results import ConfidenceInterval, HTestResult, results_to_frame

__version__ = "0.1.0"

__all__ = [
    "ApproximationWarning",
    "ConfidenceInterval",
    "DPInferWarning",
    "ExampleTrial",
    "HTestResult",
    "LaplaceReleaser",
    "PrivacyWarning",
    "Release",
    "Tulap",
    "TulapReleaser",
    "load_example_trial",
    "results_to_frame",
]
