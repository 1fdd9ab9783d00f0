"""Pictures a statistician expects: power curves, confidence curves, release laws, rejection regions.

matplotlib is imported here and only here, when this module is first used: ``import
dpinfer`` does not import it.  Every function draws on the Axes given as ``ax=`` (a new
figure's Axes when None) and returns that Axes, so pictures compose and can be checked
or restyled afterwards (titles, limits, legends are plain matplotlib).

* :func:`power_curve` -- power against the true proportion, ``n`` (per arm for two arms),
  ``epsilon`` or any argument of any power function: :func:`~dpinfer.binom_ump_power`,
  :func:`~dpinfer.binom_normal_power`, :func:`~dpinfer.binom2_ump_power`...
* :func:`confidence_curve` -- the p-value function of a test result over the effect (a
  proportion, a risk difference, risk ratio or odds ratio, a mean or a difference of
  means), with the level line and the confidence interval marked (also ``result.plot()``).
* :func:`release_density` -- the density of a release's law ``X + N`` (or ``X / n + L``)
  under chosen true proportions, with the released value marked.
* :func:`rejection_region` -- where a two-arm test rejects, on a grid of the two releases.
* :func:`forest_plot` -- one row per effect: the per-arm simultaneous intervals of a
  many-to-one comparison (the adjusted per-arm level in the title), a logistic fit's
  coefficients or odds ratios, every result of :func:`~dpinfer.map_results` (also
  ``result.plot()``).
* :func:`planning_curve` -- a planning result's exact power against ``n``, with the plan,
  the same test without noise and the target power (also ``result.plot()`` of a power or
  sample size).
* :func:`km_curves` -- Kaplan-Meier curves of a private life table per arm, with their
  pointwise bands and the numbers at risk under the axis (also ``fit.plot()``).
* :func:`oc_curves` -- a design's exact operating characteristics: the probability of
  rejecting H0 and of stopping early, and the expected sample size, against the true
  response probability (Simon) or difference (group-sequential; also ``design.plot()``).

A figure these functions make themselves (no ``ax=``) has the report defaults of the
style guide (``docs/plots.rst``): fonts of :data:`REPORT_STYLE`, a title naming the data
and epsilon, readable legend labels, 300 dpi on ``fig.savefig`` (``dpi=`` overrides).
"""

from __future__ import annotations

import inspect

import numpy as np

from ._validation import _as_real_array, _check_alpha, _check_label

__all__ = ["REPORT_STYLE", "confidence_curve", "forest_plot", "km_curves", "oc_curves", "planning_curve",
           "power_curve", "rejection_region", "release_density"]

#: axis labels of the usual arguments of the power functions (the quantity and its unit)
_AXIS_LABELS = {
    "theta": "true proportion theta",
    "theta1": "true proportion theta1 (arm 1)",
    "theta2": "true proportion theta2 (arm 2)",
    "n": "number of patients n",
    "n1": "patients in arm 1 (n1)",
    "n2": "patients in arm 2 (n2)",
    "epsilon": "privacy-loss parameter epsilon",
    "margin": "margin",
}

#: readable legend names of the package's power functions (never a function's code name)
_POWER_NAMES = {
    "binom_ump_power": "exact DP test (DP-UMP)",
    "binom_normal_power": "normal approximation",
    "binom2_ump_power": "exact DP test",
    "mcnemar_power": "exact DP McNemar test",
}

#: report defaults of a figure dpinfer makes itself (``docs/plots.rst``, *Style guide*):
#: fonts that read at print size; change them with ``matplotlib.rc_context`` or on the Axes
REPORT_STYLE = {
    "font.size": 11,
    "axes.titlesize": 11,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 9,
    "lines.linewidth": 1.8,
}

#: the effect axis of a confidence curve, by the result's ``null_name``: (label, log scale?, range)
_EFFECT_AXES = {
    "probability of success": ("proportion p", False, (0.0, 1.0)),
    "proportion": ("proportion p", False, (0.0, 1.0)),
    "difference in proportions": ("risk difference p1 - p2", False, (-1.0, 1.0)),
    "ratio of proportions": ("risk ratio p1 / p2 (log scale)", True, (1e-6, 1e6)),
    "odds ratio": ("odds ratio p1 (1 - p2) / (p2 (1 - p1)) (log scale)", True, (1e-6, 1e6)),
    "mean": ("mean mu", False, (-np.inf, np.inf)),
    "difference in means": ("difference in means mu1 - mu2", False, (-np.inf, np.inf)),
    "p10 - p01": ("difference of paired proportions p10 - p01", False, (-1.0, 1.0)),
    "common risk difference": ("common risk difference p1 - p2", False, (-1.0, 1.0)),
    "hazard ratio": ("hazard ratio (log scale)", True, (1e-6, 1e6)),
}


def _report_figure_class():
    """A Figure whose ``savefig`` writes 300 dpi unless ``dpi=`` says otherwise."""
    from matplotlib.figure import Figure

    class ReportFigure(Figure):
        def savefig(self, fname, *args, dpi=300, **kwargs):
            return super().savefig(fname, *args, dpi=dpi, **kwargs)

    return ReportFigure


def _axes(ax):
    """``ax`` itself, or the Axes of a new report figure (6.4 x 4.4 in, fonts of
    :data:`REPORT_STYLE`, saved at 300 dpi)."""
    if ax is not None:
        return ax
    import matplotlib
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(REPORT_STYLE):
        return plt.subplots(figsize=(6.4, 4.4), layout="constrained", FigureClass=_report_figure_class())[1]


def _styled(ax):
    """The report fonts on an Axes dpinfer made (labels and titles are set after creation)."""
    ax.xaxis.label.set_size(REPORT_STYLE["axes.labelsize"])
    ax.yaxis.label.set_size(REPORT_STYLE["axes.labelsize"])
    ax.title.set_size(REPORT_STYLE["axes.titlesize"])
    ax.tick_params(labelsize=REPORT_STYLE["xtick.labelsize"])


def _evaluate(func, values, call):
    """``call(func, array)``; if the function refuses arrays (or returns another shape), one
    call per value.  Results that are HTestResults give their p-value."""
    values = np.asarray(values)
    try:
        out = np.asarray(_pvalues(call(func, values)), dtype=float)
        if out.shape == values.shape:
            return out
    except (TypeError, ValueError):
        pass
    return np.array([_pvalues(call(func, v)) for v in values.flat], dtype=float).reshape(values.shape)


def _pvalues(out):
    """A p-value from an HTestResult, else the value itself."""
    return getattr(out, "pvalue", out)


def power_curve(power, values, *, over="theta", ax=None, label=None, xlabel=None, title=None, line_kw=None,
                **kwargs):
    """Plot the power of a test against one of its arguments (theta, n per arm, epsilon, ...).

    Parameters
    ----------
    power : callable
        A power function, e.g. :func:`~dpinfer.binom_ump_power`,
        :func:`~dpinfer.binom_normal_power` or :func:`~dpinfer.binom2_ump_power`; any
        callable taking the varied argument by keyword.
    values : array_like
        The values of the varied argument (the x axis).
    over : str or callable, default 'theta'
        What varies: the name of an argument of ``power`` ('theta', 'n', 'epsilon',
        'theta1', 'margin', ...), or a callable mapping one x value to a dict of keyword
        arguments (``lambda n: {"n1": n, "n2": 2 * n}``; then give ``xlabel``).  ``'n'``
        for a two-arm power function (arguments ``n1``, ``n2``, no ``n``) means both arms
        at once, ``n1 = n2 = n`` (the axis reads "patients per arm").
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new report figure's Axes when None (report fonts, title, 300 dpi
        on ``savefig``; see the style guide in ``docs/plots.rst``).
    label : str, optional
        Legend label of the curve; by default the test in words and its alternative
        (e.g. "exact DP test, difference ordering, two-sided").
    xlabel, title : str, optional
        The x axis label (by default the quantity and its unit) and, for a new figure, the
        title (by default the fixed arguments: ``n``, ``epsilon``, the null, alpha).
    line_kw : dict, optional
        matplotlib keyword arguments of the curve (``color``, ``linestyle``, ``linewidth``...).
    **kwargs
        The other arguments of ``power``, by keyword (``n=30, p0=0.2, epsilon=1.0``).

    Returns
    -------
    matplotlib.axes.Axes
        With one line (the power) and, when ``power`` has a level ``alpha``, a dotted
        horizontal line at it (the size the curve meets at the null value); y limits
        [0, 1.02].

    Raises
    ------
    TypeError
        For a ``power`` that is not callable, an ``over`` that is neither a name nor a
        callable, or the varied argument given again in ``kwargs``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpinfer import binom_ump_power, binom2_ump_power
    >>> from dpinfer.plot import power_curve
    >>> ax = power_curve(binom_ump_power, [0.2, 0.3, 0.4, 0.5], n=30, p0=0.2, epsilon=1.0)
    >>> ax.get_xlabel(), ax.get_ylabel(), ax.get_title()
    ('true proportion theta', 'power', 'power at n = 30, epsilon = 1, p0 = 0.2, alpha = 0.05')
    >>> ax = power_curve(binom2_ump_power, [20, 40, 80], over='n', theta1=0.6, theta2=0.3,
    ...                  epsilon=1.0)
    >>> ax.get_xlabel(), ax.get_legend().get_texts()[0].get_text()
    ('patients per arm (n1 = n2 = n)', 'exact DP test, difference ordering, two-sided')
    """
    if not callable(power):
        raise TypeError(f"`power` must be a power function (callable); got {type(power).__name__}.")
    if callable(over):
        mapping, name = over, None
    elif isinstance(over, str) and over:
        name = over
        params = _parameters(power)
        if over == "n" and params is not None and "n" not in params and {"n1", "n2"} <= params:
            def mapping(v):
                return {"n1": v, "n2": v}

            xlabel = xlabel or "patients per arm (n1 = n2 = n)"
        else:
            def mapping(v):
                return {over: v}
    else:
        raise TypeError(f"`over` must be the name of an argument of `power` or a callable mapping an x value "
                        f"to keyword arguments; got {over!r}.")
    varied = set(mapping(1)) if callable(over) else {name} | ({"n1", "n2"} if name == "n" else set())
    clash = sorted(varied & set(kwargs))
    if clash:
        raise TypeError(f"`{clash[0]}` is the varied argument (`over`); give its values as `values`.")
    label = _check_label(label)
    if line_kw is not None and not isinstance(line_kw, dict):
        raise TypeError(f"`line_kw` must be a dict of matplotlib line properties; got {type(line_kw).__name__}.")
    x = _as_real_array(values, "values", ndim_max=1).reshape(-1)
    if name == "n" or (callable(over) and np.all(x == np.floor(x))):
        x = x.astype(np.int64) if np.all(x == np.floor(x)) else x
    y = _evaluate(power, x, lambda f, v: f(**mapping(v), **kwargs))
    own = ax is None
    ax = _axes(ax)
    if label is None:
        label = _power_label(power, kwargs)
    ax.plot(x, y, **{"marker": "o" if x.size <= 12 else None, "label": label, **(line_kw or {})})
    alpha = kwargs.get("alpha", _default(power, "alpha"))
    if alpha is not None and not any(line.get_gid() == "alpha" for line in ax.get_lines()):
        ax.axhline(float(alpha), color="0.5", linestyle=":", linewidth=1.0, gid="alpha",
                   label=f"alpha = {float(alpha):g}")
    ax.set_xlabel(xlabel if xlabel is not None else _AXIS_LABELS.get(name, name or "x"))
    ax.set_ylabel("power")
    ax.set_ylim(0.0, 1.02)
    if name in ("n", "n1", "n2", "epsilon") and x.min() > 0 and x.max() / x.min() >= 50:
        ax.set_xscale("log")
    if title is None and own:
        fixed = [f"{key} = {kwargs[key]:g}" for key in _TITLE_KEYS
                 if key in kwargs and isinstance(kwargs[key], (int, float)) and not isinstance(kwargs[key], bool)]
        if alpha is not None and "alpha" not in kwargs:
            fixed.append(f"alpha = {float(alpha):g}")
        title = "power at " + ", ".join(fixed) if fixed else None
    if title is not None:
        ax.set_title(title)
    _finish(ax, own)
    return ax


#: the fixed arguments a power curve's title names, in this order
_TITLE_KEYS = ("n", "n1", "n2", "epsilon", "p0", "theta", "theta1", "theta2", "margin", "alpha")


def _parameters(func):
    """The names of ``func``'s parameters, or None when it has no signature."""
    try:
        return set(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return None


def _power_label(power, kwargs):
    """The legend label of a power function in words: the test, its ordering, its alternative."""
    name = getattr(power, "__name__", "power")
    parts = [_POWER_NAMES.get(name, name.replace("_", " "))]
    if name == "binom2_ump_power":
        effect = kwargs.get("effect", "difference")
        ordering = kwargs.get("statistic") or ("score" if effect == "odds-ratio" else "difference")
        parts.append(f"{ordering} ordering")
    alternative = kwargs.get("alternative", _default(power, "alternative"))
    if alternative is not None:
        parts.append(str(alternative))
    return ", ".join(parts)


def _finish(ax, own):
    """The legend, and the report fonts on a figure dpinfer made."""
    ax.legend(loc="best", fontsize=REPORT_STYLE["legend.fontsize"] if own else "small")
    if own:
        _styled(ax)


def _default(func, name):
    """The default of ``func``'s parameter ``name``, or None."""
    try:
        param = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):
        return None
    if param is None or param.default is inspect.Parameter.empty:
        return None
    return param.default


#: the results whose ``plot()`` draws a figure (said by the TypeError of one that cannot)
_PLOTTABLE = ("binom_ump_test, binom_normal_test, prop_test, binom_jimi_test, binom2_ump_test (difference, "
              "ratio, odds ratio), binom2_jimi_test, binom2_normal_test and rr_two_sample_test (the curve of "
              "their Wald interval), binom_pooled_test, binom_strata_test, binom2_pooled_test, mean_naive_test, "
              "mean_jimi_test, mean2_naive_test, mean2_jimi_test, mean2_repro_test, mean_repro_test (with the "
              "spread released: a few seconds), mcnemar_test, rr_proportion_test, simon_test, sequential_test (the "
              "two-sided curve its interval inverts), logrank_test (the curve of its simulated hazard-ratio "
              "interval); as forest plots: binom_many_to_one_test, map_results (every result's interval) and "
              "logistic_jimi (coefficients or odds ratios); the planning results (power against n): "
              "binom_ump_power, binom_ump_sample_size, binom2_ump_power, binom2_ump_sample_size, mean_power and "
              "mean_sample_size (where their power is exact)")


#: why a result with an interval has no curve, by a phrase of its method
_NO_CURVE = {
    "log-rank": "an arm has no event, so the hazard ratio is 0 or infinite and its interval is (0, Inf) at "
                "every level",
}


def confidence_curve(result, *, theta=None, interval=None, ax=None, xlabel=None, title=None, line_kw=None):
    """Plot the confidence curve (p-value function) of a test, with its interval marked.

    The curve is the p-value the same test gives the same release at every null value
    (``p0``, a margin of a difference, ratio or odds ratio, a mean): the confidence
    interval at level ``L`` is where it lies above ``1 - L`` (for the exact tests exactly;
    see each test for hulls at the edges).

    Parameters
    ----------
    result : HTestResult or callable
        A test result that carries its p-value function (the one-arm DP-UMP, normal and
        DP-JIMI tests, :func:`~dpinfer.binom2_ump_test` for every effect, the stratified
        and pooled Tulap tests, the Wald interval's own curve of
        :func:`~dpinfer.binom2_normal_test` and :func:`~dpinfer.rr_two_sample_test`,
        :func:`~dpinfer.binom2_jimi_test`, the naive and DP-JIMI tests of means, the
        repro-samples tests with a known sigma, and the designs' :func:`~dpinfer.simon_test`
        and :func:`~dpinfer.sequential_test`), or a callable ``f(x)`` giving p-values
        (then ``interval`` marks the interval, if any).
    theta : array_like, optional
        Null values to draw at.  By default: for a proportion 400 points over [0, 1];
        otherwise 61 points around the interval (on a log scale for a ratio) and 9 more
        packed near each of its ends, plus the ends and the estimate (25 and 5 when one
        p-value takes more than 0.05 s, as McNemar's does).
    interval : ConfidenceInterval, optional
        Only with a callable ``result``: the interval to mark.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new report figure's Axes when None (see the style guide).
    xlabel, title : str, optional
        The x axis label (by default the effect: "risk difference p1 - p2", "risk ratio
        p1 / p2", "odds ratio ...", "mean mu", ...) and the title (by default the method
        and the data with epsilon).
    line_kw : dict, optional
        matplotlib keyword arguments of the curve (``color``, ``linewidth``...).

    Returns
    -------
    matplotlib.axes.Axes
        The curve (a line labelled 'p-value', gid 'curve'), a dotted line at
        ``1 - level``, the interval shaded (``axvspan``, gid 'interval') between its ends,
        and the estimate as a point when the result has one.  Ratios use a log x axis.

    Raises
    ------
    TypeError
        For a result without a p-value function (e.g. a log-rank test with an arm without
        events, or one without an interval), saying why and naming those that plot; draw it
        from a callable instead.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpinfer import TulapReleaser, binom_ump_test, binom2_ump_test
    >>> res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0)
    >>> ax = res.plot()
    >>> ax.get_ylabel(), [patch.get_gid() for patch in ax.patches]
    ('p-value', ['interval'])
    >>> rel = TulapReleaser(epsilon=1.0)
    >>> arm1, arm2 = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    >>> ax = binom2_ump_test(arm1, arm2, effect="ratio").plot()
    >>> ax.get_xlabel(), ax.get_xscale()
    ('risk ratio p1 / p2 (log scale)', 'log')
    """
    estimate, axis, data_title = None, ("null value", False, (-np.inf, np.inf)), None
    if hasattr(result, "pvalue_function"):  # an HTestResult (duck-typed: results.py imports this module)
        if interval is not None:
            raise TypeError("`interval` is taken from the result; give it only with a callable.")
        if result.pvalue_function is None:
            why = ("it has no confidence interval" if result.conf_int is None else next(
                (reason for key, reason in _NO_CURVE.items() if key in result.method), "its interval is not "
                "computed by inverting a p-value function"))
            raise TypeError(
                f"this result ({result.method}) carries no p-value function ({why}), so it has no confidence "
                f"curve to draw. Results that plot: {_PLOTTABLE}. Pass a callable f(x) returning the p-values "
                "instead.")
        func, interval, estimate = result.pvalue_function, result.conf_int, result.estimate
        axis = _EFFECT_AXES.get(result.null_name, (f"null value: {result.null_name}", False, (-np.inf, np.inf)))
        if getattr(func, "axis_label", None):  # a curve that names its own quantity (a design's)
            axis = (func.axis_label,) + axis[1:]
        data_title = _result_title(result)
    elif callable(result):
        func, axis = result, ("null value p0", False, (0.0, 1.0))
    else:
        raise TypeError(f"`result` must be an HTestResult or a callable f(p0); got "
                        f"{type(result).__name__}.")
    if line_kw is not None and not isinstance(line_kw, dict):
        raise TypeError(f"`line_kw` must be a dict of matplotlib line properties; got {type(line_kw).__name__}.")
    label, log, bounds = axis
    if theta is None:
        # a slow p-value function (e.g. McNemar's, 0.2 s a margin) gets a coarser grid
        import time

        start = time.perf_counter()
        _evaluate(func, np.array([estimate if estimate is not None and np.isfinite(estimate) else 0.5]),
                  lambda f, v: f(v))
        coarse = time.perf_counter() - start > 0.05
        theta = _curve_grid(interval, log, bounds, base=25 if coarse else 61, near=5 if coarse else 9)
        if estimate is not None and theta[0] < estimate < theta[-1]:
            theta = np.unique(np.append(theta, estimate))  # the curve's peak is drawn, not cut off
    else:
        theta = np.sort(_as_real_array(theta, "theta", ndim_max=1).reshape(-1))
    p = _evaluate(func, theta, lambda f, v: f(v))
    own = ax is None
    ax = _axes(ax)
    # a curve that is not the printed test's (e.g. the Wald interval's own) says so in its legend
    curve_label = getattr(func, "curve_label", "p-value")
    ax.plot(theta, p, **{"label": curve_label, "gid": "curve", **(line_kw or {})})
    if interval is not None:
        level = interval.level
        ax.axhline(1.0 - level, color="0.5", linestyle=":", linewidth=1.0, gid="level",
                   label=f"1 - level = {1.0 - level:g}")
        # an unbounded end (a one-sided interval of a mean or ratio) is shaded to the grid's edge
        # (a ratio's lower end 0 is unbounded on the log axis)
        ax.axvspan(interval.low if np.isfinite(interval.low) and (not log or interval.low > 0) else theta[0],
                   interval.high if np.isfinite(interval.high) else theta[-1], color="C1", alpha=0.2,
                   gid="interval", label=f"{100 * level:g}% interval [{interval.low:.4g}, {interval.high:.4g}]")
    if estimate is not None and np.isfinite(estimate) and (not log or estimate > 0):
        ax.plot([estimate], [float(_evaluate(func, np.array([estimate]), lambda f, v: f(v))[0])],
                "o", color="C3", label=f"estimate {estimate:.4g}", gid="estimate")
    ax.set_xlabel(xlabel if xlabel is not None else label)
    ax.set_ylabel("p-value")
    ax.set_ylim(0.0, 1.02)
    if log:
        _plain_log_axis(ax)
    if title is None and data_title and curve_label != "p-value":
        data_title = f"{data_title}\n{curve_label}"
    title = data_title if title is None else title
    if title:
        ax.set_title(title)
    _finish(ax, own)
    return ax


def _plain_log_axis(ax):
    """A log x axis with plain tick labels (0.5, 1, 2 rather than 5 x 10^-1), as the style guide asks."""
    from matplotlib.ticker import FuncFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))


def _result_title(result):
    """The method (wrapped) and, when short, the data with epsilon: what a report figure's title says."""
    import textwrap

    lines = textwrap.wrap(result.method, 60)
    privacy = f"epsilon = {result.epsilon:g}" if result.epsilon is not None else ""
    if result.data_name and len(result.data_name) <= 60:
        privacy = f"{result.data_name}; {privacy}" if privacy else result.data_name
    return "\n".join(lines + ([privacy] if privacy else []))


def _curve_grid(interval, log, bounds, base=61, near=9):
    """Null values for a confidence curve: the whole range of a proportion, else the interval's
    neighbourhood (log scale for a ratio) with points packed near its finite ends."""
    low_b, high_b = bounds
    if bounds == (0.0, 1.0):
        grid = np.linspace(0.0, 1.0, 401)[1:-1]
        grid = np.concatenate([[1e-4, 1.0 - 1e-4], grid])
        ends = [] if interval is None else [v for v in (interval.low, interval.high) if 0.0 < v < 1.0]
        return np.unique(np.concatenate([grid, ends]))
    fwd, back = (np.log, np.exp) if log else ((lambda v: v), (lambda v: v))
    if interval is None:
        raise TypeError("`theta` is needed to draw a callable without an interval outside [0, 1].")
    ends = [v for v in (interval.low, interval.high) if low_b < v < high_b and np.isfinite(v)]
    if not ends:
        raise ValueError("the interval has no finite end inside the parameter range; give `theta`.")
    t_ends = [float(fwd(v)) for v in ends]
    width = max(t_ends) - min(t_ends) if len(t_ends) == 2 else 0.0
    width = width if width > 0 else max(abs(t_ends[0]), 1.0) * 0.5
    lo = max(min(t_ends) - width, float(fwd(low_b)) if low_b > -np.inf and (not log or low_b > 0) else -np.inf)
    hi = min(max(t_ends) + width, float(fwd(high_b)) if high_b < np.inf else np.inf)
    grid = [np.linspace(lo, hi, base)]
    for t in t_ends:
        grid.append(t + 0.04 * width * np.linspace(-1.0, 1.0, near))
    grid = np.concatenate(grid)
    # the base grid meets the ends up to rounding (they lie a whole number of its steps from lo):
    # such a point would stand beside the end as a spurious neighbour, on either side of it
    grid = grid[np.min(np.abs(grid[:, None] - np.array(t_ends)[None, :]), axis=1) > 1e-9 * width]
    grid = np.concatenate([back(grid), ends])
    inside = (grid > low_b) & (grid < high_b)
    return np.unique(grid[inside])


def release_density(release, theta, *, grid=None, ax=None):
    """Plot the density of a release's law under chosen true proportions.

    A Tulap count is ``Z = X + N`` with ``X ~ Binomial(n, theta)`` and ``N`` the release's
    noise law (:meth:`Release.noise_law <dpinfer.Release.noise_law>`), whose density is
    ``sum_x Binom(x; n, theta) f_N(z - x)``; a Laplace proportion is ``X / n + L`` (a Laplace
    count ``X + L``).  The released value is marked, so one sees which theta make it
    plausible.

    Parameters
    ----------
    release : Release
        A Tulap count or a Laplace count or proportion (with ``n``).
    theta : float or array_like
        True proportion(s) in [0, 1]; one curve each.
    grid : array_like, optional
        Points at which to draw the density; by default 600 points covering the laws'
        central mass (mean +- 5 sd) and the released value.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per theta (labelled ``theta = ...``) and a vertical line at the release
        (gid 'release').

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpinfer import TulapReleaser
    >>> from dpinfer.plot import release_density
    >>> rel = TulapReleaser(1.0).release(11, 30, rng=2024)
    >>> ax = release_density(rel, [0.2, 0.4])
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['theta = 0.2', 'theta = 0.4']
    """
    from scipy.stats import binom

    from ._validation import _as_probability_array
    from .releasers.release import Release

    if not isinstance(release, Release):
        raise TypeError(f"`release` must be a Release; got {type(release).__name__}.")
    if release.n is None or release.kind not in ("count", "proportion") or np.ndim(release.value):
        raise ValueError("`release` must be a single released count or proportion with its n; got "
                         f"a release of kind {release.kind!r} with n = {release.n}.")
    law = release.noise_law()
    thetas = _as_probability_array(theta, "theta").reshape(-1)
    n = int(release.n)
    scale = 1.0 / n if release.kind == "proportion" else 1.0
    noise_sd = float(np.sqrt(law.var())) if callable(getattr(law, "var", None)) else 0.0
    if grid is None:
        sds = np.sqrt(n * thetas * (1 - thetas) * scale**2 + noise_sd**2)
        low = min(float(np.min(n * thetas * scale - 5 * sds)), release.value)
        high = max(float(np.max(n * thetas * scale + 5 * sds)), release.value)
        pad = 0.05 * (high - low)
        grid = np.linspace(low - pad, high + pad, 600)
    else:
        grid = np.sort(_as_real_array(grid, "grid", ndim_max=1).reshape(-1))
    ax = _axes(ax)
    for th in thetas:
        x = np.arange(n + 1)
        pmf = binom.pmf(x, n, th)
        keep = pmf > 1e-15 * pmf.max()
        # density of X * scale + N at the grid: sum_x pmf(x) f_N(z - x scale)
        dens = pmf[keep] @ law.pdf(grid[None, :] - scale * x[keep, None])
        ax.plot(grid, dens, label=f"theta = {th:g}")
    ax.axvline(release.value, color="k", linestyle="--", linewidth=1.0, gid="release",
               label=f"release {release.value:.4g}")
    what = "noisy count Z = X + N" if release.kind == "count" else "noisy proportion X / n + L"
    ax.set_xlabel(f"{what} (n = {n}, epsilon = {release.epsilon:g})")
    ax.set_ylabel("density")
    ax.set_ylim(bottom=0.0)
    ax.legend(loc="best", fontsize="small")
    return ax


def rejection_region(test, z1, z2, *, alpha=0.05, labels=("release of arm 1", "release of arm 2"),
                     ax=None):
    """Plot where a two-arm test rejects, over a grid of the two released values.

    Parameters
    ----------
    test : callable
        ``test(z1, z2)`` giving a p-value (or an HTestResult) for releases ``z1``, ``z2``;
        any two-arm test with its other arguments fixed (``functools.partial`` or a
        lambda).  Called once on the whole grid when it takes arrays, else once per point.
    z1, z2 : array_like
        Grid values of the first and second release (1-d, increasing).
    alpha : float, default 0.05
        The level: a point is in the rejection region when its p-value is at most alpha.
    labels : (str, str)
        Axis labels.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        A filled map (``pcolormesh``, gid 'region') of reject (1) / do not reject (0), and
        the p-value = alpha contour where the region has a boundary on the grid.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from dpinfer import binom2_normal_test
    >>> from dpinfer.plot import rejection_region
    >>> grid = np.linspace(0.0013, 0.9981, 21)  # released values: never k / 50 exactly
    >>> def test(a, b):
    ...     return binom2_normal_test(a, 50, b, 50, epsilon=1.0)
    >>> ax = rejection_region(test, grid, grid)
    >>> ax.get_xlabel()
    'release of arm 1'
    """
    if not callable(test):
        raise TypeError(f"`test` must be a callable test(z1, z2); got {type(test).__name__}.")
    alpha = _check_alpha(alpha)
    g1 = _as_real_array(z1, "z1", ndim_max=1).reshape(-1)
    g2 = _as_real_array(z2, "z2", ndim_max=1).reshape(-1)
    for name, g in (("z1", g1), ("z2", g2)):
        if g.size < 2 or np.any(np.diff(g) <= 0):
            raise ValueError(f"`{name}` must hold at least two increasing values; got {g.size} values.")
    if not (isinstance(labels, (tuple, list)) and len(labels) == 2):
        raise TypeError(f"`labels` must be a pair of strings; got {labels!r}.")
    a, b = np.meshgrid(g1, g2, indexing="xy")
    pairs = np.stack([a, b], axis=-1)
    try:
        p = np.asarray(_pvalues(test(a, b)), dtype=float)
        if p.shape != a.shape:
            raise ValueError
    except (TypeError, ValueError):
        p = np.array([float(_pvalues(test(float(u), float(v)))) for u, v in pairs.reshape(-1, 2)])
        p = p.reshape(a.shape)
    reject = (p <= alpha).astype(float)
    ax = _axes(ax)
    from matplotlib.colors import ListedColormap

    mesh = ax.pcolormesh(g1, g2, reject, shading="nearest", vmin=0.0, vmax=1.0,
                         cmap=ListedColormap(["#f0f0f0", "#d95f02"]))
    mesh.set_gid("region")
    if 0.0 < reject.mean() < 1.0:
        ax.contour(g1, g2, p, levels=[alpha], colors="k", linewidths=1.0)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(f"rejection region at alpha = {alpha:g} (shaded: reject)", fontsize="medium")
    return ax



def forest_plot(result, *, ax=None, title=None, odds_ratio=False):
    """Plot the intervals of a result with several effects, one row each (a forest plot).

    For a result with no single effect, hence no one confidence curve: each row is an
    estimate as a point and its interval as a horizontal line, the first row on top, with
    the null (or the margin) as a vertical line.

    * :func:`~dpinfer.binom_many_to_one_test`: each arm's difference with the control and
      its simultaneous interval (each arm's interval at the Bonferroni-adjusted level
      ``1 - (1 - level) / k`` for ``k`` arms, or at ``level`` with ``adjust='none'``); the
      adjusted per-arm level in the title.
    * :func:`~dpinfer.logistic_jimi`: each coefficient's equal-tailed fiducial interval
      (log odds), or with ``odds_ratio=True`` the same intervals exponentiated (odds ratios,
      the intercept's the baseline odds) on a log axis.
    * :class:`~dpinfer.results.HTestResults` (:func:`~dpinfer.map_results`): every result's
      interval, labelled with its data (the released value and ``n``); a result without an
      interval is drawn as its estimate alone.

    Parameters
    ----------
    result : ManyToOneResult, LogisticJimiResult or HTestResults
        From :func:`~dpinfer.binom_many_to_one_test`, :func:`~dpinfer.logistic_jimi` or
        :func:`~dpinfer.map_results`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new report figure's Axes when None.
    title : str, optional
        By default the level (and the adjustment, for many-to-one) and epsilon.
    odds_ratio : bool, default False
        A logistic fit only: draw ``exp`` of the coefficients and their intervals (the
        fiducial quantiles of ``exp(beta)`` are ``exp`` of those of ``beta``).

    Returns
    -------
    matplotlib.axes.Axes
        One row per effect (first on top): the estimate as a point (gid 'estimate') and its
        interval as a horizontal line (gid 'interval k', k from 0); the null or margin as a
        vertical line (gid 'margin'), when the rows share one.

    Raises
    ------
    TypeError
        For any other object, or ``odds_ratio`` with a result that is not a logistic fit.
    ValueError
        For an empty HTestResults.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpinfer import TulapReleaser, binom_many_to_one_test, logistic_jimi
    >>> rel = TulapReleaser(epsilon=1.0)
    >>> res = binom_many_to_one_test(rel.release(12, 40, rng=1), [rel.release(14, 40, rng=2),
    ...                              rel.release(27, 40, rng=3)])
    >>> ax = res.plot()
    >>> ax.get_xlabel(), ax.get_title().splitlines()[0]
    ('risk difference p_arm - p_control', '95% simultaneous intervals (Bonferroni: each arm at 97.5%)')
    >>> fit = logistic_jimi([[41.2, 9.7], [18.3, 30.9]], epsilon=1.0, n_sim=2000, rng=3)
    >>> ax = fit.plot(odds_ratio=True)
    >>> ax.get_xlabel(), [t.get_text() for t in ax.get_yticklabels()]
    ('odds ratio exp(coefficient) (log scale)', ['(Intercept)', 'x2'])
    """
    from .inference.pairs import ManyToOneResult
    from .results import HTestResults, LogisticJimiResult

    if not isinstance(odds_ratio, (bool, np.bool_)):
        raise TypeError(f"`odds_ratio` must be True or False; got {odds_ratio!r}.")
    if odds_ratio and not isinstance(result, LogisticJimiResult):
        raise TypeError("`odds_ratio` applies to a logistic fit (from dpinfer.logistic_jimi); got "
                        f"{type(result).__name__}.")
    title = _check_label(title, "title")
    log = False
    if isinstance(result, ManyToOneResult):
        labels = [f"{name} - control" for name in result.names]
        rows = [(ci.low, ci.high, est) for ci, est in zip(result.conf_int, result.estimate)]
        reference, xlabel, legend = result.margin, "risk difference p_arm - p_control", "simultaneous interval"
        level = result.confidence_level
        if title is None:
            k = len(labels)
            per_arm = f"{100 * (1.0 - (1.0 - level) / k):g}"
            how = (f"Bonferroni: each arm at {per_arm}%" if result.adjust != "none" else "unadjusted, per comparison")
            kind = "simultaneous" if result.adjust != "none" else "per-comparison"
            title = (f"{100 * level:g}% {kind} intervals ({how})\np-values adjusted by {result.adjust}; "
                     f"epsilon = {result.epsilon:g}")
        ref_label = f"margin = {reference:g}"
    elif isinstance(result, LogisticJimiResult):
        labels = list(result.terms)
        rows = list(zip(result.conf_low, result.conf_high, result.estimate))
        if odds_ratio:
            rows = [tuple(float(np.exp(v)) for v in row) for row in rows]
            reference, xlabel, log = 1.0, "odds ratio exp(coefficient) (log scale)", True
            ref_label = "odds ratio 1"
        else:
            reference, xlabel, ref_label = 0.0, "coefficient (log odds ratio)", "coefficient 0"
        legend = f"{100 * result.confidence_level:g}% fiducial interval"
        if title is None:
            title = f"{result.method}: {result.formula}\nepsilon = {result.epsilon:g}"
    elif isinstance(result, HTestResults):
        if len(result) == 0:
            raise ValueError("an empty HTestResults has no interval to draw.")
        labels = [r.data_name or f"result {i + 1}" for i, r in enumerate(result)]
        rows = [((r.conf_int.low, r.conf_int.high) if r.conf_int is not None else (np.nan, np.nan))
                + (r.estimate if r.estimate is not None else np.nan,) for r in result]
        first = result[0]
        names = {r.null_name for r in result}
        axis = _EFFECT_AXES.get(first.null_name, (str(first.null_name), False, None)) if len(names) == 1 else \
            ("estimate", False, None)
        xlabel, log = axis[0], axis[1]
        nulls = {r.null_value for r in result}
        reference = first.null_value if len(nulls) == 1 and isinstance(first.null_value, (int, float)) else None
        ref_label = f"null value {reference:g}" if reference is not None else None
        levels = {r.conf_int.level for r in result if r.conf_int is not None}
        legend = f"{100 * levels.pop():g}% interval" if len(levels) == 1 else "interval"
        if title is None:
            methods = sorted({r.method for r in result})
            eps = sorted({r.epsilon for r in result if r.epsilon is not None})
            import textwrap

            lines = textwrap.wrap("; ".join(methods), 70, max_lines=2, placeholder=" ...")
            title = "\n".join(lines + (["epsilon = " + ", ".join(f"{e:g}" for e in eps)] if eps else []))
    else:
        raise TypeError(f"`result` must be a ManyToOneResult, a LogisticJimiResult or an HTestResults (from "
                        f"binom_many_to_one_test, logistic_jimi or map_results); got {type(result).__name__}.")
    own = ax is None
    ax = _axes(ax)
    _forest_rows(ax, labels, rows, legend, log)
    if reference is not None:
        ax.axvline(reference, color="0.5", linestyle=":", linewidth=1.0, gid="margin", label=ref_label)
    if log:
        _plain_log_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    _finish(ax, own)
    return ax


def _forest_rows(ax, labels, rows, legend, log=False):
    """One row per ``(low, high, estimate)``, the first on top (as a printed table reads).  An unbounded
    end (infinite, or 0 on a log axis) is drawn to a little beyond the finite values, with an arrow
    head (gid 'unbounded')."""
    k = len(rows)
    ys = np.arange(k)[::-1]
    finite = np.array([v for row in rows for v in row if np.isfinite(v) and (not log or v > 0)], dtype=float)
    if finite.size:
        t = np.log(finite) if log else finite
        pad = 0.1 * (t.max() - t.min()) or 1.0
        edges = (t.min() - pad, t.max() + pad)
        edges = tuple(np.exp(edges)) if log else edges
    shown = set()  # each legend entry once
    for i, (y, (low, high, est)) in enumerate(zip(ys, rows)):
        ends = [low, high]
        if (np.isfinite(low) or np.isfinite(high)) and finite.size:
            for j, (end, edge, head) in enumerate(zip(ends, edges, ("<", ">"))):
                if not np.isfinite(end) or (log and end <= 0):
                    ends[j] = edge
                    ax.plot([edge], [y], head, color="C0", gid="unbounded")
            ax.plot(ends, [y, y], color="C0", linewidth=2.0, gid=f"interval {i}",
                    label=None if "interval" in shown else legend)
            shown.add("interval")
        if est is not None and np.isfinite(est):
            ax.plot([est], [y], "o", color="C3", gid="estimate", label=None if "estimate" in shown else "estimate")
            shown.add("estimate")
    ax.set_yticks(ys, labels)
    ax.set_ylim(-0.7, k - 0.3)


def planning_curve(result, values=None, *, ax=None, title=None):
    """Plot a plan's exact power against the sample size, with the plan, the comparator and the target.

    ``result`` is the answer of a planning function: a :class:`~dpinfer.results.PowerResult`
    (:func:`~dpinfer.binom_ump_power`, :func:`~dpinfer.binom2_ump_power`,
    :func:`~dpinfer.mean_power`), a :class:`~dpinfer.results.SampleSizeResult`
    (:func:`~dpinfer.binom_ump_sample_size`, :func:`~dpinfer.mean_sample_size`) or a
    :class:`~dpinfer.results.SampleSizesResult` (:func:`~dpinfer.binom2_ump_sample_size`,
    two-group :func:`~dpinfer.mean_sample_size`).  Every point is the planner's own exact
    power at that ``n`` (per arm: the first arm's size, the second's by the same allocation),
    the question's other arguments fixed; the grey curve is the same test without the
    privacy noise (the comparator of ``print(result)``).  Also ``result.plot()``.

    Parameters
    ----------
    result : PowerResult, SampleSizeResult or SampleSizesResult
    values : array_like of int, optional
        The sample sizes to draw at (the first arm's, for two).  By default about 20 whole
        numbers from 40% of the smaller of the planned and the comparator's ``n`` to 130% of
        the larger (a power: from ``n / 4`` to ``2 n``), with both ``n`` and, for a sample
        size, ``n - 1`` (where the power is still below the target).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new report figure's Axes when None (see the style guide).
    title : str, optional
        By default the planner's method and its question (null, alternative, alpha, epsilon).

    Returns
    -------
    matplotlib.axes.Axes
        Lines with gids 'power' (the private exact power) and 'nonprivate' (without noise),
        the plan as a vertical line ('plan') and a point ('planned power'), the comparator
        as a point ('comparator'), and for a sample size the target power as a dotted
        horizontal line ('target power').

    Raises
    ------
    TypeError
        For anything but a planning result, or one whose power is simulated
        (:func:`~dpinfer.mean_power` with the spread released, two DP-JIMI groups or
        ``n_sim`` given): each point would be thousands of simulated trials, so no curve is
        drawn; plot ``mean_power`` over ``n`` yourself with :func:`power_curve` and a stated
        ``n_sim``.
    ValueError
        For ``values`` that are not whole sample sizes (at least 2 for means, 1 otherwise).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpinfer import binom_ump_sample_size
    >>> n = binom_ump_sample_size(0.4, 0.2, epsilon=1.0)
    >>> ax = n.plot()
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('number of patients n', 'power')
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['exact DP test (DP-UMP)', 'the same test without noise']
    """
    from .results import PowerResult, SampleSizeResult, SampleSizesResult

    if not isinstance(result, (PowerResult, SampleSizeResult, SampleSizesResult)):
        raise TypeError(f"`result` must be a PowerResult, SampleSizeResult or SampleSizesResult (the answer of a "
                        f"planning function); got {type(result).__name__}.")
    curve = result._curve
    if curve is None:
        raise TypeError(f"this plan ({result.method}) has a simulated power: each point of a curve over n would be "
                        "thousands of simulated trials, so it has no curve to draw; call mean_power over n with a "
                        "stated n_sim (dpinfer.plot.power_curve) instead, or plan with sigma known (exact).")
    title = _check_label(title, "title")
    fields = result._fields
    sizing = not isinstance(result, PowerResult)
    n_plan = int(result[0]) if isinstance(result, SampleSizesResult) else int(fields.get("n", fields.get("n1")))
    n1, n2 = fields.get("n1"), fields.get("n2")
    two = n2 is not None
    if sizing:
        comp = result.nonprivate_n
        comp = comp[0] if isinstance(comp, tuple) else comp
    else:
        comp = None
    if values is None:
        ends = [n_plan] + ([comp] if comp is not None else [])
        lo, hi = (max(1, int(0.4 * min(ends))), int(np.ceil(1.3 * max(ends)))) if sizing else \
            (max(1, n_plan // 4), 2 * n_plan)
        values = np.round(np.linspace(lo, hi, 13 if two and "mu1" not in fields else 20))
        values = np.concatenate([values, ends, [n_plan - 1] if sizing and n_plan > 1 else []])
    grid = np.unique(_as_real_array(values, "values", ndim_max=1).reshape(-1))
    if grid.size == 0 or np.any(grid != np.floor(grid)) or grid[0] < (2 if "mu1" in fields else 1):
        raise ValueError(f"`values` must be whole sample sizes of at least {2 if 'mu1' in fields else 1}; got "
                         f"{values!r}.")
    if not two:
        xlabel = "number of patients n"
    elif n1 == n2 and fields.get("ratio") in (None, 1.0):
        xlabel = "patients per group (n1 = n2 = n)" if "mu1" in fields else "patients per arm (n1 = n2 = n)"
    else:
        rule = (f"n2 = ceil({fields['ratio']:g} n1)" if fields.get("ratio") is not None
                else f"n2 = ceil({n2} n1 / {n1})")
        xlabel = f"patients in arm 1 (n1; {rule})"
    if "mu1" in fields:
        test = "DP-JIMI test" if "DP-JIMI" in result.method else "naive DP z test"
    else:
        test = "exact DP test (DP-UMP)" if "p0" in fields else f"exact DP test, {fields['statistic']} ordering"
    own = ax is None
    ax = power_curve(curve, grid, over="n", ax=ax, label=test,
                     xlabel=xlabel, title="", line_kw={"color": "C0", "gid": "power"})
    power_curve(curve, grid, over="n", ax=ax, label="the same test without noise", xlabel=xlabel, title="",
                noise=False, line_kw={"color": "0.45", "linestyle": "--", "gid": "nonprivate"})
    at_plan = curve(n_plan)
    ax.axvline(n_plan, color="C0", linestyle=":", linewidth=1.0, gid="plan",
               label=f"plan: n = {n_plan}" + (f" + {n2}" if two and n2 != n_plan else ""))
    ax.plot([n_plan], [at_plan], "o", color="C0", gid="planned power", label=f"power at the plan: {at_plan:.4f}")
    if sizing:
        target = float(fields.get("target_power", fields["power"]))
        ax.axhline(target, color="C1", linestyle=":", linewidth=1.0, gid="target power",
                   label=f"target power = {target:g}")
        if comp is not None:
            ax.plot([comp], [curve(comp, noise=False)], "s", color="0.45", gid="comparator",
                    label=(f"without noise: n1 = {comp} (price: {result.price_total} in total)" if two else
                           f"without noise: n = {comp} (price: {result.price})"))
    else:
        nonprivate = curve(n_plan, noise=False)
        ax.plot([n_plan], [nonprivate], "s", color="0.45", gid="comparator",
                label=f"without noise at the plan: {nonprivate:.4f}")
    if title is None:
        import textwrap

        question = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                             for k, v in result._question.items()
                             if k not in ("n", "n1", "n2", "power", "Monte Carlo SE", "sig.level"))
        privacy = result._privacy_line.removeprefix("privacy: ").split(",")[0]
        what = result.method.replace("Exact sample size of", "Exact power against n of").replace(
            "Sample size of", "Power against n of").replace("power of", "power against n of").replace(
            "Power of", "Power against n of")
        title = "\n".join(textwrap.wrap(what, 70, break_on_hyphens=False)
                          + textwrap.wrap(f"{question}; {privacy}", 70, break_on_hyphens=False))
    ax.set_title(title)
    _finish(ax, own)
    return ax


def km_curves(fit, *, ax=None, bands=True, risk_table=True, colors=None):
    """Plot Kaplan-Meier curves of a private life table, with bands and the numbers at risk.

    Parameters
    ----------
    fit : KaplanMeierResult
        From :func:`~dpinfer.kaplan_meier`.
    ax : matplotlib Axes, optional
        Where to draw (a new figure's Axes when None).
    bands : bool, default True
        Shade the pointwise confidence intervals (steps, like the curves).
    risk_table : bool, default True
        Write the numbers at risk of each arm under the axis, at time 0 and at each break
        (the consistent table's, see :func:`~dpinfer.kaplan_meier`).
    colors : sequence of colours, optional
        One per arm (default: matplotlib's cycle).

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    The curve is known at the breaks only (the release is a grouped life table): it is
    drawn as a step function that drops at each break, from ``S(0) = 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import LifeTableReleaser, kaplan_meier
    >>> from dpinfer.plot import km_curves
    >>> gen = np.random.default_rng(1)
    >>> time = np.concatenate([gen.exponential(8.0, 80), gen.exponential(5.0, 80)])
    >>> rel = LifeTableReleaser(1.0, [2, 4, 6, 8]).release(time, np.ones(160), ["A"] * 80 + ["B"] * 80, rng=2)
    >>> ax = km_curves(kaplan_meier(rel, n_sim=200))
    >>> len(ax.lines), [t.get_text() for t in ax.texts][:3]
    (2, ['number at risk', 'A', '80'])
    """
    from .inference.survival import KaplanMeierResult

    if not isinstance(fit, KaplanMeierResult):
        raise TypeError(f"`fit` must be a KaplanMeierResult (from dpinfer.kaplan_meier); got {type(fit).__name__}.")
    import matplotlib.transforms as transforms

    ax = _axes(ax)
    times = np.concatenate([[0.0], np.asarray(fit.time, dtype=float)])
    cycle = colors if colors is not None else [None] * len(fit.groups)
    shown = []
    for a, group in enumerate(fit.groups):
        surv = np.concatenate([[1.0], fit.surv[a]])
        (line,) = ax.step(times, surv, where="post", color=cycle[a % len(cycle)], label=str(group))
        shown.append(line.get_color())
        if bands:
            low = np.concatenate([[1.0], fit.lower[a]])
            high = np.concatenate([[1.0], fit.upper[a]])
            ax.fill_between(times, low, high, step="post", color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlim(0.0, times[-1])
    ax.set_xlabel("time")
    ax.set_ylabel("survival probability")
    level = f"{100 * fit.confidence_level:g}"
    ax.set_title(f"Kaplan-Meier from a private life table (epsilon = {fit.epsilon:g}; bands: {level}% pointwise)",
                 fontsize=9)
    if len(fit.groups) > 1:
        ax.legend(frameon=False)
    if risk_table:
        blend = transforms.blended_transform_factory(ax.transData, ax.transAxes)
        ax.text(0.0, -0.18, "number at risk", transform=ax.transAxes, fontsize=8, ha="left", va="top")
        for a, group in enumerate(fit.groups):
            y = -0.26 - 0.07 * a
            at_risk = np.concatenate([fit.n_risk[a], [fit.n_risk[a, -1] - fit.n_event[a, -1] - fit.n_censor[a, -1]]])
            ax.text(-0.05, y, str(group), transform=ax.transAxes, fontsize=8, ha="right", va="top", color=shown[a])
            for t, m in zip(times, at_risk):
                ax.text(t, y, f"{int(m)}", transform=blend, fontsize=8, ha="center", va="top", color=shown[a])
    return ax


def oc_curves(design, values=None, *, theta2=None, ax=None, title=None):
    """Plot a design's exact operating characteristics: efficacy, early stopping, expected n.

    For a :class:`~dpinfer.SimonDesign`, against the true response probability ``p``: the
    probability of rejecting H0 (``sum_{k1 > r1} P(K1 = k1) P(K2 > r - k1)``), of stopping
    for futility after stage 1 (``P(K1 <= r1)``) and, on a second y axis, the expected
    sample size ``n1 + (1 - PET) n2``.  For a :class:`~dpinfer.SequentialDesign`, against
    the true difference ``theta1 - theta2`` at a stated control rate ``theta2``: the
    probability of stopping for efficacy at some look, of stopping before the last look
    (for efficacy or futility) and the expected total sample size.  Every point is the
    design's own exact computation
    (:meth:`~dpinfer.SimonDesign.operating_characteristics`,
    :meth:`~dpinfer.SequentialDesign.operating_characteristics`): no simulation.

    Parameters
    ----------
    design : SimonDesign or SequentialDesign
        From :func:`~dpinfer.simon_design` or :func:`~dpinfer.sequential_design`.
    values : array_like, optional
        The x values: response probabilities in [0, 1] (Simon; 201 points over [0, 1] by
        default) or differences ``theta1 - theta2`` with ``theta2 + x`` in [0, 1]
        (sequential; by default 121 points from half the planned difference beyond the
        null to the planned difference beyond it, within the rates' range).  The null and
        the planned value are always added.
    theta2 : float, optional
        Sequential designs only: the control rate the differences are taken at (default the
        planned ``theta2``).  The probability at difference 0 is the size at that common
        rate, at most the design's certified ``alpha`` (the supremum over common rates).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new report figure's Axes when None (see the style guide).
    title : str, optional
        By default the design (kind, sizes, thresholds) and its privacy.

    Returns
    -------
    matplotlib.axes.Axes
        Lines with gids 'reject' (P(reject H0)) and 'early stop'; vertical lines at the null
        ('null') and the planned value ('planned'); the size and power as points ('size',
        'power') with dotted lines at alpha ('alpha') and the target power ('target
        power'); the expected sample size (gid 'expected n') on a twin Axes with gid
        'expected n axis' (``ax.figure.axes``).

    Raises
    ------
    TypeError
        For anything but a design, or ``theta2`` given with a Simon design.
    ValueError
        For x values or a control rate outside the parameter range.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpinfer import simon_design
    >>> ax = simon_design(0.1, 0.3, epsilon=1.0, max_n=60).plot()
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('true response probability p', 'probability')
    >>> ax.get_title().splitlines()[0]
    "Simon's optimal two-stage design: r1/n1 = 2/17, r/n = 8/41"
    """
    from ._validation import _as_probability_array, _check_probability
    from .inference.designs import SequentialDesign, SimonDesign

    if isinstance(design, SimonDesign):
        if theta2 is not None:
            raise TypeError("`theta2` is the control rate of a two-arm design; a Simon design has one arm.")
        x = np.linspace(0.0, 1.0, 201) if values is None else _as_probability_array(values, "values").reshape(-1)
        x = np.unique(np.concatenate([x, [design.p0, design.p1]]))
        oc = design.operating_characteristics(x)
        reject, early, en = oc.reject, oc.pet, oc.en
        null, planned, size = design.p0, design.p1, design.size
        xlabel = "true response probability p"
        names = ("P(reject H0)", "P(stop for futility after stage 1)", "expected sample size (patients)")
        marks = (f"p0 = {design.p0:g}", f"p1 = {design.p1:g}")
        at = ("p0", "p1")
        power, target = design.power, design.target_power
        privacy = ("no privacy" if design.epsilon is None else
                   f"private stages, epsilon = {design.epsilon:g} for the whole design")
        default_title = (f"Simon's {design.design} two-stage design: r1/n1 = {design.r1}/{design.n1}, "
                         f"r/n = {design.r}/{design.n}\n{privacy}")
    elif isinstance(design, SequentialDesign):
        control = design.theta2 if theta2 is None else _check_probability(theta2, "theta2")
        planned = design.theta1 - design.theta2
        if values is None:
            lo = min(0.0, planned) - 0.5 * abs(planned)
            hi = max(0.0, planned) + 0.5 * abs(planned)
            x = np.linspace(max(lo, -control), min(hi, 1.0 - control), 121)
        else:
            x = _as_real_array(values, "values", ndim_max=1).reshape(-1)
            bad = (control + x < 0.0) | (control + x > 1.0)
            if bad.any():
                raise ValueError(f"`values` must be differences theta1 - theta2 with theta2 + x in [0, 1] (theta2 "
                                 f"= {control:g}); got {x[bad][0]!r}.")
        x = np.unique(np.concatenate([x, [0.0]] + ([[planned]] if 0.0 <= control + planned <= 1.0 else [])))
        ocs = [design.operating_characteristics(min(1.0, max(0.0, control + v)), control) for v in x]
        reject = np.array([oc.reject for oc in ocs])
        early = np.array([sum(oc.efficacy[:-1]) + sum(oc.futility[:-1]) for oc in ocs])
        en = np.array([oc.expected_n for oc in ocs])
        null, size = 0.0, float(reject[x == 0.0][0])
        power = float(reject[x == planned][0]) if planned in x else None
        target = design.power
        xlabel = f"true difference theta1 - theta2 (control rate theta2 = {control:g})"
        names = ("P(stop for efficacy: reject H0)", "P(stop before the last look)",
                 "expected total n (patients, both arms)")
        marks = ("H0: theta1 = theta2", f"planned difference {planned:g}")
        at = (f"theta1 = theta2 = {control:g}", "the planned difference")
        privacy = ("no privacy" if design.epsilon is None else
                   f"private releases, epsilon = {design.epsilon:g} for the whole design")
        spending = {"obrien-fleming": "O'Brien-Fleming", "pocock": "Pocock"}.get(design.spending, "user")
        default_title = (f"{design.looks}-look group-sequential design ({spending} spending): n = "
                         f"{design.n1[-1]} + {design.n2[-1]}\n{privacy}")
    else:
        raise TypeError(f"`design` must be a SimonDesign or a SequentialDesign (from simon_design or "
                        f"sequential_design); got {type(design).__name__}.")
    title = _check_label(title, "title")
    own = ax is None
    ax = _axes(ax)
    ax.plot(x, reject, color="C0", label=names[0], gid="reject")
    ax.plot(x, early, color="C2", linestyle="-.", label=names[1], gid="early stop")
    ax.axvline(null, color="0.4", linestyle="--", linewidth=1.0, label=marks[0], gid="null")
    ax.axvline(planned, color="0.4", linestyle=(0, (1, 1)), linewidth=1.0, label=marks[1], gid="planned")
    ax.axhline(design.alpha, color="C3", linestyle=":", linewidth=1.0, gid="alpha", label=f"alpha = {design.alpha:g}")
    ax.axhline(target, color="C1", linestyle=":", linewidth=1.0, gid="target power",
               label=f"target power = {target:g}")
    ax.plot([null], [size], "o", color="C3", gid="size", label=f"size at {at[0]}: {size:.4f}")
    if power is not None:
        ax.plot([planned], [power], "o", color="C1", gid="power", label=f"power at {at[1]}: {power:.4f}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability")
    ax.set_ylim(0.0, 1.02)
    twin = ax.twinx()
    twin.set_gid("expected n axis")
    (line,) = twin.plot(x, en, color="0.3", linestyle="--", label=names[2], gid="expected n")
    twin.set_ylabel(names[2])
    twin.set_ylim(0.0, 1.05 * float(np.max(en)))
    ax.set_title(default_title if title is None else title)
    # one legend for both y axes (the twin's line listed with the others)
    handles, labels = ax.get_legend_handles_labels()
    # below the Axes: every part of the square holds a curve
    ax.legend(handles + [line], labels + [names[2]], loc="upper center", bbox_to_anchor=(0.5, -0.17), ncols=2,
              fontsize=REPORT_STYLE["legend.fontsize"] if own else "small")
    if own:
        _styled(ax)
        twin.yaxis.label.set_size(REPORT_STYLE["axes.labelsize"])
        twin.tick_params(labelsize=REPORT_STYLE["ytick.labelsize"])
    return ax
