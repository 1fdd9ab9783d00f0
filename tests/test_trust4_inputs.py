"""Issue 40 (trust, round 4): raw data in messages, crashes, hangs and messages.

Each defect of the issue's bullets "Raw data in a message", "Crashes", "Hangs and
memory" and "Messages and outputs" (the budget's own items excepted) is reproduced
here and is now refused by name or answered right.  The property sweep at the end
gives a recognisable secret to every public function as its data argument.
"""

import io
import os
import warnings

import numpy as np
import pytest

import dpinfer
from dpinfer import ApproximationWarning, LaplaceReleaser, MeanReleaser, prop_test

SECRETS = ("987654", "31415", "12.3456789", "HIV+secret")
SECRET_VALUES = [987654.321, 31415.9265, 12.3456789]


def _clean(text):
    return not any(secret in text for secret in SECRETS)


def _releases():
    rel = MeanReleaser(1.0, 0.0, 10.0)
    return rel.release([1.0, 2.0, 3.0, 4.0, 5.0], rng=1), rel.release([1.0, 2.0, 3.0, 4.0, 6.0], rng=2)


# -- raw data in a message ---------------------------------------------------------------------------------

def _bad_data():
    pd = pytest.importorskip("pandas")
    return [pd.Series(SECRET_VALUES), pd.DataFrame({"bp": SECRET_VALUES}), SECRET_VALUES,
            np.array(SECRET_VALUES), tuple(SECRET_VALUES), SECRET_VALUES[0], "HIV+secret"]


@pytest.mark.parametrize("function", ["mean_test", "mean_jimi_test", "mean_naive_test", "mean_repro_test"])
def test_one_group_mean_tests_never_show_the_data(function):
    # the natural t.test(x) mistake: the raw values where a release belongs
    for bad in _bad_data():
        with pytest.raises((TypeError, ValueError), match="`(x|release)`") as info:
            getattr(dpinfer, function)(bad, sigma=15.0)
        assert _clean(str(info.value)), str(info.value)


@pytest.mark.parametrize("function", ["mean2_jimi_test", "mean2_naive_test", "mean2_repro_test"])
def test_two_group_mean_tests_never_show_the_data(function):
    good, _ = _releases()
    for bad in _bad_data():
        for args in ((bad, good), (good, bad)):
            with pytest.raises((TypeError, ValueError), match="`release[12]`") as info:
                getattr(dpinfer, function)(*args, sigma=2.0)
            assert _clean(str(info.value)), str(info.value)


def test_the_message_says_what_arrived_by_kind_and_size():
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match=r"got a pandas Series of shape \(3,\)"):
        dpinfer.mean_test(pd.Series(SECRET_VALUES), sigma=15)
    with pytest.raises(ValueError, match="got a list of 3 items"):
        dpinfer.mean_test(SECRET_VALUES, sigma=15)
    with pytest.raises(TypeError, match=r"got a pandas DataFrame of shape \(3, 1\)"):
        dpinfer.mean_naive_test(pd.DataFrame({"bp": SECRET_VALUES}))
    with pytest.raises(TypeError, match=r"got an array of dtype float64 and shape \(3,\)"):
        dpinfer.mean_jimi_test(np.array(SECRET_VALUES))
    with pytest.raises(TypeError, match=r"got a number \(float\)"):
        dpinfer.mean_repro_test(SECRET_VALUES[0], sigma=1.0)


def test_y_of_mean_test_never_shows_the_data():
    good, _ = _releases()
    with pytest.raises(TypeError, match="`release2` must be None or a Release") as info:
        dpinfer.mean_test(good, np.array(SECRET_VALUES))
    assert _clean(str(info.value))


# -- crashes -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [True, False, 1, 0, np.int8(3), b"out.json", 2.5])
def test_to_json_refuses_a_path_that_is_not_a_path(path, capsys):
    # open(True) or open(1) would write to, then close, stdout: the next print failed
    result = dpinfer.binom_ump_test(11.2, 30, p0=0.2, epsilon=1.0)
    for method in (result.to_json, result.to_csv, result.conf_int.to_json):
        with pytest.raises(TypeError, match="`path` must be a file path"):
            method(path)
    print("stdout still open")
    assert "stdout still open" in capsys.readouterr().out


def test_to_json_names_path_when_it_cannot_be_written(tmp_path):
    result = dpinfer.binom_ump_test(11.2, 30, p0=0.2, epsilon=1.0)
    with pytest.raises(FileNotFoundError, match="`path` cannot be opened for writing"):
        result.to_json(str(tmp_path / "no such folder" / "out.json"))
    with pytest.raises(ValueError, match="`path` must be a non-empty file path"):
        result.to_json("")
    result.to_json(tmp_path / "out.json")  # a pathlib.Path is a path
    assert (tmp_path / "out.json").read_text().startswith("{")


def test_mean2_repro_test_at_a_tiny_level_is_refused_by_name_not_by_an_internal_name():
    m1, m2 = _releases()
    with pytest.raises(ValueError, match="`confidence_level` must be at least 1e-15"):
        dpinfer.mean2_repro_test(m1, m2, sigma=2.0, confidence_level=1e-20, n_sim=39, rng=1)
    with pytest.raises(ValueError, match="`confidence_level` must be at least 1e-15"):
        dpinfer.binom_ump_test(11.2, 30, p0=0.2, epsilon=1.0, confidence_level=1e-17)


def test_an_empty_repro_set_reports_no_interval_instead_of_crashing():
    # every difference rejected: the set is empty, and an empty set has no ends
    from dpinfer.inference.means.repro._one_group import describe_pieces

    conf_int, words = describe_pieces([], "every difference is rejected", 0.95)
    assert conf_int is None and words == "every difference is rejected"
    conf_int, _ = describe_pieces([(-1.0, 0.5), (2.0, 3.0)], "", 0.9)
    assert (conf_int.low, conf_int.high, conf_int.level) == (-1.0, 3.0, 0.9)


# -- hangs and memory ---------------------------------------------------------------------------------------

def test_mean_repro_test_reports_progress():
    m1, _ = _releases()
    seen = []
    dpinfer.mean_repro_test(m1, 3.0, sigma=2.0, n_sim=99, rng=1, progress=lambda d, t, m: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1] == 99 * 5  # every seed value of the 99 seeds of n = 5
    spread = MeanReleaser(1.0, 0.0, 10.0, spread=True).release(np.linspace(1, 9, 20), rng=3)
    seen.clear()
    dpinfer.mean_repro_test(spread, 3.0, n_sim=19, rng=1, progress=lambda d, t, m: seen.append((d, t, m)))
    assert [d for d, _, _ in seen][-1] == 3 and "p-value" in seen[-1][2]
    with pytest.raises(TypeError, match="`progress` must be None"):
        dpinfer.mean_repro_test(m1, 3.0, sigma=2.0, progress="yes")


def test_jimi_mean_tests_report_progress():
    spread = MeanReleaser(1.0, 0.0, 10.0, spread=True).release(np.linspace(1, 9, 20), rng=3)
    seen = []
    with pytest.warns(ApproximationWarning, match="two-sided 95% intervals"):  # n = 20 with the spread released
        dpinfer.mean_jimi_test(spread, 4.0, n_sim=50, rng=1, progress=lambda d, t, m: seen.append((d, t)))
    assert seen[-1] == (50 * 20, 50 * 20)
    seen.clear()
    dpinfer.mean2_jimi_test(spread, spread, n_sim=50, rng=1, progress=lambda d, t, m: seen.append((d, t)))
    assert seen[-1] == (50 * 40, 50 * 40) and all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    with pytest.raises(TypeError, match="`progress` must be None"):
        dpinfer.mean_jimi_test(spread, 4.0, progress=3)


def test_mean2_repro_test_names_its_last_stage():
    # the line stopped at 99% of the sweep while the p-value at delta0 was computed (issue 40)
    m1, m2 = _releases()
    seen = []
    dpinfer.mean2_repro_test(m1, m2, sigma=2.0, n_sim=39, rng=1, statistic="difference", progress=lambda d, t, m: seen.append((d, t, m)))
    assert seen[-1][0] == seen[-1][1] and "(p-value at margin)" in seen[-2][2] and seen[-2][0] < seen[-2][1]


def test_repro_cost_is_refused_from_public_sizes_with_the_limit_named():
    rel = MeanReleaser(1.0, 0.0, 10.0, spread=True)
    big = rel.release(np.linspace(1, 9, 2000), rng=1)
    # the 217 s: n = 2000 with the spread released, 399 seeds
    with pytest.raises(ValueError, match=r"`n_sim` times n must be at most 200_000 for mean_repro_test .*"
                                         r"n_sim = 399 with n = 2000: give n_sim = 100 or fewer"):
        dpinfer.mean_repro_test(big, 5.0)
    # the 228 s at 99%: two groups of 2000
    with pytest.raises(ValueError, match=r"at most 200_000 for mean2_repro_test \(two groups, statistic='difference'\).*"
                                         r"n = 2000 \+ 2000: give n_sim = 50 or fewer"):
        dpinfer.mean2_repro_test(big, big, sigma=2.0, statistic="difference")


def test_jimi_draws_in_blocks_give_the_same_answer(monkeypatch):
    # Memory is bounded by blocks of draws; the stream is that of one block, so the answer does not
    # depend on the block size.  The exact alternative: the same call with one block for everything.
    import dpinfer.inference.means._common as common

    spread = MeanReleaser(1.0, 0.0, 10.0, spread=True).release(np.linspace(1, 9, 30), rng=1)
    plain = MeanReleaser(1.0, 0.0, 10.0).release(np.linspace(1, 9, 30), rng=1)
    def spread_call():
        with pytest.warns(ApproximationWarning, match="two-sided 95% intervals"):  # n = 30, spread released
            return dpinfer.mean_jimi_test(spread, 4.0, n_sim=400, rng=1)

    calls = [spread_call,
             lambda: dpinfer.mean_jimi_test(plain, 4.0, sigma=2.0, model="lognormal", n_sim=400, rng=2),
             lambda: dpinfer.mean2_jimi_test(spread, plain, sigma=(2.0, 2.0), n_sim=400, rng=3)]
    whole = [(c().pvalue, tuple(c().conf_int)) for c in calls]
    for block in (30 * 7, 30 * 400 - 1, 31):
        monkeypatch.setattr(common, "_BLOCK", block)
        assert [(c().pvalue, tuple(c().conf_int)) for c in calls] == whole


# -- messages and outputs -------------------------------------------------------------------------------------

@pytest.mark.parametrize("effect", [False, "", [], np.array(["ratio", "difference"]), 0, "Ratio"])
def test_prop_test_effect_is_refused_by_name(effect):
    a = LaplaceReleaser(1.0).proportion(11, 30, rng=1)
    b = LaplaceReleaser(1.0).proportion(18, 30, rng=2)
    with pytest.raises((TypeError, ValueError),
                       match="`effect` must be None or one of 'difference', 'ratio', 'odds-ratio'"):
        prop_test(a, b, effect=effect)


def test_mean_test_names_its_own_null_not_delta0():
    m1, m2 = _releases()
    for method in ("jimi", "naive", "repro"):
        with pytest.raises(ValueError, match="`margin` must be a finite real number; got nan"):
            dpinfer.mean_test(m1, m2, margin=float("nan"), method=method, sigma=2.0)
        with pytest.raises(ValueError, match="`mu0` must be a finite real number; got nan"):
            dpinfer.mean_test(m1, mu0=float("nan"), method=method, sigma=2.0)


def test_allocation_plan_of_a_0d_array_is_refused_by_name():
    with pytest.raises(TypeError, match="`lines` must be a sequence of"):
        dpinfer.AllocationPlan(np.array(np.nan))


def test_mean_releaser_refuses_a_split_at_construction_naming_split():
    with pytest.raises(ValueError, match=r"`split` must leave each of the sum and the squares an epsilon of at "
                                         r"least 1e-12.*split = 0.99999999999909"):
        MeanReleaser(1.0, 0.0, 10.0, spread=True, split=1 - 2**-40)
    MeanReleaser(1.0, 0.0, 10.0, split=1 - 2**-40)  # without the spread the split is not used
    MeanReleaser(1.0, 0.0, 10.0, spread=True, split=0.999)


def test_power_curve_label_is_refused_by_name():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from dpinfer.plot import power_curve

    for label in ([], 3, ("a",)):
        with pytest.raises(TypeError, match="`label` must be None or a string"):
            power_curve(dpinfer.binom_ump_power, [0.3, 0.4], n=30, p0=0.2, epsilon=1.0, label=label)


def test_logistic_jimi_names_the_shape_before_asking_for_epsilon():
    with pytest.raises(ValueError, match=r"`table` must hold one k x 2 table .* got shape \(\)"):
        dpinfer.logistic_jimi(12.5)
    with pytest.raises(ValueError, match=r"got shape \(3,\)"):
        dpinfer.logistic_jimi([1.5, 2.5, 3.5])
    with pytest.raises(TypeError, match="`epsilon` must be given with bare noisy counts"):
        dpinfer.logistic_jimi([[1.5, 2.5], [3.5, 4.5]])


def test_a_short_released_vector_prints_its_values():
    rel = MeanReleaser(1.0, 0.0, 10.0, spread=True).release([1.0, 2.0, 3.0], rng=1)
    text = str(rel)
    s, q = (float(v) for v in rel.value)
    assert "array of" not in text and f"{s:.7g}"[:6] in text and f"{q:.7g}"[:6] in text


def _run(args, capsys):
    from dpinfer.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr()


def test_mean_release_split_needs_spread(tmp_path, capsys):
    path = tmp_path / "bp.csv"
    path.write_text("bp\n1\n2\n3\n")
    code, out = _run(["mean-release", "--csv", path, "--column", "bp", "--lower", 0, "--upper", 10,
                      "--epsilon", 1, "--split", 0.3, "--seed", 1], capsys)
    assert code == 2 and "--split shares epsilon between the sum and the squares, so it needs --spread" in out.err
    code, out = _run(["mean-release", "--csv", path, "--column", "bp", "--lower", 0, "--upper", 10,
                      "--epsilon", 1, "--split", 0.3, "--spread", "--seed", 1], capsys)
    assert code == 0 and "epsilon split 0.3 (sum) / 0.7 (squares)" in out.out
    assert "array of" not in out.out  # the text format keeps the release's two values


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_mean_release_spread_with_a_budget_on_the_hardened_path_keeps_the_release(tmp_path, capsys, fmt):
    # issue 40: 'mean-release --spread --budget' charged the ledger and then printed "array of 2 values"
    # (text), and its --format csv file could not be read back: a charged release was lost.  Now, as
    # 'release --budget': charged, the ledger on disk, then the whole release printed in a form read back.
    import json
    import re

    from dpinfer import PrivacyBudget
    from dpinfer.cli._input import _releases_from_file

    data, ledger = tmp_path / "bp.csv", tmp_path / "ledger.json"
    data.write_text("bp\n" + "\n".join(str(v) for v in [121.5, 130.25, 118.0, 140.75, 125.5] * 4) + "\n")
    code, out = _run(["mean-release", "--csv", data, "--column", "bp", "--lower", 80, "--upper", 180,
                      "--epsilon", 1, "--spread", "--budget", ledger, "--total-epsilon", 3, "--format", fmt], capsys)
    assert code == 0, out.err
    budget = PrivacyBudget.from_json(ledger.read_text())
    assert len(budget.ledger) == 1 and budget.spent_epsilon == 1.0
    if fmt == "text":
        (pair,) = re.findall(r"value: +c\(([^)]*)\)", out.out)
        values = [float(v) for v in pair.split(", ")]  # every digit, both statistics
        assert len(values) == 2 and "array of" not in out.out
        assert budget.head_digest in out.out.replace("\n", "").replace(" ", "")
        assert "sampling:    hardened" in out.out
        return
    file = tmp_path / f"release.{fmt}"
    file.write_text(out.out)
    (release,) = _releases_from_file(str(file))
    assert release.secure and release.ledger_digest == budget.head_digest
    assert release.value.shape == (2,) and release.bounds == (80.0, 180.0) and release.split == (0.5, 0.5)
    if fmt == "json":
        assert list(release.value) == json.loads(out.out)["value"]
    code, out = _run(["mean-test", "--release", file, "--mu0", 125], capsys)
    assert code == 0 and "spread released" in out.out, out.err


def test_mean_release_with_a_budget_prints_nothing_when_the_ledger_cannot_be_written(tmp_path, capsys,
                                                                                     monkeypatch):
    # the order 'release --budget' keeps: no release is shown whose charge is not on disk
    import dpinfer.cli._ledger_file as lf

    def broken(handle):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lf, "_flush_to_disk", broken)
    data, ledger = tmp_path / "bp.csv", tmp_path / "ledger.json"
    data.write_text("bp\n121.5\n130.25\n118.0\n")
    code, out = _run(["mean-release", "--csv", data, "--column", "bp", "--lower", 80, "--upper", 180,
                      "--epsilon", 1, "--spread", "--budget", ledger, "--total-epsilon", 3], capsys)
    assert code == 2 and "cannot write ledger file" in out.err
    assert out.out == "" and not ledger.exists()


@pytest.mark.parametrize("text, message", [
    ("id,bp\n1,120\n2,987654,31415\n3,130\n", "data row 2 has 3 cells and the header has 2"),
    ("bp,bp\n120,987654\n130,31415\n", "column 'bp' is named 2 times in the header"),
])
def test_mean_release_refuses_ragged_rows_and_duplicate_columns(text, message, tmp_path, capsys):
    path = tmp_path / "bp.csv"
    path.write_text(text)
    code, out = _run(["mean-release", "--csv", path, "--column", "bp", "--lower", 0, "--upper", 200,
                      "--epsilon", 1, "--seed", 1], capsys)
    assert code == 2 and message in out.err
    assert _clean(out.err + out.out)


def test_r_bridge_spells_r_names_and_counts_positions_from_one():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "dpinfer_r", os.path.join(os.path.dirname(__file__), "..", "r", "inst", "python", "dpinfer_r.py"))
    bridge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bridge)
    assert bridge.call("binom_ump_test", [11.2, 30], {"p0": 2.0, "epsilon": 1.0})["error"].endswith(
        "`p` must lie in (0, 1); got 2.0.")
    assert "`p1` must lie in [0, 1]" in bridge.call("binom2_ump_power", [1.5, 0.3, 30, 30], {"epsilon": 1.0})["error"]
    krr = dpinfer.KRRReleaser(1.0, 4)
    assert "position (2, 1) is not" in bridge.call(krr.release, [[[0, 1], [987654, 2]]], {})["error"]
    assert "position 3 is not" in bridge.call(krr.release, [[0, 1, 987654, 2]], {})["error"]


# -- property: a secret in any bad argument of any public function is never shown ----------------------------
# The fuzz harness holds a valid call of every public name (tests/test_fuzz.py, SPECS; a test there fails when
# a public name has none).  Each argument of each call is replaced in turn by data holding recognisable
# secrets; whatever happens (a refusal, a warning, an answer), its text never holds a secret.

def _specs():
    import test_fuzz

    return test_fuzz.SPECS


#: The arguments that take confidential data (a releaser's input) or where raw data are the natural
#: mistake (a slot for a Release: ``mean_test(x)`` given the column, as ``t.test(x)``).  Released values
#: (``z``, ``pi_hat``) and public parameters are public: a refusal may show them.
_DATA_ARGS = {"x", "y", "value", "table", "release", "release1", "release2", "releases", "reports", "answers",
              "categories", "control", "arms"}


def _secret_inputs():
    pd = pytest.importorskip("pandas")
    return [SECRET_VALUES, np.array(SECRET_VALUES), pd.Series(SECRET_VALUES), pd.DataFrame({"v": SECRET_VALUES}),
            [[SECRET_VALUES[0], 1.0], [2.0, SECRET_VALUES[1]]], "HIV+secret", ["HIV+secret", 1.0]]


def _takes_released_values(name, arg):
    """Whether ``arg`` of spec ``name`` holds released (public) numbers: the value of a Release record, the
    released tables of the DP-JIMI and Monte Carlo tests of independence, an audit's test points, the
    points where a distribution is evaluated."""
    return (name, arg) in {("Release", "value"), ("independence_jimi_test", "table"), ("Tulap", "x"),
                           ("Tulap.ccdf", "x"),
                           ("independence_mc_test", "table"), ("audit_releaser", "x")}


def _data_args(name):
    return [arg for arg in _specs()[name][1] if arg in _DATA_ARGS and not _takes_released_values(name, arg)]


@pytest.mark.parametrize("name", [name for name in sorted(_specs()) if _data_args(name)])
def test_no_public_function_shows_a_secret(name, tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)  # a function that writes a file writes it here
    call, baseline, _ = _specs()[name]
    for arg in _data_args(name):
        for bad in _secret_inputs():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    out = call({**baseline, arg: bad})
                except Exception as exc:  # noqa: BLE001 -- any refusal; only its text matters here
                    text = f"{type(exc).__name__}: {exc}"
                else:
                    text = repr(out) + str(out)
            text += "".join(str(w.message) for w in caught) + caplog.text
            assert _clean(text), f"{name}({arg}=<secret>): {text[:300]}"


def test_an_unbounded_interval_end_is_written_inf_not_null():
    # null meant "not computed"; an unbounded end is an answer (the two-group repro interval below)
    import json

    gen = np.random.default_rng(5)
    releaser = MeanReleaser(1.0, 80.0, 180.0)
    result = dpinfer.mean2_repro_test(releaser.release(gen.normal(125.0, 15.0, 100), rng=6),
                                      releaser.release(gen.normal(135.0, 15.0, 100), rng=7), sigma=15.0,
                                      statistic="difference")
    assert result.conf_int.low == -np.inf  # the releases cannot exclude large differences (clipping)
    record = json.loads(result.to_json())
    assert record["conf_low"] == "-Inf" and isinstance(record["conf_high"], float)
    assert result.to_dict()["conf_low"] == -np.inf and result.to_htest()["conf.int"][0] == -np.inf
    assert result.to_frame()["conf_low"].iloc[0] == -np.inf
