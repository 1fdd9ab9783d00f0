"""``mean_test``: one or two clipped-sum releases, like R's ``t.test``."""

from __future__ import annotations

from ..._validation import DPInferTypeError, _arg, _check_choice, _check_real, _kind_of, _show
from ._common import check_model, clipped, is_release
from ._jimi import mean2_jimi_test, mean_jimi_test
from ._naive import mean2_naive_test, mean_naive_test
from .repro import mean2_repro_test, mean_repro_test

__all__ = ["mean_test"]

_METHODS = ("jimi", "naive", "repro")


def mean_test(release, release2=None, *, mu0=None, margin=None, method="jimi", sigma=None, model="normal",
              alternative="two-sided", confidence_level=0.95, n_sim=None, rng=None, composition=None, workers=None):
    """Test a mean from one private release, or compare two groups, like R's ``t.test``.

    Parameters
    ----------
    release : Release, or a pair of Releases
        A clipped sum from :class:`~dpinfer.MeanReleaser`; a pair
        (``mean_test([release, release2])``) is the same as ``mean_test(release, release2)``.
    release2 : Release, optional
        The second group's clipped sum: the test is then of ``mean_1 - mean_2 = margin``.
    mu0 : float, optional
        One group only: the null mean (None: 0), R's ``mu``.
    margin : float, optional
        Two groups only: the null difference of means ``mean_1 - mean_2`` (None: 0),
        R's ``mu`` in ``t.test(x, y)``; the name every two-group function uses.
    method : {'jimi', 'naive', 'repro'}, default 'jimi'
        ``'jimi'``: DP-JIMI with the clipping modelled, :func:`~dpinfer.mean_jimi_test`
        / :func:`~dpinfer.mean2_jimi_test`.  ``'naive'``: the normal interval around
        the clipped mean, :func:`~dpinfer.mean_naive_test` /
        :func:`~dpinfer.mean2_naive_test` (biased under clipping; a comparator).
        ``'repro'``: repro samples, :func:`~dpinfer.mean_repro_test` /
        :func:`~dpinfer.mean2_repro_test` (valid in finite samples with the Monte
        Carlo error included; two groups: sigma known, normal model).
    sigma : float or pair of floats, optional
        Known standard deviation(s); None uses the released sums of squares.
    model : {'normal', 'lognormal'}, default 'normal'
        DP-JIMI's data model (not used by ``'naive'``).
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
    confidence_level : float, default 0.95
    n_sim : int, optional
        DP-JIMI's draws (None: 2000); the repro-samples method's seeds ``R``
        (None: 1999 with ``sigma`` known, per group for two groups; 399 with the spread
        released).
    rng : None, int, SeedSequence or numpy.random.Generator
        DP-JIMI's (or the repro seeds') stream (None: derived from the releases).
    composition : {None, 'sequential', 'parallel'}, default None
        How the two groups' epsilons combine in the result.  None reads the
        releases: ``'parallel'`` (the larger) only when they record different groups
        of one budget's parallel set, else ``'sequential'`` (the sum, valid under any
        neighbouring relation); the one rule of every method (see :func:`~dpinfer.prop_test`).
    workers : None, int, callable or concurrent.futures.Executor, optional
        Where DP-JIMI's draws or the repro seeds' work run (see :ref:`scale`), passed to the
        method: None (the default) the serial stream; refused by ``'naive'``, which draws
        nothing.

    Returns
    -------
    HTestResult
        The result of the function ``method`` names.

    Raises
    ------
    TypeError, ValueError
        As the function called; an unknown ``method``; settings that do not apply
        (``margin`` with one release, ``mu0`` with two: the message says which to use).

    See Also
    --------
    mean_jimi_test, mean2_jimi_test, mean_naive_test, mean2_naive_test, mean_repro_test, mean2_repro_test

    Examples
    --------
    >>> import numpy as np
    >>> from dpinfer import MeanReleaser, mean_test
    >>> gen = np.random.default_rng(5)
    >>> releaser = MeanReleaser(1.0, 80.0, 180.0, spread=True)
    >>> treated = releaser.release(gen.normal(125.0, 15.0, 150), rng=6)
    >>> control = releaser.release(gen.normal(135.0, 15.0, 150), rng=7)
    >>> res = mean_test(treated, control)
    >>> res.method
    'DP-JIMI test of two clipped means (normal model, spread released)'
    """
    method = _check_choice(method, "method", _METHODS)
    model = check_model(model)
    if isinstance(release, (list, tuple)):
        if release2 is not None or len(release) != 2 or not all(is_release(r) for r in release):
            raise ValueError("`release` given as a list must hold two Releases (mean_test([release1, release2])), "
                             f"with `release2` left out; got {_kind_of(release)}.")
        release, release2 = release
    if release2 is not None and not is_release(release2):
        raise TypeError("`release2` must be None or a Release (the second group's clipped sum); "
                        f"got {_kind_of(release2)}.")
    clipped(release, "release", "mean_test")  # refused here with this function's argument names
    if release2 is not None:
        clipped(release2, "release2", "mean_test")
    null = _null(mu0, margin, two=release2 is not None)
    # checked under this function's names (the methods call it mu0 and margin too, but a group test's
    # own message would not say which door was used)
    null = _check_real(null, "margin" if release2 is not None else "mu0")
    x, y = release, release2
    common = {"sigma": sigma, "alternative": alternative, "confidence_level": confidence_level}
    if method == "naive":
        if workers is not None:
            raise ValueError(f"`workers` applies to the methods that draw (method='jimi' or 'repro'); "
                             f"method='naive' draws nothing; got workers={_show(workers)}.")
        if model != "normal":
            raise ValueError(f"`model` does not apply to method='naive' (a normal interval); got {model!r}.")
        if y is None:
            return mean_naive_test(x, null, **common)
        return mean2_naive_test(x, y, null, composition=composition, **common)
    common.update(model=model, n_sim=n_sim, rng=rng, workers=workers)
    if method == "repro":
        if y is not None:
            return mean2_repro_test(x, y, null, composition=composition, **common)
        return mean_repro_test(x, null, **common)
    common["n_sim"] = 2000 if n_sim is None else n_sim
    if y is None:
        return mean_jimi_test(x, null, **common)
    return mean2_jimi_test(x, y, null, composition=composition, **common)


def _null(mu0, margin, *, two):
    """The null value: ``margin`` for two groups, ``mu0`` for one; the other one refused with a hint."""
    if two and mu0 is not None:
        raise DPInferTypeError(_arg("mu0"), " is the null mean of one group; with two releases give ",
                               _arg("margin"), " (the null difference mean_1 - mean_2); got ", _arg("mu0"),
                               f" = {_show(mu0)}.")
    if not two and margin is not None:
        raise DPInferTypeError(_arg("margin"), " is the null difference of two groups; with one release give ",
                               _arg("mu0"), " (the null mean); got ", _arg("margin"),
                               f" = {_show(margin)}.")
    given = margin if two else mu0
    return 0.0 if given is None else given
