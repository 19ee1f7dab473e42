"""No import circles among the project's own modules (type-checking imports count too: a circle a
type checker needs is a circle in the design; engine modules depend on narrow protocols instead)."""

import ast
import functools
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("table", "vision", "web_ui", "hub")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(name: str, known: set[str]) -> str | None:
    """The project module an imported name refers to (`pkg.mod.func` -> `pkg.mod`), or None."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@functools.cache       # parsed once for both tests
def graph() -> dict[str, set[str]]:
    paths = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    known = {module_name(p) for p in paths}
    edges: dict[str, set[str]] = {module_name(p): set() for p in paths}
    for path in paths:
        here = module_name(path)
        package = here if path.name == "__init__.py" else here.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                found = resolve(target, known)
                if found and found != here:
                    edges[here].add(found)
    return edges


def test_the_graph_sees_the_known_imports():
    edges = graph()
    assert "table.rules.synaptik.los" in edges["table.rules.synaptik.ruleset"]
    assert "table.rules.hex_skirmish.analysis" in edges["table.rules.hex_skirmish.ruleset"]
    assert "table.rules.base" in edges["table.rules.hexbase"]
    assert "hub.listener" in edges["hub.web"]


def test_no_import_circles():
    try:
        TopologicalSorter(graph()).prepare()
    except CycleError as error:
        raise AssertionError(f"import circle: {' -> '.join(error.args[1])}") from None
