"""``dpinfer paired-release`` and ``dpinfer mcnemar``: a paired 2 x 2 table and its private McNemar test.

``paired-release`` releases the four counts of a paired table typed on the command line
with :class:`~dpinfer.PairedTableReleaser`; ``mcnemar`` reads such a release (or the
released pair typed in) and runs :func:`~dpinfer.mcnemar_test`, like R's ``mcnemar.test``.
"""

from __future__ import annotations

import argparse

from ._commands import EXIT_OK, _emit, _seeded_warning
from ._input import _Renamed, _UsageError, _releases_from_file

__all__ = []  # package-internal


def cmd_paired_release(args):
    from .. import PairedTableReleaser

    n00, n01, n10, n11 = args.table
    secure = args.seed is None
    release = PairedTableReleaser(args.epsilon).release([[n00, n01], [n10, n11]],
                                                        rng=None if secure else args.seed, secure=secure)
    if not secure:
        _seeded_warning(args.seed)
    _emit(args.format, str(release), [release.to_dict()])
    return EXIT_OK


def cmd_mcnemar(args):
    from ..inference.pairs import mcnemar_test

    if (args.release is None) == (args.value is None):
        raise _UsageError("give the paired release as --release FILE, or the released pair as --z ZD ZS "
                          "with --n and --epsilon.")
    if args.release is not None:
        found = _releases_from_file(args.release)
        if len(found) != 1 or found[0].kind != "paired":
            raise _UsageError(f"release file {args.release!r} must hold one paired release (written by "
                              "'dpinfer paired-release --format json').")
        if args.n is not None or args.epsilon is not None:
            raise _UsageError("--n and --epsilon come from the release file; leave them out.")
        result = mcnemar_test(found[0], margin=args.margin, alternative=args.alternative,
                              confidence_level=args.confidence_level)
    else:
        if args.n is None or args.epsilon is None:
            raise _UsageError("--z ZD ZS needs --n (pairs) and --epsilon.")
        result = mcnemar_test(args.value, args.n, epsilon=args.epsilon, margin=args.margin,
                              alternative=args.alternative, confidence_level=args.confidence_level)
    record = result.to_htest() if args.format == "htest-json" else result.to_dict()
    _emit(args.format, str(result), [record])
    return EXIT_OK


def add_pairs_parsers(sub, subcommand, real, whole, add_format):
    """The parsers of ``paired-release`` and ``mcnemar`` (called from the parser builders)."""
    rel = subcommand(sub, "paired-release", "privatize a paired 2 x 2 table (McNemar's data)",
                     "Release n10 - n01 and n01 + n10 of a paired table with Tulap noise of epsilon / 2\n"
                     "each (epsilon-DP for one pair, replace-one; n public).  Without --seed the noise\n"
                     "comes from the operating system's cryptographic source; --seed is for research only.")
    add_format(rel)
    rel.add_argument("--table", type=whole, nargs=4, metavar=("N00", "N01", "N10", "N11"), required=True,
                     help="the four counts of pairs (first outcome, second outcome): confidential")
    rel.add_argument("--epsilon", type=real, required=True, help="privacy-loss parameter of the release (> 0)")
    rel.add_argument("--seed", type=whole, help="seed of numpy's generator: NOT PRIVATE, research only")
    rel.set_defaults(func=cmd_paired_release)

    test = subcommand(sub, "mcnemar", "exact private McNemar test of paired proportions, like R's mcnemar.test",
                      "Test H0: p10 - p01 = margin from a paired release (dpinfer paired-release), with the\n"
                      "interval for p10 - p01; exact unconditional, prints R's htest layout.")
    add_format(test, extra=("htest-json",))
    test.add_argument("--release", metavar="FILE", help="JSON from 'dpinfer paired-release --format json'")
    test.add_argument("--z", dest="value", type=real, nargs=2, metavar=("ZD", "ZS"),
                      help="the released pair typed in, with all its printed digits (with --n and --epsilon)")
    test.add_argument("--value", nargs="*", action=_Renamed, new="--z", help=argparse.SUPPRESS)
    test.add_argument("--n", type=whole, help="number of pairs (with --z)")
    test.add_argument("--epsilon", type=real, help="the release's epsilon (with --z)")
    test.add_argument("--margin", type=real, default=0.0, help="null difference p10 - p01 (default 0)")
    test.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                      help="alternative hypothesis (default two-sided)")
    test.add_argument("--confidence-level", type=real, default=0.95, help="interval level (default 0.95)")
    test.set_defaults(func=cmd_mcnemar)
