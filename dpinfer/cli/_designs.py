"""``dpinfer design simon`` and ``dpinfer design sequential``: plan a private design with interim looks.

``simon`` prints the design like R's ``clinfun::ph2simon`` (text) or its record
(``--format json``: :meth:`SimonDesign.to_dict`, the non-private design nested under
``reference``).  ``sequential`` prints a two-arm group-sequential design like a
``gsDesign``/``rpact`` summary (text), its :meth:`SequentialDesign.to_dict` (JSON, the
non-private design under ``nonprivate``) or one row per look (CSV), from
:func:`~dpinfer.sequential_design`.
"""

from __future__ import annotations

from ._commands import EXIT_OK, _emit

__all__ = []  # package-internal


def _epsilon(real):
    """``--epsilon``: a number, or ``none`` for the non-private design."""
    def convert(text):
        return None if text.strip().lower() == "none" else real(text)
    convert.__name__ = "epsilon"
    return convert


def cmd_design_simon(args):
    from ..inference.designs import simon_design

    design = simon_design(args.p0, args.p1, alpha=args.alpha, power=args.power, epsilon=args.epsilon,
                          delta=args.delta, design=args.design, max_n=args.max_n)
    _emit(args.format, str(design), [design.to_dict()])
    return EXIT_OK


def cmd_design_sequential(args):
    from ..inference.designs import sequential_design

    design = sequential_design(args.theta1, args.theta2, looks=args.looks, alpha=args.alpha, power=args.power,
                               epsilon=args.epsilon, delta=args.delta, spending=args.spending,
                               futility=args.futility, ratio=args.ratio, information=args.information)
    rows = [{"look": k + 1, "n1": design.n1[k], "n2": design.n2[k],
             "efficacy_difference": design.efficacy_difference[k], "spent_alpha": design.spent[k],
             "cumulative_alpha": design.cumulative_alpha[k],
             "futility_difference": design.futility_difference[k]} for k in range(design.looks)]
    if args.format == "csv":
        _emit("csv", "", rows)
    else:
        _emit(args.format, str(design), [design.to_dict()])
    return EXIT_OK


def _add_sequential(kinds, formatter_class, real, whole, add_format):
    seq = kinds.add_parser(
        "sequential", help="two-arm group-sequential design with alpha spending (rpact/gsDesign)",
        description="A two-arm group-sequential design: efficacy boundaries on the released difference\n"
                    "of cumulative proportions whose exact cumulative type-I error at the worst common\n"
                    "rate is at most the Lan-DeMets spending function's value; the maximum size that\n"
                    "reaches the power exactly; the non-private design beside it.  Like R's\n"
                    "rpact::getDesignGroupSequential(typeOfDesign = 'asOF') + getSampleSizeRates().",
        formatter_class=formatter_class)
    add_format(seq)
    seq.add_argument("--theta1", type=real, required=True, help="arm 1's (experimental) planned proportion")
    seq.add_argument("--theta2", type=real, required=True, help="arm 2's (control) planned proportion")
    seq.add_argument("--looks", type=whole, default=3, help="number of looks, 2 to 6 (default 3)")
    seq.add_argument("--alpha", type=real, default=0.025, help="one-sided significance level (default 0.025)")
    seq.add_argument("--power", type=real, default=0.8, help="target power (default 0.8)")
    seq.add_argument("--epsilon", type=_epsilon(real), required=True,
                     help="privacy of every stage's release (the design's total); 'none' for the non-private design")
    seq.add_argument("--delta", type=real, default=0.0, help="delta of every release (default 0)")
    seq.add_argument("--spending", choices=("obrien-fleming", "pocock"), default="obrien-fleming",
                     help="Lan-DeMets alpha spending (default obrien-fleming)")
    seq.add_argument("--futility", choices=("non-binding",), default=None,
                     help="non-binding futility boundaries by beta spending (default none)")
    seq.add_argument("--ratio", type=real, default=1.0, help="allocation n2 / n1 (default 1)")
    seq.add_argument("--information", type=real, nargs="+", metavar="T",
                     help="planned information fractions, increasing, the last 1 (default equally spaced)")
    seq.set_defaults(func=cmd_design_sequential)


def add_design_parsers(sub, subcommand, real, whole, add_format):
    """The parser of ``design`` and its kinds (called from the parser builders)."""
    design = subcommand(sub, "design", "plan a trial with interim looks (e.g. Simon's two-stage design)",
                        "Plan a design whose stages release each stage's new patients' count once with\n"
                        "Tulap noise: the whole design costs epsilon once (stages are disjoint patients).\n"
                        "Operating characteristics are exact.  Kinds: simon (one arm, two stages),\n"
                        "sequential (two arms, group-sequential with alpha spending).")
    kinds = design.add_subparsers(dest="design_kind", metavar="KIND", title="kinds", required=True)
    simon = kinds.add_parser("simon", help="Simon's optimal or minimax two-stage design (one arm)",
                             description="Search Simon's two-stage design (futility stop after stage 1, test at "
                                         "the end) with exact size <= alpha and power >= the target for private "
                                         "stage releases, like R's clinfun::ph2simon(pu = p0, pa = p1, ep1 = "
                                         "alpha, ep2 = 1 - power); the non-private design is printed beside it.",
                             formatter_class=design.formatter_class)
    add_format(simon)
    simon.add_argument("--p0", type=real, required=True, help="unacceptable response rate (H0: p <= p0)")
    simon.add_argument("--p1", type=real, required=True, help="desirable response rate (power at p1)")
    simon.add_argument("--epsilon", type=_epsilon(real), required=True,
                       help="privacy of each stage's release (the design's total); 'none' for Simon's design")
    simon.add_argument("--delta", type=real, default=0.0, help="delta of each release (default 0)")
    simon.add_argument("--alpha", type=real, default=0.05, help="bound on the exact size (default 0.05)")
    simon.add_argument("--power", type=real, default=0.8, help="power at p1 (default 0.8)")
    simon.add_argument("--design", choices=("optimal", "minimax"), default="optimal",
                       help="optimal: smallest EN(p0) (default); minimax: smallest n")
    simon.add_argument("--max-n", type=whole, default=100, help="largest total size searched (default 100)")
    simon.set_defaults(func=cmd_design_simon)
    _add_sequential(kinds, design.formatter_class, real, whole, add_format)


# --------------------------------------------------------------------------- running a design
def cmd_release(args):
    """``dpinfer release``: a stage of a design with ``--design``, else the release of one count or table."""
    from ._commands import _cmd_release

    if any(value is not None for value in (args.design, args.stage, args.earlier, args.x2, args.n2)):
        return _release_stage(args)
    return _cmd_release(args)


def cmd_test(args):
    """``dpinfer test``: the end of a design with ``--design``, else a proportion's or a table's test."""
    from ._commands import _cmd_test

    if args.design is not None:
        return cmd_test_design(args)
    return _cmd_test(args)


def _release_stage(args):
    """``release --design FILE --stage S``: the design fixes the mechanism and its privacy."""
    from ._commands import _count_input
    from ._input import _UsageError

    if args.design is None:
        raise _UsageError("--stage, --earlier, --x2 and --n2 apply to --design FILE only (a stage of a planned "
                          "design).")
    given = [flag for flag, value in (("--epsilon", args.epsilon), ("--mechanism", args.mechanism),
                                      ("--kind", args.kind), ("--table", args.table),
                                      ("--parallel", getattr(args, "parallel", None)),
                                      ("--group", getattr(args, "group", None))) if value is not None]
    given += [flag for flag, value, default in (("--delta", args.delta, 0.0), ("--sensitivity", args.sensitivity, 1))
              if value != default]
    if given:
        raise _UsageError(f"{', '.join(given)} must not be given with --design: the design fixes the release "
                          "(a Tulap count at its epsilon and delta, charged to its own parallel set, --label).")
    return cmd_release_stage(args, _count_input(args))


_DESIGN_KEYS = ("p0", "p1", "alpha", "target_power", "epsilon", "delta", "design", "max_n")
_SEQUENTIAL_KEYS = ("theta1", "theta2", "looks", "alpha", "power", "epsilon", "delta", "spending", "futility",
                    "ratio", "information")
_NOT_A_DESIGN = ("design file {!r} is not the JSON of 'dpinfer design simon --format json' or 'dpinfer design "
                 "sequential --format json'.")


def design_from_file(path):
    """The :class:`SimonDesign` or :class:`SequentialDesign` a file of ``dpinfer design ... --format json`` describes.

    The search is run again from the file's settings and must give the file's stage sizes
    and boundaries: a file edited by hand (or from another version) is refused, not trusted.
    """
    import json

    from ._input import _MAX_RELEASE_CHARS, _UsageError

    try:
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read(_MAX_RELEASE_CHARS + 1)
        data = json.loads(text)
    except OSError as exc:
        raise _UsageError(f"cannot read design file {path!r}: {exc.strerror}.") from exc
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _UsageError(_NOT_A_DESIGN.format(path)) from exc
    if not isinstance(data, dict):
        raise _UsageError(_NOT_A_DESIGN.format(path))
    if data.get("method") == "Simon two-stage design":
        return _simon_from(path, data)
    if all(key in data for key in _SEQUENTIAL_KEYS + ("n1", "n2", "efficacy")):
        return _sequential_from(path, data)
    raise _UsageError(_NOT_A_DESIGN.format(path))


def _simon_from(path, data):
    from ..inference.designs import simon_design
    from ._input import _UsageError

    if any(key not in data for key in _DESIGN_KEYS + ("n1", "n", "r1", "r")):
        raise _UsageError(_NOT_A_DESIGN.format(path))
    settings = {key: data[key] for key in _DESIGN_KEYS}
    design = simon_design(settings.pop("p0"), settings.pop("p1"), power=settings.pop("target_power"), **settings)
    if (design.n1, design.n, design.r1, design.r) != tuple(data[k] for k in ("n1", "n", "r1", "r")):
        raise _UsageError(f"design file {path!r} records r1/n1 = {data['r1']}/{data['n1']}, r/n = {data['r']}/"
                          f"{data['n']}, but its settings give {design.r1}/{design.n1}, {design.r}/{design.n}.")
    return design


def _sequential_from(path, data):
    from ..inference.designs import sequential_design
    from ._input import _UsageError

    settings = {key: data[key] for key in _SEQUENTIAL_KEYS}
    if settings["spending"] not in ("obrien-fleming", "pocock"):
        raise _UsageError(f"design file {path!r} records spending {settings['spending']!r}; the command runs "
                          "designs with 'obrien-fleming' or 'pocock' spending (a spending function of your own "
                          "runs in Python).")
    design = sequential_design(settings.pop("theta1"), settings.pop("theta2"), **settings)
    recorded = (list(data["n1"]), list(data["n2"]), list(data["efficacy"]))
    if (list(design.n1), list(design.n2), list(design.efficacy)) != recorded:
        raise _UsageError(f"design file {path!r} records sizes n1 = {recorded[0]}, n2 = {recorded[1]} and its "
                          f"boundaries, but its settings give n1 = {list(design.n1)}, n2 = {list(design.n2)} "
                          f"(boundaries {list(design.efficacy)}).")
    return design


def _stages(design):
    """``((size of arm 1, ...), ...)``: the new patients of each stage and arm, for either kind of design."""
    sizes = design.stage_sizes
    return tuple((m,) for m in sizes) if not callable(sizes) else sizes()


def _stage_file(path, arms, what):
    """The release(s) of one stage from a release file: one per arm of the design."""
    from ._input import _UsageError, _releases_from_file

    found = _releases_from_file(path)
    if len(found) != arms:
        raise _UsageError(f"{what} {path!r} must hold one stage's release{'s of both arms' if arms > 1 else ''} "
                          f"({arms}); it holds {len(found)}.")
    return found[0] if arms == 1 else tuple(found)


def _arm_counts(args, arms, first):
    """``[(x, n), ...]`` of the stage: ``--x/--n`` (or ``--csv``) for arm 1, ``--x2/--n2`` for arm 2."""
    from ._input import _UsageError

    if arms == 1:
        if args.x2 is not None or args.n2 is not None:
            raise _UsageError("--x2/--n2 are arm 2's count of a two-arm design; this design has one arm.")
        return [first]
    if args.x2 is None or args.n2 is None:
        raise _UsageError("a two-arm design's stage needs both arms' counts: --x X1 --n N1 (arm 1) and "
                          "--x2 X2 --n2 N2 (arm 2).")
    return [first, (args.x2, args.n2)]


def cmd_release_stage(args, first):
    """``dpinfer release --design FILE --stage S``: release one stage's new counts (every arm) of a design."""
    import sys

    from ..inference.designs import SimonDesign
    from ._commands import _budget_session, _print_budget_status, _seeded_warning
    from ._input import _UsageError

    design = design_from_file(args.design)
    if design.epsilon is None:
        raise _UsageError(f"design file {args.design!r} is the non-private design (epsilon none): nothing to release.")
    sizes = _stages(design)
    if args.stage is None or not 1 <= args.stage <= len(sizes):
        raise _UsageError(f"--design needs --stage 1 to {len(sizes)} (the design has {len(sizes)} stages).")
    arms = len(sizes[0])
    counts = _arm_counts(args, arms, first)
    for a, ((x, n), m) in enumerate(zip(counts, sizes[args.stage - 1])):
        if n != m:
            where = f" of arm {a + 1}" if arms > 1 else ""
            raise _UsageError(f"stage {args.stage} of the design has {m} new patients{where}, but the input has "
                              f"n{'2' if a else ''} = {n} (n is public: give the stage's own patients).")
    earlier = [_stage_file(path, arms, "release file") for path in args.earlier or []]
    if len(earlier) != args.stage - 1:
        raise _UsageError(f"--stage {args.stage} needs the release file(s) of the {args.stage - 1} earlier stage(s) "
                          f"as --earlier FILE; got {len(earlier)}.")
    secure = args.seed is None
    label = args.label or ("Simon two-stage design" if isinstance(design, SimonDesign) else "group-sequential design")
    with _budget_session(args) as ledger:
        run = design.staged_release(budget=ledger, label=label, released=earlier)
        x = counts[0][0] if arms == 1 else [c[0] for c in counts]
        run.release(args.stage, x, rng=None if secure else args.seed, secure=secure)
    if not secure:
        _seeded_warning(args.seed)
    released = run.releases[-1]
    said = f"stage {args.stage} of {len(sizes)} -> {run.decision}"
    text = "\n".join(str(r) for r in released) + f"\n  stage:       {said}"
    _emit(args.format, text, [r.to_dict() for r in released])
    if args.format != "text":
        print(f"dpinfer release: {said}", file=sys.stderr)
    _print_budget_status(args, ledger)
    return EXIT_OK


def cmd_test_design(args):
    """``dpinfer test --design FILE --release S1.json [--release S2.json ...]``: the test at the design's end.

    :func:`simon_test` for a Simon design (one release per stage file), :func:`sequential_test`
    for a two-arm design (each file holds one look's releases of both arms, up to the look
    the trial stopped at).
    """
    from ..inference.designs import SimonDesign, sequential_test, simon_test
    from ._input import _UsageError

    design = design_from_file(args.design)
    files = args.release if isinstance(args.release, list) else ([args.release] if args.release else [])
    looks = len(_stages(design))
    arms = len(_stages(design)[0])
    if not 1 <= len(files) <= looks:
        raise _UsageError(f"--design needs the stage releases: --release FILE once per stage released, up to the "
                          f"stage the trial stopped at (1 to {looks}).")
    releases = [_stage_file(path, arms, "release file") for path in files]
    if isinstance(design, SimonDesign):
        result = simon_test(design, releases, alternative=args.alternative, confidence_level=args.confidence_level,
                            composition=args.composition)
    else:
        if args.alternative not in ("two-sided", design.alternative):  # two-sided: the option's default
            raise _UsageError(f"--alternative {args.alternative} does not fit this design: its test is one-sided "
                              f"in the direction it was planned ({design.alternative}).")
        margin = getattr(args, "margin", None)
        result = sequential_test(design, releases, margin=0.0 if margin is None else margin,
                                 confidence_level=args.confidence_level, composition=args.composition)
    record = result.to_htest() if args.format == "htest-json" else result.to_dict()
    _emit(args.format, str(result), [record])
    return EXIT_OK
