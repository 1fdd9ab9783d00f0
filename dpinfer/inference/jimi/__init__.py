"""DP-JIMI: fiducial-matching inference for Laplace-noised proportions (one package).

Modules: ``_one_sample`` (:func:`binom_jimi_test`, :func:`binom_jimi_ci` and the
method's derivation), ``_two_sample`` (:func:`binom2_jimi_test`,
:func:`binom2_jimi_ci`), ``_draws`` (the fiducial draws themselves,
:func:`binom_jimi_sample`, :func:`binom2_jimi_sample`), ``_kernels`` (the draws'
and the exact limit's vectorised kernels), ``_exact`` (exact size and coverage
behind the warnings) and ``_common`` (inputs, tails, one-sample draws).
"""

from ._draws import binom2_jimi_sample, binom_jimi_sample
from ._one_sample import binom_jimi_ci, binom_jimi_test
from ._two_sample import binom2_jimi_ci, binom2_jimi_test

__all__ = [
    "binom2_jimi_ci",
    "binom2_jimi_sample",
    "binom2_jimi_test",
    "binom_jimi_ci",
    "binom_jimi_sample",
    "binom_jimi_test",
]
