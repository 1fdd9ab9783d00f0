"""audit_releaser's interface (dpinfer/audit/_audit.py): plain callables, printing and JSON,
seeded reproducibility, errors that explain."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from dpinfer import (
    LaplaceReleaser,
    RandomizedResponseReleaser,
    Release,
    TulapReleaser,
    audit_releaser,
)


# -- interfaces ------------------------------------------------------------------


def test_plain_callable_one_draw_at_a_time_needs_epsilon():
    def mech(x, *, rng):
        # discrete Laplace with ratio e^-1 (integers, so no bits to leak): 1-DP at sensitivity 1
        p = -math.expm1(-1.0)
        return x + (rng.geometric(p) - rng.geometric(p))

    res = audit_releaser(mech, 0.0, 1.0, epsilon=1.0, n_samples=2_000, vectorized=False, rng=3)
    assert res.mechanism is None and res.delta == 0.0 and not res.violation
    with pytest.raises(ValueError, match="`epsilon` is required"):
        audit_releaser(mech, 0.0, 1.0, n_samples=100, vectorized=False, rng=3)


def test_result_prints_and_serialises():
    res = audit_releaser(RandomizedResponseReleaser(1.0), 0, 1, n_samples=2_000, rng=3)
    text = str(res)
    assert "Privacy audit (randomized_response mechanism)" in text
    assert "95 percent lower confidence bound on epsilon" in text
    assert json.loads(json.dumps(res.to_dict()))["verdict"] == "no violation detected"
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.epsilon = 2.0


def test_seeded_audit_is_reproducible():
    a = audit_releaser(TulapReleaser(1.0), 3, 4, args=(10,), n_samples=2_000, rng=8)
    b = audit_releaser(TulapReleaser(1.0), 3, 4, args=(10,), n_samples=2_000, rng=8)
    assert a == b


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(mechanism=3), TypeError, "`mechanism` must be a dpinfer releaser or a callable"),
        (dict(args=[30]), TypeError, "`args` must be a tuple"),
        (dict(n_samples=10), ValueError, "`n_samples` must be an integer >= 20"),
        (dict(n_samples=2.5), ValueError, "`n_samples` must be a whole number"),
        (dict(n_samples=10**9), ValueError, "`n_samples` must be an integer <= 100000000"),
        (dict(confidence_level=95), ValueError, r"`confidence_level` must lie in the open interval \(0, 1\)"),
        (dict(epsilon=-1.0), ValueError, "`epsilon` must be a positive finite number"),
        (dict(delta=1.0), ValueError, r"`delta` must lie in \[0, 1\)"),
        (dict(vectorized="yes"), TypeError, "`vectorized` must be True or False"),
        (dict(x="a"), TypeError, "`x` must be a number or an array of numbers"),
        (dict(x_prime=None), TypeError, "`x_prime` must be a number or an array of numbers"),
        (dict(rng=1.5), TypeError, "`rng` must be None, an integer seed"),
    ],
)
def test_bad_arguments_are_explained(kwargs, error, match):
    base = dict(mechanism=LaplaceReleaser(1.0), x=0.0, x_prime=1.0, n_samples=100, rng=1)
    base.update(kwargs)
    with pytest.raises(error, match=match):
        audit_releaser(base.pop("mechanism"), base.pop("x"), base.pop("x_prime"), **base)


def test_missing_extra_argument_is_explained():
    with pytest.raises(TypeError, match=r"Pass its other positional arguments with `args`, e.g. args=\(n,\)"):
        audit_releaser(TulapReleaser(1.0), 3, 4, n_samples=100, rng=1)


def test_bad_mechanism_outputs_are_explained():
    with pytest.raises(ValueError, match="a vectorised mechanism must return one output per copy"):
        audit_releaser(lambda x, rng: 1.0, 0, 1, epsilon=1.0, n_samples=100)
    with pytest.raises(ValueError, match="returned NaN"):
        audit_releaser(lambda x, rng: np.full(len(x), np.nan), 0, 1, epsilon=1.0, n_samples=100)
    with pytest.raises(TypeError, match="must return a Release or real numbers"):
        audit_releaser(lambda x, rng: np.array(["a"] * len(x)), 0, 1, epsilon=1.0, n_samples=100)
    with pytest.raises(ValueError, match="outputs for `x` and `x_prime` differ in shape"):
        audit_releaser(lambda x, rng: np.zeros((len(x), 1 + int(x[0]))), 0, 1, epsilon=1.0, n_samples=100)
    with pytest.raises(TypeError, match="record different claims"):
        audit_releaser(
            lambda x, rng: Release(x * 1.0, "laplace", 1.0 + x[0], 0.0, 1.0, None, "value"),
            0, 1, n_samples=100,
        )
