"""The R package's side of the bridge: calls into dpinfer and plain Python values back.

Everything returned to R is built from str, float, int, bool, None, list and dict,
which every reticulate version converts without NumPy (reticulate 1.28 cannot
convert NumPy 2 arrays).  Python exceptions are caught here and returned as text,
so R raises them as R errors carrying the Python message; Python warnings are
returned the same way and raised as R warnings.
"""

import importlib
import os
import re
import sys
import warnings


def _load():
    """The dpinfer package, or None with the reason in ``_missing``.

    A folder named ``dpinfer`` in the working directory (R's own package folder
    while ``R CMD check`` runs) is a namespace package to Python and, found on
    ``sys.path`` first, hides a dpinfer installed in editable mode; it is
    skipped.
    """
    try:
        module = importlib.import_module("dpinfer")
        if getattr(module, "__file__", None) is None:
            del sys.modules["dpinfer"]
            saved, here = sys.path[:], os.getcwd()
            sys.path[:] = [p for p in sys.path if p not in ("", ".", here)]
            try:
                module = importlib.import_module("dpinfer")
            finally:
                sys.path[:] = saved
        module.binom_ump_test  # the Python package, not another folder of that name
    except (ImportError, AttributeError) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    return module, None


dpinfer, missing = _load()


def _plain(value):
    """value as plain Python (NumPy scalars and arrays to floats, ints and lists)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _planning(value):
    """A planning result (power or sample size with its non-private comparators) as its flat dict."""
    return _plain(value.to_dict())


#: public calls named in dpinfer's messages -> what an R user runs instead (the release step
#: named when a typed value looks like a confidential count)
_R_CALLS = {
    "TulapReleaser.release": "dp_release_count(x, n, epsilon = ...), and pass the release",
    "LaplaceReleaser.count": 'dp_release_count(x, n, epsilon = ..., mechanism = "laplace"), and pass the release',
    "LaplaceReleaser.proportion": 'dp_release_count(x, n, epsilon = ..., mechanism = "laplace"), and pass the '
                                  "release",
}


#: Python argument names -> the R package's (what an R user typed)
_R_NAMES = {"p0": "p", "mu0": "mu", "theta1": "p1", "theta2": "p2", "confidence_level": "conf.level", "n_sim": "n.sim"}


def _spell_r(name):
    """How R spells one name of a dpinfer message: the release step as the R call, R's argument names."""
    if name.kind == "call":
        return _R_CALLS.get(name.name, name.python)
    if name.kind == "argument" and name.name in _R_NAMES:
        return f"`{_R_NAMES[name.name]}`"
    return name.python


def _one_based(match):
    """'position 2' / 'position (1, 0)' (Python, from 0) as R counts (from 1)."""
    return "position " + match.group(1).replace(match.group(2), ", ".join(
        str(int(i) + 1) for i in match.group(2).split(", ")))


def _in_r(exc):
    """The message of ``exc`` for R users: argument names spelt as in R, positions counted from 1."""
    spelled = getattr(exc, "spelled", None)
    text = spelled(_spell_r) if callable(spelled) else str(exc)
    return re.sub(r"position (\(?((?:\d+, )*\d+)\)?)", _one_based, text)


def call(what, args, kwargs):
    """Run one dpinfer call; {'value', 'warnings', 'error'} with plain values only.

    ``what`` is a public name of dpinfer or a bound method; ``args``/``kwargs``
    come from R (whole numbers are converted in R with ``as.integer``).
    """
    func = getattr(dpinfer, what) if isinstance(what, str) else what
    out = {"value": None, "warnings": [], "error": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out["value"] = func(*args, **kwargs)
        except Exception as exc:  # every Python error becomes an R error with its message
            out["error"] = f"{type(exc).__name__}: {_in_r(exc)}"
    out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return out


def htest(result):
    """An HTestResult as R's htest fields plus its printed privacy lines."""
    record = _plain(result.to_htest())
    text = str(result)
    lines = text.splitlines()
    tail = [i for i, line in enumerate(lines) if line.startswith(("note:", "privacy:"))]
    record["printed"] = text
    record["privacy.lines"] = lines[tail[0]:] if tail else []
    return record


def release(rel):
    """A Release as a plain record (a table's value as a list of rows)."""
    record = _plain(rel.to_dict())
    record["printed"] = str(rel)
    return record


def design(d):
    """A SequentialDesign as its plain record (``to_dict``) plus its printed form."""
    record = _plain(d.to_dict())
    record["printed"] = str(d)
    return record


def budget(b):
    """A PrivacyBudget's totals and spending, plus its printed form."""
    remaining = b.remaining
    return {"epsilon": float(b.epsilon), "delta": float(b.delta),
            "spent.epsilon": float(b.spent_epsilon), "spent.delta": float(b.spent_delta),
            "remaining.epsilon": float(remaining.epsilon), "remaining.delta": float(remaining.delta),
            "entries": len(b.ledger), "printed": str(b)}


def logrank(result):
    """A LogRankResult as :func:`htest` gives it, plus survdiff's table as text lines."""
    record = htest(result)
    record["survdiff.table"] = result.survdiff_table().splitlines()
    return record


def survfit(fit):
    """A KaplanMeierResult as a plain record (curves as lists per arm) plus its printed form."""
    record = _plain(fit.to_dict())
    record["printed"] = str(fit)
    return record
