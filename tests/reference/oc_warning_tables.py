"""Which normal-approximation and randomized-response calls warn (ApproximationWarning), recorded before the cache.

Run against main's code (commit 7fbdeea, each coverage computed per call) to record
``tests/test_oc_warning_cache.py``'s tables: ``python tests/reference/oc_warning_tables.py``.
Like ``jimi_warning_table.py`` this script calls the package on purpose: it records the
*previous* implementation's decisions, which the cached and faster checks must reproduce
(issue 41 item 3: "the warning rule itself unchanged").  The normal-approximation
values stand as Laplace proportion Release records (typed, a whole k / n is refused).
"""
import itertools
import warnings

from dpinfer import ApproximationWarning, Release, binom_normal_ci, binom_normal_test, rr_proportion_ci

NORMAL_GRID = ((10, 30, 100, 1000), (0.1, 0.5, 1.0, 5.0), (0.05, 0.3, 0.55),
               ("two-sided", "less", "greater"))
RR_GRID = ((20, 100, 1000), (0.5, 1.0, 3.0), (0.05, 0.3, 0.55, 0.95), ("two-sided", "less", "greater"))


def warned(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return any(issubclass(w.category, ApproximationWarning) for w in caught)


def released(pi_hat, n, epsilon):
    return Release(pi_hat, "laplace", epsilon, 0.0, 1.0 / n, n, "proportion")


if __name__ == "__main__":  # a record of the old code's decisions (importing it computes nothing)
    print("NORMAL_CI_TABLE = [")
    for n, eps, pi_hat, alt in itertools.product(*NORMAL_GRID):
        for method in ("wald", "score"):
            row = (n, eps, pi_hat, alt, method,
                   warned(lambda: binom_normal_ci(released(pi_hat, n, eps), alternative=alt, method=method)))
            print(f"    {row!r},")
    print("]")
    print("NORMAL_TEST_TABLE = [")
    for n, eps, p0, alt in itertools.product(*NORMAL_GRID):
        row = (n, eps, p0, alt, warned(lambda: binom_normal_test(released(0.4321, n, eps), p0=p0, alternative=alt)))
        print(f"    {row!r},")
    print("]")
    print("RR_TABLE = [")
    for n, eps, share, alt in itertools.product(*RR_GRID):
        yes = round(share * n)
        row = (n, eps, yes, alt,
               warned(lambda: rr_proportion_ci(yes_count=yes, n=n, epsilon=eps, alternative=alt, method="wald")))
        print(f"    {row!r},")
    print("]")
