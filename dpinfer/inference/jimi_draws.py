"""Former home of the DP-JIMI fiducial draws, kept so old imports work.

The code lives in the :mod:`dpinfer.inference.jimi` package (module ``_draws``); this
module only re-exports its public names.
"""

from .jimi import binom2_jimi_sample, binom_jimi_sample

__all__ = ["binom2_jimi_sample", "binom_jimi_sample"]
