"""The command with several sites or strata (issue 37): ``--release`` three times, ``--pooled``, ``--stratum``.

The command adds no statistics: each answer is the Python function's (binom_pooled_test,
binom_strata_test), whose values are checked against references in tests/inference/strata/.
"""

import json

import pytest

from dpinfer import TulapReleaser, binom_pooled_test, binom_strata_test


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _write(tmp_path, name, release):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(release.to_dict()))
    return path


@pytest.fixture
def sites(tmp_path):
    releases = [TulapReleaser(epsilon=e).release(x, 40, rng=i) for i, (e, x) in enumerate([(1.0, 13), (2.0, 16), (3.0, 19)])]
    return releases, [_write(tmp_path, f"site{i}", r) for i, r in enumerate(releases)]


@pytest.fixture
def strata(tmp_path):
    pairs = [(TulapReleaser(epsilon=e).release(x1, n, rng=10 + s), TulapReleaser(epsilon=e).release(x2, n, rng=20 + s))
             for s, (e, x1, x2, n) in enumerate([(1.0, 24, 15, 40), (2.0, 33, 22, 60)])]
    files = [(_write(tmp_path, f"a{s}", a), _write(tmp_path, f"b{s}", b)) for s, (a, b) in enumerate(pairs)]
    return pairs, files


def test_three_releases_are_pooled_sites(capsys, sites):
    releases, files = sites
    args = [x for f in files for x in ("--release", f)]
    code, out, _ = call(capsys, "test", *args, "--p0", 0.3, "--alternative", "greater", "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == binom_pooled_test(releases, 0.3, alternative="greater").pvalue
    code, out, _ = call(capsys, "test", *args[:4], "--pooled", "--format", "json")
    assert code == 0 and json.loads(out)["pvalue"] == binom_pooled_test(releases[:2], 0.5).pvalue


def test_strata_are_the_stratified_test_and_name_each_stratum(capsys, strata):
    pairs, files = strata
    code, out, _ = call(capsys, "test", "--stratum", "Leeds", *files[0], "--stratum", "Lyon", *files[1],
                        "--margin", -0.05, "--alternative", "greater")
    assert code == 0
    expected = binom_strata_test(pairs, -0.05, alternative="greater")
    assert f"p-value = {expected.pvalue:.4g}" in out
    assert "stratum 1 = Leeds, stratum 2 = Lyon" in out and "stratum 2 arm 1: epsilon = 2" in out


def test_shapes_that_do_not_fit_are_refused(capsys, sites, strata):
    _, files = sites
    _, pairs = strata
    cases = [
        (("--stratum", "A", *pairs[0], "--p0", 0.3), "--p0 is the null proportion of pooled sites"),
        (("--release", files[0], "--release", files[1], "--release", files[2], "--margin", 0.1),
         "--gamma and --margin apply to strata"),
        (("--stratum", "A", *pairs[0], "--stratum", "A", *pairs[1]), "--stratum names must differ"),
        (("--stratum", "A", *pairs[0], "--release", files[0]), "without --release or --pooled"),
        (("--release", files[0], "--pooled"), "--pooled needs --release at least twice"),
        (("--release", files[0], "--release", files[1], "--release", files[2], "--method", "jimi"),
         "--method jimi do not apply to several sites"),
        (("--release", files[0], "--gamma", 0.01), "--gamma applies to the stratified test"),
    ]
    for args, message in cases:
        code, _, err = call(capsys, "test", *args)
        assert code == 2 and message in err, (args, err)
