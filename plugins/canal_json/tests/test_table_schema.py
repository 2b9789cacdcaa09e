"""The event model's table schema from canal-json: what a row message's ``mysqlType``,
``sqlType`` and ``pkNames`` say of its table, carried by the rows read back."""

from __future__ import annotations

from cdcwire import ColumnType
from cdcwire.plugin_api import IndexSchema
from canal_cases import canal_config, round_trip, tp_int_insert


def test_a_row_reads_back_carrying_its_tables_column_types_from_mysql_type() -> None:
    [row] = round_trip(canal_config(content_compatible=True), tp_int_insert())
    assert [(c.name, c.type, c.mysql_type) for c in row.table_schema.columns] == [
        ("id", ColumnType.INT, "int(11)"), ("c_tinyint", ColumnType.TINYINT, "tinyint(4)"),
        ("c_smallint", ColumnType.SMALLINT, "smallint(6)"), ("c_mediumint", ColumnType.MEDIUMINT, "mediumint(9)"),
        ("c_int", ColumnType.INT, "int(11)"), ("c_bigint", ColumnType.BIGINT, "bigint(20)"),
    ]


def test_a_row_reads_back_carrying_its_pk_names_as_the_primary_index() -> None:
    [row] = round_trip(canal_config(), tp_int_insert())
    assert row.table_schema.indexes == (IndexSchema("primary", ("id",), primary=True, unique=True),)


def test_without_content_compatible_the_schemas_type_text_is_the_base_mysql_type() -> None:
    [row] = round_trip(canal_config(), tp_int_insert())
    assert row.table_schema.column("c_int").mysql_type == "int"
