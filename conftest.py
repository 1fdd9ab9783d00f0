"""Repository-root conftest: makes the ``validation`` package importable from tests.

pytest's default ("prepend") import mode already puts this file's folder (the
repository root, which has no ``__init__.py``) on ``sys.path`` when it loads this
conftest; the explicit insertion below keeps ``import validation.harness`` working
under ``--import-mode=importlib`` too, where nothing is prepended.
"""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
