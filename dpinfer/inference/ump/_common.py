"""What the DP-UMP functions share: the released Tulap law at public numbers, and checks."""

from __future__ import annotations

from ..._validation import DPInferValueError, _arg, _check_choice
from ...distributions._tulap_law import tulap_grid
from ...distributions.tulap import Tulap

_MIN_EPSILON = 1e-4


# -- the released law ------------------------------------------------------------------------

def _noise(epsilon, delta, n=None):
    """(log_b, q) of the Tulap law that the releaser uses for (epsilon, delta).

    With ``n`` the truncated mass is the one actually released at that ``n`` (the
    support end rounded out to the release grid, see
    :mod:`dpinfer.distributions._tulap_grid`); without it, the continuous law's.
    The two differ only when ``delta > 0``, by less than one grid cell's mass.
    """
    if epsilon < _MIN_EPSILON:
        # the exact sums span about 40 / epsilon counts of x around z
        raise DPInferValueError(_arg("epsilon"), f" must be at least {_MIN_EPSILON:g} (per unit of count, i.e. "
                         "epsilon / sensitivity) for the exact DP-UMP sums (their window spans about "
                         f"40 / epsilon counts); got {epsilon!r} per unit.")
    if n is not None:
        grid = _release_grid(n, epsilon, delta)
        if grid is not None:
            return -epsilon, grid.q
    law = Tulap.from_privacy(epsilon, delta)
    return -epsilon, law.q


def _release_grid(n, epsilon, delta):
    """The grid law TulapReleaser uses at these public numbers, or None where it cannot release."""
    try:
        return tulap_grid(n, epsilon, delta)
    except ValueError:  # no release of ours has these numbers: the law is the continuous one
        return None


def _half_step(n, epsilon, delta):
    """Half the release grid's step (0.0 where TulapReleaser cannot release at these numbers)."""
    grid = _release_grid(n, epsilon, delta)
    return 0.0 if grid is None else grid.step / 2.0


def _sensitivity_text(sensitivity):
    """The method-name suffix that records a count sensitivity other than 1."""
    return "" if sensitivity == 1 else f", sensitivity {sensitivity}"


def _check_two_sided_method(method, allowed, name="two_sided_method"):
    hint = ""
    if isinstance(method, str) and method == "umpu":
        hint = (" The UMPU test is a randomised decision about the unreleased count, not "
                "a function of the release Z (see the Notes); use binom_ump_phi or "
                "binom_ump_power for it.")
    return _check_choice(method, name, allowed, hint=hint)
