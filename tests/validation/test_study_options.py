"""Every study's ``--help`` states the ``--reps`` default the study really uses, says when
``--reps`` is used, and offers ``--n-sim`` only where DP-JIMI draws are used.

The expected defaults are written here; each is compared with both the help text and
the cells a run without ``--reps`` / ``--n-sim`` builds (captured before any runs).
"""

import importlib
import re

import pytest

from validation import harness, robust_study

# study: (--reps default, --reps with --quick, help says when --reps is used, offers --n-sim)
STUDIES = {
    "size": (10_000, 10_000, "in simulate mode", True),
    "power": (10_000, 10_000, "in simulate mode", True),
    "two_sided": (10_000, 10_000, "in simulate mode", False),
    "coverage": (10_000, 10_000, "in simulate mode", True),
    "ldp_rr_accuracy": (2000, 200, "in simulate mode", False),
    "ldp_unary_rates": (4000, 500, "in simulate mode", False),
    "ldp_coverage": (10_000, 400, "in either mode", False),
    "ldp_gof_size": (10_000, 1000, "in either mode", False),
    "robust_study": (20, 3, "contaminated data sets per cell", False),
    "jimi_size_epsilon": (1, 1, "never used", False),
    "jimi_two_sample_ties": (4000, 300, "release pairs simulated per cell", True),
    "table_size": (200, 200, "data sets simulated per point", True),
    "logistic_coverage": (400, 200, "data sets simulated per point", True),
    "two_arm": (2000, 200, "release pairs simulated per point", True),
    "two_arm_ordering": (1, 1, "never used", False),
    "means": (100, 60, "data sets simulated per point", True),
    "survival": (100, 40, "data sets per point", True),
    "pairs_arms": (20_000, 2000, "global-null trials simulated per family-wise error setting", False),
}
#: studies whose default run uses fewer replicates than --full (issue 28)
FULL = {"table_size": 2000, "logistic_coverage": 2000, "means": 1000, "survival": 1000}


class _Stop(Exception):
    pass


def _cells(monkeypatch, module, argv):
    """The cells ``module.main(argv)`` hands to the harness (nothing is run)."""
    seen = []

    def capture(func, cells, **kwargs):
        seen.extend(cells)
        raise _Stop

    monkeypatch.setattr(harness, "run_cells", capture)
    monkeypatch.setattr(robust_study, "run_cells", capture)  # imported by name there
    with pytest.raises(_Stop):
        module.main(argv)
    return seen


def _help(module, capsys):
    with pytest.raises(SystemExit) as exc:
        module.main(["--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


#: studies that compute without the harness's cells (exact sums, or a few seeded whole-trial runs
#: of their own): they take ``--quick`` and ``--out`` but no harness options
STANDALONE = {"designs", "means_guide", "strata"}


def test_the_table_lists_every_study():
    from dpinfer.cli import _commands as cli_commands

    assert sorted(STUDIES.keys() | STANDALONE) == cli_commands._studies(cli_commands._validation_dir())
    assert not STUDIES.keys() & STANDALONE


@pytest.mark.parametrize("study", sorted(STANDALONE))
def test_standalone_studies_take_quick_and_out(study, capsys):
    text = " ".join(_help(importlib.import_module(f"validation.{study}"), capsys).split())
    assert "--quick" in text and "--out" in text


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_help_states_the_real_reps_default(study, monkeypatch, capsys, tmp_path):
    default, quick, when, _ = STUDIES[study]
    module = importlib.import_module(f"validation.{study}")
    text = re.search(r"\n  --reps REPS(.*?)\n  -", _help(module, capsys), re.DOTALL).group(1)
    reps_help = " ".join(text.split())
    assert when in reps_help
    assert re.search(r"\(default: (\d+)", reps_help).group(1) == str(default)
    if quick != default:
        assert re.search(r"(\d+) with --quick", reps_help).group(1) == str(quick)
    out = ["--out", str(tmp_path), "--no-progress"]
    assert {c["reps"] for c in _cells(monkeypatch, module, out)} == {default}
    assert {c["reps"] for c in _cells(monkeypatch, module, ["--quick", *out])} == {quick}


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_full_runs_the_full_replicate_count(study, monkeypatch, capsys, tmp_path):
    module = importlib.import_module(f"validation.{study}")
    full = FULL.get(study, STUDIES[study][0])
    if study in FULL:
        assert f"{full} with --full" in " ".join(_help(module, capsys).split())
    out = ["--out", str(tmp_path), "--no-progress"]
    assert {c["reps"] for c in _cells(monkeypatch, module, ["--full", *out])} == {full}


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_n_sim_is_offered_only_where_it_is_used(study, monkeypatch, capsys, tmp_path):
    uses_n_sim = STUDIES[study][3]
    module = importlib.import_module(f"validation.{study}")
    assert ("--n-sim" in _help(module, capsys)) == uses_n_sim
    argv = ["--quick", "--out", str(tmp_path), "--no-progress", "--n-sim", "7"]
    if uses_n_sim:
        assert {c["n_sim"] for c in _cells(monkeypatch, module, argv)} == {7}
    else:
        with pytest.raises(SystemExit) as exc:
            module.main(argv)
        assert exc.value.code == 2
        assert "unrecognized arguments: --n-sim 7" in capsys.readouterr().err
