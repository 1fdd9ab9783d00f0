"""The :class:`Release`: what a releaser hands out, and everything inference needs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _mechanisms
from .._printing import _r_format, _released
from .._validation import (
    _as_real_array,
    _check_delta,
    _check_epsilon,
    _check_int,
    _check_positive,
    _show,
)

__all__ = ["Release"]


@dataclass(frozen=True, eq=False)
class Release:
    """A privatized statistic and the record of what it cost.

    Attributes
    ----------
    value : float or ndarray
        The noisy statistic (an array when many inputs were released at once; the
        array is read-only).
    mechanism : str
        ``'tulap'`` or ``'laplace'`` (and the local-DP mechanisms' codes
        ``'randomized_response'``, ``'two_coin_rr'``, ``'krr'``,
        ``'unary_encoding'``, ``'local_laplace'``, ``'ldp_histogram'``): one
        spelling per mechanism.
    epsilon, delta : float
        The privacy parameters of the mechanism, per released element: what a
        scalar release spends.  An array of ``k`` separate statistics of one data
        set spends ``k`` times this; a :class:`~dpinfer.PrivacyBudget` passed to
        the releaser charges accordingly (its ``array=`` argument).
    sensitivity : float
        Largest change of the true statistic between neighbouring datasets.
    n : int or None
        Number of records (public), when the statistic is a count or proportion.
    kind : str
        ``'count'`` (a count out of n), ``'proportion'`` (count / n), ``'value'``,
        ``'reports'`` (one privatized report per respondent, local DP), or
        ``'table'`` (an r x c table of noisy counts, see
        :class:`~dpinfer.ContingencyTableReleaser`), or ``'clipped_sum'`` (the
        noisy sum of values clipped to ``bounds``, and with ``split`` also the
        centred sum of squares on the last axis; see :class:`~dpinfer.MeanReleaser`),
        or ``'life_table'`` (noisy numbers of events and of censorings per time
        interval and arm, ``value`` of shape ``(arms, intervals, 2)``; see
        :class:`~dpinfer.LifeTableReleaser`).
        or ``'paired'`` (the noisy ``(n10 - n01, n01 + n10)`` of a paired 2 x 2 table on
        the last axis; see :class:`~dpinfer.PairedTableReleaser`).
    secure : bool
        True when the hardened path drew the noise (random bits from the operating
        system's cryptographic source); False for the seeded research path (bits
        from a numpy Generator: reproducible, hence predictable).  Both paths
        build the output in integers and release exactly the same law.
    neighbours : {'replace-one', 'add-remove'}
        The neighbouring relation the guarantee is stated for: one record
        replaced (``n`` public) or one record added or removed (``n`` private).
        Set by the releaser; None (a release built by hand, or read from a file
        written before releases carried it) fills in the rule of the mechanism
        and kind (replace-one, and for a table the relation its sensitivity
        stands for: 2 replace-one, 1 add-remove).  A count, proportion,
        clipped sum, life table or paired release has a public ``n``: only
        'replace-one' is accepted there.
    privacy_unit : str
        What the guarantee protects, in words (e.g. ``'one record (replace-one,
        n public)'``); results computed from the release print it.  Set by the
        releaser; None fills in the same rule as ``neighbours``.
    ledger_digest : str or None
        The head digest of the :class:`~dpinfer.PrivacyBudget` ledger right after
        this release's charge (SHA-256, hex; see
        :attr:`~dpinfer.PrivacyBudget.head_digest`); None when no budget was
        charged.  Published with the release, it ties the release to the ledger:
        a later edit of the ledger's entries up to this one breaks the match.
    bounds : tuple of two floats or None
        Kind ``'clipped_sum'`` only (required there): the public clipping bounds
        ``(lower, upper)``; ``sensitivity`` must then be ``upper - lower``.
    split : tuple of two floats or None
        Kind ``'clipped_sum'`` only: None when only the clipped sum is released;
        ``(s, 1 - s)`` when the centred sum of squares is released too, the shares
        of ``epsilon`` spent on the sum and on the squares (``value`` then holds
        the pair on its last axis).
    breaks : tuple of floats or None
        Kind ``'life_table'`` only (required there): the public interval ends
        ``t_1 < ... < t_J`` (``t_0 = 0``; see :class:`~dpinfer.LifeTableReleaser`
        for where a time at a break counts).
    groups : tuple of str or None
        Kind ``'life_table'`` only: the public arm labels, one per row of ``value``.
    group_sizes : tuple of int or None
        Kind ``'life_table'`` only: the public number of patients per arm (the
        numbers randomised); ``n`` is their sum.
    disjoint : tuple of two str or None
        ``(scope, group)`` when the release was charged to a group of a
        :class:`~dpinfer.ParallelComposition` (``budget=b.parallel(label).group(name)``):
        ``scope`` is that set's :attr:`~dpinfer.ParallelComposition.scope`
        (``'<budget id>/<label>'``, unique to that set of that budget), ``group``
        the group's name.  None for a release charged to no budget, to a budget
        directly (sequential) or to an advanced-composition block.  Results of
        several releases read it: they state parallel composition (the largest
        epsilon) only when their releases record different groups of one scope
        (see :func:`~dpinfer.prop_test`'s ``composition``).

    Notes
    -----
    A Release never carries the confidential input.  Inference functions accept a
    Release in place of ``z`` or ``pi_hat`` and then take ``n``, ``epsilon`` and
    ``delta`` from it (and, for a Tulap count, its ``sensitivity`` ``k``: the
    noise is the Tulap law of ``epsilon / k``, see :class:`~dpinfer.TulapReleaser`).
    """

    value: float | np.ndarray
    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float
    n: int | None
    kind: str
    secure: bool = False
    neighbours: str | None = None
    privacy_unit: str | None = None
    ledger_digest: str | None = None
    bounds: tuple | None = None
    split: tuple | None = None
    breaks: tuple | None = None
    groups: tuple | None = None
    group_sizes: tuple | None = None
    disjoint: tuple | None = None

    def __post_init__(self):
        value = _as_real_array(self.value, "value")
        for name in ("mechanism", "kind"):
            text = getattr(self, name)
            if not isinstance(text, str) or not text:
                raise TypeError(f"`{name}` must be a non-empty string; got {_show(text)}.")
        if self.kind not in _KINDS:
            raise ValueError(f"`kind` must be one of {', '.join(map(repr, _KINDS))}; got {self.kind!r}.")
        if self.mechanism not in _mechanisms.NAMES:
            raise ValueError(f"`mechanism` must be one of {', '.join(map(repr, _mechanisms.NAMES))}; "
                             f"got {self.mechanism!r}.")
        object.__setattr__(self, "epsilon", _check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", _check_delta(self.delta))
        object.__setattr__(self, "sensitivity", _check_positive(self.sensitivity, "sensitivity"))
        if self.n is not None:
            object.__setattr__(self, "n", _check_int(self.n, "n", minimum=1))
        if not isinstance(self.secure, (bool, np.bool_)):
            raise TypeError(f"`secure` must be True or False; got {_show(self.secure)}.")
        object.__setattr__(self, "secure", bool(self.secure))
        neighbours, unit = _mechanisms.default_semantics(self.mechanism, self.kind, self.sensitivity)
        if self.neighbours is None:
            object.__setattr__(self, "neighbours", neighbours)
        elif not isinstance(self.neighbours, str) or self.neighbours not in _mechanisms.NEIGHBOURS:
            raise ValueError(f"`neighbours` must be None, 'replace-one' or 'add-remove'; got {_show(self.neighbours)}.")
        if self.kind in _N_PUBLIC and self.neighbours != _mechanisms.REPLACE_ONE:
            # inference conditions on the recorded n: a release whose n moves with one person
            # (add/remove) would be inverted with a law it does not have
            raise ValueError(f"`neighbours` of a {self.kind!r} release must be 'replace-one' (its n is public and "
                             f"inference conditions on it; add-remove fits a table whose total is private); "
                             f"got {self.neighbours!r}.")
        if self.privacy_unit is None:
            object.__setattr__(self, "privacy_unit", unit)
        elif not isinstance(self.privacy_unit, str) or not self.privacy_unit:
            raise TypeError(f"`privacy_unit` must be None or a non-empty string; got {_show(self.privacy_unit)}.")
        if self.ledger_digest is not None and not isinstance(self.ledger_digest, str):
            raise TypeError(f"`ledger_digest` must be None or a string; got {_show(self.ledger_digest)}.")
        self._check_clipped(value)
        self._check_life_table(value)
        if self.disjoint is not None:
            pair = self.disjoint
            if (not isinstance(pair, (tuple, list)) or len(pair) != 2
                    or not all(isinstance(v, str) and v for v in pair)):
                raise ValueError("`disjoint` must be None or a pair (scope, group) of non-empty strings, as a "
                                 f"budget's parallel(...).group(...) records it; got {_show(pair)}.")
            object.__setattr__(self, "disjoint", (pair[0], pair[1]))
        if value.ndim == 0:
            value = float(value)
        else:
            value = value.copy()
            value.setflags(write=False)
        object.__setattr__(self, "value", value)

    def _check_clipped(self, value):
        """``bounds`` and ``split``: required / allowed only for kind 'clipped_sum' (public numbers)."""
        if self.kind != "clipped_sum":
            for name in ("bounds", "split"):
                if getattr(self, name) is not None:
                    raise ValueError(f"`{name}` is only for a release of kind 'clipped_sum'; got "
                                     f"{name}={_show(getattr(self, name))} with kind {self.kind!r}.")
            return
        pair = self.bounds
        if (not isinstance(pair, (tuple, list)) or len(pair) != 2
                or not all(isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool)
                           for v in pair)
                or not all(math.isfinite(v) for v in pair) or not pair[0] < pair[1]):
            raise ValueError("`bounds` of a 'clipped_sum' release must be a pair (lower, upper) of finite "
                             f"numbers with lower < upper; got {_show(pair)}.")
        object.__setattr__(self, "bounds", (float(pair[0]), float(pair[1])))
        width = self.bounds[1] - self.bounds[0]
        if self.sensitivity != width:
            # the noise scale is read from the sensitivity, the clipping model from the bounds: they must agree
            raise ValueError(f"`sensitivity` of a 'clipped_sum' release must be upper - lower = {width!r} (replacing "
                             f"one value moves the clipped sum by at most the width of the bounds, as MeanReleaser "
                             f"records it); got {self.sensitivity!r} with bounds {self.bounds!r}.")
        if self.n is None:
            raise ValueError("`n` of a 'clipped_sum' release must be given (the group size is public); got None.")
        if self.split is None:
            return
        split = self.split
        if (not isinstance(split, (tuple, list)) or len(split) != 2
                or not all(isinstance(v, (int, float, np.floating)) and not isinstance(v, bool) for v in split)
                or not all(0.0 < v < 1.0 for v in split) or abs(split[0] + split[1] - 1.0) > 1e-12):
            raise ValueError("`split` of a 'clipped_sum' release must be None or a pair (s, 1 - s) with "
                             f"0 < s < 1; got {_show(split)}.")
        object.__setattr__(self, "split", (float(split[0]), float(split[1])))
        if value.ndim == 0 or value.shape[-1] != 2:
            raise ValueError("`value` of a 'clipped_sum' release with a `split` must hold the pair (sum, "
                             f"centred sum of squares) on its last axis; got shape {value.shape}.")

    def _check_life_table(self, value):
        """``breaks``, ``groups``, ``group_sizes``: required / allowed only for kind 'life_table' (public)."""
        names = ("breaks", "groups", "group_sizes")
        if self.kind != "life_table":
            for name in names:
                if getattr(self, name) is not None:
                    raise ValueError(f"`{name}` is only for a release of kind 'life_table'; got "
                                     f"{name}={_show(getattr(self, name))} with kind {self.kind!r}.")
            return
        from ._life_table_layout import check_layout

        breaks, groups, sizes = check_layout(self.breaks, self.groups, self.group_sizes)
        if value.shape[-3:] != (len(groups), len(breaks), 2):
            raise ValueError("`value` of a 'life_table' release must have shape (arms, intervals, 2) = "
                             f"({len(groups)}, {len(breaks)}, 2) (or a stack of them); got {value.shape}.")
        if self.n is None or self.n != sum(sizes):
            raise ValueError(f"`n` of a 'life_table' release must be the sum of `group_sizes` ({sum(sizes)}); "
                             f"got {self.n!r}.")
        object.__setattr__(self, "breaks", breaks)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "group_sizes", sizes)

    def __str__(self):
        value = self.value
        if isinstance(value, float):
            shown = _released(value)
        elif value.size <= 6:
            # a released value is public; a few are shown in full so that the printout (the command's
            # text format) keeps the release, as R prints a short vector
            cells = ", ".join(_released(float(v)) for v in value.ravel())  # every digit: it reads back exactly
            shown = f"c({cells})" + (f", shape {value.shape}" if value.ndim > 1 else "")
        else:
            shown = f"array of {value.size} values, shape {value.shape}"
        what = {"count": "noisy count", "proportion": "noisy proportion",
                "reports": "privatized reports",
                "table": "noisy contingency table",
                "life_table": "noisy life table: events and censorings per interval and arm",
                "paired": "noisy n10 - n01, n01 + n10",
                "clipped_sum": "noisy clipped sum" + (", centred sum of squares" if self.split else "")
                }.get(self.kind, "noisy value")
        n_part = f" out of n = {self.n}" if self.n is not None else ""
        eps = _r_format([self.epsilon], 7)[0]
        delta = _r_format([self.delta], 7)[0]
        sens = _r_format([self.sensitivity], 7)[0]
        return (
            f"dpinfer release ({self.mechanism} mechanism)\n"
            f"  value:       {shown} ({what}{n_part})\n"
            f"  privacy:     epsilon = {eps}, delta = {delta}\n"
            f"  sensitivity: {sens}\n"
            + (f"  bounds:      [{_r_format([self.bounds[0]], 7)[0]}, {_r_format([self.bounds[1]], 7)[0]}]"
               + (f"; epsilon split {_r_format([self.split[0]], 7)[0]} (sum) / "
                  f"{_r_format([self.split[1]], 7)[0]} (squares)" if self.split else "") + "\n"
               if self.bounds else "")
            +
            f"  sampling:    {_SAMPLING[self.secure]}"
            + (f"\n  charged to:  group {self.disjoint[1]!r} of parallel set {self.disjoint[0]!r}"
               if self.disjoint else "")
            + (f"\n  ledger:      head digest after this release's charge:\n               {self.ledger_digest}"
               if self.ledger_digest else "")
            + (f"\n  breaks:      {', '.join(v.strip() for v in _r_format(list(self.breaks), 7))}"
               f"\n  arms:        {', '.join(f'{g} (n = {m})' for g, m in zip(self.groups, self.group_sizes))}"
               if self.kind == "life_table" else "")
        )

    def to_dict(self):
        """A JSON-safe dict (an array value becomes a list)."""
        value = self.value if isinstance(self.value, float) else self.value.tolist()
        return {
            "value": value,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sensitivity": self.sensitivity,
            "n": self.n,
            "kind": self.kind,
            "secure": self.secure,
            "neighbours": self.neighbours,
            "privacy_unit": self.privacy_unit,
            "ledger_digest": self.ledger_digest,
            "bounds": None if self.bounds is None else list(self.bounds),
            "split": None if self.split is None else list(self.split),
            "breaks": None if self.breaks is None else list(self.breaks),
            "groups": None if self.groups is None else list(self.groups),
            "group_sizes": None if self.group_sizes is None else list(self.group_sizes),
            "disjoint": None if self.disjoint is None else list(self.disjoint),
        }

    def noise_law(self):
        """The law of the noise added to the statistic (public: it depends on no data).

        Returns
        -------
        Tulap or scipy.stats frozen distribution
            A Tulap count: :class:`~dpinfer.Tulap` of the per-unit privacy
            ``(epsilon / k, delta_1)`` of a count of sensitivity ``k`` (see
            :class:`~dpinfer.TulapReleaser`).  A Laplace release: the frozen
            ``scipy.stats.laplace(0, sensitivity / epsilon)`` on the scale of the value
            (``1 / (epsilon n)`` for a proportion).  Both have ``pdf`` and ``cdf``.

        Raises
        ------
        ValueError
            For local-DP reports, whose noise is a channel per respondent, not an
            additive law.

        Notes
        -----
        Releases are exact on a dyadic grid (:mod:`dpinfer.releasers._secure_path`):
        the noise actually added is this law discretised on that grid (step
        ``2**-40`` for a Tulap count at n = 30, epsilon = 1), which no plot or
        density at ordinary resolution can tell apart from the law returned here.

        Examples
        --------
        >>> from dpinfer import TulapReleaser
        >>> law = TulapReleaser(1.0).release(11, 30, rng=7).noise_law()
        >>> law
        Tulap(median=0.0, b=0.36787944117144233, q=0.0)
        """
        if self.mechanism == "tulap" and self.kind == "life_table":
            from ..distributions._tulap_law import unit_privacy
            from ..distributions.tulap import Tulap

            return Tulap.from_privacy(*unit_privacy(self.epsilon, 0.0, int(self.sensitivity)))
        if self.mechanism == "tulap" and self.kind == "count":
            from ..distributions._tulap_law import unit_privacy
            from ..distributions.tulap import Tulap

            return Tulap.from_privacy(*unit_privacy(self.epsilon, self.delta, int(self.sensitivity)))
        if self.mechanism == "tulap" and self.kind == "paired":
            from ..distributions._tulap_law import unit_privacy
            from ..distributions.tulap import Tulap

            return Tulap.from_privacy(unit_privacy(self.epsilon, 0.0, 2)[0])  # each coordinate's noise
        if self.mechanism == "laplace" and self.kind == "clipped_sum":
            from scipy.stats import laplace

            share = 1.0 if self.split is None else self.split[0]
            return laplace(loc=0.0, scale=self.sensitivity / (self.epsilon * share))
        if self.mechanism == "laplace":
            from scipy.stats import laplace

            return laplace(loc=0.0, scale=self.sensitivity / self.epsilon)
        raise ValueError(f"a release of mechanism {self.mechanism!r} has no additive noise law "
                         "(local-DP reports pass each answer through a channel).")


_KINDS = ("count", "proportion", "value", "reports", "table", "clipped_sum", "life_table", "paired")
#: the kinds whose n is public (replace-one neighbours only): inference conditions on the recorded n
_N_PUBLIC = ("count", "proportion", "clipped_sum", "life_table", "paired")

_SAMPLING = {
    True: "hardened (OS cryptographic source, exact integer noise)",
    False: "seeded numpy generator (exact integer noise; predictable: research only)",
}
