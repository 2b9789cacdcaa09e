"""DDL as TiCDC's debezium writes it (``EncodeDDLEvent``): a SchemaChangeKey with the
database name and a SchemaChangeValue with the statement and ``tableChanges``.

The change kind (CREATE, ALTER, DROP) comes from the DDL type; a type TiCDC does not list
is skipped (no message), as TiCDC skips it with a warning. A change's ``table`` (charset,
primary key, columns with JDBC types and defaults) is the table's schema after the DDL
(:mod:`.table_block`), when the DDL event carries it (``DDLEvent.table_schema``); without
one it is written ``null``, as TiCDC writes it for DROP TABLE.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from cdcwire.plugin_api import DDLType, TableSchema

from .connect_schema import source_schema
from .table_block import table_block


def _types(*names: str) -> frozenset[DDLType]:
    return frozenset(DDLType[n] for n in names if n in DDLType.__members__)


_CREATE = _types("CREATE_SCHEMA", "CREATE_TABLE", "CREATE_TABLES", "CREATE_VIEW")
_ALTER = _types(
    "ADD_COLUMN", "MODIFY_COLUMN", "DROP_COLUMN", "MULTI_SCHEMA_CHANGE", "ADD_TABLE_PARTITION",
    "REMOVE_PARTITIONING", "REORGANIZE_PARTITION", "EXCHANGE_TABLE_PARTITION", "ALTER_TABLE_PARTITIONING",
    "TRUNCATE_TABLE_PARTITION", "DROP_TABLE_PARTITION", "REBASE_AUTO_ID", "SET_DEFAULT_VALUE",
    "MODIFY_TABLE_COMMENT", "MODIFY_TABLE_CHARSET_AND_COLLATE", "MODIFY_SCHEMA_CHARSET_AND_COLLATE",
    "ADD_INDEX", "ALTER_INDEX_VISIBILITY", "RENAME_INDEX", "RENAME_TABLE", "RENAME_TABLES",
    "ADD_PRIMARY_KEY", "DROP_PRIMARY_KEY",
)
_DROP = _types("DROP_SCHEMA", "DROP_TABLE", "DROP_INDEX", "DROP_VIEW", "TRUNCATE_TABLE")


def change_kind(ddl_type: DDLType) -> Optional[str]:
    """CREATE, ALTER or DROP; None for a DDL type TiCDC's debezium skips."""
    if ddl_type in _CREATE:
        return "CREATE"
    if ddl_type in _ALTER:
        return "ALTER"
    if ddl_type in _DROP:
        return "DROP"
    return None


_NAME = r"(?:`((?:[^`]|``)+)`|([A-Za-z0-9_$]+))"
_RENAME = re.compile(rf"\s*RENAME\s+TABLE\s+(?:{_NAME}\s*\.\s*)?{_NAME}\s+TO\s", re.I)


def _renamed_from(query: str, schema: str) -> tuple[str, str]:
    """The old ``(schema, table)`` of a RENAME TABLE (TiCDC has it from the job's extra names)."""
    m = _RENAME.match(query)
    if m is None:
        return schema, ""
    old_schema = (m[1] or "").replace("``", "`") or m[2] or schema
    return old_schema, (m[3] or "").replace("``", "`") or m[4] or ""


def table_changes(
    ddl_type: DDLType, kind: str, schema: str, table: str, query: str, after: Optional[TableSchema] = None
) -> list[dict[str, Any]]:
    if table == "" or ddl_type == DDLType.TRUNCATE_TABLE:
        return []
    if ddl_type == DDLType.RENAME_TABLE:
        old_schema, old_table = _renamed_from(query, schema)
        ident = f'"{old_schema}"."{old_table}","{schema}"."{table}"'
    else:
        ident = f'"{schema}"."{table}"'
    known = after is not None and ddl_type != DDLType.DROP_TABLE
    return [{"type": kind, "id": ident, "table": table_block(after) if known else None}]  # type: ignore[arg-type]


KEY_SCHEMA: dict[str, Any] = {
    "type": "struct", "name": "io.debezium.connector.mysql.SchemaChangeKey", "optional": False, "version": 1,
    "fields": [{"field": "databaseName", "optional": False, "type": "string"}],
}


def _g(field: str, optional: bool, kind: str, **more: Any) -> dict[str, Any]:
    return {"field": field, "optional": optional, "type": kind, **more}


_STRING_ITEMS = {"type": "string", "optional": False}
_COLUMN = {
    "name": "io.debezium.connector.schema.Column", "optional": False, "type": "struct", "version": 1,
    "fields": [
        _g("name", False, "string"), _g("jdbcType", False, "int32"), _g("nativeType", True, "int32"),
        _g("typeName", False, "string"), _g("typeExpression", True, "string"),
        _g("charsetName", True, "string"), _g("length", True, "int32"), _g("scale", True, "int32"),
        _g("position", False, "int32"), _g("optional", True, "boolean"),
        _g("autoIncremented", True, "boolean"), _g("generated", True, "boolean"),
        _g("comment", True, "string"), _g("defaultValueExpression", True, "string"),
        _g("enumValues", True, "array", items=_STRING_ITEMS),
    ],
}
_TABLE = _g(
    "table", True, "struct", name="io.debezium.connector.schema.Table", version=1,
    fields=[
        _g("defaultCharsetName", True, "string"),
        _g("primaryKeyColumnNames", True, "array", items=_STRING_ITEMS),
        _g("columns", False, "array", items=_COLUMN),
        _g("comment", True, "string"),
    ],
)
_CHANGE = {
    "name": "io.debezium.connector.schema.Change", "optional": False, "type": "struct", "version": 1,
    "fields": [_g("type", False, "string"), _g("id", False, "string"), _TABLE],
}


def value_schema(tidb_extension: bool) -> dict[str, Any]:
    return {
        "optional": False, "type": "struct", "version": 1,
        "name": "io.debezium.connector.mysql.SchemaChangeValue",
        "fields": [
            source_schema(tidb_extension),
            _g("ts_ms", False, "int64"), _g("databaseName", True, "string"), _g("schemaName", True, "string"),
            _g("ddl", True, "string"), _g("tableChanges", False, "array", items=_CHANGE),
        ],
    }
