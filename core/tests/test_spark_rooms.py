"""The rooms of ``cdcwire.spark``, checked on the source: imports run down only.

``rows/`` (the event row model), ``runtime/`` (what every Spark job needs) and ``jvm/`` (the
Java tier's jar and its classes) are at the bottom, ``reader/`` and ``writer/`` above them, ``tables/`` above those, and the
user-facing modules at the top of ``spark/`` above all. A module imports its own room
and the rooms below it, never one above, and never a room beside it (reader and writer
do not know each other) -- imports inside functions included, since they run all the
same; only ``if TYPE_CHECKING:`` imports are exempt. Run it alone:

    python -m pytest -q core/tests/test_spark_rooms.py
"""

from __future__ import annotations

from pathlib import Path

from test_import_boundaries import CORE, TYPE_ONLY, find_cycle, imported_modules, module_name

SPARK = CORE / "spark"

#: Each room and its level: a module may import its own room and the rooms of lower levels.
ROOMS = {"rows": 0, "runtime": 0, "jvm": 0, "reader": 1, "writer": 1, "tables": 2, "top": 3}
MOST_ENTRIES_AT_THE_TOP = 12


def room_of(module: str) -> str:
    """``cdcwire.spark.reader.stream_source`` -> ``reader``; a module at spark/'s top -> ``top``."""
    parts = module.split(".")[2:]
    return parts[0] if len(parts) > 1 and parts[0] in ROOMS else "top"


def spark_imports() -> dict[str, set[tuple[int, str]]]:
    """Each spark module's imports of other spark modules, function-level ones included."""
    modules = {module_name(p, CORE.parent): p for p in SPARK.rglob("*.py")}
    found: dict[str, set[tuple[int, str]]] = {}
    for name, path in modules.items():
        found[name] = {
            (line, target)
            for line, target, kind in imported_modules(path, CORE.parent)
            if kind != TYPE_ONLY and target in modules and target != name and not name.startswith(target + ".")
        }
    return found


def upward_imports(imports: dict[str, set[tuple[int, str]]]) -> list[str]:
    wrong = []
    for name, targets in sorted(imports.items()):
        here = room_of(name)
        for line, target in sorted(targets):
            there = room_of(target)
            if there != here and ROOMS[there] >= ROOMS[here]:
                wrong.append(f"{name}:{line} ({here}) imports {target} ({there})")
    return wrong


def test_a_spark_module_imports_only_its_own_room_and_rooms_below():
    wrong = upward_imports(spark_imports())
    assert not wrong, "imports that run up or sideways between spark's rooms:\n" + "\n".join(wrong)


def test_the_room_check_sees_an_import_that_runs_up():
    imports = {"cdcwire.spark.tables.materialize": {(44, "cdcwire.spark.reading")}}
    assert upward_imports(imports) == [
        "cdcwire.spark.tables.materialize:44 (tables) imports cdcwire.spark.reading (top)"
    ]


def test_the_room_check_sees_an_import_between_reader_and_writer():
    imports = {"cdcwire.spark.reader.batch_reader": {(3, "cdcwire.spark.writer.encoding")}}
    assert upward_imports(imports)


def test_every_room_of_spark_is_declared():
    rooms = {p.name for p in SPARK.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(ROOMS) - {"top"}


def test_spark_modules_import_each_other_without_a_cycle_even_inside_functions():
    graph = {name: {target for _, target in targets} for name, targets in spark_imports().items()}
    assert find_cycle(graph) == []


def test_spark_has_at_most_twelve_entries_at_its_top():
    entries = sorted(p.name for p in SPARK.iterdir() if p.name != "__pycache__")
    assert len(entries) <= MOST_ENTRIES_AT_THE_TOP, entries
