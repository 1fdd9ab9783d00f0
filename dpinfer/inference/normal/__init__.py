"""Normal approximation for Laplace-noised proportions (Vu & Slavkovic 2009), one package.

Modules: ``_one_sample`` (:func:`binom_normal_test`, :func:`binom_normal_ci`,
:func:`binom_normal_power` and the method's derivation), ``_two_sample``
(:func:`binom2_normal_test`) and ``_kernels`` (the vectorised statistic, its exact
law under the binomial-plus-Laplace model, and the interval searches).
"""

from ._one_sample import binom_normal_ci, binom_normal_power, binom_normal_test
from ._two_sample import binom2_normal_test

__all__ = ["binom2_normal_test", "binom_normal_ci", "binom_normal_power", "binom_normal_test"]
