"""Inference from several sites or strata, each released with its own noise (issue 37)."""

from ._pooled import binom_pooled_test
from ._stratified import binom_strata_test

__all__ = ["binom_pooled_test", "binom_strata_test"]
