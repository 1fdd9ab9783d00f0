"""Reference values for DP-UMP inference at count sensitivity k > 1, mpmath at 40 digits.

Run offline (``python tests/reference/make_ump_sensitivity.py``, under a minute on one
core); it writes ``tests/reference/ump_sensitivity_values.json``, read by
``tests/inference/ump/test_ump_sensitivity.py``.

The released law (``TulapReleaser(epsilon, delta, sensitivity=k)``, documented in its
Notes) is the Tulap law of the unit parameters

    epsilon_1 = the largest double <= epsilon / k,
    delta_1   = delta / sum_{j<k} exp(j epsilon_1) * (1 - 2**-40),

released on the grid of ``(n, epsilon_1, delta_1)``.  Both are computed here in mpmath
from that definition (not by the package), and the law and its sums are those of
``make_ump.py`` (``Law``, ``greater``, ``less``, ``two_sided``, ``ci_reference``: plain
full sums of Binomial(x; n, p0) times the Tulap cdf written out from Awan & Slavkovic
(2018), with b = exp(-epsilon_1); q from delta_1; the grid rebuilt from its
definition), i.e. the convolution Binomial(n, p0) (+) Tulap(0, exp(-epsilon / k), q)
on the release grid.  For delta = 0 and n <= 30 ``check_counting`` confirms the
cdf-shift identity by counting the grid law's points.

Grid: k in {2, 3, 5} x n in {1, 10, 30, 100} x p0 in {0.1, 0.5, 0.9} x epsilon in
{0.5, 1, 3} x delta in {0, 0.01} x four z; intervals for k in {2, 3}, n in {10, 30},
(epsilon, delta) in {(1, 0), (3, 0.01)}, three z, three alternatives.
"""

import json
import math
import sys
from pathlib import Path

import mpmath as mp

sys.path.insert(0, str(Path(__file__).parent))
from make_ump import Law, check_counting, ci_reference, greater, less, pmf_vector, two_sided  # noqa: E402

mp.mp.dps = 40

KS = [2, 3, 5]
NS = [1, 10, 30, 100]
P0S = [0.1, 0.5, 0.9]
EPSILONS = [0.5, 1.0, 3.0]
DELTAS = [0.0, 0.01]
OUT = Path(__file__).with_name("ump_sensitivity_values.json")


def unit_privacy(epsilon, delta, k):
    """(epsilon_1 as a double, delta_1 in mpmath) by the definition in the docstring."""
    exact = mp.mpf(epsilon) / k
    eps1 = float(exact)
    if mp.mpf(eps1) > exact:
        eps1 = math.nextafter(eps1, 0.0)
    if delta == 0:
        return eps1, mp.mpf(0)
    total = mp.fsum(mp.exp(j * mp.mpf(eps1)) for j in range(k))
    return eps1, mp.mpf(delta) / total * (1 - mp.mpf(2) ** -40)


def z_values(n, p0):
    return [-3.7, round(0.3 * n + 0.41, 6), round(n * p0 + 1.13, 6), n + 4.9]


def pvalue_cases():
    cases = []
    for k in KS:
        for n in NS:
            for p0 in P0S:
                pmf = pmf_vector(n, p0)
                for eps in EPSILONS:
                    for delta in DELTAS:
                        eps1, delta1 = unit_privacy(eps, delta, k)
                        law = Law(eps1, delta1, n)
                        for z in map(law.snap, z_values(n, p0)):
                            check_counting(pmf, law, z, n, p0)
                            cases.append(dict(
                                sensitivity=k, n=n, p0=p0, epsilon=eps, delta=delta, z=z,
                                greater=mp.nstr(greater(pmf, law, z), 25),
                                less=mp.nstr(less(pmf, law, z), 25),
                                two_sided=mp.nstr(two_sided(pmf, law, z, n, p0), 25)))
    return cases


def ci_cases():
    cases = []
    for k in (2, 3):
        for n in (10, 30):
            for eps, delta in ((1.0, 0.0), (3.0, 0.01)):
                eps1, delta1 = unit_privacy(eps, delta, k)
                law = Law(eps1, delta1, n)
                for z in map(law.snap, (-1.3, round(0.4 * n + 0.2, 6), n + 1.7)):
                    for alternative in ("greater", "less", "two-sided"):
                        low, high = ci_reference(n, law, z, 0.95, alternative)
                        cases.append(dict(sensitivity=k, n=n, epsilon=eps, delta=delta, z=z,
                                          level=0.95, alternative=alternative,
                                          low=mp.nstr(mp.mpf(low), 25),
                                          high=mp.nstr(mp.mpf(high), 25)))
    return cases


def main():
    data = {"pvalues": pvalue_cases(), "intervals": ci_cases(), "dps": mp.mp.dps}
    OUT.write_text(json.dumps(data, indent=1))
    print(f"wrote {len(data['pvalues'])} p-value and {len(data['intervals'])} interval cases to {OUT}")


if __name__ == "__main__":
    main()
