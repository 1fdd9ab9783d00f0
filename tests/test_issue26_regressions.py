"""Regression tests for the defects of issue 26 (an independent attack on main), one per item."""

from __future__ import annotations

import pytest

from dpinfer import TulapReleaser


def test_u4_tulap_refusal_names_the_epsilon_and_sensitivity_given():
    # the law is drawn at epsilon / k = 3.3e-13, but the user gave epsilon = 1e-12 and k = 3
    with pytest.raises(ValueError, match=r"got epsilon = 1e-12 with sensitivity = 3\.") as info:
        TulapReleaser(1e-12, 0, 3).release(0, 1, rng=1)
    assert "3.33" not in str(info.value)


def test_tulap_grid_docstring_states_the_step_it_uses():
    import dpinfer.distributions._tulap_grid as grid

    # k = min(40, 52 - bit_length(n + C + 1)), C = ceil(764 / epsilon) + 1, counted here directly
    for n, epsilon, text in [(30, 1.0, "``h = 2**-40``"), (10**9, 1.0, "``h = 2**-22``")]:
        c = -(-764 // int(epsilon)) + 1
        k = min(40, 52 - (n + c + 1).bit_length())
        assert grid._tulap_grid(n, epsilon, 0.0).bits == k
        assert f"2**-{k}``" in text and text in " ".join(grid.__doc__.split())


def test_c3_tulap_sample_refuses_a_huge_shape_before_allocating():
    from dpinfer import Tulap

    with pytest.raises(ValueError, match=r"`shape` must hold at most 134_217_728 draws"):
        Tulap(b=0.5).sample(1e15, rng=1)
    with pytest.raises(ValueError, match=r"`shape` must hold at most"):
        Tulap(b=0.5).sample((10**5, 10**5), rng=1)
    assert Tulap(b=0.5).sample((2, 3), rng=1).shape == (2, 3)


def test_u1_logistic_jimi_names_a_wrong_table_before_a_missing_epsilon():
    from dpinfer import logistic_jimi

    with pytest.raises(TypeError, match=r"^`table` must be"):
        logistic_jimi(object())
    with pytest.raises(TypeError, match=r"`epsilon` must be given with bare noisy counts"):
        logistic_jimi([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("x_prime,rule", [(40, "must lie between 0 and `n` = 30"),
                                          (2.5, "must contain whole numbers"),
                                          (True, "must be a real number")])
def test_u2_audit_errors_about_x_prime_name_x_prime(x_prime, rule):
    from dpinfer import TulapReleaser, audit_releaser

    with pytest.raises((ValueError, TypeError), match=r"`x_prime`") as info:
        audit_releaser(TulapReleaser(1.0).release, 3, x_prime, args=(30,), n_samples=100, rng=1)
    text = str(info.value)
    assert rule in text and "`x`" not in text


def test_u5_results_to_frame_refuses_an_empty_list():
    pytest.importorskip("pandas")
    from dpinfer import results_to_frame

    with pytest.raises(ValueError, match=r"`results` must hold at least one HTestResult"):
        results_to_frame([])
    with pytest.raises(ValueError, match=r"`results` must hold at least one HTestResult"):
        results_to_frame(iter(()))


def _table_release():
    from dpinfer import ContingencyTableReleaser

    return ContingencyTableReleaser(1.0).release([[40, 10], [15, 35]], rng=3)


@pytest.mark.parametrize("name", ["independence_jimi_test", "independence_mc_test"])
def test_table_tests_draw_in_blocks_of_bounded_memory(monkeypatch, name):
    import tracemalloc

    import dpinfer
    import dpinfer.inference.table as table

    monkeypatch.setattr(table, "_BLOCK_CELLS", 4096)  # 1024 draws of a 2 x 2 table per block
    test = getattr(dpinfer, name)
    rel = _table_release()
    tracemalloc.start()
    try:
        res = test(rel, n_sim=20_000, rng=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # unblocked, the 20 000 simulated tables and their draws held about 5 MB at once
    assert peak < 1_500_000
    assert res.n_sim == 20_000 and 0.0 < res.pvalue < 0.01


@pytest.mark.parametrize("name", ["independence_jimi_test", "independence_mc_test"])
def test_table_tests_show_progress_on_request(capsys, name):
    import dpinfer

    test = getattr(dpinfer, name)
    first = test(_table_release(), n_sim=500, rng=1, progress=True)
    err = capsys.readouterr().err  # the plain line (dpinfer._progress), on stderr
    assert err.startswith(f"\r{name}: ") and err.endswith("\n") and "500/500 draws" in err
    assert test(_table_release(), n_sim=500, rng=1).pvalue == first.pvalue  # default: silent, same draws
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match=r"`progress` must be None .* got 'yes'"):
        test(_table_release(), n_sim=500, rng=1, progress="yes")
