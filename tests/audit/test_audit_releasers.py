"""Privacy audits: every releaser passes at its claimed level; planted bugs are caught.

Confidence level of every audit here: 0.95 (the default), i.e. a correct
releaser is flagged with probability at most 5% per audit; the seeds are fixed,
so the outcomes are deterministic.  The hardened path (``secure=True``) draws
from the OS, which cannot be seeded: its audits here replace the OS source by a
seeded ``random.Random`` (same interface, same exact samplers), run at level 0.999,
and are deterministic too.
Sample sizes: 40 000 releases per input (20 000 select the event, 20 000
evaluate it), 4 000-10 000 on the secure path (tens of microseconds per draw).

The audit includes bit-level events (issue 14): releasers that added noise to
the data in floating point leaked through the low-order bits of their output;
every releaser now builds its output in integers and passes.  Planted copies of the old constructions
(``x + (k + u)`` on the hardened Tulap path, the float Tulap and Laplace samplers
of the seeded path) stay here and must stay flagged.
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

import dpinfer
from dpinfer import AuditResult, audit_releaser
from dpinfer.releasers import _secure_path

from _audit_cases import CASES, _SeededOSBits


@pytest.mark.parametrize("name, mechanism, x, x_prime, args, n, power", CASES, ids=[c[0] for c in CASES])
def test_every_releaser_passes_its_audit(name, mechanism, x, x_prime, args, n, power, monkeypatch):
    level = 0.95
    if "-secure" in name:
        # The hardened path reads the OS source, which cannot be seeded: here a seeded
        # stand-in with the same interface replaces it, so the exact samplers run as in
        # production but the outcome is deterministic (unseeded, the power assertion
        # below failed once in several hundred audits: a rare draw picks a sparse event).
        # Both paths run the same samplers (tests/test_exact_noise.py checks which bits each uses).
        seeds = itertools.count(2024)
        monkeypatch.setattr(_secure_path, "_os_bits", lambda: _SeededOSBits(np.random.default_rng(next(seeds))))
        level = 0.999
    res = audit_releaser(mechanism, x, x_prime, args=args, n_samples=n, confidence_level=level, rng=2024)
    assert isinstance(res, AuditResult)
    assert res.verdict == "no violation detected" and not res.violation
    assert res.epsilon_lower <= res.epsilon
    # and the audit is not vacuous: it sees most of the privacy loss that is there
    assert res.epsilon_lower >= power


def test_the_audit_table_covers_every_public_releaser():
    """A releaser added to dpinfer.__all__ must be added to CASES (it fails here until then)."""
    releasers = {
        name
        for name in dpinfer.__all__
        if inspect.isclass(getattr(dpinfer, name)) and hasattr(getattr(dpinfer, name), "release")
    }
    covered = {case[0].split("-")[0].split(".")[0] for case in CASES}
    assert releasers, "no releaser found in dpinfer.__all__"
    assert releasers <= covered, f"releasers without an audit: {sorted(releasers - covered)}"
