"""What the DP-UMP functions share: the released Tulap law at public numbers, and checks."""

from __future__ import annotations

from ..._validation import DPInferValueError, _arg, _check_choice, _setting
from ...distributions._tulap_law import released_tulap

_MIN_EPSILON = 1e-4


# -- the released law ------------------------------------------------------------------------

def _released_law(epsilon, delta, n=None):
    """The :class:`~dpinfer.distributions._tulap_law.ReleasedTulap` the releaser uses for
    (epsilon, delta) at ``n`` (``log_b``, ``q`` and the grid's half step, computed once).

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
    return released_tulap(epsilon, delta, n)


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


def _resolve_two_sided_method(method, alternative, allowed):
    """The two-sided method to use: None means 'asymptotically-unbiased'; one given with a
    one-sided ``alternative`` would be ignored, so it is refused (``alternative`` already checked)."""
    if method is None:
        return "asymptotically-unbiased"
    method = _check_two_sided_method(method, allowed)
    if alternative != "two-sided":
        raise DPInferValueError(
            _arg("two_sided_method"), " applies to ", _setting("alternative", "two-sided"),
            " only; got ", _setting("two_sided_method", method), " with ",
            _setting("alternative", alternative), ". Leave it out for a one-sided test.")
    return method
