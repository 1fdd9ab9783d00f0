"""The ``dpinfer`` command: release, test, interval, power, sample size, validation, demo.

Every subcommand prints R-style text by default and JSON or CSV with
``--format json|csv`` for pipelines.  Exit status: 0 on success, 2 on a usage
error or bad input (one line on stderr saying what to fix), 1 on an internal error.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import io
import json
import math
import re
import sys
import textwrap
import warnings
from pathlib import Path

__all__ = ["main"]

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE = 0, 1, 2

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


class _UsageError(Exception):
    """Bad input found by the command itself (exit status 2)."""


#: Longest line read from a CSV file, and largest release file: inputs beyond these
#: (a binary file, /dev/zero) are refused after reading this much, never read whole.
_MAX_LINE_CHARS = 1 << 20
_MAX_RELEASE_CHARS = 1 << 20


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# --------------------------------------------------------------------------- input
def _counts_from_csv(path, column):
    """(x, n): the number of 1s in ``column`` of the CSV file and its number of rows.

    Accepts 0/1 and R's TRUE/FALSE; anything else (including an empty cell) is an
    error naming the row, because dropping or guessing a value would change n.
    """
    try:
        handle = sys.stdin if path == "-" else open(path, newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise _UsageError(f"cannot read CSV file {path!r}: {exc.strerror}.") from exc
    with handle:
        try:
            return _count_rows(csv.DictReader(_bounded_lines(handle, path)), path, column)
        except csv.Error as exc:
            raise _UsageError(f"CSV file {path!r} cannot be read as CSV: {exc}.") from exc
        except UnicodeDecodeError as exc:
            raise _UsageError(f"CSV file {path!r} is not UTF-8 text ({exc.reason}).") from exc


def _bounded_lines(handle, path):
    """The lines of ``handle``, refusing a line longer than _MAX_LINE_CHARS (no newline in sight)."""
    while True:
        line = handle.readline(_MAX_LINE_CHARS + 1)
        if not line:
            return
        if len(line) > _MAX_LINE_CHARS:
            raise _UsageError(
                f"CSV file {path!r} has a line longer than {_MAX_LINE_CHARS:_} characters; "
                "it does not look like a CSV file of 0/1 values."
            )
        yield line


def _count_rows(reader, path, column):
    """(x, n) from a DictReader over a CSV file (see _counts_from_csv)."""
    if reader.fieldnames is None:
        raise _UsageError(f"CSV file {path!r} is empty.")
    if column not in reader.fieldnames:
        raise _UsageError(
            f"column {column!r} not found in {path!r}; its columns are "
            f"{', '.join(map(repr, reader.fieldnames))}."
        )
    x = n = 0
    for row in reader:
        n += 1
        cell = (row[column] or "").strip()
        if cell in ("1", "1.0") or cell.upper() == "TRUE":
            x += 1
        elif not (cell in ("0", "0.0") or cell.upper() == "FALSE"):
            # the cell is confidential: name its row, never its content
            raise _UsageError(
                f"column {column!r} must hold 0/1 (or TRUE/FALSE); data row {n} holds something "
                "else. Remove or recode it first: dropping rows changes n."
            )
    if n == 0:
        raise _UsageError(f"CSV file {path!r} has a header but no data rows.")
    return x, n


# --------------------------------------------------------------------------- tables
#: Largest table CSV file read (characters); a table of counts is a few hundred.
_MAX_TABLE_CHARS = 1 << 20
#: Most digits of a confidential count (the releaser clips cells at 2**40, 13 digits).
_MAX_COUNT_DIGITS = 15
_WHOLE = re.compile(r"\+?[0-9]+")


def _table_from_csv(path, *, confidential):
    """The r x c table in a CSV file: counts (``confidential``) or released noisy cells.

    Layout (R's ``write.csv`` of a matrix, or bare numbers): an optional header
    row and an optional row-name column.  The first row is a header when its
    first cell is empty or not a number and none of its other cells is a number;
    the first column holds row names when no data row has a number there, or when
    the header has an empty first cell (R's ``write.csv``; the row names must
    then be labels or 1, 2, ..., r) or one cell fewer than the rows
    (``write.table``).  Blank lines are skipped.  Every other cell must be a number: a whole number
    >= 0 for counts, a finite real number for a released table.  Errors name the
    line and column of the file, never a cell's content (counts are confidential).
    """
    what = "table of counts" if confidential else "released table"
    try:
        handle = sys.stdin if path == "-" else open(path, newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise _UsageError(f"cannot read {what} file {path!r}: {exc.strerror}.") from exc
    with handle:
        try:
            text = handle.read(_MAX_TABLE_CHARS + 1)
        except UnicodeDecodeError as exc:
            raise _UsageError(f"{what} file {path!r} is not UTF-8 text ({exc.reason}).") from exc
    if len(text) > _MAX_TABLE_CHARS:
        raise _UsageError(f"{what} file {path!r} is longer than {_MAX_TABLE_CHARS:_} characters; "
                          "a table of counts is a few hundred.")
    try:
        rows = [(line, [cell.strip() for cell in row])
                for line, row in enumerate(csv.reader(io.StringIO(text, newline="")), start=1)]
    except csv.Error as exc:
        raise _UsageError(f"{what} file {path!r} cannot be read as CSV: {exc}.") from exc
    # line numbers are those of csv.reader's records (one per line unless a quoted cell spans lines)
    rows = [(line, row) for line, row in rows if any(row)]
    if not rows:
        raise _UsageError(f"{what} file {path!r} is empty.")

    def number(cell):
        if confidential:
            return _WHOLE.fullmatch(cell) is not None
        try:
            return math.isfinite(float(cell))
        except ValueError:
            return False

    first = rows[0][1]
    header = (not first[0] or not number(first[0])) and not any(number(c) for c in first[1:])
    data = rows[1:] if header else rows
    if not data:
        raise _UsageError(f"{what} file {path!r} has a header but no rows of numbers.")
    width = len(data[0][1])
    for line, row in data:
        if len(row) != width:
            raise _UsageError(f"{what} file {path!r}: line {line} has {len(row)} cells and line "
                              f"{data[0][0]} has {width}; every row must have as many (ragged rows).")
    labels = all(not number(row[0]) for _, row in data)
    if not header:
        names = labels
    elif len(first) == width - 1:  # write.table(m, sep = ","): no header cell above the row names
        names = True
    elif len(first) != width:
        raise _UsageError(f"{what} file {path!r}: the header (line {rows[0][0]}) has {len(first)} cells and "
                          f"line {data[0][0]} has {width}; they must match (ragged rows).")
    elif first[0] == "":  # write.csv(m): an empty corner cell above the row names
        default_names = all(number(row[0]) and float(row[0]) == i for i, (_, row) in enumerate(data, start=1))
        if not (labels or default_names):
            raise _UsageError(
                f"{what} file {path!r}: the header's first cell is empty, as above R's row names, but the "
                "first column holds numbers other than 1, 2, ...: label that column in the header if it "
                "holds counts, or give the rows names that are not numbers.")
        names = True
    else:
        names = labels
    start = 1 if names else 0
    values = []
    for line, row in data:
        out = []
        for col, cell in enumerate(row[start:], start=start + 1):
            if not number(cell):
                rule = "a whole number >= 0 (a count)" if confidential else "a finite number"
                shown = " (the content is not shown: it is confidential)" if confidential else ""
                raise _UsageError(f"{what} file {path!r}: line {line}, column {col} must hold {rule}; "
                                  f"it does not{shown}.")
            if confidential and len(cell.lstrip("+")) > _MAX_COUNT_DIGITS:
                raise _UsageError(f"{what} file {path!r}: line {line}, column {col} holds a count with "
                                  f"more than {_MAX_COUNT_DIGITS} digits; no table of records has one.")
            out.append(int(cell) if confidential else float(cell))
        values.append(out)
    r, c = len(values), width - start
    if r < 2 or c < 2:
        raise _UsageError(
            f"{what} file {path!r} holds a {r} x {c} table (after {'a header row' if header else 'no header'}"
            f"{' and a row-name column' if names else ''}); a test of independence needs at least 2 rows "
            "and 2 columns.")
    import numpy as np

    return np.array(values, dtype=np.int64 if confidential else float)


_RELEASE_FIELDS = ("value", "mechanism", "epsilon", "delta", "sensitivity", "n", "kind")


def _releases_from_file(path):
    """The Releases in a file written by ``dpinfer release --format json`` or ``--format csv``.

    JSON holds one release (an object) or several (a list of objects); CSV holds one
    release per row under the header ``value,mechanism,epsilon,...``.
    """
    try:
        if path == "-":
            text = sys.stdin.read(_MAX_RELEASE_CHARS + 1)
        else:
            with open(path, encoding="utf-8-sig") as handle:
                text = handle.read(_MAX_RELEASE_CHARS + 1)
    except OSError as exc:
        raise _UsageError(f"cannot read release file {path!r}: {exc.strerror}.") from exc
    except UnicodeDecodeError as exc:
        raise _UsageError(f"release file {path!r} is not UTF-8 text ({exc.reason}).") from exc
    if len(text) > _MAX_RELEASE_CHARS:
        raise _UsageError(
            f"release file {path!r} is longer than {_MAX_RELEASE_CHARS:_} characters; a release "
            "written by 'dpinfer release --format json' is a few hundred."
        )
    if text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _UsageError(f"release file {path!r} is not JSON ({exc.msg}, line {exc.lineno}).") from exc
        except RecursionError as exc:
            raise _UsageError(f"release file {path!r} nests JSON too deeply to be a release.") from exc
        rows = data if isinstance(data, list) and data else [data]
    else:
        reader = csv.DictReader(io.StringIO(text))
        try:
            if reader.fieldnames is None or "value" not in reader.fieldnames:
                raise _UsageError(
                    f"release file {path!r} is neither JSON nor the CSV that 'dpinfer release "
                    "--format csv' writes (a header starting value,mechanism,epsilon,...)."
                )
            rows = [_typed_csv_row(row, path, i) for i, row in enumerate(reader, start=1)]
        except csv.Error as exc:
            raise _UsageError(f"release file {path!r} cannot be read as CSV: {exc}.") from exc
        if not rows:
            raise _UsageError(f"release file {path!r} has a header but no releases.")
    return [_release_from_record(row, path) for row in rows]


def _typed_csv_row(row, path, line):
    """A CSV row of a release with its numbers and flags converted from text."""
    out = dict(row)
    for key, kind in (("value", float), ("epsilon", float), ("delta", float),
                      ("sensitivity", float), ("n", int)):
        if out.get(key) not in (None, ""):
            try:
                out[key] = kind(out[key])
            except ValueError as exc:
                raise _UsageError(
                    f"release file {path!r}, release {line}: {key} must be a number; got {out[key]!r}."
                ) from exc
    if "secure" in out:
        out["secure"] = str(out["secure"]).strip().lower() == "true"
    return {k: v for k, v in out.items() if v != ""}


def _release_from_record(data, path):
    """A Release from one JSON object / CSV row written by ``dpinfer release``."""
    from ._validation import _check_delta, _check_epsilon, _check_int, _check_positive, _check_real
    from .releasers.release import Release

    missing = [k for k in _RELEASE_FIELDS if not isinstance(data, dict) or k not in data]
    if missing:
        raise _UsageError(
            f"release file {path!r} lacks {', '.join(missing)}; write it with "
            "'dpinfer release --format json' (or --format csv)."
        )
    if isinstance(data, dict) and data.get("kind") == "table":
        return _table_release_from_record(data, path)
    if not isinstance(data["value"], (int, float)) or isinstance(data["value"], bool):
        raise _UsageError(f"release file {path!r} must hold one numeric value per release; got {data['value']!r}.")
    if not isinstance(data["mechanism"], str) or not isinstance(data["kind"], str):
        raise _UsageError(f"release file {path!r}: mechanism and kind must be strings.")
    where = f"in release file {path}"
    return Release(
        _check_real(data["value"], f"value {where}"), data["mechanism"],
        _check_epsilon(data["epsilon"], f"epsilon {where}"), _check_delta(data["delta"], f"delta {where}"),
        _check_positive(data["sensitivity"], f"sensitivity {where}"),
        _check_int(data["n"], f"n {where}", minimum=1), data["kind"],
        secure=bool(data.get("secure", False)),
    )


def _table_release_from_record(data, path):
    """A Release of kind 'table' from the JSON that 'dpinfer release --table' writes."""
    import numpy as np

    from ._validation import _check_epsilon, _check_int, _check_positive
    from .releasers.release import Release

    value = data["value"]
    rows = value if isinstance(value, list) and all(isinstance(row, list) for row in value) else None
    ok = (rows is not None and len(rows) >= 2 and len({len(row) for row in rows}) == 1 and len(rows[0]) >= 2
          and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                  for row in rows for v in row))
    if not ok:
        raise _UsageError(f"release file {path!r}: a release of kind 'table' must hold its value as a list "
                          "of at least 2 rows of at least 2 finite numbers each, all rows as long.")
    if data["mechanism"] != "laplace" or data["delta"] != 0:
        raise _UsageError(f"release file {path!r}: a release of kind 'table' must be a Laplace release "
                          "with delta 0 (as 'dpinfer release --table' writes).")
    where = f"in release file {path}"
    return Release(
        np.array(rows, dtype=float), "laplace", _check_epsilon(data["epsilon"], f"epsilon {where}"), 0.0,
        _check_positive(data["sensitivity"], f"sensitivity {where}"),
        None if data["n"] is None else _check_int(data["n"], f"n {where}", minimum=1), "table",
        secure=bool(data.get("secure", False)),
    )


def _releases_from_args(args, loaded=None):
    """The releases a test/ci command is about: --release FILE, or --value V [V ...] --n --epsilon.

    ``loaded``: the releases of --release FILE when the caller has read it already.
    """
    from .inference._command import release_from_numbers as _release_from_numbers

    typed = {"--value": args.value, "--n": args.n, "--epsilon": args.epsilon}
    if args.release is not None:
        repeated = [k for k, v in typed.items() if v is not None]
        if args.delta is not None:
            repeated.append("--delta")
        if args.sensitivity is not None:
            repeated.append("--sensitivity")
        if repeated:
            raise _UsageError(
                f"{', '.join(repeated)} must not be given with --release: the release file "
                "records its value, n, epsilon, delta and sensitivity."
            )
        releases = loaded if loaded is not None else _releases_from_file(args.release)
        for release in releases:
            if release.kind == "proportion" and args.method in ("normal", "jimi"):
                _check_file_scale(release, args.release, args.method)
    else:
        missing = [k for k, v in typed.items() if v is None]
        if missing:
            raise _UsageError(
                f"give --release FILE, or all of --value, --n and --epsilon (missing {', '.join(missing)})."
            )
        for value in args.value:
            _check_typed_scale(value, args.n, args.epsilon, args.method)
        if args.sensitivity is not None and args.method != "ump":
            raise _UsageError(f"--sensitivity applies to --method ump (a Tulap count) only; got "
                              f"--method {args.method}.")
        releases = [_release_from_numbers(v, args.n, method=args.method, epsilon=args.epsilon,
                                          delta=0.0 if args.delta is None else args.delta,
                                          sensitivity=1 if args.sensitivity is None else args.sensitivity)
                    for v in args.value]
    for release in releases:
        _check_cli_release(release, args.method)
    return releases


def _check_typed_scale(value, n, epsilon, method):
    """Catch a count typed where a proportion belongs, or (a warning) the reverse."""
    from ._validation import _SCALE_GUARD

    if not (math.isfinite(value) and isinstance(n, int) and n >= 1 and epsilon and epsilon > 0):
        return  # the method's own checks name the bad argument
    if method in ("normal", "jimi"):
        margin = _SCALE_GUARD / (epsilon * n)
        if value < -margin or value > 1.0 + margin:
            raise _UsageError(
                f"--value {value:g} cannot be a Laplace-noised proportion with --n {n} and "
                f"--epsilon {epsilon:g} (it lies more than {_SCALE_GUARD:g} noise scales outside "
                f"[0, 1]); --method {method} reads --value as a proportion: for a count of about "
                f"{value:g}, give --value {value / n:.4g} (the count divided by --n)."
            )
    elif 0.0 < value < 1.0 and n >= 5:
        warnings.warn(
            f"--value {value:g} is read as a noisy count (--method ump takes the Tulap-noised "
            f"count, about {value:g} of {n} records); if {value:g} is a proportion, give "
            f"--value {value * n:.4g} (the proportion times --n).", stacklevel=2)


def _check_file_scale(release, path, method):
    """A release file whose 'proportion' could only be a count is refused (see _check_typed_scale)."""
    from ._validation import _SCALE_GUARD

    value, n, epsilon = release.value, release.n, release.epsilon
    margin = _SCALE_GUARD / (epsilon * n)
    if value < -margin or value > 1.0 + margin:
        raise _UsageError(
            f"release file {path!r} records a proportion of {value:g} with n = {n} and epsilon = "
            f"{epsilon:g}, more than {_SCALE_GUARD:g} noise scales outside [0, 1]: it cannot be a "
            f"Laplace-noised proportion (--method {method}). If it is a noisy count, release it "
            "with 'dpinfer release --mechanism laplace --kind count'."
        )


_NEEDS = {
    "ump": "a Tulap-noised count ('dpinfer release --mechanism tulap')",
    "normal": "a Laplace-noised proportion or count ('dpinfer release --mechanism laplace')",
    "jimi": "a Laplace-noised proportion or count ('dpinfer release --mechanism laplace')",
}


def _check_cli_release(release, method):
    """The release fits --method; otherwise say which --method fits it, in command terms."""
    from .inference._command import METHODS as _METHODS

    if release.kind == "table":
        raise _UsageError("a release of kind 'table' is tested with 'dpinfer test' (a test of "
                          "independence, --method jimi or mc); it has no interval for a proportion.")
    pair = (release.mechanism, release.kind)
    if pair in _METHODS[method][0]:
        return
    fits = [m for m, (accepted, _) in _METHODS.items() if pair in accepted]
    hint = (" Use " + " or ".join(f"--method {m}" for m in fits) + " for this release."
            if fits else "")
    raise _UsageError(
        f"--method {method} needs {_NEEDS[method]}; the release is a {release.mechanism} "
        f"{release.kind}: each method inverts one noise law, any other gives p-values of the "
        f"wrong size.{hint}"
    )


# --------------------------------------------------------------------------- output
def _emit(fmt, text, records, *, as_list=False):
    """Print ``text`` (format text) or ``records`` (a list of flat dicts) as JSON/CSV.

    JSON is one object for a single record, unless ``as_list`` (commands whose
    output is a table, such as ``power`` and ``demo``, always give a list).
    """
    if fmt == "text":
        print(text)
    elif fmt in ("json", "htest-json"):
        print(json.dumps(records[0] if len(records) == 1 and not as_list else records, indent=2))
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in records)
        print(buffer.getvalue(), end="")


def _fmt(value, digits=7):
    from .results import _r_format

    return _r_format([value], digits)[0].strip()


# --------------------------------------------------------------------------- commands
def _seeded_warning(seed):
    print(f"dpinfer: warning: --seed {seed} makes the noise reproducible; anyone who knows the seed "
          "can remove it. Use seeds for research and demos only, never for a real release.",
          file=sys.stderr)


def _cmd_release(args):
    from . import LaplaceReleaser, TulapReleaser

    if args.table is not None:
        return _release_table(args)
    for flag, value in (("--neighbours", args.neighbours), ("--margins", args.margins)):
        if value is not None:
            raise _UsageError(f"{flag} applies to --table only (a contingency table release).")
    args.mechanism = args.mechanism or "tulap"
    args.kind = args.kind or "proportion"
    if args.csv is not None:
        if args.x is not None or args.n is not None:
            raise _UsageError("give either --csv/--column or --x/--n, not both.")
        if args.column is None:
            raise _UsageError("--csv needs --column NAME (the 0/1 column to count).")
        x, n = _counts_from_csv(args.csv, args.column)
    else:
        if args.x is None or args.n is None:
            raise _UsageError("give the confidential count as --x X --n N, or --csv FILE --column NAME.")
        x, n = args.x, args.n
    secure = args.seed is None
    if not secure:
        _seeded_warning(args.seed)
    rng = None if secure else args.seed
    with _budget_session(args) as ledger:
        budget = ledger.with_label(args.label) if ledger is not None and args.label else ledger
        if args.mechanism == "tulap":
            release = TulapReleaser(args.epsilon, args.delta, args.sensitivity).release(
                x, n, rng=rng, secure=secure, budget=budget)
        else:
            if args.sensitivity != 1:
                raise _UsageError(f"--sensitivity applies to --mechanism tulap only; got {args.sensitivity}.")
            if args.delta != 0.0:
                raise _UsageError(f"--delta must be 0 for the Laplace mechanism (pure epsilon-DP); got {args.delta:g}.")
            releaser = LaplaceReleaser(args.epsilon)
            make = releaser.proportion if args.kind == "proportion" else releaser.count
            release = make(x, n, rng=rng, secure=secure, budget=budget)
    _emit(args.format, str(release), [release.to_dict()])
    if ledger is not None and args.format == "text":
        print(f"{ledger.summary()}; ledger {args.budget}")
    return EXIT_OK


def _release_table(args):
    """``dpinfer release --table COUNTS.csv``: Laplace noise on every cell (ContingencyTableReleaser)."""
    from . import ContingencyTableReleaser

    given = [flag for flag, value in (("--x", args.x), ("--n", args.n), ("--csv", args.csv),
                                      ("--column", args.column), ("--kind", args.kind)) if value is not None]
    if args.mechanism not in (None, "laplace"):
        given.append(f"--mechanism {args.mechanism}")
    if args.delta != 0.0:
        given.append("--delta")
    if args.sensitivity != 1:
        given.append("--sensitivity")
    if given:
        raise _UsageError(f"{', '.join(given)} must not be given with --table: a table is released with "
                          "Laplace noise on every cell, its sensitivity set by --neighbours.")
    if args.format == "csv":
        raise _UsageError("--format csv writes one release per row and cannot hold a table; use "
                          "--format json (what 'dpinfer test --release' reads) or text.")
    releaser = ContingencyTableReleaser(args.epsilon, neighbours=args.neighbours or "replace-one",
                                        margins=args.margins or ("private" if args.neighbours == "add-remove"
                                                                 else "total"))
    counts = _table_from_csv(args.table, confidential=True)
    secure = args.seed is None
    if not secure:
        _seeded_warning(args.seed)
    with _budget_session(args) as ledger:
        budget = ledger.with_label(args.label) if ledger is not None and args.label else ledger
        release = releaser.release(counts, rng=None if secure else args.seed, secure=secure, budget=budget)
    cells = "\n".join("  " + "  ".join(f"{v:>12.6g}" for v in row) for row in release.value)
    _emit(args.format, f"{release}\n  noisy cells:\n{cells}", [release.to_dict()])
    if ledger is not None and args.format == "text":
        print(f"{ledger.summary()}; ledger {args.budget}")
    return EXIT_OK


def _budget_session(args):
    """The ledger file of ``release --budget FILE``, locked for this invocation (or no budget)."""
    import contextlib

    totals = {"--total-epsilon": args.total_epsilon, "--total-delta": args.total_delta, "--label": args.label}
    if args.budget is None:
        given = [flag for flag, value in totals.items() if value is not None]
        if given:
            raise _UsageError(f"{', '.join(given)} need{'s' if len(given) == 1 else ''} --budget FILE "
                              "(the ledger to charge).")
        return contextlib.nullcontext(None)
    from ._ledger_file import locked_budget

    return locked_budget(args.budget, total_epsilon=args.total_epsilon, total_delta=args.total_delta)


def _cmd_budget(args):
    from ._ledger_file import read_budget

    budget = read_budget(args.file)
    if args.format == "json":
        print(budget.to_json(), end="")
    else:
        print(budget)
    return EXIT_OK


def _cmd_test(args):
    from .inference.prop import prop_test

    loaded = None
    if args.table is not None:
        return _test_tables(args, [_typed_table_release(args)], typed=True)
    if args.release is not None:
        loaded = _releases_from_file(args.release)
        tables = [rel.kind == "table" for rel in loaded]
        if any(tables):
            if not all(tables):
                raise _UsageError(f"release file {args.release!r} mixes tables and single values; "
                                  "test them from separate files.")
            return _test_tables(args, loaded, typed=False)
    args.method = _scalar_method(args)
    releases = _releases_from_args(args, loaded)
    options = _method_options(args)
    results = [prop_test(rel, args.p0, method=args.method, alternative=args.alternative,
                         confidence_level=args.confidence_level, **options)
               for rel in releases]
    if args.release is None:
        # Typed numbers are not a Release: as in Python, no sampling path or unit is claimed.
        results = [dataclasses.replace(r, secure=None, privacy_unit="") for r in results]
    text = "\n\n".join(str(r).strip("\n") for r in results)
    if args.format == "htest-json":
        records = [r.to_htest() for r in results]
    else:
        records = [r.to_dict() for r in results]
    _emit(args.format, text, records, as_list=len(records) > 1)
    return EXIT_OK


def _scalar_method(args):
    """--method for a single released value: 'ump' by default; 'mc' is for tables only."""
    if args.method == "mc":
        raise _UsageError("--method mc (Gaboardi et al.'s Monte Carlo test) applies to a table "
                          "(--table FILE or a release of kind 'table') only.")
    return args.method or "ump"


def _typed_table_release(args):
    """A Release of kind 'table' from --table NOISY.csv and the public facts typed with it."""
    from .releasers.release import Release

    given = [flag for flag, value in (("--release", args.release), ("--value", args.value),
                                      ("--delta", args.delta), ("--sensitivity", args.sensitivity))
             if value is not None]
    if given:
        raise _UsageError(f"{', '.join(given)} must not be given with --table: the table's noise is "
                          "Laplace (delta 0) with the sensitivity set by --neighbours.")
    if args.epsilon is None:
        raise _UsageError("--table needs --epsilon (the epsilon the table was released with).")
    neighbours = args.neighbours or "replace-one"
    if neighbours == "add-remove" and args.n is not None:
        raise _UsageError("--n must not be given with --neighbours add-remove: under add/remove the "
                          "total is private (leave --n out).")
    table = _table_from_csv(args.table, confidential=False)
    sensitivity = 2.0 if neighbours == "replace-one" else 1.0
    return Release(table, "laplace", args.epsilon, 0.0, sensitivity, args.n, "table")


def _test_tables(args, releases, *, typed):
    """'dpinfer test' on tables: the test of independence (DP-JIMI by default, --method mc)."""
    from .inference.prop import prop_test

    if args.method in ("ump", "normal"):
        raise _UsageError(f"--method {args.method} tests one proportion; a table is tested for independence "
                          "with --method jimi (DP-JIMI, the default) or --method mc (Gaboardi et al. 2016).")
    if args.table is None and args.neighbours is not None:
        raise _UsageError("--neighbours applies to --table only: a release file records the sensitivity.")
    ignored = [flag for flag, bad in (("--p0", args.p0 != 0.5), ("--alternative", args.alternative != "two-sided"),
                                      ("--confidence-level", args.confidence_level != 0.95),
                                      ("--two-sided-method", args.two_sided_method is not None)) if bad]
    if ignored:
        raise _UsageError(f"{', '.join(ignored)} do{'es' if len(ignored) == 1 else ''} not apply to a test of "
                          "independence (no null proportion, no interval; large statistics are the evidence).")
    method = args.method or "jimi"
    results = [prop_test(rel, method=method, n_sim=args.n_sim, rng=args.seed) for rel in releases]
    if typed:  # numbers typed in are not a Release: no sampling path or unit is claimed
        results = [dataclasses.replace(r, secure=None, privacy_unit="") for r in results]
    text = "\n\n".join(str(r).strip("\n") for r in results)
    records = [r.to_htest() if args.format == "htest-json" else r.to_dict() for r in results]
    _emit(args.format, text, records, as_list=len(records) > 1)
    return EXIT_OK


def _method_options(args):
    if args.two_sided_method is not None:
        if args.method != "ump":
            raise _UsageError(f"--two-sided-method applies to --method ump only; got --method {args.method}.")
        return {"two_sided_method": args.two_sided_method}
    if args.method != "jimi":
        if args.n_sim is not None or args.seed is not None:
            raise _UsageError(f"--n-sim and --seed apply to --method jimi only (method {args.method} draws nothing).")
        return {}
    if args.seed is not None and args.n_sim is None:
        raise _UsageError("--seed needs --n-sim: the default exact DP-JIMI limit draws nothing.")
    return {"n_sim": args.n_sim, "rng": args.seed}


_METHOD_NAMES = {
    "ump": "DP-UMP interval (Tulap release)",
    "normal": "Normal-approximation interval (Laplace release)",
    "jimi": "DP-JIMI interval (Laplace release)",
}


def _cmd_ci(args):
    if args.format == "htest-json":
        raise _UsageError("--format htest-json applies to 'dpinfer test' (an interval alone is "
                          "not an htest); use --format json.")
    args.method = _scalar_method(args)
    releases = _releases_from_args(args)
    options = dict(confidence_level=args.confidence_level, alternative=args.alternative)
    if args.interval is not None and args.method != "normal":
        raise _UsageError(f"--interval applies to --method normal only; got --method {args.method}.")
    if args.method == "ump":
        from .inference.ump import binom_ump_ci as ci_func

        options.update(_method_options(args))
    elif args.method == "normal":
        from .inference.normal import binom_normal_ci as ci_func

        options["method"] = args.interval or "score"
    else:
        from .inference.jimi import binom_jimi_ci as ci_func

        options.update(_method_options(args))
    name = _METHOD_NAMES[args.method]
    if args.method == "ump" and releases and releases[0].sensitivity != 1:
        name = name[:-1] + f", sensitivity {releases[0].sensitivity:g})"
    if args.method == "normal":
        name = name.replace("Normal-approximation", f"Normal-approximation ({options['method']})")
    records, texts = [], []
    for release in releases:
        ci = ci_func(release, **options)
        records.append({
            "method": name, "alternative": args.alternative,
            **ci.to_dict(), "value": release.value, "n": release.n,
            "epsilon": release.epsilon, "delta": release.delta, "mechanism": release.mechanism,
            "secure": release.secure,
        })
        texts.append(f"{name}, {args.alternative}\n"
                     f"data:  released value = {_fmt(release.value)}, n = {release.n}\n{ci}\n"
                     f"privacy: epsilon = {_fmt(release.epsilon)}, delta = {_fmt(release.delta)}")
    _emit(args.format, "\n\n".join(texts), records, as_list=len(records) > 1)
    return EXIT_OK


def _cmd_power(args):
    import numpy as np

    if args.method == "ump":
        from .inference.ump import binom_ump_power

        power = binom_ump_power(np.asarray(args.theta), args.n, args.p0, epsilon=args.epsilon,
                                delta=args.delta, alpha=args.alpha, alternative=args.alternative,
                                sensitivity=args.sensitivity)
    else:
        if args.sensitivity != 1:
            raise _UsageError(f"--sensitivity applies to --method ump only; got {args.sensitivity}.")
        if args.delta != 0.0:
            raise _UsageError(f"--delta must be 0 for --method normal (Laplace noise); got {args.delta:g}.")
        from .inference.normal import binom_normal_power

        power = binom_normal_power(np.asarray(args.theta), args.n, args.p0, epsilon=args.epsilon,
                                   alpha=args.alpha, alternative=args.alternative)
        size = float(binom_normal_power(args.p0, args.n, args.p0, epsilon=args.epsilon,
                                        alpha=args.alpha, alternative=args.alternative))
    power = np.atleast_1d(np.asarray(power, dtype=float))
    records = [
        {"theta": float(t), "power": float(p), "n": args.n, "p0": args.p0, "alpha": args.alpha,
         "alternative": args.alternative, "epsilon": args.epsilon, "delta": args.delta,
         "sensitivity": args.sensitivity, "method": args.method}
        for t, p in zip(args.theta, power)
    ]
    name = {"ump": "DP-UMP test (Tulap release)", "normal": "normal-approximation test (Laplace release)"}
    lines = [f"Exact power of the {name[args.method]}",
             f"n = {args.n}, p0 = {_fmt(args.p0)}, alpha = {_fmt(args.alpha)}, "
             f"alternative = {args.alternative}, epsilon = {_fmt(args.epsilon)}, delta = {_fmt(args.delta)}"
             + (f", sensitivity = {args.sensitivity}" if args.sensitivity != 1 else ""),
             "", f"{'theta':>10} {'power':>10}"]
    lines += [f"{_fmt(r['theta']):>10} {_fmt(r['power'], 4):>10}" for r in records]
    if args.method == "normal":
        lines += ["", f"exact size (power at theta = p0): {_fmt(size, 4)}"]
        if size > args.alpha:
            from ._warnings import ApproximationWarning

            note = (f"the normal-approximation test's exact size is {_fmt(size, 4)}, above alpha = "
                    f"{_fmt(args.alpha)}: part of its power comes from rejecting true nulls too often, "
                    "so do not compare it with DP-UMP's power at this alpha.")
            lines.append("note: " + note)
            warnings.warn(note, ApproximationWarning, stacklevel=2)
    _emit(args.format, "\n".join(lines), records, as_list=True)
    return EXIT_OK


def _cmd_sample_size(args):
    from .inference.ump import binom_ump_sample_size

    n = binom_ump_sample_size(args.theta1, args.p0, epsilon=args.epsilon, delta=args.delta,
                              alpha=args.alpha, power=args.power, alternative=args.alternative,
                              sensitivity=args.sensitivity)
    record = {"n": int(n), "theta1": args.theta1, "p0": args.p0, "alpha": args.alpha,
              "power": args.power, "alternative": args.alternative, "epsilon": args.epsilon,
              "delta": args.delta, "sensitivity": args.sensitivity, "method": "ump"}
    text = (f"Sample size for the DP-UMP test (Tulap release)\n"
            f"p0 = {_fmt(args.p0)}, theta1 = {_fmt(args.theta1)}, alpha = {_fmt(args.alpha)}, "
            f"power = {_fmt(args.power)}, alternative = {args.alternative}, "
            f"epsilon = {_fmt(args.epsilon)}, delta = {_fmt(args.delta)}"
            + (f", sensitivity = {args.sensitivity}" if args.sensitivity != 1 else "")
            + f"\n\nn = {int(n)}")
    _emit(args.format, text, [record])
    return EXIT_OK


def _validation_dir():
    """The ``validation/`` folder of the source checkout the package is installed from."""
    return Path(__file__).resolve().parent.parent / "validation"


def _studies(folder):
    return sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_") and p.stem != "harness")


def _cmd_validate(args):
    folder = _validation_dir()
    if not (folder / "harness.py").is_file():
        raise _UsageError(
            f"no validation studies at {folder}: 'dpinfer validate' needs a source checkout "
            "installed with 'pip install -e .'."
        )
    studies = _studies(folder)
    if args.list:
        print("\n".join(studies) if studies else "(no studies found)")
        return EXIT_OK
    if args.study is None:
        raise _UsageError(f"name a study to run; available: {', '.join(studies) or 'none'}.")
    if args.study not in studies and f"{args.study}_study" in studies:
        args.study = f"{args.study}_study"  # the README's study NAME (robust -> robust_study.py)
    if args.study not in studies:
        raise _UsageError(f"unknown study {args.study!r}; available: {', '.join(studies) or 'none'}.")
    root = str(folder.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    module = importlib.import_module(f"validation.{args.study}")
    code = module.main(args.study_args)
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return int(code)
    # A study's main returns an exit status, as a script's would (None means 0);
    # anything else is a bug of the study, not a problem with the user's input.
    print(f"dpinfer validate: internal error: study {args.study!r} returned a "
          f"{type(code).__name__} from main(), not an exit status (None or an int); "
          "its results may have been written.", file=sys.stderr)
    return EXIT_INTERNAL


def _cmd_demo(args):
    import numpy as np

    from . import LaplaceReleaser, PrivacyBudget, TulapReleaser, load_example_trial
    from .inference.jimi import binom_jimi_test
    from .inference.normal import binom_normal_test
    from .inference.ump import binom_ump_test

    trial = load_example_trial()
    tulap_seed, laplace_seed = np.random.SeedSequence(args.seed).spawn(2)
    budget = PrivacyBudget(2 * args.epsilon, args.delta, description="embedded example trial (synthetic)")
    tulap = TulapReleaser(args.epsilon, args.delta).release(trial.responders, trial.n, rng=tulap_seed,
                                                             budget=budget)
    laplace = LaplaceReleaser(args.epsilon).proportion(trial.responders, trial.n, rng=laplace_seed,
                                                       budget=budget)
    level = args.confidence_level
    # The trial's question is one-sided (does the response rate beat the historical
    # 20%?), so every test is H0: theta <= p0 against theta > p0.
    alt = "greater"
    results = [
        binom_ump_test(tulap, trial.p0, alternative=alt, confidence_level=level),
        binom_normal_test(laplace, trial.p0, alternative=alt, confidence_level=level),
        binom_jimi_test(laplace, trial.p0, alternative=alt, confidence_level=level),
    ]
    labels = [("DP-UMP", "Tulap", f"z = {_fmt(tulap.value, 4)}"),
              ("Normal approximation", "Laplace", f"pi_hat = {_fmt(laplace.value, 4)}"),
              ("DP-JIMI (exact limit)", "Laplace", f"pi_hat = {_fmt(laplace.value, 4)}")]
    if args.format != "text":
        records = [{"label": lab, **r.to_dict()} for (lab, _, _), r in zip(labels, results)]
        _emit(args.format, "", records, as_list=True)
        return EXIT_OK
    pct = _fmt(100 * level)
    out = [
        *textwrap.wrap(trial.description, width=88),
        f"Confidential data: {trial.responders} responders out of n = {trial.n}; "
        f"Question: does the response rate exceed the historical {_fmt(trial.p0)}? "
        f"H0: rate <= {_fmt(trial.p0)} against H1: rate > {_fmt(trial.p0)} (one-sided).",
        f"Noise seeded with {args.seed} because the data are synthetic; never seed a real release.",
        "",
        f"== 1. Tulap release of the count (epsilon = {_fmt(args.epsilon)}, delta = {_fmt(args.delta)}) ==",
        str(tulap), str(results[0]).rstrip("\n"), "",
        f"== 2. Laplace release of the proportion (epsilon = {_fmt(args.epsilon)}) ==",
        str(laplace), str(results[1]).rstrip("\n"), str(results[2]).rstrip("\n"), "",
        f"== Side by side: one-sided tests of H0: rate <= {_fmt(trial.p0)}, {pct}% lower bounds ==",
    ]
    rows = [(lab, rel, _fmt(r.pvalue, 4), f"[{r.conf_int.low:.4f}, {r.conf_int.high:.4f}]")
            for (lab, _, rel), r in zip(labels, results)]
    header = ("method", "release", "p-value", f"{pct}% CI (one-sided)")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    out += ["", f"Each release spends epsilon = {_fmt(args.epsilon)}; the two together spend "
            f"{_fmt(2 * args.epsilon)} (basic composition). A real analysis makes one release.",
            budget.summary()]
    print("\n".join(out))
    return EXIT_OK


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
    from . import __version__

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
    led.add_argument("--label", metavar="TEXT", help="what the release is, for the ledger (no confidential values)")
    rel.set_defaults(func=_cmd_release)

    bud = add("budget", "print a privacy-budget ledger file",
              "Print the ledger kept by 'dpinfer release --budget FILE': the totals, what is\n"
              "spent and remains, and one line per charge.", parents=())
    bud.add_argument("file", metavar="FILE", help="the ledger file")
    bud.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or the JSON file")
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
    except (_UsageError, TypeError, ValueError) as exc:
        print(f"{prog}: error: {_cli_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    for w in caught:
        print(f"{prog}: warning: {_cli_message(w.message)}", file=sys.stderr)
    return code


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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
