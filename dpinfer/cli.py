"""The ``dpinfer`` command."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _demo(args):
    from . import TulapReleaser, load_example_trial

    trial = load_example_trial()
    print(trial.description)
    print(f"Confidential data: {trial.responders} responders out of n = {trial.n}.")
    print(f"Releasing the count with Tulap noise at epsilon = {args.epsilon:g}, delta = {args.delta:g} "
          f"(seed {args.seed}: a seed is for reproducible demos only).\n")
    release = TulapReleaser(args.epsilon, args.delta).release(trial.responders, trial.n, rng=args.seed)
    print(release)
    return 0


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="dpinfer",
        description="Statistical inference on differentially private releases.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="privatize the embedded example trial and analyse it")
    demo.add_argument("--epsilon", type=float, default=1.0, help="privacy budget (default 1)")
    demo.add_argument("--delta", type=float, default=0.0, help="approximate-DP slack (default 0)")
    demo.add_argument("--seed", type=int, default=2024, help="seed of the demo's noise (default 2024)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv=None):
    """Entry point of the ``dpinfer`` console command; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (TypeError, ValueError) as exc:
        print(f"dpinfer: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
