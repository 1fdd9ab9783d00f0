"""DP-JIMI logistic regression with categorical predictors from a noisy k x 2 table."""

import json

import numpy as np
import pytest
from scipy import optimize, special, stats

from dpinfer import (
    ApproximationWarning,
    ContingencyTableReleaser,
    LaplaceReleaser,
    LogisticJimiResult,
    logistic_jimi,
)
from dpinfer.inference.logistic import _design_matrix, _fit_main_effects

TWO_BY_TWO = {"arm": ["placebo", "drug"], "sex": ["F", "M"]}


#: R's model.matrix(~ arm + sex) and model.matrix(~ arm * sex) with contr.treatment, written
#: by hand, rows in the documented order (last predictor fastest): placebo F, placebo M,
#: drug F, drug M.
_TWO_BY_TWO_X = {
    "main-effects": (np.array([[1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]], float),
                     ("(Intercept)", "armdrug", "sexM")),
    "saturated": (np.array([[1, 0, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]], float),
                  ("(Intercept)", "armdrug", "sexM", "armdrug:sexM")),
}


def _glm_mle(x_design, counts):
    """The non-private yardstick: statsmodels' binomial GLM (logit link) of the exact counts
    (columns: failures, successes), R's glm(y ~ ..., binomial, weights = count).

    Fitted to the records (one row per cell and outcome, ``freq_weights`` the counts),
    which is the grouped fit; on grouped proportions statsmodels would take the saturated
    model's exact reproduction of every cell for perfect prediction.  Returns (beta,
    covariance = inverse Fisher information).  The MLE exists only without separation:
    every cell here must hold both outcomes (checked); tables with an empty cell are
    covered by the fiducial-law and coverage tests instead.
    """
    import statsmodels.api as sm

    assert (counts > 0).all(), "an empty cell: the MLE may not exist (separation)"
    k = x_design.shape[0]
    exog = np.repeat(x_design, 2, axis=0)
    endog = np.tile([0.0, 1.0], k)
    fit = sm.GLM(endog, exog, family=sm.families.Binomial(), freq_weights=counts.ravel()).fit(tol=1e-12)
    return np.asarray(fit.params), np.asarray(fit.cov_params())


# --------------------------------------------------------------------------- design
def test_design_matrix_is_r_treatment_contrasts():
    # Written by hand from R's model.matrix(~ a + b) and model.matrix(~ a * b) with
    # contr.treatment, rows in the documented order (last predictor fastest):
    # a1 bx, a1 by, a1 bz, a2 bx, a2 by, a2 bz.
    names, levels = ("a", "b"), (("1", "2"), ("x", "y", "z"))
    main = np.array([[1, 0, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1],
                     [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 0, 1]], float)
    inter = np.array([[0, 0], [0, 0], [0, 0], [0, 0], [1, 0], [0, 1]], float)
    x, terms = _design_matrix(names, levels, "main-effects")
    assert terms == ("(Intercept)", "a2", "by", "bz")
    np.testing.assert_array_equal(x, main)
    x, terms = _design_matrix(names, levels, "saturated")
    assert terms == ("(Intercept)", "a2", "by", "bz", "a2:by", "a2:bz")
    np.testing.assert_array_equal(x, np.hstack([main, inter]))


def test_three_way_saturated_terms_in_r_order():
    # R: colnames(model.matrix(~ a * b * c)) for three two-level factors.
    names, levels = ("a", "b", "c"), (("0", "1"),) * 3
    _, terms = _design_matrix(names, levels, "saturated")
    assert terms == ("(Intercept)", "a1", "b1", "c1", "a1:b1", "a1:c1", "b1:c1", "a1:b1:c1")


# --------------------------------------------------------------------------- the per-draw fit
def test_vectorised_fit_matches_a_per_draw_optimiser():
    # The batched Newton fit against scipy's BFGS on each draw's weighted log-likelihood
    # (an independent optimiser, one draw at a time).  BFGS is run to gtol 1e-10, so both
    # agree to about 1e-6 on coefficients of order 1.
    gen = np.random.default_rng(3)
    x, _ = _design_matrix(("a", "b"), (("1", "2", "3"), ("1", "2")), "main-effects")
    logit = gen.normal(0.0, 1.5, size=(25, 6))
    logit[0, 2] = -25.0  # a cell with a probability near 0
    weights = gen.uniform(1.0, 80.0, size=(25, 6))
    beta, converged = _fit_main_effects(logit, weights, x)
    assert converged.all()
    for h in range(25):
        y = special.expit(logit[h])

        def neg_ll(b, y=y, w=weights[h]):
            eta = x @ b
            return -np.sum(w * (y * eta - np.logaddexp(0.0, eta)))

        def neg_grad(b, y=y, w=weights[h]):
            return -x.T @ (w * (y - special.expit(x @ b)))

        ref = optimize.minimize(neg_ll, np.zeros(x.shape[1]), jac=neg_grad, method="BFGS",
                                options={"gtol": 1e-10, "maxiter": 10_000})
        np.testing.assert_allclose(beta[h], ref.x, atol=1e-6)


# --------------------------------------------------------------------------- the fiducial law
def _fiducial_cdf(t, z0, z1, b):
    """P(logit theta* <= t) by 2-d Gauss-Legendre over the fresh noise (L0, L1).

    theta* ~ Beta(max(z1 - L1, 0) + 1/2, max(z0 - L0, 0) + 1/2), L iid Laplace(0, b); panels
    split at 0 (the density's kink) and at z (the clamp), over [-40 b, 40 b] (tail mass
    e^-40), 80 nodes per panel: accurate to far below the Monte Carlo error compared with.
    """
    def nodes(z):
        cuts = np.unique(np.clip([-40 * b, 0.0, z, 40 * b], -40 * b, 40 * b))
        u, w = np.polynomial.legendre.leggauss(80)
        pts = np.concatenate([(hi - lo) / 2 * u + (hi + lo) / 2 for lo, hi in zip(cuts[:-1], cuts[1:])])
        wts = np.concatenate([(hi - lo) / 2 * w for lo, hi in zip(cuts[:-1], cuts[1:])])
        return pts, wts * np.exp(-np.abs(pts) / b) / (2 * b)

    l0, w0 = nodes(z0)
    l1, w1 = nodes(z1)
    a = np.maximum(z1 - l1, 0.0)[None, :] + 0.5
    c = np.maximum(z0 - l0, 0.0)[:, None] + 0.5
    return float(np.sum(w0[:, None] * w1[None, :] * stats.beta.cdf(special.expit(t), a, c)))


@pytest.mark.parametrize(("z0", "z1", "eps"), [
    (40.3, 12.8, 1.0),   # an ordinary cell
    (25.0, 0.7, 0.5),    # few successes: the clamp at zero is hit often
    (30.0, 9.0, 1e6),    # no noise: Hannig's Beta(x + 1/2, n - x + 1/2)
])
def test_intercept_draws_follow_the_fiducial_law(z0, z1, eps):
    # One binary predictor: the intercept is the reference cell's log-odds, so its draws
    # have the law computed by quadrature above.  At 9 points the empirical cdf of 20000
    # draws must lie within 4 SE (sqrt(F (1 - F) / 20000)) + 1e-6 of it.
    table = np.array([[z0, z1], [20.0, 20.0]])
    fit = logistic_jimi(table, epsilon=eps, n_sim=20_000, draws=True, rng=11)
    b0 = fit.draws[:, 0]
    for q in np.linspace(0.05, 0.95, 9):
        t = np.quantile(b0, q)
        f = _fiducial_cdf(t, z0, z1, 2.0 / eps)
        assert abs(np.mean(b0 <= t) - f) <= 4 * np.sqrt(f * (1 - f) / 20_000) + 1e-6


# --------------------------------------------------------------------------- epsilon -> infinity
@pytest.mark.parametrize("eps", [1.0, 100.0, 1e6])
@pytest.mark.parametrize("model", ["main-effects", "saturated"])
def test_large_epsilon_recovers_the_non_private_mle_and_wald_interval(eps, model):
    # 2 x 2 design, 2e5 records: the fiducial law is then normal to O(n^-1/2) around the
    # MLE with the inverse Fisher information as covariance, and the noise (scale 2/eps,
    # at most 2 against a sampling SD of ~100 per cell) inflates the spread by < 0.1%.
    # Reference: statsmodels' GLM of the exact counts (_glm_mle).  Monte Carlo
    # SE of the median: 1.2533 SE / sqrt(H); of the 2.5% and 97.5% quantiles: sqrt(.025
    # .975 / H) / phi(1.96) SE = 2.67 SE / sqrt(H).  Bound: 4 Monte Carlo SE + 2% of SE
    # (the O(n^-1/2) skewness and the noise) .
    counts = np.array([[30_000, 20_000], [18_000, 32_000], [15_000, 35_000], [8_000, 42_000]], float)
    h = 20_000
    fit = logistic_jimi(counts, design=TWO_BY_TWO, model=model, epsilon=eps, n_sim=h, rng=4)
    x, terms = _TWO_BY_TWO_X[model]
    assert fit.terms == terms
    mle, cov = _glm_mle(x, counts)
    se = np.sqrt(np.diag(cov))
    z = stats.norm.ppf(0.975)
    np.testing.assert_array_less(np.abs(np.array(fit.estimate) - mle), 4 * 1.2533 * se / np.sqrt(h) + 0.02 * se)
    tol = 4 * 2.67 * se / np.sqrt(h) + 0.02 * se
    np.testing.assert_array_less(np.abs(np.array(fit.conf_low) - (mle - z * se)), tol)
    np.testing.assert_array_less(np.abs(np.array(fit.conf_high) - (mle + z * se)), tol)


def test_intervals_narrow_towards_the_non_private_width_as_epsilon_grows():
    # n = 400: the noise (scale 2/eps per cell) dominates at eps = 0.2 and vanishes at 1e6,
    # where the width approaches the Wald width 2 * 1.96 * SE of the exact counts' MLE (GLM)
    # (within 10%: n = 400 is not asymptotic).  Widths at H = 20000 carry a Monte Carlo
    # error below 2%, far below the steps between the epsilons.
    counts = np.array([[60, 40], [35, 65], [30, 70], [15, 85]], float)
    widths = []
    for eps in (0.2, 1.0, 5.0, 1e6):
        fit = logistic_jimi(counts, design=TWO_BY_TWO, epsilon=eps, n_sim=20_000, rng=8)
        widths.append(np.array(fit.conf_high) - np.array(fit.conf_low))
    widths = np.array(widths)
    assert (np.diff(widths, axis=0) < 0).all()
    _, cov = _glm_mle(_TWO_BY_TWO_X["main-effects"][0], counts)
    wald = 2 * stats.norm.ppf(0.975) * np.sqrt(np.diag(cov))
    np.testing.assert_allclose(widths[-1], wald, rtol=0.1)


# --------------------------------------------------------------------------- coverage
@pytest.mark.parametrize(("design", "beta", "n", "eps", "model"), [
    ({"x": ["0", "1"]}, [0.5, 1.0], 100, 1.0, "main-effects"),        # closed form
    (TWO_BY_TWO, [0.5, 1.0, -1.0], 400, 1.0, "main-effects"),         # batched Newton
    (TWO_BY_TWO, [0.5, 1.0, -1.0, 0.0], 400, 2.0, "saturated"),
])
def test_coverage_of_each_coefficient(design, beta, n, eps, model):
    # 300 data sets (predictor cells equally likely, Y from the model), each released by
    # ContingencyTableReleaser (replace-one, seeded) and fitted with 1000 draws.  Coverage
    # of each 95% interval within 4 SE of 0.95, SE = sqrt(.95 .05 / 300) = 0.0126.  The
    # validation study (validation/logistic_coverage.py) measures more settings.
    reps = 300
    names = tuple(design)
    levels = tuple(tuple(v) for v in design.values())
    x, _ = _design_matrix(names, levels, model)
    beta = np.array(beta)
    p1 = special.expit(x @ beta)
    k = x.shape[0]
    probs = np.stack([(1 - p1) / k, p1 / k], axis=1).ravel()
    gen = np.random.default_rng(2025)
    tables = gen.multinomial(n, probs, size=reps).reshape(reps, k, 2)
    releaser = ContingencyTableReleaser(eps)
    covered = np.zeros(len(beta))
    for t in tables:
        fit = logistic_jimi(releaser.release(t, rng=gen), design=design, model=model, n_sim=1000, rng=gen)
        covered += (np.array(fit.conf_low) <= beta) & (beta <= np.array(fit.conf_high))
    se = np.sqrt(0.95 * 0.05 / reps)
    np.testing.assert_array_less(np.abs(covered / reps - 0.95), 4 * se)


# --------------------------------------------------------------------------- the result
def test_result_fields_print_and_serialisation():
    rel = ContingencyTableReleaser(1.0).release([[60, 40], [35, 65], [30, 70], [15, 85]], rng=5)
    fit = logistic_jimi(rel, design=TWO_BY_TWO, n_sim=2000, rng=1)
    assert isinstance(fit, LogisticJimiResult)
    assert fit.terms == ("(Intercept)", "armdrug", "sexM")
    assert fit.formula == "y ~ arm + sex" and fit.model == "main-effects"
    assert fit.epsilon == 1.0 and fit.delta == 0.0 and fit.mechanism == "laplace" and fit.n_sim == 2000
    assert fit.secure is False and "replace-one" in fit.privacy_unit and fit.draws is None
    for lo, est, hi, p in zip(fit.conf_low, fit.estimate, fit.conf_high, fit.pvalue):
        assert lo < est < hi and 0.0 <= p <= 1.0
    ci = fit.conf_int("armdrug")
    assert (ci.low, ci.high, ci.level) == (fit.conf_low[1], fit.conf_high[1], 0.95)
    text = str(fit)
    for piece in ("Coefficients:", "(Intercept)", "armdrug", "sexM", "2.5 %", "97.5 %",
                  "privacy: epsilon = 1, delta = 0, Laplace mechanism, seeded path",
                  "unit of privacy: one record (replace-one", "model:  y ~ arm + sex"):
        assert piece in text
    assert repr(fit) == text and "<pre>" in fit._repr_html_()
    d = json.loads(json.dumps(fit.to_dict()))
    assert [r["term"] for r in d["coefficients"]] == list(fit.terms)
    assert d["coefficients"][1]["conf_low"] == fit.conf_low[1] and d["conf_level"] == 0.95
    frame = fit.to_frame()
    assert list(frame["term"]) == list(fit.terms)
    assert list(frame.columns[:6]) == ["term", "estimate", "pvalue", "conf_low", "conf_high", "conf_level"]
    with pytest.raises(ValueError, match="`term` must be one of"):
        fit.conf_int("armplacebo")


def test_summaries_are_those_of_the_draws():
    # With draws=True the reported numbers are the stated functionals of the returned draws:
    # median, the k-th order statistics from each end (k = ceil(0.025 * 999) = 25), and
    # twice the smaller share on either side of 0, the observed table counted as one of the
    # draws: (k + 1) / (H + 1) (issue 40: never 0).
    fit = logistic_jimi([[12.3, 30.1], [25.2, 18.7], [8.8, 40.2]], epsilon=1.0, n_sim=999, draws=True, rng=2)
    d = fit.draws
    assert d.shape == (999, 3) and fit.terms == ("(Intercept)", "x2", "x3")
    s = np.sort(d, axis=0)
    np.testing.assert_array_equal(fit.conf_low, s[24])
    np.testing.assert_array_equal(fit.conf_high, s[999 - 25])
    np.testing.assert_array_equal(fit.estimate, np.median(d, axis=0))
    share = np.minimum((d <= 0).sum(axis=0) + 1.0, (d >= 0).sum(axis=0) + 1.0) / 1000.0
    np.testing.assert_allclose(fit.pvalue, np.minimum(1.0, 2 * share), rtol=1e-15)


def test_release_and_bare_counts_agree_and_are_reproducible():
    rel = ContingencyTableReleaser(0.5, neighbours="add-remove", margins="private").release(
        [[50, 30], [20, 45]], rng=9)
    a = logistic_jimi(rel, n_sim=500, rng=3)
    b = logistic_jimi(np.asarray(rel.value), epsilon=0.5, neighbours="add-remove", n_sim=500, rng=3)
    assert a.estimate == b.estimate and a.conf_low == b.conf_low and a.pvalue == b.pvalue
    assert "Laplace scale 2 per cell" in a.data_name and "n private" in a.data_name
    assert "add/remove" in a.privacy_unit and b.privacy_unit == "" and b.secure is None
    c = logistic_jimi(np.asarray(rel.value), epsilon=0.5, n_sim=500, rng=3)  # replace-one: scale 4
    assert c.conf_high[1] - c.conf_low[1] > b.conf_high[1] - b.conf_low[1]
    assert "Laplace scale 4 per cell" in c.data_name


def test_saturated_and_main_effects_coincide_for_one_predictor():
    table = [[20.4, 31.0], [11.2, 40.9], [30.3, 12.1]]
    a = logistic_jimi(table, epsilon=1.0, n_sim=800, rng=6)
    b = logistic_jimi(table, epsilon=1.0, model="saturated", n_sim=800, rng=6)
    assert a.estimate == b.estimate and a.conf_low == b.conf_low


def test_non_convergence_is_reported(monkeypatch):
    import dpinfer.inference.logistic as mod

    monkeypatch.setattr(mod, "_MAX_ITER", 0)
    with pytest.warns(ApproximationWarning, match="did not converge"):
        fit = logistic_jimi([[60, 40], [35, 65], [30, 70], [15, 85]], design=TWO_BY_TWO, epsilon=1.0,
                            n_sim=50, rng=1)
    assert "did not converge" in fit.note and "note: " in str(fit)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("kwargs", "exc", "match"), [
    ({"table": "rel", "epsilon": 1.0}, ValueError, "`epsilon` must not be given when `table` is a Release"),
    ({"table": "rel", "neighbours": "replace-one"}, ValueError, "`neighbours` must not be given when `table` is a Release"),
    ({"table": [[1.0, 2.0], [3.0, 4.0]]}, TypeError, "`epsilon` must be given with bare noisy counts"),
    ({"table": [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]], "epsilon": 1.0}, ValueError, "k x 2 table"),
    ({"table": [[1.0, 2.0]], "epsilon": 1.0}, ValueError, "k x 2 table"),
    ({"table": [[1.0, np.nan], [3.0, 4.0]], "epsilon": 1.0}, ValueError, "`table` must contain only finite"),
    ({"table": [[1.0, 2.0], [3.0, 4.0]], "epsilon": -1.0}, ValueError, "`epsilon` must be"),
    ({"table": [[1.0, 2.0], [3.0, 1e17]], "epsilon": 1.0}, ValueError, r"at most 2\*\*53; the entry at position \(1, 1\)"),
    ({"table": [[1.0, 2.0], [3.0, 4.0]], "epsilon": 1.0, "neighbours": "swap"}, ValueError, "`neighbours` must"),
    ({"table": "rel", "design": {"arm": ["a", "b", "c"]}}, ValueError, "3 = 3 cells, but the table has 4 rows"),
    ({"table": "rel", "design": {"arm": ["a"], "sex": ["F", "M", "X", "Y"]}}, ValueError,
     "`design` entry 'arm' must list at least 2 distinct"),
    ({"table": "rel", "design": ["arm", "sex"]}, TypeError, "`design` must be None or a non-empty dict"),
    ({"table": "rel", "design": {"arm": "ab", "sex": ["F", "M"]}}, TypeError, "list of level labels"),
    ({"table": "rel", "model": "interactions"}, ValueError, "`model` must be one of"),
    ({"table": "rel", "n_sim": 1}, ValueError, "`n_sim` must be at least 2"),
    ({"table": "rel", "n_sim": 10**7}, ValueError, "held in memory"),
    ({"table": "rel", "confidence_level": 95}, ValueError, "give 0.95, not 95"),
    ({"table": "rel", "draws": "yes"}, TypeError, "`draws` must be True or False"),
    ({"table": "rel", "rng": 1.5}, TypeError, "`rng` must be"),
    ({"table": "laplace"}, ValueError, "which logistic_jimi does not take: it takes a Laplace-noised k x 2 table"),
])
def test_bad_input_names_the_argument(kwargs, exc, match):
    rel = ContingencyTableReleaser(1.0).release([[6, 4], [3, 7], [3, 7], [1, 8]], rng=1)
    if kwargs["table"] == "rel":
        kwargs = {**kwargs, "table": rel}
    elif kwargs["table"] == "laplace":
        kwargs = {**kwargs, "table": LaplaceReleaser(1.0, 1.0).release(3.0, rng=1)}
    with pytest.raises(exc, match=match):
        logistic_jimi(**{"n_sim": 100, **kwargs})
