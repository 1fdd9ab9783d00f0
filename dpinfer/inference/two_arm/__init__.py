"""Exact two-arm inference from two privatized counts: risk difference, risk ratio, planning.

Two independent arms, ``X_i ~ Binomial(n_i, theta_i)`` with ``n_i`` public, each released by
:class:`~dpinfer.TulapReleaser` as ``Z_i = X_i + N_i`` (privacy ``(epsilon_i, delta_i)``,
sensitivity ``k_i``).  Everything here is exact for the law actually released.

**The law of one arm.**  ``N_i`` has the Tulap law of the unit privacy
``(epsilon_1, delta_1)`` of ``unit_privacy(epsilon_i, delta_i, k_i)``, ``b = exp(-epsilon_1)``,
truncated (``delta > 0``) at the release grid's support end ``c``.  Its density is
``(1 - b) / (1 + b) b^|d| / (1 - q)`` on each unit cell ``[d - 1/2, d + 1/2)`` within the
support (Awan & Slavkovic 2018, Def. 2.3).  Hence ``N_i = D_i + U_i`` with ``D_i`` an
integer (the cell) and, given ``D_i = d``, ``U_i`` uniform on the cell's part inside the
support: the whole cell ``(-1/2, 1/2)``, except at the two edge cells ``d = +-M``
(``M = floor(c + 1/2)``) of a truncated law, where it is uniform on ``(-1/2, c - M)``
(resp. ``(M - c, 1/2)``).  So ``Z_i = K_i + U_i`` with ``K_i = X_i + D_i``, whose pmf is the
Binomial(n_i, theta_i) pmf convolved with the pmf of ``D_i``: a mixture of at most three
*components*, each an integer pmf times a uniform on a fixed interval.

The released value lies on a dyadic grid of step ``h_i`` (``dpinfer.distributions._tulap_grid``):
the grid law puts on each cell's midpoint the continuous law's mass of the cell, so the
continuous ``Z_i`` lies in ``[z_i - h_i/2, z_i + h_i/2]`` of the released ``z_i``.  As in the
one-arm tests, a release stands for its cell: the p-value is the largest continuous one
over the two cells, which moves the observed statistic by ``h_1/(2 n_1) + c h_2/(2 n_2)``
towards the null (``h = 2**-40`` for a few thousand trials: a shift near 1e-14).

**The tail of a linear statistic.**  For ``T = a_1 Z_1 + a_2 Z_2`` (here ``a_1 = 1/n_1``,
``a_2 = -c/n_2`` with ``c = 1`` for the risk difference and ``c = rho_0`` for the ratio),

    P(T >= t) = sum_{k_1, k_2} P(K_1 = k_1) P(K_2 = k_2) G(t - a_1 k_1 - a_2 k_2),

summed over the components, where ``G(s) = P(a_1 U_1 + a_2 U_2 >= s)`` is the tail of a sum
of two independent uniforms on intervals ``[l_1, u_1]``, ``[l_2, u_2]`` (widths ``w_1``,
``w_2``): with ``R(x) = max(x, 0)^2 / 2``,

    G(s) = [R(u_1 + u_2 - s) - R(u_1 + l_2 - s) - R(l_1 + u_2 - s) + R(l_1 + l_2 - s)] / (w_1 w_2),

(and its mirror image, used where it is below 1/2, so no value cancels against 1).  ``G``
is 1 below ``l_1 + l_2`` and 0 above ``u_1 + u_2``: for each ``k_1`` only a few ``k_2``
(``ceil(|a_1| w_1 / |a_2| + w_2) + 2`` of them, with the larger ``|a|`` inside) have ``G``
strictly between 0 and 1; the ``k_2`` beyond are an upper tail of ``K_2``'s pmf (a reverse
cumulative sum).  The double sum is therefore ``O((n_1 + 2L) w)`` operations per
``(theta_1, theta_2)``, with no integral and no simulation; the positions and the ``G``
values depend on ``t`` only and are computed once for a whole nuisance grid (one matrix
product per component pair).

*Truncation of the sums.*  The untruncated noise is summed over ``|D| <= L`` with
``L = ceil(log(2 / 1e-300) / epsilon_1)``: the mass left out, ``2 b^(L+1) / (1 + b)``, is
below ``1e-300``.  Nothing else is cut.  *Precision.*  The pmf of ``K`` is the exact
convolution, by two first-order recursions (geometric filters) for the untruncated noise
and by direct shifted sums for the truncated one; both add non-negative terms only, so each
entry keeps its relative precision (a few ulps per term; the binomial pmf from
``scipy.stats.binom``, relative error near 1e-15).  No FFT is used (it would lose the
relative precision of small entries).  Binomial probabilities below the smallest double
(far tails at large ``n``) are dropped, so p-values below about 1e-290 lose relative
accuracy.

**The exact unconditional test** (Barnard 1947; Boschloo 1970).  ``P_theta(T >= t)`` is
increasing in ``theta_1`` and decreasing in ``theta_2`` (``T`` increases with ``X_1``,
decreases with ``X_2``, and the binomial family is stochastically increasing), so the
supremum over a one-sided null ``theta_1 - theta_2 <= Delta_0`` (``theta_1 <= rho_0
theta_2``) is attained on its boundary line ``theta_1 = theta_2 + Delta_0``
(``theta_1 = rho_0 theta_2``), a one-parameter nuisance ``nu = theta_2``:

    p_greater = sup_nu P_nu(T >= t),    p_less = sup_nu P_nu(T <= t),

and the two-sided p-value is ``min(1, 2 min(p_greater, p_less))`` (the test the two-sided
interval inverts).  *The supremum* is located, then certified.  Located: a 65-point grid on
the line, then Brent's method (``xatol = 1e-12``) at every grid maximum, in order, unless
the monotone bound below shows that its two cells cannot beat the best value found: on a
cell ``[a, b]`` of the line, ``P_nu(T >= t) <= P_{(theta_1(b), a)}(T >= t)`` (raise
``theta_1``, lower ``theta_2``).  Certified (:mod:`._certify`): the tail is
``p(nu) = E_nu f(X_1, X_2)`` with ``f`` the tail given the counts, in ``[0, 1]``, so its
derivatives along the line are covariances of ``f`` with the derivatives of the binomial
likelihood, bounded by Cauchy-Schwarz (the Krawtchouk moments
``E[(L^(k)/L)^2] = k! n^(k) / v^k``) or, up to ``theta`` in {0, 1}, by the differences of a
Bernstein polynomial.  With the second derivative computed exactly at the cells' ends and
this bound on the third, each cell of the line gets an upper bound of the tail on it (the
chord plus the largest concave bulge the curvature allows); the cells whose bound exceeds
the best value found by more than 1e-12 (relative) are cut until none does.  The p-value
reported is that certified bound: never below the supremum, at most 1e-12 (relative) above
the located value (1e-14 is typical), so no part of the nuisance range between grid points
can hold a larger tail.  Where the sums fit (``(n_1 + 1)(n_2 + 1) <= 50,000``) the
certifying search evaluates the tail through the lattice ``F[x_1, x_2]`` of tails given the
counts (the tail is ``b_1 F b_2`` with ``b_i`` the binomial pmfs), computed once per cut-off.

*Ordering statistic.*  The linear statistic (difference of the released proportions,
``Z_1/n_1 - c Z_2/n_2``) is used: its tails are the exact closed-form sums above.  A
standardised (Wald or score) statistic divides by a function of ``(Z_1, Z_2)``, so its
rejection region is not a half-plane in ``(Z_1, Z_2)``, the uniform parts no longer give a
closed form, and its tail would need a two-dimensional integral per lattice cell.  The
choice costs power, and the numbers say how much.  Non-private (exact unconditional tests by
enumeration, one-sided, alpha = 0.05, n per arm, theta2 = 0.3, the supremum over a 401-point
grid of the nuisance): power at theta1 = 0.45 of the difference ordering against Barnard's
pooled z ordering (``scipy.stats.barnard_exact``'s): 0.205 / 0.209 (n = 20), 0.419 / 0.445
(n = 50), 0.645 / 0.699 (n = 100); at theta1 = 0.6: 0.572 / 0.573, 0.914 / 0.914,
0.995 / 0.997.  The loss comes from the nuisance: the tail of the difference is largest at
nu = 1/2 (largest variance), so the test is conservative away from it (size at
theta = 0.3: 0.027 against 0.045 at n = 100).  With the noise (``validation/two_arm.py``,
epsilon = 1, n = 100) this test has power 0.66 where the approximate
``binom2_normal_test`` has 0.69, but that one exceeds alpha elsewhere (0.0565 at
theta = 0.3, n = 100), and the exact test's size is 0.037 there.  A standardised ordering
(or a Berger & Boos restriction of the nuisance) would recover part of this and is the
natural next step; it needs the two-dimensional tails above.  In the non-private limit
(epsilon = 50) the test is the unconditional mid-p test of the difference (the uniform
parts randomise ties), checked in the tests by enumeration.

**Intervals** invert the one-sided tests (:mod:`._interval`; Chan & Zhang 1999), so their
coverage is at least the level at every ``(theta_1, theta_2)``.  **Power** is the exact tail
beyond the critical value (the smallest ``t`` whose supremum tail is at most ``alpha``);
**sample size** the smallest ``n_1`` (``n_2 = ceil(ratio n_1)``) reaching a power.

References: Awan, J. and Slavkovic, A. (2018), NeurIPS 31; Barnard, G. A. (1947),
Biometrika 34; Boschloo, R. D. (1970), Statistica Neerlandica 24; Berger, R. L. and
Boos, D. D. (1994), JASA 89; Chan, I. S. F. and Zhang, Z. (1999), Biometrics 55.
"""

from ._inference import binom2_ump_ci, binom2_ump_test
from ._planning import binom2_ump_power, binom2_ump_sample_size

__all__ = [
    "binom2_ump_ci",
    "binom2_ump_power",
    "binom2_ump_sample_size",
    "binom2_ump_test",
]
