"""The local-DP validation studies run with --quick and their numbers make sense."""

import numpy as np
import pytest

from validation import harness, ldp_coverage, ldp_gof_size, ldp_rr_accuracy, ldp_unary_rates
from validation.harness import read_csv


def _run(module, tmp_path, *extra):
    assert module.main(["--quick", "--out", str(tmp_path), "--no-progress", *extra]) == 0
    mode = extra[extra.index("--mode") + 1] if "--mode" in extra else "exact"
    stem = f"{module.STUDY}_{mode}_quick"
    assert (tmp_path / f"{stem}.png").stat().st_size > 0
    return read_csv(tmp_path / f"{stem}.csv")


@pytest.fixture
def figures(monkeypatch):
    """The figures the studies save, in order (each is still written to its file)."""
    saved = []
    save = harness.save_figure

    def keep(fig, path, **kwargs):
        saved.append(fig)
        return save(fig, path, **kwargs)

    monkeypatch.setattr(harness, "save_figure", keep)
    return saved


def _visible_xtick_labels(ax, renderer):
    """The x tick labels (major and minor) drawn inside the axis's view, with their boxes."""
    low, high = sorted(ax.get_xlim())
    labels = [t for t in ax.xaxis.get_majorticklabels() + ax.xaxis.get_minorticklabels()
              if t.get_visible() and t.get_text() and low <= t.get_position()[0] <= high]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in labels]


def test_rr_accuracy_exact(tmp_path):
    meta, rows = _run(ldp_rr_accuracy, tmp_path)
    assert meta["study"] == "ldp_rr_accuracy" and len(rows) == 3 * len(ldp_rr_accuracy.EPSILONS_QUICK)
    for r in rows:
        a0, a1 = 1 / (1 + np.exp(r["epsilon"])), 1 / (1 + np.exp(-r["epsilon"]))
        lam = a0 + (a1 - a0) * r["p"]
        assert r["se"] == pytest.approx(np.sqrt(lam * (1 - lam) / r["n"]) / (a1 - a0), rel=1e-12)
        assert r["se"] >= r["se_nonprivate"]
        assert r["example_low"] <= r["example_high"]
    for n in ldp_rr_accuracy.NS:
        widths = [r["mean_width"] for r in sorted(rows, key=lambda r: r["epsilon"]) if r["n"] == n]
        assert widths == sorted(widths, reverse=True)  # more privacy budget, narrower intervals


def test_rr_accuracy_simulate(tmp_path):
    _, rows = _run(ldp_rr_accuracy, tmp_path, "--mode", "simulate")
    for r in rows:  # the estimator is unbiased: |bias| within 4 Monte Carlo SE
        assert abs(r["bias"]) <= 4 * r["bias_mc_se"]


@pytest.mark.parametrize("mode", [(), ("--mode", "simulate")])
def test_unary_rates_slopes(tmp_path, mode):
    meta, rows = _run(ldp_unary_rates, tmp_path, *mode)
    for sweep, spec in ldp_unary_rates.SWEEPS.items():
        assert meta[f"ok_{sweep}"] == "true"
        assert abs(float(meta[f"slope_{sweep}"]) - spec["slope"]) <= float(meta[f"tolerance_{sweep}"])
    for r in rows:  # the exact formula, recomputed here
        h = np.exp(r["epsilon"] / 2)
        assert r["mse_exact"] == pytest.approx((r["d"] * h / (h - 1) ** 2 + 1 - 1 / r["d"]) / r["n"], rel=1e-12)


def test_coverage_quick(tmp_path):
    _, rows = _run(ldp_coverage, tmp_path)
    for r in rows:
        if r["mc_se"] is None:  # exact coverage of the RR intervals
            assert 0.93 <= r["coverage"] <= 0.97
            if r["method"] in ("rr_exact", "two_coin_exact"):
                assert r["coverage"] >= 0.95 - 1e-12
        elif "scheffe" in r["method"]:  # conservative by design
            assert r["coverage"] >= 0.95 - 4 * r["mc_se"]
        else:
            assert abs(r["coverage"] - 0.95) <= 4 * r["mc_se"]


def test_gof_size_quick(tmp_path):
    _, rows = _run(ldp_gof_size, tmp_path)
    assert {r["test"] for r in rows} == {"krr_gof", "unary_gof", "rr_two_sample", "rr_exact_binomial"}
    for r in rows:
        if r["mc_se"] is None:
            assert r["size"] <= 0.05 + 1e-12
        else:
            assert abs(r["size"] - 0.05) <= 4 * r["mc_se"]


@pytest.mark.parametrize("mode", ["exact", "simulate"])
def test_coverage_rows_say_how_they_were_computed(tmp_path, figures, mode):
    # Exact mode: the randomized-response rows are finite sums, the others simulated;
    # simulate mode: every row is simulated.  The `mode` column keeps the run mode.
    _, rows = _run(ldp_coverage, tmp_path, "--mode", mode)
    for r in rows:
        exact = mode == "exact" and r["method"] in ldp_coverage.EXACT_CAPABLE
        assert r["mode"] == mode
        assert r["computed"] == ("exact" if exact else "simulated")
        assert (r["mc_se"] is None) == exact and (r["reps"] is None) == exact
    titles = [ax.get_title() for ax in figures[0].axes]
    rr_title = "(exact)" if mode == "exact" else "(simulated, 400 data sets)"
    assert titles == [f"binary randomized response\n{rr_title}",
                      "k-RR / unary encoding (joint)\n(simulated, 400 data sets)",
                      "local Laplace mean\n(simulated, 400 data sets)"]
    assert f"({mode}" not in figures[0].get_suptitle()  # the run mode is not how points were got


@pytest.mark.parametrize("mode", ["exact", "simulate"])
def test_gof_size_rows_say_how_they_were_computed(tmp_path, figures, mode):
    # The exact binomial test's size is a finite sum in both modes; the other three
    # tests are always simulated (from the exact law of the counts, or through the
    # releasers in simulate mode).
    meta, rows = _run(ldp_gof_size, tmp_path, "--mode", mode)
    assert meta["mode"] == mode and meta["reps"] == "1000"
    for r in rows:
        exact = r["test"] == "rr_exact_binomial"
        assert r["mode"] == mode and r["computed"] == ("exact" if exact else "simulated")
        assert (r["mc_se"] is None) == exact
    titles = [ax.get_title() for ax in figures[0].axes]
    assert titles == ["k-RR goodness of fit\n(simulated, 1,000 data sets)",
                      "unary-encoding GOF (projected)\n(simulated, 1,000 data sets)",
                      "RR two-sample z test\n(simulated, 1,000 data sets)",
                      "RR exact binomial test\n(exact)"]


def test_rr_accuracy_draws_the_interval_and_the_estimate_separately(tmp_path, figures):
    # The unbiased estimate can leave its interval, which is clipped to [0, 1] (the full
    # run has -0.357 against [0, 0.048] at n = 100, epsilon = 0.5): the bar must still
    # span exactly the interval, and the estimate be a marker of its own.
    _, rows = _run(ldp_rr_accuracy, tmp_path)
    outside = next(r for r in rows if r["n"] == 100)
    outside.update(example_estimate=-0.357, example_low=0.0, example_high=0.048)
    ldp_rr_accuracy.plot(rows, {"mode": "exact"}, tmp_path / "outside.png")
    right = figures[-1].axes[2]
    bars = sorted((float(seg[:, 1].min()), float(seg[:, 1].max()))
                  for coll in right.collections for seg in coll.get_segments()
                  if np.ptp(seg[:, 0]) == 0)  # the vertical segments (not the caps)
    np.testing.assert_allclose(bars, sorted((r["example_low"], r["example_high"]) for r in rows),
                               rtol=0, atol=1e-12)
    dots = sorted(y for line in right.get_lines() if line.get_marker() == "o" for y in line.get_ydata())
    assert dots == pytest.approx(sorted(r["example_estimate"] for r in rows))


@pytest.mark.parametrize("mode", ["exact", "simulate"])
def test_unary_rates_tick_labels_do_not_overlap(tmp_path, figures, mode):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    _run(ldp_unary_rates, tmp_path, "--mode", mode)
    canvas = FigureCanvasAgg(figures[0])
    canvas.draw()
    renderer = canvas.get_renderer()
    labels = {sweep: sorted(_visible_xtick_labels(ax, renderer), key=lambda item: item[1].x0)
              for ax, sweep in zip(figures[0].axes, ldp_unary_rates.SWEEPS)}
    for sweep, drawn in labels.items():
        for (_, left), (_, right) in zip(drawn, drawn[1:]):
            assert left.x1 < right.x0, (sweep, [text for text, _ in drawn])
    for sweep, drawn in labels.items():  # the ticks are the sweep's own values, plain numbers
        values = ldp_unary_rates.SWEEPS[sweep]["values"]
        expected = sorted(1 / v for v in values) if sweep == "inv_epsilon" else values
        assert [float(text) for text, _ in drawn] == pytest.approx(expected)
