"""The table schema an event may carry: columns with their full type, indexes, table id, version.

A row image says each column's type code, flags and (when known) type text; it cannot say
a table's indexes, a column's default, or the columns of a table no row has been seen for.
Protocols that carry the schema (simple's ``tableSchema``, debezium's ``tableChanges``,
canal-json's ``mysqlType``) and the sinks that need it (a typed changelog that wants exact
types) meet here: a decoder that reads a schema puts it on its events, an encoder that
writes one takes it from the event or, when no DDL gave it, derives it from the row as TiCDC
derives it (:func:`derive_table_schema`).

Everything is frozen and hashable (a codec caches work per schema, events cross to Spark
workers pickled). A column's type and flags are the row model's own (:class:`ColumnType`,
:class:`ColumnFlag`: UNSIGNED, BINARY, NULLABLE, PRIMARY_KEY, HANDLE_KEY, ...), so a column
of a schema and a column of a row say the same thing the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..values.type_codes import BLOB_TYPES, STRING_TYPES, ColumnFlag, ColumnType


#: A column default: its text as the DDL wrote it, a number, or None (no default, or NULL).
Default = Union[int, float, str, None]

_F = ColumnFlag
_TEXT_TYPES = STRING_TYPES | BLOB_TYPES
#: The charset and collation TiCDC gives a text column when the DDL did not name one, and
#: the pair TiDB gives every other column (numbers, times, binary strings).
TEXT_CHARSET = ("utf8mb4", "utf8mb4_bin")
BINARY_CHARSET = ("binary", "binary")


@dataclass(frozen=True, slots=True)
class ColumnSchema:
    """One column of a table: what a row's column says of its type, and what only DDL says.

    ``mysql_type`` is the full MySQL type text (``decimal(10,4)``, ``enum('a','b')``,
    ``int(10) unsigned``) when known; ``flags`` carry UNSIGNED, BINARY, NULLABLE and the key
    flags as on a row's columns; ``default`` is None when there is none (or it is NULL).
    """

    name: str
    type: ColumnType
    flags: ColumnFlag = ColumnFlag(0)
    mysql_type: Optional[str] = None
    charset: str = ""
    collation: str = ""
    default: Default = None

    @property
    def nullable(self) -> bool:
        return bool(self.flags & _F.NULLABLE)

    @property
    def is_primary_key(self) -> bool:
        return bool(self.flags & _F.PRIMARY_KEY)

    @property
    def is_handle_key(self) -> bool:
        return bool(self.flags & _F.HANDLE_KEY)

    @property
    def is_unsigned(self) -> bool:
        return bool(self.flags & _F.UNSIGNED)

    @property
    def is_binary(self) -> bool:
        return bool(self.flags & _F.BINARY)


@dataclass(frozen=True, slots=True)
class IndexSchema:
    """An index: its name, its columns in order, whether it is the primary key, whether unique."""

    name: str
    columns: tuple[str, ...]
    primary: bool = False
    unique: bool = False


@dataclass(frozen=True, slots=True)
class TableSchema:
    """A table as of one version: ``(schema, table, version)`` names it (simple's decoder keys
    its cache by it); ``table_id`` is TiDB's table id (0 when unknown); ``charset`` the table's
    default charset ("" when unknown)."""

    schema: str
    table: str
    table_id: int = 0
    version: int = 0
    columns: tuple[ColumnSchema, ...] = ()
    indexes: tuple[IndexSchema, ...] = ()
    charset: str = ""

    def column(self, name: str) -> Optional[ColumnSchema]:
        """The column of that name, None if the table has none."""
        return next((c for c in self.columns if c.name == name), None)

    @property
    def primary_key(self) -> tuple[str, ...]:
        """The primary key's column names: of the primary index, else of the PRIMARY_KEY flags."""
        index = next((i for i in self.indexes if i.primary), None)
        if index is not None:
            return index.columns
        return tuple(c.name for c in self.columns if c.is_primary_key)


def charset_of(ctype: ColumnType, flags: ColumnFlag) -> tuple[str, str]:
    """TiDB's charset and collation of a column known only by type and flags: text types
    without BINARY and ENUM/SET are utf8mb4, everything else binary."""
    if ctype in (ColumnType.ENUM, ColumnType.SET) or (ctype in _TEXT_TYPES and not flags & _F.BINARY):
        return TEXT_CHARSET
    return BINARY_CHARSET


__all__ = [
    "BINARY_CHARSET",
    "ColumnSchema",
    "Default",
    "IndexSchema",
    "TEXT_CHARSET",
    "TableSchema",
    "charset_of",
]
