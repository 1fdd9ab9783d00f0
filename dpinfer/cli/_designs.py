"""``dpinfer design sequential``: plan an exact private two-arm group-sequential design.

Prints the design like a ``gsDesign``/``rpact`` summary (text), its ``to_dict()`` (JSON), or
one row per look (CSV), from :func:`~dpinfer.sequential_design`.
"""

from __future__ import annotations

from ._commands import EXIT_OK, _emit

__all__ = []  # package-internal


def cmd_design_sequential(args):
    from ..inference.designs import sequential_design

    design = sequential_design(args.theta1, args.theta2, looks=args.looks, alpha=args.alpha, power=args.power,
                               epsilon=None if args.nonprivate else args.epsilon, delta=args.delta,
                               spending=args.spending, futility=args.futility, ratio=args.ratio,
                               information=args.information)
    rows = [{"look": k + 1, "n1": design.n1[k], "n2": design.n2[k],
             "efficacy_difference": design.efficacy_difference[k], "spent_alpha": design.spent[k],
             "cumulative_alpha": design.cumulative_alpha[k],
             "futility_difference": design.futility_difference[k]} for k in range(design.looks)]
    if args.format == "csv":
        _emit("csv", "", rows)
    else:
        _emit(args.format, str(design), [design.to_dict()])
    return EXIT_OK


def add_design_parsers(sub, subcommand, real, whole, add_format):
    """The parser of ``design`` and its ``sequential`` subcommand (called from the parser builders)."""
    design = subcommand(sub, "design", "plan a trial with interim looks (exact, private)",
                        "Plan a design with interim looks whose operating characteristics are exact for\n"
                        "the staged Tulap releases: 'dpinfer design sequential' for two arms.")
    kinds = design.add_subparsers(dest="design", metavar="DESIGN", title="designs")
    seq = kinds.add_parser(
        "sequential", help="two-arm group-sequential design with alpha spending (rpact/gsDesign)",
        description="A two-arm group-sequential design: efficacy boundaries on the released difference\n"
                    "of cumulative proportions whose exact cumulative type-I error at the worst common\n"
                    "rate is at most the Lan-DeMets spending function's value; the maximum size that\n"
                    "reaches the power exactly; the non-private design beside it.  Like R's\n"
                    "rpact::getDesignGroupSequential(typeOfDesign = 'asOF') + getSampleSizeRates().",
        formatter_class=design.formatter_class)
    add_format(seq)
    seq.add_argument("--theta1", type=real, required=True, help="arm 1's (experimental) planned proportion")
    seq.add_argument("--theta2", type=real, required=True, help="arm 2's (control) planned proportion")
    seq.add_argument("--looks", type=whole, default=3, help="number of looks, 2 to 6 (default 3)")
    seq.add_argument("--alpha", type=real, default=0.025, help="one-sided significance level (default 0.025)")
    seq.add_argument("--power", type=real, default=0.8, help="target power (default 0.8)")
    privacy = seq.add_mutually_exclusive_group(required=True)
    privacy.add_argument("--epsilon", type=real, help="privacy of every stage's release (the whole design's)")
    privacy.add_argument("--nonprivate", action="store_true", help="plan the design without noise")
    seq.add_argument("--delta", type=real, default=0.0, help="delta of every release (default 0)")
    seq.add_argument("--spending", choices=("obrien-fleming", "pocock"), default="obrien-fleming",
                     help="Lan-DeMets alpha spending (default obrien-fleming)")
    seq.add_argument("--futility", choices=("non-binding",), default=None,
                     help="non-binding futility boundaries by beta spending (default none)")
    seq.add_argument("--ratio", type=real, default=1.0, help="allocation n2 / n1 (default 1)")
    seq.add_argument("--information", type=real, nargs="+", metavar="T",
                     help="planned information fractions, increasing, the last 1 (default equally spaced)")
    seq.set_defaults(func=cmd_design_sequential)
    design.set_defaults(func=_need_design)


def _need_design(args):
    from ._input import _UsageError

    raise _UsageError("give a design, e.g. 'dpinfer design sequential --theta1 0.5 --theta2 0.3 --epsilon 1' "
                      "(see 'dpinfer design --help').")
