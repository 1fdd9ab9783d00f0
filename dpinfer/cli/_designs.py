"""``dpinfer design simon``: plan a private two-stage (Simon) design.

Prints the design like R's ``clinfun::ph2simon`` (text) or its record (``--format json``:
:meth:`SimonDesign.to_dict`, the non-private design nested under ``reference``).  Other
designs (``design sequential``) are added beside it as sub-subcommands.
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


def add_design_parsers(sub, subcommand, real, whole, add_format):
    """The parser of ``design`` and its kinds (called from the parser builders)."""
    design = subcommand(sub, "design", "plan a trial with interim looks (e.g. Simon's two-stage design)",
                        "Plan a design whose stages release each stage's new patients' count once with\n"
                        "Tulap noise: the whole design costs epsilon once (stages are disjoint patients).\n"
                        "Operating characteristics are exact.  Kinds: simon (one arm, two stages).")
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
