"""Three cells of the ordering power table (docs/two_arm.rst, validation/two_arm_ordering.py).

Expected values: tests/reference/two_arm_power_values.json, written by
tests/reference/make_two_arm_power.py (enumeration over the counts and the noise's integer
parts, the score at 40 digits, the critical region found from the model; no dpinfer).  The
reference ignores the release grid (below 1e-10) and locates its suprema on a grid with
refinement, so the powers agree to 1e-8, not to the last digit.
"""

import json
from pathlib import Path

import pytest

from dpinfer import binom2_ump_power
from validation import two_arm_ordering

REF = json.loads((Path(__file__).parents[2] / "reference" / "two_arm_power_values.json").read_text())


@pytest.mark.parametrize("cell", REF["cells"], ids=lambda c: f"{c['statistic']}-{c['theta1']}-{c['theta2']}")
def test_power_table_cell_matches_the_enumeration(cell):
    power = binom2_ump_power(cell["theta1"], cell["theta2"], cell["n"], cell["n"], epsilon=cell["epsilon"],
                             alpha=cell["alpha"], alternative=cell["alternative"], statistic=cell["statistic"])
    assert float(power) == pytest.approx(cell["power"], abs=1e-8)


def test_the_study_row_holds_the_same_cells():
    # the study's quick grid is n = 20, epsilon = 1: its row is the table's
    names = {(0.45, 0.30): "power_45_30", (0.20, 0.08): "power_20_08", (0.60, 0.45): "power_60_45"}
    for statistic in ("difference", "score"):
        row = two_arm_ordering.power_cell({"n": 20, "epsilon": 1.0, "alternative": "greater",
                                           "statistic": statistic}, None)
        assert row["size_ok"]
        for cell in REF["cells"]:
            if cell["statistic"] == statistic:
                assert row[names[(cell["theta1"], cell["theta2"])]] == pytest.approx(cell["power"], abs=1e-8)
