"""The ``dpinfer`` command: release, test, interval, power, sample size, validation, demo.

Every subcommand prints R-style text by default and JSON or CSV with
``--format json|csv`` for pipelines.  Exit status: 0 on success, 2 on a usage
error or bad input (one line on stderr saying what to fix), 1 on an internal error,
3 when ``budget verify`` finds a published release missing from the ledger.

The package: ``_parsers`` builds the parser, one function per subcommand;
``_commands`` runs the subcommands; ``_input`` reads CSV and release
files within bounds; ``_ledger_file`` keeps the budget file.  Here: ``main``
and the spelling of library messages in the command's terms.
"""

from __future__ import annotations

import os
import sys
import warnings

from .. import _progress
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
            with _progress.quiet(getattr(args, "no_progress", False)):
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
    """The message of an exception or warning on one line, in the command's terms.

    A library message that names its arguments as data (``DPInferValueError``,
    ``DPInferTypeError`` and warnings built the same way: ``parts``) is spelt from
    those names: an argument as its option (``--epsilon``), a setting as the option
    with its value (``--alternative greater``), a method's functions as ``--method
    ump``, a public call as the command that does the same.  Any other message is
    shown as it is.
    """
    spelled = getattr(exc, "spelled", None)
    text = spelled(_spell) if callable(spelled) else str(exc)
    return " ".join(text.split())


#: Python argument names -> the options a command user types instead
_OPTIONS = {name: "--" + name.replace("_", "-") for name in (
    "confidence_level", "n_sim", "epsilon", "delta", "p0", "alpha", "theta1", "theta", "power", "n", "x",
    "value", "two_sided_method")}

#: public functions named in library messages -> what a command user runs instead
_CALLS = {
    "binom_normal_power": "'dpinfer power --method normal' with --theta equal to --p0",
    "binom_ump_power": "'dpinfer power' with --theta equal to --p0",
    # the release step named when a typed value looks like a confidential count
    "TulapReleaser.release": "'dpinfer release --x X --n N --epsilon E --format json > arm.json', and pass "
                             "--release arm.json",
    "LaplaceReleaser.count": "'dpinfer release --mechanism laplace --kind count --x X --n N --epsilon E "
                             "--format json > arm.json', and pass --release arm.json",
    "LaplaceReleaser.proportion": "'dpinfer release --mechanism laplace --x X --n N --epsilon E --format json "
                                  "> arm.json', and pass --release arm.json",
}

#: the two-arm options, spelled as their Python arguments (n1 -> --n1)
_OPTIONS.update({name: f"--{name}" for name in ("n1", "n2", "theta2", "ratio", "margin", "effect")})
#: the means options (mean-test)
_OPTIONS.update(sigma="--sigma", mu0="--mu0")
#: the released values typed on the command: --z (one arm), --z1/--z2 (two arms), counts or proportions
_OPTIONS.update(z="--z", pi_hat="--z", z1="--z1", z2="--z2", pi_hat1="--z1", pi_hat2="--z2")


def _spell(name):
    """How the command spells one name of a library message (a ``dpinfer._validation._Name``)."""
    if name.kind == "argument":
        return _OPTIONS.get(name.name, name.python)
    if name.kind == "setting":
        return f"--{name.name.replace('_', '-')} {name.value}"
    if name.kind == "method":
        return f"--method {name.value}"
    return _CALLS.get(name.name, name.python)
