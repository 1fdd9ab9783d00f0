"""Every default answer is reproducible (issue 25 item 3).

Monte Carlo methods called without ``rng`` draw from a stream derived from the public
release (dpinfer/_streams.py): the same releases give the same p-value on two calls,
from the function, from prop_test and from the command; ``rng=`` overrides; the result
states the stream and the Monte Carlo standard error.
"""

import hashlib
import json
import math
import struct

import numpy as np
import pytest

from dpinfer import (
    ContingencyTableReleaser,
    LaplaceReleaser,
    TulapReleaser,
    binom2_jimi_ci,
    binom2_jimi_test,
    binom2_ump_test,
    independence_jimi_test,
    independence_mc_test,
    logistic_jimi,
    prop_test,
)
from dpinfer._streams import _derived_seed, _stream


def _cli_json(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def _save(tmp_path, name, release):
    path = tmp_path / name
    path.write_text(json.dumps(release.to_dict()))
    return path


@pytest.fixture(scope="module")
def laplace_pair():
    rel = LaplaceReleaser(epsilon=1.0)
    return rel.proportion(30, 40, rng=1), rel.proportion(22, 40, rng=2)


@pytest.fixture(scope="module")
def table():
    return ContingencyTableReleaser(epsilon=1.0).release([[20, 15], [15, 20]], rng=3)


# --------------------------------------------------------------------------- the seed
def test_seed_is_sha256_of_the_documented_encoding():
    # the encoding written out by hand (module docstring of dpinfer/_streams.py)
    raw = (b"dpinfer release-derived stream v1\x00" + b"S1:m" + b"F" + struct.pack(">d", 1.5) + b"I3;"
           + b"A2:" + struct.pack(">dd", 0.25, -2.0) + b"N;")
    expected = int.from_bytes(hashlib.sha256(raw).digest(), "big")
    assert _derived_seed("m", 1.5, 3, np.array([0.25, -2.0]), None).entropy == expected


def test_given_rng_overrides_and_the_default_is_derived():
    gen, derived = _stream(None, "m", 1.0)
    again, _ = _stream(None, "m", 1.0)
    assert derived and gen.random() == again.random()
    seeded, derived = _stream(5, "m", 1.0)
    assert not derived and seeded.random() == np.random.default_rng(5).random()
    other, _ = _stream(None, "m", 1.0 + 2**-40)  # any change of a public number changes the stream
    assert other.random() != np.random.default_rng(_derived_seed("m", 1.0)).random()


# --------------------------------------------------------------------------- two-sample DP-JIMI
def test_binom2_jimi_default_is_the_same_on_every_door(laplace_pair, tmp_path, capsys):
    a, b = laplace_pair
    first = binom2_jimi_test(a, b)
    assert binom2_jimi_test(a, b).pvalue == first.pvalue
    numbers = binom2_jimi_test(a.value, 40, b.value, 40, epsilon=1.0)
    assert numbers.pvalue == first.pvalue
    ci = binom2_jimi_ci(a, b)  # same draws as the test's interval
    assert (ci.low, ci.high) == (first.conf_int.low, first.conf_int.high)
    assert prop_test(a, b, method="jimi").pvalue == first.pvalue
    out = _cli_json(capsys, "test", "--release", _save(tmp_path, "a.json", a), "--release",
                    _save(tmp_path, "b.json", b), "--method", "jimi", "--format", "json")
    assert out["pvalue"] == first.pvalue
    typed = _cli_json(capsys, "test", "--z1", repr(a.value), "--n1", 40, "--z2", repr(b.value), "--n2", 40,
                      "--epsilon", 1, "--method", "jimi", "--format", "json")
    assert typed["pvalue"] == first.pvalue


def test_binom2_jimi_states_its_stream_and_standard_error(laplace_pair):
    a, b = laplace_pair
    res = binom2_jimi_test(a, b)
    share = res.pvalue / 2  # two-sided: twice the smaller share
    se = 2 * math.sqrt(share * (1 - share) / 10_000)
    assert "stream derived from the release" in res.note
    assert f"standard error of the p-value {se:.2g}" in res.note
    assert "stream derived from the release" in " ".join(str(res).split())  # printed, wrapped
    seeded = binom2_jimi_test(a, b, rng=11)
    assert "from the given rng" in seeded.note
    assert seeded.pvalue == binom2_jimi_test(a, b, rng=11).pvalue


@pytest.mark.slow
def test_binom2_jimi_default_agrees_with_the_exact_limit(laplace_pair):
    a, b = laplace_pair
    res = binom2_jimi_test(a, b, alternative="greater")
    exact = binom2_jimi_test(a, b, alternative="greater", n_sim=None).pvalue
    se = math.sqrt(exact * (1 - exact) / 10_000)
    assert abs(res.pvalue - exact) <= 4 * se


# --------------------------------------------------------------------------- tables and logistic
@pytest.mark.parametrize("test, method", [(independence_jimi_test, "jimi"), (independence_mc_test, "mc")])
def test_table_tests_are_the_same_on_every_door(table, test, method, tmp_path, capsys):
    first = test(table)
    assert test(table).pvalue == first.pvalue
    assert prop_test(table, method=method).pvalue == first.pvalue
    path = _save(tmp_path, "t.json", table)
    assert _cli_json(capsys, "test", "--release", path, "--method", method, "--format", "json")["pvalue"] \
        == first.pvalue
    p = first.pvalue
    assert f"standard error of the p-value {math.sqrt(p * (1 - p) / 10_000):.2g}" in first.note
    assert test(table, rng=1).pvalue == test(table, rng=1).pvalue


def test_logistic_jimi_default_is_reproducible():
    counts = [[60, 40], [35, 65], [30, 70], [15, 85]]
    rel = ContingencyTableReleaser(epsilon=1.0).release(counts, rng=5)
    design = {"arm": ["placebo", "drug"], "sex": ["F", "M"]}
    one = logistic_jimi(rel, design=design, n_sim=2000)
    two = logistic_jimi(rel, design=design, n_sim=2000)
    assert one.pvalue == two.pvalue and one.estimate == two.estimate
    assert "stream derived from the release" in one.note


# --------------------------------------------------------------------------- the exact two-arm test
def test_exact_two_arm_default_is_the_same_on_every_door(tmp_path, capsys):
    rel = TulapReleaser(epsilon=1.0)
    a, b = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    first = binom2_ump_test(a, b)
    assert binom2_ump_test(a, b).pvalue == first.pvalue
    assert prop_test(a, b).pvalue == first.pvalue
    out = _cli_json(capsys, "test", "--release", _save(tmp_path, "a.json", a), "--release",
                    _save(tmp_path, "b.json", b), "--format", "json")
    assert out["pvalue"] == first.pvalue


@pytest.mark.parametrize("effect", ["ratio", "odds-ratio"])
def test_exact_two_arm_effects_are_the_same_on_every_door(effect, tmp_path, capsys):
    rel = TulapReleaser(epsilon=1.0)
    a, b = rel.release(31, 40, rng=3), rel.release(18, 40, rng=4)
    first = binom2_ump_test(a, b, effect=effect)
    again = binom2_ump_test(a, b, effect=effect)
    assert (again.pvalue, tuple(again.conf_int)) == (first.pvalue, tuple(first.conf_int))
    via = prop_test(a, b, effect=effect)
    assert (via.pvalue, tuple(via.conf_int)) == (first.pvalue, tuple(first.conf_int))
    out = _cli_json(capsys, "test", "--release", _save(tmp_path, "a.json", a), "--release",
                    _save(tmp_path, "b.json", b), "--effect", effect, "--format", "json")
    assert (out["pvalue"], out["conf_low"], out["conf_high"]) == (first.pvalue, *first.conf_int)


def test_exact_two_arm_default_for_laplace_releases_is_the_same_on_every_door(laplace_pair, tmp_path, capsys):
    a, b = laplace_pair  # proportions
    first = binom2_ump_test(a, b)
    assert first.mechanism == "laplace"
    assert binom2_ump_test(a, b).pvalue == first.pvalue
    assert prop_test(a, b).pvalue == first.pvalue
    out = _cli_json(capsys, "test", "--release", _save(tmp_path, "a.json", a), "--release",
                    _save(tmp_path, "b.json", b), "--format", "json")
    assert out["pvalue"] == first.pvalue
    rel = LaplaceReleaser(epsilon=1.0)
    c, d = rel.count(30, 40, rng=1), rel.count(22, 40, rng=2)  # the same draws, as counts
    assert binom2_ump_test(c, d).pvalue == first.pvalue
    typed = _cli_json(capsys, "test", "--z1", repr(c.value), "--n1", 40, "--z2", repr(d.value), "--n2", 40,
                      "--epsilon", 1, "--mechanism", "laplace", "--format", "json")
    assert typed["pvalue"] == first.pvalue


def test_exact_two_arm_default_is_the_score_ordering_on_every_door(tmp_path, capsys):
    # issue 41: the score ordering is the default of the test, the interval, the planning, prop_test,
    # the command (and R: r/tests/testthat/test-parity.R); the explicit calls are the reference
    from dpinfer import binom2_ump_ci, binom2_ump_power, binom2_ump_sample_size

    rel = TulapReleaser(epsilon=1.0)
    a, b = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    score = binom2_ump_test(a, b, statistic="score")
    difference = binom2_ump_test(a, b, statistic="difference")
    assert score.pvalue != difference.pvalue  # the check below can tell them apart
    first = binom2_ump_test(a, b)
    assert (first.pvalue, tuple(first.conf_int)) == (score.pvalue, tuple(score.conf_int))
    assert first.method == score.method and "ordered by the score statistic" in first.method
    assert tuple(binom2_ump_ci(a, b)) == tuple(score.conf_int)
    assert binom2_ump_test(a.value, 60, b.value, 60, epsilon=1.0).pvalue == score.pvalue
    via = prop_test(a, b)
    assert (via.pvalue, via.method) == (score.pvalue, score.method)
    out = _cli_json(capsys, "test", "--release", _save(tmp_path, "a.json", a), "--release",
                    _save(tmp_path, "b.json", b), "--format", "json")
    assert (out["pvalue"], out["conf_low"], out["conf_high"]) == (score.pvalue, *score.conf_int)
    assert out["method"] == score.method
    # planning: one question, one answer
    power = binom2_ump_power(0.5, 0.3, 60, 60, epsilon=1.0)
    assert power == binom2_ump_power(0.5, 0.3, 60, 60, epsilon=1.0, statistic="score")
    assert power != binom2_ump_power(0.5, 0.3, 60, 60, epsilon=1.0, statistic="difference")
    cli = _cli_json(capsys, "power", "--theta1", 0.5, "--theta2", 0.3, "--n1", 60, "--n2", 60, "--epsilon", 1,
                    "--format", "json")
    assert cli[0]["power"] == power
    planned = binom2_ump_sample_size(0.35, 0.2, epsilon=1.0)
    assert planned == binom2_ump_sample_size(0.35, 0.2, epsilon=1.0, statistic="score")
    cli = _cli_json(capsys, "sample-size", "--theta1", 0.35, "--theta2", 0.2, "--epsilon", 1, "--format", "json")
    assert (cli[0]["n1"] if isinstance(cli, list) else cli["n1"]) == planned[0]


def test_exact_two_arm_default_falls_back_to_the_difference_for_laplace_arms(laplace_pair, capsys):
    from dpinfer import binom2_ump_power

    rel = LaplaceReleaser(epsilon=1.0)
    c, d = rel.count(30, 40, rng=1), rel.count(22, 40, rng=2)
    first = binom2_ump_test(c, d)
    explicit = binom2_ump_test(c, d, statistic="difference")
    assert (first.pvalue, tuple(first.conf_int)) == (explicit.pvalue, tuple(explicit.conf_int))
    assert "ordered by the difference of the released proportions: the default score ordering reads Tulap " \
           "integer parts" in first.method
    assert "default score" not in explicit.method  # asked for: no reason to give
    assert prop_test(*laplace_pair).method == first.method
    with pytest.raises(ValueError, match="statistic='score' orders Tulap releases"):
        binom2_ump_test(c, d, statistic="score")
    power = binom2_ump_power(0.5, 0.3, 40, 40, epsilon=1.0, mechanism="laplace")
    assert power == binom2_ump_power(0.5, 0.3, 40, 40, epsilon=1.0, mechanism="laplace", statistic="difference")
    with pytest.raises(ValueError, match="statistic='score' orders Tulap releases"):
        binom2_ump_power(0.5, 0.3, 40, 40, epsilon=1.0, mechanism="laplace", statistic="score")


def test_exact_two_arm_default_beyond_the_score_lattice_is_the_difference():
    from dpinfer import binom2_ump_power

    # (2001 + 1)^2 > 4e6 cells: the score ordering's lattice is not kept, the difference is used
    power = binom2_ump_power(0.53, 0.5, 2001, 2001, epsilon=1.0)
    assert power == binom2_ump_power(0.53, 0.5, 2001, 2001, epsilon=1.0, statistic="difference")
    res = binom2_ump_test(1050.3, 2001, 1000.6, 2001, epsilon=1.0, alternative="greater")  # a second or two
    assert res.method.endswith("ordered by the difference of the released proportions: the score ordering's "
                               "lattice (n1 + 1)(n2 + 1) is limited to 4 million cells)")


# --------------------------------------------------------------------------- one-sample DP-JIMI and the draws
def test_one_sample_jimi_draws_without_rng_are_reproducible_and_shared():
    from dpinfer import binom2_jimi_sample, binom_jimi_ci, binom_jimi_sample, binom_jimi_test

    rel = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=2024)
    res = binom_jimi_test(rel, p0=0.2, alternative="greater", n_sim=4000)
    assert binom_jimi_test(rel, p0=0.2, alternative="greater", n_sim=4000).pvalue == res.pvalue
    assert "stream derived from the release" in res.note
    draws = np.sort(binom_jimi_sample(rel, n_sim=4000))
    ci = binom_jimi_ci(rel, n_sim=4000)  # the same stream: order statistics k and n_sim + 1 - k, k = 100
    assert (ci.low, ci.high) == (draws[99], draws[4000 - 100])
    a, b = LaplaceReleaser(epsilon=1.0).proportion(30, 40, rng=1), LaplaceReleaser(epsilon=1.0).proportion(22, 40, rng=2)
    pairs = binom2_jimi_sample(a, pi_hat2=b, n_sim=4000)
    diff = np.sort(pairs[:, 0] - pairs[:, 1])
    ci2 = binom2_jimi_ci(a, b, n_sim=4000)
    assert (ci2.low, ci2.high) == (diff[99], diff[4000 - 100])
