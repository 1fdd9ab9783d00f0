"""DP-UMP p-values at large n against 60-digit mpmath sums (issue 26 W4).

Reference values: ``tests/reference/make_ump_large_n.py`` (does not import dpinfer), n in
{1e6, 1e9, 2**47}, p0 from 3e-13 to 1 - 1e-12, one- and two-sided, including the issue's two
reproducers (3.7e-4 and 7.3e-10 relative off before the fix).  Both kernel paths (compiled and
numpy) are checked.  Eight of the twenty cases failed before the fix (up to 3.7e-4
relative, 1.2e-3 at p0 = 3e-13).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dpinfer import binom_ump_test
from dpinfer.inference.ump import _kernels

CASES = json.loads((Path(__file__).parents[1] / "reference" / "ump_large_n_values.json").read_text())


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['n']}-{c['p0']}-{c['alternative']}")
def test_large_n_pvalue_has_full_relative_accuracy(monkeypatch, case, compiled):
    if not compiled:
        monkeypatch.setattr(_kernels, "_USE_JIT", False)
    got = binom_ump_test(np.array([case["z"]]), case["n"], case["p0"], epsilon=case["epsilon"],
                         alternative=case["alternative"])[0]
    want = float(case["pvalue"])
    # 1e-12 relative, except where the binomial's standard deviation passes 1e4 (n = 1e9,
    # p0 = 0.3): there scipy's betainc (Boost), which gives the far binomial tail, is the limit
    # (1.4e-11 measured), as the docstring of binom_ump_test states
    sd = (case["n"] * case["p0"] * (1.0 - case["p0"])) ** 0.5
    assert abs(got - want) <= (1e-12 if sd < 1e4 else 5e-11) * want
