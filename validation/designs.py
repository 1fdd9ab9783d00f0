"""Private Simon two-stage designs: exact size, power, PET and EN over p and epsilon; coverage at the end.

Three parts, all exact finite sums except the last:

* ``designs``: for each (p0, p1), design kind and epsilon (``None`` is Simon's design), the
  design :func:`dpinfer.simon_design` returns: ``n1``, ``n``, ``r1``, ``r``, exact size, power,
  PET0, EN0, and the check ``size <= alpha`` recomputed here by plain numpy convolution of
  the binomial with the discrete Laplace pmf (delta = 0), independent of the package's sums;
* ``oc``: each design's operating characteristics over a grid of p (reject probability,
  PET, EN) from :meth:`SimonDesign.operating_characteristics`;
* ``coverage``: the exact coverage over a grid of p of two 95% intervals after a private
  design (p0 = 0.1, p1 = 0.3, epsilon = 1): the *naive* one, which inverts the fixed-sample
  law of the cumulative released count (as if n had been fixed in advance: ``Z1`` out of
  ``n1`` after stopping early, ``Z1 + Z2`` out of ``n`` otherwise), computed exactly here from
  the quantiles of the fixed-sample law and the design's joint law; and the stage-wise
  interval of :func:`dpinfer.simon_test`, whose exact coverage is the level (the ordering
  is continuous, so each tail of the observed outcome is uniform under p: the probability
  integral transform), checked by a seeded Monte Carlo run of the whole design (staged
  releases, the rule, the test) with its standard error.

Run: ``python -m validation.designs [--quick]`` (the quick run takes about half a minute);
writes ``designs_exact[_quick].csv``, ``designs_oc_exact[_quick].csv``,
``designs_coverage_exact[_quick].csv`` and the figure ``designs_exact[_quick].png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `validation` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402
from scipy.optimize import brentq  # noqa: E402

from validation._csv import write_csv  # noqa: E402

ALPHA, POWER, LEVEL = 0.05, 0.8, 0.95
SETTINGS = [(0.1, 0.3), (0.2, 0.4)]
EPSILONS = [None, 5.0, 2.0, 1.0, 0.5]
EPSILONS_QUICK = [None, 2.0, 1.0]
P_GRID = np.round(np.arange(0.05, 0.65, 0.05), 2)
OUT = Path(__file__).resolve().parent / "out"


def _independent_size(d):
    """Exact size by numpy convolution (binomial with the discrete Laplace pmf; delta = 0)."""
    if d.epsilon is None:
        noise, lo = np.ones(1), 0
    else:
        b = math.exp(-d.epsilon)
        reach = int(60 / d.epsilon) + 5
        noise, lo = (1 - b) / (1 + b) * b ** np.abs(np.arange(-reach, reach + 1)), -reach
    f1 = np.convolve(stats.binom.pmf(np.arange(d.n1 + 1), d.n1, d.p0), noise)
    f2 = np.convolve(stats.binom.pmf(np.arange(d.n2 + 1), d.n2, d.p0), noise)
    sf2 = np.concatenate([np.cumsum(f2[::-1])[::-1], [0.0]])
    size = 0.0
    for i, v in enumerate(f1):
        if lo + i > d.r1:
            size += v * sf2[min(max(d.r - (lo + i) + 1 - lo, 0), f2.size)]
    return size


def design_rows(epsilons, max_n):
    from dpinfer import simon_design

    rows, designs = [], []
    for p0, p1 in SETTINGS:
        for kind in ("optimal", "minimax"):
            for eps in epsilons:
                d = simon_design(p0, p1, alpha=ALPHA, power=POWER, epsilon=eps, design=kind, max_n=max_n)
                check = _independent_size(d)
                rows.append({"p0": p0, "p1": p1, "design": kind, "epsilon": "none" if eps is None else eps,
                             "r1": d.r1, "n1": d.n1, "r": d.r, "n": d.n, "size": d.size, "power": d.power,
                             "pet0": d.pet0, "en0": d.en0, "size_independent": check,
                             "size_at_most_alpha": bool(check <= ALPHA and d.size <= ALPHA)})
                designs.append(d)
    return rows, designs


def oc_rows(designs):
    rows = []
    for d in designs:
        oc = d.operating_characteristics(P_GRID)
        for p, rej, pet, en in zip(P_GRID, oc.reject, oc.pet, oc.en):
            rows.append({"p0": d.p0, "p1": d.p1, "design": d.design,
                         "epsilon": "none" if d.epsilon is None else d.epsilon, "p": float(p),
                         "reject": float(rej), "pet": float(pet), "en": float(en)})
    return rows


# ---------------------------------------------------------------- the naive interval's exact coverage
def _uniform_pair_tail(c):
    """P(U1 + U2 >= c) for independent U(-1/2, 1/2) (triangular law), elementwise."""
    c = np.clip(np.asarray(c, dtype=float), -1.0, 1.0)
    return np.where(c <= 0.0, 1.0 - 0.5 * (1.0 + c) ** 2, 0.5 * (1.0 - c) ** 2)


def _k_pmf(n, p, epsilon):
    b = math.exp(-epsilon)
    reach = int(60 / epsilon) + 5
    noise = (1 - b) / (1 + b) * b ** np.abs(np.arange(-reach, reach + 1))
    return -reach, np.convolve(stats.binom.pmf(np.arange(n + 1), n, p), noise)


def naive_coverage(d, p, level=LEVEL):
    """Exact coverage at ``p`` of the naive (fixed-sample) interval after the private design ``d``."""
    a = (1.0 - level) / 2.0
    lo1, f1 = _k_pmf(d.n1, p, d.epsilon)
    lo2, f2 = _k_pmf(d.n2, p, d.epsilon)
    k1 = lo1 + np.arange(f1.size)

    def z1_tail(c):  # P(Z1 >= c)
        return float(f1 @ np.clip(0.5 - (c - k1), 0.0, 1.0))

    f = np.convolve(f1, f2)
    k = lo1 + lo2 + np.arange(f.size)
    fc = np.convolve(np.where(k1 > d.r1, f1, 0.0), f2)

    def s_tail(t, pmf=f):  # P(S >= t) (fixed-sample law), or jointly with continuing
        return float(pmf @ _uniform_pair_tail(t - k))

    span1, span = (k1[0] - 1.0, k1[-1] + 1.0), (k[0] - 1.0, k[-1] + 1.0)
    q_hi = brentq(lambda c: z1_tail(c) - a, *span1, xtol=1e-12)
    q_lo = brentq(lambda c: (1.0 - z1_tail(c)) - a, *span1, xtol=1e-12)
    t_hi = brentq(lambda t: s_tail(t) - a, *span, xtol=1e-12)
    t_lo = brentq(lambda t: (1.0 - s_tail(t)) - a, *span, xtol=1e-12)
    stop = d.r1 + 0.5  # stage 1 stops exactly when Z1 < r1 + 1/2
    stage1 = max(z1_tail(q_lo) - z1_tail(min(q_hi, stop)), 0.0) if q_lo < stop else 0.0
    stage2 = s_tail(t_lo, fc) - s_tail(t_hi, fc)
    return stage1 + stage2


def mc_coverage(d, p, reps, seed, level=LEVEL):
    """Seeded Monte Carlo coverage of :func:`dpinfer.simon_test`'s two-sided interval (whole design run)."""
    from dpinfer import simon_test

    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        run = d.staged_release()
        run.release(1, int(rng.binomial(d.n1, p)), rng=rng)
        if run.decision == "continue":
            run.release(2, int(rng.binomial(d.n2, p)), rng=rng)
        ci = simon_test(d, run, alternative="two-sided", confidence_level=level).conf_int
        hits += ci.low <= p <= ci.high
    return hits / reps


def coverage_rows(reps, seed, quick):
    from dpinfer import simon_design

    d = simon_design(0.1, 0.3, epsilon=1.0, max_n=60)
    grid = P_GRID if not quick else np.array([0.1, 0.3, 0.5])
    mc_points = {0.1, 0.3, 0.5}
    rows = []
    for i, p in enumerate(grid):
        p = float(p)
        row = {"n1": d.n1, "n": d.n, "r1": d.r1, "r": d.r, "epsilon": d.epsilon, "p": p,
               "naive_exact": naive_coverage(d, p), "stagewise_exact": LEVEL,
               "stagewise_mc": "", "mc_se": ""}
        if p in mc_points and reps > 0:
            c = mc_coverage(d, p, reps, seed + i)
            row["stagewise_mc"], row["mc_se"] = c, math.sqrt(LEVEL * (1 - LEVEL) / reps)
        rows.append(row)
    return rows


def plot(oc, cov, path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 3.4))
    ax1, ax2 = fig.subplots(1, 2)
    for eps in sorted({r["epsilon"] for r in oc}, key=str):
        sel = [r for r in oc if r["epsilon"] == eps and r["p0"] == 0.1 and r["design"] == "optimal"]
        ax1.plot([r["p"] for r in sel], [r["reject"] for r in sel], marker="o", ms=3,
                 label=f"epsilon = {eps}" if eps != "none" else "no privacy (Simon)")
    ax1.axhline(ALPHA, ls="--", c="grey")
    ax1.axhline(POWER, ls=":", c="grey")
    ax1.set(xlabel="true response rate p", ylabel="P(reject H0)",
            title="Optimal designs, p0 = 0.1, p1 = 0.3: exact OC")
    ax1.legend(fontsize=7)
    ax2.plot([r["p"] for r in cov], [r["naive_exact"] for r in cov], marker="o", label="naive fixed-sample (exact)")
    ax2.plot([r["p"] for r in cov], [r["stagewise_exact"] for r in cov], marker="s", label="stage-wise (exact)")
    mc = [r for r in cov if r["stagewise_mc"] != ""]
    ax2.errorbar([r["p"] for r in mc], [r["stagewise_mc"] for r in mc], yerr=[2 * r["mc_se"] for r in mc],
                 fmt="x", c="k", label="stage-wise (Monte Carlo, 2 SE)")
    ax2.axhline(LEVEL, ls="--", c="grey")
    ax2.set(xlabel="true response rate p", ylabel="coverage", title="95% intervals after the design (epsilon = 1)")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer epsilons, max_n 60, 40 Monte Carlo trials")
    parser.add_argument("--reps", type=int, default=None, help="Monte Carlo trials per p (default 1000; quick 40)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="accepted for the harness's interface; this study prints no progress bar")
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    reps = args.reps if args.reps is not None else (40 if args.quick else 1000)
    tag = "_quick" if args.quick else ""
    args.out.mkdir(parents=True, exist_ok=True)
    rows, designs = design_rows(EPSILONS_QUICK if args.quick else EPSILONS, 60 if args.quick else 100)
    meta = {"study": "designs", "alpha": ALPHA, "power": POWER, "seed": args.seed, "reps": reps}
    write_csv(args.out / f"designs_exact{tag}.csv", rows, meta)
    oc = oc_rows(designs)
    write_csv(args.out / f"designs_oc_exact{tag}.csv", oc, meta)
    cov = coverage_rows(reps, args.seed, args.quick)
    write_csv(args.out / f"designs_coverage_exact{tag}.csv", cov, meta)
    plot(oc, cov, args.out / f"designs_exact{tag}.png")
    bad = [r for r in rows if not r["size_at_most_alpha"]]
    for r in rows:  # the summary goes to stdout; nothing to stderr unless a check fails
        print(f"{r['p0']:.2f} {r['p1']:.2f} {r['design']:8s} eps={str(r['epsilon']):5s} {r['r1']}/{r['n1']} "
              f"{r['r']}/{r['n']} size={r['size']:.4f} power={r['power']:.4f} EN0={r['en0']:.2f} PET0={r['pet0']:.3f}")
    for r in cov:
        mc = "" if r["stagewise_mc"] == "" else f"  stage-wise MC {r['stagewise_mc']:.3f} (SE {r['mc_se']:.3f})"
        print(f"p = {r['p']:.2f}: naive {r['naive_exact']:.4f}, stage-wise {r['stagewise_exact']:.4f}{mc}")
    if bad:
        print(f"FAILED: {len(bad)} design(s) with size above alpha", file=sys.stderr)
        return 1
    mc_bad = [r for r in cov if r["stagewise_mc"] != "" and abs(r["stagewise_mc"] - LEVEL) > 4 * r["mc_se"]]
    if mc_bad:
        print(f"FAILED: stage-wise Monte Carlo coverage beyond 4 SE of {LEVEL} at {[r['p'] for r in mc_bad]}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
