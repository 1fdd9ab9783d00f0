"""The contingency-table study runs with --quick and its numbers agree with exact references."""

import numpy as np
import pytest
from scipy import stats

from validation import table_size
from validation.harness import read_csv


def _exact_pearson_rejection(probs, n, alpha=0.05):
    """Exact P(Pearson X^2 >= chi2_{1, 1-alpha}) for a 2 x 2 multinomial table, by enumeration.

    Every table (a, b, c, d) with a + b + c + d = n is listed (C(n + 3, 3) tables) and its
    multinomial probability summed where X^2 = n (ad - bc)^2 / (row and column products)
    exceeds the critical value; a table with an empty margin does not reject.
    """
    a, b, c = (m.ravel() for m in np.meshgrid(*(np.arange(n + 1),) * 3, indexing="ij"))
    keep = a + b + c <= n
    a, b, c = a[keep], b[keep], c[keep]
    d = n - a - b - c
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    with np.errstate(divide="ignore", invalid="ignore"):
        x2 = np.where(margins > 0, n * (a * d - b * c).astype(float) ** 2 / margins, 0.0)
    p = probs.ravel()
    logpmf = (stats.multinomial.logpmf(np.stack([a, b, c, d], axis=1), n, p))
    return float(np.sum(np.exp(logpmf) * (x2 >= stats.chi2.ppf(1 - alpha, 1))))


def test_table_study_quick(tmp_path):
    assert table_size.main(["--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "table_size_simulate_quick.png").stat().st_size > 10_000
    meta, rows = read_csv(tmp_path / "table_size_simulate_quick.csv")
    assert len(rows) == 2 * 3  # (size, power) x methods at 2 x 2, n = 200, epsilon = 1
    by = {(r["question"], r["method"]): r for r in rows}
    for question in ("size", "power"):
        # The non-private chi-square rate is a Monte Carlo estimate of an exactly computable
        # probability (enumeration of all 2 x 2 tables): within 4 SE of it.
        exact = _exact_pearson_rejection(table_size.cell_probabilities((2, 2), question), 200)
        r = by[(question, "chi2_nonprivate")]
        se = np.sqrt(exact * (1 - exact) / r["reps"])
        assert abs(r["rate"] - exact) < 4 * se
    for method in ("dp_jimi", "gaboardi_mc"):
        size = by[("size", method)]
        # size at most alpha + 4 SE (SE = sqrt(.05 .95 / reps) = 0.0154 at 200 reps)
        assert size["rate"] <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / size["reps"])
        # power exceeds the level by far (this alternative is detected at n = 200, epsilon = 1)
        assert by[("power", method)]["rate"] > 0.3


@pytest.mark.parametrize("shape", [(2, 2), (3, 4)])
def test_alternative_is_stated_and_null_is_independent(shape):
    null = table_size.cell_probabilities(shape, "size")
    alt = table_size.cell_probabilities(shape, "power")
    assert null.sum() == pytest.approx(1) and alt.sum() == pytest.approx(1)
    assert np.allclose(null, np.outer(null.sum(1), null.sum(0)), atol=1e-15)
    assert not np.allclose(alt, np.outer(alt.sum(1), alt.sum(0)), atol=1e-3)
