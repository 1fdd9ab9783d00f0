"""Result types: what every inference function returns, and the privacy record each carries.

They are modelled on R's ``htest`` objects so that a statistician coming from R
reads them at a glance: ``str(result)`` prints the layout of R's ``print.htest``
(same lines, same number formatting) followed by the result's privacy lines,
its :class:`PrivacyRecord` (epsilon, delta, mechanism, neighbours, unit of
privacy, sampling path, composition).  ``to_dict()`` is flat and JSON-safe;
``to_frame()`` returns a one-row tidy :class:`pandas.DataFrame` with broom-style
column names, and :func:`results_to_frame` stacks many results into one frame.

One small module per type: ``_privacy`` (:class:`PrivacyRecord`), ``_interval``
(:class:`ConfidenceInterval`), ``_htest`` (:class:`HTestResult`, :func:`results_to_frame`),
``_collection`` (:class:`HTestResults`, :func:`map_results`), ``_point`` (:class:`PointEstimate`), ``_robust``
(:class:`RobustEstimate`), ``_logistic`` (:class:`LogisticJimiResult`), ``_planning``
(:class:`PowerResult`, :class:`SampleSizeResult`, :class:`SampleSizesResult`: the planning
functions' numbers with their non-private comparators).  Each
class names ``dpinfer.results`` as its module, so pickles and the docs use the
public path.
"""

from ._privacy import PrivacyRecord
from ._interval import ConfidenceInterval
from ._htest import HTestResult, results_to_frame
from ._collection import HTestResults, map_results
from ._point import PointEstimate
from ._robust import RobustEstimate
from ._logistic import LogisticJimiResult
from ._planning import PowerResult, SampleSizeResult, SampleSizesResult

__all__ = [
    "ConfidenceInterval",
    "HTestResult",
    "HTestResults",
    "LogisticJimiResult",
    "PointEstimate",
    "PowerResult",
    "PrivacyRecord",
    "RobustEstimate",
    "SampleSizeResult",
    "SampleSizesResult",
    "map_results",
    "results_to_frame",
]
