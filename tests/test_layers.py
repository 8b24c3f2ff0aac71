"""rlvr_lib's layers (``rlvr_lib.LAYERS``): no module imports from a layer above its own, a paper's folder imports no
other paper, there is no import cycle, and README.md's Layout section lists exactly the subpackages (issue 38).

Every import counts, the lazy ones inside functions and those under ``if TYPE_CHECKING:`` included: a lazy import
hides a dependency from the reader, not from the layering."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import REPO

import rlvr_lib

PACKAGE = REPO / "rlvr_lib"
PAPER_FOLDERS = ("erpo", "cw_grpo", "tepo", "opefo", "aer")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, root: Path) -> set[str]:
    """The rlvr_lib modules (or packages) ``path`` imports, each resolved to its absolute dotted name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path, root).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    known = {module_name(p, root) for p in root.rglob("*.py")}
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == root.name}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            if base.split(".")[0] != root.name:
                continue
            for alias in node.names:  # `from pkg import module` names a module
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return out


def layer_of(module: str, layers: tuple[str, ...]) -> int:
    """Rank of ``module``'s layer (longest matching prefix); the package itself and ``__main__`` sit on top."""
    dotted = module.split(".", 1)[1] if "." in module else ""
    ranks = [(len(layer), i) for i, layer in enumerate(layers) if dotted == layer or dotted.startswith(layer + ".")]
    return max(ranks)[1] if ranks else len(layers)


def paper_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "papers" and parts[2] in PAPER_FOLDERS else None


def violations(root: Path, layers: tuple[str, ...]) -> list[str]:
    """Every import of a module under ``root`` that reaches a layer above its own, or another paper's folder."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = module_name(path, root)
        for target in sorted(imports_of(path, root)):
            if layer_of(target, layers) > layer_of(source, layers):
                found.append(f"{source} imports {target} (a layer above)")
            elif paper_of(target) and paper_of(target) != paper_of(source):
                found.append(f"{source} imports {target} (another paper)")
    return found


def cycles(root: Path) -> list[list[str]]:
    """The import cycles among the modules under ``root`` (strongly connected components of over one module; a
    package's ``__init__`` re-exporting its own modules is not a cycle)."""
    graph = {module_name(p, root): imports_of(p, root) for p in root.rglob("*.py")}
    graph = {
        m: {t for t in targets if t in graph and t != m and not m.startswith(t + ".")} for m, targets in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(m: str) -> None:  # Tarjan
        index[m] = low[m] = len(index)
        stack.append(m)
        for t in graph[m]:
            if t not in index:
                visit(t)
                low[m] = min(low[m], low[t])
            elif t in stack:
                low[m] = min(low[m], index[t])
        if low[m] == index[m]:
            component = []
            while True:
                t = stack.pop()
                component.append(t)
                if t == m:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return found


def test_no_module_imports_a_layer_above_its_own():
    assert violations(PACKAGE, rlvr_lib.LAYERS) == []


def test_no_import_cycle():
    assert cycles(PACKAGE) == []


def test_every_subpackage_is_a_layer_with_a_docstring():
    subpackages = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    top = sorted({layer.split(".")[0] for layer in rlvr_lib.LAYERS})
    assert subpackages == top
    for name in subpackages:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
        assert doc and len(doc) > 80, f"rlvr_lib/{name}/__init__.py: say what the layer holds and may import"
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]


def test_readme_layout_lists_the_subpackages():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\s*[-*]?\s*`?rlvr_lib/([a-z_]+)/", section, re.M))
    assert listed == {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    for paper in PAPER_FOLDERS:
        assert f"papers/{paper}/" in section or f"{paper}/" in section


def test_no_module_over_1000_lines():
    long = {str(p.relative_to(REPO)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 1000}
    assert long == {}


def plant(root: Path, files: dict[str, str]) -> Path:
    package = root / "rlvr_lib"
    for rel, text in {"__init__.py": "", **files}.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text)
    return package


LAYERS = ("settings", "methods", "papers.framework", "papers", "pipeline")


def test_a_planted_upward_import_is_found(tmp_path):
    """A lazy import inside a function counts; an import from the same or a lower layer does not."""
    package = plant(
        tmp_path,
        {
            "settings/__init__.py": "",
            "settings/config.py": "def check():\n    from rlvr_lib.methods import registry\n",
            "methods/__init__.py": "",
            "methods/registry.py": "from rlvr_lib.settings import config\n",
            "pipeline/__init__.py": "",
            "pipeline/stages.py": "from rlvr_lib.methods.registry import x\n",
        },
    )
    assert violations(package, LAYERS) == ["rlvr_lib.settings.config imports rlvr_lib.methods.registry (a layer above)"]
    assert cycles(package) == [["rlvr_lib.methods.registry", "rlvr_lib.settings.config"]]


def test_a_paper_importing_another_paper_is_found(tmp_path):
    package = plant(
        tmp_path,
        {
            "papers/__init__.py": "",
            "papers/framework/__init__.py": "",
            "papers/framework/base.py": "",
            "papers/aer/__init__.py": "",
            "papers/aer/measures.py": "from rlvr_lib.papers.framework import base\nfrom ...papers.erpo import claims\n",
            "papers/erpo/__init__.py": "",
            "papers/erpo/claims.py": "",
        },
    )
    assert violations(package, LAYERS) == [
        "rlvr_lib.papers.aer.measures imports rlvr_lib.papers.erpo.claims (another paper)"
    ]
