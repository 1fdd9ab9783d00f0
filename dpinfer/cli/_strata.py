"""``dpinfer test`` for several sites or strata: the pooled and the stratified exact tests.

* ``--release`` three or more times (or twice with ``--pooled``): sites sharing one proportion,
  :func:`~dpinfer.binom_pooled_test` against ``--p0``;
* ``--stratum NAME ARM1_FILE ARM2_FILE``, once per stratum: two arms compared within strata,
  :func:`~dpinfer.binom_strata_test` (``--margin`` the common risk difference, ``--gamma`` the
  Berger-Boos allowance).

Every file holds one Tulap count release (from ``dpinfer release``); the files record n, epsilon
and what was charged.  Anything else these shapes do not use is refused, never ignored.
"""

from __future__ import annotations

from ._input import EXIT_OK, _UsageError, _releases_from_file

__all__ = []  # private module

#: options of the one-release and two-arm paths that several sites or strata do not take
_NOT_HERE = (("--z", "value"), ("--n", "n"), ("--epsilon", "epsilon"), ("--delta", "delta"),
             ("--sensitivity", "sensitivity"), ("--z1", "z1"), ("--n1", "n1"), ("--z2", "z2"), ("--n2", "n2"),
             ("--epsilon2", "epsilon2"), ("--mechanism", "mechanism"), ("--effect", "effect"),
             ("--statistic", "statistic"), ("--two-sided-method", "two_sided_method"), ("--n-sim", "n_sim"),
             ("--seed", "seed"), ("--table", "table"))


def add_strata_options(parser, real):
    """``--stratum`` and ``--pooled`` (the ``test`` subcommand)."""
    g = parser.add_argument_group("several sites or strata")
    g.add_argument("--stratum", nargs=3, action="append", metavar=("NAME", "ARM1", "ARM2"),
                   help="one stratum: its name and the release files of its two arms (arm 1 first); give it "
                        "once per stratum for the exact stratified test of a common risk difference (the private "
                        "mantelhaen.test); --margin is the null difference")
    g.add_argument("--pooled", action="store_true",
                   help="pool the sites of --release (two or more) into one proportion tested against --p0; "
                        "three or more --release files are pooled without it")
    g.add_argument("--gamma", type=real,
                   help="stratified test: the Berger-Boos allowance (default 0.001; 0 takes the supremum over the "
                        "whole null)")


def _one_release(path):
    loaded = _releases_from_file(path)
    if len(loaded) != 1 or loaded[0].kind == "table":
        raise _UsageError(f"release file {path!r} must hold one released count for a site or an arm.")
    return loaded[0]


def sites_or_strata(args):
    """``('pooled', releases)``, ``('strata', names, pairs)`` or None (another shape of ``test``)."""
    files = args.release if isinstance(args.release, list) else ([args.release] if args.release else [])
    strata = args.stratum or []
    if not strata and not args.pooled and len(files) < 3:
        if args.gamma is not None:
            raise _UsageError("--gamma applies to the stratified test (--stratum NAME ARM1 ARM2, once per stratum).")
        return None
    given = [flag for flag, key in _NOT_HERE if getattr(args, key, None) is not None]
    if args.method not in (None, "ump"):
        given.append(f"--method {args.method}")
    if given:
        raise _UsageError(f"{', '.join(given)} do not apply to several sites or strata: each release file records "
                          "its value, n and privacy, and the test is exact.")
    if strata:
        if files or args.pooled:
            raise _UsageError("give strata as --stratum NAME ARM1 ARM2 (once per stratum), without --release or "
                              "--pooled.")
        if args.p0 != 0.5:
            raise _UsageError("--p0 is the null proportion of pooled sites; the null of strata is --margin (a common "
                              "risk difference, default 0).")
        names = [name for name, _, _ in strata]
        if len(set(names)) < len(names):
            raise _UsageError(f"--stratum names must differ; got {', '.join(names)}.")
        return "strata", names, [(_one_release(a), _one_release(b)) for _, a, b in strata]
    if args.gamma is not None or args.margin is not None:
        raise _UsageError("--gamma and --margin apply to strata (--stratum); pooled sites are tested against --p0.")
    if len(files) < 2:
        raise _UsageError("--pooled needs --release at least twice (one file per site).")
    return "pooled", [_one_release(path) for path in files]


def cmd_test_many(args, shape, emit):
    """``dpinfer test`` on several sites (pooled) or strata (stratified)."""
    from ..inference.strata import binom_pooled_test, binom_strata_test

    common = dict(alternative=args.alternative, confidence_level=args.confidence_level,
                  composition=args.composition)
    if shape[0] == "pooled":
        result = binom_pooled_test(shape[1], args.p0, **common)
    else:
        extra = {} if args.gamma is None else {"gamma": args.gamma}
        result = binom_strata_test(shape[2], 0.0 if args.margin is None else args.margin, **extra, **common)
        names = ", ".join(f"stratum {i + 1} = {name}" for i, name in enumerate(shape[1]))
        result = result.__class__(**{**{f: getattr(result, f) for f in result.__dataclass_fields__},
                                     "data_name": f"{result.data_name} ({names})"})
    record = result.to_htest() if args.format == "htest-json" else result.to_dict()
    emit(args.format, str(result).strip("\n"), [record])
    return EXIT_OK
