"""Progress of long computations (dpinfer._progress; issue 25, item 3): the callable, stderr, the command."""

import io
import json
import re
import sys

import numpy as np
import pytest

import dpinfer
from dpinfer import _progress
from dpinfer._progress import Progress, SILENT, quiet


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


class _Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, done, total, message):
        self.calls.append((done, total, message))

    def check(self, label):
        """Integers, one total, nondecreasing, from 0 to the total, messages naming the call."""
        assert self.calls, "the callable was never called"
        totals = {t for _, t, _ in self.calls}
        assert len(totals) == 1
        (total,) = totals
        done = [d for d, _, _ in self.calls]
        assert all(isinstance(d, int) for d in done) and done[0] == 0 and done[-1] == total
        assert all(a <= b for a, b in zip(done, done[1:]))
        assert all(m.startswith(f"{label}: ") for _, _, m in self.calls)
        return total


_Z = (41.3, 60, 27.9, 60)


@pytest.mark.parametrize("effect", ["difference", "ratio"])
def test_two_arm_interval_reports_monotone_units_ending_at_the_total(effect):
    rec = _Recorder()
    ci = dpinfer.binom2_ump_ci(*_Z, epsilon=1.0, effect=effect, progress=rec)
    assert rec.check("binom2_ump_ci") > 1 and len(rec.calls) > 3  # real steps, not just start and end
    assert ci == dpinfer.binom2_ump_ci(*_Z, epsilon=1.0, effect=effect, progress=False)  # same answer


def test_two_arm_test_reports_the_pvalue_then_the_interval_and_arrays_per_pair():
    rec = _Recorder()
    res = dpinfer.binom2_ump_test(*_Z, epsilon=1.0, progress=rec)
    rec.check("binom2_ump_test")
    assert "(p-value)" in rec.calls[1][2] or "(lower end)" in rec.calls[1][2]
    assert res.pvalue == dpinfer.binom2_ump_test(*_Z, epsilon=1.0).pvalue
    rec = _Recorder()
    dpinfer.binom2_ump_test([41.3, 40.2], 60, [27.9, 30.1], 60, epsilon=1.0, progress=rec)
    assert rec.check("binom2_ump_test") == 2 and [d for d, _, _ in rec.calls] == [0, 1, 2]


def test_two_arm_laplace_and_score_paths_report_too():
    rec = _Recorder()
    dpinfer.binom2_ump_ci(41.3, 60, 27.9, 60, epsilon=1.0, statistic="score", alternative="greater",
                          progress=rec)
    rec.check("binom2_ump_ci")
    rec = _Recorder()
    dpinfer.binom2_ump_ci(41.25, 60, 27.25, 60, epsilon=1.0, mechanism="laplace", progress=rec)
    rec.check("binom2_ump_ci")


def test_exact_two_sample_jimi_reports_quadratures():
    rec = _Recorder()
    dpinfer.binom2_jimi_ci(0.6013, 40, 0.4013, 40, epsilon=(1.0, 1.0), n_sim=None, alternative="greater",
                           progress=rec)
    total = rec.check("binom2_jimi_ci")
    assert "quadratures" in rec.calls[-1][2] and total == 9  # one quantile's root search
    assert len(rec.calls) > 3  # each quadrature reported, not only the start and the end
    rec = _Recorder()  # with draws: one unit per release
    dpinfer.binom2_jimi_test([0.6013, 0.5013], 40, [0.4013, 0.4013], 40, epsilon=(1.0, 1.0), n_sim=200,
                             rng=1, progress=rec)
    assert rec.check("binom2_jimi_test") == 2


def test_sample_size_reports_its_power_evaluations():
    rec = _Recorder()
    n1, n2 = dpinfer.binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, progress=rec)
    assert n1 == n2 > 0
    assert rec.check("binom2_ump_sample_size") == 6 and len(rec.calls) >= 4
    with pytest.raises(TypeError, match="`progress` must be None"):
        dpinfer.binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, progress="on")


def test_true_prints_one_line_to_stderr_without_the_releases(capsys):
    dpinfer.binom2_ump_ci(*_Z, epsilon=1.0, progress=True)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("\rbinom2_ump_ci: ") and err.endswith("\n") and err.count("\n") == 1
    last = err.rstrip("\n").split("\r")[-1]
    assert "/" in last and "100%" in last
    # the name, counts, a stage, the share and the time: nothing else, never a release
    line = re.compile(r"binom2_ump_ci: \d+/\d+ steps( \((lower|upper) end\))?, \d+%, \d+ s *")
    assert all(line.fullmatch(part) for part in err.rstrip("\n").split("\r")[1:])


@pytest.mark.parametrize("progress", [False, None])
def test_false_and_the_default_off_a_terminal_print_nothing(capsys, monkeypatch, progress):
    monkeypatch.setattr(_progress, "DELAY", 0.0)  # even with no delay
    if progress is False:
        monkeypatch.setattr(sys, "stderr", _Terminal())
    dpinfer.binom2_ump_ci(*_Z, epsilon=1.0, progress=progress)
    assert capsys.readouterr().err == ""
    if progress is False:
        assert sys.stderr.getvalue() == ""


def test_the_default_shows_on_a_terminal_after_the_delay(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    dpinfer.binom2_ump_ci(*_Z, epsilon=1.0)  # quick: under the 2 s delay, nothing
    assert terminal.getvalue() == ""
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    dpinfer.binom2_ump_ci(*_Z, epsilon=1.0)
    assert terminal.getvalue().startswith("\rbinom2_ump_ci: ") and terminal.getvalue().endswith("\n")
    terminal.truncate(0)
    terminal.seek(0)
    with quiet():  # the command's --no-progress
        dpinfer.binom2_ump_ci(*_Z, epsilon=1.0)
    assert terminal.getvalue() == ""


@pytest.mark.parametrize("func, args, kwargs", [
    (dpinfer.binom2_ump_test, _Z, {"epsilon": 1.0}),
    (dpinfer.binom2_ump_ci, _Z, {"epsilon": 1.0}),
    (dpinfer.binom2_jimi_test, (0.6013, 40, 0.4013, 40), {"epsilon": (1.0, 1.0)}),
    (dpinfer.binom2_jimi_ci, (0.6013, 40, 0.4013, 40), {"epsilon": (1.0, 1.0)}),
])
@pytest.mark.parametrize("bad", ["yes", 1, 0.5, [True]])
def test_bad_progress_values_raise_a_type_error_naming_the_argument(func, args, kwargs, bad):
    with pytest.raises(TypeError, match=r"`progress` must be None \(automatic.*True, False or a callable "
                                        r"taking \(done, total, message\); got "):
        func(*args, **kwargs, progress=bad)


def test_numpy_booleans_are_accepted(capsys):
    dpinfer.binom2_ump_ci(*_Z, epsilon=1.0, progress=np.bool_(False))
    assert capsys.readouterr().err == ""


def test_reporter_counts_never_go_back_nor_past_the_total_and_parts_jump_to_their_end():
    rec = _Recorder()
    bar = Progress(rec, 10, "demo", "steps")
    part = bar.part(4)
    part.advance(2)
    part.reach(1)  # never back
    part.advance(9)  # never past the part
    assert bar.done == 4
    part = bar.part(3)
    part.close()  # fewer units than planned: jump to the part's end
    bar.reach(99)
    bar.close()
    bar.close()  # once
    assert [d for d, _, _ in rec.calls] == [0, 2, 4, 7, 10]
    rec.check("demo")
    SILENT.advance()
    assert SILENT.part(3) is SILENT


def test_a_failed_call_ends_the_line_and_reports_no_completion():
    stream = io.StringIO()
    with pytest.raises(RuntimeError):
        with Progress(True, 5, "demo") as bar:
            bar._stream = stream
            bar.advance()
            raise RuntimeError("boom")
    assert stream.getvalue().endswith("\n") and "5/5" not in stream.getvalue()


def test_redraws_are_throttled_but_the_last_line_is_complete(monkeypatch):
    stream = io.StringIO()
    clock = iter(np.arange(0.0, 100.0, 0.01))  # 10 ms per step, redraws every 100 ms
    bar = Progress(True, 50, "demo", stream=stream, clock=lambda: next(clock))
    for _ in range(50):
        bar.advance()
    bar.close()
    lines = stream.getvalue().split("\r")[1:]
    assert 3 <= len(lines) <= 10 and lines[-1].startswith("demo: 50/50 steps, 100%")


def _cli(capsys, monkeypatch, *args):
    from dpinfer.cli import main

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(list(args))
    return code, capsys.readouterr().out, terminal.getvalue()


def test_the_command_shows_progress_on_a_terminal_and_no_progress_turns_it_off(capsys, monkeypatch):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    argv = ("ci", "--z1", "41.3", "--n1", "60", "--z2", "27.9", "--n2", "60", "--epsilon", "1",
            "--format", "json")
    code, out, err = _cli(capsys, monkeypatch, *argv)
    assert code == 0 and err.startswith("\rbinom2_ump_test: ") and err.endswith("\n")  # ci runs the test
    code2, out2, err2 = _cli(capsys, monkeypatch, *argv, "--no-progress")
    assert code2 == 0 and err2 == ""
    assert out2 == out and json.loads(out)  # stdout unchanged, still JSON
