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
