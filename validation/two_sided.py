"""Power of two-sided DP-UMP tests: the UMP-unbiased test against the naive equal-tailed test.

At n = 30, p0 = 0.5, epsilon = 0.1, alpha = 0.05 and true theta in [0, 1] (step
0.01), the exact power of

* the DP-UMPU test (Awan & Slavkovic 2020): phi(x) = F(|x - k| - s) with
  E_p0[phi] = alpha and E_p0[(X - n p0) phi] = 0 (F the Tulap cdf), power
  sum_x Binom(x; n, theta) phi(x);
* the naive equal-tailed test: reject when either one-sided DP-UMP p-value is at
  most alpha/2 (the rejection region {Z <= t_lo} U {Z >= t_hi} of the release);
* the "asymptotically unbiased" two-sided p-value P(|Z - n p0| >= |z - n p0|)
  (dpinfer's default two-sided DP-UMP test), region {|Z - n p0| >= d};
* the non-private randomised equal-tailed binomial test (alpha/2 in each tail),
  which is the non-private UMPU test when p0 = 1/2.

Expected: all four have size alpha at theta = p0; the UMPU curve has its minimum,
alpha, at p0 (unbiased) and lies above the naive test everywhere else (0.178 against
0.113 at theta = 0 and 1); at p0 = 1/2 the naive test and the asymptotically unbiased
p-value coincide by symmetry; the gap to the non-private test is the price of privacy
at epsilon = 0.1.  ``--mode simulate`` draws ``--reps`` releases per
theta (the UMPU test rejects with probability phi(X), which is how its decision is
distributed whatever the release mechanics).

Run: ``python -m validation.two_sided [--quick] [--mode simulate]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import _methods as M  # noqa: E402
from validation import harness  # noqa: E402

STUDY = "two_sided"
METHODS = ("dp_ump_umpu", "dp_ump_naive", "dp_ump_unbiased", "nonprivate_equal_tailed")
N, P0, EPSILON, ALPHA = 30, 0.5, 0.1, 0.05
THETAS = [round(0.01 * k, 2) for k in range(101)]
THETAS_QUICK = [0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0]


def _umpu_phi(n, p0, epsilon, alpha):
    import dpinfer

    return np.asarray(dpinfer.binom_ump_phi(n, p0, epsilon=epsilon, alpha=alpha,
                                            alternative="two-sided",
                                            two_sided_method="umpu"), dtype=float)


def _equal_tailed_phi(n, p0, alpha):
    return (M.ump_randomised_phi(n, p0, alpha / 2, "greater")
            + M.ump_randomised_phi(n, p0, alpha / 2, "less"))


def _rows(cell, thetas, values, ses):
    return [{"method": cell["method"], "n": cell["n"], "epsilon": cell["epsilon"],
             "p0": cell["p0"], "alpha": cell["alpha"], "theta": float(th), "power": float(v),
             "mc_se": se} for th, v, se in zip(thetas, values, ses)]


def _regions(method, n, p0, epsilon, alpha):
    """(law, t_lo, t_hi): the release rejects when Z <= t_lo or Z >= t_hi."""
    law = M.CountLaw(n, epsilon)
    if method == "dp_ump_naive":
        greater = M.pvalue_function("dp_ump", n, p0, epsilon, "greater")
        less = M.pvalue_function("dp_ump", n, p0, epsilon, "less")
        return (law, M.one_sided_threshold(less, law, alpha / 2, "less"),
                M.one_sided_threshold(greater, law, alpha / 2, "greater"))
    pvalue = M.pvalue_function("dp_ump", n, p0, epsilon, "two-sided")
    t_lo, t_hi = M.two_sided_thresholds(pvalue, law, alpha, n * p0)
    return law, t_lo, t_hi


def two_sided_cell(cell, seed_sequence):
    """Power of one two-sided test at ``cell['thetas']`` (exact or simulated)."""
    method, n, p0 = cell["method"], cell["n"], cell["p0"]
    eps, alpha = cell["epsilon"], cell["alpha"]
    thetas = np.asarray(cell["thetas"], dtype=float)
    phi = None
    if method == "dp_ump_umpu":
        phi = _umpu_phi(n, p0, eps, alpha)
    elif method == "nonprivate_equal_tailed":
        phi = _equal_tailed_phi(n, p0, alpha)
    else:
        law, t_lo, t_hi = _regions(method, n, p0, eps, alpha)
    if cell["mode"] == "exact":
        if phi is not None:
            power = M.phi_power(phi, n, thetas)
        else:
            power = np.array([law.cdf([t_lo], th)[0] + law.sf([t_hi], th)[0] for th in thetas])
        return _rows(cell, thetas, power, [None] * thetas.size)
    reps = cell["reps"]
    values, ses = [], []
    for theta, ss in zip(thetas, seed_sequence.spawn(thetas.size)):
        gen = np.random.default_rng(ss)
        if phi is not None:
            reject = M.phi_simulate(gen, phi, n, theta, reps)
        else:
            # The test itself on simulated releases (not the thresholds found above).
            z = law.sample(gen, theta, reps)
            if method == "dp_ump_naive":
                pg = M.pvalue_function("dp_ump", n, p0, eps, "greater")(z)
                pl = M.pvalue_function("dp_ump", n, p0, eps, "less")(z)
                reject = np.minimum(pg, pl) <= alpha / 2
            else:
                reject = M.pvalue_function("dp_ump", n, p0, eps, "two-sided")(z) <= alpha
        rate = float(np.mean(reject))
        values.append(rate)
        ses.append(float(np.sqrt(rate * (1 - rate) / reps)))
    return _rows(cell, thetas, values, ses)


def build_cells(args):
    """Exact mode: one cell per method; simulate mode: one cell per (method, theta)."""
    thetas = THETAS_QUICK if args.quick else THETAS
    base = {"n": args.n, "p0": args.p0, "epsilon": args.epsilon, "alpha": args.alpha,
            "mode": args.mode, "reps": args.reps}
    if args.mode == "exact":
        return [dict(base, method=m, thetas=list(thetas)) for m in args.methods]
    return [dict(base, method=m, thetas=[th]) for m in args.methods for th in thetas]


def plot(rows, meta, path):
    """Power over theta: all tests, then the private tests alone on their own scale."""
    fig, axes = harness.new_figure(2)
    p0 = float(meta["p0"])
    for ax, private_only in zip(axes, (False, True)):
        sel = [r for r in rows if not (private_only and r["method"].startswith("nonprivate"))]
        harness.plot_curves(ax, sel, "theta", "power", key="method")
        harness.plot_nominal(ax, float(meta["alpha"]), label="alpha")
        ax.axvline(p0, color="0.6", linewidth=0.6)
        harness.finish_axes(ax, title="private tests only" if private_only else "all tests",
                            xlabel="true theta", ylabel=None if private_only else "power")
    harness.add_legend(fig, ncol=2)
    fig.suptitle(f"Two-sided tests, n = {meta['n']}, p0 = {meta['p0']}, epsilon = "
                 f"{meta['epsilon']}, alpha = {meta['alpha']} ({meta['mode']})", fontsize=9.5)
    return harness.save_figure(fig, path)


def build_parser():
    """The study's argument parser (the shared options plus its own settings)."""
    parser = harness.study_parser(__doc__.splitlines()[0], n_sim_help=None)  # no DP-JIMI
    parser.add_argument("--n", type=harness.positive_int, default=N,
                        help="sample size (default: %(default)s)")
    parser.add_argument("--p0", type=harness.open_unit_float, default=P0,
                        help="null value (default: %(default)s)")
    parser.add_argument("--epsilon", type=harness.positive_float, default=EPSILON,
                        help="privacy budget (default: %(default)s)")
    parser.add_argument("--alpha", type=harness.open_unit_float, default=ALPHA,
                        help="significance level (default: %(default)s)")
    return harness.add_methods_argument(parser, METHODS)


def main(argv=None):
    """Run the two-sided study; write ``two_sided_<mode>.csv`` and the figure into ``--out``."""
    parser = build_parser()
    args = harness.resolve_common(parser.parse_args(argv))
    cells = build_cells(args)
    stem, cache, rows = harness.run_study_cells(STUDY, args, two_sided_cell, cells)
    meta = harness.study_metadata(STUDY, args, n=args.n, p0=args.p0, epsilon=args.epsilon,
                                  alpha=args.alpha, thetas=THETAS_QUICK if args.quick else THETAS,
                                  methods=list(args.methods))
    return harness.finish_study(STUDY, args, stem, cache, rows, meta, plot)


if __name__ == "__main__":
    sys.exit(main())
