"""``prop_test`` on a list of sites or of strata: the pooled or the stratified test.

The call shapes, decided from the shape of ``release`` alone (never from values):

* a list of pairs of Releases, ``prop_test([(a1, b1), (a2, b2), ...])``: the two arms of
  each stratum, tested by :func:`~dpinfer.binom_strata_test` (``margin`` the common risk
  difference);
* a list of three or more Releases, ``prop_test([r1, r2, r3])``: sites sharing one
  proportion, tested by :func:`~dpinfer.binom_pooled_test` against ``p0``;
* a list of two Releases stays the two-arm comparison (``prop_test([arm1, arm2])``, as R's
  ``prop.test(c(x1, x2), c(n1, n2))``); ``pooled=True`` makes it two sites of one proportion.

``pooled=False`` with three or more releases is refused (there is no k-arm comparison of
separate releases: release a table), as is ``pooled`` with any other shape.
"""

from __future__ import annotations

from .._validation import _kind_of, _show
from ..releasers.release import Release

__all__ = []  # private module

_NOT_HERE = ("epsilon", "delta", "n_sim", "rng", "two_sided_method", "statistic", "workers")


def _is_pair(item):
    return isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(r, Release) for r in item)


def _shape(release, pooled):
    """``'strata'``, ``'pooled'`` or None (not this module's call)."""
    if pooled is not None and not isinstance(pooled, bool):
        raise TypeError(f"`pooled` must be None, True or False; got {_show(pooled)}.")
    listed = isinstance(release, (list, tuple))
    if listed and release and all(_is_pair(item) for item in release):
        if pooled:
            raise ValueError("`pooled`=True pools sites of one proportion, but `release` holds pairs of arms "
                             "(strata); leave `pooled` out for the stratified comparison.")
        return "strata"
    sites = listed and all(isinstance(r, Release) for r in release)
    if sites and len(release) >= 3:
        if pooled is False:
            raise ValueError(
                f"`release` holds {len(release)} releases and `pooled`=False: prop_test compares two arms, or "
                "pools three or more sites (pooled=None or True). For a comparison of k groups release a table "
                "(ContingencyTableReleaser) and test it.")
        return "pooled"
    if pooled:
        if sites and len(release) == 2:
            return "pooled"
        raise ValueError("`pooled`=True needs a list of Releases, one per site (at least two); got "
                         f"{_kind_of(release)}.")
    return None


def _many_release_test(release, p0, *, pooled, method, alternative, confidence_level, margin, effect,
                       composition, **others):
    """prop_test's answer for several sites or strata, or None for another call shape."""
    shape = _shape(release, pooled)
    if shape is None:
        return None
    given = [f"`{name}`" for name in _NOT_HERE if others.get(name) is not None]
    if method not in (None, "ump"):
        given.append(f"`method`={method!r}")
    if given:
        raise ValueError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to several sites "
                         "or strata: the releases carry their privacy, and the test is exact (method='ump').")
    if shape == "pooled":
        if margin is not None or effect is not None:
            raise ValueError("`margin` and `effect` apply to two arms or strata; sites pooled into one proportion "
                             "are tested against `p0`.")
        from .strata import binom_pooled_test

        return binom_pooled_test(list(release), 0.5 if p0 is None else p0, alternative=alternative,
                                 confidence_level=confidence_level, composition=composition)
    if p0 is not None:
        raise ValueError(f"`p0` does not apply to strata (got {_show(p0)}); the null common risk difference is "
                         "`margin`.")
    if effect not in (None, "difference"):
        raise ValueError(f"effect={effect!r}: the stratified test compares strata on the risk difference only; "
                         "leave `effect` out.")
    from .strata import binom_strata_test

    return binom_strata_test([tuple(pair) for pair in release], 0.0 if margin is None else margin,
                             alternative=alternative, confidence_level=confidence_level, composition=composition)
