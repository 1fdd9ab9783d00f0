"""Issue 18, item 7: one regression test per crash or raw error of the list.

Each reproducer used to raise an internal error (or a raw Python one, or emit a
RuntimeWarning, or exhaust memory, or hang); each now answers or refuses with a
TypeError/ValueError that names the argument and the rule.
"""

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import dpinfer as d
from dpinfer.cli import main


def test_rr_two_sample_all_no_vs_all_yes():
    res = d.rr_two_sample_test(yes_count1=0, n1=2, yes_count2=2, n2=2, epsilon=1.0)
    assert -1.0 <= res.conf_int.low <= res.conf_int.high <= 1.0


def test_rr_two_sample_raw_difference_above_one():
    res = d.rr_two_sample_test(yes_count1=60, n1=100, yes_count2=3, n2=100, epsilon=1.0)
    assert -1.0 <= res.conf_int.low <= res.conf_int.high <= 1.0


@pytest.mark.parametrize("call", [
    lambda: d.TulapReleaser(10**400),
    lambda: d.LaplaceReleaser(1.0, 10**400),
    lambda: d.binom_ump_test(10**400, 30, epsilon=1.0),
    lambda: d.binom_ump_test(3, 30, 0.1, epsilon=10**400),
    lambda: d.binom_jimi_ci([0.1, 10**400], 30, epsilon=1.0, n_sim=None),
])
def test_int_beyond_double_range_is_a_value_error(call):
    with pytest.raises(ValueError, match="within the range of doubles"):
        call()


def test_int_with_more_than_4300_digits_is_named_not_printed():
    with pytest.raises(ValueError, match=r"`n` must be an integer <= .*an integer of 16610 bits"):
        d.binom_ump_test(3, 10**5000, epsilon=1.0)


def test_ump_phi_subnormal_alpha():
    with pytest.raises(ValueError, match="`alpha` must be at least 1e-300"):
        d.binom_ump_phi(30, .25, epsilon=1, alpha=5e-324, alternative='two-sided',
                        two_sided_method='umpu', x=[3])


# a bare value in (0, 1) draws the InputWarning (read as a count) by design; not the point here
@pytest.mark.filterwarnings("ignore::dpinfer.InputWarning")
def test_ump_test_subnormal_release_no_runtime_warning():
    # filterwarnings = error: a RuntimeWarning would fail this test.  A release of
    # 1e-320 is 1e-300 (and 0, which is no release) up to far below double resolution of the p-value.
    assert d.binom_ump_test(1e-320, 30, 0.1, epsilon=1).pvalue == d.binom_ump_test(1e-300, 30, 0.1, epsilon=1).pvalue


def test_contains_none_and_nan():
    ci = d.ConfidenceInterval(.2, .5, .95)
    with pytest.raises(TypeError, match="`value` must be a real number; got None"):
        ci.contains(None)
    with pytest.raises(ValueError, match="`value` must be a real number, not NaN"):
        ci.contains(math.nan)


def test_jimi_n_sim_limit_before_allocation():
    with pytest.raises(ValueError, match=r"`n_sim` must be at most 10_000_000 .*n_sim=None"):
        d.binom_jimi_ci(.3013, 100, epsilon=1, n_sim=10**9, rng=1)
    with pytest.raises(ValueError, match=r"`n_sim` must be at most 10_000_000"):
        d.binom2_jimi_test(.3013, 100, .2017, 100, epsilon=1, n_sim=10**8, rng=1)


def test_unary_encoding_width_limit_before_allocation():
    with pytest.raises(ValueError, match=r"at most 268_435_456 are built"):
        d.UnaryEncodingReleaser(1.0, d=10**15).release([0], rng=1)
    with pytest.raises(ValueError, match=r"\(bins = 1000000000000\)"):
        d.LDPHistogramReleaser(1.0, bins=10**12).release([0.5], rng=1)


def test_frequency_cov_size_limit_before_allocation():
    with pytest.raises(ValueError, match=r"covariance matrix would have 900_000_000 entries \(k = 30000"):
        d.krr_frequency_cov(counts=np.ones(30_000), epsilon=1.0, k=30_000)
    with pytest.raises(ValueError, match=r"\(d = 30000"):
        d.unary_frequency_cov(bit_counts=np.ones(30_000), n=10, epsilon=1.0)


def test_audit_names_x_prime():
    with pytest.raises(ValueError, match=r"the mechanism rejected `x_prime`"):
        d.audit_releaser(d.TulapReleaser(1.0), 3, 31, args=(30,), n_samples=100, rng=1)


def test_jimi_exact_limit_still_checks_rng():
    with pytest.raises(TypeError, match="`rng` must be None, an integer seed"):
        d.binom_jimi_test(.3013, 100, epsilon=1, n_sim=None, rng='0.5')


def test_decimal_accepted_like_fraction():
    a = d.binom_ump_test(Decimal("3.2"), 30, 0.1, epsilon=1).pvalue
    b = d.binom_ump_test(Fraction(16, 5), 30, 0.1, epsilon=1).pvalue
    assert a == b == d.binom_ump_test(3.2, 30, 0.1, epsilon=1).pvalue
    assert d.binom_ump_test(3.2, 30, Decimal("0.1"), epsilon=Decimal(1)).pvalue == b


@pytest.mark.parametrize("content, match", [
    ("response,notes\n1," + "a" * 140_000 + "\n", "field larger than field limit"),
    ("response\n" + "\0" * (1 << 21), "line longer than 1_048_576 characters"),
])
def test_cli_csv_bad_files(tmp_path, capsys, content, match):
    path = tmp_path / "data.csv"
    path.write_text(content)
    assert main(["release", "--csv", str(path), "--column", "response", "--epsilon", "1", "--seed", "1"]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.parametrize("content, match", [
    ("\0" * (1 << 21), "longer than 1_048_576 characters"),
    ("[" * 100_000 + "]" * 100_000, "nests JSON too deeply"),
])
def test_cli_release_bad_files(tmp_path, capsys, content, match):
    path = tmp_path / "rel.json"
    path.write_text(content)
    assert main(["test", "--release", str(path)]) == 2
    assert match in capsys.readouterr().err


def test_cli_csv_dev_zero_does_not_hang(capsys):
    # /dev/zero is endless and has no newline: refused after one bounded line.
    assert main(["release", "--csv", "/dev/zero", "--column", "r", "--epsilon", "1", "--seed", "1"]) == 2
    assert "line longer than" in capsys.readouterr().err
