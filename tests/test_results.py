"""HTestResult / ConfidenceInterval: golden text against R's print.htest, dicts, tidy frames.

The golden texts are built by hand from R's rules (stats:::print.htest and
base::format.pval, R >= 3.5, getOption("digits") = 7):

* the method is ``strwrap(x$method, prefix = "\\t")`` (lines shorter than 72 chars);
* ``data:  `` (two spaces) then ``x$data.name``;
* ``names(statistic) = format(statistic, digits = 5)``, the same for the parameter,
  then ``p-value = format.pval(p, digits = 4)`` (``p-value < 2.2e-16`` below
  ``.Machine$double.eps``), joined by ", " and strwrap()ed;
* ``alternative hypothesis: true <null name> is <not equal to|less than|greater than> <cat(null)>``;
* ``<format(100 * level)> percent confidence interval:`` then a space and the two
  endpoints formatted together with 7 digits;
* ``sample estimates:`` then print() of the named vector (right-justified, each
  field followed by one space), and a final empty line.

The numbers of the binom.test goldens come from scipy.stats.binomtest (exact
binomial test, Clopper-Pearson interval), an implementation independent of dpinfer.
"""

import json
import math

import pytest
from scipy import stats

from dpinfer import ConfidenceInterval, HTestResult, results_to_frame
from dpinfer._printing import _r_format, _r_format_pval

pd = pytest.importorskip("pandas")


def _binom_result(x, n, p=0.5, alternative="two-sided", **extra):
    """An HTestResult carrying what R's binom.test(x, n, p, alternative) carries."""
    ref = stats.binomtest(x, n, p, alternative=alternative)
    ci = ref.proportion_ci(confidence_level=0.95, method="exact")
    fields = dict(
        statistic=x, parameter=n, statistic_name="number of successes",
        parameter_name="number of trials", pvalue=ref.pvalue, null_value=p,
        alternative=alternative, method="Exact binomial test", estimate=x / n,
        conf_int=ConfidenceInterval(ci.low, ci.high, 0.95), epsilon=1.0,
        data_name=f"{x} and {n}",
    )
    fields.update(extra)
    return HTestResult(**fields)


# R> binom.test(7, 24)
R_BINOM_7_24 = """
\tExact binomial test

data:  7 and 24
number of successes = 7, number of trials = 24, p-value = 0.06391
alternative hypothesis: true probability of success is not equal to 0.5
95 percent confidence interval:
 0.1261521 0.5109478
sample estimates:
probability of success 
             0.2916667 

"""

# R> binom.test(0, 10): fixed notation for p = 0.001953125 (exponent -3), the
# estimate 0 printed as "0", the interval's 0 padded to the decimals of its partner.
R_BINOM_0_10 = """
\tExact binomial test

data:  0 and 10
number of successes = 0, number of trials = 10, p-value = 0.001953
alternative hypothesis: true probability of success is not equal to 0.5
95 percent confidence interval:
 0.0000000 0.3084971
sample estimates:
probability of success 
                     0 

"""


def test_golden_binom_test_7_of_24():
    r = _binom_result(7, 24)
    assert str(r) == R_BINOM_7_24 + "privacy: epsilon = 1, delta = 0\n"


def test_golden_binom_test_0_of_10():
    r = _binom_result(0, 10)
    assert str(r) == R_BINOM_0_10 + "privacy: epsilon = 1, delta = 0\n"


def test_golden_one_sided_interval_pads_to_common_decimals():
    # R> binom.test(7, 24, p = 0.2, alternative = "greater"): the upper end 1 prints as 1.0000000.
    r = _binom_result(7, 24, p=0.2, alternative="greater")
    lines = str(r).splitlines()
    low = stats.binomtest(7, 24, 0.2, alternative="greater").proportion_ci(0.95, "exact").low
    assert lines[5] == "alternative hypothesis: true probability of success is greater than 0.2"
    assert lines[7] == f" {low:.7f} 1.0000000"


def test_golden_dp_layout_with_privacy_line_and_tiny_pvalue():
    r = HTestResult(
        statistic=28.31, pvalue=1e-20, null_value=0.2, alternative="greater",
        method="DP-UMP test for a binomial proportion (Tulap release)",
        estimate=28.31 / 30, conf_int=ConfidenceInterval(0.71, 1.0, 0.9),
        epsilon=0.5, delta=1e-6, data_name="z = 28.31, n = 30", statistic_name="z",
        mechanism="Tulap",
    )
    expected = (
        "\n\tDP-UMP test for a binomial proportion (Tulap release)\n\n"
        "data:  z = 28.31, n = 30\n"
        "z = 28.31, p-value < 2.2e-16\n"
        "alternative hypothesis: true probability of success is greater than 0.2\n"
        "90 percent confidence interval:\n"
        " 0.71 1.00\n"
        "sample estimates:\n"
        "probability of success \n"
        "             0.9436667 \n"
        "\n"
        "privacy: epsilon = 0.5, delta = 1e-06, Tulap mechanism\n"
    )
    assert str(r) == expected


def test_golden_monte_carlo_privacy_line():
    r = HTestResult(statistic=0.31, pvalue=0.0421, null_value=0.5, alternative="less",
                    method="DP-JIMI", estimate=0.31, conf_int=None, epsilon=1.0,
                    mechanism="Laplace", n_sim=10000, statistic_name="pi_hat")
    assert str(r).splitlines()[-1] == "privacy: epsilon = 1, delta = 0, Laplace mechanism, 10000 Monte Carlo draws"
    assert "confidence interval" not in str(r)


def test_long_method_and_statistic_lines_wrap_like_strwrap():
    method = ("DP-UMP unbiased two-sided test for a binomial proportion from a Tulap-noised "
              "count, asymptotically unbiased p-value")
    r = HTestResult(statistic=1.0, pvalue=0.5, null_value=0.5, alternative="two-sided",
                    method=method, estimate=None, conf_int=None, epsilon=1.0,
                    statistic_name="a very long statistic name for the released noisy count",
                    parameter=1234.5, parameter_name="another long parameter name")
    lines = str(r).splitlines()
    # strwrap at width 72 (R's default 0.9 * getOption("width")): words never split
    assert lines[1] == "\tDP-UMP unbiased two-sided test for a binomial proportion from a"
    assert lines[2] == "\tTulap-noised count, asymptotically unbiased p-value"
    assert lines[5] == "a very long statistic name for the released noisy count = 1, another"
    assert lines[6] == "long parameter name = 1234.5, p-value = 0.5"
    assert all(len(line.lstrip("\t")) < 72 for line in lines)


def test_strwrap_boundaries_follow_r():
    # base R strwrap: a line holds the words whose cumsum(nchar + 1) <= 72 - nchar(prefix),
    # and nchar("\t", type = "w") is 1, so the method line (prefix "\t") holds at most 70
    # characters and the statistic line (no prefix) 71.
    from dpinfer._printing import _strwrap

    seventy_one = "x" * 60 + " " + "y" * 10
    assert _strwrap(seventy_one) == [seventy_one]
    assert _strwrap(seventy_one, prefix="\t") == ["\t" + "x" * 60, "\t" + "y" * 10]
    assert _strwrap("x" * 59 + " " + "y" * 10, prefix="\t") == ["\t" + "x" * 59 + " " + "y" * 10]
    # R> strwrap("End.  Next  word")  gives "End.  Next word": blanks collapse except after a sentence end
    assert _strwrap("End.  Next  word") == ["End.  Next word"]
    hyphenated = "a-very-long-hyphenated-word"  # 27 characters: two fit in 71, three do not
    assert _strwrap(f"{hyphenated} " * 3) == [f"{hyphenated} {hyphenated}", hyphenated]
    assert _strwrap("w" * 100) == ["w" * 100]  # words are never broken
    r = HTestResult(statistic=1.0, pvalue=0.5, null_value=0.5, alternative="less", method=seventy_one,
                    estimate=None, conf_int=None, epsilon=1.0)
    assert str(r).splitlines()[1:3] == ["\t" + "x" * 60, "\t" + "y" * 10]


@pytest.mark.parametrize(
    ("values", "digits", "expected"),
    [
        # R> format(c(0.1261521, 0.5109478), digits = 7)
        ([0.12615208852368912, 0.5109478138578329], 7, ["0.1261521", "0.5109478"]),
        ([0.06391465663909912], 4, ["0.06391"]),
        ([1.234567e-5], 4, ["1.235e-05"]),     # sci narrower than 0.00001235
        ([0.0001234], 4, ["0.0001234"]),       # tie in width: R keeps fixed
        ([123456789], 7, ["123456789"]),
        ([100000], 7, ["1e+05"]),              # R> format(1e5) is "1e+05"
        ([123456], 7, ["123456"]),
        ([1e-20], 7, ["1e-20"]),
        ([0, 0.48], 7, ["0.00", "0.48"]),
        ([-math.inf, 0.5], 7, ["-Inf", " 0.5"]),
        ([1e-300, 1.0], 7, ["1e-300", " 1e+00"]),  # R pads to the 3-digit exponent width
        ([95.0], 7, ["95"]),
    ],
)
def test_r_format_matches_r_format_default(values, digits, expected):
    assert _r_format(values, digits) == expected


@pytest.mark.parametrize(
    ("pvalue", "expected"),
    [(1.0, "1"), (0.5, "0.5"), (0.049999, "0.05"), (1.2341e-4, "0.0001234"),
     (1.2341e-7, "1.234e-07"), (2.3e-16, "2.3e-16"), (1e-17, "< 2.2e-16"), (0.0, "< 2.2e-16")],
)
def test_format_pval_matches_r(pvalue, expected):
    assert _r_format_pval(pvalue) == expected


def test_to_dict_is_flat_and_json_safe():
    r = _binom_result(7, 24)
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["conf_low"] == pytest.approx(0.12615208852368912)
    assert d["parameter"] == 24.0 and d["parameter_name"] == "number of trials"
    inf = HTestResult(statistic=math.inf, pvalue=0.0, null_value=0.5, alternative="greater",
                      method="m", estimate=None, conf_int=ConfidenceInterval(-math.inf, 1.0, 0.95),
                      epsilon=1.0)
    d = inf.to_dict()
    assert d["statistic"] is None and d["estimate"] is None
    # an unbounded end is an answer, not "not computed" (issue 40): kept as -inf, written "-Inf" (R's)
    assert d["conf_low"] == -math.inf
    text = inf.to_json()
    assert "Infinity" not in text and json.loads(text)["conf_low"] == "-Inf" and json.loads(text)["statistic"] is None
    assert inf.to_csv().splitlines()[1].split(",")[4] == "-Inf"


def test_to_frame_has_broom_columns():
    frame = _binom_result(7, 24).to_frame()
    assert list(frame.columns[:6]) == ["estimate", "statistic", "pvalue", "parameter", "conf_low", "conf_high"]
    assert {"method", "alternative", "conf_level", "epsilon", "delta", "mechanism", "n_sim"} <= set(frame.columns)
    row = frame.iloc[0]
    assert row["pvalue"] == pytest.approx(stats.binomtest(7, 24).pvalue, rel=1e-15)
    assert row["method"] == "Exact binomial test" and row["alternative"] == "two-sided"


def test_results_to_frame_stacks_in_order():
    results = [_binom_result(x, 24) for x in (3, 7, 12)]
    frame = results_to_frame(results)
    assert frame.shape[0] == 3
    assert list(frame["statistic"]) == [3.0, 7.0, 12.0]
    assert list(frame["pvalue"]) == [r.pvalue for r in results]
    assert list(frame.columns) == list(results[0].to_frame().columns)
    assert results_to_frame(iter(results)).shape == (3, frame.shape[1])


def test_results_to_frame_rejects_other_objects():
    with pytest.raises(TypeError, match="element 1 is ConfidenceInterval"):
        results_to_frame([_binom_result(7, 24), ConfidenceInterval(0.1, 0.2, 0.95)])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(pvalue=1.5), ValueError, r"`pvalue` must lie in \[0, 1\]; got 1.5"),
        (dict(alternative="two.sided"), ValueError, "R's 'two.sided' is spelled 'two-sided'"),
        (dict(conf_int=(0.1, 0.2)), TypeError, "`conf_int` must be a ConfidenceInterval"),
    ],
)
def test_htest_result_rejects_bad_fields(kwargs, error, match):
    fields = dict(statistic=1.0, pvalue=0.5, null_value=0.5, alternative="less", method="m",
                  estimate=None, conf_int=None, epsilon=1.0)
    fields.update(kwargs)
    with pytest.raises(error, match=match):
        HTestResult(**fields)


def test_confidence_interval_checks_and_prints():
    ci = ConfidenceInterval(0.12615208852368912, 0.5109478138578329, 0.95)
    assert str(ci) == "95 percent confidence interval: [0.1261521, 0.5109478]"
    assert ci.contains(0.3) and not ci.contains(0.6)
    with pytest.raises(ValueError, match="`low` must not exceed `high`"):
        ConfidenceInterval(0.6, 0.5, 0.95)
    with pytest.raises(ValueError, match=r"give 0.95, not 95"):
        ConfidenceInterval(0.1, 0.5, 95)


def test_simulated_zero_pvalue_prints_the_monte_carlo_floor():
    # With n_sim = 10000 draws and none on the null side, the p-value is below
    # 1/10000; R's format(1e-4, digits = 4) prints "1e-04".
    r = HTestResult(statistic=0.9, pvalue=0.0, null_value=0.2, alternative="greater",
                    method="m", estimate=0.9, conf_int=None, epsilon=1.0, n_sim=10_000)
    assert "p-value < 1e-04" in str(r)
    exact = HTestResult(statistic=0.9, pvalue=0.0, null_value=0.2, alternative="greater",
                        method="m", estimate=0.9, conf_int=None, epsilon=1.0)
    assert "p-value < 2.2e-16" in str(exact)
