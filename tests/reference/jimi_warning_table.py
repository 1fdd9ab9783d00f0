"""Which binom_jimi_ci calls warn (ApproximationWarning), recorded from main before the cut table.

Run against main's code (commit 5b49723) to record ``tests/test_jimi_warning_cache.py``'s
table: ``python tests/reference/jimi_warning_table.py``.  This script calls the
package on purpose: it records the *previous* implementation's decisions, which the
cached one must reproduce (issue 41 item 3: "the warning rule itself unchanged").
"""
import itertools
import warnings

from dpinfer import ApproximationWarning, binom_jimi_ci

if __name__ == "__main__":  # a record of the old code's decisions (importing it computes nothing)
    rows = []
    for n, eps, pi_hat, alt in itertools.product((5, 10, 30, 100), (0.1, 0.5, 1.0, 5.0), (0.05, 0.3, 0.55),
                                                 ("two-sided", "less", "greater")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            binom_jimi_ci(pi_hat, n, epsilon=eps, alternative=alt, n_sim=None)
        warned = any(issubclass(w.category, ApproximationWarning) for w in caught)
        rows.append((n, eps, pi_hat, alt, warned))
    print("WARN_TABLE = [")
    for r in rows:
        print(f"    {r!r},")
    print("]")
