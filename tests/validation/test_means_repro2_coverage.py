"""The two-group repro coverage study runs end to end (a short seeded run)."""

from validation import _means_repro2_coverage as means_repro2_coverage


def test_quick_run_covers_and_is_finite(capsys):
    # 20 pairs per point, R = 399: the exit status is 0 when every point's coverage z exceeds -4
    assert means_repro2_coverage.main(["--quick", "--reps", "20"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("point,n,bounds,delta")
    assert all(line.split(",")[14] == "1" for line in out.splitlines()[1:5])  # every interval finite
