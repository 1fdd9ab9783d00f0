"""The command's names (issue 35): released values are --z/--z1/--z2, --x is a confidential count.

Old spellings of test/ci fail with a one-line hint naming the new option; a typed value that
no release is (a whole count, a proportion k / n) is refused naming 'dpinfer release', and
the typed value is never echoed; mean-test takes --mu0 for one group and --margin for two.
"""

from __future__ import annotations

import json

import pytest

from dpinfer import MeanReleaser, TulapReleaser


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["test", "ci"])
@pytest.mark.parametrize("args, new", [
    (("--x", 23, "--n", 60, "--epsilon", 1), "--z"),
    (("--value", 23.7, "--n", 60, "--epsilon", 1), "--z"),
    (("--x1", 23, "--n1", 60, "--x2", 12, "--n2", 58, "--epsilon", 1), "--z1"),
])
def test_old_spellings_fail_with_a_one_line_hint(capsys, command, args, new):
    code, out, err = call(capsys, command, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"released values are given as {new} (--x means a confidential count" in err
    assert "23" not in err and "12" not in err  # the values typed are not shown


@pytest.mark.parametrize("args, line", [
    (("test", "--z", 23, "--n", 60, "--epsilon", 1), "'dpinfer release --x X --n N --epsilon E"),
    (("test", "--z1", 23, "--n1", 60, "--z2", 12.5, "--n2", 58, "--epsilon", 1),
     "'dpinfer release --x X --n N --epsilon E"),
    (("ci", "--z", 0.25, "--n", 60, "--epsilon", 1, "--method", "normal"),
     "'dpinfer release --mechanism laplace --x X --n N --epsilon E"),
    (("test", "--z1", 23.5, "--n1", 60, "--z2", 12, "--n2", 58, "--epsilon", 1, "--mechanism", "laplace"),
     "'dpinfer release --mechanism laplace --kind count --x X --n N --epsilon E"),
])
def test_whole_numbers_typed_as_releases_are_refused_naming_the_release_step(capsys, args, line):
    code, out, err = call(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "looks like the confidential count" in err and line in err
    assert "23" not in err.replace("23.5", "") and " 12 " not in err


def test_a_release_file_and_its_printed_digits_pass(capsys, tmp_path):
    rel = TulapReleaser(1.0).release(23, 60, rng=5)
    file = tmp_path / "arm.json"
    file.write_text(json.dumps(rel.to_dict()))
    code, out, _ = call(capsys, "test", "--release", file, "--format", "json")
    from_file = json.loads(out)["pvalue"]
    printed = str(rel).splitlines()[1].split()[1]  # "value:       <all the digits> (noisy count ...)"
    code2, out2, _ = call(capsys, "test", "--z", printed, "--n", 60, "--epsilon", 1, "--format", "json")
    assert code == code2 == 0 and json.loads(out2)["pvalue"] == from_file


def test_mean_test_takes_mu0_for_one_group_and_margin_for_two(capsys, tmp_path):
    releaser = MeanReleaser(1.0, 0.0, 10.0)
    files = []
    for seed in (1, 2):
        file = tmp_path / f"g{seed}.json"
        file.write_text(json.dumps(releaser.release([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], rng=seed).to_dict()))
        files.append(file)
    code, _, err = call(capsys, "mean-test", "--release", files[0], "--release", files[1], "--mu0", 1, "--method",
                        "naive", "--sigma", 2)
    assert code == 2 and "--mu0 is the null mean of one group; with two releases give --margin" in err
    code, _, err = call(capsys, "mean-test", "--release", files[0], "--margin", 1, "--method", "naive", "--sigma", 2)
    assert code == 2 and "--margin is the null difference of two groups; with one release give --mu0" in err
    code, out, _ = call(capsys, "mean-test", "--release", files[0], "--release", files[1], "--margin", 1, "--method",
                        "naive", "--sigma", 2, "--format", "json")
    assert code == 0 and json.loads(out)["null_value"] == 1.0
