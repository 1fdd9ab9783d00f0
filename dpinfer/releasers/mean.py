"""Release the clipped sum (and optionally the centred sum of squares) of one group's values."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _mechanisms
from .._exact_noise import _discrete_laplace
from .._validation import (
    DPInferValueError,
    _arg,
    _check_epsilon,
    _check_probability,
    _check_real,
    _data_array,
    _show,
)
from ..budget._charging import charge_release
from ..distributions._mean_grid import release_grid, split_epsilons
from ._secure_path import _MIN_EPSILON, _bit_source, _check_output_range
from .release import Release

__all__ = ["MeanReleaser"]


@dataclass(frozen=True)
class MeanReleaser:
    """The clipped sum of one group's values, with exact discrete Laplace noise.

    Each value is clipped to the public bounds ``[lower, upper]`` and the clipped
    values are summed; the sum is released with Laplace noise of scale
    ``(upper - lower) / epsilon``.  With ``spread=True`` the centred sum of
    squares ``sum (clip(x_i) - m)**2`` (``m = (lower + upper) / 2``) is released
    too, for a spread that is not known, and the budget is split between them.

    Parameters
    ----------
    epsilon : float
        Privacy-loss parameter of the whole release (both statistics), > 0.
    lower, upper : float
        The public clipping bounds, finite, ``lower < upper``.  Choose them
        before seeing the data (from the protocol, the measurement range): a
        value outside is moved to the nearer bound, which biases the clipped
        mean; :func:`~dpinfer.mean_test` models that bias, a naive interval does
        not.
    spread : bool, default False
        Also release the centred sum of squares (for an unknown standard
        deviation).
    split : float, default 0.5
        With ``spread=True``: the share of ``epsilon`` spent on the sum; the sum
        of squares gets ``1 - split``.  In (0, 1).  Recorded in the release.

    Notes
    -----
    **Guarantee.**  epsilon-differential privacy (delta = 0); the unit of
    privacy is one person's value under *replace-one*, with ``n`` and the bounds
    public.  Replacing one value moves the clipped sum by at most ``upper -
    lower`` (the sensitivity) and the centred sum of squares by at most ``h**2``,
    ``h = (upper - lower) / 2``; the two statistics, released with
    ``split * epsilon`` and ``(1 - split) * epsilon``, compose sequentially to
    ``epsilon`` (Dwork & Roth 2014, Thms. 3.6 and 3.16).  Two groups (arms) are
    two releases: charge them to a ``budget.parallel(label).group(arm)`` handle
    when the groups are disjoint and fixed in advance (parallel composition: the
    ledger records one entry per arm and the set costs the larger), or to the
    budget itself (sequential: the ledger records two entries that add up).

    **Exact on a grid.**  Each clipped value is mapped, by a function of that
    value alone, to an integer ``u_i = rint((clip(x_i) - lower) / (upper -
    lower) * 2**g)`` in ``[0, 2**g]`` (and ``v_i = rint(((clip(x_i) - m) /
    h)**2 * 2**g)`` for the squares), so neighbouring data sets give integer
    sums at most ``2**g`` apart, exactly.  Discrete Laplace noise of ratio
    ``exp(-epsilon_k / 2**g)`` per step is added in 64-bit integers (``g`` as
    for a count out of ``n``, :mod:`dpinfer.distributions._laplace_grid`), and the
    released sum is ``n lower + (upper - lower) T / 2**g`` (squares: ``h**2 T2
    / 2**g``), computed from the noisy integer ``T`` alone: the set of possible
    outputs does not depend on the data.  The grid moves each value by at most
    ``(upper - lower) 2**-(g+1)``, and the discrete noise's cdf is within
    ``epsilon / 2**(g+2)`` of the continuous Laplace cdf that DP-JIMI and the
    naive interval assume; the repro-samples method simulates this released law
    itself (``distributions._mean_grid.ReleaseGrid``: the same grid, map and noise sampler).
    The budget is charged before anything is drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser
    >>> x = np.random.default_rng(1).normal(120.0, 15.0, size=50)
    >>> rel = MeanReleaser(1.0, lower=80.0, upper=180.0).release(x, rng=7)
    >>> rel.kind, rel.n, rel.sensitivity, rel.bounds
    ('clipped_sum', 50, 100.0, (80.0, 180.0))
    >>> both = MeanReleaser(1.0, 80.0, 180.0, spread=True).release(x, rng=7)
    >>> both.value.shape, both.split
    ((2,), (0.5, 0.5))
    """

    def _semantics(self, method):
        """The guarantee this releaser declares (its Release and its ledger entry both read it)."""
        return _mechanisms.Semantics(_mechanisms.LAPLACE, _mechanisms.REPLACE_ONE, _mechanisms.MEAN_UNIT)

    epsilon: float
    lower: float
    upper: float
    spread: bool = False
    split: float = 0.5

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        lower, upper = _check_real(self.lower, "lower"), _check_real(self.upper, "upper")
        if not lower < upper:
            raise ValueError(f"`lower` must be below `upper`; got lower = {lower!r}, upper = {upper!r}.")
        width = upper - lower
        if not (1e-150 <= width and math.isfinite(0.5 * width * (0.5 * width))):
            raise ValueError(f"`upper` - `lower` must be a finite range between 1e-150 and 1e154 (the squares' "
                             f"sensitivity, the range squared over 4, must be a normal double); got lower = "
                             f"{lower!r}, upper = {upper!r}.")
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)
        if not isinstance(self.spread, (bool, np.bool_)):
            raise TypeError(f"`spread` must be True or False; got {_show(self.spread)}.")
        object.__setattr__(self, "spread", bool(self.spread))
        split = _check_probability(self.split, "split", open_low=True, open_high=True)
        object.__setattr__(self, "split", split)
        if self.spread and min(self._epsilons()) < _MIN_EPSILON:
            # Refused here, naming what the user gave, not at release with a share they never typed.
            raise DPInferValueError(
                _arg("split"), f" must leave each of the sum and the squares an epsilon of at least "
                f"{_MIN_EPSILON:g} (split * epsilon and (1 - split) * epsilon, whose noise must fit 64-bit "
                f"integers); got split = {split!r} with epsilon = {self.epsilon!r}.")

    @property
    def sensitivity(self):
        """``upper - lower``: the largest change of the clipped sum when one value is replaced."""
        return self.upper - self.lower

    def _epsilons(self):
        """The epsilons of the sum and of the squares, rounded down so that they add to at most epsilon."""
        return split_epsilons(self.epsilon, self.split if self.spread else None)

    def release(self, x, *, rng=None, secure=None, budget=None, array=None):
        """Release the clipped sum of ``x`` (and its centred sum of squares with ``spread=True``).

        Parameters
        ----------
        x : array_like
            The group's values (confidential), a 1-d array of ``n`` finite
            numbers; ``n`` is public (it is recorded).  A 2-d array holds one
            data set per row (``k`` data sets of ``n`` values, as in a simulation).
        rng : None, int, SeedSequence or numpy.random.Generator
            ``None`` (the default): the hardened path (operating system's
            cryptographic source).  A seed or generator: the seeded research path
            (reproducible, hence predictable).  Both draw the same law.
        secure : bool or None, default None
            As in :meth:`LaplaceReleaser.release <dpinfer.LaplaceReleaser.release>`.
        budget : PrivacyBudget or budget handle, optional
            Charged ``epsilon`` (both statistics together) before any noise is drawn.
        array : {None, 'separate', 'disjoint'}
            Required with a budget and a 2-d ``x`` of more than one row (as in
            :meth:`LaplaceReleaser.release <dpinfer.LaplaceReleaser.release>`).

        Returns
        -------
        Release
            ``mechanism='laplace'``, ``kind='clipped_sum'``, ``n``, ``sensitivity =
            upper - lower``, ``bounds = (lower, upper)``; ``value`` the noisy
            clipped sum (a float, or shape ``(k,)`` for ``k`` rows), or with
            ``spread=True`` the pair (sum, centred sum of squares) on the last axis
            and ``split = (split, 1 - split)``.

        Raises
        ------
        ValueError
            Non-finite values (the message names the position, never the value),
            an empty ``x``, or more than 3 dimensions.
        """
        data = _data_array(x, "x")
        if data.ndim not in (1, 2):
            raise DPInferValueError(_arg("x"), f" must be a 1-d array (one group) or 2-d (one data set per row); "
                                    f"got an array of shape {data.shape}.")
        n = data.shape[-1]
        rows = data.shape[:-1]
        grid = release_grid(self.epsilon, self.lower, self.upper, n, self.split if self.spread else None)
        epsilons = grid.epsilons
        bits = _bit_source(secure, rng, min(epsilons))
        for e, scale in zip(epsilons, (self.sensitivity, 0.25 * self.sensitivity * self.sensitivity)):
            _check_output_range(n + abs(self.lower) / self.sensitivity * n, e, scale)
        what = "release" if not self.spread else f"release (sum and squares, epsilon split {self.split:g})"
        charge = charge_release(budget, self, what, shape=rows, array=array, n=n, rng=rng,
                                secure=bits.hardened, sensitivity=self.sensitivity,
                                grid=self.sensitivity * 2.0**-grid.g)
        clipped = np.clip(data, self.lower, self.upper)
        units = [grid.units(clipped, 0)] + ([grid.units(clipped, 1)] if self.spread else [])
        values = []
        for k, u in enumerate(units):
            total = u.sum(axis=-1).reshape(-1)  # <= n 2**g < 2**61: exact in int64
            noise = _discrete_laplace(bits, grid.lams[k], total.size)
            values.append(grid.values(total + noise, k).reshape(rows))
        value = values[0] if not self.spread else np.stack(values, axis=-1)
        return Release(value, charge.mechanism, self.epsilon, 0.0, self.sensitivity, n, "clipped_sum",
                       secure=bits.hardened, **charge.fields,
                       bounds=(self.lower, self.upper),
                       split=(self.split, 1.0 - self.split) if self.spread else None)
