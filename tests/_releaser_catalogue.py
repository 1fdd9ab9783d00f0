"""The one catalogue of releasers for the tests: every release method of every releaser.

``RELEASE_METHODS`` lists (name, releaser, method name, input, extra positional
arguments) for every public release method of every class in
``dpinfer.releasers.__all__``; ``tests/releasers/test_catalogue.py`` checks that
it stays complete, and that the other per-releaser tables (the audit's cases, the
bit-pattern checks) name every releaser it names.  ``CENTRAL`` ones take ``array=``.
"""

from dpinfer import (
    ContingencyTableReleaser,
    KRRReleaser,
    LaplaceReleaser,
    LifeTableReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    MeanReleaser,
    PairedTableReleaser,
    RandomizedResponseReleaser,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

CENTRAL = [
    ("tulap", TulapReleaser(1.0, 1e-6), "release", 11, (30,)),
    ("laplace.release", LaplaceReleaser(1.0, 2.0), "release", 3.5, ()),
    ("laplace.proportion", LaplaceReleaser(1.0), "proportion", 11, (30,)),
    ("laplace.count", LaplaceReleaser(1.0), "count", 11, (30,)),
    ("table", ContingencyTableReleaser(1.0), "release", [[3, 4], [5, 6]], ()),
    ("mean", MeanReleaser(1.0, 0.0, 10.0), "release", [1.0, 2.5, 9.0, 12.0], ()),
    ("life_table", LifeTableReleaser(1.0, (5.0, 10.0)), "release", [3.0, 6.0, 12.0, 4.0], ([1, 0, 1, 1], [0, 0, 1, 1])),
    ("paired", PairedTableReleaser(1.0), "release", [[30, 4], [11, 25]], ()),
]
LOCAL = [
    ("rr", RandomizedResponseReleaser(1.0), "release", [1, 0, 1], ()),
    ("two_coin", TwoCoinRRReleaser(0.5, 0.5), "release", [1, 0, 1], ()),
    ("krr", KRRReleaser(1.0, 3), "release", [0, 2, 1], ()),
    ("unary", UnaryEncodingReleaser(1.0, 4), "release", [0, 3, 3], ()),
    ("local_laplace", LocalLaplaceReleaser(1.0, 1.0), "release", [0.2, -0.5], ()),
    ("ldp_histogram", LDPHistogramReleaser(1.0, 5), "release", [0.1, 0.9], ()),
]
RELEASE_METHODS = CENTRAL + LOCAL


def release(name, **kw):
    """One release of the catalogue entry ``name`` (seeded unless ``rng`` is given)."""
    (_, releaser, method, x, args), = [c for c in RELEASE_METHODS if c[0] == name]
    return getattr(releaser, method)(x, *args, **{"rng": 1, **kw})
