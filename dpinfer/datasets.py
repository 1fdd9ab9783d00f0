"""The embedded example: a small, synthetic single-arm phase II trial."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

__all__ = ["ExampleTrial", "load_example_trial"]


@dataclass(frozen=True)
class ExampleTrial:
    """A single-arm trial summarised as responders out of n.

    Attributes
    ----------
    responders : int
        Number of patients with an objective response.
    n : int
        Number of patients treated.
    p0 : float
        Historical (null) response rate the trial is designed against.
    description : str
        Where the data come from.
    path : str
        Path of the per-patient CSV shipped in the package (columns
        ``patient_id``, ``response``).
    """

    responders: int
    n: int
    p0: float
    description: str
    path: str


def load_example_trial():
    """Load the synthetic phase II example: 11 responders among 30 patients, p0 = 0.2.

    The data are invented for teaching: a single-arm phase II oncology trial of
    30 patients whose historical response rate under standard care is 20%.  The
    per-patient file is ``dpinfer/data/phase2_trial.csv``; each row is one
    patient, so one patient's record is the unit of privacy.

    Returns
    -------
    ExampleTrial

    Examples
    --------
    >>> from dpinfer import load_example_trial
    >>> trial = load_example_trial()
    >>> trial.responders, trial.n, trial.p0
    (11, 30, 0.2)
    """
    path = resources.files("dpinfer.data").joinpath("phase2_trial.csv")
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    responses = [int(row["response"]) for row in rows]
    return ExampleTrial(
        responders=sum(responses),
        n=len(responses),
        p0=0.2,
        description=(
            "Synthetic single-arm phase II trial: objective response in 30 patients, "
            "historical response rate 20% (invented data shipped with dpinfer for teaching)."
        ),
        path=str(path),
    )
