"""Two arms released in parts with one rate per arm: binom2_pooled_test."""

import re

import numpy as np
import pytest
from scipy import stats

from dpinfer import Release, TulapReleaser, binom2_pooled_test, binom_strata_test
from dpinfer.inference.strata._arguments import site_list
from dpinfer.inference.strata._noise_sum import cell_allowance, noise_law, upper_tails


def _release(value, n, epsilon):
    return Release(value=value, mechanism="tulap", epsilon=epsilon, delta=0.0, sensitivity=1, n=n, kind="count")


def test_one_release_per_arm_is_the_stratified_test_with_one_stratum():
    a, b = TulapReleaser(epsilon=1.0).release(31, 50, rng=1), TulapReleaser(epsilon=1.0).release(20, 50, rng=2)
    for gamma in (0.0, 0.001):
        pooled = binom2_pooled_test([a], [b], gamma=gamma)
        strata = binom_strata_test([(a, b)], gamma=gamma)
        assert pooled.pvalue == strata.pvalue and tuple(pooled.conf_int) == tuple(strata.conf_int)


def test_supremum_over_the_common_baseline_is_a_searched_one():
    # two sites per arm; the tail at each baseline theta summed directly over the pooled counts
    arm1 = [_release(3.3125, 4, 1.0), _release(4.6875, 6, 2.0)]
    arm2 = [_release(1.1875, 5, 1.5), _release(2.5625, 5, 0.8)]
    sites = site_list(arm1 + arm2, "t", minimum=1)
    law = noise_law(sites)
    t = sum(s.value for s in sites[:2]) - sum(s.value for s in sites[2:]) - cell_allowance(law.noises)
    x = np.arange(11)
    cond = upper_tails(law, t, (x[:, None] - x[None, :]).ravel()).reshape(11, 11)
    for delta in (0.0, 0.1, -0.2):
        thetas = np.linspace(max(0.0, -delta), min(1.0, 1.0 - delta), 4001)
        tails = [stats.binom.pmf(x, 10, th + delta) @ cond @ stats.binom.pmf(x, 10, th) for th in thetas]
        res = binom2_pooled_test(arm1, arm2, delta, alternative="greater", gamma=0.0)
        located = float(re.search(r"sup over the box \(greater\) in \[([0-9.e-]+),", res.note).group(1))
        assert located == pytest.approx(max(tails), rel=1e-5)  # the note's 6 digits; the grid's error ~1e-8
        # the certified bound: never below; above only where the conditional tail is not monotone
        # in the discordant pairs (delta != 0 at these tiny n: 4.6e-5 at delta = 0.1)
        assert max(tails) - 1e-12 <= res.pvalue <= max(tails) + (1e-7 if delta == 0 else 1e-4)


def test_unequal_totals_and_bad_lists_are_refused():
    a, b = TulapReleaser(epsilon=1.0).release(31, 50, rng=1), TulapReleaser(epsilon=1.0).release(20, 40, rng=2)
    with pytest.raises(ValueError, match=r"the arms' totals differ \(N1 = 50, N2 = 40\)"):
        binom2_pooled_test([a], [b])
    with pytest.raises(TypeError, match="`releases2` must be a list of Releases"):
        binom2_pooled_test([a], b)
    with pytest.raises(ValueError, match="`releases1` must hold at least 1 release; got 0"):
        binom2_pooled_test([], [b])
