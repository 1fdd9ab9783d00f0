"""Release-first calling for the inference functions: ``binom_ump_test(release, p0)``.

The functions take ``(z, n=None, p0=0.5, ...)`` so that R's ``binom.test(x, n, p)``
order works with plain numbers.  A :class:`~dpinfer.Release` already records ``n``,
so after a Release the next positional argument is the one after ``n`` (the null
value): :func:`_release_first` rebinds the positional arguments accordingly, and
copies the release's provenance (hardened or seeded path, unit of privacy) into
the :class:`~dpinfer.HTestResult`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect

from ..releasers.release import Release
from ..results import HTestResult

#: kind / mechanism -> the neighbouring relation the releaser guarantees (see its Notes)
_CENTRAL_UNIT = "one record (replace-one, n public)"

#: ``stacklevel`` for a warning issued in the body of a ``_release_first`` function:
#: the wrapper adds one frame, so 3 points at the user's line.  (Catching and
#: re-issuing in the wrapper would need ``warnings.catch_warnings``, which is not
#: thread-safe: validation sweeps call these functions from Dask worker threads.)
_STACKLEVEL = 3
_LOCAL_UNIT = "one respondent's answer (local DP)"


def _privacy_unit(release):
    """The unit of privacy a release's guarantee is stated for (the releasers' Notes)."""
    if release.kind == "reports":
        return _LOCAL_UNIT
    if release.kind == "count" and release.mechanism == "tulap" and release.sensitivity != 1:
        return f"one person, moving the count by up to {release.sensitivity:g} (n public)"
    if release.kind in ("count", "proportion"):
        return _CENTRAL_UNIT
    return "one record (the statistic moves by at most its sensitivity)"


def _with_provenance(result, releases):
    """``result`` with ``secure`` and ``privacy_unit`` taken from the releases behind it."""
    if not isinstance(result, HTestResult) or not releases:
        return result
    units = {_privacy_unit(r) for r in releases}
    return dataclasses.replace(
        result,
        secure=all(r.secure for r in releases),
        privacy_unit=units.pop() if len(units) == 1 else "; ".join(sorted(units)),
    )


def _release_first(values, skip=()):
    """Decorate a public function whose leading arguments ``values`` may be Releases.

    When the first positional argument is a Release, the positional arguments
    after it skip the parameters in ``skip`` (``n``, ``n1``, ``n2``: the release
    records them), so ``binom_ump_test(rel, 0.2)`` means ``p0 = 0.2``.  With
    plain numbers the call is unchanged.  Whenever every argument named in
    ``values`` that was given is a Release, the result records their path and
    unit of privacy.
    """

    def decorate(func):
        params = inspect.signature(func).parameters
        positional = [name for name, p in params.items()
                      if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if args and isinstance(args[0], Release):
                names = [args_name for args_name in positional if args_name not in skip]
                if len(args) > len(names):
                    raise TypeError(
                        f"{func.__name__}() takes at most {len(names)} positional arguments "
                        f"after a Release ({', '.join(names)}); got {len(args)}."
                    )
                for name, value in zip(names, args):
                    if name in kwargs:
                        raise TypeError(
                            f"{func.__name__}() got two values for `{name}`: one by position "
                            f"(after a Release, the arguments are {', '.join(names)}) and one "
                            "by keyword."
                        )
                    kwargs[name] = value
                args = ()
            result = func(*args, **kwargs)
            given = dict(zip(positional, args), **kwargs)
            found = [given[name] for name in values if given.get(name) is not None]
            if found and all(isinstance(v, Release) for v in found):
                return _with_provenance(result, found)
            return result

        return wrapper

    return decorate
