"""Statistical privacy audits: a lower confidence bound on the privacy loss a releaser incurs.

A releaser *claims* (epsilon, delta)-differential privacy.  For a pair of
neighbouring inputs ``x`` and ``x'`` and any event ``E`` of the output, the claim
implies ``P_x(E) <= exp(epsilon) P_x'(E) + delta``.  Sampling the releaser many
times on both inputs, choosing an event on one half of the samples and bounding
the two probabilities on the other half gives a lower confidence bound on the
epsilon the releaser actually spends: a bound above the claim is statistical
evidence of a violation (a bug, a mislabelled epsilon, too little noise).  This
is the statistical tester of Ding et al. (2018) in the form used by
DP-Auditorium (Kong et al. 2024) and by Jagielski et al. (2020): Clopper-Pearson
bounds on the two event probabilities.

The events include bit-level ones (the lowest set bit of the output, exact
representability on a grid ``2**t``, parities), which catch a releaser whose
floating-point arithmetic makes the set of possible outputs depend on the input
(Mironov 2012).

Layout: ``_audit`` holds :func:`audit_releaser` (checks, draws, the claim) and
:class:`AuditResult`; ``_selection._select_event`` chooses the event on the
selection half among the families of ``_events`` (output values) and ``_bits``
(bit-level events; ``_bits._bit_cells`` is the feature shared with the test
suite's bit-privacy check); ``_bounds._bound_event`` bounds it on the evaluation
half.
"""

from ._audit import AuditResult, audit_releaser

__all__ = ["AuditResult", "audit_releaser"]
