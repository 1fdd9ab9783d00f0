"""The ten-minute tutorial of the user guide (docs/tutorial.rst), end to end.

Run it with ``python examples/tutorial.py``.  It releases the embedded example
trial's responder count with Tulap noise, tests H0: response rate <= 20% with the
exact DP-UMP test, reports a 95% interval, compares the methods for Laplace
releases, and plans the next trial (power and sample size).

The noise is seeded because the data are synthetic and the tutorial must be
reproducible.  A real release uses ``secure=True`` and no seed (docs/privacy.rst).
"""

import numpy as np
from scipy.stats import binomtest

from dpinfer import (
    LaplaceReleaser,
    TulapReleaser,
    binom_ump_ci,
    binom_ump_power,
    binom_ump_sample_size,
    binom_ump_test,
    load_example_trial,
    prop_test,
    results_to_frame,
)


def main():
    """Run the tutorial, print each step, and return its key numbers as a dict."""
    # 1. The confidential data: one row per patient, so one patient is the unit of privacy.
    trial = load_example_trial()
    print(f"Trial: {trial.responders} responders out of {trial.n}; historical rate p0 = {trial.p0}")

    # 2. Release the responder count (epsilon = 1, delta = 0).  Seeded: synthetic data only;
    #    two independent streams, one per release (the second is for step 5).
    tulap_seed, laplace_seed = np.random.SeedSequence(2024).spawn(2)
    release = TulapReleaser(epsilon=1.0).release(trial.responders, trial.n, rng=tulap_seed)
    print(release)

    # 3. Exact DP-UMP test of H0: theta <= 0.2 against theta > 0.2, printed like R's binom.test.
    result = binom_ump_test(release, p0=trial.p0, alternative="greater")
    print(result)
    confidential = binomtest(trial.responders, trial.n, trial.p0, alternative="greater")
    print(f"Non-private binom.test p-value (cannot be published): {confidential.pvalue:.4f}")

    # 4. Two-sided 95% interval for the response rate.
    ci = binom_ump_ci(release)
    print(ci)

    # 5. The Laplace-based methods on a Laplace release of the proportion (a second
    #    release spends a second epsilon = 1: done here only to compare methods).
    laplace = LaplaceReleaser(epsilon=1.0).proportion(trial.responders, trial.n, rng=laplace_seed)
    results = [
        prop_test(release, trial.p0, alternative="greater"),
        prop_test(laplace, trial.p0, method="normal", alternative="greater"),
        prop_test(laplace, trial.p0, method="jimi", alternative="greater"),
    ]
    for label, r in zip(("DP-UMP (Tulap)", "normal (Laplace)", "DP-JIMI (Laplace)"), results):
        print(f"{label:18}  p = {r.pvalue:.4f}  95% lower bound = {r.conf_int.low:.4f}")
    frame = results_to_frame(results)

    # 6. Planning: exact power at theta = 0.4 with n = 30, and the n giving 80% power.
    power = binom_ump_power(0.4, trial.n, trial.p0, epsilon=1.0, alpha=0.05, alternative="greater")
    n_needed = binom_ump_sample_size(0.4, trial.p0, epsilon=1.0, alpha=0.05, power=0.8,
                                     alternative="greater")
    print(f"Power at theta = 0.4 with n = {trial.n}: {power:.3f}; n for 80% power: {n_needed}")
    print(frame[["pvalue", "conf_low", "conf_high"]].round(4).to_string())

    return {
        "z": release.value,
        "pvalue": result.pvalue,
        "ci": (ci.low, ci.high),
        "pvalues": [r.pvalue for r in results],
        "frame": frame,
        "power": power,
        "n_needed": n_needed,
    }


if __name__ == "__main__":
    main()
