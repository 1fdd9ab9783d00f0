"""Cost of ``result.plot()`` for the results that drew no curve before plots2 (issue 42, item 1).

Run: ``python benchmarks/bench_curves.py``.

Baseline, measured in the same run: the test itself (the docs' example of each result).
Printed per case: the test's time, the plot's time (the curve at the default grid, drawn on
an Agg figure), their ratio, and whether the plot stays under the goal of 2 s.  Best of 2
repeats.  No assertion: speed is evidence, not a test.
"""

import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dpinfer as d  # noqa: E402


def _sites():
    return [d.TulapReleaser(e).release(x, n, rng=s)
            for s, (e, x, n) in enumerate([(0.5, 31, 80), (1.0, 45, 120), (2.0, 20, 60)])]


def _strata():
    counts = [(30, 18, 60), (25, 15, 50), (40, 28, 80)]
    return [(d.TulapReleaser(e).release(x1, n, rng=10 * s), d.TulapReleaser(e).release(x2, n, rng=10 * s + 1))
            for s, ((x1, x2, n), e) in enumerate(zip(counts, [0.5, 1.0, 2.0]))]


def _arms():
    rel = d.TulapReleaser(1.0)
    return rel.release(12, 40, rng=1), [rel.release(14, 40, rng=2), rel.release(27, 40, rng=3)]


CASES = [
    ("binom2_normal_test (Wald curve)", lambda: d.binom2_normal_test(0.62, 80, 0.45, 75, epsilon=1.0)),
    ("rr_two_sample_test (Wald curve)", lambda: d.rr_two_sample_test(yes_count1=330, n1=500, yes_count2=280,
                                                                      n2=500, epsilon=1.0)),
    ("binom_pooled_test", lambda: d.binom_pooled_test(_sites(), p0=0.25)),
    ("binom_strata_test", lambda: d.binom_strata_test(_strata())),
    ("binom2_pooled_test", lambda: d.binom2_pooled_test(*zip(*_strata()[1:]))),
    ("binom_many_to_one_test (forest)", lambda: d.binom_many_to_one_test(*_arms())),
]


def main():
    print(f"{'result':34} {'test s':>8} {'plot s':>8} {'ratio':>7}  goal plot < 2 s")
    for name, build in CASES:
        tests, plots = [], []
        for _ in range(2):
            t = time.perf_counter()
            res = build()
            tests.append(time.perf_counter() - t)
            t = time.perf_counter()
            res.plot()
            plots.append(time.perf_counter() - t)
            plt.close("all")
        test, plot = min(tests), min(plots)
        print(f"{name:34} {test:8.3f} {plot:8.3f} {plot / test:7.2f}  {'ok' if plot < 2.0 else 'MISSED'}")


if __name__ == "__main__":
    main()
