"""The studies' CSV files: metadata comment lines, then one row per point, written and read back exactly."""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import os
import platform
import re
from pathlib import Path

import numpy as np


def _to_builtin(value):
    """numpy scalars/arrays and tuples -> plain Python objects (JSON round-trip exact)."""
    if isinstance(value, dict):
        return {str(k): _to_builtin(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_builtin(v) for v in value]
    if isinstance(value, np.ndarray):
        return _to_builtin(value.tolist())
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_INT_RE = re.compile(r"^[+-]?\d+$")


def _versions():
    import scipy

    try:
        from dpinfer import __version__ as dpinfer_version
    except ImportError:  # pragma: no cover
        dpinfer_version = "unknown"
    return {
        "dpinfer_version": dpinfer_version,
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "python_version": platform.python_version(),
    }


def _format_meta(value):
    text = value if isinstance(value, str) else json.dumps(_to_builtin(value))
    if "\n" in text or "\r" in text:
        raise ValueError(f"metadata values must fit on one line; got {text!r}.")
    return text


def _format_field(value):
    value = _to_builtin(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError(f"CSV fields must be numbers, strings or None; got {value!r}.")


def write_csv(path, rows, metadata):
    """Write ``rows`` (a list of dicts) as CSV after ``# key: value`` metadata lines.

    The versions of dpinfer, numpy, scipy and Python and the date (UTC, ISO 8601)
    are added unless ``metadata`` gives them.  Columns are the union of the rows'
    keys in first-seen order; floats are written with ``repr``.  Returns the path.
    """
    path = Path(path)
    meta = dict(metadata)
    for key, value in _versions().items():
        meta.setdefault(key, value)
    meta.setdefault("date", _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    columns = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    buf = io.StringIO()
    for key, value in meta.items():
        if not _KEY_RE.match(str(key)):
            raise ValueError(f"metadata keys must be identifiers; got {key!r}.")
        buf.write(f"# {key}: {_format_meta(value)}\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_format_field(row.get(col)) for col in columns])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(buf.getvalue(), encoding="utf-8")
    os.replace(tmp, path)  # never leave a half-written CSV behind
    return path


def _parse_field(text):
    if text == "":
        return None
    if text in ("true", "false"):
        return text == "true"
    if _INT_RE.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def read_csv(path):
    """Read a file written by :func:`write_csv`: ``(metadata, rows)``.

    ``metadata`` maps each key to its value as a string (non-strings were written
    as JSON); ``rows`` is a list of dicts with ints, floats, booleans, strings and
    None (an empty field) restored.
    """
    metadata = {}
    data_lines = []
    with open(path, encoding="utf-8", newline="") as fh:
        for line in fh:
            if not data_lines and line.startswith("# "):
                key, _, value = line[2:].rstrip("\n").partition(": ")
                metadata[key] = value
            else:
                data_lines.append(line)
    reader = csv.DictReader(data_lines)
    rows = [{k: _parse_field(v) for k, v in row.items()} for row in reader]
    return metadata, rows
