"""``prop_test`` on two releases: the two-arm test that fits their mechanism.

R's ``prop.test(c(x1, x2), c(n1, n2))`` compares two proportions.  Its private
counterpart is :func:`~dpinfer.prop_test` called with two releases
(``prop_test(a, b)`` or ``prop_test([a, b])``) or two released values with their
sizes (``prop_test([z1, z2], [n1, n2], epsilon=...)``).  This module decides which
two-arm function answers, from the releases' public mechanism only, and adds no
statistics of its own:

* two Tulap counts: :func:`~dpinfer.binom2_ump_test`, the exact unconditional test
  (``method=None`` or ``'ump'``);
* two Laplace counts or proportions: the same exact test for their grid law by default
  (``method=None`` or ``'ump'``); ``method='jimi'`` gives DP-JIMI
  (:func:`~dpinfer.binom2_jimi_test`, approximate size, draws from a stream derived from
  the releases) and ``method='normal'`` :func:`~dpinfer.binom2_normal_test`;
* anything else (a mixed pair, local-DP reports, tables) is refused with the reason.
"""

from __future__ import annotations

import numbers

from .._validation import _check_choice, _kind_of, _show
from ..releasers.release import Release

__all__ = []  # private module

_TWO_ARM_ONLY = ("epsilon", "delta", "effect", "margin", "composition", "statistic")


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _two_arms(release, p0):
    """``(arm 1, arm 2, (n1, n2) or None)`` when prop_test was given two arms, else None."""
    if isinstance(release, Release) and isinstance(p0, Release):
        return release, p0, None
    if not isinstance(release, (list, tuple)):
        return None
    if len(release) != 2 or not all(isinstance(r, Release) or _is_number(r) for r in release):
        raise ValueError(
            "`release` given as a list must hold two releases (prop_test([arm1, arm2])) or two released "
            "values with their sizes (prop_test([z1, z2], [n1, n2], epsilon=...)); got "
            f"{_kind_of(release)}. prop_test compares two arms; for more groups release a table "
            "(ContingencyTableReleaser) and test it.")
    first, second = release
    if isinstance(first, Release) and isinstance(second, Release):
        if p0 is not None:
            raise ValueError(
                f"`p0` does not apply to two releases (got {_show(p0)}); the null difference (or ratio) "
                "of two arms is `margin`, e.g. prop_test([arm1, arm2], margin=-0.1, alternative='greater').")
        return first, second, None
    if isinstance(first, Release) or isinstance(second, Release):
        raise TypeError("`release` must hold two Releases or two numbers, not one of each; got "
                        f"{type(first).__name__} and {type(second).__name__}.")
    if not (isinstance(p0, (list, tuple)) and len(p0) == 2):
        raise TypeError(
            "`p0` must be the two arms' sizes [n1, n2] when `release` holds two released values, as R's "
            f"prop.test(c(x1, x2), c(n1, n2)): prop_test([z1, z2], [n1, n2], epsilon=...); got {_show(p0)}.")
    return first, second, tuple(p0)


def _refuse_one_arm_extras(extras):
    """Two-arm settings given to a one-release prop_test are refused, never ignored."""
    given = [name for name in _TWO_ARM_ONLY if extras.get(name) is not None]
    if given:
        raise ValueError(
            f"{', '.join(f'`{g}`' for g in given)} {'applies' if len(given) == 1 else 'apply'} to two arms (prop_test(arm1, arm2) or "
            "prop_test([z1, z2], [n1, n2], epsilon=...)); a single Release carries its own privacy "
            "parameters and is tested against `p0`.")


def _mechanism_of(first, second, ns, method):
    """``'tulap'`` or ``'laplace'``: the pair's common mechanism (numbers: by ``method``)."""
    if ns is not None:
        return "tulap" if method in (None, "ump") else "laplace"
    kinds = {(r.mechanism, r.kind) for r in (first, second)}
    if kinds == {("tulap", "count")}:
        return "tulap"
    if kinds <= {("laplace", "proportion"), ("laplace", "count")}:
        return "laplace"
    got = " and ".join(f"a {r.mechanism} release of kind {r.kind!r}" for r in (first, second))
    raise ValueError(
        f"prop_test compares two arms released by the same mechanism: two Tulap counts or two Laplace "
        f"proportions or counts (exact test, binom2_ump_test; for Laplace also binom2_jimi_test, "
        f"binom2_normal_test); got {got}.")


def _two_release_test(release, p0, *, method, alternative, confidence_level, two_sided_method,
                      n_sim, rng, epsilon, delta, effect, margin, composition, statistic=None, workers=None):
    """prop_test's answer for two arms (see the module docstring), or None for one release."""
    arms = _two_arms(release, p0)
    if arms is None:
        _refuse_one_arm_extras(dict(epsilon=epsilon, delta=delta, effect=effect, margin=margin,
                                    composition=composition, statistic=statistic))
        return None
    first, second, ns = arms
    for i, arm in enumerate((first, second), start=1):
        if isinstance(arm, Release) and not isinstance(arm.value, float):
            raise ValueError(f"arm {i}'s release must hold one value for prop_test; got an array of shape "
                             f"{arm.value.shape}. For many pairs call binom2_ump_test (or binom2_jimi_test) "
                             "on the arrays: it returns an array of p-values.")
    if method is not None:
        method = _check_choice(method, "method", ("ump", "normal", "jimi"))
    mechanism = _mechanism_of(first, second, ns, method)
    if method is None:
        method = "ump"
    elif method != "ump" and mechanism == "tulap":
        raise ValueError(
            f"method={method!r} does not take two Tulap releases: DP-JIMI and the normal approximation "
            "invert Laplace noise. Use method='ump' (or None), the exact two-arm test.")
    if two_sided_method is not None:
        raise ValueError("`two_sided_method` applies to one Tulap release; the two-arm exact test's "
                         f"two-sided p-value is twice the smaller one-sided one; got {two_sided_method!r}.")
    if method != "jimi" and (n_sim is not None or rng is not None or workers is not None):
        raise ValueError(f"`n_sim`, `rng` and `workers` apply to method='jimi' only (method={method!r} draws "
                         f"nothing); got n_sim={n_sim!r}, rng={_show(rng)}, workers={_show(workers)}.")
    arms = (first, second) if ns is None else (first, ns[0], second, ns[1])
    common = dict(alternative=alternative, confidence_level=confidence_level)
    if composition is not None:
        common["composition"] = composition
    if method == "ump":
        from .two_arm import binom2_ump_test

        extra = {} if delta is None else dict(delta=delta)
        if statistic is not None:
            extra["statistic"] = statistic
        return binom2_ump_test(*arms, epsilon=epsilon, effect=effect or "difference",
                               margin=margin, **extra, **common)
    if delta is not None and delta != 0:
        raise ValueError(f"`delta` must be 0 (or left out) for Laplace releases; got {_show(delta)}.")
    if statistic is not None:
        raise ValueError(f"`statistic` chooses the ordering of the exact test of two Tulap counts; "
                         f"method={method!r} has its own; got statistic={statistic!r}.")
    if effect not in (None, "difference"):
        raise ValueError(f"effect={effect!r} is tested by the exact test (method='ump', the default); "
                         f"method={method!r} tests the difference: leave `effect` out.")
    eps = {} if epsilon is None else dict(epsilon=epsilon)
    if method == "normal":
        from .normal import binom2_normal_test

        if margin not in (None, 0, 0.0):
            raise ValueError(f"method='normal' tests equal proportions only (margin 0); got margin={margin!r}. "
                             "Use method='jimi' for a non-zero margin.")
        return binom2_normal_test(*arms, **eps, **common)
    from .jimi import binom2_jimi_test

    return binom2_jimi_test(*arms, margin=0.0 if margin is None else margin, **eps,
                            n_sim=10_000 if n_sim is None else n_sim, rng=rng, workers=workers, **common)
