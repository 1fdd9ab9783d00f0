"""Validation studies for dpinfer: size, power, two-sided power and coverage sweeps.

Each study is a script ``validation/NAME.py`` with a ``main(argv=None)`` function
(run ``python -m validation.NAME --help`` from the repository root, or
``dpinfer validate NAME``).  The shared plumbing (argument parser, seeded cell
execution on one machine or a Dask cluster, CSV with a metadata header, the figure
style) lives in :mod:`validation.harness`.
"""
