"""The interval studies' machinery: exact coverage and mean length of each interval, cell by cell.

Built on the release laws and solvers of ``validation/_methods.py`` (which holds
the tests' machinery).  Everything takes already valid arguments.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._methods import (
    _gauss_legendre01,
    bisect_increasing,
    clopper_pearson,
    law_for,
    nonprivate_ci_coverage,
    release_at,
    solve_increasing,
    wald,
)

__all__ = []

INTERVALS = ("dp_ump", "dp_jimi", "clopper_pearson", "wald")


def piecewise_chebyshev(func, breaks, degree):
    """Interpolant of ``func`` on each piece [breaks[i], breaks[i+1]] (Chebyshev-Lobatto nodes).

    ``func(array) -> array`` of shape (m,) or (m, k) is called once, on all nodes.
    Returns a vectorised callable (output shape t.shape or t.shape + (k,)); points
    outside [breaks[0], breaks[-1]] use the end pieces.
    """
    breaks = np.asarray(breaks, dtype=float)
    k = np.arange(degree + 1)
    ref = -np.cos(np.pi * k / degree)  # Chebyshev-Lobatto points on [-1, 1]
    a, b = breaks[:-1], breaks[1:]
    nodes = (0.5 * (a + b))[:, None] + (0.5 * (b - a))[:, None] * ref[None, :]
    values = np.asarray(func(nodes.ravel()), dtype=float)
    squeeze = values.ndim == 1
    cols = 1 if squeeze else values.shape[1]
    values = values.reshape(a.size, degree + 1, cols)
    polys = [[np.polynomial.Chebyshev.fit(nodes[i], values[i, :, c], degree, domain=[a[i], b[i]])
              for c in range(cols)] for i in range(a.size)]

    def interpolant(t):
        t = np.asarray(t, dtype=float)
        piece = np.clip(np.searchsorted(breaks, t, side="right") - 1, 0, a.size - 1)
        out = np.empty(t.shape + (cols,))
        for i, row in enumerate(polys):
            sel = piece == i
            if np.any(sel):
                for c, poly in enumerate(row):
                    out[sel, c] = poly(t[sel])
        return out[..., 0] if squeeze else out

    return interpolant


def _ci_function(method, n, epsilon, level, *, n_sim=None, rng=None):
    """``t_array -> (m, 2)`` two-sided interval endpoints through dpinfer's public API."""
    import dpinfer

    if method == "dp_ump":
        def ci(t):
            return np.asarray(dpinfer.binom_ump_ci(release_at(t, n, epsilon, method),
                                                   confidence_level=level)).reshape(-1, 2)
    elif method == "dp_jimi":
        def ci(t):
            return np.asarray(dpinfer.binom_jimi_ci(release_at(t, n, epsilon, method),
                                                    confidence_level=level, n_sim=n_sim,
                                                    rng=rng)).reshape(-1, 2)
    else:
        raise ValueError(f"unknown private interval {method!r}")
    return ci


def _endpoint_functions(method, n, epsilon, level):
    """(low(t), high(t)): the two-sided interval's endpoints as functions of the release.

    DP-JIMI's two-sided endpoints are the fiducial quantiles at a/2 and 1 - a/2
    (a = 1 - level), which its one-sided intervals at confidence level 1 - a/2 return
    alone (one quantile search instead of two); DP-UMP's two-sided interval inverts
    a two-sided test, so both come from the two-sided call.
    """
    import dpinfer

    if method == "dp_jimi":
        one_sided = 1.0 - 0.5 * (1.0 - level)

        def low(t):
            return np.asarray(dpinfer.binom_jimi_ci(release_at(t, n, epsilon, method),
                                                    confidence_level=one_sided,
                                                    alternative="greater", n_sim=None))[..., 0]

        def high(t):
            return np.asarray(dpinfer.binom_jimi_ci(release_at(t, n, epsilon, method),
                                                    confidence_level=one_sided,
                                                    alternative="less", n_sim=None))[..., 1]

        return low, high
    ci = _ci_function(method, n, epsilon, level)
    return (lambda t: ci(t)[:, 0]), (lambda t: ci(t)[:, 1])


def _acceptance_region(endpoints, law, thetas, *, start=None, width=None):
    """[a(theta), b(theta)]: the releases whose interval covers theta.

    The endpoints L(t), U(t) are non-decreasing in the release t, so
    {t : L(t) <= theta <= U(t)} = [a, b] with U(a) = theta and L(b) = theta, found
    by root search on the endpoint functions themselves (``endpoints = (L, U)``).
    ``start`` (optional) gives approximate roots (a0, b0) and ``width`` a bracket
    half-width around them; targets whose narrow bracket fails get the law's full
    bracket.
    """
    low, high = endpoints
    lo, hi = law.bracket()
    roots = []
    for k, func in enumerate((high, low)):
        if start is not None:
            a0 = np.maximum(start[k] - width, lo)
            b0 = np.minimum(start[k] + width, hi)
        else:
            a0, b0 = np.full(thetas.shape, lo), np.full(thetas.shape, hi)
        ends = func(np.concatenate([a0, b0]))
        f_lo, f_hi = ends[: thetas.size], ends[thetas.size:]
        bad = ~((f_lo < thetas) & (thetas <= f_hi))
        if np.any(bad):
            a0, b0 = np.where(bad, lo, a0), np.where(bad, hi, b0)
            fix = func(np.concatenate([a0[bad], b0[bad]]))
            f_lo[bad], f_hi[bad] = fix[: bad.sum()], fix[bad.sum():]
        roots.append(solve_increasing(func, thetas, a0, b0, ftol=1e-14, xtol=1e-12,
                                      f_lo=f_lo, f_hi=f_hi))
    return roots[0], roots[1]


def _interval_row(cell, theta, coverage, length, se_cov=None, se_len=None, n_sim=None,
                  neglected=None):
    return {
        **cell.get("extra", {}),
        "method": cell["method"],
        "n": cell["n"],
        "epsilon": cell["epsilon"],
        "confidence_level": cell["confidence_level"],
        "theta": float(theta),
        "n_sim": n_sim,
        "coverage": float(coverage),
        "mean_length": float(length),
        "mc_se_coverage": se_cov,
        "mc_se_length": se_len,
        "neglected_mass": None if neglected is None else float(neglected),
    }


def jimi_endpoint_interpolant(ci, law, level, t_min, t_max, *, degree=32):
    """Piecewise-Chebyshev interpolant of the DP-JIMI interval endpoints on [t_min, t_max].

    Returns ``t -> (..., 2)`` approximate [low, high].  The exact-limit endpoints
    are smooth in pi_hat except where an endpoint meets a point mass of theta*:
    the upper endpoint leaves 0 at pi_hat = -s log(1/a), the lower endpoint leaves
    0 at s log(1/a), the upper reaches 1 at 1 - s log(1/a), the lower reaches 1 at
    1 + s log(1/a) (s = 1/(epsilon n), a = 1 - level), and at pi_hat = 0 and 1,
    where the point masses change form.  Those are the breakpoints of the pieces.
    Next to the first four the endpoints grow like a power of the distance, so
    convergence there is algebraic: with degree 32 the mean length agrees with
    direct quadrature of the exact interval to about 1e-6 (test_coverage_exact).
    """
    a = 1.0 - level
    w = law.scale * np.log(1 / a)
    kinks = [-w, 0.0, w, 1.0 - w, 1.0, 1.0 + w]
    breaks = np.unique([t_min] + [k for k in kinks if t_min < k < t_max] + [t_max])
    return piecewise_chebyshev(ci, breaks, degree)


def ump_mean_length(law, thetas, alpha, *, nodes=8, reach=10.0):
    """Exact mean length of the two-sided DP-UMP interval, by Pratt's identity.

    E_theta[U(Z) - L(Z)] = int_0^1 P_theta(v in CI(Z)) dv (Fubini), and v is in the
    interval exactly when the test of H0: theta = v accepts, |Z - n v| < d(v)
    (:meth:`CountLaw.two_sided_half_width`).  So the mean length is
    int_0^1 P_theta(n v - d(v) < Z < n v + d(v)) dv, each integrand value a finite
    sum.  The v-integral uses Gauss-Legendre panels of width sd/2 (sd the standard
    deviation of Z/n) on theta +/- ``reach`` sd, clipped to [0, 1].  The integrand
    has kinks (where n v +/- d(v) crosses a half-integer), so the rule converges
    algebraically: about 1e-6 with 8 nodes at n = 30, against direct quadrature of
    the interval over the law of Z (tests).  Returns (mean lengths, the bound
    ``reach``-sd neglected mass, ~1e-20).
    """
    thetas = np.atleast_1d(np.asarray(thetas, dtype=float))
    n = law.n
    var_noise = float(law.noise.var())
    sd = np.sqrt(thetas * (1 - thetas) / n + var_noise / n**2)
    lo = max(0.0, float(np.min(thetas - reach * np.sqrt(0.25 / n + var_noise / n**2))))
    hi = min(1.0, float(np.max(thetas + reach * np.sqrt(0.25 / n + var_noise / n**2))))
    panels = max(4, int(np.ceil((hi - lo) / (0.5 * float(np.min(sd))))))
    edges = np.linspace(lo, hi, panels + 1)
    u, w = _gauss_legendre01(nodes)
    width = np.diff(edges)
    v = (edges[:-1, None] + width[:, None] * u[None, :]).ravel()
    wv = (width[:, None] * w[None, :]).ravel()
    d = law.two_sided_half_width(v, alpha)
    out = np.empty(thetas.size)
    for i, theta in enumerate(thetas):
        accept = law.cdf(n * v + d, theta) - law.cdf(n * v - d, theta)
        out[i] = accept @ wv
    neglected = np.full(thetas.size, stats.norm.sf(reach) * 2)
    return out, neglected


def interval_cell(cell, seed_sequence):
    """Coverage and mean length of one method's two-sided interval at ``cell['thetas']``.

    cell keys: method, n, epsilon, confidence_level, thetas, mode, reps, n_sim,
    extra; exact-mode options: nodes (Gauss-Legendre nodes per panel), degree
    (Chebyshev degree for the DP-JIMI length).

    Exact mode: Clopper-Pearson and Wald by sums over x; DP-UMP and DP-JIMI (exact
    limit) by the acceptance region [a, b] of each theta (root search on the
    interval's own endpoints) and the exact law of the release, P(a <= T <= b); the
    mean length by quadrature over the exact law (DP-UMP: the interval evaluated at
    every node; DP-JIMI: a piecewise-Chebyshev interpolant of the endpoints, see
    :func:`jimi_endpoint_interpolant`).  The neglected tail mass of the quadrature is
    reported (lengths lie in [0, 1], so it bounds that part of the error).
    """
    method, n, level = cell["method"], cell["n"], cell["confidence_level"]
    thetas = np.asarray(cell["thetas"], dtype=float)
    if cell["mode"] == "exact":
        if method in ("clopper_pearson", "wald"):
            fn = clopper_pearson if method == "clopper_pearson" else wald
            cov, length = nonprivate_ci_coverage(fn, n, thetas, level)
            return [_interval_row(cell, th, c, ln) for th, c, ln in zip(thetas, cov, length)]
        eps = cell["epsilon"]
        law = law_for(method, n, eps)
        ci = _ci_function(method, n, eps, level)
        nodes = cell.get("nodes", 8)
        if method == "dp_ump":
            alpha = 1.0 - level
            # The interval inverts the test rejecting when |Z - n v| >= d(v) (the
            # asymptotically unbiased p-value); its acceptance region brackets the
            # roots of the interval's own endpoints to within 1e-6.
            d = law.two_sided_half_width(thetas, alpha)
            a, b = _acceptance_region(_endpoint_functions(method, n, eps, level), law, thetas,
                                      start=(n * thetas - d, n * thetas + d), width=1e-6)
            mean_length, neglected = ump_mean_length(law, thetas, alpha, nodes=nodes)
        else:
            grid, weights, neglected = law.quadrature(thetas, nodes=nodes)
            lo, hi = law.bracket()
            approx = jimi_endpoint_interpolant(ci, law, level, min(grid.min(), lo),
                                               max(grid.max(), hi), degree=cell.get("degree", 32))
            lengths = np.diff(approx(grid), axis=1)[:, 0]
            # Roots of the interpolated endpoints give 1e-4-wide brackets; the exact
            # roots are then found on the interval function itself.
            start = tuple(bisect_increasing(lambda t, c=c: approx(t)[:, c], thetas, lo, hi)
                          for c in (1, 0))
            a, b = _acceptance_region(_endpoint_functions(method, n, eps, level), law, thetas,
                                      start=start, width=1e-4)
            mean_length = weights @ lengths
        coverage = np.array([law.cdf([bb], th)[0] - law.cdf([aa], th)[0]
                             for aa, bb, th in zip(a, b, thetas)])
        return [_interval_row(cell, th, c, ln, neglected=ng)
                for th, c, ln, ng in zip(thetas, coverage, mean_length, neglected)]
    reps = cell["reps"]
    rows = []
    for theta, ss in zip(thetas, seed_sequence.spawn(thetas.size)):
        data_ss, draw_ss = ss.spawn(2)
        gen = np.random.default_rng(data_ss)
        n_sim = None
        if method in ("clopper_pearson", "wald"):
            fn = clopper_pearson if method == "clopper_pearson" else wald
            intervals = fn(gen.binomial(n, theta, size=reps), n, level)
        else:
            law = law_for(method, n, cell["epsilon"])
            n_sim = cell["n_sim"] if method == "dp_jimi" else None
            ci = _ci_function(method, n, cell["epsilon"], level, n_sim=n_sim,
                              rng=np.random.default_rng(draw_ss))
            intervals = ci(law.sample(gen, theta, reps))
        covers = (intervals[:, 0] <= theta) & (theta <= intervals[:, 1])
        lengths = intervals[:, 1] - intervals[:, 0]
        cov = float(np.mean(covers))
        rows.append(_interval_row(cell, theta, cov, float(np.mean(lengths)),
                                  float(np.sqrt(cov * (1 - cov) / reps)),
                                  float(np.std(lengths, ddof=1) / np.sqrt(reps)), n_sim))
    return rows
