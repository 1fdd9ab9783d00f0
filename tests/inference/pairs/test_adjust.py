"""adjust_pvalues against R's p.adjust (R 4 run for real; the calls below), and its errors."""

import numpy as np
import pytest

from dpinfer import HTestResult, adjust_pvalues

P = [0.0102, 0.0431, 0.0304, 0.0051, 0.2, 0.0431, 0.9]
# Rscript -e 'p <- c(0.0102, 0.0431, 0.0304, 0.0051, 0.2, 0.0431, 0.9);
#   for (m in c("holm","hochberg","bonferroni","BH","BY")) cat(m, sprintf("%.17g", p.adjust(p, m)), "\n");
#   cat("n10", sprintf("%.17g", p.adjust(p, "hochberg", n = 10)), "\n");
#   cat("holmn10", sprintf("%.17g", p.adjust(p, "holm", n = 10)), "\n")'
R = {
    ("holm", None): [0.061200000000000004, 0.1724, 0.152, 0.035700000000000003, 0.40000000000000002, 0.1724,
                     0.90000000000000002],
    ("hochberg", None): [0.061200000000000004, 0.1293, 0.1293, 0.035700000000000003, 0.40000000000000002, 0.1293,
                         0.90000000000000002],
    ("bonferroni", None): [0.071400000000000005, 0.30169999999999997, 0.21279999999999999, 0.035700000000000003, 1,
                           0.30169999999999997, 1],
    ("BH", None): [0.035700000000000003, 0.060339999999999998, 0.060339999999999998, 0.035700000000000003,
                   0.23333333333333336, 0.060339999999999998, 0.90000000000000002],
    ("BY", None): [0.092565000000000022, 0.15645300000000001, 0.15645300000000001, 0.092565000000000022,
                   0.60500000000000009, 0.15645300000000001, 1],
    ("hochberg", 10): [0.091800000000000007, 0.2586, 0.2432, 0.051000000000000004, 1, 0.2586, 1],
    ("holm", 10): [0.091800000000000007, 0.30169999999999997, 0.2432, 0.051000000000000004, 1, 0.30169999999999997,
                   1],
}


@pytest.mark.parametrize("method, n", list(R), ids=lambda x: str(x))
def test_identical_to_r_p_adjust(method, n):
    np.testing.assert_allclose(adjust_pvalues(P, method, n=n), R[method, n], rtol=1e-15, atol=0)


def test_fdr_is_bh_none_is_identity_and_results_are_read():
    assert adjust_pvalues(P, "fdr").tolist() == adjust_pvalues(P, "BH").tolist()
    assert adjust_pvalues(P, "none").tolist() == P
    res = [HTestResult(statistic=1.0, pvalue=p, null_value=0.0, alternative="greater", method="m", estimate=None,
                       conf_int=None, epsilon=1.0, delta=0.0, data_name="x") for p in P[:3]]
    np.testing.assert_allclose(adjust_pvalues(res, "holm"), adjust_pvalues(P[:3], "holm"))


@pytest.mark.parametrize("p, method, kw, error, match", [
    ([0.1, 1.5], "holm", {}, ValueError, r"`p` must contain p-values in \[0, 1\]; position 1"),
    ([0.1, float("nan")], "holm", {}, ValueError, "position 1"),
    ([[0.1, 0.2]], "holm", {}, ValueError, "one-dimensional"),
    (["a"], "holm", {}, TypeError, "`p` must be p-values"),
    ([0.1, 0.2], "hommel", {}, ValueError, "`method` must be one of"),
    ([0.1, 0.2], 3, {}, TypeError, "`method` must be one of"),
    ([0.1, 0.2, 0.3], "holm", {"n": 2}, ValueError, "`n` must be at least the number of p-values"),
])
def test_errors(p, method, kw, error, match):
    with pytest.raises(error, match=match):
        adjust_pvalues(p, method, **kw)
