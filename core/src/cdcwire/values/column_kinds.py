"""Every column type the protocols carry, as a table declares it: the one list that the
workload generator and the hypothesis strategies (:mod:`cdcwire.testing.strategies`)
both draw their tables from.

It lives apart from the strategies so that ``cdcwire generate`` and the demo run with
the plain install (``cdcwire[spark]``), without the ``testing`` extra's hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass

from .type_codes import ColumnFlag as F
from .type_codes import ColumnType as T


@dataclass(frozen=True, slots=True)
class ColumnKind:
    """One declared column type: a label, the type code, its flags and its MySQL type text."""

    label: str
    type: T
    flags: F
    mysql_type: str


_U = F.UNSIGNED
_B = F.BINARY

#: Signed and unsigned integers, floats, decimals, dates and times, text and binary strings,
#: JSON, ENUM, SET and BIT, in a fixed order.
COLUMN_KINDS: tuple[ColumnKind, ...] = (
    ColumnKind("tinyint", T.TINYINT, F(0), "tinyint(4)"),
    ColumnKind("tinyint_unsigned", T.TINYINT, _U, "tinyint(3) unsigned"),
    ColumnKind("smallint", T.SMALLINT, F(0), "smallint(6)"),
    ColumnKind("smallint_unsigned", T.SMALLINT, _U, "smallint(5) unsigned"),
    ColumnKind("mediumint", T.MEDIUMINT, F(0), "mediumint(9)"),
    ColumnKind("mediumint_unsigned", T.MEDIUMINT, _U, "mediumint(8) unsigned"),
    ColumnKind("int", T.INT, F(0), "int(11)"),
    ColumnKind("int_unsigned", T.INT, _U, "int(10) unsigned"),
    ColumnKind("bigint", T.BIGINT, F(0), "bigint(20)"),
    ColumnKind("bigint_unsigned", T.BIGINT, _U, "bigint(20) unsigned"),
    ColumnKind("float", T.FLOAT, F(0), "float"),
    ColumnKind("double", T.DOUBLE, F(0), "double"),
    ColumnKind("decimal", T.DECIMAL, F(0), "decimal(10,4)"),
    ColumnKind("decimal_int", T.DECIMAL, F(0), "decimal(20,0)"),
    ColumnKind("date", T.DATE, _B, "date"),
    ColumnKind("datetime", T.DATETIME, _B, "datetime"),
    ColumnKind("timestamp", T.TIMESTAMP, _B, "timestamp"),
    ColumnKind("time", T.TIME, _B, "time"),
    ColumnKind("year", T.YEAR, _U, "year(4)"),
    ColumnKind("varchar", T.VARCHAR, F(0), "varchar(255)"),
    ColumnKind("varbinary", T.VARCHAR, _B, "varbinary(255)"),
    ColumnKind("char", T.CHAR, F(0), "char(40)"),
    ColumnKind("binary", T.CHAR, _B, "binary(40)"),
    ColumnKind("tinytext", T.TINYBLOB, F(0), "tinytext"),
    ColumnKind("tinyblob", T.TINYBLOB, _B, "tinyblob"),
    ColumnKind("text", T.BLOB, F(0), "text"),
    ColumnKind("blob", T.BLOB, _B, "blob"),
    ColumnKind("mediumtext", T.MEDIUMBLOB, F(0), "mediumtext"),
    ColumnKind("mediumblob", T.MEDIUMBLOB, _B, "mediumblob"),
    ColumnKind("longtext", T.LONGBLOB, F(0), "longtext"),
    ColumnKind("longblob", T.LONGBLOB, _B, "longblob"),
    ColumnKind("json", T.JSON, _B, "json"),
    ColumnKind("enum", T.ENUM, F(0), "enum('a','b','c')"),
    ColumnKind("set", T.SET, F(0), "set('a','b','c')"),
    ColumnKind("bit", T.BIT, _U, "bit(12)"),
    ColumnKind("bit64", T.BIT, _U, "bit(64)"),
)

KINDS_BY_LABEL: dict[str, ColumnKind] = {k.label: k for k in COLUMN_KINDS}
