"""No two modules of dpinfer import each other (issue 24): dependencies run one way.

Every ``import`` and ``from ... import`` is counted, also those inside functions
(a deferred import is still a dependency).
"""

import ast
from pathlib import Path

import dpinfer

PACKAGE = Path(dpinfer.__file__).parent


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path, modules):
    name = _module_name(path)
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base[:len(base) - (node.level - 1)]
                source = ".".join(parent + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                target = f"{source}.{alias.name}"
                found.add(target if target in modules else source)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules and m != name}


def _pairs():
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges = {m: _imports(p, paths) for m, p in paths.items()}
    return sorted({tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges[b]})


def test_the_check_sees_a_pair(tmp_path):
    pkg = tmp_path / "dpinfer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .b import g\n")
    (pkg / "b.py").write_text("from .a import f\n")
    globals()["PACKAGE"], saved = pkg, PACKAGE
    try:
        assert _pairs() == [("dpinfer.a", "dpinfer.b")]
    finally:
        globals()["PACKAGE"] = saved


def test_no_two_modules_import_each_other():
    # before issue 24: [('dpinfer.distributions._tulap_grid', 'dpinfer.distributions.tulap')]
    assert _pairs() == []
