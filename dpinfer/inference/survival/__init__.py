"""Time-to-event inference from a private life table (:class:`~dpinfer.LifeTableReleaser`).

:func:`kaplan_meier` (curves, pointwise intervals, median survival) and
:func:`logrank_test` (the grouped-time log-rank test and the hazard ratio).
"""

from ._result import KaplanMeierResult, LogRankResult
from .kaplan_meier import kaplan_meier
from .logrank import logrank_test

__all__ = ["KaplanMeierResult", "LogRankResult", "kaplan_meier", "logrank_test"]
