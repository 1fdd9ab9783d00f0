"""Draw the figures of docs/plots.rst into docs/_static/plots/ (or --out DIR).

Run from anywhere: ``python docs/make_plots.py``.  The test suite runs it into a
temporary folder and checks that it draws the committed figures (same files, same
sizes), so the page and the code shown beside each figure cannot drift apart.  Each
figure is one function below; the page shows that function's source.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from dpinfer import (  # noqa: E402
    Release,
    TulapReleaser,
    binom2_normal_test,
    binom2_ump_power,
    binom2_ump_test,
    binom_normal_power,
    binom_ump_power,
    binom_ump_test,
    load_example_trial,
)
from dpinfer.plot import confidence_curve, power_curve, rejection_region, release_density  # noqa: E402

OUT = Path(__file__).resolve().parent / "_static" / "plots"
SIZE = (6.4, 4.2)  # inches; at 100 dpi a 640 x 420 image, shown at its own size
DPI = 100


def power_over_theta(ax):
    theta = np.linspace(0.0, 0.8, 41)
    power_curve(binom_ump_power, theta, n=30, p0=0.2, epsilon=1.0, ax=ax)
    power_curve(binom_normal_power, theta, n=30, p0=0.2, epsilon=1.0, ax=ax)
    ax.get_lines()[-1].set_linestyle("--")  # the two curves nearly coincide here
    ax.set_title("Two-sided power at n = 30, p0 = 0.2, epsilon = 1")


def power_over_n(ax):
    n = [10, 20, 30, 50, 75, 100, 150, 200, 300, 500]
    for epsilon in (0.5, 1.0, 5.0):
        power_curve(binom_ump_power, n, over="n", theta=0.3, p0=0.2, epsilon=epsilon,
                    label=f"DP-UMP, epsilon = {epsilon:g}", ax=ax)
    ax.set_title("Power at theta = 0.3 against p0 = 0.2 (two-sided)")


def power_over_epsilon(ax):
    epsilon = np.geomspace(0.1, 10.0, 25)
    power_curve(binom_ump_power, epsilon, over="epsilon", theta=0.4, n=30, p0=0.2,
                alternative="greater", ax=ax)
    ax.set_title("What the privacy budget costs: n = 30, theta = 0.4, p0 = 0.2")


def confidence_curve_of_a_test(ax):
    trial = load_example_trial()
    release = TulapReleaser(epsilon=1.0).release(trial.responders, trial.n, rng=2024)
    result = binom_ump_test(release, trial.p0)
    confidence_curve(result, ax=ax)  # the same picture as result.plot()


def two_arm_confidence_curves(ax):
    releaser = TulapReleaser(epsilon=1.0)
    arm1 = releaser.release(41, 60, rng=1)  # treatment: 41 of 60 responded
    arm2 = releaser.release(27, 60, rng=2)  # control: 27 of 60
    # the difference ordering: the default score's p-value can dip below 1 - L just inside an end
    result = binom2_ump_test(arm1, arm2, effect="ratio", statistic="difference")
    result.plot(ax=ax)  # the risk ratio's exact confidence curve, on a log axis
    ax.set_title("Risk ratio, 60 patients per arm, epsilon = 1 per arm")


def power_per_arm(ax):
    n = [20, 30, 40, 60, 80, 120]
    for ordering in ("difference", "score"):
        power_curve(binom2_ump_power, n, over="n", theta1=0.6, theta2=0.3, epsilon=1.0,
                    statistic=ordering, ax=ax)
    ax.set_title("Power for 60% vs 30% response, epsilon = 1 per arm")


def law_of_a_release(ax):
    trial = load_example_trial()
    release = TulapReleaser(epsilon=1.0).release(trial.responders, trial.n, rng=2024)
    release_density(release, [0.2, 0.37, 0.6], ax=ax)
    ax.set_title("Law of the released count under three true proportions")


def two_arm_rejection_region(ax):
    grid = np.linspace(0.0, 1.0, 81)

    def test(pi1, pi2):  # grid points stand for releases (k / 50 among them): Release records
        arm1, arm2 = (Release(np.asarray(v, float), "laplace", 1.0, 0.0, 1 / 50, 50, "proportion")
                      for v in (pi1, pi2))
        return binom2_normal_test(arm1, pi_hat2=arm2)

    rejection_region(test, grid, grid, labels=("released proportion, arm 1",
                                              "released proportion, arm 2"), ax=ax)


FIGURES = {
    "power_theta.png": power_over_theta,
    "power_n.png": power_over_n,
    "power_epsilon.png": power_over_epsilon,
    "confidence_curve.png": confidence_curve_of_a_test,
    "confidence_curve_two_arm.png": two_arm_confidence_curves,
    "power_per_arm.png": power_per_arm,
    "release_density.png": law_of_a_release,
    "rejection_region.png": two_arm_rejection_region,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder for the PNGs (default {OUT})")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, draw in FIGURES.items():
        fig, ax = plt.subplots(figsize=SIZE, layout="constrained")
        draw(ax)
        fig.savefig(args.out / name, dpi=DPI, metadata={"Software": None})
        plt.close(fig)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
