"""The studies' figures: one style per method, panels, bands, legends (matplotlib, imported when a figure is drawn)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


# Okabe-Ito colours (readable in greyscale and by colour-blind readers); the
# non-private yardsticks are grey so the private methods stand out.
METHOD_STYLES = {
    "dp_ump": {"label": "DP-UMP (Tulap)", "color": "#0072B2", "marker": "o", "linestyle": "-"},
    "dp_ump_umpu": {"label": "DP-UMPU (Tulap)", "color": "#0072B2", "marker": "o",
                    "linestyle": "-"},
    "dp_ump_naive": {"label": "Naive equal-tailed (Tulap)", "color": "#E69F00", "marker": "s",
                     "linestyle": "--"},
    "normal": {"label": "Normal approx. (Laplace)", "color": "#D55E00", "marker": "s",
               "linestyle": "-"},
    "dp_jimi": {"label": "DP-JIMI (Laplace)", "color": "#009E73", "marker": "^", "linestyle": "-"},
    "dp_jimi_draws": {"label": "DP-JIMI, finite draws", "color": "#56B4E9", "marker": "v",
                      "linestyle": ":"},
    "dp_ump_unbiased": {"label": "Asymptotically unbiased p-value (Tulap)", "color": "#CC79A7",
                        "marker": "d", "linestyle": "-."},
    "nonprivate_equal_tailed": {"label": "Non-private randomised equal-tailed", "color": "0.25",
                                "marker": "", "linestyle": "--"},
    "ump_nonprivate": {"label": "Non-private randomised UMP", "color": "0.25", "marker": "",
                       "linestyle": "--"},
    "exact_binomial": {"label": "Non-private exact binomial", "color": "0.55", "marker": "",
                       "linestyle": ":"},
    "clopper_pearson": {"label": "Clopper-Pearson (non-private)", "color": "0.25", "marker": "",
                        "linestyle": "--"},
    "wald": {"label": "Wald (non-private)", "color": "0.55", "marker": "", "linestyle": ":"},
    "dp_ump2": {"label": "exact DP test, difference ordering (Tulap)", "color": "#0072B2", "marker": "o",
                "linestyle": "-"},
    "dp_ump2_score": {"label": "exact DP test, score ordering (Tulap)", "color": "#56B4E9", "marker": "o",
                      "linestyle": "-"},
    "dp_ump2_odds_ratio": {"label": "exact DP test, odds ratio (Tulap)", "color": "#0072B2", "marker": "x",
                           "linestyle": "-"},
    "boschloo_nonprivate": {"label": "Boschloo exact test (non-private)", "color": "0.3", "marker": "",
                            "linestyle": "--"},
}

#: readable names of code names that have no style of their own (the local-DP and means studies)
_LABELS = {
    "rr_exact": "randomized response, exact",
    "rr_wald": "randomized response, Wald",
    "rr_wald_sample": "randomized response, Wald (sample)",
    "two_coin_exact": "two-coin RR, exact",
    "krr_bonferroni": "k-RR, Bonferroni",
    "krr_scheffe": "k-RR, Scheffe",
    "ue_bonferroni": "unary encoding, Bonferroni",
    "ue_scheffe": "unary encoding, Scheffe",
    "laplace_population": "local Laplace, population",
    "laplace_sample": "local Laplace, sample",
    "dp_jimi_lognormal": "DP-JIMI, log-normal model",
    "repro": "repro samples",
    "repro_lognormal": "repro samples, log-normal model",
    "naive": "naive normal interval",
}

#: words of the studies' method code names, for a readable legend label of a method without a style
_CODE_WORDS = {"dp": "DP", "ump": "UMP", "jimi": "JIMI", "nonprivate": "(non-private)",
               "chi2": "chi-squared", "km": "Kaplan-Meier", "cmh": "CMH", "t": "t", "se": "SE"}


def readable_label(method):
    """The legend label of a method: its style's, else its code name in words
    (``'logrank_nonprivate'`` -> ``'logrank (non-private)'``); never a code name with underscores."""
    style = METHOD_STYLES.get(method)
    if style is not None:
        return style["label"]
    if method in _LABELS:
        return _LABELS[method]
    words = [_CODE_WORDS.get(w, w) for w in str(method).split("_")]
    if words[:2] == ["DP", "UMP"] or words[:2] == ["DP", "JIMI"]:
        words[:2] = ["-".join(words[:2])]
    return " ".join(words)


def method_style(method):
    """Plot keywords (label, color, marker, linestyle) for a method name; a neutral default."""
    style = dict(METHOD_STYLES.get(method, {"label": readable_label(method), "color": "#CC79A7", "marker": "d",
                                            "linestyle": "-"}))
    style.setdefault("markersize", 3.5)
    style.setdefault("linewidth", 1.4)
    return style


def new_figure(ncols=1, nrows=1, *, panel_width=3.4, panel_height=2.8, sharex=False, sharey=False):
    """A figure of ``nrows x ncols`` panels in the house style: ``(fig, axes)``.

    ``axes`` is always a flat 1-d array of Axes.  The figure is a bare
    ``matplotlib.figure.Figure`` (no pyplot, so no global backend state); save it
    with :func:`save_figure`.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(panel_width * ncols, panel_height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for ax in axes:
        ax.tick_params(labelsize=8, direction="out", length=3)
        ax.grid(True, linewidth=0.4, alpha=0.35)
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    return fig, axes


def finish_axes(ax, *, title=None, xlabel=None, ylabel=None):
    """Title and axis labels at the house font sizes; a title is wrapped to its panel's width
    (a long one would otherwise run over the neighbouring panel's)."""
    if title:
        ax.set_title(_wrap_to_panel(ax, title, 9), fontsize=9)
    if xlabel:
        ax.set_xlabel(xlabel, fontsize=8.5)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=8.5)


def _wrap_to_panel(ax, text, fontsize):
    """``text`` with each line wrapped to the panel's width (about 0.55 em per character)."""
    import textwrap

    spec = ax.get_subplotspec()
    ncols = spec.get_gridspec().ncols if spec is not None else 1
    width_pt = 72.0 * ax.figure.get_figwidth() / ncols * 0.92
    chars = max(int(width_pt / (0.55 * fontsize)), 12)
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def text_overlaps(fig):
    """Pairs of texts of ``fig`` whose drawn boxes overlap: ``[(text a, text b), ...]``.

    Compares the window extents (from the figure's renderer, after a draw) of every
    visible non-empty text: the titles, axis labels, tick labels, legend texts and free
    texts of all panels, and the figure's own titles and legends.  Tick labels of one axis
    are not compared with each other (matplotlib spaces them).  Empty when nothing overlaps.
    """
    from matplotlib.text import Text

    if not hasattr(fig.canvas, "get_renderer"):  # a bare Figure (new_figure): lay it out with Agg
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts, groups = [], []
    for i, ax in enumerate(fig.axes):
        for j, axis in enumerate((ax.xaxis, ax.yaxis)):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1.0)
            # only the ticks in view are drawn (the others keep a label but no place)
            for loc, t in zip(axis.get_majorticklocs(), axis.get_majorticklabels()):
                texts.append(t)
                groups.append(("ticks", i, j) if low - slack <= loc <= high + slack else ("hidden", id(t)))
    for t in fig.findobj(Text):
        if all(t is not u for u in texts):
            texts.append(t)
            groups.append(("text", id(t)))
    boxes = []
    for t, g in zip(texts, groups):
        if g[0] != "hidden" and t.get_visible() and t.get_text().strip() and t.figure is not None:
            box = t.get_window_extent(renderer)
            if box.width > 0 and box.height > 0:
                boxes.append((t, g, box))
    found = []
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            (ta, ga, ba), (tb, gb, bb) = boxes[a], boxes[b]
            if ga == gb:
                continue
            # a strict overlap, with a pixel's slack for touching edges
            if ba.x0 < bb.x1 - 1 and bb.x0 < ba.x1 - 1 and ba.y0 < bb.y1 - 1 and bb.y0 < ba.y1 - 1:
                found.append((ta.get_text(), tb.get_text()))
    return found


def log_axis(ax, ticks, *, base=10, labels=None):
    """A logarithmic x axis with major ticks exactly at ``ticks`` and no minor labels."""
    from matplotlib.ticker import NullFormatter, NullLocator

    ax.set_xscale("log", base=base)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(list(ticks))
    ax.set_xticklabels(labels if labels is not None else [f"{t:g}" for t in ticks])


def plot_nominal(ax, level, *, label="nominal level"):
    """The nominal level (alpha, or the confidence level) as a thin dashed black line."""
    ax.axhline(level, color="black", linewidth=0.8, linestyle=(0, (4, 3)), label=label, zorder=1)


def mc_se(p, reps):
    """Monte Carlo standard error sqrt(p (1 - p) / reps) of a simulated proportion."""
    p = np.asarray(p, dtype=float)
    return np.sqrt(np.clip(p * (1.0 - p), 0.0, None) / reps)


def plot_band(ax, x, low, high, *, color, alpha=0.18):
    """A shaded band (a +/- 2 Monte Carlo SE band around a simulated curve)."""
    ax.fill_between(np.asarray(x, float), np.asarray(low, float), np.asarray(high, float),
                    color=color, alpha=alpha, linewidth=0, zorder=0)


def plot_curves(ax, rows, x, y, *, key="method", se="mc_se", style_key=None):
    """One line per distinct ``row[key]`` of ``y`` against ``x``, in the house style.

    Rows are sorted by ``x``.  Where rows carry a Monte Carlo standard error in the
    column ``se`` the curve gets a +/- 2 SE band.  ``style_key(row)`` may map a row
    to a :data:`METHOD_STYLES` name (default: ``row[key]``).
    """
    groups = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    for name, group in groups.items():
        group = sorted(group, key=lambda r: r[x])
        xs = np.array([r[x] for r in group], dtype=float)
        ys = np.array([r[y] for r in group], dtype=float)
        style = method_style(style_key(group[0]) if style_key else name)
        if xs.size > 15:  # dense grids: a marker every ~12 points keeps lines readable
            style["markevery"] = max(1, xs.size // 12)
        ax.plot(xs, ys, **style)
        errs = [r.get(se) for r in group]
        if all(e is not None for e in errs):
            errs = np.array(errs, dtype=float)
            plot_band(ax, xs, ys - 2 * errs, ys + 2 * errs, color=style["color"])


def computed_label(rows, unit="data sets"):
    """How the rows' numbers were obtained, for a panel title: from their ``computed`` column.

    ``'exact'``, ``'simulated, N <unit>'`` (N from the ``reps`` column) or ``'exact and
    simulated'``.
    """
    how = {r["computed"] for r in rows}
    if how == {"simulated"}:
        reps = sorted({r["reps"] for r in rows})
        return f"simulated, {'/'.join(f'{n:,}' for n in reps)} {unit}"
    return " and ".join(sorted(how))


def add_legend(fig_or_ax, *, ncol=None, loc=None, **kwargs):
    """A legend with the methods (deduplicated labels); below the panels for a figure."""
    from matplotlib.figure import Figure

    if isinstance(fig_or_ax, Figure):
        handles, labels = [], []
        for ax in fig_or_ax.axes:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels and not lab.startswith("_"):
                    handles.append(h)
                    labels.append(lab)
        ncol = ncol or min(len(labels), 3) or 1
        return fig_or_ax.legend(handles, labels, loc=loc or "outside lower center", ncol=ncol,
                                fontsize=7.5, frameon=False, **kwargs)
    return fig_or_ax.legend(fontsize=7, frameon=False, ncol=ncol or 1, loc=loc or "best", **kwargs)


def save_figure(fig, path, *, dpi=200):
    """Save ``fig`` to ``path`` (format from the suffix) without volatile metadata; return the path.

    PNG and SVG files carry no software version or date, so reruns give identical bytes.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fmt = path.suffix.lstrip(".").lower() or "png"
    metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
                "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}.get(fmt)
    import matplotlib

    # A fixed hash salt makes the SVG element ids identical from run to run.
    with matplotlib.rc_context({"svg.hashsalt": "dpinfer"}):
        fig.savefig(path, format=fmt, dpi=dpi, metadata=metadata)
    return path
