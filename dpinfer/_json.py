"""JSON read strictly: an object naming one key twice is refused, not read last-one-wins."""

from __future__ import annotations

import json

__all__ = []  # private module; ``strict_loads`` is the package-internal interface


def strict_loads(text):
    """``json.loads(text)``, raising ``ValueError("duplicate key 'k'")`` for a key given twice in one object.

    A file that says ``"epsilon": 1.0, "epsilon": 50.0`` says two things at once; Python's
    reader keeps the last silently (issue 40).  ``json.JSONDecodeError`` and ``RecursionError``
    pass through for the caller to word.
    """
    def pairs_once(pairs):
        keys = [key for key, _ in pairs]
        if len(set(keys)) != len(keys):
            twice = next(key for i, key in enumerate(keys) if key in keys[:i])
            raise ValueError(f"duplicate key {twice!r}")
        return dict(pairs)

    return json.loads(text, object_pairs_hook=pairs_once)
