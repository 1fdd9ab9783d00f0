"""Regression tests for the defects of issue 26 (an independent attack on main), one per item."""

from __future__ import annotations

import pytest

from dpinfer import TulapReleaser


def test_u4_tulap_refusal_names_the_epsilon_and_sensitivity_given():
    # the law is drawn at epsilon / k = 3.3e-13, but the user gave epsilon = 1e-12 and k = 3
    with pytest.raises(ValueError, match=r"got epsilon = 1e-12 with sensitivity = 3\.") as info:
        TulapReleaser(1e-12, 0, 3).release(0, 1, rng=1)
    assert "3.33" not in str(info.value)
