"""Validation studies for dpinfer: size, power, coverage and accuracy sweeps.

The studies, one script ``validation/NAME.py`` each:

* ``size``, ``power``, ``two_sided``, ``coverage``: one- and two-sided tests and
  95% intervals for a proportion under central DP (DP-UMP, the normal
  approximation, DP-JIMI, non-private yardsticks), exact by default;
* ``ldp_rr_accuracy``: standard error and interval width of randomized response
  against epsilon;
* ``ldp_unary_rates``: error rates of unary-encoding frequency estimates in n,
  1/epsilon and d;
* ``ldp_coverage``: coverage of the local-DP intervals;
* ``ldp_gof_size``: size of the local-DP goodness-of-fit and two-sample tests;
* ``robust_study``: robust frequency estimation from contaminated batches under
  local DP (always simulated).

Each has a ``main(argv=None)`` function returning an exit status (run ``python -m
validation.NAME --help`` from the repository root, or ``dpinfer validate NAME``).
The shared plumbing (argument parser, seeded cell execution on one machine or a
Dask cluster, CSV with a metadata header, the figure style) lives in
:mod:`validation.harness`; ``validation/README.md`` says what each study shows.
"""
