"""The plugin boundary, checked on the source: plugins import only ``cdcwire.plugin_api`` from the
core, the core imports no plugin, and the core's modules import each other without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "core" / "src" / "cdcwire"
PLUGIN_SOURCES = sorted(p for p in (REPO / "plugins").glob("*/src") if p.is_dir())
PLUGIN_PACKAGES = {pkg.name for src in PLUGIN_SOURCES for pkg in src.iterdir() if pkg.is_dir() and pkg.name.startswith("cdcwire_")}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, root: Path, *, at_import_time: bool = False) -> Iterator[tuple[int, str]]:
    """(line, absolute module) of each import in a file. ``at_import_time``: only the imports
    that run when the module is imported (not those under ``if TYPE_CHECKING`` or in functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    nodes = tree.body if at_import_time else list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            # "from . import x" may name a submodule: count it as one
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def plugin_files() -> list[Path]:
    return sorted(p for src in PLUGIN_SOURCES for p in src.rglob("*.py"))


@pytest.mark.parametrize("path", plugin_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_plugin_imports_nothing_of_the_core_but_the_plugin_api(path):
    src = next(s for s in PLUGIN_SOURCES if s in path.parents)
    wrong = sorted(
        {
            f"line {line}: {name}"
            for line, name in imported_modules(path, src)
            if name.split(".")[0] == "cdcwire"
            and name not in ("cdcwire", "cdcwire.plugin_api")
            and not name.startswith("cdcwire.plugin_api.")
        }
    )
    assert not wrong, f"{path.relative_to(REPO)} imports core modules outside cdcwire.plugin_api: {wrong}"


def test_no_plugin_imports_the_bare_cdcwire_package():
    """``import cdcwire`` or ``from cdcwire import X`` would reach the user's API, not the plugin API."""
    bare = [
        f"{path.relative_to(REPO)}:{line}"
        for path in plugin_files()
        for line, name in imported_modules(path, next(s for s in PLUGIN_SOURCES if s in path.parents))
        if name == "cdcwire" or name.count(".") == 1 and name.startswith("cdcwire.") and name[8:9].isupper()
    ]
    assert not bare, bare


def test_the_core_imports_no_plugin():
    assert PLUGIN_PACKAGES >= {"cdcwire_open", "cdcwire_craft", "cdcwire_canal_json", "cdcwire_avro"}
    found = sorted(
        f"{path.relative_to(REPO)}:{line} {name}"
        for path in CORE.rglob("*.py")
        for line, name in imported_modules(path, CORE.parent)
        if name.split(".")[0] in PLUGIN_PACKAGES
    )
    assert not found, found


def core_import_graph() -> dict[str, set[str]]:
    modules = {module_name(p, CORE.parent): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {
            target
            for _, target in imported_modules(path, CORE.parent, at_import_time=True)
            if target in modules and target != name and not name.startswith(target + ".")
        }
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph, as the modules along it, or [] when there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_finder_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_the_core_modules_import_each_other_without_a_cycle():
    graph = core_import_graph()
    assert "cdcwire.plugin_api" in graph and graph["cdcwire.plugin_api"]
    cycle = find_cycle(graph)
    assert not cycle, " -> ".join(cycle)
