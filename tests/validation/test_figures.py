"""Tests of the studies' figures (validation/_figures.py): reproducible files, labels, Monte Carlo SE."""

import numpy as np
import pytest

from validation import _figures
from validation._figures import new_figure, save_figure


@pytest.mark.parametrize(
    "rows, label",
    [([{"computed": "exact", "reps": None}] * 2, "exact"),
     ([{"computed": "simulated", "reps": 10_000}] * 2, "simulated, 10,000 data sets"),
     ([{"computed": "simulated", "reps": 400}, {"computed": "simulated", "reps": 2000}],
      "simulated, 400/2,000 data sets"),
     ([{"computed": "simulated", "reps": 400}, {"computed": "exact", "reps": None}],
      "exact and simulated")],
)
def test_computed_label(rows, label):
    assert _figures.computed_label(rows) == label


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_figures_are_reproducible(tmp_path, suffix):
    def draw(path):
        fig, axes = new_figure(2)
        assert axes.shape == (2,)
        for ax in axes:
            ax.plot([0, 1], [0.04, 0.05], **_figures.method_style("dp_ump"))
            _figures.plot_nominal(ax, 0.05)
            _figures.plot_band(ax, [0, 1], [0.03, 0.04], [0.05, 0.06], color="C0")
            _figures.finish_axes(ax, title="t", xlabel="x", ylabel="y")
        _figures.add_legend(fig)
        return save_figure(fig, path)

    a = draw(tmp_path / f"a.{suffix}").read_bytes()
    b = draw(tmp_path / f"b.{suffix}").read_bytes()
    assert a == b and len(a) > 1000


def test_mc_se():
    np.testing.assert_allclose(_figures.mc_se([0.05, 0.5], 10_000), [np.sqrt(0.0475) / 100, 0.005])


# -- the gallery: no overlapping text, no code names in legends (issue 42, item 1) ----------

def test_text_overlaps_finds_a_title_running_over_its_neighbour():
    fig, axes = new_figure(3)
    long = "exact size (max over the nuisance; CSV: to 1e-12) of every setting"
    axes[0].set_title(long, fontsize=9)  # not wrapped: runs over the middle panel's title
    axes[1].set_title("power, n = 50 per arm, epsilon = 1, theta2 = 0.3", fontsize=9)
    assert any(long in pair for pair in _figures.text_overlaps(fig))
    fig, axes = new_figure(3)
    _figures.finish_axes(axes[0], title=long, ylabel="largest rejection probability")
    _figures.finish_axes(axes[1], title="power, n = 50 per arm, epsilon = 1, theta2 = 0.3",
                         ylabel="rejection probability")
    assert "\n" in axes[0].get_title()
    assert _figures.text_overlaps(fig) == []


def _two_arm_rows():
    rows = []
    for n in (20, 50):
        for eps in (0.5, 1.0):
            for alt in ("greater", "two-sided"):
                rows.append({"part": "size", "n": n, "epsilon": eps, "alternative": alt, "method": "dp_ump2",
                             "max_size": 0.049})
    for method in ("dp_ump2", "dp_ump2_score", "normal", "dp_jimi", "boschloo_nonprivate"):
        for theta1 in (0.3, 0.5, 0.7):
            rows.append({"part": "power", "n": 50, "epsilon": 1.0, "method": method, "theta1": theta1,
                         "power": theta1})
    for method in ("dp_ump2", "dp_ump2_odds_ratio"):
        for theta1 in (0.1, 0.5):
            rows.append({"part": "coverage", "n": 20, "method": method, "theta1": theta1, "theta2": 0.3,
                         "coverage": 0.96})
    return rows


def test_the_two_arm_figure_has_readable_legends_and_no_overlap(tmp_path, monkeypatch):
    from validation import harness, two_arm

    drawn = {}
    save = harness.save_figure
    monkeypatch.setattr(harness, "save_figure", lambda fig, path: drawn.setdefault("fig", fig) and save(fig, path))
    two_arm.plot(_two_arm_rows(), {}, tmp_path / "two_arm.png")
    fig = drawn["fig"]
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert "power: exact DP test, difference ordering (Tulap)" in labels
    assert "power: Boschloo exact test (non-private)" in labels
    assert not [lab for lab in labels if "_" in lab]
    assert _figures.text_overlaps(fig) == []


def test_every_method_has_a_readable_label():
    assert not [s["label"] for s in _figures.METHOD_STYLES.values() if "_" in s["label"]]
    assert _figures.readable_label("logrank_nonprivate") == "logrank (non-private)"
    assert _figures.readable_label("dp_jimi_lognormal") == "DP-JIMI, log-normal model"
    assert _figures.readable_label("dp_ump_new") == "DP-UMP new"
    assert _figures.method_style("chi2_nonprivate")["label"] == "chi-squared (non-private)"
