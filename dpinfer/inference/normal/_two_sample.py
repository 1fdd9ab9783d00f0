"""The two-sample normal-approximation test for a difference of Laplace-noised proportions."""

from __future__ import annotations

import math

import numpy as np

from ..._printing import _released
from ..._validation import _check_alternative, _check_confidence_level
from ...results import ConfidenceInterval, HTestResult
from ._kernels import (
    ACCEPTS,
    _METHOD_TWO,
    _check_one_sided_level,
    _noise_var,
    _one_sided_z,
    _proportions,
    _pvalue_from_z,
    _two_sided_z,
)
from .._curves import WaldCurve
from .._resolve import arm_pair, composed, provenance, release_first, resolve

__all__ = [
    "binom2_normal_test",
]


@release_first(skip=("n1", "n2"))
def binom2_normal_test(pi_hat1, n1=None, pi_hat2=None, n2=None, *, epsilon=None,
                       alternative="two-sided", confidence_level=0.95, composition=None):
    """Normal-approximation test of ``theta1 = theta2`` for two Laplace-noised proportions.

    Parameters
    ----------
    pi_hat1, pi_hat2 : float, array_like or Release
        The two released (noisy, unclamped) proportions, independent samples.
        Arrays are broadcast against each other.  Either may be a Laplace
        proportion/count Release (then its ``n`` and ``epsilon`` come from it and
        must not be given: ``binom2_normal_test(rel1, pi_hat2=rel2)``).
    n1, n2 : int
        Sample sizes (>= 1, public).
    epsilon : float or (float, float)
        Privacy-loss parameters of the two releases, > 0: one value for both or a
        pair ``(epsilon_1, epsilon_2)``, as :func:`~dpinfer.binom2_ump_test` takes
        it (each release has its own noise variance ``2/(epsilon_i n_i)^2``).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        About ``theta1 - theta2`` relative to 0.
    confidence_level : float, default 0.95
        Level of the interval for ``theta1 - theta2`` in ``conf_int`` (at least
        0.5 for a one-sided alternative).
    composition : {None, 'sequential', 'parallel'}, default None
        How the two releases' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation).  The rule of every method (see :func:`~dpinfer.prop_test`).

    Returns
    -------
    HTestResult or ndarray
        For scalar inputs an :class:`~dpinfer.HTestResult`: ``statistic`` (z),
        ``pvalue``, ``null_value`` (0), ``estimate`` (``pi_hat1 - pi_hat2`` clipped to
        [-1, 1], the centre of the interval, so the estimate always lies inside
        it), ``conf_int`` (unpooled Wald interval for
        ``theta1 - theta2``), ``epsilon`` and ``delta`` (the two releases'
        together, by ``composition``),
        ``statistic_name='z'``, ``estimate_name`` and ``null_name``
        ``'difference in proportions'``.  For array inputs, the array of p-values.

    Raises
    ------
    TypeError
        If an argument has the wrong type or a required one is missing.
    ValueError
        If an argument is out of range, the arrays do not broadcast, or a Release
        does not fit.

    See Also
    --------
    binom_normal_test : one proportion.

    Notes
    -----
    With ``pbar = (n1 pi_hat1 + n2 pi_hat2)/(n1 + n2)`` clipped to [0, 1] (the pooled
    estimate under ``H0: theta1 = theta2``),
    ``sd0 = sqrt(pbar (1 - pbar)(1/n1 + 1/n2) + 2/(epsilon_1 n1)^2 + 2/(epsilon_2 n2)^2)``
    and ``z = (pi_hat1 - pi_hat2)/sd0``, referred to the standard normal.

    The interval is the unpooled Wald interval
    ``pi_hat1 - pi_hat2 +- z sqrt(pc1 (1 - pc1)/n1 + pc2 (1 - pc2)/n2 + 2/(epsilon_1 n1)^2
    + 2/(epsilon_2 n2)^2)`` with ``pci`` the clipped proportions, clipped to
    [-1, 1] (collapsing to -1 or 1 when entirely outside).  It is not the exact
    inversion of the pooled test, so near the boundary the two can disagree (as in
    R's ``prop.test``, whose interval is not the inversion of its test either).
    ``result.plot()`` therefore draws the confidence curve of the Wald interval (the
    unpooled z test at each margin, whose inversion is the printed interval); at the
    null it gives the Wald p-value, not the printed pooled one (in the example below
    0.0409 against 0.0435).

    No ApproximationWarning is raised: the size depends on the unknown common
    proportion and the rejection region (through ``pbar``) is not a half-plane,
    so there is no one-dimensional exact sum; assess it by simulation.

    *Privacy.*  The test spends nothing; the result records what the two
    releases spent together: ``epsilon_1 + epsilon_2`` (sequential composition,
    valid under any neighbouring relation) unless the releases record disjoint
    groups of one budget, or ``composition='parallel'`` states them:
    ``max(epsilon_1, epsilon_2)``.

    Checked against a hand derivation in the tests and, for large epsilon,
    against statsmodels' pooled two-proportion z test and Wald interval.

    Examples
    --------
    >>> from dpinfer import binom2_normal_test
    >>> res = binom2_normal_test(0.62, 80, 0.45, 75, epsilon=1.0)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (2.019, 0.0435)
    >>> print(res.conf_int)
    95 percent confidence interval: [0.007039213, 0.332960787]
    """
    if pi_hat2 is None:
        raise TypeError("`pi_hat2` is required (the second released proportion or its Release); got None.")
    eps1, eps2 = arm_pair(epsilon, "epsilon")
    names = {"epsilon": "epsilon"}  # one epsilon argument, a value or a pair
    r1 = resolve(pi_hat1, n1, epsilon=eps1, accepts=ACCEPTS, method="binom2_normal_test", name="pi_hat1", suffix="1",
                 names=names)
    v1, n1, e1, rel1 = _proportions(r1, "pi_hat1", "1"), r1.n, r1.epsilon, r1.from_release
    r2 = resolve(pi_hat2, n2, epsilon=eps2, accepts=ACCEPTS, method="binom2_normal_test", name="pi_hat2",
                 suffix="2", names=names)
    v2, n2, e2, rel2 = _proportions(r2, "pi_hat2", "2"), r2.n, r2.epsilon, r2.from_release
    alternative = _check_alternative(alternative)
    confidence_level = _check_confidence_level(confidence_level)
    _check_one_sided_level(confidence_level, alternative)
    composition, epsilon, delta = composed(composition, (r1, r2))
    try:
        v1, v2 = np.broadcast_arrays(v1, v2)
    except ValueError as exc:
        raise ValueError(
            f"`pi_hat1` and `pi_hat2` must have broadcastable shapes; got {v1.shape} and {v2.shape}."
        ) from exc

    noise = _noise_var(n1, e1) + _noise_var(n2, e2)
    pbar = np.clip((n1 * v1 + n2 * v2) / (n1 + n2), 0.0, 1.0)
    sd0 = np.sqrt(pbar * (1.0 - pbar) * (1.0 / n1 + 1.0 / n2) + noise)
    diff = v1 - v2
    z = diff / sd0
    pvalue = _pvalue_from_z(z, alternative)
    if diff.ndim > 0:
        return pvalue

    pc1, pc2 = np.clip(v1, 0.0, 1.0), np.clip(v2, 0.0, 1.0)
    se = math.sqrt(pc1 * (1.0 - pc1) / n1 + pc2 * (1.0 - pc2) / n2 + noise)
    if alternative == "two-sided":
        half = _two_sided_z(confidence_level) * se
        low, high = diff - half, diff + half
    elif alternative == "greater":
        low, high = diff - _one_sided_z(confidence_level) * se, 1.0
    else:
        low, high = -1.0, diff + _one_sided_z(confidence_level) * se
    low, high = float(np.clip(low, -1.0, 1.0)), float(np.clip(high, -1.0, 1.0))
    if rel1 or rel2:
        data_name = f"Laplace releases: pi_hat1 = {_released(v1)}, n1 = {n1}; pi_hat2 = {_released(v2)}, n2 = {n2}"
    else:
        data_name = f"pi_hat1 = {_released(v1)}, n1 = {n1}; pi_hat2 = {_released(v2)}, n2 = {n2}"
    return HTestResult(
        statistic=float(z),
        pvalue=float(pvalue),
        null_value=0.0,
        alternative=alternative,
        method=_METHOD_TWO,
        estimate=float(np.clip(diff, -1.0, 1.0)),
        estimate_raw=float(diff),
        conf_int=ConfidenceInterval(low, high, confidence_level),
        epsilon=epsilon,
        delta=delta,
        data_name=data_name,
        statistic_name="z",
        estimate_name="difference in proportions",
        null_name="difference in proportions",
        mechanism=r1.mechanism,
        **provenance(r1, r2),
        composition=composition,
        pvalue_function=WaldCurve(diff, se, alternative),
    )
