"""The ``means`` study's truths, bounds and grid, shared by its parts.

Read by the coverage part (``validation/means.py``), the two-group part
(``validation/_means_two_group.py``) and the warnings' measurements
(``validation/_means_tails.py``), so none of them imports another.  See
``validation/means.py`` for how the bounds are set from the truths.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

NS = [30, 100, 500]
EPSILONS = [0.5, 1.0, 3.0]
CLIPS = [0.0, 0.05, 0.2]
TRUTHS = {"normal": (100.0, 15.0), "lognormal": (0.0, 0.6)}


def truth_of(truth, clip, clip_lower=0.0, lower_sd=4.0):
    """``(true mean, lower, upper, sampler(gen, shape))`` of a truth with bounds clipping ``clip`` above.

    The lower bound clips ``clip_lower`` below (the truth's ``clip_lower`` quantile)
    when positive; else it is the normal's ``mu - lower_sd sigma`` (4 by default;
    the issue-40 setting, N(100, 15**2) with lower bound 10, has 6) and 0 for the
    log-normal, clipping (almost) nothing.
    """
    a, b = TRUTHS[truth]
    q = 1.0 - (clip if clip > 0 else 1e-4)
    if truth == "normal":
        law = stats.norm(a, b)
        lower = float(law.ppf(clip_lower)) if clip_lower > 0 else a - lower_sd * b
        return a, lower, float(law.ppf(q)), lambda gen, shape: gen.normal(a, b, shape)
    law = stats.lognorm(b, scale=np.exp(a))
    lower = float(law.ppf(clip_lower)) if clip_lower > 0 else 0.0
    return float(law.mean()), lower, float(law.ppf(q)), lambda gen, shape: np.exp(gen.normal(a, b, shape))
