"""The ``dpinfer`` command: release, test, interval, power, sample size, validation, demo.

Every subcommand prints R-style text by default and JSON or CSV with
``--format json|csv`` for pipelines.  Exit status: 0 on success, 2 on a usage
error or bad input (one line on stderr saying what to fix), 1 on an internal error.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import warnings

from ._commands import (
    _cmd_budget,
    _cmd_ci,
    _cmd_demo,
    _cmd_power,
    _cmd_release,
    _cmd_sample_size,
    _cmd_test,
    _cmd_validate,
)
from ._input import EXIT_INTERNAL, EXIT_USAGE, _UsageError

__all__ = ["main"]


_DESCRIPTION = """\
Statistical inference on differentially private (DP) releases of a proportion.

dpinfer privatizes a count (the number of records with a property out of n) with
Tulap or Laplace noise, and computes p-values, confidence intervals, power and
sample sizes from the released value alone, the way R's binom.test would from the
confidential count.  Methods:

  ump     exact DP-UMP test and interval for a Tulap-noised count
          (Awan & Slavkovic 2018, 2020); uniformly most powerful among DP tests
  normal  normal approximation for a Laplace-noised proportion (Vu & Slavkovic 2009)
  jimi    DP-JIMI fiducial matching for a Laplace-noised proportion or count
          (exact infinite-draw limit by default, or --n-sim draws)

Defaults are the same here, in the Python functions and in prop_test: test and
ci are two-sided, power and sample-size one-sided (greater); the normal
approximation's interval is the score interval; DP-JIMI is its exact limit
unless --n-sim is given.

Each subcommand has its own --help.  Output is R-style text; --format json or
--format csv gives machine-readable output (one tidy row per result, keyed as
HTestResult.to_dict()); 'test --format htest-json' gives R's htest fields."""

_EPILOG = """\
examples:
  dpinfer demo
      privatize the embedded example trial (11/30 responders, p0 = 0.2) and
      compare the three methods side by side
  dpinfer release --csv trial.csv --column response --epsilon 1 --format json > rel.json
      release the number of 1s in column 'response' (n = number of rows) with
      Tulap noise from the operating system's cryptographic source
  dpinfer test --release rel.json --p0 0.2 --alternative greater
      exact DP-UMP test of H0: theta <= 0.2 from the saved release
  dpinfer test --value 12.7 --n 30 --epsilon 1 --p0 0.2 --format csv
      the same from numbers typed in, one tidy CSV row
  dpinfer ci --value 0.41 --n 30 --epsilon 1 --method jimi
      DP-JIMI 95% interval for a Laplace-noised proportion
  dpinfer release --table counts.csv --epsilon 1 --format json > table.json
      release an r x c table of counts with Laplace noise on every cell
  dpinfer test --release table.json
      DP-JIMI test of independence for the released table (--method mc: Gaboardi et al.)
  dpinfer power --theta 0.3 0.4 0.5 --n 30 --p0 0.2 --epsilon 1
      exact power of the one-sided DP-UMP test at alpha = 0.05
  dpinfer sample-size --theta1 0.4 --p0 0.2 --epsilon 1 --power 0.8
      smallest n giving 80% power
  dpinfer validate size --quick
      run a validation study of a source checkout

privacy:
  A release spends its epsilon (and delta) every time it is run: releasing the
  same data twice spends the budget twice.  'dpinfer release' draws its noise from
  the operating system's cryptographic source unless --seed is given.  A SEED
  MAKES THE NOISE REPRODUCIBLE, SO ANYONE WHO KNOWS IT CAN SUBTRACT THE NOISE:
  use --seed for demos and research on synthetic data only, never for a real
  release.  Tests, intervals and power use only the released value and the public
  n, epsilon and delta; they spend no budget.

exit status:
  0  success
  1  internal error (a bug: please report it with the command line)
  2  usage error or bad input; a one-line message on stderr says what to fix

See the user guide (docs/) for the tutorial, the privacy semantics and the
mapping from the R package binomialDP."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# --------------------------------------------------------------------------- parser
def _finite(kind):
    def convert(text):
        value = kind(text)
        if kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number; got {text!r}")
        return value

    convert.__name__ = kind.__name__
    return convert


def _confidential_count(text):
    """--x: a whole number; a bad value is described, never echoed (it is confidential)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number (the value given is not shown: "
                                         "it is confidential)") from None


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=30, width=88)


def _build_parser():
    from .. import __version__

    parser = _Parser(prog="dpinfer", description=_DESCRIPTION, epilog=_EPILOG,
                     formatter_class=_formatter)
    parser.add_argument("--version", action="version", version=f"dpinfer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    real, whole = _finite(float), _finite(int)

    fmt = _Parser(add_help=False)
    fmt.add_argument("--format", choices=("text", "json", "csv"), default="text",
                     help="output: R-style text (default), JSON, or CSV with a header row")
    fmt_test = _Parser(add_help=False)
    fmt_test.add_argument("--format", choices=("text", "json", "csv", "htest-json"), default="text",
                          help="output: R-style text (default), JSON, CSV with a header row, or "
                               "htest-json (R's htest field names, see docs/from_r.rst); several "
                               "values give a JSON list")

    def add(name, help_text, description, parents=(fmt,)):
        return sub.add_parser(name, help=help_text, description=description, parents=list(parents),
                              formatter_class=_formatter)

    rel = add("release", "privatize a count (from numbers or a CSV column)",
              "Privatize the number of records with a property out of n.\n\n"
              "The unit of privacy is one record (replace-one, n public).  Without --seed\n"
              "the noise comes from the operating system's cryptographic source (the\n"
              "hardened path); --seed makes it reproducible and is for research only.")
    src = rel.add_argument_group("confidential input (one of)")
    src.add_argument("--x", type=_confidential_count, help="the count (confidential)")
    src.add_argument("--n", type=whole, help="number of records (public)")
    src.add_argument("--csv", metavar="FILE", help="CSV file ('-' for stdin): x = number of 1s in --column, n = rows")
    src.add_argument("--column", metavar="NAME", help="the 0/1 (or TRUE/FALSE) column of --csv")
    src.add_argument("--table", metavar="FILE",
                     help="CSV file ('-' for stdin) of an r x c table of counts (optional header row and "
                          "row-name column): released with Laplace noise on every cell")
    rel.add_argument("--epsilon", type=real, required=True, help="privacy-loss parameter (> 0)")
    rel.add_argument("--delta", type=real, default=0.0, help="approximate-DP slack, Tulap only (default 0)")
    rel.add_argument("--sensitivity", type=whole, default=1,
                     help="Tulap only: the most one person moves the count (default 1)")
    rel.add_argument("--mechanism", choices=("tulap", "laplace"),
                     help="tulap: noisy count for the DP-UMP test (default); laplace: for normal/jimi")
    rel.add_argument("--kind", choices=("proportion", "count"),
                     help="Laplace only: release x/n (default) or x")
    tab = rel.add_argument_group("table options (with --table)")
    tab.add_argument("--neighbours", choices=("replace-one", "add-remove"),
                     help="replace-one (default: n public, sensitivity 2) or add-remove (n private, "
                          "sensitivity 1)")
    tab.add_argument("--margins", choices=("total", "private"),
                     help="total: publish the grand total n exactly (default under replace-one); "
                          "private: only the noisy cells (the only choice under add-remove)")
    rel.add_argument("--seed", type=whole, help="seed of numpy's generator: NOT PRIVATE, research only")
    led = rel.add_argument_group("privacy budget (a ledger file kept across invocations)")
    led.add_argument("--budget", metavar="FILE", help="charge the ledger FILE before drawing; refuse (exit 2) "
                     "if the release does not fit")
    led.add_argument("--total-epsilon", type=real, metavar="E", help="total epsilon, when FILE is created")
    led.add_argument("--total-delta", type=real, metavar="D", help="total delta, when FILE is created (default 0)")
    led.add_argument("--label", metavar="TEXT", help="what the release is, for the ledger (no confidential values); "
                     "with a plan, the plan line it is charged to")
    led.add_argument("--plan", metavar="PLAN", help="allocation plan (JSON) fixed when FILE is created: each release "
                     "must name a plan line with --label and fit its share")
    rel.set_defaults(func=_cmd_release)

    bud = add("budget", "print or export a privacy-budget ledger file",
              "Print the ledger kept by 'dpinfer release --budget FILE': the totals, what is\n"
              "spent and remains, one line per charge, the plan's lines and the head digest.\n"
              "--format events exports the mechanism events (dp_accounting DpEvent shape) with\n"
              "the hash chain and the composed totals (see docs/budget.rst).", parents=())
    bud.add_argument("file", metavar="FILE", help="the ledger file")
    bud.add_argument("--format", choices=("text", "json", "events"), default="text",
                     help="text (default), the JSON file, or the export of its events")
    bud.add_argument("--delta-slack", type=real, default=1e-6, metavar="D",
                     help="delta' of the advanced-composition total in --format events (default 1e-6)")
    bud.set_defaults(func=_cmd_budget)

    def add_release_input(p):
        g = p.add_argument_group("released input (one of)")
        g.add_argument("--release", metavar="FILE",
                       help="JSON or CSV from 'dpinfer release --format json|csv' ('-' for stdin); "
                            "one result per release in the file")
        g.add_argument("--value", type=real, nargs="+", metavar="VALUE",
                       help="released value(s): a noisy count (ump) or proportion (normal, jimi); "
                            "several values give one result each")
        g.add_argument("--n", type=whole, help="number of records")
        g.add_argument("--epsilon", type=real, help="epsilon of the release")
        g.add_argument("--delta", type=real, help="delta of a Tulap release (default 0)")
        g.add_argument("--sensitivity", type=whole, help="count sensitivity of a Tulap release (default 1)")
        p.add_argument("--method", choices=("ump", "normal", "jimi", "mc"),
                       help="ump (Tulap count, default), normal or jimi (Laplace proportion); for a "
                            "table: jimi (default) or mc")
        p.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                       help="alternative hypothesis (default two-sided, as in Python and R's "
                            "binom.test)")
        p.add_argument("--confidence-level", type=real, default=0.95, help="interval level (default 0.95)")
        p.add_argument("--two-sided-method", choices=("asymptotically-unbiased", "equal-tailed"),
                       help="ump only: two-sided p-value (default asymptotically-unbiased)")
        p.add_argument("--n-sim", type=whole, help="jimi, or a table test (jimi, mc): number of draws "
                       "(default: exact limit; 10000 for a table)")
        p.add_argument("--seed", type=whole, help="jimi with --n-sim, or a table test: seed of the draws")

    test = add("test", "test a proportion from a released value, or a table's independence",
               "Test H0 about the proportion theta from a released value; prints R's htest layout.\n"
               "--alternative greater tests H0: theta <= p0 against theta > p0 (default: two-sided).\n"
               "Defaults are those of the Python functions: DP-JIMI uses its exact limit unless\n"
               "--n-sim is given.\n\n"
               "A released r x c table (--table NOISY.csv with --epsilon and, if public, --n; or a\n"
               "release file of kind 'table') is tested for independence like R's chisq.test:\n"
               "DP-JIMI fiducial matching by default, --method mc for Gaboardi et al.'s Monte\n"
               "Carlo test; 10000 draws unless --n-sim, seeded with --seed.", parents=(fmt_test,))
    add_release_input(test)
    test.add_argument("--p0", type=real, default=0.5, help="null proportion (default 0.5)")
    tab = test.add_argument_group("released table (instead of --release/--value)")
    tab.add_argument("--table", metavar="FILE",
                     help="CSV file of a released noisy r x c table (optional header row and row-name "
                          "column); give --epsilon, and --n if the total is public; tests independence")
    tab.add_argument("--neighbours", choices=("replace-one", "add-remove"),
                     help="how the table was released: replace-one (default, sensitivity 2) or add-remove "
                          "(sensitivity 1, no --n)")
    test.set_defaults(func=_cmd_test)

    ci = add("ci", "confidence interval for a proportion from a released value",
             "Confidence interval for the proportion from a released value (default two-sided;\n"
             "the same interval 'dpinfer test' prints for the same options).")
    add_release_input(ci)
    ci.add_argument("--interval", choices=("score", "wald"),
                    help="normal only: score (default: the interval of the normal test and of "
                         "binom_normal_ci) or Wald interval")
    ci.set_defaults(func=_cmd_ci)

    power = add("power", "exact power of the DP-UMP or normal-approximation test",
                "Exact power (a finite sum, no simulation) at one or more true proportions.\n"
                "At theta = p0 it is the test's size.")
    power.add_argument("--theta", type=real, nargs="+", required=True, help="true proportion(s)")
    power.add_argument("--n", type=whole, required=True, help="number of records")
    power.add_argument("--p0", type=real, required=True, help="null proportion")
    power.add_argument("--epsilon", type=real, required=True, help="privacy-loss parameter")
    power.add_argument("--delta", type=real, default=0.0, help="approximate-DP slack, ump only (default 0)")
    power.add_argument("--sensitivity", type=whole, default=1,
                       help="count sensitivity of the Tulap release, ump only (default 1)")
    power.add_argument("--alpha", type=real, default=0.05, help="significance level (default 0.05)")
    power.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="greater",
                       help="alternative hypothesis (default greater: a one-sided trial question, "
                            "as binom_ump_power)")
    power.add_argument("--method", choices=("ump", "normal"), default="ump", help="test (default ump)")
    power.set_defaults(func=_cmd_power)

    size = add("sample-size", "smallest n reaching a target power (DP-UMP test)",
               "Smallest number of records for which the DP-UMP test reaches the target power\n"
               "at theta1 (exact power, no simulation).")
    size.add_argument("--theta1", type=real, required=True, help="proportion under the alternative")
    size.add_argument("--p0", type=real, required=True, help="null proportion")
    size.add_argument("--epsilon", type=real, required=True, help="privacy-loss parameter")
    size.add_argument("--delta", type=real, default=0.0, help="approximate-DP slack (default 0)")
    size.add_argument("--sensitivity", type=whole, default=1,
                      help="count sensitivity of the Tulap release (default 1)")
    size.add_argument("--alpha", type=real, default=0.05, help="significance level (default 0.05)")
    size.add_argument("--power", type=real, default=0.8, help="target power (default 0.8)")
    size.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="greater",
                      help="alternative hypothesis (default greater: a one-sided trial question, "
                           "as binom_ump_sample_size)")
    size.set_defaults(func=_cmd_sample_size)

    val = add("validate", "run a validation study (source checkout)",
              "Run validation/STUDY.py from the source checkout dpinfer is installed from.\n"
              "Arguments after STUDY go to the study (e.g. --quick, --seed, --out DIR).",
              parents=())
    val.add_argument("--list", action="store_true", help="list the available studies")
    val.add_argument("study", nargs="?", metavar="STUDY", help="study name (see --list)")
    val.add_argument("study_args", nargs=argparse.REMAINDER, metavar="...", help="arguments for the study")
    val.set_defaults(func=_cmd_validate)

    demo = add("demo", "privatize the embedded example trial and compare the three methods",
               "Release the embedded synthetic trial (11 responders out of 30, p0 = 0.2) with\n"
               "Tulap noise (DP-UMP test) and Laplace noise (normal approximation and\n"
               "DP-JIMI), print each test R-style, then a side-by-side table.  The noise is\n"
               "seeded for a reproducible demo: the data are synthetic.")
    demo.add_argument("--epsilon", type=real, default=1.0, help="privacy budget of each release (default 1)")
    demo.add_argument("--delta", type=real, default=0.0, help="delta of the Tulap release (default 0)")
    demo.add_argument("--confidence-level", type=real, default=0.95, help="interval level (default 0.95)")
    demo.add_argument("--seed", type=whole, default=2024, help="seed of the demo's noise (default 2024)")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv=None):
    """Run the ``dpinfer`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = _build_parser()
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

