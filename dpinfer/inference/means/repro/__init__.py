"""Repro samples (Awan & Wang) for clipped means: exact in finite samples, Monte Carlo included.

Modules: ``_one_group`` (:func:`mean_repro_test`: each seed's exact roots, the rank p-value
and the interval read off order statistics), ``_two_groups`` (:func:`mean2_repro_test`: two
groups, sigma known), ``_joint`` (its default joint statistic of both sums: the groups'
rank p-values combined, the supremum over the nuisance and the interval read off the
roots exactly), ``_nuisance_lattice`` (the
two-group supremum over the nuisance mean, certified on a lattice of boxes),
``_unknown_spread`` (the projection over an unknown sigma, certified on boxes) and
``_simulator`` (the released law simulated exactly, and each seed's roots).
"""

from ._one_group import mean_repro_test
from ._two_groups import mean2_repro_test

__all__ = ["mean2_repro_test", "mean_repro_test"]
