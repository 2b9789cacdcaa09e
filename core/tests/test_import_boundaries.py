"""The plugin boundary, checked on the source: plugins import only ``cdcwire.plugin_api`` from the
core, the core imports no plugin, and the core's modules import each other without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "core" / "src" / "cdcwire"
#: The built-in plugins' sources and the examples' (a third party's plugin, held to the same boundary).
PLUGIN_SOURCES = sorted(p for pattern in ("plugins/*/src", "examples/*/src") for p in REPO.glob(pattern) if p.is_dir())
PLUGIN_PACKAGES = {pkg.name for src in PLUGIN_SOURCES for pkg in src.iterdir() if pkg.is_dir() and pkg.name.startswith("cdcwire_")}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


#: The kinds of import :func:`imported_modules` tells apart. A type-only import (under
#: ``if TYPE_CHECKING:``) never runs, so it is exempt from the cycle and layer checks of the
#: core; an import inside a function runs when the function does, so it counts like one at
#: the top of the module.
AT_IMPORT, IN_FUNCTION, TYPE_ONLY = "at import", "in a function", "type-only"


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(path: Path, root: Path) -> Iterator[tuple[int, str, str]]:
    """(line, absolute module, kind) of each import in a file, wherever it stands; ``kind`` is
    AT_IMPORT, IN_FUNCTION or TYPE_ONLY. ``from a import b`` gives ``a`` and ``a.b`` (``b``
    may be a submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]

    def walk(node: ast.AST, kind: str) -> Iterator[tuple[int, str, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield child.lineno, alias.name, kind
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package[: len(package) - child.level + 1] + ([base] if base else []))
                yield child.lineno, base, kind
                for alias in child.names:
                    yield child.lineno, f"{base}.{alias.name}", kind
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for statement in child.body:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), TYPE_ONLY)
                for statement in child.orelse:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), kind)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and kind == AT_IMPORT:
                yield from walk(child, IN_FUNCTION)
            else:
                yield from walk(child, kind)

    yield from walk(tree, AT_IMPORT)


def plugin_files() -> list[Path]:
    return sorted(p for src in PLUGIN_SOURCES for p in src.rglob("*.py"))


@pytest.mark.parametrize("path", plugin_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_plugin_imports_nothing_of_the_core_but_the_plugin_api(path):
    src = next(s for s in PLUGIN_SOURCES if s in path.parents)
    wrong = sorted(
        {
            f"line {line}: {name}"
            for line, name, _ in imported_modules(path, src)
            if name.split(".")[0] == "cdcwire"
            and name not in ("cdcwire", "cdcwire.plugin_api")
            and not name.startswith("cdcwire.plugin_api.")
        }
    )
    assert not wrong, f"{path.relative_to(REPO)} imports core modules outside cdcwire.plugin_api: {wrong}"


def declared_plugin_api(package: Path) -> str:
    """The ``cdcwire_plugin_api = "X.Y"`` of a plugin's entry-point module, read from its source."""
    tree = ast.parse((package / "plugin.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "cdcwire_plugin_api" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{package.relative_to(REPO)}/plugin.py declares no cdcwire_plugin_api")


def plugin_packages() -> list[Path]:
    return sorted(pkg for src in PLUGIN_SOURCES for pkg in src.iterdir() if (pkg / "plugin.py").is_file())


def api_version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


@pytest.mark.parametrize("package", plugin_packages(), ids=lambda p: p.name)
def test_a_plugin_declares_a_plugin_api_that_has_every_name_it_imports(package):
    """A plugin declaring 1.1 but importing a 1.2 name would load on a 1.1 core and fail there
    with an ImportError instead of the registry's clear refusal."""
    from cdcwire.plugin_api import INTRODUCED_IN

    declared = declared_plugin_api(package)
    newer = sorted(
        f"{path.relative_to(REPO)}:{line} {name[len('cdcwire.plugin_api.'):]} (plugin API {INTRODUCED_IN[name[len('cdcwire.plugin_api.'):]]})"
        for path in sorted(package.rglob("*.py"))
        for line, name, _ in imported_modules(path, package.parent)
        if name.startswith("cdcwire.plugin_api.")
        and api_version(INTRODUCED_IN[name[len("cdcwire.plugin_api."):]]) > api_version(declared)
    )
    assert not newer, f"{package.name} declares cdcwire_plugin_api = {declared!r} but imports newer names: {newer}"


def test_every_name_of_the_plugin_api_says_which_version_introduced_it():
    from cdcwire import plugin_api

    assert set(plugin_api.INTRODUCED_IN) == set(plugin_api.__all__)
    assert all(hasattr(plugin_api, name) for name in plugin_api.INTRODUCED_IN)
    # a version may add no Python name (1.11: the Java framework of JVM tiers grew), never be unsaid
    assert api_version(max(plugin_api.INTRODUCED_IN.values(), key=api_version)) <= api_version(
        plugin_api.PLUGIN_API_VERSION)
    notes = (CORE / "contract" / "api_version.py").read_text()
    assert f"#: {plugin_api.PLUGIN_API_VERSION}: " in notes


def test_no_plugin_imports_the_bare_cdcwire_package():
    """``import cdcwire`` or ``from cdcwire import X`` would reach the user's API, not the plugin API."""
    bare = [
        f"{path.relative_to(REPO)}:{line}"
        for path in plugin_files()
        for line, name, _ in imported_modules(path, next(s for s in PLUGIN_SOURCES if s in path.parents))
        if name == "cdcwire" or name.count(".") == 1 and name.startswith("cdcwire.") and name[8:9].isupper()
    ]
    assert not bare, bare


def test_the_core_imports_no_plugin():
    assert PLUGIN_PACKAGES >= {"cdcwire_open", "cdcwire_craft", "cdcwire_canal_json", "cdcwire_avro"}
    found = sorted(
        f"{path.relative_to(REPO)}:{line} {name}"
        for path in CORE.rglob("*.py")
        for line, name, _ in imported_modules(path, CORE.parent)
        if name.split(".")[0] in PLUGIN_PACKAGES
    )
    assert not found, found


#: spark/ counts as one unit here: its rooms are another engineer's to untangle, and they
#: still import each other in a loop (data_source -> reader.stream_source ->
#: reader.source_options -> data_source), so arrows inside spark/ are left out of both the
#: cycle and the layer checks; arrows between spark/ and the rest of the core are not.
ONE_UNIT = ("cdcwire.spark",)


def unit_of(module: str) -> str:
    return next((u for u in ONE_UNIT if module == u or module.startswith(u + ".")), module)


def core_modules() -> dict[str, Path]:
    return {module_name(p, CORE.parent): p for p in sorted(CORE.rglob("*.py"))}


def core_imports(type_only: bool = False) -> Iterator[tuple[str, Path, int, str]]:
    """(importing unit, its file, line, imported unit) of every import between two units of the
    core that runs: at import time or in a function. Type-only imports (TYPE_ONLY) are exempt
    unless ``type_only``; so is a module importing its own package (Python runs a package's
    __init__ first anyway)."""
    modules = core_modules()
    for name, path in modules.items():
        for line, target, kind in imported_modules(path, CORE.parent):
            if kind == TYPE_ONLY and not type_only or target not in modules or name == target or name.startswith(target + "."):
                continue
            if unit_of(name) != unit_of(target):
                yield unit_of(name), path, line, unit_of(target)


def core_import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {unit_of(name): set() for name in core_modules()}
    for source, _, _, target in core_imports():
        graph[source].add(target)
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
    """Imports inside functions count: they close a cycle as surely as the ones on top."""
    graph = core_import_graph()
    assert "cdcwire.plugin_api" in graph and graph["cdcwire.plugin_api"]
    cycle = find_cycle(graph)
    assert not cycle, " -> ".join(cycle)


def test_an_import_inside_a_function_is_read(tmp_path):
    """``DirectWriteJob.task_writer`` once imported ``open_sink`` in its body: the walk sees such an
    import, and tells it from a type-only one."""
    path = tmp_path / "cdcwire" / "transport.py"
    path.parent.mkdir()
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .sink import Sink\n"
        "def task_writer():\n"
        "    from .sink import open_sink\n",
        encoding="utf-8",
    )
    found = {(line, name, kind) for line, name, kind in imported_modules(path, tmp_path) if "sink" in name}
    assert found == {
        (3, "cdcwire.sink", TYPE_ONLY), (3, "cdcwire.sink.Sink", TYPE_ONLY),
        (5, "cdcwire.sink", IN_FUNCTION), (5, "cdcwire.sink.open_sink", IN_FUNCTION),
    }


#: The core's rooms, bottom-up: each is a folder of ``cdcwire`` (or one of the few modules at its
#: top), and its folder is its layer. A module imports its own room and the rooms of the layers
#: below, never one above -- imports inside functions included; type-only imports apart.
LAYERS: list[tuple[str, ...]] = [
    ("foundation",),      # errors, declared parameters, caches, redaction, durations, points in time
    ("values",),          # type codes, type names and texts, the classification of values
    ("model",),           # events, table schemas, the wire message; events checked and as JSON
    ("uris",),            # sink URIs taken apart and typed; topic names
    ("contract",),        # the hook spec, Codec, Transport, the registry plugins fill
    ("dispatch",),        # which topic and partition; table filters
    ("large_messages",),  # compression and claim-check
    ("plugin_api",),      # the one module plugins import
    ("transports",),      # the core's own transports, plugins like any other
    ("sinks",),           # where a URI becomes a Sink: the installed registry, the sink
    ("api", "workload", "__init__"),  # the user's entry points
    ("spark",),
    ("testing",),         # the kits plugin authors run (a JVM codec's: its two Spark tiers)
    ("cli", "__main__"),
]

#: The most modules the core's top folder and each room may hold (``__init__`` counted).
MOST_AT_THE_TOP, MOST_IN_A_ROOM = 12, 20


def room_of(module: str) -> str:
    """``cdcwire.model.events`` -> ``model``; ``cdcwire.plugin_api`` -> ``plugin_api``; ``cdcwire`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(module: str) -> int:
    """The index of the layer of ``module``'s room."""
    room = room_of(module)
    for index, rooms in enumerate(LAYERS):
        if room in rooms:
            return index
    raise KeyError(module)


def test_every_room_of_the_core_has_a_layer():
    rooms = {p.stem if p.is_file() else p.name for p in CORE.iterdir()
             if p.suffix == ".py" or (p / "__init__.py").is_file()}
    declared = {room for rooms in LAYERS for room in rooms}
    assert rooms == declared, f"rooms without a layer: {sorted(rooms - declared)}; layers without a room: {sorted(declared - rooms)}"


def test_the_core_top_folder_holds_a_few_modules_and_each_room_a_handful():
    top = sorted(p.name for p in CORE.glob("*.py"))
    assert len(top) <= MOST_AT_THE_TOP, top
    crowded = {room.name: n for room in CORE.iterdir() if room.is_dir()
               if (n := len(list(room.glob("*.py")))) > MOST_IN_A_ROOM}
    assert not crowded, f"rooms of more than {MOST_IN_A_ROOM} modules: {crowded}"


def upward_imports() -> list[str]:
    return sorted(
        f"{path.relative_to(REPO)}:{line} imports {target} ({room_of(target)}, layer {layer_of(target)})"
        f" from {room_of(source)} (layer {layer_of(source)})"
        for source, path, line, target in core_imports(type_only=True)
        if layer_of(target) > layer_of(source)
    )


def test_no_core_module_imports_from_a_layer_above_its_own():
    """Not even inside a function (that is how sink_uri, transport and registry reached back up
    to sink.py and made the core one knot), nor for a type: a room names nothing above it."""
    wrong = upward_imports()
    assert not wrong, "imports that run back up the layers:\n" + "\n".join(wrong)


def test_the_layers_are_read_bottom_up():
    assert layer_of("cdcwire.foundation.errors") < layer_of("cdcwire.model.events") < layer_of("cdcwire.contract.codec")
    assert layer_of("cdcwire.contract.registry") < layer_of("cdcwire.transports.file.job") < layer_of("cdcwire.sinks.sink")
    assert layer_of("cdcwire.sinks.sink") < layer_of("cdcwire.api.functions") < layer_of("cdcwire.spark") < layer_of("cdcwire.cli.run_command")
    assert layer_of("cdcwire") == layer_of("cdcwire.api.functions")
