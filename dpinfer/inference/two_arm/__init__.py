"""Exact two-arm inference from two privatized counts: risk difference, risk ratio, odds ratio, planning.

Two independent arms, ``X_i ~ Binomial(n_i, theta_i)`` with ``n_i`` public, each released by
:class:`~dpinfer.TulapReleaser` as ``Z_i = X_i + N_i`` (privacy ``(epsilon_i, delta_i)``,
sensitivity ``k_i``), or both by :class:`~dpinfer.LaplaceReleaser` (``.count`` or
``.proportion``; section *Laplace arms* below).  Everything here is exact for the law
actually released, or says in the result how far it can be from it.

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
can hold a larger tail.  This holds for arms up to about 2000 each
(``(n_1 + 1)(n_2 + 1) <= 4.1e6``); beyond, the certificate's cells cost seconds per round
and the p-value is the located supremum (checked against dense grids in the tests).
Where the sums fit (``(n_1 + 1)(n_2 + 1) <= 50,000``) the
certifying search evaluates the tail through the lattice ``F[x_1, x_2]`` of tails given the
counts (the tail is ``b_1 F b_2`` with ``b_i`` the binomial pmfs), computed once per cut-off.

*Ordering statistic* (``statistic=``).  Two orderings are exact:

* ``'difference'``: the linear ``T_lin = Z1/n1 - c Z2/n2``, with the tails above.
* ``'score'`` (the default, issue 41): lexicographic, first
  ``g(clip(K1, 0, n1), clip(K2, 0, n2))``, then
  ``T_lin`` among ties.  ``K_i = round(Z_i)`` is a function of the release: ``U_i`` lies in the
  open cell ``(-1/2, 1/2)`` (inside it at a truncated law's edge cells, whose support end is a
  grid boundary), and a released value is an odd multiple of ``h_i/2``, never a half-integer,
  its grid cell inside one unit cell.  ``g`` is the score statistic of the null
  (Miettinen & Nurminen 1985; Farrington & Manning 1990), ``(p1 - c p2 - Delta0) / sqrt(V)``
  with ``p_i = j_i / n_i``, ``V = t1 (1 - t1)/n1 + v1/n1^2 + c^2 (t2 (1 - t2)/n2 + v2/n2^2)``,
  ``(t1, t2)`` the restricted MLE (closed form: the cubic's root for a difference, the
  quadratic's for a ratio; the pooled proportion when ``Delta0 = 0`` or ``rho0 = 1``, where
  ``g`` is Barnard's pooled z) and ``v_i = 2 b_i / (1 - b_i)^2`` the variance of the integer
  noise ``D_i``: the score statistic of ``K_i = X_i + D_i``.  (Without ``v_i`` the clipped
  cells ``j_i = 0, n_i``, where the noise piles up, get extreme ``g`` and the test loses
  power at small epsilon: 0.397 against the difference's 0.586 at n = 100, epsilon = 0.5.)
  Where ``V = 0`` (only with ``v = 0``) ``g`` is 0 if the numerator is 0, else +-inf.
  *Monotonicity*, which the reduction of the null to its boundary line needs (``T``
  nondecreasing in ``z1``, nonincreasing in ``z2``): ``g`` is replaced by its smallest
  majorant nondecreasing in ``j1`` and nonincreasing in ``j2`` (a running maximum down the rows,
  then leftwards along them); on every lattice the tests check (n up to 61, margins of both
  effects) the score is already monotone and the closure changes nothing.  *Ties* are
  decided on ``g`` rounded to a multiple of ``2**-32`` (the doubles carry errors near 1e-15
  relative, so equal exact values round together; at ``Delta0 = 0`` the numerator and the
  pooled variance come from exact integers, so mirror cells give equal doubles); the rounded
  ``g`` is itself the statistic, so whatever a rounding decides, the test is exact for it.
  *The tail* at an observed ``(g_obs, t)`` is

      P(T >= (g_obs, t)) = sum_{g(j) > g_obs} Q1(j1) Q2(j2)
                           + sum_{g(clip k) = g_obs} P(K1 = k1) P(K2 = k2) G(t - a1 k1 - a2 k2),

  ``Q_i`` the pmf of ``clip(K_i)``: the first sum, as ``g`` is monotone, is one cumulative sum
  per row of the ``(n1 + 1) x (n2 + 1)`` lattice; the second is the linear tail above restricted
  to the full-lattice cells whose clipped cell ties (per component pair); the lower tail is the
  upper tail of ``(-g, -T_lin)``.  A release stands for its cell: ``K`` is constant on it, and
  the p-value takes the corner least favourable to the alternative.  The critical value (for
  the power) is a point ``(level, u)`` of the order: the most extreme level of ``g`` whose whole
  supremum tail exceeds alpha (bisection over the sorted levels), then ``u`` among its ties.
  The lattice is kept in memory: above 4e6 cells (about 2000 per arm) the difference ordering
  is used, and the result's ``method`` says which ordering was used and why; so do two Laplace
  releases by default (the score reads Tulap integer parts; an explicit ``'score'`` is
  refused).  In the non-private limit (epsilon = 50, releases at ``x_i -+ (1/2 - 1e-6)`` so
  that every tie is in the tail) the p-value is ``scipy.stats.barnard_exact(pooled=True)``'s, checked to 1e-6.

*The choice, by exact power* (``_critical._exact_power``, tabled by ``python -m
validation.two_arm_ordering``, three cells checked against ``tests/reference/make_two_arm_power.py``; alpha = 0.05, equal n and epsilon
per arm, null of no difference; difference/score; "2s" two-sided; one-sided "greater" at
``(theta1, theta2)``, the "less" test at the mirrored pair has the same power; the last column
the exact size of the one-sided test at ``theta1 = theta2 = 0.1``):

    ====  =====  ===========  ===========  ===========  ===========  ===========  ===========  ===========
     n    eps   .45 v .30    .20 v .08    .60 v .45    2s .45/.30   2s .20/.08   2s .60/.45   size at .1
    ====  =====  ===========  ===========  ===========  ===========  ===========  ===========  ===========
      20    0.5  0.135/0.138  0.088/0.066  0.138/0.136  0.080/0.078  0.050/0.028  0.082/0.083  0.032/0.019
      20      1  0.192/0.197  0.099/0.151  0.198/0.179  0.117/0.121  0.048/0.085  0.123/0.114  0.015/0.023
      20      3  0.229/0.224  0.099/0.261  0.237/0.216  0.144/0.146  0.043/0.178  0.152/0.137  0.005/0.031
      50    0.5  0.313/0.318  0.187/0.280  0.316/0.315  0.203/0.207  0.100/0.147  0.208/0.209  0.020/0.035
      50      1  0.399/0.420  0.233/0.428  0.402/0.385  0.280/0.287  0.124/0.318  0.285/0.286  0.008/0.043
      50      3  0.437/0.434  0.253/0.533  0.439/0.422  0.313/0.338  0.133/0.385  0.319/0.302  0.004/0.049
     100    0.5  0.586/0.595  0.413/0.603  0.584/0.576  0.453/0.473  0.259/0.465  0.454/0.435  0.013/0.046
     100      1  0.662/0.682  0.493/0.741  0.658/0.638  0.536/0.557  0.322/0.626  0.535/0.529  0.005/0.049
     100      3  0.688/0.699  0.524/0.785  0.683/0.681  0.565/0.589  0.346/0.682  0.563/0.541  0.003/0.044
     300    0.5  0.973/0.976  0.946/0.988  0.969/0.967  0.945/0.951  0.878/0.973  0.939/0.937  0.006/0.048
     300      1  0.981/0.983  0.966/0.995  0.977/0.977  0.959/0.964  0.913/0.988  0.954/0.953  0.004/0.048
     300      3  0.983/0.985  0.971/0.996  0.980/0.978  0.963/0.967  0.923/0.991  0.958/0.955  0.003/0.049
    ====  =====  ===========  ===========  ===========  ===========  ===========  ===========  ===========

The sizes (suprema over 101 points of the null line) are at most alpha for both (largest
0.0500).  The score ordering gains most away from 1/2 (0.741 against 0.493 at n = 100,
epsilon = 1, 0.20 against 0.08), because the difference's tail is largest at nu = 1/2 and its
test is conservative elsewhere (size 0.005 at 0.1 against 0.049); it loses a little at the
centre (0.638 against 0.658 at 0.60 against 0.45) and at n = 20, epsilon = 0.5 near 0.1.  By
power it is the better default, and it is the default (``DEFAULT_STATISTIC`` in
:mod:`._arguments`; the test, the interval, the power and the sample size, ``prop_test``, the
command and R, so that a trial is analysed by the test it was planned for).  Its cost: the
risk-difference interval, whose end search cannot use monotonicity in ``Delta0`` (the
score's ordering moves with it), scans 81 margins per end (see :mod:`._interval`), each with
its own order matrix.  Issue 41's goals: the p-value at most ``scipy.stats.barnard_exact``'s
time at n = 100 per arm, the interval at most 0.2 s there and under 5 s at n = 1000.  After
the speed-ups (``benchmarks/bench_two_arm.py``, four runs at load average 4.5-5.8 on 2
cores): p-value 0.5-0.8x, interval 0.15-0.19 s at n = 100 (met), 4.4-6.9 s at n = 1000
(missed in three runs of four, on a loaded machine); before them 1.1-1.2x, 0.15-0.35 s and
7-10 s, and at first 2.8x, 1.3 s and 54 s.  Planning with it costs more than with the
difference: an exact power is a bisection over the score levels, each a located supremum (about
4 s at 1400 per arm, so a sample-size search ending near 1500 per arm takes 20-30 s, against
under a second for the difference).  ``statistic='difference'`` gives the linear ordering.

**The odds ratio** (``effect='odds-ratio'``, :mod:`._odds_ratio`).  The null
``theta1 (1 - theta2) / (theta2 (1 - theta1)) = psi0`` is the curve
``theta1 = psi0 nu / (1 - nu + psi0 nu)``, ``theta2 = nu`` in [0, 1]; the reduction to it holds
as for the lines (the tail increases in ``theta1`` and decreases in ``theta2``), and the
certificate takes the curve's derivative bounds.  Every such curve passes through the corners
``theta1 = theta2`` in {0, 1}, where the counts are fixed and the difference is pure noise
around 0, so one of its two tails there is at least 1/2 whatever ``psi0`` (the lower one
when the observed difference is positive): that one-sided p-value never falls below 1/2 and
the interval never ends on that side (``[L, inf)`` for a positive difference).  The odds ratio is therefore ordered by its score, the
Miettinen & Nurminen (1985) statistic (used unconditionally by Agresti & Min 2002),
``g = d (a1 + a2) / sqrt(a2^2 (a1 + v1) + a1^2 (a2 + v2))`` with ``d = j1 - n1 t1``,
``a_i = n_i t_i (1 - t_i)``, ``(t1, t2)`` the restricted MLE (a quadratic's root) and ``v_i`` the
noise variances: the linearised log odds ratio at the restricted MLE over its standard
deviation with the noise added; at ``v = 0`` the Miettinen-Nurminen score, at ``psi0 = 1``
exactly the pooled z above.  At the corners the releases' integer parts pile up at
``(0, 0)`` or ``(n1, n2)``, where ``g = 0``, so the tails there are small for an extreme
observation and the intervals end.  The score ordering is the default and only one for the
odds ratio (``statistic='difference'`` is refused with this reason); Tulap arms with
``(n1 + 1)(n2 + 1) <= 4e6``.  The interval is found as the ratio's (a scan of ``log psi0``).
Checked against ``tests/reference/make_two_arm_odds_ratio.py`` (mpmath, direct summation,
1e-10 relative up to n = 100 per arm), against an unconditional exact score test enumerated
at epsilon = 50, and by exact coverage (``tests/inference/two_arm/test_odds_ratio.py``).

**Laplace arms** (:mod:`._laplace_arms`).  ``LaplaceReleaser(epsilon).count(x, n)``
releases ``Z = x + h D`` exactly: ``h = 2**-g`` with ``g = min(24, 61 - bit_length(n + C + 1))``,
``C = ceil(764 / epsilon) + 1``, and ``D`` discrete Laplace, ``P(D = d) = (1 - r)/(1 + r) r^|d|``
with ``r = exp(-lam)``, ``lam`` the per-step epsilon ``epsilon h`` rounded down (all public:
``dpinfer.distributions._laplace_grid.count_grid``); ``.proportion`` releases ``Z / n`` (one
rounding, undone by ``z n`` to far below a grid step for ``n <= 2000``).  The release is on its
grid, so, unlike a Tulap release, it stands for no cell; the statistic computed from the two
doubles is moved towards the null by ``(n_i + C_i) 2**-50 / n_i`` per arm (``half_step``), more
than 8 times its rounding error and far less than a lattice step (``h / n`` for equal arms), so
the cut is that of the exact statistic.  For ``T = a_1 Z_1 + a_2 Z_2``,

    P(T >= t) = sum_{x_1, x_2} B_1(x_1) B_2(x_2) Q(x_1, x_2),

``Q`` the noise's tail beyond the cut the counts leave; a plan holds the matrix ``Q`` (it does
not depend on theta), so a nuisance grid costs one matrix product.

*Risk difference, exactly.*  ``n_1 n_2 2**G T = V`` is an integer (``G`` the larger grid
exponent), ``V = 2**G (n_2 x_1 - n_1 x_2) + W``, ``W = al D_1 - be D_2`` (``al = n_2 2**(G - g_1)``,
``be = n_1 2**(G - g_2)``, divided by their gcd), and ``P(V >= v)`` with ``v = ceil(n_1 n_2 2**G t)``
(exact rational arithmetic) is ``P(W >= s)``.  Write ``D_2 = al j + rho``, ``0 <= rho < al``:
then ``W >= s`` iff ``D_1 >= be j + kappa_rho``, ``kappa_rho = ceil((s + be rho) / al)``, and
``P(D_1 >= k)`` is ``r_1^k / (1 + r_1)`` for ``k >= 1`` and ``1 - r_1^(1 - k) / (1 + r_1)`` for
``k <= 0``.  Splitting ``j`` at 0 (the sign of ``D_2``) and at ``j* = ceil((1 - kappa) / be)``
leaves four geometric series per residue class, each summed in closed form from its largest
term with ``expm1`` (``r`` is ``1 - 6e-8`` at epsilon = 1: ``1 - r^m`` would cancel).  All
terms are positive, and in the two ``k <= 0`` series the subtracted part is at most half the
other, so each value keeps its relative precision.  The roles of the arms are swapped when
that gives fewer residue classes; equal arms have one (``al = be = 1``), so the ``2 n + 1``
distinct cuts cost ``O(n)`` and the plan ``O(n^2)``.

*Risk ratio, with a stated bound.*  ``Z_1/n_1 - rho_0 Z_2/n_2`` has no residue structure for
a real ``rho_0``.  Its noise tail is taken from the continuous law: ``h D`` is replaced by
``L ~ Laplace(h / lam)``, and for ``Y = A - B``, ``A``, ``B`` Laplace of scales ``s_1 >= s_2``
(here ``|a_i| h_i / lam_i``) and ``y >= 0``,

    P(Y >= y) = [s_1^2 e^(-y/s_1) - s_2^2 e^(-y/s_2)] / (2 (s_1^2 - s_2^2))
              = e^(-y/s_1) / 2 (1 + phi(delta) s_2 y / (s_1 (s_1 + s_2))),

``delta = y (s_1 - s_2)/(s_1 s_2)``, ``phi(delta) = -expm1(-delta)/delta`` (no cancellation at
``s_1 ~ s_2``; ``e^(-y/s)(2 + y/s)/4`` at equal scales), and ``1 - P(Y >= -y)`` below 0.  The
bound: the Kolmogorov distance between ``h D`` and ``L`` is ``(1 - r)/(2 (1 + r)) <= lam / 4``
(attained at the lattice points, the largest gap at 0), and that of a sum of independent parts
from the sum of their continuous stand-ins is at most the sum of the parts' distances
(replace one part at a time, conditioning on the others), so every tail of ``T`` is within
``d = d_1 + d_2`` (3e-8 at epsilon = 1) of its continuous stand-in, whatever theta.  The
plan returns the continuous tail **plus** ``d``: an upper bound of the grid law's tail, so
p-values are valid (size at most alpha) and conservative by at most ``2 d``; the result's
note gives ``d``.  The same route serves a difference of unequal arms whose residue sums
would exceed 20 000 terms (``EXACT_WORK``: e.g. coprime sizes near 100), stated the same way.
Laplace arms are limited to ``n <= 2000`` (the matrix ``Q``); both arms must have one
mechanism (a mixed pair is refused).  The certified supremum (:mod:`._certify`) applies
unchanged: the tail is linear in each arm's binomial pmf, so the plan gives ``p''`` exactly
(``with_curvature``); on the continuous route ``d`` is a constant added to the value only.
The odds ratio is not offered for Laplace arms (its score ordering reads Tulap integer parts).

Checked (``tests/inference/two_arm/test_laplace_arms.py``) against an independent mpmath
computation at the coarse grid ``h = 1/8`` (``tests/reference/make_two_arm_laplace.py``: direct
summation over the counts and over the noise term by term, 1e-10 relative for the
difference; between the grid law's value and it plus ``2 d`` for the ratio), the residue
sums against brute force, the continuous tail against quadrature, and, at the real grid,
the exact sums within ``d`` of the continuous tail; exact size and coverage by enumeration.

**Intervals** invert the one-sided tests (:mod:`._interval`; Chan & Zhang 1999), so their
coverage is at least the level at every ``(theta_1, theta_2)``.  **Power** is the exact tail
beyond the critical value (the smallest ``t`` whose supremum tail is at most ``alpha``);
**sample size** the smallest ``n_1`` (``n_2 = ceil(ratio n_1)``) reaching a power.

References: Awan, J. and Slavkovic, A. (2018), NeurIPS 31; Barnard, G. A. (1947),
Biometrika 34; Boschloo, R. D. (1970), Statistica Neerlandica 24; Berger, R. L. and
Boos, D. D. (1994), JASA 89; Chan, I. S. F. and Zhang, Z. (1999), Biometrics 55; Farrington, C. P.
and Manning, G. (1990), Statistics in Medicine 9; Miettinen, O. and Nurminen, M. (1985),
Statistics in Medicine 4.
"""

from ._inference import binom2_ump_ci, binom2_ump_test
from ._planning import binom2_ump_power, binom2_ump_sample_size

__all__ = [
    "binom2_ump_ci",
    "binom2_ump_power",
    "binom2_ump_sample_size",
    "binom2_ump_test",
]
