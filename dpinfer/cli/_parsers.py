"""The parser of the ``dpinfer`` command: one builder per subcommand.

Each ``_add_<command>`` function below adds one subcommand with all of its options
in one place; :func:`build_parser` calls them in the order of ``dpinfer --help``.
Groups of options that several subcommands share (the released input of ``test``
and ``ci``; the design of a planned study for ``power`` and ``sample-size``) are
one function each, so that an option added there reaches every subcommand using it.
"""

from __future__ import annotations

import argparse
import difflib
import math

from .._validation import _ALTERNATIVE_HINTS
from ._commands import (
    _cmd_budget,
    _cmd_ci,
    _cmd_demo,
    _cmd_power,
    _cmd_sample_size,
    _cmd_validate,
)
from ._designs import cmd_release, cmd_test
from ._input import EXIT_USAGE, _Renamed, add_workers_option
from ._strata import add_strata_options
from ._two_arm import add_arm_options, add_planning_options

__all__ = []  # package-internal: dpinfer.cli imports build_parser explicitly


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

Two arms (two releases, --release twice or --z1/--n1/--z2/--n2; power and
sample-size with --theta2) get the exact two-arm test, as R's
prop.test(c(x1, x2), c(n1, n2)) and power.prop.test.

Defaults are the same here, in the Python functions and in prop_test: test,
ci, power and sample-size are two-sided (as R's power.prop.test); the normal
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
  dpinfer test --z 12.7 --n 30 --epsilon 1 --p0 0.2 --format csv
      the same from numbers typed in, one tidy CSV row
  dpinfer ci --z 0.41 --n 30 --epsilon 1 --method jimi
      DP-JIMI 95% interval for a Laplace-noised proportion
  dpinfer test --release arm1.json --release arm2.json --margin -0.1 --alternative greater
      exact non-inferiority test of two arms' released counts (margin 10 points)
  dpinfer sample-size --theta1 0.6 --theta2 0.4 --epsilon 1 --power 0.8
      smallest n per arm for the exact two-arm test
  dpinfer release --table counts.csv --epsilon 1 --format json > table.json
      release an r x c table of counts with Laplace noise on every cell
  dpinfer test --release table.json
      DP-JIMI test of independence for the released table (--method mc: Gaboardi et al.)
  dpinfer power --theta 0.3 0.4 0.5 --n 30 --p0 0.2 --epsilon 1
      exact power of the two-sided DP-UMP test at alpha = 0.05
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
  3  'budget verify': a release is not in the ledger's chain, or the ledger is behind its head file

See the user guide (docs/) for the tutorial, the privacy semantics and the
mapping from the R package binomialDP."""


#: Options of other tools and of R that a user may type, and this command's spelling
_OPTION_ALIASES = {
    "--conf-level": "--confidence-level",
    "--conf.level": "--confidence-level",
    "--level": "--confidence-level",
    "--alt": "--alternative",
    "--nsim": "--n-sim",
    "--eps": "--epsilon",
    "--null": "--p0",
    "--p": "--p0",
}

#: (option destination, value) -> why the value is not offered and what to give instead
_CHOICE_HINTS = {("alternative", spelling): hint for spelling, hint in _ALTERNATIVE_HINTS.items()}


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2.

    An invalid choice gets a hint when the value is another tool's spelling of one of
    the choices (R's 'two.sided', statsmodels' 'larger'), or when it is a method this
    subcommand does not offer (``choice_hints``); an unrecognised option gets the
    option it most likely means.
    """

    def __init__(self, *args, choice_hints=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.choice_hints = dict(choice_hints or {})
        self.subcommands = {}  # name -> parser, filled by build_parser

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def _check_value(self, action, value):
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:
            hint = self.choice_hints.get((action.dest, value)) or _CHOICE_HINTS.get((action.dest, value))
            if hint is None:
                raise
            raise argparse.ArgumentError(action, f"{exc.message}; {hint}") from None

    def parse_args(self, args=None, namespace=None):
        args, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self.subcommands.get(getattr(args, "command", None), self)
            self.error(f"unrecognized arguments: {' '.join(extras)}{command.suggestion(extras)}")
        return args

    def suggestion(self, extras):
        """'; did you mean --x?' for the first unrecognised option that resembles one of ours."""
        known = [option for action in self._actions for option in action.option_strings]
        for word in extras:
            if not word.startswith("--"):
                continue
            name = word.split("=", 1)[0]
            guess = _OPTION_ALIASES.get(name.lower())
            if guess not in known:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
                guess = close[0] if close else None
            if guess is not None:
                return f"; did you mean {guess}?"
        return ""


def _finite(kind):
    def convert(text):
        value = kind(text)
        if kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number; got {text!r}")
        return value

    convert.__name__ = kind.__name__
    return convert


_REAL, _WHOLE = _finite(float), _finite(int)


def _confidential_count(text):
    """--x: a whole number; a bad value is described, never echoed (it is confidential)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number (the value given is not shown: "
                                         "it is confidential)") from None


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=30, width=88)


# --------------------------------------------------------------------------- shared pieces
def _add_format(parser, *, extra=()):
    """--format: text, json, csv (and ``extra`` formats such as htest-json)."""
    choices = ("text", "json", "csv", *extra)
    text = "output: R-style text (default), JSON, or CSV with a header row"
    if "htest-json" in extra:
        text = ("output: R-style text (default), JSON, CSV with a header row, or htest-json (R's "
                "htest field names, see docs/coming_from_r.rst); several values give a JSON list")
    parser.add_argument("--format", choices=choices, default="text", help=text)


def _add_progress(parser):
    """--no-progress: no progress line on stderr (shown, when stderr is a terminal, after 2 s)."""
    parser.add_argument("--no-progress", action="store_true",
                        help="never show the progress line that long computations write on stderr "
                             "when it is a terminal (after 2 s; stdout is unaffected)")


def _subcommand(sub, name, help_text, description, *, choice_hints=None):
    return sub.add_parser(name, help=help_text, description=description, formatter_class=_formatter,
                          choice_hints=choice_hints)


def _add_released_input(parser, *, methods):
    """The released value(s) a test or an interval reads, and the options of every method."""
    g = parser.add_argument_group("released input (one of)")
    g.add_argument("--release", metavar="FILE", action="append",
                   help="JSON or CSV from 'dpinfer release --format json|csv' ('-' for stdin); "
                        "one result per release in the file; given twice: two arms compared")
    g.add_argument("--z", dest="value", type=_REAL, nargs="+", metavar="Z",
                   help="released value(s), with all their printed digits: a noisy count (ump) or "
                        "proportion (normal, jimi); several values give one result each")
    for old, new in (("--value", "--z"), ("--x", "--z")):
        g.add_argument(old, nargs="*", action=_Renamed, new=new, help=argparse.SUPPRESS)
    g.add_argument("--n", type=_WHOLE, help="number of records")
    g.add_argument("--epsilon", type=_REAL, help="epsilon of the release")
    g.add_argument("--delta", type=_REAL, help="delta of a Tulap release (default 0)")
    g.add_argument("--sensitivity", type=_WHOLE, help="count sensitivity of a Tulap release (default 1)")
    table = "; for a table: jimi (default) or mc" if "mc" in methods else ""
    parser.add_argument("--method", choices=methods,
                        help=f"ump (Tulap count, default), normal or jimi (Laplace proportion){table}")
    parser.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                        help="alternative hypothesis (default two-sided, as in Python and R's "
                             "binom.test)")
    parser.add_argument("--confidence-level", type=_REAL, default=0.95, help="interval level (default 0.95)")
    parser.add_argument("--two-sided-method", choices=("asymptotically-unbiased", "equal-tailed"),
                        help="ump only: two-sided p-value (default asymptotically-unbiased)")
    draws = "jimi, or a table test (jimi, mc)" if "mc" in methods else "jimi"
    parser.add_argument("--n-sim", type=_WHOLE, help=f"{draws}: number of draws "
                        f"(default: exact limit{'; 10000 for a table' if 'mc' in methods else ''})")
    parser.add_argument("--seed", type=_WHOLE,
                        help=f"jimi with --n-sim{', or a table test' if 'mc' in methods else ''}: "
                             "seed of the draws (default: a stream derived from the release)")
    add_workers_option(parser, f"jimi{', or a table test' if 'mc' in methods else ''}")
    add_arm_options(parser, _REAL, _WHOLE, _Renamed)


def _add_planned_release(parser, *, ump_only):
    """The planned release and level of ``power`` and ``sample-size``: epsilon, delta, sensitivity, alpha."""
    where = "" if ump_only else ", ump only"
    parser.add_argument("--epsilon", type=_REAL, required=True, help="privacy-loss parameter")
    parser.add_argument("--delta", type=_REAL, default=0.0, help=f"approximate-DP slack{where} (default 0)")
    parser.add_argument("--sensitivity", type=_WHOLE, default=1,
                        help=f"count sensitivity of the Tulap release{where} (default 1)")
    parser.add_argument("--alpha", type=_REAL, default=0.05, help="significance level (default 0.05)")


# --------------------------------------------------------------------------- subcommands
def _add_release(sub):
    rel = _subcommand(sub, "release", "privatize a count (from numbers or a CSV column)",
                      "Privatize the number of records with a property out of n.\n\n"
                      "The unit of privacy is one record (replace-one, n public).  Without --seed\n"
                      "the noise comes from the operating system's cryptographic source (the\n"
                      "hardened path); --seed makes it reproducible and is for research only.")
    _add_format(rel)
    src = rel.add_argument_group("confidential input (one of)")
    src.add_argument("--x", type=_confidential_count, help="the count (confidential)")
    src.add_argument("--n", type=_WHOLE, help="number of records (public)")
    src.add_argument("--csv", metavar="FILE", help="CSV file ('-' for stdin): x = number of 1s in --column, n = rows")
    src.add_argument("--column", metavar="NAME", help="the 0/1 (or TRUE/FALSE) column of --csv")
    src.add_argument("--table", metavar="FILE",
                     help="CSV file ('-' for stdin) of an r x c table of counts (optional header row and "
                          "row-name column): released with Laplace noise on every cell")
    rel.add_argument("--epsilon", type=_REAL, help="privacy-loss parameter (> 0; required unless --design)")
    rel.add_argument("--delta", type=_REAL, default=0.0, help="approximate-DP slack, Tulap only (default 0)")
    stage = rel.add_argument_group("a stage of a design (instead of --epsilon)")
    stage.add_argument("--design", metavar="FILE", help="JSON of 'dpinfer design simon|sequential --format json': "
                       "release one stage's new patients at the design's epsilon (charged once for the whole design)")
    stage.add_argument("--stage", type=_WHOLE, help="with --design: the stage to release (1, 2, ...)")
    stage.add_argument("--earlier", metavar="FILE", action="append",
                       help="with --stage S > 1: the release file of each earlier stage, in order (the run is "
                            "continued from them)")
    stage.add_argument("--x2", type=_confidential_count,
                       help="a two-arm design's stage: arm 2's count (confidential; --x is arm 1's)")
    stage.add_argument("--n2", type=_WHOLE, help="a two-arm design's stage: arm 2's new patients (--n is arm 1's)")
    rel.add_argument("--sensitivity", type=_WHOLE, default=1,
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
    rel.add_argument("--seed", type=_WHOLE, help="seed of numpy's generator: NOT PRIVATE, research only")
    led = rel.add_argument_group("privacy budget (a ledger file kept across invocations)")
    led.add_argument("--budget", metavar="FILE", help="charge the ledger FILE before drawing; refuse (exit 2) "
                     "if the release does not fit; with --format json or csv the budget line goes to "
                     "stderr")
    led.add_argument("--total-epsilon", type=_REAL, metavar="E", help="total epsilon, when FILE is created")
    led.add_argument("--total-delta", type=_REAL, metavar="D", help="total delta, when FILE is created (default 0)")
    led.add_argument("--label", metavar="TEXT", help="what the release is, for the ledger (no confidential values); "
                     "with a plan, the plan line it is charged to")
    led.add_argument("--plan", metavar="PLAN", help="allocation plan (JSON) fixed when FILE is created: each release "
                     "must name a plan line with --label and fit its share")
    led.add_argument("--parallel", metavar="LABEL", help="with --group: charge a group of the ledger's parallel "
                     "set LABEL (parallel composition); the release records the group")
    led.add_argument("--group", metavar="NAME", help="the group (disjoint people, e.g. an arm) of --parallel LABEL")
    rel.set_defaults(func=cmd_release)


def _add_budget(sub):
    bud = _subcommand(sub, "budget", "print or export a privacy-budget ledger file",
                      "Print the ledger kept by 'dpinfer release --budget FILE': the totals, what is\n"
                      "spent and remains, one line per charge, the plan's lines and the head digest.\n"
                      "--format events exports the mechanism events (dp_accounting DpEvent shape) with\n"
                      "the hash chain and the composed totals (see docs/budget.rst).\n"
                      "'dpinfer budget verify LEDGER --release FILE...' checks that every published release\n"
                      "is in the ledger's hash chain (a rolled-back or rewritten ledger is not) and that the\n"
                      "ledger reaches the head recorded beside it (LEDGER.head); exit 3 if not.")
    bud.add_argument("file", metavar="FILE", help="the ledger file (or the word verify, then the ledger)")
    bud.add_argument("ledger", metavar="LEDGER", nargs="?",
                     help="with 'budget verify LEDGER --release FILE...': the ledger file (or its --format events "
                          "export) to check")
    bud.add_argument("--release", metavar="FILE", action="append",
                     help="with verify: a published release file (JSON or CSV, repeat for each); every release "
                          "must be in the ledger's hash chain (exit 3 if any is not)")
    bud.add_argument("--format", choices=("text", "json", "csv", "events"), default="text",
                     help="text (default), the JSON file, CSV (one row per charge), or the export of its events")
    bud.add_argument("--delta-slack", type=_REAL, default=1e-6, metavar="D",
                     help="delta' of the advanced-composition total in --format events (default 1e-6)")
    bud.set_defaults(func=_cmd_budget)


def _add_test(sub):
    test = _subcommand(sub, "test", "test a proportion from a released value, or a table's independence",
                       "Test H0 about the proportion theta from a released value; prints R's htest layout.\n"
                       "Two releases (--release twice, or --z1 --n1 --z2 --n2) compare two arms exactly.\n"
                       "Three or more (--release each time, or two with --pooled) pool sites sharing one\n"
                       "proportion; --stratum NAME ARM1 ARM2 once per stratum compares two arms within\n"
                       "strata (the exact private counterpart of R's mantelhaen.test).\n"
                       "--alternative greater tests H0: theta <= p0 against theta > p0 (default: two-sided).\n"
                       "Defaults are those of the Python functions: DP-JIMI uses its exact limit unless\n"
                       "--n-sim is given.\n\n"
                       "A released r x c table (--table NOISY.csv with --epsilon and, if public, --n; or a\n"
                       "release file of kind 'table') is tested for independence like R's chisq.test:\n"
                       "DP-JIMI fiducial matching by default, --method mc for Gaboardi et al.'s Monte\n"
                       "Carlo test; 10000 draws unless --n-sim, seeded with --seed.")
    _add_format(test, extra=("htest-json",))
    _add_progress(test)
    _add_released_input(test, methods=("ump", "normal", "jimi", "mc"))
    test.add_argument("--p0", type=_REAL, default=0.5, help="null proportion (default 0.5)")
    test.add_argument("--design", metavar="FILE",
                      help="JSON of 'dpinfer design simon|sequential --format json': the exact test at the end of "
                           "the design from its stage releases (--release once per stage, a two-arm stage's file "
                           "holding both arms; the null is the design's p0, or --margin for two arms)")
    add_strata_options(test, _REAL)
    tab = test.add_argument_group("released table (instead of --release/--z)")
    tab.add_argument("--table", metavar="FILE",
                     help="CSV file of a released noisy r x c table (optional header row and row-name "
                          "column); give --epsilon, and --n if the total is public; tests independence")
    tab.add_argument("--neighbours", choices=("replace-one", "add-remove"),
                     help="how the table was released: replace-one (default, sensitivity 2) or add-remove "
                          "(sensitivity 1, no --n)")
    test.set_defaults(func=cmd_test)


def _add_ci(sub):
    ci = _subcommand(sub, "ci", "confidence interval for a proportion from a released value",
                     "Confidence interval for the proportion from a released value (default two-sided;\n"
                     "the same interval 'dpinfer test' prints for the same options).",
                     choice_hints={("method", "mc"): "--method mc is a test of a table's independence "
                                   "and has no interval: use 'dpinfer test --table FILE --method mc'"})
    _add_format(ci)
    _add_progress(ci)
    _add_released_input(ci, methods=("ump", "normal", "jimi"))
    ci.add_argument("--interval", choices=("score", "wald"),
                    help="normal only: score (default: the interval of the normal test and of "
                         "binom_normal_ci) or Wald interval")
    ci.set_defaults(func=_cmd_ci)


def _add_power(sub):
    power = _subcommand(sub, "power", "exact power of the DP-UMP or normal-approximation test",
                        "Exact power (a finite sum, no simulation) at one or more true proportions.\n"
                        "At theta = p0 it is the test's size.")
    _add_format(power)
    _add_progress(power)
    power.add_argument("--theta", type=_REAL, nargs="+", help="true proportion(s) (required for one arm)")
    power.add_argument("--n", type=_WHOLE, help="number of records (required for one arm)")
    power.add_argument("--p0", type=_REAL, help="null proportion (required for one arm)")
    _add_planned_release(power, ump_only=False)
    power.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                       help="alternative hypothesis (default two-sided, as binom_ump_power and "
                            "R's power.prop.test)")
    power.add_argument("--method", choices=("ump", "normal"), default="ump", help="test (default ump)")
    add_planning_options(power, _REAL, _WHOLE, power=True)
    power.set_defaults(func=_cmd_power)


def _add_sample_size(sub):
    size = _subcommand(sub, "sample-size", "smallest n reaching a target power (DP-UMP test)",
                       "Smallest number of records for which the DP-UMP test reaches the target power\n"
                       "at theta1 (exact power, no simulation).",
                       choice_hints={("method", "normal"): "the normal approximation has no sample-size "
                                     "search (its exact power is not monotone in n and its size can exceed "
                                     "alpha): compare 'dpinfer power --method normal' at several --n"})
    _add_format(size)
    _add_progress(size)
    size.add_argument("--theta1", type=_REAL, required=True, help="proportion under the alternative")
    size.add_argument("--p0", type=_REAL, help="null proportion (required for one arm)")
    _add_planned_release(size, ump_only=True)
    size.add_argument("--power", type=_REAL, default=0.8, help="target power (default 0.8)")
    size.add_argument("--alternative", choices=("two-sided", "less", "greater"), default="two-sided",
                      help="alternative hypothesis (default two-sided, as binom_ump_sample_size and "
                           "R's power.prop.test)")
    size.add_argument("--method", choices=("ump",), default="ump",
                      help="test (ump, the default and only choice: the DP-UMP test)")
    add_planning_options(size, _REAL, _WHOLE, power=False)
    size.set_defaults(func=_cmd_sample_size)


def _add_validate(sub):
    val = _subcommand(sub, "validate", "run a validation study (source checkout)",
                      "Run validation/STUDY.py from the source checkout dpinfer is installed from.\n"
                      "Arguments after STUDY go to the study (e.g. --quick, --seed, --out DIR).")
    val.add_argument("--list", action="store_true", help="list the available studies with a line on each")
    val.add_argument("study", nargs="?", metavar="STUDY", help="study name (see --list)")
    val.add_argument("study_args", nargs=argparse.REMAINDER, metavar="...", help="arguments for the study")
    val.set_defaults(func=_cmd_validate)


def _add_demo(sub):
    demo = _subcommand(sub, "demo", "privatize the embedded example trial and compare the three methods",
                       "Release the embedded synthetic trial (11 responders out of 30, p0 = 0.2) with\n"
                       "Tulap noise (DP-UMP test) and Laplace noise (normal approximation and\n"
                       "DP-JIMI), print each test R-style, then a side-by-side table.  The noise is\n"
                       "seeded for a reproducible demo: the data are synthetic.")
    _add_format(demo)
    demo.add_argument("--epsilon", type=_REAL, default=1.0, help="privacy budget of each release (default 1)")
    demo.add_argument("--delta", type=_REAL, default=0.0, help="delta of the Tulap release (default 0)")
    demo.add_argument("--confidence-level", type=_REAL, default=0.95, help="interval level (default 0.95)")
    demo.add_argument("--seed", type=_WHOLE, default=2024, help="seed of the demo's noise (default 2024)")
    demo.add_argument("--data", action="store_true",
                      help="print the example trial's per-patient CSV (synthetic; columns patient_id, response) "
                           "and stop: 'dpinfer demo --data > trial.csv' gives the file the guide's examples read")
    demo.set_defaults(func=_cmd_demo)


#: The subcommands in the order of 'dpinfer --help'; each builder adds one with all its options.
def _add_means(sub):
    from ._means import add_mean_parsers

    add_mean_parsers(sub, _subcommand, _REAL, _WHOLE, _add_format)


def _add_designs(sub):
    from ._designs import add_design_parsers

    add_design_parsers(sub, _subcommand, _REAL, _WHOLE, _add_format)

def _add_survival(sub):
    from ._survival import add_survival_parsers

    add_survival_parsers(sub, _subcommand, _REAL, _WHOLE, _add_format)


def _add_pairs(sub):
    from ._pairs import add_pairs_parsers

    add_pairs_parsers(sub, _subcommand, _REAL, _WHOLE, _add_format)


_BUILDERS = (_add_release, _add_budget, _add_test, _add_ci, _add_power, _add_sample_size,
             _add_means, _add_designs, _add_survival, _add_pairs, _add_validate, _add_demo)


def build_parser():
    """The ``dpinfer`` parser: global options, then one subparser per builder in ``_BUILDERS``."""
    from .. import __version__

    parser = _Parser(prog="dpinfer", description=_DESCRIPTION, epilog=_EPILOG, formatter_class=_formatter)
    parser.add_argument("--version", action="version", version=f"dpinfer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for add in _BUILDERS:
        add(sub)
    parser.subcommands = sub.choices
    return parser
