"""The ``dpinfer`` command: release, test, interval, power, sample size, validation, demo.

Every subcommand prints R-style text by default and JSON or CSV with
``--format json|csv`` for pipelines.  Exit status: 0 on success, 2 on a usage
error or bad input (one line on stderr saying what to fix), 1 on an internal error.
"""

from __future__ import annotations

import os
import re
import sys
import warnings

from ._input import EXIT_INTERNAL, EXIT_USAGE, _UsageError
from ._parsers import build_parser

__all__ = ["main"]


def main(argv=None):
    """Run the ``dpinfer`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if getattr(args, "func", None) is None:
        print("dpinfer: error: give a command, e.g. 'dpinfer demo' (see 'dpinfer --help')", file=sys.stderr)
        return EXIT_USAGE
    prog = f"dpinfer {args.command}"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code = args.func(args)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
    except (_UsageError, TypeError, ValueError) as exc:
        print(f"{prog}: error: {_cli_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader stopped early (`dpinfer power ... | head`): stop quietly, as Unix
        # tools do, with Python's own status for a closed pipe (1), and no traceback at exit.
        _drop_stdout()
        return EXIT_INTERNAL
    for w in caught:
        print(f"{prog}: warning: {_cli_message(w.message)}", file=sys.stderr)
    return code


def _drop_stdout():
    """Point stdout at the null device, so that the interpreter's last flush of a closed
    pipe raises nothing."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout replaced by an object without a file
        pass


def _cli_message(exc):
    """The exception's message on one line, with Python argument names as options."""
    text = " ".join(str(exc).split())
    for name, option in (("`confidence_level`", "--confidence-level"), ("`n_sim`", "--n-sim"),
                         ("`epsilon`", "--epsilon"), ("`delta`", "--delta"), ("`p0`", "--p0"),
                         ("`alpha`", "--alpha"), ("`theta1`", "--theta1"), ("`theta`", "--theta"),
                         ("`power`", "--power"), ("`n`", "--n"), ("`x`", "--x"), ("`value`", "--value")):
        text = text.replace(name, option)
    for pattern, replacement in _CLI_NAMES:
        text = re.sub(pattern, replacement, text)
    return re.sub(r"method='(\w+)'", r"--method \1", text)


#: Python names in library messages -> what a command user types instead
_CLI_NAMES = (
    (r"binom_normal_power\([^)]*\)", "'dpinfer power --method normal' with --theta equal to --p0"),
    (r"binom_ump_power\([^)]*\)", "'dpinfer power' with --theta equal to --p0"),
    (r"\bbinom_(ump|normal|jimi)_(test|ci)\b(\s*/\s*binom_\w+)?", r"--method \1"),
    (r"alternative ?= ?'([\w-]+)'", r"--alternative \1"),
)

