"""Input of the ``dpinfer`` command: confidential CSV files, release files, typed numbers.

Every reader here bounds what it reads (lines, files, digits) before parsing, and its
errors (:class:`_UsageError`, exit status 2) name a file's line and column, never a
confidential value.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import sys

from .._json import strict_loads

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE = 0, 1, 2


class _UsageError(Exception):
    """Bad input found by the command itself (exit status 2)."""


#: Longest line read from a CSV file, and largest release file: inputs beyond these
#: (a binary file, /dev/zero) are refused after reading this much, never read whole.
_MAX_LINE_CHARS = 1 << 20
_MAX_RELEASE_CHARS = 1 << 20


# --------------------------------------------------------------------------- input
def _counts_from_csv(path, column, rows=None):
    """(x, n): the number of 1s in ``column`` of the CSV file and its number of rows.

    Accepts 0/1 and R's TRUE/FALSE; anything else (including an empty cell) is an
    error naming the row, because dropping or guessing a value would change n.
    ``rows``: another reader of the column (``rows(csv_reader, path, column)``),
    e.g. the numeric values of ``dpinfer mean-release``.
    """
    rows = _count_rows if rows is None else rows
    try:
        handle = sys.stdin if path == "-" else open(path, newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise _UsageError(f"cannot read CSV file {path!r}: {exc.strerror}.") from exc
    with handle:
        try:
            return rows(csv.reader(_bounded_lines(handle, path)), path, column)
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
    """(x, n) from a csv.reader over a CSV file (see _counts_from_csv)."""
    x = n = 0
    for n, cell in _column_cells(reader, path, column):
        if cell in ("1", "1.0") or cell.upper() == "TRUE":
            x += 1
        elif not (cell in ("0", "0.0") or cell.upper() == "FALSE"):
            # the cell is confidential: name its row, never its content
            raise _UsageError(
                f"column {column!r} must hold 0/1 (or TRUE/FALSE); data row {n} holds something "
                "else. Remove or recode it first: dropping rows changes n."
            )
    return x, n


def _column_cells(reader, path, column):
    """``(data row number, stripped cell)`` of ``column`` for each data row of a csv.reader.

    The first row is a header only when it can be told from data: none of its
    cells is empty, a number or TRUE/FALSE.  Otherwise the file has no header,
    every row is data (possibly confidential, so never shown), and its columns
    are named by position: ``--column 1`` is the first.  Blank lines are no
    record; a file without data rows is an error.
    """
    first = next(reader, None)
    if first is None:
        raise _UsageError(f"CSV file {path!r} is empty.")
    header = all(cell.strip() and not _looks_like_value(cell) for cell in first)
    names = first if header else [str(j) for j in range(1, len(first) + 1)]
    if column not in names:
        hint = _delimiter_hint(first)
        if hint:  # one cell holding semicolons or tabs: a header cannot be told from data, so nothing is shown
            shown = hint.lstrip()
        elif header:
            shown = f"its columns are {', '.join(map(repr, names))}."
        else:  # the first row is data: name the columns by position, never by their (confidential) cells
            shown = (f"its first row holds values, so it has no header row and its {len(names)} columns are "
                     f"named by position: --column 1 to --column {len(names)}.")
        raise _UsageError(f"column {column!r} not found in {path!r}; {shown}")
    if names.count(column) > 1:
        raise _UsageError(f"column {column!r} is named {names.count(column)} times in the header of {path!r}; "
                          "rename the columns so that --column picks one.")
    at = names.index(column)
    n = 0
    for row in (reader if header else _chain_first(first, reader)):
        if not row:  # a blank line is no record (as csv.DictReader skips it)
            continue
        n += 1
        if len(row) != len(names):  # a ragged row: its cells cannot be matched to the columns (never shown)
            raise _UsageError(f"CSV file {path!r}: data row {n} has {len(row)} cells and the "
                              f"{'header' if header else 'first row'} has {len(names)}; every row must have "
                              "as many (ragged rows).")
        yield n, row[at].strip()
    if n == 0:
        raise _UsageError(f"CSV file {path!r} has a header but no data rows.")


def _looks_like_value(cell):
    """True when a CSV cell reads as data (a number, or R's TRUE/FALSE/NA), not as a column name."""
    text = cell.strip()
    if text.upper() in ("TRUE", "FALSE", "NA", "T", "F"):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def _chain_first(first, reader):
    yield first
    yield from reader


def _delimiter_hint(cells):
    """A hint when a CSV row read with commas is one cell holding semicolons or tabs.

    The hint never quotes the row: it may be data rather than a header.
    """
    if len(cells) != 1:
        return ""
    for mark, name in ((";", "semicolon"), ("\t", "tab")):
        if mark in cells[0]:
            return (f" The file looks {name}-separated (as spreadsheets write it in some locales); "
                    "dpinfer reads comma-separated files: save it as CSV with commas (in R, "
                    "write.csv).")
    return ""


# --------------------------------------------------------------------------- tables
#: Largest table CSV file read (characters); a table of counts is a few hundred.
_MAX_TABLE_CHARS = 1 << 20
#: Most digits of a confidential count (the releaser clips cells at 2**40, 13 digits).
_MAX_COUNT_DIGITS = 15
_WHOLE = re.compile(r"\+?[0-9]+")


def _table_from_csv(path, *, confidential, with_names=False):
    """The r x c table in a CSV file: counts (``confidential``) or released noisy cells.

    With ``with_names``, ``(table, row_names, column_names)``: the labels of the header
    row and the row-name column, each None when the file has none.

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
    if len(first) == 1 and _delimiter_hint(first) and not number(first[0]):
        raise _UsageError(f"{what} file {path!r} has one column only.{_delimiter_hint(first)}")
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

    table = np.array(values, dtype=np.int64 if confidential else float)
    if not with_names:
        return table
    row_names = [row[0] for _, row in data] if names else None
    column_names = (first[start:] if len(first) == width else first) if header else None
    return table, row_names, column_names


_RELEASE_FIELDS = ("value", "mechanism", "epsilon", "delta", "sensitivity", "n", "kind")


def _releases_from_file(path, *, labels=False):
    """The Releases in a file written by ``dpinfer release --format json`` or ``--format csv``.

    JSON holds one release (an object) or several (a list of objects); CSV holds one
    release per row under the header ``value,mechanism,epsilon,...``.  With
    ``labels``, ``(releases, labels)``: for each release, the ``(row_names,
    column_names)`` a table release records (see :func:`_table_labels`).
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
            data = strict_loads(text)
        except json.JSONDecodeError as exc:
            raise _UsageError(f"release file {path!r} is not JSON ({exc.msg}, line {exc.lineno}).") from exc
        except ValueError as exc:  # a key twice in one object: which value holds?
            raise _UsageError(f"release file {path!r} holds a {exc} in one object; each key may appear once "
                              "(a hand edit?). Write it with 'dpinfer release --format json'.") from exc
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
    releases = [_release_from_record(row, path) for row in rows]
    for release in releases:
        _check_producible(release, path)
    if not labels:
        return releases
    return releases, [_table_labels(row, release, path) for row, release in zip(rows, releases)]


def _table_labels(record, release, path):
    """(row_names, column_names) of a table release record: lists of r and c strings, or None."""
    out = []
    for key, size in (("row_names", 0), ("column_names", 1)):
        names = record.get(key) if release.kind == "table" else None
        if names is not None and not (isinstance(names, list) and all(isinstance(v, str) for v in names)
                                      and len(names) == release.value.shape[size]):
            raise _UsageError(f"release file {path!r}: {key} must be a list of {release.value.shape[size]} "
                              "strings (as 'dpinfer release --table' writes), or absent.")
        out.append(names)
    return tuple(out)


def _check_producible(release, path):
    """Refuse a release its mechanism cannot have produced (sensitivity, delta, n against the kind).

    What 'dpinfer release' (and the Python releasers) write: a Tulap count of integer
    sensitivity k; a Laplace count of sensitivity 1, proportion of sensitivity 1 / n and
    delta 0; a table of sensitivity 2 (replace-one) or 1 (add/remove, whose total is
    never published).  A hand-edited file outside these would be inverted with the
    wrong noise law.
    """
    pair, k, delta = (release.mechanism, release.kind), release.sensitivity, release.delta
    rule = None
    if pair == ("tulap", "count") and k != int(k):
        rule = "a Tulap count has a whole-number sensitivity k (TulapReleaser's `sensitivity`)"
    elif pair[0] == "laplace" and delta != 0.0:
        rule = "a Laplace release has delta 0"
    elif pair == ("laplace", "count") and k != 1.0:
        rule = "a Laplace count has sensitivity 1"
    elif pair == ("laplace", "proportion") and k != 1.0 / release.n:
        rule = f"a Laplace proportion of n = {release.n} records has sensitivity 1 / n = {1.0 / release.n!r}"
    elif pair[1] == "life_table" and (pair[0] != "tulap" or k != 2.0 or delta != 0.0):
        rule = "a life table is a Tulap release of sensitivity 2 and delta 0, as 'dpinfer survival-release' writes"
    elif pair == ("laplace", "table") and k not in (1.0, 2.0):
        rule = ("a table has sensitivity 2 (neighbours replace-one) or 1 (add-remove), as "
                "'dpinfer release --table' writes")
    elif pair == ("laplace", "table") and k == 1.0 and release.n is not None:
        rule = ("a table released under add-remove (sensitivity 1) has no public total n, as "
                "'dpinfer release --table --neighbours add-remove' writes null")
    if rule is None and pair == ("tulap", "count"):
        # the noise's tail beyond 700 k / epsilon counts is below e^-700: no count of 0..n gives such a release
        reach = 700.0 * k / release.epsilon + 1.0
        if not -reach <= float(release.value) <= release.n + reach:
            raise _UsageError(f"release file {path!r}: a Tulap count of n = {release.n} at epsilon "
                              f"{release.epsilon!r} (sensitivity {k!r}) lies in [{-reach:.6g}, "
                              f"{release.n + reach:.6g}] but with probability below 1e-300; its value cannot "
                              "have been released.")
    if rule is not None:
        raise _UsageError(
            f"release file {path!r} records a {release.mechanism} {release.kind} with sensitivity "
            f"{k!r}, delta {delta!r} and n {release.n!r}, which its mechanism cannot have produced: "
            f"{rule}. Write it with 'dpinfer release --format json' and do not edit it."
        )


#: the fields a release's CSV row may hold as a JSON list (how ``--format csv`` writes a list: the
#: pair of a clipped sum with its squares, the bounds and split, a life table's layout, the group)
_CSV_LIST_FIELDS = ("value", "bounds", "split", "breaks", "groups", "group_sizes", "disjoint")


def _typed_csv_row(row, path, line):
    """A CSV row of a release with its numbers, lists and flags converted from text."""
    out = dict(row)
    for key in _CSV_LIST_FIELDS:
        cell = out.get(key)
        if isinstance(cell, str) and cell.lstrip().startswith("["):
            try:
                out[key] = strict_loads(cell)
            except (ValueError, RecursionError) as exc:
                raise _UsageError(f"release file {path!r}, release {line}: {key} must be a number or the JSON list "
                                  "'dpinfer release --format csv' writes (e.g. [80.0, 180.0]); it is not.") from exc
    for key, kind in (("value", float), ("epsilon", float), ("delta", float),
                      ("sensitivity", float), ("n", int)):
        if out.get(key) not in (None, "") and not isinstance(out[key], list):
            try:
                out[key] = kind(out[key])
            except ValueError as exc:
                raise _UsageError(
                    f"release file {path!r}, release {line}: {key} must be a number; got {out[key]!r}."
                ) from exc
    if "secure" in out:
        word = str(out["secure"]).strip().lower()
        out["secure"] = {"true": True, "false": False}.get(word, out["secure"])
    if isinstance(out.get("disjoint"), str) and out["disjoint"] != "":
        raise _UsageError(f"release file {path!r}, release {line}: disjoint must be the JSON pair "
                          f"[\"scope\", \"group\"] 'dpinfer release' writes; got {out['disjoint']!r}.")
    return {k: v for k, v in out.items() if v != ""}


def _release_from_record(data, path):
    """A Release from one JSON object / CSV row written by ``dpinfer release``."""
    from .._validation import _check_delta, _check_epsilon, _check_int, _check_positive, _check_real
    from ..releasers.release import Release

    missing = [k for k in _RELEASE_FIELDS if not isinstance(data, dict) or k not in data]
    if missing:
        raise _UsageError(
            f"release file {path!r} lacks {', '.join(missing)}; write it with "
            "'dpinfer release --format json' (or --format csv)."
        )
    if isinstance(data, dict) and data.get("kind") == "table":
        return _table_release_from_record(data, path)
    if isinstance(data, dict) and data.get("kind") == "clipped_sum":
        return _clipped_release_from_record(data, path, _semantics(data, path))
    if isinstance(data, dict) and data.get("kind") == "life_table":
        return _life_table_release_from_record(data, path, _semantics(data, path))
    if isinstance(data, dict) and data.get("kind") == "paired":
        return _paired_release_from_record(data, path)
    if not isinstance(data["value"], (int, float)) or isinstance(data["value"], bool):
        raise _UsageError(f"release file {path!r} must hold one numeric value per release; got {data['value']!r}.")
    if not isinstance(data["mechanism"], str) or not isinstance(data["kind"], str):
        raise _UsageError(f"release file {path!r}: mechanism and kind must be strings.")
    if data.get("bounds") not in (None, ""):
        raise _UsageError(f"release file {path!r}: a {data['kind']} has no clipping bounds (only a clipped sum, "
                          "as 'dpinfer mean-release' writes, has them); a hand edit?")
    where = f"in release file {path}"
    fields = (_check_real(data["value"], f"value {where}"), data["mechanism"],
              _check_epsilon(data["epsilon"], f"epsilon {where}"), _check_delta(data["delta"], f"delta {where}"),
              _check_positive(data["sensitivity"], f"sensitivity {where}"),
              _check_int(data["n"], f"n {where}", minimum=1), data["kind"])
    try:  # the Release's own rules (a relation its kind cannot have, ...), named with the file
        return Release(*fields, secure=_secure(data, path), **_semantics(data, path))
    except (TypeError, ValueError) as exc:
        raise _UsageError(f"release file {path!r}: {exc}") from exc


def _secure(data, path):
    """``secure`` as recorded: true or false (absent: false); anything else is refused, not read as truth."""
    value = data.get("secure", False)
    if not isinstance(value, bool):
        raise _UsageError(f"release file {path!r}: secure must be true or false, as 'dpinfer release' writes; "
                          f"got {value!r}.")
    return value


def _semantics(data, path):
    """``neighbours``, ``privacy_unit``, ``ledger_digest`` and ``disjoint`` as the file records them.

    Absent (older files): None.  A Release given None fills the first two from its
    mechanism and kind, the rule that applied when the file was written (see
    :mod:`dpinfer._mechanisms`); ``disjoint`` (the parallel group the release was
    charged to, which results read for their composition) stays None.
    """
    out = {}
    for key in ("neighbours", "privacy_unit", "ledger_digest"):
        value = data.get(key)
        if value not in (None, ""):
            if not isinstance(value, str):
                raise _UsageError(f"release file {path!r}: {key} must be a string; got {value!r}.")
            out[key] = value
    pair = data.get("disjoint")
    if pair not in (None, ""):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) and v for v in pair)):
            raise _UsageError(f"release file {path!r}: disjoint must be null or the pair [\"scope\", \"group\"] "
                              f"'dpinfer release --parallel ... --group ...' writes; got {pair!r}.")
        out["disjoint"] = tuple(pair)
    return out


def _clipped_release_from_record(data, path, semantics):
    """A Release of kind 'clipped_sum' from the JSON 'dpinfer mean-release' writes."""
    from ..releasers.release import Release

    value = data["value"]
    pair = isinstance(value, list) and len(value) == 2
    if not (isinstance(value, (int, float)) or pair) or isinstance(value, bool):
        raise _UsageError(f"release file {path!r}: a clipped sum holds one number, or two (the sum and the "
                          "centred sum of squares).")
    try:
        return Release(value, data["mechanism"], data["epsilon"], data["delta"], data["sensitivity"], data["n"],
                       "clipped_sum", secure=_secure(data, path), bounds=_pair(data.get("bounds")),
                       split=_pair(data.get("split")), **semantics)
    except (TypeError, ValueError) as exc:
        raise _UsageError(f"release file {path!r}: {exc}") from exc


def _life_table_release_from_record(data, path, semantics):
    """A Release of kind 'life_table' from the JSON 'dpinfer survival-release' writes."""
    from ..releasers.release import Release

    try:
        return Release(data["value"], data["mechanism"], data["epsilon"], data["delta"], data["sensitivity"],
                       data["n"], "life_table", secure=_secure(data, path),
                       breaks=_pair(data.get("breaks")), groups=_pair(data.get("groups")),
                       group_sizes=_pair(data.get("group_sizes")), **semantics)
    except (TypeError, ValueError) as exc:
        raise _UsageError(f"release file {path!r}: {exc}") from exc


def _paired_release_from_record(data, path):
    """A Release of kind 'paired' from the JSON 'dpinfer paired-release' writes (two numbers)."""
    from ..releasers.release import Release

    value = data["value"]
    if not (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise _UsageError(f"release file {path!r}: a paired release holds two numbers (the released "
                          "n10 - n01 and n01 + n10).")
    try:
        return Release(value, data["mechanism"], data["epsilon"], data["delta"], data["sensitivity"], data["n"],
                       "paired", secure=_secure(data, path), **_semantics(data, path))
    except (TypeError, ValueError) as exc:
        raise _UsageError(f"release file {path!r}: {exc}") from exc


def _pair(value):
    return tuple(value) if isinstance(value, list) else value


def _table_release_from_record(data, path):
    """A Release of kind 'table' from the JSON that 'dpinfer release --table' writes."""
    import numpy as np

    from .._validation import _check_epsilon, _check_int, _check_positive
    from ..releasers.release import Release

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
        secure=_secure(data, path), **_semantics(data, path),
    )


def _releases_from_args(args, loaded=None):
    """The releases a test/ci command is about: --release FILE, or --z V [V ...] --n --epsilon.

    ``loaded``: the releases of --release FILE when the caller has read it already.
    """
    from ..inference._command import release_from_numbers as _release_from_numbers

    typed = {"--z": args.value, "--n": args.n, "--epsilon": args.epsilon}
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
                f"give --release FILE, or all of --z, --n and --epsilon (missing {', '.join(missing)})."
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
    from .._validation import _SCALE_GUARD, _looks_like_proportion
    from .._warnings import InputWarning, warn

    if not (math.isfinite(value) and isinstance(n, int) and n >= 1 and epsilon and epsilon > 0):
        return  # the method's own checks name the bad argument
    if method in ("normal", "jimi"):
        margin = _SCALE_GUARD / (epsilon * n)
        if value < -margin or value > 1.0 + margin:
            raise _UsageError(
                f"--z {value:g} cannot be a Laplace-noised proportion with --n {n} and "
                f"--epsilon {epsilon:g} (it lies more than {_SCALE_GUARD:g} noise scales outside "
                f"[0, 1]); --method {method} reads --z as a proportion: for a count of about "
                f"{value:g}, give --z {value / n:.4g} (the count divided by --n)."
            )
    elif _looks_like_proportion(value, n):
        warn(
            f"--z {value:g} is read as a noisy count (--method ump takes the Tulap-noised "
            f"count, about {value:g} of {n} records); if {value:g} is a proportion, give "
            f"--z {value * n:.4g} (the proportion times --n).", InputWarning)


def _check_file_scale(release, path, method):
    """A release file whose 'proportion' could only be a count is refused (see _check_typed_scale)."""
    from .._validation import _SCALE_GUARD

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
    from ..inference._command import accepts, methods

    if release.kind == "table":
        raise _UsageError("a release of kind 'table' is tested with 'dpinfer test' (a test of "
                          "independence, --method jimi or mc); it has no interval for a proportion.")
    pair = (release.mechanism, release.kind)
    if pair in accepts(method).pairs:
        return
    fits = [m for m, (accepted, _) in methods().items() if pair in accepted]
    hint = (" Use " + " or ".join(f"--method {m}" for m in fits) + " for this release."
            if fits else "")
    raise _UsageError(
        f"--method {method} needs {_NEEDS[method]}; the release is a {release.mechanism} "
        f"{release.kind}: each method inverts one noise law, any other gives p-values of the "
        f"wrong size.{hint}"
    )


class _Renamed(argparse.Action):
    """An old spelling of an option: refused with a one-line hint naming the new one."""

    def __init__(self, option_strings, dest, *, new, **kwargs):
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        raise argparse.ArgumentError(self, f"released values are given as {self.new} (--x means a confidential "
                                           "count, in 'dpinfer release' only); the values you gave are not shown")


def add_workers_option(parser, what):
    """``--workers N``: where the draws run (Python's ``workers=``; -1 for every CPU)."""
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help=f"{what}: run the draws in N local processes (-1: every CPU), in fixed seeded "
                             "tasks (the same answer for every N; default: one serial stream, see docs/scale.rst)")
