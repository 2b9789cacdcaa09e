"""Connect schema names as TiCDC writes them (``helper.go::getSchemaTopicName``, ``SanitizeName``).

Debezium's SchemaNameAdjuster rule: a name may hold letters, digits and ``_`` (not a digit
first); any other character becomes ``_``, and a digit first gets a ``_`` before it. Table
names are sanitized as topic names, which also keep ``.``.
"""

from __future__ import annotations

import re

_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")
_NOT_TOPIC = re.compile(r"[^A-Za-z0-9_.]")


def sanitize_name(name: str) -> str:
    if not name:
        return name
    first = name[0]
    if not (first.isascii() and (first.isalpha() or first == "_")):
        head = "_" + (first if first.isascii() and first.isdigit() else "")
    else:
        head = first
    return head + _NOT_NAME.sub("_", name[1:])


def sanitize_topic_name(name: str) -> str:
    return _NOT_TOPIC.sub("_", name)


def table_schema_prefix(cluster_id: str, schema: str, table: str) -> str:
    """``<cluster>.<db>.<table>``: the stem of a table's Key, Value and Envelope names."""
    return f"{sanitize_name(cluster_id)}.{sanitize_name(schema)}.{sanitize_topic_name(table)}"
