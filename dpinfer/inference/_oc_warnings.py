"""The exact operating-characteristic warnings shared by the approximate methods.

One rule, one tolerance, one set of thetas for every ApproximationWarning about an
exact size or coverage (the normal approximation, DP-JIMI's exact limit, the Wald
interval of randomized response); each method supplies only its exact size or its
vectorised exact coverage and the wording of its advice.

**The rule** (Bradley 1978's liberal criterion, as :func:`~dpinfer.binom_normal_test`
has always used it): a test warns when its exact size lies more than
``RATE_TOLERANCE = 0.2`` of alpha away from alpha; an interval warns when its exact
coverage somewhere inside it is below ``level - 0.2 (1 - level)`` (0.94 at 95%).
Intervals warn only when they cover too little.

**The thetas** (:func:`coverage_thetas`).  Coverage is judged at ``G + 1`` evenly
spaced thetas from the interval's low end to its high end, both included, with
``G = min(256, max(32, ceil(4 n (high - low))))``; a zero-length interval is
judged at its one point.  So the search cannot miss a stretch of theta where the
coverage is short that is at least ``(high - low) / G`` long (the stated
resolution): such a stretch holds a grid point.  Whenever ``4 n (high - low) <=
256`` the resolution is ``1/(4n)`` or finer, a quarter of the step of the binomial
lattice on which exact coverage oscillates.  No theta outside the interval is
ever named.  Each method computes its exact coverage at every one of these thetas
in one vectorised call (DP-JIMI solves its rejection cuts at a subset and
interpolates the others where that is checked to move the coverage by less than
1e-6; see ``jimi/_exact.py``).

**Simulated regimes** (:func:`measured_rate_message`).  Where no exact size or
coverage exists (DP-JIMI for means with the spread released), a validation study
measures an error rate in regimes named by public numbers only, and a regime warns
when the measured rate exceeds its nominal value by more than both the tolerance
(20% of it) and ``MC_SE_MULTIPLE = 4`` Monte Carlo standard errors (the house bound
for Monte Carlo checks): beyond what the simulation's own error explains.

**Cost** (a single scalar call, measured on the shared 2-core machine under load):
everything a check needs that depends on public numbers only is computed once and
cached (keys: n, epsilon, level, side; never a release's value): the normal quantiles
of the Wald and score intervals, ``log C(n, x)`` of the closed-form binomial rows
(:mod:`dpinfer.distributions._binomial_rows`) and DP-JIMI's rejection cuts, each a
root of a quadrature, solved once on a fixed grid of [0, 1] with finer pieces where
the spline through them is not checked accurate (``jimi/_exact._cut_table``, about
0.3-0.6 s, built the second time the same public numbers are asked for; a finer piece,
a few milliseconds, the first time a call reaches it).  The exact
sums themselves are closed-form binomial rows against the Laplace law's closed-form
tails (the whole support up to n = 150, Bernstein's window above).  A DP-JIMI
interval at n = 30 then costs about 0.1 ms for its warning (1.4-1.5 times its 1e4
draws alone, all included; ``benchmarks/bench_jimi.py``), a normal-approximation
interval 1-2 ms at n = 30 and 4-10 ms at n = 1000, a randomized-response Wald
interval 0.2 ms at n = 100 and 13 ms at n = 1e5.
"""

from __future__ import annotations

import math

import numpy as np

from .._warnings import ApproximationWarning

__all__ = []  # package-internal

#: Relative tolerance of every size and coverage warning (20% of alpha or of 1 - level).
RATE_TOLERANCE = 0.2

#: Accuracy of the exact coverages behind a warning (about 1e-14): the binomial mass
#: left out in each tail and the Laplace reach (in scales) of the Laplace law's
#: ``count_tail``, passed as keywords.
COUNT_TAIL_ACCURACY = {"tail": 1e-15, "reach": 37.0}

#: Monte Carlo standard errors (at the nominal rate) a measured rate must exceed it by to warn.
MC_SE_MULTIPLE = 4.0

#: Fewest and most intervals of the theta grid of :func:`coverage_thetas`.
MIN_STEPS, MAX_STEPS = 32, 256


def size_message(size, alpha):
    """``None`` when the exact ``size`` is within 20% of ``alpha``, else the clause describing it.

    The clause reads "the exact size of the nominal level-0.05 test is 0.0613, more
    than 20% away from 0.05 (liberal: ...)"; the caller wraps it in its own sentence.
    """
    if abs(size - alpha) <= RATE_TOLERANCE * alpha:
        return None
    kind = "liberal: it rejects a true null too often" if size > alpha else "conservative: it loses power"
    return (f"the nominal level-{alpha:g} test is {size:.4g}, more than {RATE_TOLERANCE:.0%} "
            f"away from {alpha:g} ({kind})")


def measured_rate_message(rate, nominal, reps):
    """``None`` unless a simulated error ``rate`` is beyond the rule above its ``nominal`` value, else the clause.

    Beyond the rule: ``rate > nominal + max(RATE_TOLERANCE nominal, MC_SE_MULTIPLE se)``
    with ``se = sqrt(nominal (1 - nominal) / reps)``, the Monte Carlo standard error of
    a rate measured on ``reps`` simulated data sets when it is nominal.  The clause
    reads "0.047 (Monte Carlo SE 0.0035, 2000 data sets) where 0.025 is nominal, more
    than 4 SE and 20% above it".
    """
    se = math.sqrt(nominal * (1.0 - nominal) / reps)
    if rate <= measured_rate_bar(nominal, reps):
        return None
    return (f"{rate:.3g} (Monte Carlo SE {se:.2g}, {reps} data sets) where {nominal:g} is nominal, more than "
            f"{MC_SE_MULTIPLE:g} SE and {RATE_TOLERANCE:.0%} above it")


def measured_rate_bar(nominal, reps):
    """``nominal + max(RATE_TOLERANCE nominal, MC_SE_MULTIPLE se)``: the rate a measured one must exceed to warn."""
    se = math.sqrt(nominal * (1.0 - nominal) / reps)
    return nominal + max(RATE_TOLERANCE * nominal, MC_SE_MULTIPLE * se)


def coverage_floor(confidence_level):
    """``level - 0.2 (1 - level)``: the coverage below which an interval warns."""
    return confidence_level - RATE_TOLERANCE * (1.0 - confidence_level)


def coverage_thetas(low, high, n):
    """The thetas at which an interval ``[low, high]`` is judged: ``(thetas, resolution)``.

    ``G + 1`` evenly spaced values from ``low`` to ``high`` (see the module notes);
    ``resolution = (high - low) / G`` (0 for a zero-length interval, judged at its
    one point).
    """
    low, high = float(low), float(high)
    width = high - low
    if not width > 0.0:
        return np.array([low]), 0.0
    steps = int(min(MAX_STEPS, max(MIN_STEPS, math.ceil(4.0 * n * width))))
    thetas = np.linspace(low, high, steps + 1)
    thetas[-1] = high
    return thetas, width / steps


def hull(lows, highs):
    """The hull ``(min low, max high)`` of one or more intervals."""
    return float(np.min(lows)), float(np.max(highs))


def worst_coverage(coverage, lows, highs, n, confidence_level):
    """Judge an interval (or the hull of several) by its exact coverage over its thetas.

    ``coverage(thetas)`` returns the exact coverage at each theta of the array
    (vectorised).  Returns ``None`` when it is at least :func:`coverage_floor`
    everywhere on :func:`coverage_thetas`, else ``(theta, coverage)`` at the
    smallest value found.  Values the caller cannot compute may be NaN (skipped).
    """
    thetas, _ = coverage_thetas(*hull(lows, highs), n)
    values = np.asarray(coverage(thetas), dtype=float)
    missing = np.isnan(values)
    if missing.all():
        return None
    worst = int(np.nanargmin(values) if missing.any() else np.argmin(values))
    if values[worst] >= coverage_floor(confidence_level):
        return None
    return float(thetas[worst]), float(values[worst])


def coverage_message(what, theta, value, confidence_level, advice, *, name="theta"):
    """The :class:`~dpinfer.ApproximationWarning` for an interval covering ``value`` at ``theta``.

    ``what`` opens the sentence ("The Wald interval covers too little here: for n =
    30 and epsilon = 1 its exact coverage"); ``advice`` closes it.  Each is a string
    or a tuple of message parts (text and the names of ``dpinfer._validation``), so
    the command can spell the names it mentions as options.
    """
    shortfall = RATE_TOLERANCE * (1.0 - confidence_level)
    middle = (f" at {name} = {theta:.4g}, inside the interval, is {value:.4g}, below the "
              f"nominal {confidence_level:g} by more than {shortfall:.3g} "
              f"({RATE_TOLERANCE:.0%} of 1 - level). ")
    return ApproximationWarning(*_parts(what), middle, *_parts(advice))


def _parts(message):
    return (message,) if isinstance(message, str) else tuple(message)
