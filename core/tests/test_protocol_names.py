"""The core holds no protocol's wire format: no file, Python class or Java class under ``core/``
is named for a protocol (canal-json, avro, debezium, craft, open-protocol, simple). A
protocol's code, its JVM codec included, lives in its plugin (docs/plugins.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "core"

#: Words that name a protocol wherever they stand in a name.
PROTOCOL_WORDS = frozenset({"canal", "avro", "debezium", "craft", "openprotocol"})
#: "open" and "simple" are ordinary words (``_OpenFile``, ``test_open_sink``): they name a
#: protocol only followed by one of these.
PROTOCOL_AFTER = {
    "open": frozenset({"protocol"}),
    "simple": frozenset({"protocol", "codec", "encoder", "decoder", "message", "messages", "json", "avro"}),
}
_JAVA_TYPE = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_]\w*)")


def words(name: str) -> list[str]:
    """The words of a file, module or class name: snake_case, kebab-case and CamelCase apart."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def names_a_protocol(name: str) -> bool:
    found = words(name)
    if PROTOCOL_WORDS.intersection(found):
        return True
    return any(w in PROTOCOL_AFTER and nxt in PROTOCOL_AFTER[w] for w, nxt in zip(found, found[1:]))


def core_names() -> list[tuple[str, str]]:
    """(where, name) of every file and folder under core/ and every class its Python and Java define."""
    found = []
    for path in sorted(CORE.rglob("*")):
        rel = path.relative_to(REPO)
        if any(part.endswith(".egg-info") or part in {"__pycache__", ".pytest_cache"} for part in rel.parts):
            continue
        found.append((str(rel), path.stem if path.is_file() else path.name))
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    found.append((f"{rel}:{node.lineno}", node.name))
        elif path.suffix == ".java":
            for match in _JAVA_TYPE.finditer(path.read_text(encoding="utf-8")):
                found.append((str(rel), match.group(1)))
    return found


def test_no_file_or_class_under_core_is_named_for_a_protocol():
    named = [f"{where}: {name}" for where, name in core_names() if names_a_protocol(name)]
    assert not named, "protocol code in the core (move it into its plugin):\n" + "\n".join(named)


def test_a_protocol_is_recognised_in_any_spelling():
    for name in ("CanalJsonDecoder", "java_canal_json", "AvroSchemas", "debezium", "CraftMessage",
                 "open_protocol", "OpenProtocolCodec", "openprotocol", "SimpleCodec", "simple_message"):
        assert names_a_protocol(name), name


def test_ordinary_words_are_not_taken_for_a_protocol():
    for name in ("_OpenFile", "test_open_sink", "open_sink", "simple_value", "SimpleNamespace",
                 "MessageDecoder", "crafted", "canalize"):
        assert not names_a_protocol(name), name


def test_no_plugin_puts_its_java_in_the_frameworks_package():
    framework = [
        str(path.relative_to(REPO)) for path in sorted((REPO / "plugins").rglob("*.java"))
        if path.read_text(encoding="utf-8").startswith("package io.cdcwire.spark;")
    ]
    assert not framework, "a plugin's classes belong in a package of its own:\n" + "\n".join(framework)
