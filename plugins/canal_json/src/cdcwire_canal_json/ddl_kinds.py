"""canal-json DDL ``type`` words: many DDL types share one word, so reading back takes the
type from the statement text (see cdcwire.plugin_api.statement_ddl_type) and uses the word only when the
statement is not one it knows.
"""

from __future__ import annotations

from cdcwire.plugin_api import DDLType, statement_ddl_type

D = DDLType

CREATE = "CREATE"
ALTER = "ALTER"
ERASE = "ERASE"
TRUNCATE = "TRUNCATE"
RENAME = "RENAME"
CINDEX = "CINDEX"
DINDEX = "DINDEX"
QUERY = "QUERY"

DDL_WORDS = frozenset({CREATE, ALTER, ERASE, TRUNCATE, RENAME, CINDEX, DINDEX, QUERY})

_WORD_BY_TYPE: dict[DDLType, str] = {
    D.CREATE_TABLE: CREATE,
    D.RENAME_TABLE: RENAME,
    D.RENAME_TABLES: RENAME,
    D.ADD_INDEX: CINDEX,
    D.ADD_FOREIGN_KEY: CINDEX,
    D.ADD_PRIMARY_KEY: CINDEX,
    D.DROP_INDEX: DINDEX,
    D.DROP_FOREIGN_KEY: DINDEX,
    D.DROP_PRIMARY_KEY: DINDEX,
    D.ADD_COLUMN: ALTER,
    D.DROP_COLUMN: ALTER,
    D.MODIFY_COLUMN: ALTER,
    D.REBASE_AUTO_ID: ALTER,
    D.SET_DEFAULT_VALUE: ALTER,
    D.MODIFY_TABLE_COMMENT: ALTER,
    D.RENAME_INDEX: ALTER,
    D.ADD_TABLE_PARTITION: ALTER,
    D.DROP_TABLE_PARTITION: ALTER,
    D.MODIFY_TABLE_CHARSET_AND_COLLATE: ALTER,
    D.TRUNCATE_TABLE_PARTITION: ALTER,
    D.REORGANIZE_PARTITION: ALTER,
    D.ALTER_INDEX_VISIBILITY: ALTER,
    D.MULTI_SCHEMA_CHANGE: ALTER,
    D.ALTER_TABLE_PARTITIONING: ALTER,
    D.REMOVE_PARTITIONING: ALTER,
    D.ADD_COLUMNS: ALTER,  # retired in TiDB v6.2, still ALTER in the reference
    D.DROP_COLUMNS: ALTER,
    D.DROP_TABLE: ERASE,
    D.TRUNCATE_TABLE: TRUNCATE,
}


def canal_ddl_word(ddl_type: DDLType) -> str:
    """The ``type`` of a DDL message; schemas, views, sequences, locks and the rest are QUERY."""
    return _WORD_BY_TYPE.get(ddl_type, QUERY)


#: What a word reads back as when the statement does not say. QUERY's fallback is a DDL type no
#: consumer acts on, because the event model has no "unknown" DDL type.
_FALLBACK: dict[str, DDLType] = {
    CREATE: D.CREATE_TABLE,
    ALTER: D.MODIFY_COLUMN,
    ERASE: D.DROP_TABLE,
    TRUNCATE: D.TRUNCATE_TABLE,
    RENAME: D.RENAME_TABLE,
    CINDEX: D.ADD_INDEX,
    DINDEX: D.DROP_INDEX,
    QUERY: D.UPDATE_TIFLASH_REPLICA_STATUS,
}


def ddl_type_from(word: str, query: str) -> DDLType:
    """The DDL type a reader assigns to a DDL message of ``type`` ``word`` running ``query``:
    the statement's own type when it is one :func:`statement_ddl_type` knows (the word is
    too coarse: ALTER covers adding a column, dropping one, partitioning, ...), else the
    word's representative."""
    parsed = statement_ddl_type(query)
    return parsed if parsed is not None else _FALLBACK[word]
