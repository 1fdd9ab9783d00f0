"""The inference part's package-internal interface to ``validation/`` and ``benchmarks/``.

Package-internal (not for users): the validation studies and the benchmarks
measure pieces of the methods that the public functions do not expose (the exact
DP-JIMI size, a design matrix, the robust estimator's threshold), and import them
from here, under these names, never the methods' private helpers.  Each name is
the helper of the method named in its comment, unchanged.
"""

from __future__ import annotations

from .._ldp_channels import _unary_keep_prob
from .jimi._common import _tails
from . import _oc_warnings
from .jimi._exact import _exact_rejection
from .jimi._kernels import _draw_theta
from .local._common import _project_simplex, _unary_debias, _unary_noise_var
from .local._robust import _THRESHOLD_CONSTANT, _expected_covariance, _threshold_scale
from .means._common import clipped as _clipped, mean_draws as _mean_draws, sample_bounds as _sample_bounds
from .means._common import pvalue as _mean_pvalue, shares as _mean_shares, tails as _mean_tails
from .means._naive import naive_moments as _naive_moments
from .means.repro._one_group import draw_roots as _draw_roots, repro_interval as _repro_interval
from .means.repro._joint import differences as _joint_differences, joint_set as _joint_set
from .logistic import _check_design, _design_matrix
from .two_arm._law import _arm, _clear_caches
from .two_arm._critical import _exact_power
from .two_arm._supremum import _critical, _null, _power, _sup_tail
from .ump._kernels import _compiled
from .strata._arguments import stratum_list as _stratum_list
from .strata._noise_sum import noise_law as _noise_law, upper_tails as _upper_tails
from .strata._nuisance import bound as _strata_bound, walk_tails as _walk_tails
from .strata._stratified import strata_pvalue as _strata_pvalue
from .strata._convolved_arms import pooled2_pvalue as _pooled2_pvalue

__all__ = []  # package-internal: the names below are imported explicitly

#: the relative tolerance of the shared size and coverage warning rule of
#: :mod:`dpinfer.inference._oc_warnings` (warn outside ``(1 +- tol) alpha``)
RATE_TOLERANCE = _oc_warnings.RATE_TOLERANCE

# -- DP-JIMI (jimi/)
#: ``jimi_tails(confidence_level, alternative)``: tail probabilities (lower, upper) outside the interval
jimi_tails = _tails
#: ``jimi_exact_rejection(p0, lo, hi, n, epsilon)``: exact-limit rejection rate of the DP-JIMI test
jimi_exact_rejection = _exact_rejection
#: ``jimi_draw_theta(gen, pi_hat, n, epsilon, n_sim)``: fiducial draws, one row per release
jimi_draw_theta = _draw_theta

# -- logistic_jimi (logistic.py)
#: ``check_design(design, k)`` -> (names, levels); ``design_matrix(names, levels, model)`` -> (x, terms)
check_design = _check_design
design_matrix = _design_matrix

# -- local DP (local/): unary encoding and the robust estimator
project_simplex = _project_simplex
unary_debias = _unary_debias
unary_noise_var = _unary_noise_var
unary_keep_prob = _unary_keep_prob
ROBUST_THRESHOLD_CONSTANT = _THRESHOLD_CONSTANT
robust_expected_covariance = _expected_covariance
robust_threshold_scale = _threshold_scale

# -- DP-UMP (ump/)
#: ``ump_compiled()``: the compiled kernels, or None when numba is not used
ump_compiled = _compiled

# -- exact two-arm inference (two_arm/): the exact size, critical value and power behind the study
#: ``two_arm_arm(n, epsilon, delta, sensitivity)``: one arm's released law
two_arm_arm = _arm
#: ``two_arm_clear_cache()``: forget the cached pmfs (a benchmark times every call's own)
two_arm_clear_cache = _clear_caches
#: ``two_arm_null(effect, margin)``: the null hypothesis (its statistic's coefficient)
two_arm_null = _null
#: ``two_arm_critical(arm1, arm2, null, alpha, upper)``: the critical value of the one-sided test
two_arm_critical = _critical
#: ``two_arm_sup_tail(arm1, arm2, null, t, upper)``: the largest tail over the null's nuisance
two_arm_sup_tail = _sup_tail
#: ``two_arm_power(arm1, arm2, null, theta1, theta2, alpha, alternative)``: exact power
two_arm_power = _power
#: ``two_arm_exact_power(arm1, arm2, null, theta1, theta2, alpha, alternative, statistic)``: exact
#: power of the test under either ordering (``'score'`` or ``'difference'``)
two_arm_exact_power = _exact_power


# -- means of clipped data (means/)
#: ``means_release(release, name, method)``: a clipped-sum release's public numbers, as the methods read them
means_release = _clipped
#: ``means_draws(data, sigma, model, n_sim, gen)``: DP-JIMI draws of the mean, one row per release
means_draws = _mean_draws
#: ``means_bounds(draws, tails)`` and ``means_tails(level, alternative)``: the percentile interval
means_bounds = _sample_bounds
means_tails = _mean_tails
#: ``means_shares(draws, null)`` and ``means_pvalue(le, ge, alternative)``: the DP-JIMI p-value from the draws
means_shares = _mean_shares
means_pvalue = _mean_pvalue
#: ``measured_rate_bar(nominal, reps)``: the rate a measured one must exceed to warn (the shared rule)
measured_rate_bar = _oc_warnings.measured_rate_bar
#: ``means_naive(data, sigma)``: the naive interval's centre and variance per release
means_naive = _naive_moments
#: ``means_repro_roots(data, sigma, model, n_seeds, gen)``: the repro-samples seeds' sorted roots ``(m, M)``
#: (the released law simulated exactly), one row of R seeds per release
means_repro_roots = _draw_roots
#: ``means_repro_bounds(low_sorted, high_sorted, level, alternative)``: the repro-samples interval from them
means_repro_bounds = _repro_interval
#: ``means_repro2_set(roots1, roots2, r, alpha, alternative)``: ``mean2_repro_test``'s joint-statistic set
#: ``(low, high)`` from one pair of groups' sorted roots (each ``(m, M)`` of one release)
def means_repro2_set(roots1, roots2, r, alpha, alternative):
    return _joint_set(_joint_differences(roots1, roots2, alternative), r, alpha, alternative)


# -- two-arm group-sequential designs (designs/)
from .designs._walk_law import (efficacy_boundaries as _gs_boundaries,  # noqa: E402
                                        interval_membership as _gs_membership, lattice as _gs_lattice,
                                        outcome_law as _gs_outcomes)
from .designs._two_arm_analysis import _observed as _gs_observed  # noqa: E402
from .designs._spending import spending_values as _gs_spending  # noqa: E402

#: ``sequential_lattice(n1_max, fractions, a, b, sign, epsilon, delta)``: a design's public structure
sequential_lattice = _gs_lattice
#: ``sequential_boundaries(lattice, spent)`` -> (boundaries, certified cumulative alphas)
sequential_boundaries = _gs_boundaries
#: ``sequential_spending(spending, fractions, alpha)``: the cumulative spending values
sequential_spending = _gs_spending
#: ``sequential_membership(lattice, efficacy, delta, level, naive)``: per look, whether each outcome's
#: interval holds ``delta``
sequential_membership = _gs_membership
#: ``sequential_outcomes(lattice, efficacy, theta1, theta2)``: per look, the law of the stopping outcome
sequential_outcomes = _gs_outcomes
#: ``sequential_observed(design, releases)`` -> (look - 1, statistic W, lattice) of a run that stopped
sequential_observed = _gs_observed


def sequential_design_lattice(design):
    """The lattice (public structure) of a :class:`~dpinfer.SequentialDesign`."""
    return design._lattice
# -- several strata (strata/)
def strata_noise_law(pairs):
    """The law of the noise sum of arm pairs of Tulap releases (``_noise_sum.noise_law``; public numbers only)."""
    return _noise_law([s for pair in _stratum_list(pairs, "validation") for s in pair])


#: ``strata_upper_tails(law, t, y)``: ``P(E >= t - y)`` at integers ``y`` (``t`` a Fraction)
strata_upper_tails = _upper_tails
#: ``strata_walk(h, N)``: the fair-walk table ``g(a, m)`` from the noise tails ``h``
strata_walk = _walk_tails
#: ``strata_bound(walk, ns, margin, boxes)``: (certified bound, value at the maximiser) of the supremum
strata_bound = _strata_bound
#: ``strata_pvalue(pairs, margin, alternative, gamma)``: binom_strata_test's p-value alone
strata_pvalue = _strata_pvalue
#: ``strata_pooled2_pvalue(releases1, releases2, margin, alternative, gamma)``: binom2_pooled_test's p-value alone
strata_pooled2_pvalue = _pooled2_pvalue
