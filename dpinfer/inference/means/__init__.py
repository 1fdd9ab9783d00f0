"""Means of clipped private data: DP-JIMI and the naive comparator (one package).

Modules: ``_entry`` (:func:`mean_test`, R's ``t.test``), ``_jimi`` (:func:`mean_jimi_test`, :func:`mean2_jimi_test`: DP-JIMI for a
clipped location-scale model), ``_kernels`` (the vectorised solves over draws),
``_planning`` (:func:`mean_power`, :func:`mean_sample_size`; the exact law in ``_law``), ``_naive`` (:func:`mean_naive_test`, :func:`mean2_naive_test`: the normal interval
around the clipped mean, the comparator), ``repro/`` (:func:`mean_repro_test`,
:func:`mean2_repro_test`: repro samples, valid in finite samples with the Monte Carlo error included), ``_common`` (the releases taken, the model, the draws, percentiles).
"""

from ._entry import mean_test
from ._jimi import mean2_jimi_test, mean_jimi_test
from ._naive import mean2_naive_test, mean_naive_test
from ._planning import mean_power, mean_sample_size
from .repro import mean2_repro_test, mean_repro_test

__all__ = [
    "mean2_jimi_test",
    "mean2_naive_test",
    "mean2_repro_test",
    "mean_jimi_test",
    "mean_naive_test",
    "mean_power",
    "mean_repro_test",
    "mean_sample_size",
    "mean_test",
]
