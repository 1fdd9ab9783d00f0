"""Every release method of every releaser, for the budget tests."""

import json


from dpinfer import (
    KRRReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

# (name, releaser, method name, input, extra positional arguments); every release method of
# every releaser.  `central` ones take `array=`.
CENTRAL = [
    ("tulap", TulapReleaser(1.0, 1e-6), "release", 11, (30,)),
    ("laplace.release", LaplaceReleaser(1.0, 2.0), "release", 3.5, ()),
    ("laplace.proportion", LaplaceReleaser(1.0), "proportion", 11, (30,)),
    ("laplace.count", LaplaceReleaser(1.0), "count", 11, (30,)),
]
LOCAL = [
    ("rr", RandomizedResponseReleaser(1.0), "release", [1, 0, 1], ()),
    ("two_coin", TwoCoinRRReleaser(0.5, 0.5), "release", [1, 0, 1], ()),
    ("krr", KRRReleaser(1.0, 3), "release", [0, 2, 1], ()),
    ("unary", UnaryEncodingReleaser(1.0, 4), "release", [0, 3, 3], ()),
    ("local_laplace", LocalLaplaceReleaser(1.0, 1.0), "release", [0.2, -0.5], ()),
    ("ldp_histogram", LDPHistogramReleaser(1.0, 5), "release", [0.1, 0.9], ()),
]
ALL = CENTRAL + LOCAL


def _call(releaser, method, x, args, **kw):
    return getattr(releaser, method)(x, *args, **kw)


def _state(gen):
    return json.dumps(gen.bit_generator.state, sort_keys=True, default=int)
