"""Event selection on the selection half: the discrete search, or the held-out choice among the event families."""

from __future__ import annotations

import numpy as np

from ._bits import _choose_bit_cells, _choose_grid, _choose_lowest_bit, _choose_parity
from ._bounds import _bound_event
from ._events import _choose_continuous, _choose_discrete, _discrete_encoder


def _select_event(sel_x, sel_y, delta, tail):
    """The event to evaluate, chosen on the selection half only.

    A discrete output (few distinct values, many draws of each) is searched
    over sets of output values (the Neyman-Pearson sets), which contain every
    event of the output, bit-level ones included.  A real output has several
    families of events (``_FAMILIES``: thresholds and bins on the values, and
    four bit-level families); the more candidates a family has, the more its
    best score on the data it was fitted to flatters it.  So the family is
    chosen on held-out data: each family's best event is fitted on the first
    half of the selection half and scored (the Clopper-Pearson bound) on the
    second half; the family scoring highest (the value events on a tie) is
    then refitted on the whole selection half.
    """
    encoder = _discrete_encoder(np.concatenate([sel_x, sel_y]))
    if encoder is not None:
        return _choose_discrete(sel_x, sel_y, encoder, delta, tail)
    cut = sel_x.shape[0] // 2
    fit_x, fit_y, rank_x, rank_y = sel_x[:cut], sel_y[:cut], sel_x[cut:], sel_y[cut:]
    held_out = []
    for family in _FAMILIES:
        event = family(fit_x, fit_y, delta, tail)
        held_out.append(_bound_event(event, rank_x[: fit_x.shape[0]], rank_y[: fit_y.shape[0]], delta, tail)[4])
    family = _FAMILIES[int(np.argmax(held_out))]  # the first on a tie
    return family(sel_x, sel_y, delta, tail)


# Event families of a real output, in order of preference on a tie.
_FAMILIES = (_choose_continuous, _choose_bit_cells, _choose_grid, _choose_lowest_bit, _choose_parity)
