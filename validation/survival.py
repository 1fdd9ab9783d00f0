"""Size and power of the private log-rank test and coverage of the private Kaplan-Meier intervals.

Two arms of ``n`` patients each; a life table released by
``LifeTableReleaser(epsilon, breaks)`` (Tulap noise at epsilon / 2 per cell), with
``J`` equal intervals on ``(0, tau]``, ``tau = 1.2``:

* ``logrank_private``: :func:`dpinfer.logrank_test` (two-sided, alpha = 0.05);
* ``logrank_nonprivate``: the log-rank test on the confidential, ungrouped data
  (``statsmodels.duration.survfunc.survdiff``, times beyond ``tau`` censored there);
* 95% pointwise intervals for the control arm's survival at every break:
  ``km_percentile`` and ``km_bootstrap`` (:func:`dpinfer.kaplan_meier`'s two
  interval methods, actuarial estimate), ``km_greenwood_noisy`` (the Greenwood
  interval on the log scale, ``survfit``'s default, for the actuarial estimate of
  the consistent noisy table as if it held no noise: the naive analysis),
  ``km_greenwood_nonprivate`` (the same on the confidential grouped table) and
  ``km_grouped_nonprivate`` (Greenwood for the Kaplan-Meier estimate on the
  confidential grouped times, censorings at the interval's end: the grouping bias).

Truths (control arm): exponential with rate 1 (``S(tau) = 0.30``) and Weibull with
shape 1.5 and the scale that gives the same ``S(tau)``.  The treated arm has the
same law under the null (``size`` rows) and hazard ratio 0.6 (proportional hazards,
``power`` rows).  Random censoring ``C ~ Exp(mu)`` with ``mu`` solved so that
``P(C < T) = cens`` in the control arm, ``cens`` in {0, 0.2, 0.4}; all patients
still at risk at ``tau`` are censored there (administrative).

Grid: n per arm in {50, 200, 1000}, epsilon in {0.5, 1, 3}, both truths; size and
coverage: J in {5, 20} and the three censoring levels; power: J = 10, censoring 0.2.  Each point is ``--reps`` data sets; ``--n-sim`` simulated
releases per test and per interval (default 199: a Monte Carlo test's size
resolution is 1 / 200).  Coverage rows give the mean over the J breaks
(``coverage``) and the smallest of them (``coverage_min``); Monte Carlo SE
``sqrt(rate (1 - rate) / reps)``.

Run: ``python -m validation.survival [--quick | --full]``.  The default run is a
sub-grid (n in {50, 200}, epsilon in {0.5, 3}, J = 10, exponential truth,
censoring 0.2; 100 data sets per point), a few minutes at most; ``--full`` the
whole grid with 1000 data sets per point (hours of CPU: use ``--executor dask``).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import integrate, optimize, stats  # noqa: E402
from statsmodels.duration.survfunc import survdiff  # noqa: E402

import dpinfer  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "survival"
ALPHA = 0.05
LEVEL = 0.95
TAU = 1.2
HAZARD_RATIO = 0.6
WEIBULL_SHAPE = 1.5
NS = [50, 200, 1000]
EPSILONS = [0.5, 1.0, 3.0]
INTERVALS = [5, 10, 20]
TRUTHS = ["exponential", "weibull"]
CENSORING = [0.0, 0.2, 0.4]
REPS, REPS_QUICK, REPS_DEFAULT = 1000, 40, 100
N_SIM = 199
TESTS = ("logrank_private", "logrank_nonprivate")
INTERVAL_METHODS = ("km_percentile", "km_bootstrap", "km_greenwood_noisy", "km_greenwood_nonprivate",
                    "km_grouped_nonprivate")


def weibull_scale():
    """The Weibull scale with ``S(tau) = exp(-tau)`` (the exponential truth's survival at tau)."""
    return TAU / TAU ** (1.0 / WEIBULL_SHAPE)


def survival(truth, t, hr=1.0):
    """The true ``S(t)`` of the control arm (``hr = 1``) or of an arm with hazard ratio ``hr``."""
    t = np.asarray(t, dtype=float)
    cumhaz = t if truth == "exponential" else (t / weibull_scale()) ** WEIBULL_SHAPE
    return np.exp(-hr * cumhaz)


def draw_times(gen, truth, size, hr=1.0):
    """Event times by inversion: ``H(T) = E / hr`` with ``E`` standard exponential."""
    e = gen.standard_exponential(size) / hr
    return e if truth == "exponential" else weibull_scale() * e ** (1.0 / WEIBULL_SHAPE)


def censoring_rate(truth, cens):
    """``mu`` with ``P(C < T) = cens`` for ``C ~ Exp(mu)`` and ``T`` the control law (0 for no censoring)."""
    if cens == 0.0:
        return 0.0

    def share(mu):
        dens = (lambda t: np.exp(-t)) if truth == "exponential" else (
            lambda t: stats.weibull_min.pdf(t, WEIBULL_SHAPE, scale=weibull_scale()))
        return integrate.quad(lambda t: dens(t) * -math.expm1(-mu * t), 0, np.inf)[0] - cens

    return optimize.brentq(share, 1e-9, 100.0, xtol=1e-12)


def greenwood_covers(d, r, truth_s, c=None, level=LEVEL):
    """Whether survfit's log-scale Greenwood interval from ``(d, r)`` (J,) covers ``truth_s`` at each break.

    With ``c``: the actuarial estimate, ``r - c / 2`` at risk.
    """
    d, r = np.asarray(d, float), np.asarray(r, float)
    if c is not None:
        r = r - 0.5 * np.asarray(c, float)
    s = np.cumprod(np.where(r > 0, 1.0 - d / np.where(r > 0, r, 1.0), 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where((r > 0) & (r > d), d / (r * (r - d)), np.where(r > 0, np.inf, 0.0))
    se = np.sqrt(np.cumsum(term))
    z = stats.norm.ppf(0.5 + level / 2.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        low = np.where(np.isfinite(se), s * np.exp(-z * se), 0.0)
        high = np.where(np.isfinite(se), np.minimum(s * np.exp(z * se), 1.0), 1.0)
    return (low <= truth_s) & (truth_s <= high)


def one_data_set(gen, cell, mu, breaks):
    """Times, events and arms of one trial (treated arm second)."""
    n, truth = cell["n"], cell["truth"]
    hr = HAZARD_RATIO if cell["question"] == "power" else 1.0
    t = np.concatenate([draw_times(gen, truth, n), draw_times(gen, truth, n, hr)])
    c = gen.exponential(1.0 / mu, 2 * n) if mu > 0 else np.full(2 * n, np.inf)
    time = np.minimum(np.minimum(t, c), TAU)
    event = ((t <= c) & (t <= TAU)).astype(float)
    return time, event


def rate_cell(cell, seed_sequence):
    """Rejection rates (both tests) and KM coverages at one setting."""
    # the warnings the study's own numbers drive (dpinfer/inference/survival/_size.py) say nothing here
    warnings.filterwarnings("ignore", category=dpinfer.ApproximationWarning)
    gen = np.random.default_rng(seed_sequence)
    n, eps, J, reps, n_sim = cell["n"], cell["epsilon"], cell["intervals"], cell["reps"], cell["n_sim"]
    breaks = tuple(TAU * (j + 1) / J for j in range(J))
    truth_s = survival(cell["truth"], breaks)
    mu = censoring_rate(cell["truth"], cell["cens"])
    arm = np.repeat(["control", "treated"], n)
    releaser = dpinfer.LifeTableReleaser(eps, breaks)
    reject = dict.fromkeys(TESTS, 0)
    covered = {m: np.zeros(J) for m in INTERVAL_METHODS}
    for _ in range(reps):
        time, event = one_data_set(gen, cell, mu, breaks)
        rel = releaser.release(time, event, arm, rng=gen)
        reject["logrank_private"] += dpinfer.logrank_test(rel, n_sim=n_sim, rng=gen).pvalue <= ALPHA
        reject["logrank_nonprivate"] += survdiff(time, event, arm)[1] <= ALPHA
        if cell["question"] != "size":
            continue
        for method in ("bootstrap", "percentile"):  # the default (percentile) last: its table is used below
            fit = dpinfer.kaplan_meier(rel, method=method, n_sim=n_sim, rng=gen)
            covered[f"km_{method}"] += (fit.lower[0] <= truth_s) & (truth_s <= fit.upper[0])
        covered["km_greenwood_noisy"] += greenwood_covers(fit.n_event[0], fit.n_risk[0], truth_s, fit.n_censor[0])
        exact = dataclasses.replace(rel, value=_exact_table(time, event, arm, breaks) + 0.25)
        d, c, r = _consistent(exact)
        covered["km_greenwood_nonprivate"] += greenwood_covers(d[0], r[0], truth_s, c[0])
        covered["km_grouped_nonprivate"] += greenwood_covers(d[0], r[0], truth_s)
    common = {"question": cell["question"], "truth": cell["truth"], "cens": cell["cens"], "n": n, "epsilon": eps,
              "intervals": J, "reps": reps, "n_sim": n_sim, "mode": cell["mode"], "computed": "simulated"}
    rows = []
    for method in TESTS:
        rate = reject[method] / reps
        rows.append(common | {"method": method, "measure": "rejection_rate", "value": rate,
                              "value_min": rate, "mc_se": float(harness.mc_se(rate, reps)),
                              "z_size": ((rate - ALPHA) / math.sqrt(ALPHA * (1 - ALPHA) / reps)
                                         if cell["question"] == "size" else float("nan"))})
    if cell["question"] == "size":
        for method in INTERVAL_METHODS:
            cov = covered[method] / reps
            rows.append(common | {"method": method, "measure": "coverage", "value": float(cov.mean()),
                                  "value_min": float(cov.min()),
                                  "mc_se": float(harness.mc_se(float(cov.min()), reps)), "z_size": float("nan")})
    return rows


def _exact_table(time, event, arm, breaks):
    """The confidential life table (arms, J, 2), by the study's own count.

    The releaser's convention: an event in ``(t_(j-1), t_j]``, a censoring in
    ``[t_(j-1), t_j)``; a censoring at ``tau`` (the last break) is in no cell.
    """
    edges = np.asarray(breaks)
    out = np.zeros((2, len(breaks), 2))
    for a, g in enumerate(("control", "treated")):
        for kind, flag, side in ((0, 1.0, "left"), (1, 0.0, "right")):
            keep = (arm == g) & (event == flag)
            j = np.searchsorted(edges, time[keep], side=side)
            out[a, :, kind] = np.bincount(j[j < len(breaks)], minlength=len(breaks))[: len(breaks)]
    return out


def _consistent(rel):
    """Events and at-risk numbers of a table (no noise: the counts are already consistent)."""
    counts = np.rint(np.asarray(rel.value)).astype(int)
    d, c = counts[..., 0], counts[..., 1]
    sizes = np.asarray(rel.group_sizes)[:, None]
    r = sizes - np.concatenate([np.zeros((2, 1), int), np.cumsum(d + c, axis=1)[:, :-1]], axis=1)
    return d, c, r


def build_cells(args):
    if args.quick:
        grid = [(q, "exponential", 0.2, 50, 1.0, 5) for q in ("size", "power")]
    elif not args.full:
        grid = [(q, "exponential", 0.2, n, e, 10) for q in ("size", "power") for n in (50, 200) for e in (0.5, 3.0)]
    else:
        grid = [("size", t, c, n, e, J) for t in TRUTHS for c in CENSORING for n in NS for e in EPSILONS
                for J in (INTERVALS[0], INTERVALS[-1])]
        grid += [("power", t, 0.2, n, e, 10) for t in TRUTHS for n in NS for e in EPSILONS]
    return [{"question": q, "truth": t, "cens": c, "n": n, "epsilon": e, "intervals": J, "reps": args.reps,
             "n_sim": args.n_sim, "mode": args.mode} for q, t, c, n, e, J in grid]


LABELS = {"logrank_private": "private log-rank (dpinfer)", "logrank_nonprivate": "log-rank, confidential data",
          "km_bootstrap": "bias-corrected bootstrap", "km_percentile": "percentile bootstrap (default)",
          "km_greenwood_noisy": "Greenwood on noisy table (naive)", "km_greenwood_nonprivate":
          "Greenwood, confidential table", "km_grouped_nonprivate": "Greenwood, grouped KM, confidential"}
COLOURS = {"logrank_private": "#0072B2", "logrank_nonprivate": "0.3", "km_bootstrap": "#CC79A7",
           "km_percentile": "#0072B2", "km_greenwood_noisy": "#D55E00", "km_greenwood_nonprivate": "0.3",
           "km_grouped_nonprivate": "0.6"}


def plot(rows, meta, path):
    """Size, power and coverage against n (epsilon as the x offset), one panel per measure."""
    panels = [("size", "rejection_rate", TESTS, ALPHA), ("power", "rejection_rate", TESTS, None),
              ("size", "coverage", INTERVAL_METHODS, LEVEL)]
    fig, axes = harness.new_figure(len(panels), panel_width=3.4)
    eps_all = sorted({r["epsilon"] for r in rows})
    for ax, (question, measure, methods, nominal) in zip(axes, panels):
        sel = [r for r in rows if r["question"] == question and r["measure"] == measure]
        for method in methods:
            pts = [r for r in sel if r["method"] == method]
            if not pts:
                continue
            x = np.array([NS.index(r["n"]) + 0.25 * eps_all.index(r["epsilon"]) for r in pts], float)
            y = np.array([r["value_min"] if measure == "coverage" else r["value"] for r in pts])
            ax.scatter(x, y, s=8, color=COLOURS[method], label=LABELS[method], alpha=0.7)
        if nominal is not None:
            harness.plot_nominal(ax, nominal, label="nominal")
        ax.set_xticks(range(len(NS)), [f"n = {n}" for n in NS])
        title = {"rejection_rate": f"{question} of the level-{ALPHA:g} test", "coverage":
                 "95% pointwise coverage of S (worst break)"}[measure]
        harness.finish_axes(ax, title=f"{title}\n({harness.computed_label(sel)})", xlabel="n per arm "
                            "(offset: epsilon " + ", ".join(f"{e:g}" for e in eps_all) + ")")
    harness.add_legend(fig, ncol=3)
    fig.suptitle("Private survival analysis: log-rank size and power, Kaplan-Meier coverage", fontsize=9.5)
    return harness.save_figure(fig, path)


def main(argv=None):
    """Run the study; write ``survival_simulate[_quick].csv`` and the figure into ``--out``."""
    parser = harness.study_parser(
        __doc__.splitlines()[0], modes=("simulate",),
        n_sim_help=f"simulated releases per test and per interval (default: {N_SIM})",
        reps_help=f"data sets per point (default: {REPS_DEFAULT}; {REPS} with --full; at most {REPS_QUICK} "
                  "with --quick)")
    raw = list(sys.argv[1:] if argv is None else argv)
    args = harness.parse_study_args(parser, argv, reps=REPS, reps_quick=REPS_QUICK, reps_default=REPS_DEFAULT)
    if not any(a.startswith("--n-sim") for a in raw):
        args.n_sim = N_SIM
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, rate_cell, cells)
    meta = harness.study_metadata(STUDY, args, reps=args.reps, n_sim=args.n_sim, alpha=ALPHA, tau=TAU,
                                  hazard_ratio=HAZARD_RATIO)
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
