"""TiDB's name of a column type (``types.TypeToStr``): ``int``, ``varchar``, ``blob``, ...

Several protocols write it (simple's ``mysqlType``, debezium's ``tidb_type`` and DDL
``typeName``, canal-json's ``mysqlType``); this is the one table. A plugin whose reference
names a type otherwise (canal-json's VAR_STRING) says so where it writes it.
"""

from __future__ import annotations

from .type_codes import ColumnType

T = ColumnType

#: TiDB's ``type2Str``: the name of each type with a text character set.
TYPE_NAMES: dict[ColumnType, str] = {
    T.TINYINT: "tinyint", T.SMALLINT: "smallint", T.INT: "int", T.FLOAT: "float", T.DOUBLE: "double",
    T.NULL: "null", T.TIMESTAMP: "timestamp", T.BIGINT: "bigint", T.MEDIUMINT: "mediumint",
    T.DATE: "date", T.TIME: "time", T.DATETIME: "datetime", T.YEAR: "year", T.NEWDATE: "date",
    T.VARCHAR: "varchar", T.BIT: "bit", T.JSON: "json", T.DECIMAL: "decimal", T.ENUM: "enum",
    T.SET: "set", T.TINYBLOB: "tinytext", T.MEDIUMBLOB: "mediumtext", T.LONGBLOB: "longtext",
    T.BLOB: "text", T.VAR_STRING: "var_string", T.CHAR: "char", T.GEOMETRY: "geometry",
}
#: ``TypeToStr`` with the binary character set: text becomes blob, char becomes binary
#: (VAR_STRING stays ``var_string``).
BINARY_TYPE_NAMES: dict[ColumnType, str] = {
    T.TINYBLOB: "tinyblob", T.MEDIUMBLOB: "mediumblob", T.LONGBLOB: "longblob", T.BLOB: "blob",
    T.VARCHAR: "varbinary", T.CHAR: "binary",
}


def type_name(ctype: ColumnType, binary: bool = False) -> str:
    """TiDB's ``TypeToStr(ctype, charset)``, ``binary`` meaning the binary character set;
    KeyError for a type code TiDB has no name for."""
    if binary:
        name = BINARY_TYPE_NAMES.get(ctype)
        if name is not None:
            return name
    return TYPE_NAMES[ctype]


__all__ = ["BINARY_TYPE_NAMES", "TYPE_NAMES", "type_name"]
