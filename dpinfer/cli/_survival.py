"""``dpinfer survival-release`` and ``dpinfer survival-test``: a private life table and its analysis.

``survival-release`` reads the time, event (and arm) columns of a CSV file and releases
the life table with :class:`~dpinfer.LifeTableReleaser`; ``survival-test`` reads such a
release and prints the log-rank test (two arms, like R's ``survdiff``) and, with
``--km``, the Kaplan-Meier table (like ``summary(survfit(...))``).
"""

from __future__ import annotations

import math

from ._commands import EXIT_OK, _budget_handle, _budget_session, _emit, _print_budget_status, _seeded_warning
from ._input import _UsageError, _column_cells, _counts_from_csv, _releases_from_file, add_workers_option
from ._means import add_ledger_options

__all__ = []  # package-internal


def _times(reader, path, column):
    """The column's follow-up times; a cell that is not a number >= 0 is an error naming its row only."""
    out = []
    for n, cell in _column_cells(reader, path, column):
        try:
            value = float(cell)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0.0):
            raise _UsageError(f"column {column!r} must hold follow-up times (finite numbers >= 0); data row {n} "
                              "does not.")
        out.append(value)
    return out


def _events(reader, path, column):
    """The column's event indicators (1/0 or TRUE/FALSE); anything else is an error naming its row only."""
    out = []
    for n, cell in _column_cells(reader, path, column):
        if cell in ("1", "1.0") or cell.upper() == "TRUE":
            out.append(1)
        elif cell in ("0", "0.0") or cell.upper() == "FALSE":
            out.append(0)
        else:
            raise _UsageError(f"column {column!r} must hold event indicators 1/0 (or TRUE/FALSE); data row {n} "
                              "holds something else.")
    return out


def _labels(reader, path, column):
    return [cell for _, cell in _column_cells(reader, path, column)]


def _breaks(text):
    try:
        return [float(v) for v in text.split(",")]
    except ValueError as exc:
        raise _UsageError(f"--breaks must be comma-separated numbers (e.g. 3,6,9,12); got {text!r}.") from exc


def cmd_survival_release(args):
    from .. import LifeTableReleaser

    if args.format == "csv":  # decided before anything is read, drawn or charged
        raise _UsageError("--format csv cannot hold a life table (a table per arm); use --format json.")
    if args.csv == "-":
        raise _UsageError("--csv must name a file for survival-release (its columns are read in turn), not '-'.")
    time = _counts_from_csv(args.csv, args.time, rows=_times)
    event = _counts_from_csv(args.csv, args.event, rows=_events)
    group = _counts_from_csv(args.csv, args.arm, rows=_labels) if args.arm else None
    groups = args.arms.split(",") if args.arms else None
    secure = args.seed is None
    releaser = LifeTableReleaser(args.epsilon, _breaks(args.breaks))
    with _budget_session(args) as ledger:
        budget = _budget_handle(args, ledger)
        release = releaser.release(time, event, group, groups=groups, rng=None if secure else args.seed,
                                   secure=secure, budget=budget)
    if not secure:
        _seeded_warning(args.seed)
    _emit(args.format, str(release), [release.to_dict()])
    _print_budget_status(args, ledger)
    return EXIT_OK


def cmd_survival_test(args):
    from .. import kaplan_meier, logrank_test

    found = _releases_from_file(args.release)
    if len(found) != 1 or found[0].kind != "life_table":
        raise _UsageError(f"release file {args.release!r} must hold one life table (written by 'dpinfer "
                          "survival-release --format json').")
    release = found[0]
    texts, records = [], []
    if len(release.groups) == 2:
        result = logrank_test(release, alternative=args.alternative, confidence_level=args.confidence_level,
                              n_sim=args.n_sim, rng=args.seed, workers=args.workers)
        texts.append(str(result))
        records.append(result.to_htest() if args.format == "htest-json" else result.to_dict())
    elif not args.km:
        raise _UsageError(f"the life table has {len(release.groups)} arm(s); the log-rank test compares two. "
                          "Give --km for the Kaplan-Meier table.")
    if args.km:
        fit = kaplan_meier(release, estimator=args.estimator, confidence_level=args.confidence_level, rng=args.seed)
        texts.append(str(fit))
        if args.format in ("json", "htest-json"):
            records.append(fit.to_dict())
        elif args.format == "csv":
            records.extend(fit.to_frame().to_dict("records"))
    _emit(args.format, "\n".join(texts), records, as_list=len(records) > 1)
    return EXIT_OK


def add_survival_parsers(sub, subcommand, real, whole, add_format):
    """The parsers of ``survival-release`` and ``survival-test`` (called from the parser builders)."""
    rel = subcommand(sub, "survival-release", "privatize a life table of time-to-event data",
                     "Count, per arm and time interval, the events (in (t_(j-1), t_j]) and the censorings\n"
                     "(in [t_(j-1), t_j)) of a CSV file's (time, event) columns and release them with Tulap noise\n"
                     "(epsilon / 2 per cell).  The unit of privacy is one patient (replace-one within\n"
                     "an arm; the arm sizes are public).  Times beyond the last break are censored\n"
                     "there.  Choose the breaks before seeing the data.  Without --seed the noise comes\n"
                     "from the operating system's cryptographic source; --seed is for research only.")
    add_format(rel)
    rel.add_argument("--csv", metavar="FILE", required=True, help="CSV file")
    rel.add_argument("--time", metavar="NAME", required=True, help="the follow-up time column (confidential)")
    rel.add_argument("--event", metavar="NAME", required=True, help="the event column, 1/0 (confidential)")
    rel.add_argument("--arm", metavar="NAME", help="the arm column (default: one arm)")
    rel.add_argument("--arms", metavar="A,B", help="the public arm labels in order (default: sorted)")
    rel.add_argument("--breaks", metavar="T1,T2,...", required=True,
                     help="public interval ends, increasing and positive (e.g. 3,6,9,12)")
    rel.add_argument("--epsilon", type=real, required=True, help="privacy-loss parameter of the table (> 0)")
    rel.add_argument("--seed", type=whole, help="seed of numpy's generator: NOT PRIVATE, research only")
    add_ledger_options(rel, real)
    rel.set_defaults(func=cmd_survival_release)

    test = subcommand(sub, "survival-test", "log-rank test and Kaplan-Meier curves from a private life table",
                      "Read a life table (dpinfer survival-release --format json) and print the private\n"
                      "log-rank test of two arms with the Mantel-Haenszel hazard ratio (like R's\n"
                      "survdiff), its null law simulated at the estimated common hazards; --km adds the\n"
                      "Kaplan-Meier table with noise-aware intervals (like summary(survfit(...))).")
    add_format(test, extra=("htest-json",))
    test.add_argument("--release", metavar="FILE", required=True,
                      help="JSON from 'dpinfer survival-release --format json'")
    test.add_argument("--km", action="store_true", help="also print the survival table (Kaplan-Meier layout)")
    test.add_argument("--estimator", choices=("actuarial", "km"), default="actuarial",
                      help="with --km: actuarial life-table estimate (default) or Kaplan-Meier on the grouped times")
    test.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                      help="alternative hypothesis (default two-sided; greater: the second arm's hazard is higher)")
    test.add_argument("--confidence-level", type=real, default=0.95, help="interval level (default 0.95)")
    test.add_argument("--n-sim", type=whole, default=10_000, help="simulated releases of the test (default 10000)")
    test.add_argument("--seed", type=whole, help="seed of the simulations (default: derived from the release)")
    add_workers_option(test, "the log-rank test")
    test.set_defaults(func=cmd_survival_test)
