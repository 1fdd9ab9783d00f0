"""The warning tables of the ``means`` study's tails parts, generated from their CSVs.

One generator for both parts (``validation/_means_tails.py``, one group, and
``validation/_means_tails_two_group.py``, two groups), which both import, so neither
imports the other: :func:`table_rows` turns a part's CSV rows into its table, and
:func:`write_table` writes ``dpinfer/inference/means/_spread_table.py`` (``SPREAD_RATES``
and ``SPREAD2_RATES``) from both kept runs.
"""

from __future__ import annotations

from pathlib import Path

from dpinfer.inference._studies import measured_rate_bar

TABLE_PATH = Path(__file__).resolve().parents[1] / "dpinfer" / "inference" / "means" / "_spread_table.py"
#: the kept runs of the one-group and the two-group parts
KEPT_CSV = Path(__file__).resolve().parent / "results" / "means_tails_simulate.csv"
KEPT_CSV2 = Path(__file__).resolve().parent / "results" / "means_tails_two_group_simulate.csv"


def grid(ns, lognormal_ns, epsilons, normal, known, lognormal):
    """A tails part's points ``(truth, model, n, epsilon, *setting, spread, reps)``, sorted by n then epsilon.

    Normal truth at ``ns`` (each ``normal`` setting with the spread released, each
    ``known`` one with sigma given; 2000 data sets at n <= 100, else 1000), log-normal
    at ``lognormal_ns`` (each ``lognormal`` setting, 1000 data sets).
    """
    out = []
    for n in sorted(set(ns) | set(lognormal_ns)):
        for eps in epsilons:
            reps = 2000 if n <= 100 else 1000
            if n in ns:
                out += [("normal", "normal", n, eps, *b, "released", reps) for b in normal]
                out += [("normal", "normal", n, eps, *b, "known", reps) for b in known]
            if n in lognormal_ns:
                out += [("lognormal", "lognormal", n, eps, *b, "released", 1000) for b in lognormal]
    return out


def tails_arguments(description, argv, unit):
    """The tails parts' command line, parsed: --out, --workers, --quick, --table, --from-csv."""
    import argparse
    import sys

    from validation import harness

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=harness.DEFAULT_OUT, help="folder of the CSV (and figure)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--quick", action="store_true", help=f"two points, 200 {unit} each (a smoke test)")
    parser.add_argument("--table", action="store_true",
                        help="then rewrite dpinfer/inference/means/_spread_table.py (both tables)")
    parser.add_argument("--from-csv", type=Path, default=None, metavar="CSV",
                        help="measure nothing: write the table from this earlier run's CSV")
    return parser.parse_args(sys.argv[1:] if argv is None else argv)


def _where(row):
    clip = f"{row['clip_upper']:.0%} clipped above" if row["clip_upper"] else "nothing clipped"
    if row["clip_lower"]:
        clip = f"{row['clip_lower']:.0%} below and {row['clip_upper']:.0%} above clipped"
    elif row["lower_sd"] is not None and row["lower_sd"] != 4.0:
        clip += f", lower bound {row['lower_sd']:g} sd below the mean"
    return clip


def where2(row):
    """Where a two-group row's rate was measured, in words (the table's and the warning's)."""
    if row["groups"] == "unequal":
        return (f"group 1 {row['clip_upper']:.0%} and group 2 {row['clip_upper2']:.0%} clipped above "
                f"(different laws)")
    return "each group: " + _where(row)


def _worst(cell, rate, nominal, where):
    """``(rate, where)`` of the point of ``cell`` whose ``rate`` lies furthest beyond the shared rule's bar."""
    r = max(cell, key=lambda r: rate(r) - measured_rate_bar(nominal, r["reps"]))
    return rate(r), where(r)


def table_rows(rows, where=_where):
    """``{model: ((n, epsilon, data sets, tail, where, coverage, where), ...)}`` from the CSV rows.

    Per (model, n, epsilon), over the bounds studied with the spread released: the
    worst one-sided miss rate (either end: clipping below mirrors clipping above) and
    the worst two-sided coverage, each with the bounds where it occurred (``where(row)``
    in words; "worst": the furthest beyond the shared rule's bar, which accounts for
    the number of data sets); ``data sets`` the fewest of the row's points.  The
    two-group part's rows (``validation/_means_tails_two_group.py``: n and epsilon per
    group, pairs of data sets) go through the same function with that part's ``where``.
    """
    out = {}
    for model in ("normal", "lognormal"):
        sel = [r for r in rows if r["model"] == model and r["spread"] == "released"]
        entries = []
        for n in sorted({r["n"] for r in sel}):
            for eps in sorted({r["epsilon"] for r in sel if r["n"] == n}):
                cell = [r for r in sel if r["n"] == n and r["epsilon"] == eps]
                tail = _worst(cell, lambda r: max(r["low_miss"], r["high_miss"]), 0.025, where)
                miss = _worst(cell, lambda r: 1.0 - r["coverage"], 0.05, where)
                entries.append((n, eps, min(r["reps"] for r in cell), *tail, 1.0 - miss[0], miss[1]))
        out[model] = tuple(entries)
    return out


def _table_lines(name, table):
    lines = [f"{name} = {{"]
    for model, entries in table.items():
        lines.append(f"    {model!r}: (")
        for n, eps, reps, tail, tail_where, cover, cover_where in entries:
            lines.append(f"        ({n}, {eps!r}, {reps}, {tail!r}, {tail_where!r},")
            lines.append(f"         {cover!r}, {cover_where!r}),")
        lines.append("    ),")
    lines.append("}")
    return lines


def write_table(rows, csv_path, path=TABLE_PATH, rows2=None, csv2_path=None):
    """Write the warning table module (see the module notes) and return its path.

    ``rows`` (one group; None: the kept run ``validation/results/means_tails_simulate.csv``)
    give ``SPREAD_RATES``; ``rows2`` (two groups, ``validation/_means_tails_two_group.py``;
    None: its kept run) give ``SPREAD2_RATES``.
    """
    from validation import harness

    if rows is None:
        csv_path = KEPT_CSV
        rows = harness.read_csv(csv_path)[1]
    if rows2 is None:
        csv2_path = KEPT_CSV2
        rows2 = harness.read_csv(csv2_path)[1]
    lines = ['"""The ``means`` study\'s measured DP-JIMI error rates with the spread released (generated).',
             "",
             "Written by ``python -m validation._means_tails --table`` or ``python -m",
             "validation._means_tails_two_group --table`` (see those modules for the grids, the",
             f"seeds and the CSV columns) from ``{Path(csv_path).name}`` and",
             f"``{Path(csv2_path).name}`` (the runs kept in ``validation/results/``; ``--from-csv``",
             "rewrites this module from them); do not edit by hand: rerun the command.  Read by",
             "``_approx.py`` (the warning rule).",
             '"""',
             "",
             "#: model -> rows ``(n, epsilon, data sets, worst one-sided miss rate (nominal 0.025), where,",
             "#: worst two-sided 95% coverage, where)``, sorted by n then epsilon: one group (mean_jimi_test)"]
    lines += _table_lines("SPREAD_RATES", table_rows(rows))
    lines += ["", "#: the same for two groups (mean2_jimi_test): n and epsilon per group, data sets = pairs,",
              "#: coverage of the difference of the means"]
    lines += _table_lines("SPREAD2_RATES", table_rows(rows2, where2))
    Path(path).write_text("\n".join(lines) + "\n")
    return path
