"""Privacy budgets: what one data set may spend, what it has spent, and the ledger.

Layout: ``_ledger`` (the refusal error, ledger entries, shared checks and
bounds), ``_privacy_budget`` (:class:`PrivacyBudget`), ``_composition`` (the
parallel, advanced and labelled handles), ``_verify`` (the chain checked against
anchors kept outside the file: published releases, the head sidecar) and ``_charging`` (the interface the
releasers, the audit and the two-sample tests call).

A :class:`PrivacyBudget` is the total (epsilon, delta) approved for one data set.
Every releaser takes ``budget=`` and charges it *before* drawing any noise; a
charge that would pass the total raises :class:`BudgetExceededError` and nothing
is drawn or recorded.  The ledger (one :class:`LedgerEntry` per charge) is the
audit trail a reviewer reads, and ``to_json`` / ``from_json`` keep it across
sessions (the ``dpinfer release --budget FILE`` command keeps it in a file).

Composition rules (all in :class:`PrivacyBudget`'s Notes):

* sequential (basic): releases of the same data add up (Dwork & Roth 2014, Thm. 3.16);
* parallel, declared with :meth:`PrivacyBudget.parallel`: releases of disjoint
  groups of people cost the largest group total (McSherry 2009);
* advanced, declared with :meth:`PrivacyBudget.advanced`: k planned small releases
  cost ``sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1)`` (Dwork,
  Rothblum & Vadhan 2010, Thm. III.3).
"""

from ._composition import AdvancedComposition, ParallelComposition
from ._ledger import BudgetExceededError, LedgerEntry
from ._plan import AllocationPlan
from ._privacy_budget import PrivacyBudget
from ._verify import LedgerVerification

__all__ = [
    "AdvancedComposition",
    "AllocationPlan",
    "BudgetExceededError",
    "LedgerEntry",
    "LedgerVerification",
    "ParallelComposition",
    "PrivacyBudget",
]
