"""Two arms on the command: ``test``, ``ci``, ``power`` and ``sample-size`` of a two-arm trial.

``dpinfer test --release arm1.json --release arm2.json`` (or ``--z1 Z1 --n1 N1 --z2 Z2
--n2 N2 --epsilon E``) answers as :func:`~dpinfer.prop_test` does for two releases: the
exact test (:func:`~dpinfer.binom2_ump_test`) for two Tulap counts or two Laplace counts or
proportions (``--method jimi`` or ``normal`` for the approximate tests of Laplace releases).
Typed numbers are Tulap counts, or Laplace counts with ``--mechanism laplace`` (Laplace
proportions with ``--method jimi`` or ``normal``).  ``ci`` gives the interval of the risk
difference (or ratio), ``power`` and ``sample-size`` plan the exact test
(:func:`~dpinfer.binom2_ump_power`, :func:`~dpinfer.binom2_ump_sample_size`).
The parser's options are added by :func:`add_arm_options` and :func:`add_planning_options`.
"""

from __future__ import annotations

import argparse
import dataclasses

from ._input import EXIT_OK, _UsageError, _releases_from_file

__all__ = []  # package-internal

_TYPED = ("--z1", "--n1", "--z2", "--n2")


# --------------------------------------------------------------------------- parser pieces
def add_arm_options(parser, real, whole, renamed):
    """The two-arm input of ``test`` and ``ci`` and the hypothesis of two arms."""
    g = parser.add_argument_group("two arms (--release FILE twice, or --z1 --n1 --z2 --n2 with --epsilon)")
    g.add_argument("--z1", type=real, metavar="Z1", help="arm 1's released value (a noisy count for ump, "
                   "a noisy proportion for normal, jimi)")
    g.add_argument("--n1", type=whole, help="arm 1's number of records")
    g.add_argument("--z2", type=real, metavar="Z2", help="arm 2's released value")
    for old, new in (("--x1", "--z1"), ("--x2", "--z2")):
        g.add_argument(old, nargs="*", action=renamed, new=new, help=argparse.SUPPRESS)
    g.add_argument("--n2", type=whole, help="arm 2's number of records")
    g.add_argument("--epsilon2", type=real, help="arm 2's epsilon when it differs from --epsilon")
    _add_mechanism(g)
    _add_hypothesis(g)
    g.add_argument("--composition", choices=("parallel", "sequential"),
                   help="how the result records both releases' privacy (default: read the releases: parallel, "
                        "the larger epsilon, only when they record different groups of one ledger's parallel "
                        "set; else sequential, the sum); parallel states disjoint arms for typed values")


def add_planning_options(parser, real, whole, *, power):
    """The two-arm design of ``power`` (thetas and sizes) or ``sample-size`` (arm 2's theta, ratio)."""
    g = parser.add_argument_group("two arms (give --theta2)")
    if power:
        g.add_argument("--theta1", type=real, nargs="+", help="arm 1's true proportion(s)")
        g.add_argument("--n1", type=whole, help="arm 1's number of records")
        g.add_argument("--n2", type=whole, help="arm 2's number of records")
    else:
        g.add_argument("--ratio", type=real, default=1.0, help="n2 / n1 (default 1)")
    g.add_argument("--theta2", type=real, help="arm 2's true proportion (makes the question two-arm)")
    _add_mechanism(g)
    _add_hypothesis(g)


def _add_mechanism(group):
    group.add_argument("--mechanism", choices=("tulap", "laplace"),
                       help="the noise of both arms for typed values and planning: tulap (default; "
                            "TulapReleaser counts) or laplace (LaplaceReleaser counts, exact test)")


def _add_hypothesis(group):
    group.add_argument("--effect", choices=("difference", "ratio", "odds-ratio"),
                       help="the effect tested: difference theta1 - theta2 (default), ratio theta1 / theta2 or "
                       "odds-ratio theta1 (1 - theta2) / (theta2 (1 - theta1)) (Tulap arms, score ordering)")
    group.add_argument("--margin", type=float, help="null difference (default 0), ratio or odds ratio (default 1); with "
                       "--alternative greater a non-inferiority margin such as -0.1")
    group.add_argument("--statistic", choices=("difference", "score"),
                       help="the exact test's ordering: the score statistic (the default, the more "
                       "powerful; the only one for --effect odds-ratio) or the difference of the released "
                       "proportions (used by default for Laplace arms and beyond 4e6 lattice cells)")


# --------------------------------------------------------------------------- input
def two_arms(args):
    """``(arm 1, arm 2, (n1, n2) or None)`` when ``test``/``ci`` got two arms, else None.

    ``--release`` may be given twice; a single one is left as the one path it was.
    """
    files = args.release if isinstance(args.release, list) else ([args.release] if args.release else [])
    typed = [flag for flag, v in zip(_TYPED, (args.z1, args.n1, args.z2, args.n2)) if v is not None]
    extras = [flag for flag, v in (("--epsilon2", args.epsilon2), ("--mechanism", args.mechanism),
                                   ("--effect", args.effect),
                                   ("--margin", args.margin), ("--composition", args.composition),
                                   ("--statistic", args.statistic))
              if v is not None]
    if len(files) > 2:
        raise _UsageError(f"--release is given {len(files)} times; give it once (one arm or a file of "
                          "releases) or twice (two arms).")
    if len(files) <= 1 and not typed:
        args.release = files[0] if files else None
        if extras:
            raise _UsageError(f"{', '.join(extras)} apply to two arms (--release twice, or --z1 --n1 --z2 --n2).")
        return None
    if len(files) == 2:
        if typed or any(v is not None for v in (args.value, args.n, args.epsilon, args.epsilon2, args.delta,
                                                 args.sensitivity, args.mechanism)):
            raise _UsageError("--z1/--n1/--z2/--n2, --z, --n, --epsilon, --epsilon2, --delta, "
                              "--sensitivity and --mechanism must not be given with two release files: each "
                              "file records its value, n, epsilon, delta, sensitivity and mechanism.")
        arms = []
        for path in files:
            loaded = _releases_from_file(path)
            if len(loaded) != 1 or loaded[0].kind == "table":
                raise _UsageError(f"release file {path!r} must hold one released count or proportion "
                                  "for a two-arm test.")
            arms.append(loaded[0])
        return arms[0], arms[1], None
    missing = [flag for flag, v in zip(_TYPED, (args.z1, args.n1, args.z2, args.n2)) if v is None]
    if files or args.value is not None or args.n is not None:
        raise _UsageError("give two arms either as --release FILE twice or as --z1 --n1 --z2 --n2 with "
                          "--epsilon, not with --release once, --z or --n.")
    if missing or args.epsilon is None:
        raise _UsageError(f"two typed arms need --z1, --n1, --z2, --n2 and --epsilon (missing "
                          f"{', '.join(missing + ([] if args.epsilon is not None else ['--epsilon']))}).")
    return args.z1, args.z2, (args.n1, args.n2)


def _epsilon(args):
    if args.epsilon is None:
        return None
    return args.epsilon if args.epsilon2 is None else [args.epsilon, args.epsilon2]


def _common_checks(args):
    if getattr(args, "p0", 0.5) != 0.5:
        raise _UsageError("--p0 is the null proportion of one arm; the null of two arms is --margin "
                          "(a difference, default 0, or a ratio, default 1).")
    if args.two_sided_method is not None:
        raise _UsageError("--two-sided-method applies to one Tulap release; the two-arm exact test's "
                          "two-sided p-value is twice the smaller one-sided one.")
    if args.sensitivity is not None:
        raise _UsageError("--sensitivity applies to one typed Tulap value; two typed arms have sensitivity 1 "
                          "(a release file records its own).")


def _untyped(results, ns):
    """Typed numbers are not a Release: no sampling path or unit is claimed (as for one arm)."""
    if ns is None:
        return results
    return [dataclasses.replace(r, secure=None, privacy_unit="", neighbours=None) for r in results]


# --------------------------------------------------------------------------- commands
def _pair_result(args, arms):
    """:func:`~dpinfer.prop_test` on the pair with the command's options (test and ci: one answer)."""
    from ..inference.prop import prop_test

    _common_checks(args)
    first, second, ns = arms
    if ns is not None and args.mechanism == "laplace":
        return _untyped([_laplace_numbers(args, first, second, ns)], ns)[0]
    result = prop_test([first, second], None if ns is None else list(ns), method=args.method,
                       alternative=args.alternative, confidence_level=args.confidence_level,
                       n_sim=args.n_sim, rng=args.seed, workers=args.workers, epsilon=_epsilon(args),
                       delta=args.delta,
                       effect=args.effect, margin=args.margin, composition=args.composition,
                       statistic=args.statistic)
    return _untyped([result], ns)[0]


def _laplace_numbers(args, z1, z2, ns):
    """Typed Laplace counts: the exact test (:func:`~dpinfer.binom2_ump_test` with mechanism='laplace')."""
    from ..inference.two_arm import binom2_ump_test

    if args.method not in (None, "ump"):
        raise _UsageError(f"--mechanism laplace with typed values is the exact test of Laplace counts (--method "
                          f"ump); --method {args.method} takes typed Laplace proportions: leave --mechanism out.")
    if args.n_sim is not None or args.seed is not None or args.workers is not None:
        raise _UsageError("--n-sim, --seed and --workers apply to --method jimi only; the exact test draws nothing.")
    extra = {key: v for key, v in (("effect", args.effect), ("composition", args.composition)) if v is not None}
    return binom2_ump_test(z1, ns[0], z2, ns[1], epsilon=_epsilon(args), delta=args.delta, margin=args.margin,
                           alternative=args.alternative, confidence_level=args.confidence_level,
                           mechanism="laplace", **extra)


def cmd_test_two(args, arms, emit):
    """``dpinfer test`` with two arms: :func:`~dpinfer.prop_test` on the pair."""
    result = _pair_result(args, arms)
    record = result.to_htest() if args.format == "htest-json" else result.to_dict()
    emit(args.format, str(result).strip("\n"), [record])
    return EXIT_OK


def cmd_ci_two(args, arms, emit):
    """``dpinfer ci`` with two arms: the interval of the risk difference (or ratio) the test prints."""
    result = _pair_result(args, arms)
    ci = result.conf_int
    name = f"Confidence interval for the {result.estimate_name} ({result.method})"
    record = {**ci.to_dict(), "method": name, "alternative": args.alternative, "epsilon": result.epsilon,
              "delta": result.delta, "mechanism": result.mechanism, "secure": result.secure,
              "data_name": result.data_name}
    text = (f"{name}, {args.alternative}\ndata:  {result.data_name}\n{ci}\n"
            f"privacy: epsilon = {result.epsilon:g}, delta = {result.delta:g}"
            + (f"\nnote: {result.note}" if result.note else ""))
    emit(args.format, text, [record])
    return EXIT_OK


def _planning_checks(args):
    if args.method not in (None, "ump"):
        raise _UsageError(f"--method {args.method} has no two-arm planning; the two-arm power and sample "
                          "size are those of the exact test (--method ump).")


def _statistic(args):
    """``{'statistic': ...}`` when ``--statistic`` is given (else the functions' default applies)."""
    return {} if args.statistic is None else {"statistic": args.statistic}


def _hypothesis_text(args):
    effect = args.effect or "difference"
    margin = args.margin if args.margin is not None else (0.0 if effect == "difference" else 1.0)
    if effect == "odds-ratio":
        return effect, margin, f"H0: theta1 (1 - theta2) / (theta2 (1 - theta1)) = {margin:g}"
    return effect, margin, f"H0: theta1 {'-' if effect == 'difference' else '/'} theta2 = {margin:g}"


def cmd_power_two(args, emit, fmt):
    """``dpinfer power --theta1 ... --theta2 ... --n1 --n2``: exact power of the two-arm test."""
    import numpy as np

    from ..inference._price import NONPRIVATE_EPSILON, normal_power
    from ..inference.two_arm import binom2_ump_power

    _planning_checks(args)
    given = [flag for flag, v in (("--theta", args.theta), ("--n", args.n), ("--p0", args.p0)) if v is not None]
    if given:
        raise _UsageError(f"{', '.join(given)} describe one arm; two arms take --theta1, --theta2, --n1, "
                          "--n2 (and --margin for the null).")
    missing = [flag for flag, v in (("--theta1", args.theta1), ("--n1", args.n1), ("--n2", args.n2))
               if v is None]
    if missing:
        raise _UsageError(f"two-arm power needs --theta1, --theta2, --n1 and --n2 (missing {', '.join(missing)}).")
    effect, margin, null = _hypothesis_text(args)
    mechanism = args.mechanism or "tulap"
    theta1 = np.asarray(args.theta1, dtype=float)
    common = dict(effect=effect, margin=margin, alpha=args.alpha, alternative=args.alternative, mechanism=mechanism,
                  **_statistic(args))
    power = np.atleast_1d(binom2_ump_power(theta1, args.theta2, args.n1, args.n2, epsilon=args.epsilon,
                                           delta=args.delta, sensitivity=args.sensitivity, **common))
    # the non-private comparators: the same test at epsilon = Inf, and power.prop.test's (null of equality)
    plain = np.atleast_1d(binom2_ump_power(theta1, args.theta2, args.n1, args.n2, epsilon=NONPRIVATE_EPSILON,
                                           **{**common, "mechanism": "tulap"}))
    equality = margin == (0.0 if effect == "difference" else 1.0)
    records = [{"theta1": float(t), "theta2": args.theta2, "power": float(p), "n1": args.n1, "n2": args.n2,
                "effect": effect, "margin": margin, "alpha": args.alpha, "alternative": args.alternative,
                "epsilon": args.epsilon, "delta": args.delta, "sensitivity": args.sensitivity,
                "method": "ump", "mechanism": mechanism, **_statistic(args), "nonprivate_power": float(q),
                "normal_power": (normal_power(float(t), args.theta2, args.n1, args.n2, args.alpha, args.alternative)
                                 if equality else None), "price_power": float(q) - float(p)}
               for t, p, q in zip(theta1, power, plain)]
    lines = [f"Exact power of the exact two-arm test ({mechanism.capitalize()} releases)",
             f"{null}, n1 = {args.n1}, n2 = {args.n2}, alpha = {fmt(args.alpha)}, "
             f"alternative = {args.alternative}, epsilon = {fmt(args.epsilon)}, delta = {fmt(args.delta)}",
             "", f"{'theta1':>10} {'theta2':>10} {'power':>10} {'no noise':>10} {'normal':>10} {'price':>10}"]
    lines += [f"{fmt(r['theta1']):>10} {fmt(r['theta2']):>10} {fmt(r['power'], 4):>10} "
              f"{fmt(r['nonprivate_power'], 4):>10} "
              f"{'-' if r['normal_power'] is None else fmt(r['normal_power'], 4):>10} {fmt(r['price_power'], 4):>10}"
              for r in records]
    lines += ["", "no noise: the same exact test without the privacy noise (epsilon = Inf: a randomized exact test);",
              "normal: power.prop.test's normal approximation without noise; price: no noise minus power."]
    emit(args.format, "\n".join(lines), records, as_list=True)
    return EXIT_OK


def cmd_sample_size_two(args, emit, fmt):
    """``dpinfer sample-size --theta1 T1 --theta2 T2``: smallest n per arm of the exact two-arm test."""
    from ..inference.two_arm import binom2_ump_sample_size

    _planning_checks(args)
    if args.p0 is not None:
        raise _UsageError("--p0 describes one arm; the null of two arms is --margin.")
    effect, margin, null = _hypothesis_text(args)
    mechanism = args.mechanism or "tulap"
    result = binom2_ump_sample_size(args.theta1, args.theta2, power=args.power, ratio=args.ratio,
                                    epsilon=args.epsilon, delta=args.delta, sensitivity=args.sensitivity,
                                    effect=effect, margin=margin, alpha=args.alpha,
                                    alternative=args.alternative, mechanism=mechanism, **_statistic(args))
    n1, n2 = result
    found = result.to_dict()
    record = {"n1": int(n1), "n2": int(n2), "theta1": args.theta1, "theta2": args.theta2, "effect": effect,
              "margin": margin, "ratio": args.ratio, "alpha": args.alpha, "power": args.power,
              "alternative": args.alternative, "epsilon": args.epsilon, "delta": args.delta,
              "sensitivity": args.sensitivity, "method": "ump", "mechanism": mechanism, **_statistic(args),
              **{k: found[k] for k in ("exact_power", "nonprivate_n1", "nonprivate_n2", "normal_n1", "normal_n2",
                                       "price_n1", "price_n2", "price_total")}}
    text = (f"Sample size per arm for the exact two-arm test ({mechanism.capitalize()} releases)\n"
            f"{null}, theta1 = {fmt(args.theta1)}, theta2 = {fmt(args.theta2)}, ratio n2/n1 = "
            f"{fmt(args.ratio)}, alpha = {fmt(args.alpha)}, power = {fmt(args.power)}, "
            f"alternative = {args.alternative}, epsilon = {fmt(args.epsilon)}, delta = {fmt(args.delta)}"
            f"\n\nn1 = {int(n1)}, n2 = {int(n2)} (exact power {fmt(result.exact_power, 4)}, "
            f"{found['statistic']} ordering)\n\n{result.price_of_privacy()}")
    emit(args.format, text, [record])
    return EXIT_OK
