"""Exact DP-UMP inference for a binomial proportion from a Tulap release.

A count ``X ~ Binomial(n, theta)`` released as ``Z = X + N``, ``N ~ Tulap(0, b, q)``
with ``b = exp(-epsilon)`` and ``q = 2 delta b / (1 - b + 2 delta b)`` (Awan &
Slavkovic 2018), is (epsilon, delta)-DP.  This module gives the exact p-values,
confidence intervals, test functions, power and sample size of the tests of
Awan & Slavkovic (2018, 2020), each as a finite sum computed in log space with a
cost that does not grow with ``n`` (see ``_ump_kernels``).

Two-sided tests (Awan & Slavkovic 2020, Section on two-sided tests).  The
UMP-unbiased (UMPU) test has test function ``phi(x) = F(|x - k| - s)`` with
``E_p0[phi(X)] = alpha`` and ``E_p0[(X - n p0) phi(X)] = 0``.  It is a randomised
decision about the confidential count ``x``: ``phi(x)`` equals ``P(Z >= k + s)`` for
``x >= k`` but ``P(Z <= k - s)`` for ``x < k``, so the rejection probability depends
on which side of ``k`` the *unreleased* ``x`` lies, and it is not the rejection
probability of any region of ``Z`` of the form ``|Z - k| >= s`` (that test has
``phi(x) = F(x - k - s) + F(k - s - x)``).  A data curator can run it (release the
decision ``1{N <= |x - k| - s}``, itself epsilon-DP because ``|x - k|`` has
sensitivity 1), but an analyst who holds only ``Z`` cannot.  From a released ``Z`` we
therefore report, as Awan & Slavkovic (2020) do, the *asymptotically unbiased*
p-value ``P_p0(|X + N - n p0| >= |Z - n p0|)``, a post-processing of ``Z`` with exact
size.  The UMPU test is available as a decision rule (:func:`binom_ump_phi`) and for
power and sample-size planning (:func:`binom_ump_power`, :func:`binom_ump_sample_size`).

Count sensitivity ``k > 1`` (``sensitivity=k``; a person may move the count by up to
``k``).  The model stays ``X ~ Binomial(n, theta)``; the release is
``Z = X + N`` with the Tulap law of ``(epsilon / k, delta_1)`` that
:class:`~dpinfer.TulapReleaser` uses (its Notes give the privacy proof and compare
OpenDP's scaled law).  Every function here then computes exactly as for ``k = 1``
with that unit law (``distributions._tulap_law.unit_privacy``) in place of ``(epsilon, delta)``, on the
release grid of the same public numbers: the sums, sizes and coverages stay exact
for the law actually released.  A Release carries ``k``; given again, it must agree.
"""

from ._planning import binom_ump_phi, binom_ump_power, binom_ump_sample_size
from ._release_inference import binom_ump_ci, binom_ump_test

__all__ = [
    "binom_ump_ci",
    "binom_ump_phi",
    "binom_ump_power",
    "binom_ump_sample_size",
    "binom_ump_test",
]
