"""Avro names from table, schema and column names, as the reference sanitises them.

Avro names match ``[A-Za-z_][A-Za-z0-9_]*``: every other character becomes
``_`` (so a ``.`` in a schema name cannot split the namespace) and a leading
digit gets a ``_`` prefix.
"""

from __future__ import annotations

import re

from cdcwire.plugin_api import BoundedCache

_OUTSIDE = re.compile(r"[^A-Za-z0-9_]")

#: Sanitised names by name (the same few names come with every event); the bound ``get`` is
#: called as fast as a plain dict's (a method looked up on a dict subclass is not specialised).
_SANITISED: BoundedCache[str, str] = BoundedCache(limit=4096)
_sanitised = _SANITISED.get


def sanitize_name(name: str) -> str:
    clean = _sanitised(name)
    if clean is None:
        clean = _OUTSIDE.sub("_", name)
        if clean[:1].isdigit():
            clean = "_" + clean
        _SANITISED.remember(name, clean)
    return clean


def record_namespace(namespace: str, schema: str) -> str:
    """``<namespace>.<schema>``, each part sanitised; just the namespace for an empty schema."""
    ns = sanitize_name(namespace)
    return f"{ns}.{sanitize_name(schema)}" if schema else ns


def schema_from_namespace(namespace: str) -> str:
    """The (sanitised) database name a record namespace carries: all after the first part."""
    _, _, schema = namespace.partition(".")
    return schema


def key_subject(topic: str) -> str:
    return f"{topic}-key"


def value_subject(topic: str) -> str:
    return f"{topic}-value"
