"""The DP-JIMI fiducial draws themselves, from which any functional can be computed.

:func:`binom_jimi_sample` and :func:`binom2_jimi_sample` return the fiducial
sample that :func:`~dpinfer.binom_jimi_ci` / :func:`~dpinfer.binom_jimi_test`
(and their two-sample versions) summarise, drawn by the same kernel from the
same stream: with the same ``n_sim`` and ``rng`` the interval is exactly a pair
of order statistics of these draws and the p-value a share of them.  This is
what the ``fima`` R package's functions return (a vector of ``H`` fiducial
draws, summarised afterwards by ``fima_infer``).
"""

from __future__ import annotations

import numpy as np

from ..._streams import _stream
from . import _kernels as _k
from .._resolve import resolve
from ._common import ACCEPTS, _check_jimi_n_sim, _proportions
from ._two_sample import _pair, _pair_stream, _spawn_pair

__all__ = ["binom2_jimi_sample", "binom_jimi_sample"]


def binom_jimi_sample(pi_hat, n=None, *, epsilon=None, kind=None, n_sim=10_000, rng=None):
    """Fiducial (DP-JIMI) draws of a proportion from one Laplace release.

    Parameters
    ----------
    pi_hat : float or Release
        One released proportion ``X / n + Laplace(0, 1 / (epsilon n))`` (not
        clamped), or with ``kind='count'`` one released count; or a
        :class:`~dpinfer.Release` from :meth:`LaplaceReleaser.proportion
        <dpinfer.LaplaceReleaser.proportion>` or ``.count``, which supplies
        ``n``, ``epsilon`` and the kind.
    n : int, optional
        Number of records (public), required for a plain number.
    epsilon : float, optional
        Privacy-loss parameter of the release, required for a plain number.
    kind : {None, 'proportion', 'count'}, default None
        What a plain number is (as in :func:`~dpinfer.binom_jimi_ci`).
    n_sim : int, default 10_000
        Number of draws, at most 10 000 000: the limit is checked before
        anything is allocated (the rule of :func:`~dpinfer.binom_jimi_ci`;
        about 40 bytes per draw while drawing).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of the draws (numpy's PCG64).  The same seed gives the draws
        :func:`~dpinfer.binom_jimi_ci` and :func:`~dpinfer.binom_jimi_test`
        use with the same ``n_sim``; None (the default) the stream they derive
        from the public release and ``n_sim``.

    Returns
    -------
    ndarray of shape (n_sim,)
        The draws ``theta*_h`` in [0, 1], in the order drawn (not sorted).

    Raises
    ------
    TypeError, ValueError
        As :func:`~dpinfer.binom_jimi_ci`; also for an array of releases (draw
        them one at a time) and for ``n_sim=None`` (the exact limit has no
        finite sample: use :func:`~dpinfer.binom_jimi_ci` with ``n_sim=None``).

    See Also
    --------
    binom_jimi_ci, binom_jimi_test : the interval and test summarising these draws.
    binom2_jimi_sample : draws for two independent releases.

    Notes
    -----
    **Draws.**  With ``scale = 1 / (epsilon n)``: ``pi*_h = pi_hat - L*_h``,
    ``L*_h ~ Laplace(0, scale)`` fresh per draw; ``theta*_h = 0`` if ``pi*_h <= 0``,
    ``1`` if ``pi*_h >= 1``, else ``theta*_h ~ Beta(n pi*_h + 1/2, n (1 -
    pi*_h) + 1/2)`` (Romanus, Boulaguiem & Molinari 2025; see
    :func:`~dpinfer.binom_jimi_ci` for the fiducial selection rule).

    **Consistency.**  For the same ``n_sim`` and ``rng``,
    ``binom_jimi_ci(...)`` with tail ``a`` on each side is ``[d_(k), d_(n_sim + 1 -
    k)]`` with ``d`` the sorted draws and ``k = ceil(a n_sim)``, and
    ``binom_jimi_test(..., alternative='greater').pvalue`` is ``mean(d <=
    p0)`` (checked to the bit in the test suite).  Any other functional (the
    odds ``theta / (1 - theta)``, a posterior-like probability ``P(theta >
    0.3)``, a highest-density interval) is computed from the same sample.

    **Compared with fima.**  The ``fima`` R package's ``fima_prop(dp_stat, n,
    eps, delta, H, seed)`` also returns the vector of ``H`` draws, by the same
    Laplace-then-Beta recipe; it differs in three ways: (i) where ``pi*`` falls
    outside (0, 1) it returns ``.Machine$double.eps`` or ``1 -
    .Machine$double.eps`` instead of the point masses 0 and 1 used here (and by
    the exact limit of :func:`~dpinfer.binom_jimi_ci`), which matters only for
    functionals such as the log-odds, finite there and infinite here; (ii) its
    ``delta`` argument is the sensitivity, taken here from the release; (iii) it
    re-seeds R's global generator with ``seed`` at every call, while ``rng``
    here is a local numpy generator (no global state).

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import LaplaceReleaser, binom_jimi_ci, binom_jimi_sample
    >>> rel = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=7)
    >>> draws = binom_jimi_sample(rel, n_sim=10_000, rng=1)
    >>> draws.shape
    (10000,)
    >>> d = np.sort(draws)
    >>> ci = binom_jimi_ci(rel, n_sim=10_000, rng=1)          # same seed, same draws
    >>> (ci.low, ci.high) == (d[249], d[10_000 - 250])
    True
    >>> odds = draws / (1 - draws)                              # any functional
    >>> bool(np.median(odds) > 0)
    True
    """
    rec = resolve(pi_hat, n, epsilon=epsilon, kind=kind, accepts=ACCEPTS, method="binom_jimi_sample",
                  name="pi_hat")
    pi_hat, n, epsilon, scalar = _proportions(rec, "pi_hat"), rec.n, rec.epsilon, rec.scalar
    if not scalar:
        raise ValueError(
            f"`pi_hat` must be one released value; got an array of shape {pi_hat.shape}. "
            "Draw for the releases one at a time (each call returns n_sim draws).")
    n_sim = _draws_n_sim(n_sim, "binom_jimi_ci")
    gen, _ = _stream(rng, "binom_jimi", pi_hat, n, epsilon, n_sim)
    # the same kernel, stream and block as binom_jimi_ci / binom_jimi_test for one release
    return _k._draw_theta(gen, pi_hat.reshape(1), n, epsilon, n_sim)[0]


def binom2_jimi_sample(pi_hat1, n1=None, pi_hat2=None, n2=None, *, epsilon=None,
                       kind1=None, kind2=None, n_sim=10_000, rng=None):
    """Fiducial (DP-JIMI) draws of two proportions from two independent Laplace releases.

    Parameters
    ----------
    pi_hat1, n1, pi_hat2, n2, epsilon, kind1, kind2
        The two releases, as in :func:`~dpinfer.binom2_jimi_ci` (one value
        each).
    n_sim : int, default 10_000
        Number of draws per group, at most 10 000 000 (checked before
        allocation).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of the draws; each group draws from its own stream spawned from
        it, as in :func:`~dpinfer.binom2_jimi_ci`; None (the default) derives it
        from the public releases and ``n_sim``, as that function does.

    Returns
    -------
    ndarray of shape (n_sim, 2)
        Column 0 the draws of ``theta1``, column 1 those of ``theta2``
        (independent: the fiducial law is the product of the groups' laws).
        The pairs, not just their difference, are returned, so that the
        difference ``d[:, 0] - d[:, 1]``, the ratio and the odds ratio all come
        from one sample.

    Raises
    ------
    TypeError, ValueError
        As :func:`~dpinfer.binom2_jimi_ci`; also for arrays of releases and for
        ``n_sim=None``.

    See Also
    --------
    binom2_jimi_ci, binom2_jimi_test : the interval and test of the difference.
    binom_jimi_sample : one release.

    Notes
    -----
    For the same ``n_sim`` and ``rng``, ``binom2_jimi_ci`` is the pair of order
    statistics of ``d[:, 0] - d[:, 1]`` (ranks as in
    :func:`binom_jimi_sample`), checked to the bit in the test suite.  The
    ``fima`` R package's ``fima_2prop`` returns only the differences, with the
    groups seeded by ``seed + 1`` and ``seed + 2`` of R's global generator (and,
    in one version read, ``eps / 2`` per group); here each release keeps its own
    ``epsilon`` and the streams are spawned from one ``SeedSequence``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import LaplaceReleaser, binom2_jimi_sample
    >>> r1 = LaplaceReleaser(epsilon=1.0).proportion(30, 40, rng=1)
    >>> r2 = LaplaceReleaser(epsilon=1.0).proportion(10, 40, rng=2)
    >>> d = binom2_jimi_sample(r1, pi_hat2=r2, rng=3)
    >>> d.shape
    (10000, 2)
    >>> odds_ratio = (d[:, 0] / (1 - d[:, 0])) / (d[:, 1] / (1 - d[:, 1]))
    >>> bool(np.median(odds_ratio) > 1)
    True
    """
    r1, r2, p1, p2, scalar = _pair(pi_hat1, pi_hat2, n1, n2, epsilon, kind1, kind2, "binom2_jimi_sample")
    n1, e1, n2, e2 = r1.n, r1.epsilon, r2.n, r2.epsilon
    if not scalar:
        raise ValueError(
            f"`pi_hat1` and `pi_hat2` must be one released value each; got shapes {np.shape(p1)} and "
            f"{np.shape(p2)}. Draw for the pairs one at a time.")
    n_sim = _draws_n_sim(n_sim, "binom2_jimi_ci")
    g1, g2 = _spawn_pair(_pair_stream(rng, p1, n1, e1, p2, n2, e2, n_sim)[0])  # binom2_jimi_ci's streams
    out = np.empty((n_sim, 2))
    out[:, 0] = _k._draw_theta(g1, np.reshape(p1, 1), n1, e1, n_sim)[0]
    out[:, 1] = _k._draw_theta(g2, np.reshape(p2, 1), n2, e2, n_sim)[0]
    return out


def _draws_n_sim(n_sim, exact_function):
    """``n_sim`` for draws: a positive int within the limit (None has no finite sample)."""
    if n_sim is None:
        raise ValueError(
            "`n_sim` must be a positive integer (the number of draws); got None. The exact "
            f"infinite-draw limit has no finite sample: call {exact_function}(..., n_sim=None) for it.")
    return _check_jimi_n_sim(n_sim, allow_none=False)
