"""The inference part's package-internal interface to the ``dpinfer`` command.

Package-internal (not for users): :mod:`dpinfer.cli` turns numbers typed at the
command into a :class:`~dpinfer.Release` and checks which ``--method`` fits a
release.  Both live with :func:`~dpinfer.prop_test` in
:mod:`dpinfer.inference.prop`; the command imports them from here, under these
names, and never the module's private helpers.
"""

from __future__ import annotations

from .prop import _accepts, _methods, _release_from_numbers

__all__ = []  # package-internal: the names below are imported explicitly

#: ``methods()``: method -> (accepted (mechanism, kind) pairs of a Release, what to say in an
#: error), every method's module imported
methods = _methods
#: ``accepts(method)``: the declaration of one method, only its module imported
accepts = _accepts

#: ``release_from_numbers(value, n, *, method, epsilon, delta=0.0)``: the Release that
#: numbers typed by a user stand for (a Tulap-noised count for ``method='ump'``, a
#: Laplace-noised proportion otherwise), validated.
release_from_numbers = _release_from_numbers
