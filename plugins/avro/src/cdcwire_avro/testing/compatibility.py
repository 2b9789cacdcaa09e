"""Avro schema compatibility, as a Schema Registry checks it before registering.

``problems(reader, writer)`` lists why data written with ``writer`` cannot be
read with ``reader`` under Avro's schema resolution rules: a reader field
missing from the writer needs a default; types must match or be a promotion
(int -> long/float/double, long -> float/double, float -> double,
string <-> bytes); unions resolve branch by branch; records and enums keep
their names; enum symbols the writer uses must exist in the reader (or the
reader has a default). Removed fields are fine. Logical types are not
compared, as Confluent's checker does not.
"""

from __future__ import annotations

from typing import Any

import fastavro

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
#: (writer type, reader type) pairs a reader may promote.
PROMOTIONS = frozenset(
    {
        ("int", "long"), ("int", "float"), ("int", "double"),
        ("long", "float"), ("long", "double"), ("float", "double"),
        ("string", "bytes"), ("bytes", "string"),
    }
)
LEVELS = (
    "NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE",
)


def parse(schema: Any) -> Any:
    """A fastavro-parsed schema (named types expanded into ``__named_schemas``)."""
    return fastavro.parse_schema(schema, _write_hint=False, _force=True)


def problems_with_level(level: str, new: Any, olds: list[Any]) -> list[str]:
    """Why ``new`` breaks ``level`` against the earlier versions ``olds`` (oldest first)."""
    if level == "NONE" or not olds:
        return []
    against = olds if level.endswith("_TRANSITIVE") else olds[-1:]
    found: list[str] = []
    for old in against:
        if level.startswith(("BACKWARD", "FULL")):
            found += problems(new, old)
        if level.startswith(("FORWARD", "FULL")):
            found += problems(old, new)
    return found


def problems(reader: Any, writer: Any) -> list[str]:
    """Reasons ``reader`` cannot read data written with ``writer`` (both fastavro-parsed)."""
    checker = _Checker(_named(reader), _named(writer))
    checker.check(reader, writer, "")
    return checker.found


def _named(schema: Any) -> dict:
    return schema.get("__named_schemas", {}) if isinstance(schema, dict) else {}


def _short(name: str) -> str:
    return name.rpartition(".")[2]


class _Checker:
    def __init__(self, reader_names: dict, writer_names: dict) -> None:
        self.reader_names = reader_names
        self.writer_names = writer_names
        self.found: list[str] = []
        self._seen: set[tuple[str, str]] = set()

    def _resolve(self, schema: Any, names: dict) -> Any:
        if isinstance(schema, str):
            return schema if schema in PRIMITIVES else names.get(schema, schema)
        if isinstance(schema, dict) and schema.get("type") in PRIMITIVES:
            return schema["type"]
        return schema

    @staticmethod
    def _kind(schema: Any) -> str:
        if isinstance(schema, list):
            return "union"
        if isinstance(schema, dict):
            return str(schema.get("type"))
        return str(schema)

    def readable(self, reader: Any, writer: Any) -> bool:
        probe = _Checker(self.reader_names, self.writer_names)
        probe._seen = set(self._seen)
        probe.check(reader, writer, "")
        return not probe.found

    def check(self, reader: Any, writer: Any, path: str) -> None:
        reader = self._resolve(reader, self.reader_names)
        writer = self._resolve(writer, self.writer_names)
        rk, wk = self._kind(reader), self._kind(writer)
        where = path or "/"
        if wk == "union":
            for branch in writer:
                self.check(reader, branch, path)
            return
        if rk == "union":
            if not any(self.readable(branch, writer) for branch in reader):
                self.found.append(f"{where}: reader union has no branch for writer type {wk}")
            return
        if rk in PRIMITIVES or wk in PRIMITIVES:
            if rk != wk and (wk, rk) not in PROMOTIONS:
                self.found.append(f"{where}: type {wk} cannot be read as {rk}")
            return
        if rk != wk:
            self.found.append(f"{where}: type {wk} cannot be read as {rk}")
            return
        if rk in ("record", "enum", "fixed") and _short(reader["name"]) != _short(writer["name"]):
            self.found.append(f"{where}: {rk} name {_short(writer['name'])!r} became {_short(reader['name'])!r}")
            return
        if rk == "record":
            self._record(reader, writer, path)
        elif rk == "enum":
            missing = set(writer["symbols"]) - set(reader["symbols"])
            if missing and "default" not in reader:
                self.found.append(f"{where}: enum symbols {sorted(missing)} are missing and there is no default")
        elif rk == "fixed":
            if reader["size"] != writer["size"]:
                self.found.append(f"{where}: fixed size {writer['size']} became {reader['size']}")
        elif rk == "array":
            self.check(reader["items"], writer["items"], f"{path}/items")
        elif rk == "map":
            self.check(reader["values"], writer["values"], f"{path}/values")

    def _record(self, reader: dict, writer: dict, path: str) -> None:
        pair = (reader["name"], writer["name"])
        if pair in self._seen:  # recursive types: already being checked
            return
        self._seen.add(pair)
        written = {}
        for field in writer["fields"]:
            written[field["name"]] = field
            for alias in field.get("aliases", ()):
                written.setdefault(alias, field)
        for field in reader["fields"]:
            name = field["name"]
            match = written.get(name) or next(
                (written[a] for a in field.get("aliases", ()) if a in written), None
            )
            if match is not None:
                self.check(field["type"], match["type"], f"{path}/{name}")
            elif "default" not in field:
                self.found.append(f"{path}/{name}: new field {name!r} has no default value")
