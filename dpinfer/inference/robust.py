"""Former home of the robust local-DP estimator, kept so old imports work.

The code lives in :mod:`dpinfer.inference.local` (module ``_robust``), with the other
local-DP methods; this module only re-exports its public names.
"""

from .local import RobustEstimate, robust_frequency_estimate

__all__ = ["RobustEstimate", "robust_frequency_estimate"]
