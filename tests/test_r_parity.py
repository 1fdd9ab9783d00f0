"""The R package's wrappers against the Python functions they call: no argument drifts away.

Every function ``r/NAMESPACE`` exports is listed in ``AUDIT`` with the Python callables it
calls and, for each Python parameter, the R argument that carries it or the reason it is
not offered from R.  The test reads the R functions' argument lists from ``r/R/*.R`` (no R
needed) and ``inspect.signature`` of the Python side, and fails when

- a Python parameter is added or renamed and the table does not say where R passes it
  (or why it does not): the drift issue 42 found (``statistic``, ``effect``, ``margin``);
- an R argument named in the table is missing from the R function, or an R argument is
  neither a Python parameter's carrier nor listed as R's own;
- a numeric default of R differs from the Python default it stands for;
- an exported R function is not audited.
"""

import inspect
import re
from pathlib import Path

import pytest

import dpinfer

ROOT = Path(__file__).resolve().parents[1]


class Omit(str):
    """A Python parameter not offered from R, with the reason."""


_SECURE = Omit("the path follows `seed`: NULL draws on the hardened path, a seed the research path")
_ARRAY = Omit("R releases one data set per call")
_PROGRESS = Omit("R prints no progress bar")
_SENSITIVITY = Omit("one count per person (sensitivity 1), as the R releases make them")

#: what every releaser's ``release`` takes, and where R passes it
_RELEASE = {"rng": "seed", "secure": _SECURE, "budget": ("budget", "group"), "array": _ARRAY}

#: R function -> ((Python callable, {Python parameter: R argument(s), or an Omit}), ...), R's own arguments.
#: A tuple of R names: the Python parameter is built from them (e.g. ``budget`` from budget and group).
AUDIT = {
    "dp_binom_test": ([("binom_ump_test", {
        "z": "z", "n": "n", "p0": "p", "epsilon": "epsilon", "delta": "delta", "alternative": "alternative",
        "confidence_level": "conf.level", "two_sided_method": "two.sided.method", "sensitivity": "..."})], {}),
    "dp_prop_test": ([("prop_test", {
        "release": "x", "p0": ("p", "n"), "method": "method", "alternative": "alternative",
        "confidence_level": "conf.level", "two_sided_method": "two.sided.method", "n_sim": "n.sim",
        "rng": "seed", "epsilon": "epsilon", "delta": "delta", "effect": "effect", "margin": "margin",
        "composition": "composition", "statistic": "statistic", "workers": "workers",
        "pooled": Omit("sites sharing one proportion are not offered from R (one or two releases here; "
                       "strata: dp_mantelhaen_test)")})], {}),
    "dp_chisq_test": ([(name, {"release": "x", "n_sim": "n.sim", "rng": "seed", "progress": _PROGRESS,
                               "workers": "workers"})
                       for name in ("independence_jimi_test", "independence_mc_test")],
                      {"epsilon": "releases a matrix x first", "budget": "charged by that release",
                       "method": "chooses the Python function (jimi or mc)"}),
    "dp_power_prop_test": ([(name, {
        "theta1": "p1", "theta2": "p2", "epsilon": "epsilon", "delta": "delta", "sensitivity": _SENSITIVITY,
        "effect": "effect", "margin": "margin", "alpha": "sig.level", "alternative": "alternative",
        "statistic": "statistic", "mechanism": "mechanism", **extra}) for name, extra in (
            ("binom2_ump_power", {"n1": "n", "n2": "n"}),
            ("binom2_ump_sample_size", {"power": "power", "ratio": "ratio", "progress": _PROGRESS}))], {}),
    "dp_power_t_test": ([(name, {
        "mu1": "mu1", "mu2": "mu2", "mu0": "mu", "margin": "margin", "sigma": "sd", "lower": "lower",
        "upper": "upper", "epsilon": "epsilon", "alpha": "sig.level", "alternative": "alternative",
        "method": "method", "spread": "spread", "split": "split", "n_sim": "n.sim", "rng": "seed", **extra})
        for name, extra in (("mean_power", {"n": "n"}),
                            ("mean_sample_size", {"power": "power", "ratio": "ratio"}))], {}),
    "dp_release_count": ([
        ("TulapReleaser", {"epsilon": "epsilon", "delta": "delta", "sensitivity": _SENSITIVITY}),
        ("TulapReleaser.release", {"x": "x", "n": "n", **_RELEASE}),
        ("LaplaceReleaser", {"epsilon": "epsilon", "sensitivity": _SENSITIVITY}),
        ("LaplaceReleaser.proportion", {"x": "x", "n": "n", **_RELEASE})],
        {"mechanism": "chooses the releaser (Tulap or Laplace)"}),
    "dp_release_table": ([
        ("ContingencyTableReleaser", {
            "epsilon": "epsilon",
            "neighbours": Omit("R releases under the default relation (replace-one)"),
            "margins": Omit("R releases with the default public margin (the total)")}),
        ("ContingencyTableReleaser.release", {"table": "x", **_RELEASE})], {}),
    "dp_release_paired": ([
        ("PairedTableReleaser", {"epsilon": "epsilon"}),
        ("PairedTableReleaser.release", {"table": "x", **_RELEASE})], {}),
    "dp_mcnemar_test": ([("mcnemar_test", {
        "release": "x", "n": "n", "epsilon": "epsilon", "margin": "margin", "alternative": "alternative",
        "confidence_level": "conf.level"})], {}),
    "dp_mantelhaen_test": ([("binom_strata_test", {
        "releases": "x", "margin": "margin", "alternative": "alternative", "confidence_level": "conf.level",
        "gamma": "gamma", "composition": "composition"})], {}),
    "dp_release_survival": ([
        ("LifeTableReleaser", {"epsilon": "epsilon", "breaks": "breaks"}),
        ("LifeTableReleaser.release", {
            "time": "time", "event": "event", "group": "group", "rng": "seed", "secure": _SECURE,
            "budget": "budget", "array": _ARRAY,
            "groups": Omit("the arms in Python's order of their labels")})], {}),
    "dp_survdiff": ([("logrank_test", {
        "release": "x", "alternative": "alternative", "confidence_level": "conf.level", "n_sim": "n.sim",
        "rng": "seed", "workers": "workers"})], {}),
    "dp_survfit": ([("kaplan_meier", {
        "release": "x", "estimator": "estimator", "confidence_level": "conf.int", "method": "conf.type",
        "n_sim": "n.sim", "rng": "seed"})], {}),
    "dp_sequential_design": ([("sequential_design", {
        "theta1": "p1", "theta2": "p2", "looks": "k", "alpha": "alpha", "power": "power", "epsilon": "epsilon",
        "delta": "delta", "spending": "spending", "futility": "futility", "ratio": "ratio",
        "information": "information"})], {}),
    "dp_simon_design": ([("simon_design", {
        "p0": "p0", "p1": "p1", "alpha": "alpha", "power": "power", "epsilon": "epsilon", "delta": "delta",
        "design": "design", "max_n": "max_n"})], {}),
    "dp_simon_test": ([("simon_test", {
        "design": "design", "releases": "releases", "alternative": "alternative", "confidence_level": "conf.level",
        "composition": "composition"})], {}),
    "dp_sequential_test": ([("sequential_test", {
        "design": "design", "releases": "releases", "margin": "margin", "confidence_level": "conf.level",
        "composition": "composition"})], {}),
    "dp_budget": ([("PrivacyBudget", {
        "epsilon": "epsilon", "delta": "delta", "description": "description",
        "plan": Omit("allocation plans are not offered from R")})], {}),
    "dp_release_mean": ([
        ("MeanReleaser", {"epsilon": "epsilon", "lower": "lower", "upper": "upper", "spread": "spread",
                          "split": "split"}),
        ("MeanReleaser.release", {"x": "x", **_RELEASE})], {}),
    "dp_t_test": ([("mean_test", {
        "release": "x", "release2": "y", "mu0": "mu", "margin": "margin", "method": "method", "sigma": "sigma",
        "model": "model", "alternative": "alternative", "confidence_level": "conf.level", "n_sim": "n.sim",
        "rng": "seed", "composition": "composition", "workers": "workers"})], {}),
}

#: exported R functions with no Python function behind them
R_ONLY = {"dp_available", "dp_python", "dp_privacy", "dp_spent"}


def _r_functions():
    """{name: [(argument, default text or None), ...]} of the top-level functions in r/R/*.R."""
    out = {}
    for path in sorted((ROOT / "r" / "R").glob("*.R")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"^([\w.]+) <- function\(", text, re.M):
            i, depth, start = match.end(), 1, match.end()
            while depth:  # to the parenthesis closing the argument list (no parentheses inside strings here)
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            out[match.group(1)] = _split_arguments(text[start:i - 1])
    return out


def _split_arguments(text):
    """'x, n = NULL, alt = c("a", "b")' -> [('x', None), ('n', 'NULL'), ('alt', 'c("a", "b")')]."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    args = []
    for part in (p.strip() for p in parts if p.strip()):
        name, _, default = part.partition("=")
        args.append((name.strip(), default.strip() or None))
    return args


def _python(path):
    """The parameters of a public callable (``name`` or ``Class.method``), without ``self``."""
    obj = dpinfer
    for part in path.split("."):
        obj = getattr(obj, part)
    params = inspect.signature(obj).parameters
    return {k: v for k, v in params.items() if k != "self"}


R_FUNCTIONS = _r_functions()


def test_every_exported_function_is_audited():
    namespace = (ROOT / "r" / "NAMESPACE").read_text(encoding="utf-8")
    exported = set(re.findall(r"^export\((\w+)\)$", namespace, re.M))
    assert exported - R_ONLY == set(AUDIT), (exported - R_ONLY) ^ set(AUDIT)
    assert exported <= set(R_FUNCTIONS)


@pytest.mark.parametrize("r_name", sorted(AUDIT))
def test_every_python_parameter_has_an_r_argument_or_a_reason(r_name):
    targets, r_own = AUDIT[r_name]
    r_args = dict(R_FUNCTIONS[r_name])
    carried = set()
    for target, mapping in targets:
        params = _python(target)
        assert set(params) == set(mapping), (
            f"{r_name} -> {target}: the Python parameters changed; say where R passes each (or why not): "
            f"new {sorted(set(params) - set(mapping))}, gone {sorted(set(mapping) - set(params))}")
        for py_name, r_side in mapping.items():
            if isinstance(r_side, Omit):
                assert len(r_side) > 10, (r_name, py_name)  # a reason, not a placeholder
                continue
            names = (r_side,) if isinstance(r_side, str) else r_side
            missing = [n for n in names if n not in r_args]
            assert not missing, f"{r_name} lacks {missing} for Python's {target}({py_name}=...)"
            carried.update(names)
    stray = set(r_args) - carried - set(r_own)
    assert not stray, f"{r_name}: R arguments {sorted(stray)} carry no Python parameter and are not listed as R's own"


@pytest.mark.parametrize("r_name", sorted(AUDIT))
def test_numeric_defaults_are_python_defaults(r_name):
    targets, _ = AUDIT[r_name]
    r_args = dict(R_FUNCTIONS[r_name])
    for target, mapping in targets:
        for py_name, param in _python(target).items():
            r_side = mapping[py_name]
            if not isinstance(r_side, str) or isinstance(r_side, Omit) or r_side == "...":
                continue
            default = r_args[r_side]
            if default is None or not re.fullmatch(r"-?[\d.]+(e-?\d+)?", default):
                continue  # no default, NULL (Python's own default applies) or a choice vector
            assert param.default is not inspect.Parameter.empty, (r_name, target, py_name)
            assert float(default) == float(param.default), (
                f"{r_name}({r_side} = {default}) stands for {target}({py_name}={param.default!r})")


def test_statistic_effect_and_margin_reach_r_wherever_python_has_them():
    """The names issue 42 asked for, checked directly (the table above could omit them with a reason)."""
    for r_name, (targets, _) in AUDIT.items():
        for target, mapping in targets:
            for name in ("statistic", "effect", "margin"):
                if name in mapping:
                    assert not isinstance(mapping[name], Omit), (r_name, target, name)
                    assert mapping[name] in dict(R_FUNCTIONS[r_name]), (r_name, name)


def test_the_reader_of_r_argument_lists():
    assert _split_arguments('x, n = NULL, alternative = c("two.sided", "less"), f = function(a, b) a, ...') == [
        ("x", None), ("n", "NULL"), ("alternative", 'c("two.sided", "less")'), ("f", "function(a, b) a"),
        ("...", None)]
    assert R_FUNCTIONS["dp_t_test"][:3] == [("x", None), ("y", "NULL"),
                                            ("alternative", 'c("two.sided", "less", "greater")')]
