"""dpinfer: statistical inference on differentially private releases.

Release a statistic with a documented guarantee, then test and estimate from the
release with exact (where the mathematics allows) or simulation-based methods
whose answers print like R's ``htest``.
"""

import importlib

from ._lazy import lazy_getattr as _lazy_getattr

# Public names and the module each lives in.  They are imported on first use (PEP 562), so
# ``import dpinfer`` (and the command's ``--help``) does not pay for scipy.stats, the audit
# tools or any inference module it does not touch.
_PUBLIC = {
    "ApproximationWarning": "._warnings",
    "AdvancedComposition": ".budget",
    "AllocationPlan": ".budget",
    "AuditResult": ".audit",
    "BudgetExceededError": ".budget",
    "ConfidenceInterval": ".results",
    "ContingencyTableReleaser": ".releasers",
    "DPInferWarning": "._warnings",
    "ExampleTrial": ".datasets",
    "HTestResult": ".results",
    "HTestResults": ".results",
    "InputWarning": "._warnings",
    "KRRReleaser": ".releasers",
    "LDPHistogramReleaser": ".releasers",
    "LaplaceReleaser": ".releasers",
    "LedgerEntry": ".budget",
    "LocalLaplaceReleaser": ".releasers",
    "LogisticJimiResult": ".inference.logistic",
    "MeanReleaser": ".releasers",
    "ParallelComposition": ".budget",
    "PointEstimate": ".point_estimate",
    "PrivacyBudget": ".budget",
    "PrivacyWarning": "._warnings",
    "RandomizedResponseReleaser": ".releasers",
    "Release": ".releasers",
    "RobustEstimate": ".inference.local",
    "Tulap": ".distributions",
    "TulapReleaser": ".releasers",
    "TwoCoinRRReleaser": ".releasers",
    "UnaryEncodingReleaser": ".releasers",
    "audit_releaser": ".audit",
    "binom2_jimi_ci": ".inference.jimi",
    "binom2_jimi_sample": ".inference.jimi",
    "binom2_jimi_test": ".inference.jimi",
    "binom2_normal_test": ".inference.normal",
    "binom2_ump_ci": ".inference.two_arm",
    "binom2_ump_power": ".inference.two_arm",
    "binom2_ump_sample_size": ".inference.two_arm",
    "binom2_ump_test": ".inference.two_arm",
    "binom_jimi_ci": ".inference.jimi",
    "binom_jimi_sample": ".inference.jimi",
    "binom_jimi_test": ".inference.jimi",
    "binom_normal_ci": ".inference.normal",
    "binom_normal_power": ".inference.normal",
    "binom_normal_test": ".inference.normal",
    "binom_ump_ci": ".inference.ump",
    "binom_ump_phi": ".inference.ump",
    "binom_ump_power": ".inference.ump",
    "binom_ump_sample_size": ".inference.ump",
    "binom_ump_test": ".inference.ump",
    "independence_jimi_test": ".inference.table",
    "independence_mc_test": ".inference.table",
    "krr_frequency_ci": ".inference.local",
    "krr_frequency_cov": ".inference.local",
    "krr_frequency_estimate": ".inference.local",
    "krr_gof_test": ".inference.local",
    "ldp_histogram_bins": ".inference.local",
    "ldp_histogram_density": ".inference.local",
    "load_example_trial": ".datasets",
    "local_laplace_mean_ci": ".inference.local",
    "local_laplace_mean_estimate": ".inference.local",
    "local_laplace_mean_se": ".inference.local",
    "logistic_jimi": ".inference.logistic",
    "mean2_jimi_test": ".inference.means",
    "mean2_naive_test": ".inference.means",
    "mean_jimi_test": ".inference.means",
    "mean_naive_test": ".inference.means",
    "mean_test": ".inference.means",
    "map_results": ".results",
    "project_to_simplex": ".inference.local",
    "prop_test": ".inference.prop",
    "results_to_frame": ".results",
    "robust_frequency_estimate": ".inference.local",
    "rr_proportion_ci": ".inference.local",
    "rr_proportion_estimate": ".inference.local",
    "rr_proportion_se": ".inference.local",
    "rr_proportion_test": ".inference.local",
    "rr_two_sample_test": ".inference.local",
    "unary_frequency_ci": ".inference.local",
    "unary_frequency_cov": ".inference.local",
    "unary_frequency_estimate": ".inference.local",
    "unary_gof_test": ".inference.local",
}


_public_getattr = _lazy_getattr(__name__, _PUBLIC)


def __getattr__(name):
    if name not in _PUBLIC and not name.startswith("__"):
        # a submodule (dpinfer.inference, dpinfer.audit, ...), as after an eager import
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
    return _public_getattr(name)


def __dir__():
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "AdvancedComposition",
    "AllocationPlan",
    "ApproximationWarning",
    "AuditResult",
    "BudgetExceededError",
    "ConfidenceInterval",
    "ContingencyTableReleaser",
    "DPInferWarning",
    "ExampleTrial",
    "HTestResult",
    "HTestResults",
    "InputWarning",
    "KRRReleaser",
    "LDPHistogramReleaser",
    "LaplaceReleaser",
    "LedgerEntry",
    "LocalLaplaceReleaser",
    "LogisticJimiResult",
    "MeanReleaser",
    "ParallelComposition",
    "PointEstimate",
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
    "binom2_jimi_sample",
    "binom2_jimi_test",
    "binom2_normal_test",
    "binom2_ump_ci",
    "binom2_ump_power",
    "binom2_ump_sample_size",
    "binom2_ump_test",
    "binom_jimi_ci",
    "binom_jimi_sample",
    "binom_jimi_test",
    "binom_normal_ci",
    "binom_normal_power",
    "binom_normal_test",
    "binom_ump_ci",
    "binom_ump_phi",
    "binom_ump_power",
    "binom_ump_sample_size",
    "binom_ump_test",
    "independence_jimi_test",
    "independence_mc_test",
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
    "logistic_jimi",
    "mean2_jimi_test",
    "mean2_naive_test",
    "mean_jimi_test",
    "mean_naive_test",
    "mean_test",
    "map_results",
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
