"""Inference on local-DP reports: randomized response, k-RR, unary encoding, local Laplace.

One private module per mechanism family, re-exported here: ``_randomized_response``
(Warner's RR, the two-coin protocol, the two-sample test), ``_krr`` (k-ary RR),
``_unary`` (unary encoding), ``_laplace`` (local Laplace mean), ``_histogram``
(local-DP histogram density), ``_robust`` (the spectral filter for contaminated
batches of reports), and ``_common`` for the kernels they share
(debiasing, simplex projection, simultaneous intervals, input checks).

The privacy parameter is called ``epsilon`` throughout (``alpha`` in Duchi, Jordan &
Wainwright 2018 and in the issue that specified this module: the same quantity).

**Estimands.**  Two targets are possible and the variances differ:

* the *population* proportion (frequency, mean) ``p``, when respondents are an iid
  sample: the variance includes the sampling variability of the true answers;
* the *sample's own* proportion ``p_bar = sum(x_i) / n`` (the respondents are the
  population of interest, e.g. a census of a trial's participants): only the
  privacy noise is random.

The debiased estimators are unbiased for both.  Functions that return a variance or
an interval take ``estimand='population'`` (default) or ``'sample'``.

**Input forms.**  Functions take the privatized reports (an array whose last axis
holds the respondents, or the :class:`~dpinfer.Release` a local releaser returned)
or, where stated, sufficient summaries (counts).  Leading axes of an array are
independent data sets (for simulation): a single data set gives a result object or
a float, several give arrays.
"""

from ._common import project_to_simplex
from ._histogram import ldp_histogram_bins, ldp_histogram_density
from ._krr import krr_frequency_ci, krr_frequency_cov, krr_frequency_estimate, krr_gof_test
from ._laplace import local_laplace_mean_ci, local_laplace_mean_estimate, local_laplace_mean_se
from ._randomized_response import (
    rr_proportion_ci,
    rr_proportion_estimate,
    rr_proportion_se,
    rr_proportion_test,
    rr_two_sample_test,
)
from ._robust import RobustEstimate, robust_frequency_estimate
from ._unary import (
    unary_frequency_ci,
    unary_frequency_cov,
    unary_frequency_estimate,
    unary_gof_test,
)

__all__ = [
    "RobustEstimate",
    "krr_frequency_ci",
    "krr_frequency_cov",
    "krr_frequency_estimate",
    "krr_gof_test",
    "ldp_histogram_bins",
    "ldp_histogram_density",
    "local_laplace_mean_ci",
    "local_laplace_mean_estimate",
    "local_laplace_mean_se",
    "project_to_simplex",
    "robust_frequency_estimate",
    "rr_proportion_ci",
    "rr_proportion_estimate",
    "rr_proportion_se",
    "rr_proportion_test",
    "rr_two_sample_test",
    "unary_frequency_ci",
    "unary_frequency_cov",
    "unary_frequency_estimate",
    "unary_gof_test",
]
