"""Paired binary data (McNemar) and several arms against one control (Dunnett-type), with multiplicity.

* :func:`mcnemar_test`, :func:`mcnemar_power`, :func:`mcnemar_sample_size`: the exact unconditional
  McNemar test of ``p10 - p01 = margin`` from a :class:`~dpinfer.PairedTableReleaser` release
  (:mod:`._law` holds the law and the ordering, :mod:`._sup` the certified supremum over the
  discordance, reusing :mod:`dpinfer.inference.two_arm._certify`).
* :func:`adjust_pvalues`: R's ``p.adjust`` (Holm, Hochberg, Bonferroni, Benjamini-Hochberg) for
  any list of p-values; in the release-then-infer model every adjustment is post-processing and
  costs no privacy budget.
* :func:`binom_many_to_one_test`: every arm against one shared control, exact per-arm p-values
  and a Dunnett-type single-step adjustment.
"""



from ._adjust import adjust_pvalues
from ._many_to_one import ManyToOneResult, binom_many_to_one_test
from ._mcnemar import mcnemar_power, mcnemar_sample_size, mcnemar_test

__all__ = ["ManyToOneResult", "adjust_pvalues", "binom_many_to_one_test", "mcnemar_power", "mcnemar_sample_size", "mcnemar_test"]
