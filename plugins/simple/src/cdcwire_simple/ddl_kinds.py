"""A DDL's ``type`` in simple (TiCDC ``getDDLType``), and the DDL type a reader gives back."""

from __future__ import annotations

from cdcwire.plugin_api import DDLType, statement_ddl_type

D = DDLType

_KIND: dict[int, str] = {
    D.CREATE_TABLE: "CREATE",
    D.RENAME_TABLE: "RENAME", D.RENAME_TABLES: "RENAME",
    D.ADD_INDEX: "CINDEX", D.ADD_FOREIGN_KEY: "CINDEX", D.ADD_PRIMARY_KEY: "CINDEX",
    D.DROP_INDEX: "DINDEX", D.DROP_FOREIGN_KEY: "DINDEX", D.DROP_PRIMARY_KEY: "DINDEX",
    D.DROP_TABLE: "ERASE",
    D.TRUNCATE_TABLE: "TRUNCATE",
    **dict.fromkeys((
        D.ADD_COLUMN, D.DROP_COLUMN, D.MODIFY_COLUMN, D.REBASE_AUTO_ID, D.SET_DEFAULT_VALUE,
        D.MODIFY_TABLE_COMMENT, D.RENAME_INDEX, D.ADD_TABLE_PARTITION, D.DROP_TABLE_PARTITION,
        D.MODIFY_TABLE_CHARSET_AND_COLLATE, D.TRUNCATE_TABLE_PARTITION, D.ALTER_INDEX_VISIBILITY,
        D.MULTI_SCHEMA_CHANGE, D.REORGANIZE_PARTITION, D.ALTER_TABLE_PARTITIONING, D.REMOVE_PARTITIONING,
        D.ADD_COLUMNS, D.DROP_COLUMNS,  # retired in TiDB v6.2, still ALTER in the reference
    ), "ALTER"),
}
#: What a reader gives back when the statement does not say. QUERY's is a DDL type no consumer
#: acts on, because the event model has no "unknown" DDL type (as canal-json's reader, whose
#: ``type`` words are these same ones).
_FALLBACK: dict[str, DDLType] = {
    "CREATE": D.CREATE_TABLE, "RENAME": D.RENAME_TABLE, "CINDEX": D.ADD_INDEX, "DINDEX": D.DROP_INDEX,
    "ERASE": D.DROP_TABLE, "TRUNCATE": D.TRUNCATE_TABLE, "ALTER": D.MODIFY_COLUMN,
    "QUERY": D.UPDATE_TIFLASH_REPLICA_STATUS,
}
DDL_KINDS = frozenset(_FALLBACK) | {"QUERY"}


def ddl_kind(ddl_type: int) -> str:
    """The message ``type`` of a DDL: QUERY for anything TiCDC does not sub-type."""
    return _KIND.get(int(ddl_type), "QUERY")


def ddl_type_of(query: str, kind: str) -> DDLType:
    """The DDL type a reader gives back: the statement's own when :func:`statement_ddl_type`
    knows it (the kind is coarse: ALTER covers a dozen statements), else the kind's."""
    found = statement_ddl_type(query)
    return found if found is not None else _FALLBACK[kind]
