"""Inference on releases: tests, intervals, power."""

__all__ = []
