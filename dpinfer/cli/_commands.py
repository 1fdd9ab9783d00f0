"""The subcommands of ``dpinfer`` (release, budget, test, ci, power, sample-size, validate,
demo) and their output.  The parser and ``main`` are in :mod:`dpinfer.cli`."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import textwrap
from pathlib import Path

from .._printing import _csv_text, _json_text
from ._input import (
    EXIT_INTERNAL,
    EXIT_OK,
    _UsageError,
    _counts_from_csv,
    _releases_from_args,
    _releases_from_file,
    _table_from_csv,
)
from ._strata import cmd_test_many, sites_or_strata
from ._two_arm import cmd_ci_two, cmd_power_two, cmd_sample_size_two, cmd_test_two, two_arms


# --------------------------------------------------------------------------- output
def _emit(fmt, text, records, *, as_list=False):
    """Print ``text`` (format text) or ``records`` (a list of flat dicts) as JSON/CSV.

    JSON is one object for a single record, unless ``as_list`` (commands whose
    output is a table, such as ``power`` and ``demo``, always give a list).
    """
    if fmt == "text":
        print(text)
    elif fmt in ("json", "htest-json"):
        print(_json_text(records[0] if len(records) == 1 and not as_list else records))
    else:
        _emit_rows(list(records[0]), records)


def _emit_rows(columns, records):
    """Print ``records`` as CSV with a header row of ``columns`` (a header alone when there are none)."""
    print(_csv_text(records, columns), end="")


def _fmt(value, digits=7):
    from .._printing import _r_format

    return _r_format([value], digits)[0].strip()


# --------------------------------------------------------------------------- commands
def _seeded_warning(seed):
    print(f"dpinfer: warning: --seed {seed} makes the noise reproducible; anyone who knows the seed "
          "can remove it. Use seeds for research and demos only, never for a real release.",
          file=sys.stderr)


def _cmd_release(args):
    from .. import LaplaceReleaser, TulapReleaser

    if args.table is not None:
        return _release_table(args)
    for flag, value in (("--neighbours", args.neighbours), ("--margins", args.margins)):
        if value is not None:
            raise _UsageError(f"{flag} applies to --table only (a contingency table release).")
    if args.epsilon is None:
        raise _UsageError("the following arguments are required: --epsilon")
    args.mechanism = args.mechanism or "tulap"
    if args.mechanism == "tulap" and args.kind == "proportion":
        raise _UsageError("--kind proportion applies to --mechanism laplace only: a Tulap release is a "
                          "noisy count (for the DP-UMP test); give --mechanism laplace to release x/n.")
    args.kind = args.kind or ("count" if args.mechanism == "tulap" else "proportion")
    x, n = _count_input(args)
    secure = args.seed is None
    rng = None if secure else args.seed
    with _budget_session(args) as ledger:
        budget = _budget_handle(args, ledger)
        if args.mechanism == "tulap":
            release = TulapReleaser(args.epsilon, args.delta, args.sensitivity).release(
                x, n, rng=rng, secure=secure, budget=budget)
        else:
            if args.sensitivity != 1:
                raise _UsageError(f"--sensitivity applies to --mechanism tulap only; got {args.sensitivity}.")
            if args.delta != 0.0:
                raise _UsageError(f"--delta must be 0 for the Laplace mechanism (pure epsilon-DP); got {args.delta:g}.")
            releaser = LaplaceReleaser(args.epsilon)
            make = releaser.proportion if args.kind == "proportion" else releaser.count
            release = make(x, n, rng=rng, secure=secure, budget=budget)
    if not secure:  # after the release: a refused one warns of nothing
        _seeded_warning(args.seed)
    _emit(args.format, str(release), [release.to_dict()])
    _print_budget_status(args, ledger)
    return EXIT_OK


def _count_input(args):
    """``(x, n)`` of ``release``: ``--csv FILE --column NAME`` or ``--x X --n N`` (the count is confidential)."""
    if args.csv is not None:
        if args.x is not None or args.n is not None:
            raise _UsageError("give either --csv/--column or --x/--n, not both.")
        if args.column is None:
            raise _UsageError("--csv needs --column NAME (the 0/1 column to count).")
        return _counts_from_csv(args.csv, args.column)
    if args.x is None or args.n is None:
        raise _UsageError("give the confidential count as --x X --n N, or --csv FILE --column NAME.")
    return args.x, args.n


def _release_table(args):
    """``dpinfer release --table COUNTS.csv``: Laplace noise on every cell (ContingencyTableReleaser)."""
    from .. import ContingencyTableReleaser

    given = [flag for flag, value in (("--x", args.x), ("--n", args.n), ("--csv", args.csv),
                                      ("--column", args.column), ("--kind", args.kind)) if value is not None]
    if args.mechanism not in (None, "laplace"):
        given.append(f"--mechanism {args.mechanism}")
    if args.delta != 0.0:
        given.append("--delta")
    if args.sensitivity != 1:
        given.append("--sensitivity")
    if given:
        raise _UsageError(f"{', '.join(given)} must not be given with --table: a table is released with "
                          "Laplace noise on every cell, its sensitivity set by --neighbours.")
    if args.format == "csv":
        raise _UsageError("--format csv writes one release per row and cannot hold a table; use "
                          "--format json (what 'dpinfer test --release' reads) or text.")
    releaser = ContingencyTableReleaser(args.epsilon, neighbours=args.neighbours or "replace-one",
                                        margins=args.margins or ("private" if args.neighbours == "add-remove"
                                                                 else "total"))
    counts, row_names, column_names = _table_from_csv(args.table, confidential=True, with_names=True)
    secure = args.seed is None
    with _budget_session(args) as ledger:
        budget = _budget_handle(args, ledger)
        release = releaser.release(counts, rng=None if secure else args.seed, secure=secure, budget=budget)
    if not secure:  # after the release: a refused one warns of nothing
        _seeded_warning(args.seed)
    cells = _cells_text(release.value, row_names, column_names)
    labels = {key: names for key, names in (("row_names", row_names), ("column_names", column_names))
              if names is not None}
    _emit(args.format, f"{release}\n  noisy cells:\n{cells}", [{**release.to_dict(), **labels}])
    _print_budget_status(args, ledger)
    return EXIT_OK


def _cells_text(value, row_names, column_names):
    """The noisy cells, one table row a line, under the CSV's column names and beside its row names."""
    width = max(map(len, row_names), default=0) if row_names is not None else 0
    lead = "  " + (" " * (width + 2) if row_names is not None else "")
    lines = [lead + "  ".join(f"{name:>12}" for name in column_names)] if column_names is not None else []
    for i, row in enumerate(value):
        label = f"{row_names[i]:<{width}}  " if row_names is not None else ""
        lines.append("  " + label + "  ".join(f"{v:>12.6g}" for v in row))
    return "\n".join(lines)


def _print_budget_status(args, ledger):
    """The ledger's state after a charged release: on stdout under the text output, on
    stderr with --format json or csv, so that stdout stays the file 'dpinfer test --release' reads."""
    if ledger is None:
        return
    if args.format == "text":
        print(f"{ledger.summary()}; ledger {args.budget}")
    else:
        print(f"dpinfer release: {ledger.summary()}; ledger {args.budget}", file=sys.stderr)


def _budget_session(args):
    """The ledger file of ``release --budget FILE``, locked for this invocation (or no budget)."""
    import contextlib

    totals = {"--total-epsilon": args.total_epsilon, "--total-delta": args.total_delta, "--label": args.label,
              "--plan": args.plan, "--parallel": args.parallel, "--group": args.group}
    if (args.parallel is None) != (args.group is None):
        raise _UsageError("--parallel LABEL and --group NAME go together: the release is charged to group NAME "
                          "of the ledger's parallel set LABEL (disjoint groups of people, e.g. the arms).")
    if args.budget is None:
        given = [flag for flag, value in totals.items() if value is not None]
        if given:
            raise _UsageError(f"{', '.join(given)} need{'s' if len(given) == 1 else ''} --budget FILE "
                              "(the ledger to charge).")
        return contextlib.nullcontext(None)
    from ._ledger_file import locked_budget

    return locked_budget(args.budget, total_epsilon=args.total_epsilon, total_delta=args.total_delta,
                         plan=args.plan)


def _budget_handle(args, ledger):
    """What a release charges: the ledger, or the group --group of its parallel set --parallel
    (the release then records the group: results read it), with --label in front."""
    if ledger is None:
        return None
    handle = ledger if args.parallel is None else ledger.parallel(args.parallel).group(args.group)
    return handle.with_label(args.label) if args.label else handle


def _cmd_budget(args):
    from ._ledger_file import read_budget

    if args.file == "verify" and args.ledger is not None:
        return _cmd_budget_verify(args)
    if args.file == "verify" and not Path("verify").exists():
        raise _UsageError("budget verify needs the ledger: 'dpinfer budget verify LEDGER --release FILE...'.")
    if args.ledger is not None or args.release is not None:
        raise _UsageError("LEDGER and --release go with 'dpinfer budget verify LEDGER --release FILE...' only "
                          "(a ledger file named verify: give it as ./verify).")
    if args.format != "events" and args.delta_slack != 1e-6:
        raise _UsageError("--delta-slack applies to --format events only (the advanced-composition total).")
    budget = read_budget(args.file)
    if args.format == "json":
        print(budget.to_json(), end="")
    elif args.format == "events":
        print(json.dumps(budget.export_events(delta_slack=args.delta_slack), indent=2))
    elif args.format == "csv":
        columns = _ledger_columns()  # the attributes: an entry written before 0.1 shows its mapped neighbours
        _emit_rows(columns, [{"entry": i, **{c: getattr(entry, c) for c in columns[1:]}}
                             for i, entry in enumerate(budget.ledger, start=1)])
    else:
        print(budget)
    return EXIT_OK


EXIT_NOT_VERIFIED = 3  # budget verify: a release is not in the chain, or the ledger is behind its head file


def _cmd_budget_verify(args):
    """``dpinfer budget verify LEDGER --release FILE...``: the releases in the chain, the ledger at its head."""
    from ._ledger_file import verify_ledger

    if not args.release:
        raise _UsageError("budget verify needs the published releases: --release FILE (repeat for each).")
    if args.format not in ("text", "json") or args.delta_slack != 1e-6:
        raise _UsageError("budget verify writes --format text or json (no --delta-slack).")
    releases, names = [], []
    for path in args.release:
        found = _releases_from_file(path)
        releases += found
        names += [path if len(found) == 1 else f"{path}, row {i}" for i in range(1, len(found) + 1)]
    report, behind = verify_ledger(args.ledger, releases, names)
    if args.format == "json":
        print(json.dumps({**report.to_dict(), "ok": report.ok and behind is None, "behind_head_file": behind},
                         indent=2))
    else:
        print(report)
        if behind is not None:
            print(f"the ledger is behind its head file: {behind}")
    return EXIT_OK if report.ok and behind is None else EXIT_NOT_VERIFIED


def _ledger_columns():
    """The CSV columns of ``dpinfer budget --format csv``: the entry number and a ledger entry's fields."""
    from ..budget import LedgerEntry

    return ["entry", *(field.name for field in dataclasses.fields(LedgerEntry) if not field.name.startswith("_"))]


def _cmd_test(args):
    from ..inference.prop import prop_test

    loaded = None
    many = sites_or_strata(args)
    if many is not None:
        return cmd_test_many(args, many, _emit)
    arms = two_arms(args)
    if arms is not None:
        return cmd_test_two(args, arms, _emit)
    if args.table is not None:
        release, labels = _typed_table_release(args)
        return _test_tables(args, [release], [labels], typed=True)
    if args.release is not None:
        loaded, labels = _releases_from_file(args.release, labels=True)
        tables = [rel.kind == "table" for rel in loaded]
        if any(tables):
            if not all(tables):
                raise _UsageError(f"release file {args.release!r} mixes tables and single values; "
                                  "test them from separate files.")
            return _test_tables(args, loaded, labels, typed=False)
    args.method = _scalar_method(args)
    releases = _releases_from_args(args, loaded)
    options = _method_options(args)
    results = [prop_test(rel, args.p0, method=args.method, alternative=args.alternative,
                         confidence_level=args.confidence_level, **options)
               for rel in releases]
    if args.release is None:
        # Typed numbers are not a Release: as in Python, no sampling path or unit is claimed.
        results = [dataclasses.replace(r, secure=None, privacy_unit="", neighbours=None) for r in results]
    text = "\n\n".join(str(r).strip("\n") for r in results)
    if args.format == "htest-json":
        records = [r.to_htest() for r in results]
    else:
        records = [r.to_dict() for r in results]
    _emit(args.format, text, records, as_list=len(records) > 1)
    return EXIT_OK


def _scalar_method(args):
    """--method for a single released value: 'ump' by default; 'mc' is for tables only."""
    if args.method == "mc":
        raise _UsageError("--method mc (Gaboardi et al.'s Monte Carlo test) applies to a table "
                          "(--table FILE or a release of kind 'table') only.")
    return args.method or "ump"


def _typed_table_release(args):
    """A Release of kind 'table' from --table NOISY.csv and the public facts typed with it."""
    from ..releasers.release import Release

    given = [flag for flag, value in (("--release", args.release), ("--z", args.value),
                                      ("--delta", args.delta), ("--sensitivity", args.sensitivity))
             if value is not None]
    if given:
        raise _UsageError(f"{', '.join(given)} must not be given with --table: the table's noise is "
                          "Laplace (delta 0) with the sensitivity set by --neighbours.")
    if args.epsilon is None:
        raise _UsageError("--table needs --epsilon (the epsilon the table was released with).")
    neighbours = args.neighbours or "replace-one"
    if neighbours == "add-remove" and args.n is not None:
        raise _UsageError("--n must not be given with --neighbours add-remove: under add/remove the "
                          "total is private (leave --n out).")
    table, row_names, column_names = _table_from_csv(args.table, confidential=False, with_names=True)
    sensitivity = 2.0 if neighbours == "replace-one" else 1.0
    return (Release(table, "laplace", args.epsilon, 0.0, sensitivity, args.n, "table", neighbours=neighbours),
            (row_names, column_names))


def _labelled(result, labels):
    """The result with the table's row and column names (from its CSV or release file) in its data name."""
    row_names, column_names = labels
    named = [f"{what}: {', '.join(names)}" for what, names in (("rows", row_names), ("columns", column_names))
             if names is not None]
    return dataclasses.replace(result, data_name="; ".join([result.data_name, *named])) if named else result


def _test_tables(args, releases, labels, *, typed):
    """'dpinfer test' on tables: the test of independence (DP-JIMI by default, --method mc)."""
    from ..inference.prop import prop_test

    if args.method in ("ump", "normal"):
        raise _UsageError(f"--method {args.method} tests one proportion; a table is tested for independence "
                          "with --method jimi (DP-JIMI, the default) or --method mc (Gaboardi et al. 2016).")
    if args.table is None and args.neighbours is not None:
        raise _UsageError("--neighbours applies to --table only: a release file records the sensitivity.")
    ignored = [flag for flag, bad in (("--p0", args.p0 != 0.5), ("--alternative", args.alternative != "two-sided"),
                                      ("--confidence-level", args.confidence_level != 0.95),
                                      ("--two-sided-method", args.two_sided_method is not None)) if bad]
    if ignored:
        raise _UsageError(f"{', '.join(ignored)} do{'es' if len(ignored) == 1 else ''} not apply to a test of "
                          "independence (no null proportion, no interval; large statistics are the evidence).")
    method = args.method or "jimi"
    results = [_labelled(prop_test(rel, method=method, n_sim=args.n_sim, rng=args.seed, workers=args.workers), names)
               for rel, names in zip(releases, labels)]
    if typed:  # numbers typed in are not a Release: no sampling path or unit is claimed
        results = [dataclasses.replace(r, secure=None, privacy_unit="", neighbours=None) for r in results]
    text = "\n\n".join(str(r).strip("\n") for r in results)
    records = [r.to_htest() if args.format == "htest-json" else r.to_dict() for r in results]
    _emit(args.format, text, records, as_list=len(records) > 1)
    return EXIT_OK


def _method_options(args):
    if args.two_sided_method is not None:
        if args.method != "ump":
            raise _UsageError(f"--two-sided-method applies to --method ump only; got --method {args.method}.")
        return {"two_sided_method": args.two_sided_method}
    if args.method != "jimi":
        if args.n_sim is not None or args.seed is not None or args.workers is not None:
            raise _UsageError(f"--n-sim, --seed and --workers apply to --method jimi only (method {args.method} "
                              "draws nothing).")
        return {}
    if (args.seed is not None or args.workers is not None) and args.n_sim is None:
        raise _UsageError("--seed and --workers need --n-sim: the default exact DP-JIMI limit draws nothing.")
    return {"n_sim": args.n_sim, "rng": args.seed, "workers": args.workers}


_METHOD_NAMES = {
    "ump": "DP-UMP interval (Tulap release)",
    "normal": "Normal-approximation interval (Laplace release)",
    "jimi": "DP-JIMI interval (Laplace release)",
}


def _cmd_ci(args):
    if args.format == "htest-json":
        raise _UsageError("--format htest-json applies to 'dpinfer test' (an interval alone is "
                          "not an htest); use --format json.")
    arms = two_arms(args)
    if arms is not None:
        return cmd_ci_two(args, arms, _emit)
    args.method = _scalar_method(args)
    releases = _releases_from_args(args)
    options = dict(confidence_level=args.confidence_level, alternative=args.alternative)
    if args.interval is not None and args.method != "normal":
        raise _UsageError(f"--interval applies to --method normal only; got --method {args.method}.")
    if args.method == "ump":
        from ..inference.ump import binom_ump_ci as ci_func

        options.update(_method_options(args))
    elif args.method == "normal":
        from ..inference.normal import binom_normal_ci as ci_func

        _method_options(args)  # refuses --n-sim, --seed and --workers: the normal interval draws nothing
        options["method"] = args.interval or "score"
    else:
        from ..inference.jimi import binom_jimi_ci as ci_func

        options.update(_method_options(args))
    name = _METHOD_NAMES[args.method]
    if args.method == "ump" and releases and releases[0].sensitivity != 1:
        name = name[:-1] + f", sensitivity {releases[0].sensitivity:g})"
    if args.method == "normal":
        name = name.replace("Normal-approximation", f"Normal-approximation ({options['method']})")
    records, texts = [], []
    for release in releases:
        ci = ci_func(release, **options)
        data_name = f"released value = {_fmt(release.value)}, n = {release.n}"
        # the keys of 'dpinfer test' (HTestResult.to_dict), in its order, for the fields an interval has
        records.append({
            **ci.to_dict(), "method": name, "alternative": args.alternative,
            "epsilon": release.epsilon, "delta": release.delta, "mechanism": release.mechanism,
            "secure": release.secure if args.release is not None else None, "data_name": data_name,
        })
        texts.append(f"{name}, {args.alternative}\n"
                     f"data:  {data_name}\n{ci}\n"
                     f"privacy: epsilon = {_fmt(release.epsilon)}, delta = {_fmt(release.delta)}")
    _emit(args.format, "\n\n".join(texts), records, as_list=len(records) > 1)
    return EXIT_OK


def _one_arm_required(args, flags):
    """The options one arm needs (not required by the parser, which also reads two arms)."""
    missing = [flag for flag in flags if getattr(args, flag[2:].replace("-", "_")) is None]
    if missing:
        raise _UsageError(f"the following arguments are required: {', '.join(missing)} (or --theta2 and "
                          "the other two-arm options)")


def _cmd_power(args):
    import numpy as np

    if args.theta2 is not None:  # two arms (the default alternative is two-sided for both)
        return cmd_power_two(args, _emit, _fmt)
    _one_arm_required(args, ("--theta", "--n", "--p0"))
    given = [flag for flag, v in (("--theta1", args.theta1), ("--n1", args.n1), ("--n2", args.n2),
                                  ("--effect", args.effect), ("--margin", args.margin),
                                  ("--mechanism", args.mechanism)) if v is not None]
    if given:
        raise _UsageError(f"{', '.join(given)} apply to two arms (give --theta2 too).")
    if args.method == "ump":
        from ..inference.ump import binom_ump_power

        power = binom_ump_power(np.asarray(args.theta), args.n, args.p0, epsilon=args.epsilon,
                                delta=args.delta, alpha=args.alpha, alternative=args.alternative,
                                sensitivity=args.sensitivity)
    else:
        if args.sensitivity != 1:
            raise _UsageError(f"--sensitivity applies to --method ump only; got {args.sensitivity}.")
        if args.delta != 0.0:
            raise _UsageError(f"--delta must be 0 for --method normal (Laplace noise); got {args.delta:g}.")
        from ..inference.normal import binom_normal_power

        power = binom_normal_power(np.asarray(args.theta), args.n, args.p0, epsilon=args.epsilon,
                                   alpha=args.alpha, alternative=args.alternative)
        size = float(binom_normal_power(args.p0, args.n, args.p0, epsilon=args.epsilon,
                                        alpha=args.alpha, alternative=args.alternative))
    power = np.atleast_1d(np.asarray(power, dtype=float))
    records = [
        {"theta": float(t), "power": float(p), "n": args.n, "p0": args.p0, "alpha": args.alpha,
         "alternative": args.alternative, "epsilon": args.epsilon, "delta": args.delta,
         "sensitivity": args.sensitivity, "method": args.method}
        for t, p in zip(args.theta, power)
    ]
    name = {"ump": "DP-UMP test (Tulap release)", "normal": "normal-approximation test (Laplace release)"}
    lines = [f"Exact power of the {name[args.method]}",
             f"n = {args.n}, p0 = {_fmt(args.p0)}, alpha = {_fmt(args.alpha)}, "
             f"alternative = {args.alternative}, epsilon = {_fmt(args.epsilon)}, delta = {_fmt(args.delta)}"
             + (f", sensitivity = {args.sensitivity}" if args.sensitivity != 1 else ""), ""]
    if args.method == "ump":
        lines += _power_price(args, records)
    else:
        lines += [f"{'theta':>10} {'power':>10}"] + [f"{_fmt(r['theta']):>10} {_fmt(r['power'], 4):>10}"
                                                      for r in records]
    if args.method == "normal":
        lines += ["", f"exact size (power at theta = p0): {_fmt(size, 4)}"]
        if size > args.alpha:
            from .._warnings import ApproximationWarning, warn

            # said once, as a warning on stderr (where every warning of the command goes)
            warn(f"the normal-approximation test's exact size is {_fmt(size, 4)}, above alpha = "
                 f"{_fmt(args.alpha)}: part of its power comes from rejecting true nulls too "
                 "often, so do not compare it with DP-UMP's power at this alpha.", ApproximationWarning)
    _emit(args.format, "\n".join(lines), records, as_list=True)
    return EXIT_OK


def _power_price(args, records):
    """The DP-UMP power table's comparator columns (added to ``records``): the same test without
    noise (epsilon = Inf) and the normal approximation without noise, with the price of privacy."""
    import numpy as np

    from ..inference._price import NONPRIVATE_EPSILON, normal_power
    from ..inference.ump import binom_ump_power

    plain = np.atleast_1d(binom_ump_power(np.asarray(args.theta), args.n, args.p0, epsilon=NONPRIVATE_EPSILON,
                                          alpha=args.alpha, alternative=args.alternative))
    for r, q in zip(records, plain):
        r.update(nonprivate_power=float(q), normal_power=normal_power(r["theta"], None, args.n, args.p0, args.alpha,
                                                                      args.alternative), price_power=float(q) - r["power"])
    lines = [f"{'theta':>10} {'power':>10} {'no noise':>10} {'normal':>10} {'price':>10}"]
    lines += [" ".join(f"{_fmt(r[k], 4 if k != 'theta' else 7):>10}"
                       for k in ("theta", "power", "nonprivate_power", "normal_power", "price_power"))
              for r in records]
    return lines + ["", "no noise: the same test without the privacy noise (epsilon = Inf: the randomized "
                    "binomial test);", "normal: the normal approximation without noise (Lachin 1981); price: "
                    "no noise minus power."]


def _cmd_sample_size(args):
    from ..inference.ump import binom_ump_sample_size

    if args.theta2 is not None:  # two arms (the default alternative is two-sided for both)
        return cmd_sample_size_two(args, _emit, _fmt)
    _one_arm_required(args, ("--p0",))
    given = [flag for flag, v in (("--effect", args.effect), ("--margin", args.margin), ("--mechanism", args.mechanism),
                                  ("--ratio", None if args.ratio == 1.0 else args.ratio)) if v is not None]
    if given:
        raise _UsageError(f"{', '.join(given)} apply to two arms (give --theta2 too).")
    n = binom_ump_sample_size(args.theta1, args.p0, epsilon=args.epsilon, delta=args.delta,
                              alpha=args.alpha, power=args.power, alternative=args.alternative,
                              sensitivity=args.sensitivity)
    found = n.to_dict()
    record = {"n": int(n), "theta1": args.theta1, "p0": args.p0, "alpha": args.alpha,
              "power": args.power, "alternative": args.alternative, "epsilon": args.epsilon,
              "delta": args.delta, "sensitivity": args.sensitivity, "method": "ump",
              **{k: found[k] for k in ("exact_power", "nonprivate_n", "normal_n", "price_n")}}
    text = (f"Sample size for the DP-UMP test (Tulap release)\n"
            f"p0 = {_fmt(args.p0)}, theta1 = {_fmt(args.theta1)}, alpha = {_fmt(args.alpha)}, "
            f"power = {_fmt(args.power)}, alternative = {args.alternative}, "
            f"epsilon = {_fmt(args.epsilon)}, delta = {_fmt(args.delta)}"
            + (f", sensitivity = {args.sensitivity}" if args.sensitivity != 1 else "")
            + f"\n\nn = {int(n)} (exact power {_fmt(n.exact_power, 4)})\n\n{n.price_of_privacy()}")
    _emit(args.format, text, [record])
    return EXIT_OK


def _validation_dir():
    """The ``validation/`` folder of the source checkout the package is installed from."""
    return Path(__file__).resolve().parents[2] / "validation"


def _studies(folder):
    return sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_") and p.stem != "harness")


def _summary(path):
    """The first line of a study's module docstring, read without importing the study."""
    import ast

    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return ""
    return doc.strip().splitlines()[0] if doc else ""


def _cmd_validate(args):
    folder = _validation_dir()
    if not (folder / "harness.py").is_file():
        raise _UsageError(
            f"no validation studies at {folder}: 'dpinfer validate' needs a source checkout "
            "installed with 'pip install -e .'."
        )
    studies = _studies(folder)
    if args.list:
        width = max(map(len, studies), default=0)
        print("\n".join(f"{name:<{width}}  {_summary(folder / f'{name}.py')}".rstrip() for name in studies)
              if studies else "(no studies found)")
        return EXIT_OK
    if args.study is None:
        raise _UsageError(f"name a study to run; available: {', '.join(studies) or 'none'}.")
    if args.study not in studies and f"{args.study}_study" in studies:
        args.study = f"{args.study}_study"  # the README's study NAME (robust -> robust_study.py)
    if args.study not in studies:
        raise _UsageError(f"unknown study {args.study!r}; available: {', '.join(studies) or 'none'}.")
    root = str(folder.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    module = importlib.import_module(f"validation.{args.study}")
    code = module.main(args.study_args)
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return int(code)
    # A study's main returns an exit status, as a script's would (None means 0);
    # anything else is a bug of the study, not a problem with the user's input.
    print(f"dpinfer validate: internal error: study {args.study!r} returned a "
          f"{type(code).__name__} from main(), not an exit status (None or an int); "
          "its results may have been written.", file=sys.stderr)
    return EXIT_INTERNAL


#: the demo's text width (no line over 100 characters, issue 27)
_DEMO_WIDTH = 96


def _cmd_demo(args):
    import numpy as np

    from .. import LaplaceReleaser, PrivacyBudget, TulapReleaser, load_example_trial
    from ..inference.jimi import binom_jimi_test
    from ..inference.normal import binom_normal_test
    from ..inference.ump import binom_ump_test

    trial = load_example_trial()
    if args.data:  # the synthetic per-patient file, as shipped: what the guide's shell examples release
        with open(trial.path, encoding="utf-8") as handle:
            sys.stdout.write(handle.read())
        return EXIT_OK
    tulap_seed, laplace_seed = np.random.SeedSequence(args.seed).spawn(2)
    budget = PrivacyBudget(2 * args.epsilon, args.delta, description="embedded example trial (synthetic)")
    tulap = TulapReleaser(args.epsilon, args.delta).release(trial.responders, trial.n, rng=tulap_seed,
                                                             budget=budget)
    laplace = LaplaceReleaser(args.epsilon).proportion(trial.responders, trial.n, rng=laplace_seed,
                                                       budget=budget)
    level = args.confidence_level
    # The trial's question is one-sided (does the response rate beat the historical
    # 20%?), so every test is H0: theta <= p0 against theta > p0.
    alt = "greater"
    results = [
        binom_ump_test(tulap, trial.p0, alternative=alt, confidence_level=level),
        binom_normal_test(laplace, trial.p0, alternative=alt, confidence_level=level),
        binom_jimi_test(laplace, trial.p0, alternative=alt, confidence_level=level),
    ]
    labels = [("DP-UMP", "Tulap", f"z = {_fmt(tulap.value, 4)}"),
              ("Normal approximation", "Laplace", f"pi_hat = {_fmt(laplace.value, 4)}"),
              ("DP-JIMI (exact limit)", "Laplace", f"pi_hat = {_fmt(laplace.value, 4)}")]
    # one scale for the table: each release as a proportion of n
    released_rates = [float(tulap.value) / trial.n, float(laplace.value), float(laplace.value)]
    if args.format != "text":
        records = [{"label": lab, **r.to_dict()} for (lab, _, _), r in zip(labels, results)]
        _emit(args.format, "", records, as_list=True)
        return EXIT_OK
    pct = _fmt(100 * level)
    eps = _fmt(args.epsilon)
    p0 = _fmt(trial.p0)

    def para(text):
        return textwrap.wrap(text, width=_DEMO_WIDTH)

    out = [
        "dpinfer demo: one private analysis of a small trial, then what other methods would say.",
        "",
        *para(trial.description),
        *para(f"Confidential data: {trial.responders} responders out of n = {trial.n}. Question: does "
              f"the response rate exceed the historical {p0}? H0: rate <= {p0} against "
              f"H1: rate > {p0} (one-sided)."),
        *para(f"Noise seeded with {args.seed} because the data are synthetic; never seed a real "
              "release."),
        "",
        f"== 1. Release the count once, privately (Tulap noise, epsilon = {eps}) ==",
        *para("Only this noisy count leaves the hospital. Epsilon bounds how much it can reveal "
              "about any one patient (smaller is more private); its noise is exact integer "
              "arithmetic on a fixed grid, so the value's bits say nothing more."),
        str(tulap),
        "",
        "== 2. The recommended analysis: the DP-UMP test of that release ==",
        *para("DP-UMP (Awan & Slavkovic 2018) is the most powerful epsilon-DP test for a count: its "
              "p-value and interval are exact for the noise actually added, at every n."),
        str(results[0]).rstrip("\n"),
        "",
        f"== 3. For comparison only: other methods, on a second release (Laplace noise, epsilon = "
        f"{eps}) ==",
        *para("The normal approximation (Vu & Slavkovic 2009) and DP-JIMI (fiducial matching, "
              "Romanus et al. 2025; 'exact limit' = infinitely many simulation draws, computed "
              "exactly) analyse a Laplace-noised proportion. They need that second release, "
              "with fresh noise: their numbers differ from step 2 by the luck of the noise as "
              "well as by method. Both are approximate; DP-UMP is exact, so report step 2."),
        str(laplace),
        "",
        f"== Side by side: one-sided tests of H0: rate <= {p0}, {pct}% lower bounds ==",
    ]
    rows = [(lab, noise, _fmt(value, 4), _fmt(r.pvalue, 4),
             f"[{r.conf_int.low:.4f}, {r.conf_int.high:.4f}]")
            for (lab, noise, _), value, r in zip(labels, released_rates, results)]
    header = ("method", "noise", "release / n", "p-value", f"{pct}% CI (one-sided)")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    out += ["",
            *para(f"Each release spends epsilon = {eps}; the two together spend "
                  f"{_fmt(2 * args.epsilon)} (basic composition). A real analysis makes one "
                  "release and reports one method (terms: the glossary of the user guide, docs/glossary.rst)."),
            budget.summary()]
    print("\n".join(out))
    return EXIT_OK
