"""Private kernels of DP-JIMI (fiducial matching) for a Laplace-noised proportion.

Every function here assumes valid input (checked once by the public functions in
:mod:`dpinfer.inference.jimi`): ``pi_hat`` a finite float array, ``n`` an int >= 1,
``epsilon`` a positive finite float, levels in (0, 1), generators already
normalised.  Notation: ``scale = 1 / (epsilon n)`` is the Laplace scale on the
proportion; ``pi* = pi_hat - L`` with ``L ~ Laplace(0, scale)``, so ``pi*`` has the
Laplace(pi_hat, scale) law; ``theta* = 0`` if ``pi* <= 0``, ``1`` if ``pi* >= 1``, else
``theta* | pi* = u ~ Beta(n u + 1/2, n (1 - u) + 1/2)``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betainc, betaln, ndtri

from ..._progress import SILENT
from ...distributions._laplace_law import LaplaceLaw
from .._roots import expand_bracket_within, find_root, newton_roots

__all__ = []  # private module

# Elements of one simulated (rows, n_sim) block: bounds memory at ~8 MB per array.
_CHUNK_ELEMENTS = 1 << 20

# Gauss-Legendre rule used on every panel of the exact integral.
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(10)
_GL_X = 0.5 * (_GL_NODES + 1.0)  # nodes mapped to [0, 1]
_GL_W = 0.5 * _GL_WEIGHTS

# Panel breakpoints, in units of the Laplace scale either side of pi_hat (the
# density is e^{-|x|} / 2; the continuous part beyond 40 scales, mass below e^{-40} / 2
# ~ 2e-18, is left out), and in units of the width w of the Beta-cdf sigmoid
# around its centre u_c (beyond 8 w the Beta tail is below ~1e-14 relative).
_X_MAX = 40.0
_LAPLACE_STEPS = np.array([1.0, 2.5, 5.0, 9.0, 15.0, 24.0])
_SIGMOID_STEPS = np.array([-8.0, -4.0, -2.0, 0.0, 2.0, 4.0, 8.0])
_BREAKS = np.concatenate([[0.0], -_LAPLACE_STEPS, _LAPLACE_STEPS])

# Laplace(0, 1): the quadrature works in the standardised offset (u - pi_hat) / scale.
_STANDARD_LAPLACE = LaplaceLaw.from_scale(1.0)


# --------------------------------------------------------------------------- point masses
def _mass_zero(pi_hat, scale):
    """P(pi* <= 0) = P(L >= pi_hat) for L ~ Laplace(0, scale) (the Laplace law's tail)."""
    return LaplaceLaw.from_scale(scale).sf(pi_hat)


def _mass_one(pi_hat, scale):
    """P(pi* >= 1) = P(L <= pi_hat - 1) for L ~ Laplace(0, scale)."""
    return _mass_zero(1.0 - pi_hat, scale)


# --------------------------------------------------------------------------- exact limit
def _nodes(t, pi_hat, n, scale):
    """Quadrature nodes u (in [0, 1]) and weights w (density included) for each row.

    The integral int_0^1 h(u) phi(u) du, with phi the Laplace(pi_hat, scale) density
    and h(u) = I_t(n u + 1/2, n (1 - u) + 1/2) a sigmoid in u, is split into panels
    at 0, 1, the kink u = pi_hat, pi_hat +- scale * _LAPLACE_STEPS (so the
    exponential is resolved) and u_c + w * _SIGMOID_STEPS (so the sigmoid is); each
    panel gets a 12-point Gauss-Legendre rule.  Panels are built in the standardised
    offset x = (u - pi_hat) / scale, where the density is exactly e^{-|x|} / 2, so
    the weights keep full relative accuracy even when scale is far below the
    spacing of doubles near pi_hat (epsilon n ~ 1e10).  Rows whose panels fall
    outside [0, 1] get zero weight.  Shapes: t, pi_hat (m,); returns (m, P * 12).
    """
    # Beyond 2 * _X_MAX scales outside [0, 1] the Laplace weight on [0, 1] is exactly 0
    # in doubles; clipping there changes nothing and keeps (u - pi_hat) / scale finite.
    pi_hat = np.clip(pi_hat, -2.0 * _X_MAX * scale, 1.0 + 2.0 * _X_MAX * scale)
    tt = np.clip(t, 0.0, 1.0)
    u_c = ((n + 1.0) * tt - 0.5) / n
    w = np.sqrt(tt * (1.0 - tt) / (n + 2.0)) + 1.0 / (n + 2.0)
    x_lo = np.maximum((0.0 - pi_hat) / scale, -_X_MAX)
    x_hi = np.minimum((1.0 - pi_hat) / scale, _X_MAX)
    m = pi_hat.size
    br = np.concatenate(
        [
            np.broadcast_to(_BREAKS, (m, _BREAKS.size)),
            (u_c[:, None] + w[:, None] * _SIGMOID_STEPS[None, :] - pi_hat[:, None]) / scale,
            x_lo[:, None],
            x_hi[:, None],
        ],
        axis=1,
    )
    br = np.sort(np.clip(br, x_lo[:, None], x_hi[:, None]), axis=1)
    lo, hi = br[:, :-1], br[:, 1:]
    width = hi - lo
    x = lo[:, :, None] + width[:, :, None] * _GL_X[None, None, :]
    wts = width[:, :, None] * _GL_W[None, None, :] * _STANDARD_LAPLACE.pdf(x)
    u = np.clip(pi_hat[:, None, None] + scale * x, 0.0, 1.0)
    return u.reshape(m, -1), wts.reshape(m, -1)


def _beta_params(u, n):
    """The Beta shapes ``(shape1, shape2) = (n u + 1/2, n (1 - u) + 1/2)`` of theta* given pi* = u."""
    shape1 = n * u + 0.5
    return shape1, (n + 1.0) - shape1


def _weighted_betainc(shape1, shape2, x, wts):
    """sum_j wts_j I_x(a_j, b_j) per row, evaluating I only where the weight is
    non-zero (about a third of the nodes sit in empty panels outside [0, 1])."""
    vals = np.zeros(wts.shape)
    live = wts > 0.0
    vals[live] = betainc(shape1[live], shape2[live], np.broadcast_to(x, wts.shape)[live])
    return np.sum(wts * vals, axis=1)


def _cdf_and_pdf(t, pi_hat, n, scale, *, want_pdf=False):
    """Fiducial cdf G(t) (and the density of its continuous part) for rows of pi_hat.

    G(t) = P(pi* <= 0) + int_0^1 I_t(n u + 1/2, n (1 - u) + 1/2) phi(u) du for
    0 <= t < 1 and G(t) = 1 for t >= 1; G(t) = 0 for t < 0.  t and pi_hat: (m,).
    Accuracy: agrees with 30-digit mpmath quadrature to about 1e-12 (tests).
    """
    t = np.asarray(t, dtype=float)
    u, wts = _nodes(t, pi_hat, n, scale)
    shape1, shape2 = _beta_params(u, n)
    tt = np.clip(t, 0.0, 1.0)[:, None]
    cdf = _mass_zero(pi_hat, scale) + _weighted_betainc(shape1, shape2, tt, wts)
    cdf = np.where(t >= 1.0, 1.0, np.where(t < 0.0, 0.0, np.clip(cdf, 0.0, 1.0)))
    if not want_pdf:
        return cdf
    inner = (tt > 0.0) & (tt < 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logpdf = (shape1 - 1.0) * np.log(tt) + (shape2 - 1.0) * np.log1p(-tt) - betaln(shape1, shape2)
        pdf = np.where(inner, np.sum(wts * np.exp(logpdf), axis=1, keepdims=True), 0.0)[:, 0]
    return cdf, pdf


def _exact_cdf(t, pi_hat, n, epsilon):
    """G(t) for broadcastable arrays t and pi_hat (any shape)."""
    t, pi_hat = np.broadcast_arrays(np.asarray(t, float), np.asarray(pi_hat, float))
    out = _cdf_and_pdf(t.ravel(), pi_hat.ravel(), n, 1.0 / (epsilon * n))
    return out.reshape(t.shape)


def _exact_upper(t, pi_hat, n, epsilon):
    """P(theta* >= t) = 1 - G(t^-), computed without cancellation for small values.

    Inside (0, 1): P(pi* >= 1) + int_0^1 I_{1-t}(n (1 - u) + 1/2, n u + 1/2) f(u) du
    (the reflected Beta cdf is the upper tail); 1 at t <= 0; P(pi* >= 1) at t = 1;
    0 above 1.  t and pi_hat broadcast (any shape).
    """
    t, pi_hat = np.broadcast_arrays(np.asarray(t, float), np.asarray(pi_hat, float))
    shape = t.shape
    tt, ph = np.clip(t, 0.0, 1.0).ravel(), pi_hat.ravel()
    scale = 1.0 / (epsilon * n)
    u, wts = _nodes(tt, ph, n, scale)
    shape1, shape2 = _beta_params(u, n)
    p1 = _mass_one(ph, scale)
    upper = np.clip(p1 + _weighted_betainc(shape2, shape1, 1.0 - tt[:, None], wts), 0.0, 1.0)
    upper = np.where(tt >= 1.0, p1, upper).reshape(shape)
    return np.where(t <= 0.0, 1.0, np.where(t > 1.0, 0.0, upper))


def _exact_quantile(level, pi_hat, n, epsilon, *, xtol=1e-13, ftol=1e-14, max_iter=100):
    """Inverse-cdf quantile q = inf{t in [0, 1] : G(t) >= level}.

    ``level`` (in (0, 1)) and ``pi_hat`` are broadcast together (several levels
    for several releases are solved in one pass).  Point masses: q = 0 when
    level <= P(pi* <= 0), q = 1 when level > 1 - P(pi* >= 1).  Otherwise the root
    of the continuous, strictly increasing G on (0, 1) is found by Newton's
    method on the mixed Beta density, started at a normal approximation and
    safeguarded by a bracket with a bisection fallback (the shared
    :func:`dpinfer.inference._roots.newton_roots`); all rows iterate together
    and only unconverged rows are evaluated (typically 4 to 6 evaluations of G).
    """
    level, pi_hat = np.broadcast_arrays(np.asarray(level, float), np.asarray(pi_hat, float))
    shape = level.shape
    lv, ph = level.ravel(), pi_hat.ravel()
    scale = 1.0 / (epsilon * n)
    p0, p1 = _mass_zero(ph, scale), _mass_one(ph, scale)
    q = np.where(lv <= p0, 0.0, 1.0)
    act = np.flatnonzero((lv > p0) & (lv <= 1.0 - p1))
    if act.size:
        lva, pha = lv[act], ph[act]
        centre = np.clip(pha, 0.5 / n, 1.0 - 0.5 / n)
        sd = np.sqrt(centre * (1.0 - centre) / n + 2.0 * scale**2)
        x0 = np.clip(centre + ndtri(lva) * sd, 1e-6, 1.0 - 1e-6)

        def g(x, rows):
            value, density = _cdf_and_pdf(x, pha[rows], n, scale, want_pdf=True)
            return value - lva[rows], density

        q[act] = newton_roots(g, x0, np.zeros(act.size), np.ones(act.size),
                              xtol=xtol, ftol=ftol, max_iter=max_iter)
    return q.reshape(shape)


# --------------------------------------------------------------------------- simulation
def _chunks(n_rows, n_sim):
    rows = max(1, _CHUNK_ELEMENTS // n_sim)
    for start in range(0, n_rows, rows):
        yield slice(start, min(start + rows, n_rows))


def _draw_theta(gen, pi_hat, n, epsilon, n_sim):
    """A (m, n_sim) block of fiducial draws theta* for the rows of ``pi_hat`` (shape (m,)).

    Fresh L ~ Laplace(0, 1/(epsilon n)) per draw; pi* = pi_hat - L; point masses by
    masks, Beta(n pi* + 1/2, n (1 - pi*) + 1/2) for the interior (one vectorised
    ``gen.beta`` call with array parameters).
    """
    pstar = pi_hat[:, None] - gen.laplace(0.0, 1.0 / (epsilon * n), size=(pi_hat.size, n_sim))
    theta = (pstar >= 1.0).astype(float)
    inner = (pstar > 0.0) & (pstar < 1.0)
    a = n * pstar[inner] + 0.5
    theta[inner] = gen.beta(a, (n + 1.0) - a)
    return theta


def _tail_count(tail, n_sim):
    """k = ceil(tail * H), at least 1: the rank (from its own end) of a sample bound.

    The tiny relative shrink keeps ceil(0.025 * 10000) at 250 although
    (1 - 0.95) / 2 is 0.025000000000000022 in binary.
    """
    return min(max(int(np.ceil(tail * n_sim * (1.0 - 1e-9))), 1), n_sim)


def _sample_bounds(draws, lo_tail, hi_tail):
    """Equal-tailed sample bounds along axis 1: the k-th smallest and k'-th largest.

    Lower bound theta*_(k), k = ceil(lo_tail H) (numpy's ``method='inverted_cdf'``
    quantile at level lo_tail); upper bound theta*_(H + 1 - k'), k' = ceil(hi_tail H),
    its mirror image.  With these ranks p0 lies outside the bounds exactly when
    the share of draws on the null side is below the tail level.  A tail of None
    gives None.
    """
    h = draws.shape[1]
    idx = {}
    if lo_tail is not None:
        idx["lo"] = _tail_count(lo_tail, h) - 1
    if hi_tail is not None:
        idx["hi"] = h - _tail_count(hi_tail, h)
    part = np.partition(draws, sorted(set(idx.values())), axis=1)
    return (part[:, idx["lo"]] if "lo" in idx else None,
            part[:, idx["hi"]] if "hi" in idx else None)


def _tail_shares(draws, p0):
    """(share of draws <= p0, share of draws >= p0) per row."""
    return np.mean(draws <= p0, axis=1), np.mean(draws >= p0, axis=1)


# --------------------------------------------------------------------------- two samples: exact limit
# Levels whose fiducial quantiles split the two-sample integral into panels (both groups).
_TWO_LEVELS = np.array([1e-10, 1e-7, 1e-4, 1e-2, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85, 0.95, 0.99,
                        1 - 1e-4, 1 - 1e-7, 1 - 1e-10])
_TWO_UNIFORM = np.linspace(0.0, 1.0, 9)  # extra panels, uniform in the angle s
# Panels graded geometrically towards t = 0 and t = 1, where g2 behaves like
# t^(-1/2) / log(1/t) (Beta(n u + 1/2, .) mixed over u near 0).
_TWO_GRADED = np.concatenate([10.0 ** -np.arange(1, 17), 1.0 - 10.0 ** -np.arange(1, 17)])


def _two_exact(pi1, n1, eps1, pi2, n2, eps2, d):
    """Exact-limit ``(P(D < d), P(D = d), P(D > d))`` for ``D = theta1* - theta2*`` (scalars).

    With ``G1`` the fiducial cdf of group 1, ``S1(x) = P(theta1* > x)`` and group 2's
    law made of point masses ``m0``, ``m1`` at 0 and 1 and a density ``g2`` on (0, 1):

        P(D <= d) = m0 G1(d) + m1 G1(1 + d) + int_0^1 G1(t + d) g2(t) dt,
        P(D > d)  = m0 S1(d) + m1 S1(1 + d) + int_0^1 S1(t + d) g2(t) dt,

    (each upper tail is integrated directly, so small p-values keep their relative
    accuracy).  ``P(D = d)`` is the product of point masses that meet at ``d``.
    The integral is taken in the angle ``s``, ``t = (1 - cos(pi s)) / 2``, which
    removes the ``t^(-1/2)`` end behaviour of ``g2``; panels split at ``-d`` and
    ``1 - d`` (the jumps of ``G1(t + d)``), at the fiducial quantiles of both groups
    (``_TWO_LEVELS``, group 1 shifted by ``-d``), geometrically towards 0 and 1
    (``_TWO_GRADED``) and uniformly in ``s``, with a 10-point Gauss-Legendre rule
    on each.  ``G1``, ``S1`` and ``g2`` are the
    one-sample quadratures (about 1e-12).
    """
    s1, s2 = 1.0 / (eps1 * n1), 1.0 / (eps2 * n2)
    m01, m11 = float(_mass_zero(pi1, s1)), float(_mass_one(pi1, s1))
    m02, m12 = float(_mass_zero(pi2, s2)), float(_mass_one(pi2, s2))
    q1 = _exact_quantile(_TWO_LEVELS, pi1, n1, eps1) - d
    q2 = _exact_quantile(_TWO_LEVELS, pi2, n2, eps2)
    t_breaks = np.clip(np.concatenate([q1, q2, [-d, 1.0 - d], _TWO_GRADED]), 0.0, 1.0)
    s_breaks = np.unique(np.concatenate([np.arccos(1.0 - 2.0 * t_breaks) / np.pi, _TWO_UNIFORM]))
    lo, hi = s_breaks[:-1], s_breaks[1:]
    s = (lo[:, None] + (hi - lo)[:, None] * _GL_X[None, :]).ravel()
    ws = ((hi - lo)[:, None] * _GL_W[None, :]).ravel()
    t = 0.5 * (1.0 - np.cos(np.pi * s))
    jac = 0.5 * np.pi * np.sin(np.pi * s)
    _, g2 = _cdf_and_pdf(t, np.full(t.size, float(pi2)), n2, s2, want_pdf=True)
    w = ws * jac * g2
    x = t + d
    cdf1 = _exact_cdf(x, pi1, n1, eps1)
    sf1 = _exact_upper(x, pi1, n1, eps1)  # P(theta1* >= x) = P(> x): no node sits on 0 or 1

    def atom1(v):
        return m01 if v == 0.0 else (m11 if v == 1.0 else 0.0)

    def sf1_at(v):
        return float(_exact_upper(v, pi1, n1, eps1)) - atom1(v)

    tie = m02 * atom1(d) + m12 * atom1(1.0 + d)
    le = m02 * float(_exact_cdf(d, pi1, n1, eps1)) + m12 * float(_exact_cdf(1.0 + d, pi1, n1, eps1)) \
        + float(np.sum(w * cdf1))
    gt = m02 * sf1_at(d) + m12 * sf1_at(1.0 + d) + float(np.sum(w * sf1))
    return min(max(le - tie, 0.0), 1.0), tie, min(max(gt, 0.0), 1.0)


def _two_exact_quantile(level, pi1, n1, eps1, pi2, n2, eps2, *, xtol=1e-12, progress=SILENT):
    """``inf{d in [-1, 1] : P(D <= d) >= level}`` by the shared scalar root search (Brent).

    Each evaluation is a two-dimensional quadrature (about 0.1 s), so the search starts
    from a normal guess built from the groups' fiducial quartile-like spreads
    (``centre + z sd``) and brackets within a quarter of that sd, expanding as needed:
    about half the evaluations of a search over the whole of ``[-1, 1]``.
    """
    memo = {}

    def f(d):
        if d not in memo:
            lt, tie, _ = _two_exact(pi1, n1, eps1, pi2, n2, eps2, d)
            memo[d] = lt + tie - level
            progress.advance()  # one unit per quadrature
        return memo[d]

    spread = np.array([_SD_LOW, 0.5, 1.0 - _SD_LOW])
    q1 = _exact_quantile(spread, pi1, n1, eps1)
    q2 = _exact_quantile(spread, pi2, n2, eps2)
    sd = max(float(np.hypot(q1[2] - q1[0], q2[2] - q2[0])) / 2.0, 1e-3)
    guess = float(q1[1] - q2[1] + ndtri(min(max(level, 1e-300), 1.0 - 1e-16)) * sd)
    lo, hi = expand_bracket_within(lambda d: -f(d), guess, sd / 4.0, -1.0, 1.0)
    if lo is None:
        # no sign change inside: P(D <= -1) >= level already, or (rounding only) P(D <= 1) < level
        return -1.0 if f(-1.0) >= 0.0 else 1.0
    if lo == hi:
        return lo
    return find_root(f, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=100)


#: the fiducial quantiles one normal sd below and above the median
_SD_LOW = 0.15865525393145707
