"""The audit cases: every public releaser (and its hardened path) with neighbouring inputs and the power expected."""

from __future__ import annotations


import numpy as np

from dpinfer import (
    KRRReleaser,
    ContingencyTableReleaser,
    LaplaceReleaser,
    LifeTableReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    MeanReleaser,
    PairedTableReleaser,
    RandomizedResponseReleaser,
    Release,
    StagedRelease,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)
from dpinfer._exact_noise import _GeneratorBits

N = 40_000

class _SeededOSBits(_GeneratorBits):
    """A seeded stand-in for the OS source: the hardened path's code on reproducible bits."""

    hardened = True


def _secure(method, *extra):
    """A secure-path mechanism for the audit (the OS source ignores the audit's rng)."""

    def call(x, *args, rng=None):
        return method(x, *args, *extra, secure=True)

    return call


def _staged(stage):
    """A batch of runs of a two-stage design, auditing the release of ``stage`` (earlier stages: count 3).

    One fresh :class:`StagedRelease` per draw (a run releases each stage once); the
    batch's values are returned as one Release with the stage's record.
    """

    def call(x, n, rng=None):
        values, last = [], None
        for count in np.asarray(x).reshape(-1):
            run = StagedRelease([n, n], epsilon=1.0)
            for s in range(1, stage):
                run.release(s, 3, rng=rng)
            last = run.release(stage, int(count), rng=rng)
            values.append(last.value)
        return Release(np.array(values), last.mechanism, last.epsilon, last.delta, last.sensitivity, last.n,
                       last.kind)

    return call


def _life_table(secure=False):
    """A life-table releaser on inputs of (time, event) rows: three patients, one arm, two intervals."""

    def call(x, rng=None):
        x = np.asarray(x)
        kw = {"secure": True} if secure else {"rng": rng}
        return LifeTableReleaser(1.0, (5.0, 10.0)).release(x[..., 0], x[..., 1], **kw)

    return call


# name, mechanism, x, x', args, n_samples, minimum bound expected (the audit's power)
CASES = [
    ("TulapReleaser", TulapReleaser(1.0), 10, 11, (30,), N, 0.8),
    ("TulapReleaser-delta", TulapReleaser(0.7, 0.05), 0, 1, (30,), N, 0.5),
    # count sensitivity 3: neighbours 3 apart (the widest shift, where the loss is all of epsilon)
    ("TulapReleaser-sensitivity3", TulapReleaser(1.0, sensitivity=3), 10, 13, (30,), N, 0.8),
    ("TulapReleaser-sensitivity2-delta", TulapReleaser(0.7, 0.05, sensitivity=2), 0, 2, (30,), N, 0.5),
    ("TulapReleaser-secure", _secure(TulapReleaser(1.0).release), 10, 11, (30,), 10_000, 0.6),
    ("StagedRelease-stage2", _staged(2), 10, 11, (30,), 5_000, 0.4),
    ("TulapReleaser-secure-zero", _secure(TulapReleaser(1.0).release), 0, 1, (30,), 10_000, 0.6),
    ("LaplaceReleaser", LaplaceReleaser(1.0, 2.0), 0.0, 2.0, (), N, 0.7),
    ("LaplaceReleaser.count", LaplaceReleaser(0.5).count, 4, 5, (30,), N, 0.3),
    ("LaplaceReleaser.proportion", LaplaceReleaser(1.0).proportion, 30, 29, (30,), N, 0.7),
    ("LaplaceReleaser-secure", _secure(LaplaceReleaser(1.0).count), 4, 5, (30,), 10_000, 0.6),
    # a replace-one neighbour moves two cells by 1 (noise 2 / epsilon each); add/remove one cell
    ("ContingencyTableReleaser", ContingencyTableReleaser(1.0).release, np.array([[3, 4], [5, 6]]),
     np.array([[2, 4], [5, 7]]), (), N, 0.4),
    ("ContingencyTableReleaser-add-remove", ContingencyTableReleaser(1.0, "add-remove", "private").release,
     np.array([[3, 4], [5, 6]]), np.array([[3, 4], [5, 7]]), (), N, 0.6),
    ("ContingencyTableReleaser-secure", _secure(ContingencyTableReleaser(1.0).release), np.array([[3, 4], [5, 6]]),
     np.array([[2, 4], [5, 7]]), (), 10_000, 0.2),
    # one value moved from the lower bound to beyond the upper one: the clipped sum moves by the full range
    # the first patient's event at time 3 (interval 1) becomes a censoring at time 7 (interval 2):
    # two cells move by 1, each with the Tulap noise of epsilon / 2
    ("LifeTableReleaser", _life_table(), np.array([[3.0, 1], [6.0, 1], [12.0, 0]]),
     np.array([[7.0, 0], [6.0, 1], [12.0, 0]]), (), N, 0.4),
    ("LifeTableReleaser-secure", _life_table(True), np.array([[3.0, 1], [6.0, 1], [12.0, 0]]),
     np.array([[7.0, 0], [6.0, 1], [12.0, 0]]), (), 10_000, 0.2),
    ("MeanReleaser", MeanReleaser(1.0, -2.0, 3.0), np.array([-2.0, 0.5, 1.0]), np.array([7.0, 0.5, 1.0]), (), N,
     0.7),
    ("MeanReleaser-spread", MeanReleaser(1.0, -2.0, 3.0, spread=True), np.array([-2.0, 0.5, 1.0]),
     np.array([0.5, 0.5, 1.0]), (), N, 0.3),
    ("MeanReleaser-secure", _secure(MeanReleaser(1.0, -2.0, 3.0).release), np.array([-2.0, 0.5, 1.0]),
     np.array([3.0, 0.5, 1.0]), (), 10_000, 0.5),
    # a pair moved between the discordant cells: the difference moves by 2 (all of epsilon)
    ("PairedTableReleaser", PairedTableReleaser(1.0).release, np.array([[5, 3], [2, 7]]),
     np.array([[5, 2], [3, 7]]), (), N, 0.4),
    ("RandomizedResponseReleaser", RandomizedResponseReleaser(1.0), 0, 1, (), N, 0.85),
    ("TwoCoinRRReleaser", TwoCoinRRReleaser(0.3, 0.7), 0, 1, (), N, 1.8),
    ("TwoCoinRRReleaser-fair", TwoCoinRRReleaser(0.5, 0.5), 1, 0, (), N, 0.9),
    ("KRRReleaser", KRRReleaser(1.5, 5), 0, 3, (), N, 1.2),
    ("UnaryEncodingReleaser", UnaryEncodingReleaser(1.0, 4), 0, 2, (), N, 0.7),
    ("LocalLaplaceReleaser", LocalLaplaceReleaser(1.0, 1.0), -1.0, 1.0, (), N, 0.7),
    ("LDPHistogramReleaser", LDPHistogramReleaser(1.0, 5), 0.1, 0.9, (), N, 0.5),
    ("RandomizedResponseReleaser-secure", _secure(RandomizedResponseReleaser(1.0).release), 0, 1, (), 10_000, 0.6),
    ("TwoCoinRRReleaser-secure", _secure(TwoCoinRRReleaser(0.3, 0.7).release), 0, 1, (), 10_000, 1.5),
    ("KRRReleaser-secure", _secure(KRRReleaser(1.5, 5).release), 0, 3, (), 10_000, 0.9),
    ("UnaryEncodingReleaser-secure", _secure(UnaryEncodingReleaser(1.0, 4).release), 0, 2, (), 6_000, 0.5),
    ("LocalLaplaceReleaser-secure", _secure(LocalLaplaceReleaser(1.0, 1.0).release), -1.0, 1.0, (), 6_000, 0.4),
    ("LDPHistogramReleaser-secure", _secure(LDPHistogramReleaser(1.0, 5).release), 0.1, 0.9, (), 4_000, 0.1),
]
