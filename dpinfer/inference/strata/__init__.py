"""Inference from several sites or strata, each released with its own noise (issue 37).

* :func:`~dpinfer.binom_pooled_test`: one proportion shared by ``S`` sites, from the sum of
  their releases (``_pooled.py``);
* :func:`~dpinfer.binom_homogeneity_test`: whether the sites share it (``_homogeneity.py``);
* :func:`~dpinfer.binom_strata_test`: two arms compared within ``S`` strata, a common risk
  difference with free baseline rates (Cochran-Mantel-Haenszel type; ``_stratified.py``,
  its supremum in ``_nuisance.py``);
* :func:`~dpinfer.binom2_pooled_test`: two arms, each released in parts with one rate per arm
  (each arm pooled, the two-arm comparison with a convolved noise law; ``_convolved_arms.py``).

The law of a sum of releases with different epsilons and grids is in ``_noise_sum.py``, the
releases' validation (and the refusals of Laplace releases and ``delta > 0``, with the
reason) in ``_arguments.py``, the privacy record in ``_common.py``: the composition is
decided only by :func:`dpinfer._composition_rule.composition_rule` from the releases'
records, and every result's note lists each release's own epsilon.
"""

from ._convolved_arms import binom2_pooled_test
from ._homogeneity import binom_homogeneity_test
from ._pooled import binom_pooled_test
from ._stratified import binom_strata_test

__all__ = ["binom2_pooled_test", "binom_homogeneity_test", "binom_pooled_test", "binom_strata_test"]
