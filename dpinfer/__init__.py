"""dpinfer: statistical inference on differentially private releases.

Release a statistic with a documented guarantee, then test and estimate from the
release with exact (where the mathematics allows) or simulation-based methods
whose answers print like R's ``htest``.
"""

# Noise laws, releases and what they guarantee.
from ._warnings import ApproximationWarning, DPInferWarning, PrivacyWarning
from .audit import AuditResult, audit_releaser
from .budget import (
    AdvancedComposition,
    BudgetExceededError,
    LedgerEntry,
    ParallelComposition,
    PrivacyBudget,
)
from .datasets import ExampleTrial, load_example_trial
from .distributions import Tulap
from .releasers import (
    KRRReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    Release,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

# Central DP inference for a binomial proportion.
from .inference.jimi import binom2_jimi_ci, binom2_jimi_test, binom_jimi_ci, binom_jimi_test
from .inference.normal import (
    binom2_normal_test,
    binom_normal_ci,
    binom_normal_power,
    binom_normal_test,
)
from .inference.prop import prop_test
from .inference.ump import (
    binom_ump_ci,
    binom_ump_phi,
    binom_ump_power,
    binom_ump_sample_size,
    binom_ump_test,
)

# Local DP inference and robust estimation.
from .inference.ldp import (
    krr_frequency_ci,
    krr_frequency_cov,
    krr_frequency_estimate,
    krr_gof_test,
    ldp_histogram_bins,
    ldp_histogram_density,
    local_laplace_mean_ci,
    local_laplace_mean_estimate,
    local_laplace_mean_se,
    project_to_simplex,
    rr_proportion_ci,
    rr_proportion_estimate,
    rr_proportion_se,
    rr_proportion_test,
    rr_two_sample_test,
    unary_frequency_ci,
    unary_frequency_cov,
    unary_frequency_estimate,
    unary_gof_test,
)
from .inference.robust import RobustEstimate, robust_frequency_estimate

# Results.
from .results import ConfidenceInterval, HTestResult, results_to_frame

__version__ = "0.1.0"

__all__ = [
    "AdvancedComposition",
    "ApproximationWarning",
    "AuditResult",
    "BudgetExceededError",
    "ConfidenceInterval",
    "DPInferWarning",
    "ExampleTrial",
    "HTestResult",
    "KRRReleaser",
    "LDPHistogramReleaser",
    "LaplaceReleaser",
    "LedgerEntry",
    "LocalLaplaceReleaser",
    "ParallelComposition",
    "PrivacyBudget",
    "PrivacyWarning",
    "RandomizedResponseReleaser",
    "Release",
    "RobustEstimate",
    "Tulap",
    "TulapReleaser",
    "TwoCoinRRReleaser",
    "UnaryEncodingReleaser",
    "audit_releaser",
    "binom2_jimi_ci",
    "binom2_jimi_test",
    "binom2_normal_test",
    "binom_jimi_ci",
    "binom_jimi_test",
    "binom_normal_ci",
    "binom_normal_power",
    "binom_normal_test",
    "binom_ump_ci",
    "binom_ump_phi",
    "binom_ump_power",
    "binom_ump_sample_size",
    "binom_ump_test",
    "krr_frequency_ci",
    "krr_frequency_cov",
    "krr_frequency_estimate",
    "krr_gof_test",
    "ldp_histogram_bins",
    "ldp_histogram_density",
    "load_example_trial",
    "local_laplace_mean_ci",
    "local_laplace_mean_estimate",
    "local_laplace_mean_se",
    "project_to_simplex",
    "prop_test",
    "results_to_frame",
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
