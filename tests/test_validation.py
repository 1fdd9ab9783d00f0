"""Every bad input of the foundation's public functions: a clear TypeError/ValueError naming the argument."""

import numpy as np
import pytest

from dpinfer import LaplaceReleaser, Tulap, TulapReleaser

LAW = Tulap(b=0.5, q=0.1)
TULAP_REL = TulapReleaser(1.0)
LAPLACE_REL = LaplaceReleaser(1.0)

NAN, INF = float("nan"), float("inf")

# (label, callable, exception, match)
CASES = [
    # Tulap(...)
    ("b missing", lambda: Tulap(), TypeError, "`b` is required"),
    ("b string", lambda: Tulap(b="0.5"), TypeError, "`b` must be a real number"),
    ("b bool", lambda: Tulap(b=True), TypeError, "`b` must be a real number"),
    ("b nan", lambda: Tulap(b=NAN), ValueError, "`b` must be a finite real number"),
    ("b zero", lambda: Tulap(b=0.0), ValueError, r"`b` must lie in the open interval \(0, 1\); got 0.0"),
    ("b one", lambda: Tulap(b=1), ValueError, r"`b` must lie in the open interval \(0, 1\); got 1.0"),
    ("b array", lambda: Tulap(b=np.array([0.5, 0.6])), TypeError, "`b` must be a real number"),
    ("q one", lambda: Tulap(b=0.5, q=1.0), ValueError, r"`q` must lie in \[0, 1\); got 1.0"),
    ("q negative", lambda: Tulap(b=0.5, q=-0.1), ValueError, r"`q` must lie in \[0, 1\)"),
    ("q None", lambda: Tulap(b=0.5, q=None), TypeError, "`q` must be a real number; got None"),
    ("q inf", lambda: Tulap(b=0.5, q=INF), ValueError, "`q` must be a finite real number"),
    ("median nan", lambda: Tulap(NAN, b=0.5), ValueError, "`median` must be a finite"),
    ("median string", lambda: Tulap("0", b=0.5), TypeError, "`median` must be a real number"),
    ("median inf", lambda: Tulap(INF, b=0.5), ValueError, "`median` must be a finite"),
    # Tulap.from_privacy
    ("epsilon zero", lambda: Tulap.from_privacy(0.0), ValueError, "`epsilon` must be a positive finite number; got 0.0"),
    ("epsilon negative", lambda: Tulap.from_privacy(-1), ValueError, "`epsilon` must be a positive finite number; got -1.0"),
    ("epsilon nan", lambda: Tulap.from_privacy(NAN), ValueError, "`epsilon` must be a real number, not NaN"),
    ("epsilon inf", lambda: Tulap.from_privacy(INF), ValueError, "`epsilon` must be a positive finite number; got inf"),
    ("epsilon string", lambda: Tulap.from_privacy("1"), TypeError, "`epsilon` must be a real number; got '1'"),
    ("epsilon None", lambda: Tulap.from_privacy(None), TypeError, "`epsilon` must be a real number; got None"),
    ("epsilon bool", lambda: Tulap.from_privacy(True), TypeError, "`epsilon` must be a real number; got True"),
    ("epsilon list", lambda: Tulap.from_privacy([1.0]), TypeError, "`epsilon` must be a real number"),
    ("delta one", lambda: Tulap.from_privacy(1.0, 1.0), ValueError, r"`delta` must lie in \[0, 1\); got 1.0"),
    ("delta negative", lambda: Tulap.from_privacy(1.0, -1e-9), ValueError, r"`delta` must lie in \[0, 1\)"),
    ("delta nan", lambda: Tulap.from_privacy(1.0, NAN), ValueError, "`delta` must be a finite real number"),
    ("delta string", lambda: Tulap.from_privacy(1.0, "0.1"), TypeError, "`delta` must be a real number"),
    ("delta bool", lambda: Tulap.from_privacy(1.0, False), TypeError, "`delta` must be a real number"),
    ("median from_privacy", lambda: Tulap.from_privacy(1.0, 0.0, NAN), ValueError, "`median` must be a finite"),
    # methods' arguments
    ("cdf string", lambda: LAW.cdf("1"), TypeError, "`x` must be a real number or an array"),
    ("cdf None", lambda: LAW.cdf(None), TypeError, "`x` must be a real number or an array"),
    ("cdf nan", lambda: LAW.cdf(NAN), ValueError, "`x` must contain only real numbers, not NaN"),
    ("ccdf ragged", lambda: LAW.ccdf([[1, 2], [3]]), TypeError, "`x` must be a real number or an array"),
    ("logcdf strings", lambda: LAW.logcdf(np.array(["a", "b"])), TypeError, "`x` must be a real number or an array"),
    ("logccdf empty", lambda: LAW.logccdf([]), ValueError, "`x` must not be empty"),
    ("pdf bool", lambda: LAW.pdf(True), TypeError, "`x` must be a real number or an array"),
    ("logpdf complex", lambda: LAW.logpdf(1j), TypeError, "`x` must be a real number or an array"),
    ("icdf above one", lambda: LAW.icdf(1.5), ValueError, r"`p` must lie in \[0, 1\]; got 1.5"),
    ("icdf negative", lambda: LAW.icdf([0.5, -0.1]), ValueError, r"`p` must lie in \[0, 1\]; got -0.1"),
    ("icdf nan", lambda: LAW.icdf(NAN), ValueError, "`p` must contain only finite"),
    ("icdf string", lambda: LAW.icdf("0.5"), TypeError, "`p` must be a real number or an array"),
    # sample shape and rng
    ("shape negative", lambda: LAW.sample(-1), ValueError, "`shape` must be an integer >= 0"),
    ("shape float", lambda: LAW.sample(2.5), ValueError, "`shape` must be a whole number"),
    ("shape string", lambda: LAW.sample("3"), TypeError, "`shape` must be an integer"),
    ("shape tuple bad", lambda: LAW.sample((2, None)), TypeError, "`shape` must be an integer"),
    ("rng float", lambda: LAW.sample(3, rng=1.5), TypeError, "`rng` must be None, an integer seed"),
    ("rng string", lambda: LAW.sample(3, rng="seed"), TypeError, "`rng` must be None, an integer seed"),
    ("rng RandomState", lambda: LAW.sample(3, rng=np.random.RandomState(1)), TypeError, "`rng` must be None"),
    ("rng negative", lambda: LAW.sample(3, rng=-1), TypeError, "`rng` must be None, an integer seed"),
    ("rng bool", lambda: LAW.sample(3, rng=True), TypeError, "`rng` must be None, an integer seed"),
    # TulapReleaser
    ("tulap rel epsilon", lambda: TulapReleaser(0), ValueError, "`epsilon` must be a positive finite number"),
    ("tulap rel epsilon str", lambda: TulapReleaser("1"), TypeError, "`epsilon` must be a real number"),
    ("tulap rel delta", lambda: TulapReleaser(1.0, 1.5), ValueError, r"`delta` must lie in \[0, 1\)"),
    ("tulap rel delta None", lambda: TulapReleaser(1.0, None), TypeError, "`delta` must be a real number"),
    ("release x > n", lambda: TULAP_REL.release(31, 30), ValueError, "`x` must lie between 0 and `n` = 30; the value does not"),
    ("release x < 0", lambda: TULAP_REL.release([1, -1], 30), ValueError, "`x` must lie between 0 and `n` = 30; the entry at position 1 does not"),
    ("release x fractional", lambda: TULAP_REL.release(2.5, 30), ValueError, r"`x` must contain whole numbers \(counts\); the value is not"),
    ("release x string", lambda: TULAP_REL.release("11", 30), TypeError, "`x` must be a real number or an array"),
    ("release x strings", lambda: TULAP_REL.release(["1", "2"], 30), TypeError, "`x` must be a real number or an array"),
    ("release x ragged", lambda: TULAP_REL.release([[1, 2], [3]], 30), TypeError, "`x` must be a real number or an array"),
    ("release x empty", lambda: TULAP_REL.release([], 30), ValueError, "`x` must not be empty"),
    ("release x nan", lambda: TULAP_REL.release(NAN, 30), ValueError, "`x` must contain only finite numbers"),
    ("release x bool", lambda: TULAP_REL.release(True, 30), TypeError, "`x` must be a real number or an array"),
    ("release x None", lambda: TULAP_REL.release(None, 30), TypeError, "`x` must be a real number or an array"),
    ("release n negative", lambda: TULAP_REL.release(0, -5), ValueError, "`n` must be an integer >= 1; got -5"),
    ("release n zero", lambda: TULAP_REL.release(0, 0), ValueError, "`n` must be an integer >= 1; got 0"),
    ("release n fractional", lambda: TULAP_REL.release(1, 30.5), ValueError, "`n` must be a whole number; got 30.5"),
    ("release n string", lambda: TULAP_REL.release(1, "30"), TypeError, "`n` must be an integer"),
    ("release n None", lambda: TULAP_REL.release(1, None), TypeError, "`n` must be an integer"),
    ("release n inf", lambda: TULAP_REL.release(1, INF), ValueError, "`n` must be a whole number; got inf"),
    ("release rng", lambda: TULAP_REL.release(1, 30, rng=0.5), TypeError, "`rng` must be None, an integer seed"),
    ("release rng RandomState", lambda: TULAP_REL.release(1, 30, rng=np.random.RandomState(0)), TypeError, "`rng`"),
    # LaplaceReleaser
    ("laplace epsilon", lambda: LaplaceReleaser(-2.0), ValueError, "`epsilon` must be a positive finite number; got -2.0"),
    ("laplace epsilon None", lambda: LaplaceReleaser(None), TypeError, "`epsilon` must be a real number"),
    ("laplace sensitivity zero", lambda: LaplaceReleaser(1.0, 0.0), ValueError, "`sensitivity` must be a positive finite number; got 0.0"),
    ("laplace sensitivity inf", lambda: LaplaceReleaser(1.0, INF), ValueError, "`sensitivity` must be a positive finite number; got inf"),
    ("laplace sensitivity str", lambda: LaplaceReleaser(1.0, "1"), TypeError, "`sensitivity` must be a real number"),
    ("laplace sensitivity nan", lambda: LaplaceReleaser(1.0, NAN), ValueError, "`sensitivity` must be a real number, not NaN"),
    ("laplace value string", lambda: LAPLACE_REL.release("x"), TypeError, "`value` must be a real number or an array"),
    ("laplace value nan", lambda: LAPLACE_REL.release([1.0, NAN]), ValueError, "`value` must contain only finite"),
    ("laplace value inf", lambda: LAPLACE_REL.release(INF), ValueError, "`value` must contain only finite"),
    ("laplace value empty", lambda: LAPLACE_REL.release(np.array([])), ValueError, "`value` must not be empty"),
    ("laplace value ragged", lambda: LAPLACE_REL.release([[1.0], [2.0, 3.0]]), TypeError, "`value` must be a real number or an array"),
    ("laplace value rng", lambda: LAPLACE_REL.release(1.0, rng="a"), TypeError, "`rng` must be None"),
    ("proportion x > n", lambda: LAPLACE_REL.proportion(12, 11), ValueError, "`x` must lie between 0 and `n` = 11; the value does not"),
    ("proportion x fractional", lambda: LAPLACE_REL.proportion(0.5, 11), ValueError, "`x` must contain whole numbers"),
    ("proportion n negative", lambda: LAPLACE_REL.proportion(0, -1), ValueError, "`n` must be an integer >= 1"),
    ("proportion n bool", lambda: LAPLACE_REL.proportion(0, True), TypeError, "`n` must be an integer; got True"),
    ("proportion rng", lambda: LAPLACE_REL.proportion(1, 10, rng=2.0), TypeError, "`rng` must be None"),
    ("count x > n", lambda: LAPLACE_REL.count([1, 50], 30), ValueError, "`x` must lie between 0 and `n` = 30; the entry at position 1 does not"),
    ("count x strings", lambda: LAPLACE_REL.count(np.array(["1"]), 30), TypeError, "`x` must be a real number or an array"),
    ("count n array", lambda: LAPLACE_REL.count(1, np.array([30, 31])), TypeError, "`n` must be an integer"),
    ("count rng", lambda: LAPLACE_REL.count(1, 30, rng=np.random.RandomState(2)), TypeError, "`rng` must be None"),
]


@pytest.mark.parametrize(("label", "call", "exc", "match"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_rejected_with_named_argument(label, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_good_edge_inputs_accepted():
    """The rules are not stricter than documented: R-style doubles and numpy scalars pass."""
    assert TULAP_REL.release(np.int64(3), 30.0, rng=np.int64(1)).n == 30
    # a 0-d array and a numpy float are the numbers 3 and 30: the same release, bit for bit
    given, plain = TULAP_REL.release(np.array(3.0), np.float64(30), rng=1), TULAP_REL.release(3, 30, rng=1)
    assert type(given.value) is float and (given.value, given.n) == (plain.value, plain.n) == (plain.value, 30)
    assert Tulap.from_privacy(np.float32(1.0), np.float64(0.0)).q == 0.0
    assert LAW.sample(np.int64(2), rng=np.random.SeedSequence(3)).shape == (2,)
    assert LAW.sample([2, 3], rng=1).shape == (2, 3)
    assert TULAP_REL.release(0, 1, rng=1).n == 1 and TULAP_REL.release(1, 1, rng=1).n == 1
    assert np.isfinite(LAW.cdf(-INF)) and LAW.cdf(INF) == 1.0  # +-inf are valid points of a cdf


@pytest.mark.parametrize("call,match", [
    (lambda: TulapReleaser(1.0).release(3, 2**60), r"`n` must be an integer <= 9007199254740992"),
    (lambda: LaplaceReleaser(1.0).proportion(3, 10**30), r"`n` must be an integer <= 9007199254740992"),
    (lambda: __import__("dpinfer").binom_jimi_ci(0.3013, 30, epsilon=1.0, n_sim=10**12),
     r"`n_sim` must be an integer <= 1000000000"),
])
def test_integers_beyond_exact_doubles_are_refused(call, match):
    # 2**53 is the largest n at which every count is an exact double; larger values
    # used to fail deep inside numpy (int64 overflow) without naming the argument.
    with pytest.raises(ValueError, match=match):
        call()
