"""Typed values that no release is are refused; every real release, printed and re-typed, passes.

The rule (``dpinfer.inference._resolve.unreleased``): a Tulap count is never a whole
number (odd multiples of ``2**-(k+1)``); a Laplace count is whole, and a Laplace
proportion equal to the double nearest some ``k / n``, only when the discrete Laplace
draw is a multiple of ``2**g`` (probability ``tanh(lam/2) / tanh(2**g lam/2)``).  The
expected probability below is recomputed here by direct summation of the discrete
Laplace pmf, not read from the package.
"""

import dataclasses
import math
import re

import numpy as np
import pytest

import dpinfer
from dpinfer import LaplaceReleaser, TulapReleaser
from dpinfer.inference._resolve import refuse_unreleased, unreleased
from dpinfer.distributions._laplace_grid import count_grid

REFUSED = r"looks like the confidential count"
LOOK = r"look like confidential counts"

# (call, the release line the message shows)
CASES = [
    (lambda: dpinfer.binom_ump_test(17, 29, 0.2, epsilon=1.0), r"TulapReleaser\(epsilon\)\.release\(x, n\)"),
    (lambda: dpinfer.binom_ump_ci(17.0, 29, epsilon=1.0, delta=1e-6), r"TulapReleaser\(epsilon\)\.release\(x, n\)"),
    (lambda: dpinfer.prop_test([23, 12], [60, 58], epsilon=1.0), r"TulapReleaser\(epsilon\)\.release\(x, n\)"),
    (lambda: dpinfer.binom2_ump_test(23.0, 60, 12.5, 58, epsilon=1.0), r"TulapReleaser"),
    (lambda: dpinfer.binom2_ump_test(23.5, 60, 12.0, 58, epsilon=1.0, mechanism="laplace"),
     r"LaplaceReleaser\(epsilon\)\.count\(x, n\)"),
    (lambda: dpinfer.binom_normal_test(17 / 29, 29, 0.2, epsilon=1.0),
     r"LaplaceReleaser\(epsilon\)\.proportion\(x, n\)"),
    (lambda: dpinfer.binom_normal_ci(0.5, 30, epsilon=1.0), r"\.proportion\(x, n\)"),
    (lambda: dpinfer.binom_jimi_test(17, 29, 0.2, epsilon=1.0, kind="count"), r"\.count\(x, n\)"),
    (lambda: dpinfer.binom_jimi_ci(0.25, 60, epsilon=1.0), r"\.proportion\(x, n\)"),
    (lambda: dpinfer.binom2_normal_test(0.4, 30, 0.25, 40, epsilon=1.0), r"\.proportion\(x, n\)"),
    (lambda: dpinfer.binom2_jimi_test(0.4, 30, 0.2512, 40, epsilon=1.0), r"\.proportion\(x, n\)"),
]


@pytest.mark.parametrize("call, line", CASES)
def test_whole_numbers_typed_as_releases_are_refused(call, line):
    with pytest.raises(ValueError, match=REFUSED) as info:
        call()
    assert re.search(line, str(info.value))
    assert "17" not in str(info.value) and "23" not in str(info.value)  # the count itself is never shown


def test_an_array_is_a_vector_of_releases_refused_by_position():
    with pytest.raises(ValueError, match=r"`z` holds 2 of 4 values that are each a whole number \(the first "
                                         rf"at position 2\).*{LOOK}") as info:
        dpinfer.binom_ump_test([11.25, 12.5, 13.0, 14.0], 30, 0.2, epsilon=1.0)
    assert "13" not in str(info.value) and "14" not in str(info.value)
    with pytest.raises(ValueError, match=r"position \(1, 0\)"):
        dpinfer.binom_normal_test([[0.31, 0.42], [0.5, 0.61]], 30, 0.2, epsilon=1.0)


def test_the_message_names_the_argument_of_each_arm():
    with pytest.raises(ValueError, match=r"^`z2` is a whole number"):
        dpinfer.binom2_ump_test(23.5, 60, 12, 58, epsilon=1.0)
    with pytest.raises(ValueError, match=r"^`pi_hat2` is k / n2 for a whole k"):
        dpinfer.binom2_normal_test(0.41, 30, 0.25, 40, epsilon=1.0)


def test_values_the_rule_does_not_claim_pass():
    # not whole, not k/n: accepted as typed releases
    assert 0 <= dpinfer.binom_ump_test(12.7, 30, 0.2, epsilon=1.0).pvalue <= 1
    assert 0 <= dpinfer.binom_normal_test(0.38334, 60, 0.2, epsilon=1.0).pvalue <= 1
    # a Release is never judged by its digits: it records how it was made
    rel = dataclasses.replace(TulapReleaser(1.0).release(11, 30, rng=1), value=11.0)
    assert 0 <= dpinfer.binom_ump_test(rel, 0.2).pvalue <= 1
    # beyond the sizes where doubles keep the Laplace grid apart, the rule claims nothing
    assert unreleased(np.array(5.0), 10**9, 1.0, "laplace", "count") == (None, None)
    # a typed Laplace *proportion* value near 1 at n = 3: 1/3 is k/n, 0.3333 is not
    assert unreleased(np.array([1 / 3, 0.3333]), 3, 1.0, "laplace", "proportion")[0].tolist() == [True, False]


def _whole_chance_by_summation(n, epsilon):
    """P(D = 0 mod 2**g) of the discrete Laplace of ratio exp(-lam), summed term by term."""
    g, lam = count_grid(n, epsilon)
    r = math.exp(-lam)
    norm = (1 - r) / (1 + r)
    total, j = norm, 1
    while r ** (j * 2**g) > 1e-30:
        total += 2 * norm * r ** (j * 2**g)
        j += 1
    return total


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_the_stated_chance_that_a_laplace_release_is_whole(epsilon):
    mask, chance = unreleased(np.array(3.0), 30, epsilon, "laplace", "count")
    assert mask.item() and chance == pytest.approx(_whole_chance_by_summation(30, epsilon), rel=1e-9)
    assert chance < 1e-6


def _reprs_read_back(rel):
    """Each value of an array release, printed by a scalar Release's repr and read back from the text."""
    texts = [repr(dataclasses.replace(rel, value=float(v))) for v in rel.value]
    return np.array([float(re.match(r"Release\(value=([^,]+),", t).group(1)) for t in texts])


KINDS = [  # (name, make 10,000 releases of (x, n), mechanism, kind)
    ("tulap", lambda x, n: TulapReleaser(1.0).release(x, n, rng=11), "tulap", "count"),
    ("tulap delta k=2", lambda x, n: TulapReleaser(1.0, 1e-6, 2).release(x, n, rng=12), "tulap", "count"),
    ("laplace count", lambda x, n: LaplaceReleaser(1.0).count(x, n, rng=13), "laplace", "count"),
    ("laplace proportion", lambda x, n: LaplaceReleaser(1.0).proportion(x, n, rng=14), "laplace", "proportion"),
]


@pytest.mark.parametrize("n", [30, 10**7])
@pytest.mark.parametrize("name, make, mechanism, kind", KINDS, ids=[k[0] for k in KINDS])
def test_10000_real_releases_printed_and_retyped_pass(name, make, mechanism, kind, n):
    x = np.arange(10_000) % (n + 1)
    rel = make(x, n)
    for shown in (_reprs_read_back(rel), np.array([float(t) for t in map(dpinfer._printing._released, rel.value)])):
        assert np.array_equal(shown, rel.value)  # all the digits: the value released, bit for bit
        refuse_unreleased(shown, n, rel.epsilon, mechanism, kind, "z")  # the resolver's rule: nothing refused
    if n == 30:  # and through the public doors, as a vector of releases
        if mechanism == "tulap":
            p = dpinfer.binom_ump_test(rel.value[:2000], n, 0.3, epsilon=1.0, delta=rel.delta,
                                       sensitivity=int(rel.sensitivity))
        else:
            p = dpinfer.binom_normal_test(rel.value[:2000] / (n if kind == "count" else 1), n, 0.3, epsilon=1.0)
        assert np.all((p >= 0) & (p <= 1))


def test_seven_digits_would_have_printed_whole_numbers():
    # why every digit is printed: at n = 10**7 the old 7-significant-digit data: line read back whole
    rel = TulapReleaser(1.0).release(np.full(50, 5_000_000), 10**7, rng=3)
    seven = np.array([float(f"{v:.7g}") for v in rel.value])
    assert unreleased(seven, 10**7, 1.0, "tulap", "count")[0].all()


@pytest.mark.parametrize("make, test", [
    (lambda s: TulapReleaser(1.0).release(11, 30, rng=s), lambda v: dpinfer.binom_ump_test(v, 30, 0.2, epsilon=1.0)),
    (lambda s: TulapReleaser(1.0).release(6_000_001, 10**7, rng=s),
     lambda v: dpinfer.binom_ump_test(v, 10**7, 0.6, epsilon=1.0)),
    (lambda s: LaplaceReleaser(1.0).proportion(11, 30, rng=s),
     lambda v: dpinfer.binom_normal_test(v, 30, 0.2, epsilon=1.0)),
    (lambda s: LaplaceReleaser(1.0).proportion(11, 30, rng=s),
     lambda v: dpinfer.binom_jimi_test(v, 30, 0.2, epsilon=1.0)),
])
def test_the_htest_data_line_reads_back_as_the_release(make, test):
    for seed in range(25):
        rel = make(seed)
        printed = str(dpinfer.prop_test(rel, 0.6 if rel.n > 30 else 0.2,
                                        method="ump" if rel.mechanism == "tulap" else "normal"))
        typed = float(re.search(r"data:\s+(?:Laplace release: )?(?:Z|pi_hat) = ([^,]+),", printed).group(1))
        assert typed == rel.value
        assert 0 <= test(typed).pvalue <= 1
