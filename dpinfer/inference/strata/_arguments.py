"""The releases of several sites or strata, validated once into frozen records (kernels take these).

What the strata methods take: Tulap counts (``TulapReleaser(...).release(x, n)``) with
``delta = 0``, one per site (or per arm of a stratum), each with its own ``n``, ``epsilon``
and sensitivity.  Two releases are refused with the reason, decided from public records:

* a Laplace release beside Tulap ones: the sum of a Laplace noise and Tulap noises has a
  law (a Laplace density convolved with an Irwin-Hall one and discrete Laplace pmfs) that
  these kernels do not compute, and a p-value from the wrong law has no guaranteed size;
* a Tulap release with ``delta > 0``: its truncated law has edge cells narrower than a unit,
  which turns the sum of uniforms into a mixture of up to ``3**m`` components; not
  computed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ... import _mechanisms
from ..._validation import _kind_of
from ...releasers.release import Release
from .._resolve import accepts, mismatch_message, resolve
from ._noise_sum import _noise

__all__ = []  # private module

ACCEPTS = accepts({(_mechanisms.TULAP, "count")},
                  ("binom_pooled_test", "binom_strata_test", "binom_homogeneity_test", "binom2_pooled_test"),
                  "Tulap-noised counts with delta = 0 (TulapReleaser(epsilon).release(x, n)), one per site "
                  "or per arm of a stratum")


@dataclass(frozen=True)
class _Site:
    """One release: its value (exact, as a Fraction), its noise and its public record."""

    value: Fraction
    noise: object
    record: object  # the resolver's record (privacy for the result)
    release: Release


def site(release, name, method, *, summed=True):
    """The ``_Site`` of one release (argument ``name``, e.g. ``releases[2]``).

    ``summed=False``: the release is not added to others (the homogeneity test's pairwise
    two-arm tests), so ``delta > 0`` is allowed and ``noise`` is None.
    """
    if not isinstance(release, Release):
        raise TypeError(f"`{name}` must be a dpinfer Release (TulapReleaser(epsilon).release(x, n)); got "
                        f"{type(release).__name__}. {method} takes releases only: their records carry n, "
                        "epsilon and the groups they were charged to.")
    if release.mechanism == _mechanisms.LAPLACE:
        raise ValueError(
            mismatch_message(name, release, method, ACCEPTS) + " The sum of a Laplace noise and Tulap noises "
            "has a law these exact kernels do not compute, and a p-value from another law has no guaranteed size: "
            "release every site with TulapReleaser, or analyse the Laplace site on its own.")
    record = resolve(release, accepts=ACCEPTS, method=method, name=name)
    if not record.scalar:
        raise ValueError(f"`{name}` must hold one released value; got an array of shape {record.value.shape}.")
    if not summed:
        return _Site(Fraction(float(record.value)), None, record, release)
    if record.delta != 0.0:
        raise ValueError(
            f"`{name}` has delta = {record.delta!r}; {method} needs delta = 0. A truncated Tulap law "
            "(delta > 0) has edge cells narrower than a unit, and the sum over sites becomes a mixture these "
            "kernels do not compute. Release with delta = 0, or analyse that site on its own.")
    return _Site(Fraction(float(record.value)), _noise(record.n, record.epsilon, int(record.sensitivity)),
                 record, release)


def site_list(releases, method, *, minimum, summed=True, name="releases"):
    """The ``_Site`` of every release of the list ``releases`` (at least ``minimum``; see :func:`site`)."""
    if isinstance(releases, Release) or not isinstance(releases, (list, tuple)):
        raise TypeError(f"`{name}` must be a list of Releases (one per site); got {_kind_of(releases)}.")
    if len(releases) < minimum:
        raise ValueError(f"`{name}` must hold at least {minimum} release{'s' if minimum > 1 else ''}; got "
                         f"{len(releases)}.")
    return tuple(site(r, f"{name}[{i}]", method, summed=summed) for i, r in enumerate(releases))


def stratum_list(releases, method):
    """``((arm 1 site, arm 2 site), ...)`` from a list of pairs of releases, one pair per stratum."""
    if isinstance(releases, Release) or not isinstance(releases, (list, tuple)):
        raise TypeError("`releases` must be a list of pairs (arm 1, arm 2) of Releases, one pair per stratum; "
                        f"got {_kind_of(releases)}.")
    if len(releases) < 1:
        raise ValueError("`releases` must hold at least one stratum; got an empty list.")
    out = []
    for s, pair in enumerate(releases):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise TypeError(f"`releases[{s}]` must be a pair (arm 1, arm 2) of Releases; got {_kind_of(pair)}.")
        first = site(pair[0], f"releases[{s}][0]", method)
        second = site(pair[1], f"releases[{s}][1]", method)
        if first.record.n != second.record.n:
            raise ValueError(
                f"`releases[{s}]` has arms of n = {first.record.n} and {second.record.n}; {method} needs equal arms "
                "within each stratum (strata may differ). With equal arms the Mantel-Haenszel weights make the "
                "statistic a sum of released counts, whose law is computed exactly; unequal arms would need "
                "weights off that lattice. Analyse such a stratum with binom2_ump_test.")
        out.append((first, second))
    return tuple(out)
