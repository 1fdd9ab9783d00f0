"""Noise laws as objects: pure mathematics, vectorised, no privacy semantics."""

from .tulap import Tulap

__all__ = ["Tulap"]
