"""canal-json DDL ``type`` words: many DDL types share one word, so reading back is a guess
made from the word and the statement text, the same guess every time.
"""

from __future__ import annotations

from cdcwire import DDLType

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
    D.DROP_TABLE: ERASE,
    D.TRUNCATE_TABLE: TRUNCATE,
}


def canal_ddl_word(ddl_type: DDLType) -> str:
    """The ``type`` of a DDL message; schemas, views, sequences, locks and the rest are QUERY."""
    return _WORD_BY_TYPE.get(ddl_type, QUERY)


#: Statement prefixes (lower case, single spaces) that pick a DDL type within one word.
_BY_PREFIX: dict[str, tuple[tuple[str, DDLType], ...]] = {
    QUERY: (
        ("create database", D.CREATE_SCHEMA),
        ("create schema", D.CREATE_SCHEMA),
        ("drop database", D.DROP_SCHEMA),
        ("drop schema", D.DROP_SCHEMA),
        ("alter database", D.MODIFY_SCHEMA_CHARSET_AND_COLLATE),
        ("alter schema", D.MODIFY_SCHEMA_CHARSET_AND_COLLATE),
        ("drop view", D.DROP_VIEW),
        ("create sequence", D.CREATE_SEQUENCE),
        ("alter sequence", D.ALTER_SEQUENCE),
        ("drop sequence", D.DROP_SEQUENCE),
        ("lock table", D.LOCK_TABLE),
        ("unlock table", D.UNLOCK_TABLE),
        ("recover table", D.RECOVER_TABLE),
        ("flashback table", D.RECOVER_TABLE),
        ("admin repair table", D.REPAIR_TABLE),
    ),
}
#: What a word reads back as when no prefix decides. QUERY's fallback is a DDL type no
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


#: Phrases found anywhere in the statement that pick a DDL type within one word.
_BY_PHRASE: dict[str, tuple[tuple[str, DDLType], ...]] = {
    CINDEX: ((" primary key", D.ADD_PRIMARY_KEY), (" foreign key", D.ADD_FOREIGN_KEY)),
    DINDEX: ((" primary key", D.DROP_PRIMARY_KEY), (" foreign key", D.DROP_FOREIGN_KEY)),
    QUERY: ((" tiflash replica", D.SET_TIFLASH_REPLICA), ("shard_row_id_bits", D.SHARD_ROW_ID)),
    RENAME: ((",", D.RENAME_TABLES),),
    ALTER: (
        (" reorganize partition", D.REORGANIZE_PARTITION),
        (" invisible", D.ALTER_INDEX_VISIBILITY),
        (" visible", D.ALTER_INDEX_VISIBILITY),
    ),
}


def ddl_type_from(word: str, query: str) -> DDLType:
    """The DDL type a reader assigns to a DDL message of ``type`` ``word`` running ``query``."""
    words = query.lower().split()
    text = " ".join(words)
    for prefix, ddl_type in _BY_PREFIX.get(word, ()):
        if text.startswith(prefix):
            return ddl_type
    if word == QUERY and words[:1] == ["create"] and "view" in words:
        return D.CREATE_VIEW
    for phrase, ddl_type in _BY_PHRASE.get(word, ()):
        if phrase in text:
            return ddl_type
    return _FALLBACK[word]
