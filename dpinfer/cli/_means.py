"""``dpinfer mean-release``, ``mean-test`` and ``mean-power``: private means of a numeric column.

``mean-release`` clips a CSV column to public bounds and releases its clipped sum (and,
with ``--spread``, its centred sum of squares) with :class:`~dpinfer.MeanReleaser`;
``mean-test`` reads one or two such releases and runs :func:`~dpinfer.mean_test`, like
R's ``t.test``; ``mean-power`` plans it (:func:`~dpinfer.mean_power` with ``--n``,
:func:`~dpinfer.mean_sample_size` with ``--power``), like R's ``power.t.test``.
"""

from __future__ import annotations

import math

from ._commands import EXIT_OK, _budget_handle, _budget_session, _emit, _print_budget_status, _seeded_warning
from ._input import _UsageError, _column_cells, _counts_from_csv, _releases_from_file, add_workers_option

__all__ = []  # package-internal


def _values(reader, path, column):
    """The column's values as floats; a cell that is not a finite number is an error naming its row only."""
    out = []
    for n, cell in _column_cells(reader, path, column):
        try:
            value = float(cell)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            # the cell is confidential: name its row, never its content
            raise _UsageError(f"column {column!r} must hold finite numbers; data row {n} does not. Remove or "
                              "impute it first (dropping rows changes n, which is public).")
        out.append(value)
    return out


def cmd_mean_release(args):
    from .. import MeanReleaser

    secure = args.seed is None
    if args.split is not None and not args.spread:
        raise _UsageError("--split shares epsilon between the sum and the squares, so it needs --spread; "
                          f"got --split {args.split:g} without --spread.")
    releaser = MeanReleaser(args.epsilon, args.lower, args.upper, spread=args.spread,
                            split=0.5 if args.split is None else args.split)
    values = _counts_from_csv(args.csv, args.column, rows=_values)
    with _budget_session(args) as ledger:
        budget = _budget_handle(args, ledger)
        release = releaser.release(values, rng=None if secure else args.seed, secure=secure, budget=budget)
    if not secure:
        _seeded_warning(args.seed)
    _emit(args.format, str(release), [release.to_dict()])
    _print_budget_status(args, ledger)
    return EXIT_OK


def cmd_mean_test(args):
    from ..inference.means import mean_test

    if len(args.release) > 2:
        raise _UsageError(f"--release is given {len(args.release)} times; give one group or two.")
    releases = []
    for path in args.release:
        found = _releases_from_file(path)
        if len(found) != 1 or found[0].kind != "clipped_sum":
            raise _UsageError(f"release file {path!r} must hold one clipped sum (written by 'dpinfer mean-release "
                              "--format json'); test each group's file.")
        releases.append(found[0])
    sigma = None
    if args.sigma is not None:
        if len(args.sigma) > len(releases):
            raise _UsageError(f"--sigma takes one value per group; got {len(args.sigma)} for {len(releases)}.")
        sigma = args.sigma[0] if len(args.sigma) == 1 else tuple(args.sigma)
    result = mean_test(*releases, mu0=args.mu0, margin=args.margin, method=args.method, sigma=sigma, model=args.model,
                       alternative=args.alternative, confidence_level=args.confidence_level,
                       n_sim=args.n_sim, rng=args.seed, composition=args.composition, workers=args.workers)
    record = result.to_htest() if args.format == "htest-json" else result.to_dict()
    _emit(args.format, str(result), [record])
    return EXIT_OK


def cmd_mean_power(args):
    """Power at ``--n``, or the sample size for ``--power`` (one of the two), like R's power.t.test."""
    from ..inference.means import mean_power, mean_sample_size

    if (args.n is None) == (args.power is None):
        raise _UsageError("give --n (for the power) or --power (for the sample size), not both nor neither.")
    sigma = args.sigma[0] if len(args.sigma) == 1 else tuple(args.sigma)
    common = dict(mu2=args.mu2, mu0=args.mu0, margin=args.margin, sigma=sigma, lower=args.lower, upper=args.upper,
                  epsilon=args.epsilon, alpha=args.alpha, alternative=args.alternative, method=args.method,
                  spread=args.spread, split=0.5 if args.split is None else args.split, n_sim=args.n_sim,
                  rng=args.seed)
    if args.n is not None:
        n = args.n[0] if len(args.n) == 1 else tuple(args.n)
        result = mean_power(args.mu1, n, **common)
    else:
        result = mean_sample_size(args.mu1, power=args.power, ratio=args.ratio, **common)
    _emit(args.format, str(result), [result.to_dict()])
    return EXIT_OK


def add_ledger_options(parser, real):
    """The ledger options of a release subcommand (``--budget FILE`` and what creates it)."""
    led = parser.add_argument_group("privacy budget (a ledger file kept across invocations)")
    led.add_argument("--budget", metavar="FILE", help="charge the ledger FILE before drawing")
    led.add_argument("--total-epsilon", type=real, metavar="E", help="total epsilon, when FILE is created")
    led.add_argument("--total-delta", type=real, metavar="D", help="total delta, when FILE is created")
    led.add_argument("--label", metavar="TEXT", help="what the release is, for the ledger")
    led.add_argument("--plan", metavar="PLAN", help="allocation plan (JSON) fixed when FILE is created")
    led.add_argument("--parallel", metavar="LABEL", help="with --group: charge a group of the ledger's parallel set")
    led.add_argument("--group", metavar="NAME", help="the group (disjoint people, e.g. an arm) of --parallel LABEL")


def add_mean_parsers(sub, subcommand, real, whole, add_format):
    """The parsers of ``mean-release``, ``mean-test`` and ``mean-power`` (called from the parser builders)."""
    rel = subcommand(sub, "mean-release", "privatize the mean of a numeric CSV column (clipped sum)",
                     "Clip a numeric column to public bounds and release its clipped sum with Laplace\n"
                     "noise (and, with --spread, its centred sum of squares, the budget split by --split).\n"
                     "The unit of privacy is one person's value (replace-one; n and the bounds public).\n"
                     "Choose the bounds before seeing the data.  Without --seed the noise comes from the\n"
                     "operating system's cryptographic source; --seed is for research only.")
    add_format(rel)
    rel.add_argument("--csv", metavar="FILE", required=True, help="CSV file ('-' for stdin)")
    rel.add_argument("--column", metavar="NAME", required=True, help="the numeric column (confidential)")
    rel.add_argument("--lower", type=real, required=True, help="public lower clipping bound")
    rel.add_argument("--upper", type=real, required=True, help="public upper clipping bound")
    rel.add_argument("--epsilon", type=real, required=True, help="privacy-loss parameter of the release (> 0)")
    rel.add_argument("--spread", action="store_true", help="also release the centred sum of squares")
    rel.add_argument("--split", type=real, default=None,
                     help="with --spread: share of epsilon for the sum (default 0.5; the rest for the squares)")
    rel.add_argument("--seed", type=whole, help="seed of numpy's generator: NOT PRIVATE, research only")
    add_ledger_options(rel, real)
    rel.set_defaults(func=cmd_mean_release)

    test = subcommand(sub, "mean-test", "test a mean, or compare two groups' means, like R's t.test",
                      "Test H0: mean = mu0 from a clipped-sum release (dpinfer mean-release), or\n"
                      "mean_1 - mean_2 = margin from two (--release twice); prints R's htest layout.\n"
                      "DP-JIMI models the clipping (default); --method naive is the normal interval\n"
                      "around the clipped mean, which ignores it; --method repro (repro samples; two\n"
                      "groups: --sigma known, normal model) is valid in finite samples, Monte Carlo\n"
                      "error included.")
    add_format(test, extra=("htest-json",))
    test.add_argument("--release", metavar="FILE", action="append", required=True,
                      help="JSON from 'dpinfer mean-release --format json'; given twice: two groups")
    test.add_argument("--mu0", type=real, help="one group: the null mean (default 0)")
    test.add_argument("--margin", type=real, help="two groups: the null difference mean_1 - mean_2 (default 0)")
    test.add_argument("--method", choices=("jimi", "naive", "repro"), default="jimi",
                      help="jimi (default), naive, or repro (repro samples; two groups need --sigma)")
    test.add_argument("--sigma", type=real, nargs="+", metavar="SD",
                      help="known standard deviation(s), one per group (default: the released squares)")
    test.add_argument("--model", choices=("normal", "lognormal"), default="normal",
                      help="jimi: the data model before clipping (default normal)")
    test.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                      help="alternative hypothesis (default two-sided)")
    test.add_argument("--confidence-level", type=real, default=0.95, help="interval level (default 0.95)")
    test.add_argument("--n-sim", type=whole, default=None,
                      help="jimi: number of draws (default 2000); repro: seeds (default 1999, per group for two "
                           "groups; 399 with the spread released and no --sigma)")
    test.add_argument("--seed", type=whole, help="jimi, repro: seed of the draws (default: derived from the release)")
    add_workers_option(test, "jimi, repro")
    test.add_argument("--composition", choices=("sequential", "parallel"),
                      help="two groups: how the result records both releases' privacy (default: read the "
                           "releases: parallel, the larger epsilon, only when they record different groups of "
                           "one ledger's parallel set; else sequential, the sum)")
    test.set_defaults(func=cmd_mean_test)

    plan = subcommand(sub, "mean-power", "power or sample size of the private test of a mean, like R's power.t.test",
                      "The naive test of the clipped mean (mean-test --method naive; --method jimi for\n"
                      "DP-JIMI) for data N(mu, sd^2) clipped to the bounds: --n gives the power, --power\n"
                      "the smallest n.  Exact with the sd known (DP-JIMI: one group); --spread (the spread\n"
                      "released) and DP-JIMI's two groups simulate, seeded, and print the Monte Carlo SE.\n"
                      "--mu2 for two groups (n per group).")
    add_format(plan)
    plan.add_argument("--mu1", type=real, required=True, help="the true mean planned for (group 1)")
    plan.add_argument("--mu2", type=real, help="two groups: the second group's true mean")
    plan.add_argument("--mu0", type=real, help="one group: the null mean (default 0)")
    plan.add_argument("--margin", type=real, help="two groups: the null difference mean_1 - mean_2 (default 0)")
    plan.add_argument("--sigma", type=real, nargs="+", metavar="SD", required=True,
                      help="the data's standard deviation (one, or one per group)")
    plan.add_argument("--lower", type=real, required=True, help="the release's lower clipping bound")
    plan.add_argument("--upper", type=real, required=True, help="the release's upper clipping bound")
    plan.add_argument("--epsilon", type=real, required=True, help="each group's release epsilon")
    plan.add_argument("--n", type=whole, nargs="+", help="number of values (per group; two values: n1 n2): the power")
    plan.add_argument("--power", type=real, help="target power: the smallest n")
    plan.add_argument("--ratio", type=real, default=1.0, help="two groups, with --power: n2 / n1 (default 1)")
    plan.add_argument("--alpha", type=real, default=0.05, help="significance level (default 0.05)")
    plan.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                      help="alternative hypothesis (default two-sided, as power.t.test)")
    plan.add_argument("--method", choices=("naive", "jimi"), default="naive",
                      help="the test planned: naive (default) or jimi (DP-JIMI, mean-test's default method)")
    plan.add_argument("--spread", action="store_true", help="the spread is released and plugged in (simulated)")
    plan.add_argument("--split", type=real, default=None, help="with --spread: share of epsilon for the sum (0.5)")
    plan.add_argument("--n-sim", type=whole, default=None, help="data sets simulated (default: exact, or 4000 "
                      "with --spread, 1000 for a simulated --method jimi)")
    plan.add_argument("--seed", type=whole, help="seed of the simulation (default: derived from the question)")
    plan.set_defaults(func=cmd_mean_power)
