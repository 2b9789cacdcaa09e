"""TiDB's type names (cdcwire.values.type_names), the one table the protocols that write them share."""

from __future__ import annotations

import pytest

from cdcwire.plugin_api import ColumnType, type_name

T = ColumnType


def test_a_type_is_named_as_tidb_names_it_with_a_text_charset():
    assert [type_name(t) for t in (T.INT, T.VARCHAR, T.BLOB, T.NEWDATE, T.VAR_STRING)] == [
        "int", "varchar", "text", "date", "var_string",
    ]


def test_with_the_binary_charset_text_becomes_blob_and_char_binary():
    assert [type_name(t, binary=True) for t in (T.BLOB, T.VARCHAR, T.CHAR, T.VAR_STRING, T.INT)] == [
        "blob", "varbinary", "binary", "var_string", "int",
    ]


def test_a_type_code_tidb_does_not_name_is_a_key_error():
    with pytest.raises(KeyError):
        type_name(999)  # type: ignore[arg-type]
