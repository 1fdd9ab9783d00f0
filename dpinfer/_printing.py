"""How results print: R's ``format``, ``format.pval``, ``strwrap`` and ``print.htest``.

Private, shared by :mod:`dpinfer.results` (``HTestResult.__str__`` and
``ConfidenceInterval.__str__`` are :func:`_format_htest` and
:func:`_format_interval`), the releasers' ``Release`` repr, the audit report,
the DP-JIMI method names and the command.  Only text lives here: the result
types, their fields and their checks stay in :mod:`dpinfer.results`.
"""

from __future__ import annotations

import math
import re

from . import _mechanisms
from ._validation import _check_path

_ALT_TEXT = {"two-sided": "not equal to", "less": "less than", "greater": "greater than"}
#: printed names of the mechanism codes a Release records (the one registry)
_MECHANISM_NAMES = _mechanisms.NAMES
#: the same, read back: a result stores the code, as its Release does
_MECHANISM_CODES = {name: code for code, name in _MECHANISM_NAMES.items()}
_DOUBLE_EPS = 2.220446049250313e-16  # R's .Machine$double.eps, the floor of format.pval


def _json_float(value):
    """A number for JSON: a float, or None for None and non-finite values (JSON has no NaN)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _json_end(value):
    """An interval's end for a record: a float, infinite ends kept (an unbounded side is an answer,
    not a missing value); None only for NaN.  JSON text spells them "Inf" and "-Inf" (R's)."""
    value = float(value)
    return None if math.isnan(value) else value


def _r_infinities(value):
    """``value`` with every infinite float spelt "Inf" or "-Inf" (JSON has no infinity; R reads these)."""
    if isinstance(value, float) and math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    if isinstance(value, dict):
        return {k: _r_infinities(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_r_infinities(v) for v in value]
    return value


def _json_text(record):
    """``json.dumps`` of a JSON-safe dict (or list of dicts), indented as the command prints it;
    an infinite interval end is written "Inf" or "-Inf", never null (null: not computed)."""
    import json

    return json.dumps(_r_infinities(record), indent=2)


def _csv_text(records, columns=None):
    """CSV text of flat dicts (one header line of ``columns``, default the first record's
    keys; one line each; None as an empty field, a list as its JSON text, e.g. a release's
    ``disjoint`` record): the command's ``--format csv``."""
    import csv
    import io
    import json

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]) if columns is None else columns,
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else json.dumps(_r_infinities(v)) if isinstance(v, list) else
                      _r_infinities(v) for k, v in r.items()} for r in records)
    return buffer.getvalue()


def _write_or_return(text, path):
    """``text`` itself when ``path`` is None, else written to ``path`` (UTF-8) and None returned."""
    if path is None:
        return text
    path = _check_path(path)
    try:
        handle = open(path, "w", encoding="utf-8", newline="")
    except OSError as exc:  # the same error type, with a message that names the argument
        raise type(exc)(exc.errno, f"`path` cannot be opened for writing ({exc.strerror})", path) from None
    with handle:
        handle.write(text)
    return None


def _sig_and_exponent(value, digits):
    """Significant digits R would show for ``value`` at ``digits``, and its decimal exponent."""
    if value == 0.0:
        return 1, 0
    mantissa, exponent = f"{abs(value):.{digits - 1}e}".split("e")
    return max(1, len(mantissa.replace(".", "").rstrip("0"))), int(exponent)


def _r_format(values, digits=7):
    """Format numbers the way R's ``format(x, digits=)`` does for a numeric vector.

    All elements share one notation and one number of decimals (R's formatReal):
    fixed notation unless it would be wider than scientific notation.  Non-finite
    values print as ``NaN``, ``Inf`` and ``-Inf``; results are padded to a common width.
    """
    values = [float(v) for v in values]
    finite = [v for v in values if math.isfinite(v)]
    out = []
    if finite:
        pairs = [_sig_and_exponent(v, digits) for v in finite]
        neg = int(any(v < 0 for v in finite))
        left = max(e + 1 if e >= 0 else 1 for _, e in pairs)
        right = max(max(0, s - e - 1) for s, e in pairs)
        fixed_width = neg + left + (right + 1 if right > 0 else 0)
        max_sig = max(s for s, _ in pairs)
        exp_width = 5 if any(abs(e) >= 100 for _, e in pairs) else 4
        sci_width = neg + (max_sig + 1 if max_sig > 1 else max_sig) + exp_width
        use_fixed = fixed_width <= sci_width
    for v in values:
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        elif use_fixed:
            out.append(f"{v:.{right}f}")
        else:
            out.append(f"{v:.{max_sig - 1}e}")
    width = max(len(s) for s in out)
    return [s.rjust(width) for s in out]


def _released(value):
    """A released value in full: the shortest digits that read back as the same double.

    Fewer digits could round a release to a whole number (a noisy count near
    10**6 shown to 7 digits), which, typed back, is refused as a confidential count
    (:func:`dpinfer.inference._resolve.unreleased`); all the digits read back as the
    release itself, so a value copied from a printout is the value released.
    """
    return repr(float(value))


def _r_format_pval(pvalue, digits=4):
    """R's ``format.pval(pv, digits = 4)`` as used by ``print.htest``."""
    if pvalue < _DOUBLE_EPS:
        return "< " + _r_format([_DOUBLE_EPS], max(1, digits - 2))[0]
    return _r_format([pvalue], digits)[0]


def _strwrap(text, prefix="", width=72):
    """R's ``strwrap(text, prefix = prefix)`` at its default width 0.9 * 80 = 72.

    Follows base R's algorithm: the text is split at single blanks; empty words
    (from repeated blanks) are dropped except after a sentence end, which keeps
    R's double space there; words are never broken (so ``p-value`` stays whole);
    a line takes the most words whose ``cumsum(nchar + 1)`` is at most
    ``width - nchar(prefix)`` (``nchar("\t", type = "w")`` is 1), i.e. a line
    is at most ``width - nchar(prefix) - 1`` characters long.
    """
    raw = re.split(r"[ \t\n]", text)
    words = [w for i, w in enumerate(raw)
             if w or (i > 0 and re.search(r"[.?!][)\"']*$", raw[i - 1]) and raw[i - 1])]
    while words and not words[-1]:
        words.pop()
    if not words:
        return [prefix]
    max_length = width - len(prefix)
    lines, start = [], 0
    while start < len(words):
        total, k = 0, 0
        for word in words[start:]:
            if total + len(word) + 1 > max_length:
                break
            total += len(word) + 1
            k += 1
        k = max(k, 1)
        stop = start + k
        line_words = words[start:stop]
        if not line_words[-1]:  # sitting on a space: drop it
            line_words = line_words[:-1]
        lines.append(prefix + " ".join(line_words))
        if stop < len(words) and not words[stop]:  # next line would start with a space
            stop += 1
        start = stop
    return lines


def _hanging(label, text):
    """``label`` + ``text`` wrapped at R's width 72, continuation lines indented under the text."""
    indent = " " * len(label)
    lines = _strwrap(text, prefix=indent)
    return [label + lines[0][len(indent):], *lines[1:]]


def _format_interval(ci):
    """``str(ConfidenceInterval)``: ``95 percent confidence interval: [low, high]``."""
    level = _r_format([100 * ci.level], 7)[0].strip()
    low, high = (s.strip() for s in _r_format([ci.low, ci.high], 7))
    return f"{level} percent confidence interval: [{low}, {high}]"


def _format_htest(result):
    """``str(HTestResult)``: R's ``print.htest`` layout, then the notes and the privacy lines."""
    # stats:::print.htest with getOption("digits") = 7: the method strwrap()ed
    # with a tab prefix, statistic and parameter at digits - 2 = 5 significant
    # digits, format.pval(digits = digits - 3 = 4), the null value as cat()
    # shows it (7 digits), interval and estimate at 7 digits.
    lines = ["", *_strwrap(result.method, prefix="\t"), "", f"data:  {result.data_name}"]
    out = [f"{result.statistic_name} = {_r_format([result.statistic], 5)[0]}"]
    if result.parameter is not None:
        out.append(f"{result.parameter_name} = {_r_format([result.parameter], 5)[0]}")
    if result.n_sim is not None and result.pvalue == 0.0:
        # No draw fell on the null side: the estimate is 0, the truth is below 1/n_sim.
        pval = "< " + _r_format([1.0 / result.n_sim], 4)[0]
    else:
        pval = _r_format_pval(result.pvalue)
    out.append(f"p-value {pval}" if pval.startswith("<") else f"p-value = {pval}")
    lines += _strwrap(", ".join(out))
    if result.null_value is not None:  # R's chisq.test has no null.value and prints no alternative
        null = _r_format([result.null_value], 7)[0]
        lines.append(
            f"alternative hypothesis: true {result.null_name} is "
            f"{_ALT_TEXT[result.alternative]} {null}"
        )
    if result.conf_int is not None:
        level = _r_format([100 * result.conf_int.level], 7)[0].strip()
        low, high = _r_format([result.conf_int.low, result.conf_int.high], 7)
        lines += [f"{level} percent confidence interval:", f" {low} {high}"]
    if result.estimate is not None:
        # print() of a named vector: name and value right-justified to a
        # common width, each followed by one space (R_print.gap).
        value = _r_format([result.estimate], 7)[0]
        width = max(len(result.estimate_name), len(value))
        lines += ["sample estimates:", result.estimate_name.rjust(width) + " ", value.rjust(width) + " "]
        if result.estimate_raw is not None and result.estimate_raw != result.estimate:
            raw = _r_format([result.estimate_raw], 7)[0].strip()
            lines.append(f"(projected onto the parameter space; the unbiased estimate is {raw})")
    for text in _htest_notes(result):
        lines += _hanging("note: ", text)
    lines += ["", *result._privacy_lines(), ""]
    return "\n".join(lines)


def _htest_notes(result):
    """One-line notes printed under the result: the method's own, then a zero-width interval."""
    notes = [result.note] if result.note else []
    ci = result.conf_int
    if ci is not None and ci.low == ci.high:
        point = _r_format([ci.low], 7)[0].strip()
        notes.append(
            f"the interval [{point}, {point}] has zero width: the release lies so far "
            "beyond the possible range that every other value is rejected at this level. "
            "Check the value's scale: DP-UMP takes a noisy count, the normal "
            "approximation and DP-JIMI a noisy proportion."
        )
    return notes


# -- point estimates (dpinfer.PointEstimate) ---------------------------------------------------

def _format_point_values(values):
    """R's print of a numeric vector (``[1] ...``) for one estimate; numpy's for a batch."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    if arr.ndim <= 1:
        return _strwrap(" ".join(_r_format(np.atleast_1d(arr).tolist(), 7)), prefix="[1] ")
    return np.array2string(arr, precision=7, threshold=40).splitlines()


def _format_point_estimate(result):
    """The print of a PointEstimate: method, data, the estimate in the parameter space,
    the unbiased estimate when it differs, and the privacy line."""
    import numpy as np

    lines = ["", *_strwrap(result.method, prefix="\t"), ""]
    facts = []
    if result.n is not None:
        facts.append(f"n = {result.n}")
    shape = np.shape(result.estimate)
    batch = len(shape) - result._unit_ndim()
    if batch > 0:
        facts.append(f"{int(np.prod(shape[:batch]))} data sets")
    if facts:
        lines.append(f"data:  {', '.join(facts)}")
    if result.projected:
        lines.append(f"{result.estimate_name} (the unbiased estimate projected onto "
                     f"{result.parameter_space}):")
        lines += _format_point_values(result.estimate)
        lines.append("unbiased estimate (estimate_raw; outside the parameter space):")
        lines += _format_point_values(result.estimate_raw)
    else:
        lines.append(f"{result.estimate_name} (unbiased; in {result.parameter_space}, so "
                     "estimate_raw = estimate):")
        lines += _format_point_values(result.estimate)
    return "\n".join(lines + ["", *result.privacy.lines(), ""])
