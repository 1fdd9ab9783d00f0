"""Shared by every test directory: ``tests/`` itself is importable, for ``_releaser_catalogue``."""
