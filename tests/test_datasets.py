"""The embedded example trial."""

import csv
from pathlib import Path

from dpinfer import ExampleTrial, load_example_trial


def test_example_trial_values_and_file():
    trial = load_example_trial()
    assert isinstance(trial, ExampleTrial)
    assert (trial.responders, trial.n, trial.p0) == (11, 30, 0.2)
    path = Path(trial.path)
    assert path.is_file() and path.name == "phase2_trial.csv"
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    # recount independently of the loader: one row per patient, 0/1 responses
    assert len(rows) == 30 and {"patient_id", "response"} <= set(rows[0])
    assert {row["response"] for row in rows} <= {"0", "1"}
    assert sum(row["response"] == "1" for row in rows) == 11
    assert len({row["patient_id"] for row in rows}) == 30
    assert "synthetic" in trial.description.lower()
