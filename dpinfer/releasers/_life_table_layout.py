"""The public layout of a life table: interval breaks, arm labels, arm sizes.

Shared by :class:`~dpinfer.LifeTableReleaser` (before any charge) and the
:class:`~dpinfer.Release` record of kind ``'life_table'``.  Every number here is
public; the messages may show it.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import _show

__all__ = []  # package-internal

#: Most intervals a life table may have (a public bound on the size of the release).
MAX_INTERVALS = 10_000


def check_breaks(breaks, name="breaks"):
    """``breaks`` as a tuple of floats ``0 < t_1 < ... < t_J`` (finite, ``1 <= J <= MAX_INTERVALS``)."""
    if isinstance(breaks, (str, bytes)) or breaks is None:
        raise TypeError(f"`{name}` must be a sequence of increasing positive interval ends; got {_show(breaks)}.")
    try:
        arr = np.asarray(breaks, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be a sequence of increasing positive interval ends; "
                        f"got {_show(breaks)}.") from exc
    if arr.ndim != 1 or not 1 <= arr.size <= MAX_INTERVALS:
        raise ValueError(f"`{name}` must be a flat sequence of 1 to {MAX_INTERVALS} interval ends; "
                         f"got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)) or not arr[0] > 0.0 or not np.all(np.diff(arr) > 0.0):
        raise ValueError(f"`{name}` must be finite, positive and strictly increasing (the interval ends "
                         f"t_1 < ... < t_J after t_0 = 0); got {_show(breaks)}.")
    return tuple(float(t) for t in arr)


def check_groups(groups, count, name="groups"):
    """Arm labels as a tuple of distinct non-empty strings (``count`` of them when given)."""
    if isinstance(groups, (str, bytes)) or not isinstance(groups, (list, tuple, np.ndarray)):
        raise TypeError(f"`{name}` must be a list of arm labels; got {_show(groups)}.")
    labels = tuple(str(g) for g in groups)
    if not labels or any(not g for g in labels) or len(set(labels)) != len(labels):
        raise ValueError(f"`{name}` must be distinct non-empty arm labels; got {_show(groups)}.")
    if count is not None and len(labels) != count:
        raise ValueError(f"`{name}` must hold one label per arm ({count}); got {len(labels)}.")
    return labels


def check_layout(breaks, groups, sizes):
    """The validated ``(breaks, groups, group_sizes)`` of a life-table release."""
    breaks = check_breaks(breaks)
    groups = check_groups(groups, None)
    if not isinstance(sizes, (list, tuple)) or len(sizes) != len(groups):
        raise ValueError(f"`group_sizes` must hold one size per arm ({len(groups)}); got {_show(sizes)}.")
    out = []
    for m in sizes:
        if isinstance(m, bool) or not isinstance(m, (int, np.integer, float)) or not (
                math.isfinite(m) and m == int(m) and m >= 1):
            raise ValueError(f"`group_sizes` must be whole numbers >= 1; got {_show(sizes)}.")
        out.append(int(m))
    return breaks, groups, tuple(out)
