"""Monte Carlo check of a two-arm group-sequential design run through its staged releases.

For the design ``sequential_design(0.5, 0.3, looks=3, epsilon=1)`` and true rates
``(theta1, 0.3)``, ``theta1`` in {0.3, 0.4, 0.5, 0.6}: ``R`` trials are run through
:meth:`SequentialDesign.staged_release` (each stage's counts drawn, released with Tulap noise,
the design deciding after each look), and each run's outcome (the look it stopped at, its
statistic) is recorded.  Printed, next to the exact values (no simulation):

* the share of runs stopped for efficacy (size at 0.3, power at 0.5);
* the share whose 95% interval of :func:`dpinfer.sequential_test` holds ``theta1 - theta2``,
  and the naive fixed-sample interval's (decided for each outcome from the one-sided
  p-values the interval inverts); on the first ``--check`` runs the interval itself is
  computed and must agree with that decision;

each with its Monte Carlo standard error and ``z = (simulated - exact) / SE`` (``|z| <= 4``
expected).  Seeded: the point ``i`` draws from ``SeedSequence(20261128, spawn_key=(i,))``.

Run: ``python -m validation._sequential_coverage [--quick]`` (default R = 4000 per point,
about a minute; ``--quick`` R = 400).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from dpinfer import sequential_design, sequential_test  # noqa: E402
from dpinfer.inference._studies import (sequential_design_lattice, sequential_membership,  # noqa: E402
                                       sequential_observed, sequential_outcomes)


def run_trials(design, theta1, theta2, runs, seed):
    """``runs`` trials run through the design's staged releases (a list of the finished runs);
    ``seed`` a SeedSequence, spawned once per trial."""
    out = []
    for seq in seed.spawn(runs):
        rng = np.random.default_rng(seq)
        run = design.staged_release()
        for stage, (m1, m2) in enumerate(design.stage_sizes(), 1):
            run.release(stage, [int(rng.binomial(m1, theta1)), int(rng.binomial(m2, theta2))], rng=rng)
            if run.stopped:
                break
        out.append(run)
    return out


def _outcomes(design, theta1, theta2, runs, seed):
    return [sequential_observed(design, run.releases)[:2] + (run,)
            for run in run_trials(design, theta1, theta2, runs, seed)]


def _report(name, simulated, exact, runs):
    se = math.sqrt(max(exact * (1 - exact), 1e-12) / runs)
    z = (simulated - exact) / se
    print(f"  {name:<28} simulated {simulated:.4f}  exact {exact:.4f}  SE {se:.4f}  z {z:+.2f}"
          f"  {'ok' if abs(z) <= 4 else 'OUTSIDE 4 SE'}")
    return abs(z) <= 4


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="R = 400 runs per point")
    parser.add_argument("--reps", type=int, default=None, help="runs per point (default 4000)")
    parser.add_argument("--check", type=int, default=3, help="runs per point whose interval is computed")
    args = parser.parse_args(argv)
    runs = args.reps or (400 if args.quick else 4000)
    design = sequential_design(0.5, 0.3, looks=3, epsilon=1.0)
    lat = sequential_design_lattice(design)
    fine = True
    for i, theta1 in enumerate((0.3, 0.4, 0.5, 0.6)):
        theta2, delta = 0.3, theta1 - 0.3
        print(f"theta1 = {theta1}, theta2 = {theta2} ({runs} runs)")
        outcomes = _outcomes(design, theta1, theta2, runs, np.random.SeedSequence(20261128, spawn_key=(i,)))
        law = sequential_outcomes(lat, design.efficacy, theta1, theta2)
        exact_reject = design.operating_characteristics(theta1, theta2).reject
        fine &= _report("stopped for efficacy", np.mean([w >= design.efficacy[k] for k, w, _ in outcomes]),
                        exact_reject, runs)
        for naive in (False, True):
            members = sequential_membership(lat, design.efficacy, delta, 0.95, naive=naive)
            exact = sum(float(np.dot(mass, inside[v0 - w0:v0 - w0 + mass.size]))
                        for (w0, inside), (v0, mass) in zip(members, law))
            hits = [bool(members[k][1][w - members[k][0]]) for k, w, _ in outcomes]
            fine &= _report("naive interval covers" if naive else "interval covers", float(np.mean(hits)),
                            exact, runs)
            if not naive:
                for (k, w, run), hit in list(zip(outcomes, hits))[:args.check]:
                    ci = sequential_test(design, run).conf_int
                    agree = (ci.low <= delta <= ci.high) == hit
                    fine &= agree
                    print(f"    run at look {k + 1}: interval [{ci.low:.4f}, {ci.high:.4f}] "
                          f"{'agrees' if agree else 'DISAGREES'}")
    return 0 if fine else 1


if __name__ == "__main__":
    sys.exit(main())
