"""``dpinfer paired-release`` and ``dpinfer mcnemar``: round trip through a release file, and errors."""

from __future__ import annotations

import json

from dpinfer import PairedTableReleaser, mcnemar_test


def call(capsys, *args):
    from dpinfer.cli import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_release_then_test_matches_python(capsys, tmp_path):
    code, out, err = call(capsys, "paired-release", "--table", 12, 2, 9, 10, "--epsilon", 2, "--seed", 7,
                          "--format", "json")
    assert code == 0 and "--seed 7 makes the noise reproducible" in err
    record = json.loads(out)
    expected = PairedTableReleaser(2.0).release([[12, 2], [9, 10]], rng=7)
    assert record["kind"] == "paired" and record["n"] == 33 and record["value"] == expected.value.tolist()
    file = tmp_path / "rel.json"
    file.write_text(out)
    code, out, _ = call(capsys, "mcnemar", "--release", file, "--alternative", "greater", "--format", "json")
    assert code == 0
    assert json.loads(out)["pvalue"] == mcnemar_test(expected, alternative="greater").pvalue
    code, out, _ = call(capsys, "mcnemar", "--z", *record["value"], "--n", 33, "--epsilon", 2)
    assert code == 0 and "McNemar" in out and "privacy: epsilon = 2" in out


def test_errors_name_the_options(capsys, tmp_path):
    code, _, err = call(capsys, "mcnemar", "--z", 6.6, 21.3, "--epsilon", 2)
    assert code == 2 and "--z ZD ZS needs --n" in err
    code, _, err = call(capsys, "mcnemar")
    assert code == 2 and "give the paired release" in err
    code, _, err = call(capsys, "mcnemar", "--z", 6.0, 21.5, "--n", 33, "--epsilon", 2)
    assert code != 0 and "confidential count" in err
