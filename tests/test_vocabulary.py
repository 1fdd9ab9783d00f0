"""One name per concept: every public signature spells each known concept one way.

Reads ``inspect.signature`` of every callable in ``dpinfer.__all__`` and of the public
methods of the public classes, and fails on a second spelling of a known concept
(``KNOWN_WRONG``), on a null value named otherwise than the family's name, on a
release argument outside the release vocabulary, and on a draw's ``rng``/``n_sim``
that is not keyword-only.  The vocabulary is the house style's (``STYLE.md``, Names)
and issue 35's decision.
"""

import inspect
import re

import pytest

import dpinfer

#: second spellings of known concepts -> the one name used here
KNOWN_WRONG = {
    "delta0": "margin (the null of a two-group comparison; delta is the privacy parameter)",
    "d0": "margin", "null": "p0, mu0 or margin", "null_value": "p0, mu0 or margin",
    "pi1": "pi_hat1", "pi2": "pi_hat2", "p_hat": "pi_hat", "phat": "pi_hat", "pihat": "pi_hat",
    "release_or_value": "pi_hat (numbers, or a Release) or release (a Release only)",
    "mu_0": "mu0", "mu": "mu0", "p_0": "p0",
    "conf_level": "confidence_level", "conf": "confidence_level", "level": "confidence_level",
    "cl": "confidence_level", "coverage": "confidence_level",
    "epsilon1": "epsilon=(epsilon_1, epsilon_2)", "epsilon2": "epsilon=(epsilon_1, epsilon_2)",
    "eps": "epsilon", "eps1": "epsilon", "eps2": "epsilon",
    "seed": "rng", "random_state": "rng", "random_seed": "rng", "generator": "rng",
    "nsim": "n_sim", "n_draws": "n_sim", "ndraws": "n_sim", "B": "n_sim", "n_mc": "n_sim",
    "alt": "alternative", "sided": "alternative", "tail": "alternative",
}

#: the null value's name in each family (the first argument a test compares against)
NULLS = {"p0", "mu0", "margin"}
#: which functions take which null: two-group comparisons take margin, one-sample tests p0 or mu0.
#: prop_test and mean_test take both forms (one release: p0/mu0; two: margin), refusing the wrong one;
#: so do the means' planning functions (one group: mu0; with mu2: margin).
ONE_AND_TWO = {"prop_test": {"p0", "margin"}, "mean_test": {"mu0", "margin"}, "mean_power": {"mu0", "margin"},
               "mean_sample_size": {"mu0", "margin"}}

#: the release argument: a Release (release, release1/release2, releases) or numbers standing for
#: one (z / pi_hat and their arm forms).  Local-DP functions take the privatized reports (or their
#: counts, which are the sufficient statistic of reports, not a release of a central count: reports,
#: counts, bit_counts, yes_count), logistic_jimi a released table (or its cells) as `table`, and
#: robust_frequency_estimate its reports matrix as `data`; these name local or table data, not a
#: second spelling of a central release.
RELEASE_ARGS = {"release", "release1", "release2", "releases", "releases1", "releases2", "z", "z1", "z2", "pi_hat",
                "pi_hat1", "pi_hat2"}
#: arms named by their role in a many-to-one comparison (R's multcomp: Dunnett's "control" against
#: the treatment arms): the release argument of that design, not a second spelling of `release`
ROLE_ARGS = {"control"}
#: comparisons of groups other than the binom2_/mean2_ families: their null is `margin` too
COMPARISONS = {"binom_strata_test", "binom_many_to_one_test"}
LOCAL_DATA_ARGS = {"reports", "reports1", "reports2", "counts", "bit_counts", "yes_count", "yes_count1",
                   "yes_count2", "table", "data"}

#: functions that test or estimate from releases: their first argument must be a release argument
INFERENCE_PREFIXES = ("binom_", "binom2_", "mean_", "mean2_", "prop_test", "independence_", "krr_", "unary_",
                      "rr_", "local_laplace_", "ldp_histogram_density", "logistic_jimi", "robust_")
#: planning functions (no release yet): their first arguments are parameters, not releases; designs
#: (Simon's two-stage, group-sequential) are planned at a significance level alpha too
PLANNING = re.compile(r"_(power|sample_size|phi|design)$|Design$")


def _public_callables():
    out = []
    for name in dpinfer.__all__:
        obj = getattr(dpinfer, name)
        if inspect.isclass(obj):
            out.append((name, obj))
            for meth, func in inspect.getmembers(obj, lambda f: inspect.isfunction(f) or inspect.ismethod(f)):
                if not meth.startswith("_"):
                    out.append((f"{name}.{meth}", func))
        elif callable(obj):
            out.append((name, obj))
    return out


def _params(obj):
    try:
        return inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return {}


CALLABLES = _public_callables()


def test_the_table_reads_every_public_signature():
    assert len(CALLABLES) > 150
    names = {n for n, _ in CALLABLES}
    assert {"binom2_jimi_test", "mean2_naive_test", "TulapReleaser.release", "HTestResult"} <= names


#: result attributes named after R's htest and scipy's ConfidenceInterval (fields read as results,
#: not arguments a user spells): allowed where they are
RESULT_FIELDS = {("ConfidenceInterval", "level"), ("HTestResult", "null_value")}


def test_no_second_spelling_of_a_known_concept():
    found = [f"{name}({p}): use {KNOWN_WRONG[p]}" for name, obj in CALLABLES for p in _params(obj)
             if p in KNOWN_WRONG and (name, p) not in RESULT_FIELDS]
    assert found == []


def test_the_null_of_two_groups_is_margin_and_of_one_group_p0_or_mu0():
    bad = []
    for name, obj in CALLABLES:
        nulls = set(_params(obj)) & NULLS
        if name in ONE_AND_TWO:
            if nulls != ONE_AND_TWO[name]:
                bad.append(f"{name}: {sorted(nulls)}")
        elif name.startswith(("binom2_", "mean2_", "rr_two_sample")) or name in COMPARISONS:
            if nulls - {"margin"}:
                bad.append(f"{name}: {sorted(nulls)} (two groups: margin)")
        elif name.startswith(("binom_", "rr_proportion", "krr_gof", "unary_gof")) and nulls - {"p0"}:
            bad.append(f"{name}: {sorted(nulls)} (a proportion: p0)")
        elif name.startswith("mean_") and nulls - {"mu0"}:
            bad.append(f"{name}: {sorted(nulls)} (a mean: mu0)")
    assert bad == []


def test_the_release_argument_has_one_vocabulary():
    bad = []
    for name, obj in CALLABLES:
        if "." in name or not name.startswith(INFERENCE_PREFIXES) or PLANNING.search(name) or inspect.isclass(obj):
            continue
        params = list(_params(obj))
        first = params[0]
        if first not in RELEASE_ARGS | LOCAL_DATA_ARGS | ROLE_ARGS:
            bad.append(f"{name}({first}, ...)")
        # the second arm is spelt as the first one's partner
        partner = {"z1": "z2", "pi_hat1": "pi_hat2", "release1": "release2", "reports1": "reports2",
                   "releases1": "releases2"}.get(first)
        if partner is not None and partner not in params:
            bad.append(f"{name}: {first} without {partner}")
        # a Release-only function names its argument `release`; numbers-or-Release ones z / pi_hat
        if first in ("z", "z1") and not name.startswith(("binom_ump", "binom2_ump")):
            bad.append(f"{name}: z is a Tulap count (binom_ump_*, binom2_ump_*)")
        if first in ("pi_hat", "pi_hat1") and not name.startswith(("binom_normal", "binom_jimi", "binom2_normal",
                                                                    "binom2_jimi")):
            bad.append(f"{name}: pi_hat is a Laplace proportion (binom_normal_*, binom_jimi_*)")
    assert bad == []


def test_draws_take_keyword_only_rng_and_n_sim():
    bad = []
    for name, obj in CALLABLES:
        if "rng" not in _params(obj):  # n_sim of a function that draws nothing (a printed record's count)
            continue
        for p in ("rng", "n_sim"):
            param = _params(obj).get(p)
            if param is not None and param.kind is not inspect.Parameter.KEYWORD_ONLY and not inspect.isclass(obj):
                bad.append(f"{name}({p}) is not keyword-only")
    assert bad == []


def test_alpha_is_only_a_significance_level():
    # `alpha` appears only where no interval is made (planning: power, sample size, the test
    # function phi), as the level of the test planned; a function that makes an interval takes
    # confidence_level and never alpha
    bad = []
    for name, obj in CALLABLES:
        params = _params(obj)
        if "alpha" in params and ("confidence_level" in params or not PLANNING.search(name)):
            bad.append(f"{name}: alpha outside planning (power, sample size, phi) or beside confidence_level")
    assert bad == []


@pytest.mark.parametrize("call, message", [
    (lambda r: dpinfer.mean_test(r, r, mu0=1.0), r"`mu0` is the null mean of one group; with two releases give "
                                                  r"`margin`"),
    (lambda r: dpinfer.mean_test(r, margin=1.0), r"`margin` is the null difference of two groups; with one "
                                                 r"release give `mu0`"),
])
def test_mean_test_refuses_the_other_null_with_a_hint(call, message):
    rel = dpinfer.MeanReleaser(1.0, 0.0, 10.0).release([1.0, 2.0, 3.0, 4.0], rng=1)
    with pytest.raises(TypeError, match=message):
        call(rel)


def test_the_deprecated_epsilon_pair_is_gone():
    import pathlib

    package = pathlib.Path(dpinfer.__file__).parent
    # (the command's --epsilon2 stays: arm 2's epsilon, in test, ci and power alike)
    hits = [str(p.relative_to(package)) for p in package.rglob("*.py")
            if re.search(r"epsilon1\b|epsilon_pair", p.read_text())]
    assert hits == []
    with pytest.raises(TypeError, match="epsilon1"):
        dpinfer.binom2_normal_test(0.41, 30, 0.27, 30, epsilon1=1.0, epsilon2=1.0)
