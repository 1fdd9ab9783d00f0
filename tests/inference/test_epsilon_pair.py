"""One spelling of the two arms' epsilon: ``epsilon=(e1, e2)``; the old ``epsilon1``/``epsilon2``
still work through a deprecation period, with a FutureWarning at the caller's line."""

import warnings

import pytest

import dpinfer

ARMS = (0.42, 40, 0.30, 50)
CALLS = [
    ("binom2_normal_test", {}),
    ("binom2_jimi_test", dict(n_sim=200, rng=3)),
    ("binom2_jimi_ci", dict(n_sim=200, rng=3)),
    ("binom2_jimi_sample", dict(n_sim=50, rng=3)),
]


def _same(a, b):
    if isinstance(a, dpinfer.HTestResult):
        return a.pvalue == b.pvalue and tuple(a.conf_int) == tuple(b.conf_int) and a.epsilon == b.epsilon
    if isinstance(a, dpinfer.ConfidenceInterval):
        return tuple(a) == tuple(b)
    return all((x == y).all() for x, y in zip(a, b))


@pytest.mark.parametrize("name, extra", CALLS)
def test_old_names_warn_at_the_callers_line_and_give_the_same_answer(name, extra):
    func = getattr(dpinfer, name)
    new = func(*ARMS, epsilon=(1.0, 2.0), **extra)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = func(*ARMS, epsilon1=1.0, epsilon2=2.0, **extra)
    future = [w for w in caught if issubclass(w.category, FutureWarning)]
    assert len(future) == 1 and caught == future
    assert "epsilon=(epsilon1, epsilon2)" in str(future[0].message) and name in str(future[0].message)
    assert future[0].filename == __file__
    assert _same(new, old)


@pytest.mark.parametrize("name, extra", CALLS)
def test_one_epsilon_serves_both_arms(name, extra):
    func = getattr(dpinfer, name)
    assert _same(func(*ARMS, epsilon=1.5, **extra), func(*ARMS, epsilon=(1.5, 1.5), **extra))


@pytest.mark.parametrize("name, extra", CALLS)
def test_both_spellings_at_once_is_a_type_error(name, extra):
    with pytest.raises(TypeError, match="not both"):
        getattr(dpinfer, name)(*ARMS, epsilon=1.0, epsilon2=1.0, **extra)


def test_a_pair_of_the_wrong_length_names_the_argument():
    with pytest.raises(ValueError, match=r"`epsilon` must be one value for both arms or a pair"):
        dpinfer.binom2_normal_test(*ARMS, epsilon=(1.0, 1.0, 1.0))


def test_a_release_and_a_number_take_a_pair_with_none():
    rel = dpinfer.LaplaceReleaser(epsilon=1.0).proportion(12, 40, rng=5)
    mixed = dpinfer.binom2_normal_test(rel, pi2=0.3, n2=50, epsilon=(None, 2.0))
    typed = dpinfer.binom2_normal_test(float(rel.value), 40, 0.3, 50, epsilon=(1.0, 2.0))
    assert mixed.pvalue == typed.pvalue and mixed.epsilon == typed.epsilon == 3.0
