"""Binomial pmf rows in closed form, for the exact operating characteristics behind the warnings.

Package-internal (not in ``dpinfer.__all__``): the Laplace law's direct
:func:`~dpinfer.distributions._laplace_law.count_tail` and randomized response's exact
Wald coverage sum ``Binom(x; n, theta)`` over a block of counts for a few hundred
thetas at once.  ``scipy.stats.binom.pmf`` costs several times more on such blocks;
here each entry is ``exp(log C(n, x) + x log theta + (n - x) log(1 - theta))`` with
``log C(n, x)`` computed once per ``n`` (a public number) and cached.

**Accuracy.**  For ``n <= EXACT_CHOOSE_N``, ``log C(n, x)`` is the correctly rounded
logarithm of the exact integer; above, ``gammaln(n + 1) - gammaln(x + 1) - gammaln(n -
x + 1)``, whose rounding is a few ulps of ``log n!``.  The exponent's rounding is a few
ulps of its largest term, ``n max(|log theta|, |log(1 - theta)|, log n)``, so an entry
is accurate to about ``1e-15`` times that, relative (1e-13 at n = 100, 2e-11 at n =
3000 with theta = 1e-3, 2e-9 at n = 1e6 with theta = 0.1; checked against scipy in
``tests/distributions/test_binomial_rows.py``): far inside the 20% tolerance of the
warning rule, which is all these rows serve.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = []  # package-internal: the names below are imported explicitly

#: Largest n whose log-coefficients are the logarithms of the exact integers.
EXACT_CHOOSE_N = 300

#: Largest n whose log-coefficients are tabled (cached) for every x; above, per entry.
TABLED_CHOOSE_N = 1 << 21


@functools.lru_cache(maxsize=16)
def log_choose(n):
    """``log C(n, x)`` for ``x = 0..n`` (read-only; cached by ``n``, at most ``TABLED_CHOOSE_N``)."""
    if n <= EXACT_CHOOSE_N:
        out = np.array([math.log(math.comb(n, x)) for x in range(n + 1)])
    else:
        from scipy.special import gammaln  # imported on first use (start-up time)

        x = np.arange(n + 1.0)
        out = gammaln(n + 1.0) - gammaln(x + 1.0) - gammaln(n - x + 1.0)
    out.flags.writeable = False
    return out


def binomial_rows(n, theta, x):
    """``Binom(x; n, theta_i)`` for each row ``i``: ``theta`` (m,), ``x`` whole numbers in ``0..n``, (k,) or (m, k).

    ``theta`` in {0, 1} puts all the mass at 0 or n.
    """
    theta = np.asarray(theta, dtype=float)
    x = np.asarray(x, dtype=float)
    if n <= TABLED_CHOOSE_N:
        coef = log_choose(n)[x.astype(np.int64)]
    else:
        from scipy.special import gammaln

        coef = gammaln(n + 1.0) - gammaln(x + 1.0) - gammaln(n - x + 1.0)
    ends = (theta <= 0.0) | (theta >= 1.0)
    inner = np.where(ends, 0.5, theta) if ends.any() else theta  # no log(0) (and no errstate: it is slow)
    out = np.exp(coef + x * np.log(inner)[:, None] + (n - x) * np.log1p(-inner)[:, None])
    if inner is not theta:
        point = np.where(theta[ends] <= 0.0, 0.0, float(n))
        out[ends] = np.where(np.broadcast_to(x, out.shape)[ends] == point[:, None], 1.0, 0.0)
    return out


def bernstein_window(n, theta, tail):
    """``(lo, hi)``: the counts outside ``[lo, hi]`` hold at most ``tail`` of Binomial(n, theta)'s mass on each side.

    Bernstein's inequality, ``P(Y - n theta >= t) <= exp(-t^2 / (2 (v + t/3)))`` and the
    same below, with ``v = n theta (1 - theta)``, at ``t = L/3 + sqrt(L^2/9 + 2 L v)``,
    ``L = log(1 / tail)``: rigorous, within a few counts of the exact quantiles, and no
    scipy call (whose discrete quantile costs more than the sum it bounds).
    """
    theta = np.asarray(theta, dtype=float)
    log_tail = -math.log(tail)
    t = log_tail / 3.0 + np.sqrt(log_tail**2 / 9.0 + 2.0 * log_tail * n * theta * (1.0 - theta))
    lo = np.clip(np.floor(n * theta - t), 0.0, float(n))
    hi = np.clip(np.ceil(n * theta + t), 0.0, float(n))
    return lo, hi
