"""A typed changelog per table: the row images of one table's events as rows of its own columns.

The event DataFrame keeps every value in a tagged struct, lossless and untyped; a table's
consumer wants ``price decimal(10,2)``, ``created timestamp``. :func:`changelog` gives one row
per row image, one column per table column typed from its MySQL type (the table in
:mod:`cdcwire.spark.tables.table_types`), and a row kind as Flink names them:

=======  =============================================================================
``+I``   an insert's new image; the new image of an update that changed the handle key
``-U``   an update's old image (the row before), followed by
``+U``   its new image
``-D``   a delete's old image; the old image of an update that changed the handle key
=======  =============================================================================

An update that changes the handle key (primary key or not-null unique key, the HANDLE_KEY
flag) is a ``-D`` of the old key then a ``+I`` of the new one, as TiCDC's own sinks split
them: an upsert consumer that drops ``-U`` rows (Flink's upsert mode does) would
otherwise keep the old key's row forever.

Metadata columns, after the table's columns:

=========================  ==============  ==================================================
``_cdc_commit_ts``         decimal(20,0)   the event's commit ts
``_cdc_schema``            string          database
``_cdc_table``             string          table
``_cdc_topic``             string          where a frame read from a sink found the event;
``_cdc_partition``         int             null when the frame has no such columns
``_cdc_offset``            bigint
``_cdc_seq``               int             0 for the first row of an event, 1 for an
                                           update's second (its new image)
``_cdc_handle_key_only``   boolean         the row came with its handle key only (a large
                                           message): its other columns are null, the row
                                           must be looked up upstream
=========================  ==============  ==================================================

The rows of one key are in order by ``(_cdc_commit_ts, _cdc_seq)``; the whole log by
``(_cdc_commit_ts, _cdc_topic, _cdc_partition, _cdc_offset, _cdc_seq)`` (events of one
message share an offset).

Everything is Spark column expressions (no Python UDF), so a streaming frame works as a batch
one does. Spark runs in ANSI mode: every conversion is a ``try_`` one, and a value that does
not read as its type (a zero date ``0000-00-00``, a decimal past its precision) is null, never
a failed job; :func:`zero_date_counts` counts the date and time values so lost.
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Optional, Sequence, Union

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    TimestampNTZType,
    TimestampType,
)

from ...foundation.errors import CdcwireError
from ...values.type_codes import ColumnFlag, ColumnType
from .table_types import TableColumn, column_type, widen

#: Flink's row kinds.
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"
#: The changelog's columns besides the table's, in order (``_cdc_kind`` comes first).
METADATA_COLUMNS = (
    "_cdc_commit_ts", "_cdc_schema", "_cdc_table", "_cdc_topic", "_cdc_partition", "_cdc_offset",
    "_cdc_seq", "_cdc_handle_key_only",
)
KIND_COLUMN = "_cdc_kind"

_ROW_KINDS = ("insert", "update", "delete")
_IMAGE = "_cdc_image"
_NUMERIC = (ByteType, ShortType, IntegerType, LongType, DecimalType, FloatType, DoubleType, BooleanType)
_DATE_AND_TIME = (DateType, TimestampType, TimestampNTZType)
_OFFSET = re.compile(r"^[+-]\d{2}:\d{2}$")
_VALUE_FIELDS = ("int", "uint", "double", "string", "binary")

TableName = Union[str, tuple[str, str]]


def changelog(
    df: DataFrame, table: TableName, time_zone: str = "UTC", columns: Optional[Sequence[TableColumn]] = None
) -> DataFrame:
    """The row changes of ``table`` (``"schema.table"``, split at the first dot, or a
    ``(schema, table)`` pair) in ``df`` (an event DataFrame, batch or streaming) as typed rows:
    ``_cdc_kind``, the table's columns, then :data:`METADATA_COLUMNS`.

    ``columns``: the table's columns and types; None reads them from a batch frame with one small
    job (:func:`table_columns`). A streaming frame needs them given. ``time_zone``: the zone
    TIMESTAMP text is in (the changefeed's ``time-zone``), a zone id or a ``+08:00`` offset.
    """
    schema, name = split_table(table)
    tz = checked_time_zone(time_zone)
    if columns is None:
        if df.isStreaming:
            raise CdcwireError(
                f"changelog of {schema}.{name} from a streaming frame needs columns=: a stream's types are"
                f" not known before it runs. Take them from a batch sample,"
                f" columns=cs.table_columns(batch_df, {schema + '.' + name!r}),"
                f" or call cs.changelog on each micro-batch inside foreachBatch"
            )
        columns = table_columns(df, (schema, name))
        if not columns:
            raise CdcwireError(
                f"the frame has no row events of {schema}.{name}: no columns to type (or give columns=)"
            )
    columns = _checked_columns(columns)
    image = _sql_name(_IMAGE)
    typed = [F.expr(f"{_column_sql(image, i, c, tz)} AS {_sql_name(c.name)}") for i, c in enumerate(columns)]
    return row_images(df, (schema, name)).select(KIND_COLUMN, *typed, *METADATA_COLUMNS)


def table_columns(df: DataFrame, table: TableName) -> list[TableColumn]:
    """The columns of ``table`` as its row images in a batch frame show them (one Spark job):
    names in first-seen order (by commit ts, then place in the image), each with its latest
    MySQL type, and the Spark type that holds every type it was seen with
    (:func:`cdcwire.spark.tables.table_types.widen`: conflicting types widen, to string at worst).
    Empty when the frame has no row event of the table."""
    if df.isStreaming:
        raise CdcwireError(
            "table_columns reads a batch frame (it runs a job): give it a batch sample of the stream,"
            " e.g. cs.read or spark.read of the same source"
        )
    schema, name = split_table(table)
    return _columns_by_table(_table_rows(df, schema, name)).get(f"{schema}.{name}", [])


def _columns_by_table(rows: DataFrame) -> dict[str, list[TableColumn]]:
    image = F.coalesce(F.col("columns"), F.col("pre_columns"))
    ts = F.col("commit_ts").cast(DecimalType(20, 0))
    signatures = (
        rows.groupBy("schema", "table", image_signature(image).alias("signature"))
        .agg(F.min(ts).alias("first"), F.max(ts).alias("last"))
        .collect()
    )
    return columns_from_signatures(signatures)


def image_signature(image: Column) -> Column:
    """What an image says of its table's columns, without the values: (name, type, flags,
    mysql_type) per column, in image order. A table has a handful of distinct signatures (one
    per table version) however many rows it has, so grouping rows by it is cheap: the columns
    of every table come from one small aggregate (:func:`columns_from_signatures`)."""
    return F.transform(image, lambda c: F.struct(
        c["name"].alias("name"), c["type"].alias("type"), c["flags"].alias("flags"), c["mysql_type"].alias("mysql_type")
    ))


def columns_from_signatures(rows) -> dict[str, list[TableColumn]]:
    """``"schema.table"`` -> its columns, from rows of (``schema``, ``table``, ``signature``, the
    ``first`` and ``last`` commit ts it was seen at): names in first-seen order (by commit ts, then
    place in the image), each with its latest MySQL type and the Spark type that holds every
    type it was seen with."""
    by_table: dict[str, dict[str, list]] = {}
    for r in rows:
        if r["signature"] is None:
            continue
        seen = by_table.setdefault(f"{r['schema']}.{r['table']}", {})
        for pos, c in enumerate(r["signature"]):
            seen.setdefault(c["name"], []).append(
                (c, (r["first"], pos), (r["last"], pos))
            )
    return {name: _columns_of(seen) for name, seen in by_table.items()}


def _columns_of(seen: dict[str, list]) -> list[TableColumn]:
    out = []
    for column_name, found in seen.items():
        latest = max(found, key=lambda f: f[2])[0]
        typed = [TableColumn.of(column_name, c["type"], c["flags"] or 0, c["mysql_type"]) for c, _, _ in found]
        known = [t.spark_type for t in typed if t.type != ColumnType.NULL]
        spark_type = known[0] if known else StringType()
        for t in known[1:]:
            spark_type = widen(spark_type, t)
        first = min(f[1] for f in found)
        out.append((first, TableColumn(column_name, spark_type, column_type(latest["type"]), int(latest["flags"] or 0),
                                       latest["mysql_type"])))
    return [c for _, c in sorted(out, key=lambda p: p[0])]


def typed_columns(image: Column, columns: Sequence[TableColumn], time_zone: str = "UTC") -> list[Column]:
    """One column per ``columns`` entry, named for it: the value of that name in ``image`` (an
    ``array<COLUMN>`` row image) as its Spark type; null where the image lacks the name or
    the value does not read as the type."""
    tz = checked_time_zone(time_zone)
    return _typed(image, _checked_columns(columns), tz)


def zero_date_counts(
    df: DataFrame, table: TableName, columns: Optional[Sequence[TableColumn]] = None, time_zone: str = "UTC"
) -> dict[str, int]:
    """For each date or time column (date, timestamp, timestamp_ntz) of ``table``: how many of its
    non-null values in ``df``'s row images (as :func:`changelog` gives them: both images of an
    update) do not read as a date or time and are null in the changelog: MySQL's zero dates
    (``0000-00-00``, ``2020-00-00``) and any other text Spark cannot read. One Spark job
    (none when the table has no such column); a batch frame."""
    if df.isStreaming:
        raise CdcwireError(
            "zero_date_counts counts over a batch frame; in a stream, call it inside foreachBatch"
        )
    if columns is None:
        columns = table_columns(df, table)
    tz = checked_time_zone(time_zone)
    columns = _checked_columns(columns)
    dated = [c for c in columns if isinstance(c.spark_type, _DATE_AND_TIME)]
    if not dated:
        return {}
    image = _sql_name(_IMAGE)
    counts = [
        F.expr(f"count_if({_lost_sql(image, i, c, tz)})")
        for i, c in enumerate(columns) if isinstance(c.spark_type, _DATE_AND_TIME)
    ]
    row = row_images(df, table).agg(*counts).first()
    return {c.name: int(row[i] or 0) if row is not None else 0 for i, c in enumerate(dated)}


def zero_dates_of_tables(
    df: DataFrame, columns: dict[str, Sequence[TableColumn]], time_zone: str = "UTC"
) -> dict[str, int]:
    """Per table of ``columns`` (``"schema.table"`` -> its columns), the total of
    :func:`zero_date_counts` over its date and time columns, for every table in one Spark job
    (none when no table has such a column)."""
    tz = checked_time_zone(time_zone)
    image = _sql_name(_IMAGE)
    counts, names = [], []
    for table, cols in columns.items():
        schema, name = split_table(table)
        of_table = f"_cdc_schema = {_sql_string(schema)} AND _cdc_table = {_sql_string(name)}"
        lost = [_lost_sql(image, i, c, tz) for i, c in enumerate(_checked_columns(cols))
                if isinstance(c.spark_type, _DATE_AND_TIME)]
        if lost:
            names.append(table)
            counts.append(F.expr(" + ".join(f"count_if({of_table} AND ({x}))" for x in lost)))
    if not counts:
        return {}
    rows = df.where(F.col("kind").isin(*_ROW_KINDS))
    row = _images(df, rows).agg(*counts).first()
    return {table: int(row[i] or 0) if row is not None else 0 for i, table in enumerate(names)}


# --- the pieces ----------------------------------------------------------------------------


def split_table(table: TableName) -> tuple[str, str]:
    """(schema, table) from ``"schema.table"`` (split at the first dot) or a pair."""
    if isinstance(table, tuple) and len(table) == 2 and all(isinstance(p, str) for p in table):
        return table
    if isinstance(table, str) and "." in table:
        schema, name = table.split(".", 1)
        if schema and name:
            return schema, name
    raise ValueError(f"table must be 'schema.table' or a (schema, table) pair, got {table!r}")


def checked_time_zone(time_zone: str) -> str:
    """``time_zone`` if Spark can read TIMESTAMP text in it: a zone id or a ``+08:00`` offset."""
    if isinstance(time_zone, str) and (_OFFSET.match(time_zone) or time_zone in ("UTC", "GMT")):
        return time_zone
    try:
        zoneinfo.ZoneInfo(time_zone)
        return time_zone
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        raise ValueError(
            f"time_zone must be a zone id ('UTC', 'Asia/Shanghai') or an offset ('+08:00'), got {time_zone!r}"
        ) from None


def _checked_columns(columns: Sequence[TableColumn]) -> list[TableColumn]:
    columns = list(columns)
    names = set()
    for c in columns:
        if not isinstance(c, TableColumn):
            raise TypeError(
                f"columns must be TableColumn (cs.table_columns, TableColumn.of), got {type(c).__name__}"
            )
        if c.name in names:
            raise ValueError(f"column {c.name!r} is named twice in columns")
        if c.name == KIND_COLUMN or c.name in METADATA_COLUMNS:
            raise ValueError(f"column {c.name!r} has the name of a changelog metadata column")
        names.add(c.name)
    return columns


def _table_rows(df: DataFrame, schema: str, name: str) -> DataFrame:
    return df.where(F.col("kind").isin(*_ROW_KINDS) & (F.col("schema") == schema) & (F.col("table") == name))


def _handle_key(image: Column) -> Column:
    keys = F.filter(image, lambda c: c["flags"].bitwiseAND(int(ColumnFlag.HANDLE_KEY)) != 0)
    return F.transform(keys, lambda c: F.struct(c["name"].alias("n"), c["value"].alias("v")))


def _frame_column(df: DataFrame, name: str, spark_type: str) -> Column:
    return (F.col(f"`{name}`") if name in df.columns else F.lit(None)).cast(spark_type)


def row_images(df: DataFrame, table: TableName) -> DataFrame:
    """One row per row image of ``table``: ``_cdc_kind``, ``_cdc_image`` (the image,
    array<COLUMN>) and :data:`METADATA_COLUMNS`; what :func:`changelog` types."""
    schema, name = split_table(table)
    return _images(df, _table_rows(df, schema, name))


def _images(df: DataFrame, rows: DataFrame) -> DataFrame:
    kind, new, old = F.col("kind"), F.col("columns"), F.col("pre_columns")
    key_changed = _handle_key(old) != _handle_key(new)
    one = F.array(
        F.struct(F.when(kind == "insert", F.lit(INSERT)).otherwise(F.lit(DELETE)).alias("k"),
                 F.when(kind == "insert", new).otherwise(old).alias("i"))
    )
    before = F.when(key_changed, F.lit(DELETE)).otherwise(F.lit(UPDATE_BEFORE))
    after = F.when(key_changed, F.lit(INSERT)).otherwise(F.lit(UPDATE_AFTER))
    two = F.array(F.struct(before.alias("k"), old.alias("i")), F.struct(after.alias("k"), new.alias("i")))
    hko = F.lit(False)
    if "handle_key_only" in df.columns:  # null, and a frame from before the column, mean false
        hko = F.coalesce(F.col("handle_key_only"), hko)
    exploded = rows.select(
        F.col("commit_ts").cast(DecimalType(20, 0)).alias("_cdc_commit_ts"),
        F.col("schema").alias("_cdc_schema"),
        F.col("table").alias("_cdc_table"),
        _frame_column(df, "topic", "string").alias("_cdc_topic"),
        _frame_column(df, "partition", "int").alias("_cdc_partition"),
        _frame_column(df, "offset", "bigint").alias("_cdc_offset"),
        hko.alias("_cdc_handle_key_only"),
        F.posexplode(F.when(kind == "update", two).otherwise(one)).alias("_cdc_seq", "_e"),
    )
    return exploded.where(F.col("_e.i").isNotNull()).select(
        F.col("_e.k").alias(KIND_COLUMN), F.col("_e.i").alias(_IMAGE), *METADATA_COLUMNS
    )


# --- one value to its type, as SQL ---------------------------------------------------------
#
# A column's value is looked for where the table's column list puts it (images list a table's
# columns in table order), checked by name, and searched for by name only when it is not
# there: one comparison per value on the usual row, where a name -> value map or a search
# would scan the image once per table column (quadratic in the table's width).
#
# Each column is one SQL expression, parsed by Spark once: built from Column calls it would cost
# dozens of JVM round trips per table column. The value is bound to a lambda variable with
# ``zip_with``, which Spark evaluates without generating code: generated code for a wide
# table's lambdas overflows Java's 64 KB method limit (Spark then falls back, logging an error).


def _sql_string(text: str) -> str:
    """A SQL string literal of ``text``, whatever Spark's escapedStringLiterals setting is."""
    if "'" not in text and "\\" not in text:
        return f"'{text}'"
    return f"decode(X'{text.encode().hex()}', 'UTF-8')"


def _sql_name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _bind(value_sql: str, variable: str, body: str) -> str:
    """``body`` with ``variable`` standing for ``value_sql``, which is evaluated once."""
    return f"get(zip_with(array({value_sql}), array(NULL), ({variable}, cdc_unused) -> {body}), 0)"


def _lookup_sql(image: str, index: int, name: str) -> str:
    """The VALUE struct of column ``name`` in ``image`` (SQL of an array<COLUMN>), looked for at
    ``index`` first; null when the image has no such column."""
    key = _sql_string(name)
    at = f"get({image}, {index})"
    return (
        f"CASE WHEN {at}.name = {key} THEN {at}.value"
        f" ELSE get(filter({image}, cdc_c -> cdc_c.name = {key}), 0).value END"
    )


_PRESENT = "(" + " OR ".join(f"cdc_v.`{f}` IS NOT NULL" for f in _VALUE_FIELDS) + ")"
#: Whatever field is set, as text (binary read as UTF-8, bad sequences replaced).
_TEXT = (
    "coalesce(cdc_v.string, cast(cdc_v.int AS string), cast(cdc_v.uint AS string),"
    " cast(cdc_v.double AS string), make_valid_utf8(cast(cdc_v.binary AS string)))"
)
#: An integer value as 64 bits in a bigint: ``uint`` values past the signed range wrap, as a SET
#: mask's or BIT(64)'s bits do.
_AS_LONG = (
    f"coalesce(cdc_v.int, try_cast(CASE WHEN cdc_v.uint >= {1 << 63} THEN cdc_v.uint - {1 << 64}"
    " ELSE cdc_v.uint END AS bigint))"
)


def _element_names_sql(column: TableColumn, listed: Optional[str] = None) -> Optional[str]:
    names = column.elements
    if not names:
        return None
    listed = listed or "array(" + ", ".join(_sql_string(n) for n in element_list(column)) + ")"
    if column.type == ColumnType.ENUM:  # a 1-based index; 0 is MySQL's error value ''
        by_index = f"CASE WHEN cdc_n = 0 THEN '' ELSE get({listed}, try_cast(cdc_n - 1 AS int)) END"
    else:  # a SET's bit mask
        member = "CASE WHEN shiftright(cdc_n, cdc_i) & 1 = 1 THEN cdc_e END"
        members = f"transform({listed}, (cdc_e, cdc_i) -> {member})"
        by_index = f"CASE WHEN cdc_n IS NOT NULL THEN array_join({members}, ',') END"
    return _bind(_AS_LONG, "cdc_n", by_index)


def element_list(column: TableColumn) -> tuple[str, ...]:
    """The ENUM/SET element names a column's values are read by (a SET mask has 64 bits)."""
    return tuple(column.elements or ())[:64]


def typed_sql(column: TableColumn, time_zone: str = "UTC", elements: Optional[str] = None) -> str:
    """SQL turning the VALUE struct ``cdc_v`` into ``column.spark_type``, null when it does not
    read as one: every cast a ``try_`` one, as Spark's ANSI mode needs. ``elements``: SQL of an
    ENUM/SET column's element names (an array of strings) where they are data, not literals
    (one SQL then types every ENUM column of many tables)."""
    t = column.spark_type
    ddl = t.simpleString()
    if isinstance(t, StringType):
        names = _element_names_sql(column, elements)
        return _TEXT if names is None else f"coalesce({names}, {_TEXT})"
    if isinstance(t, BinaryType):
        return "coalesce(cdc_v.binary, cast(cdc_v.string AS binary))"
    if isinstance(t, (DateType, TimestampNTZType)):
        return f"try_cast(cdc_v.string AS {ddl})"
    if isinstance(t, TimestampType):
        return f"try_cast(concat(cdc_v.string, {_sql_string(' ' + time_zone)}) AS {ddl})"
    if isinstance(t, _NUMERIC):
        fields = ("int", "uint", "double", "string")
        return "coalesce(" + ", ".join(f"try_cast(cdc_v.`{f}` AS {ddl})" for f in fields) + ")"
    return f"try_cast({_TEXT} AS {ddl})"


def _column_sql(image: str, index: int, column: TableColumn, time_zone: str) -> str:
    return _bind(_lookup_sql(image, index, column.name), "cdc_v", typed_sql(column, time_zone))


def _lost_sql(image: str, index: int, column: TableColumn, time_zone: str) -> str:
    """True when the column's value is not SQL NULL and does not read as its type."""
    body = f"coalesce({_PRESENT} AND ({typed_sql(column, time_zone)}) IS NULL, false)"
    return _bind(_lookup_sql(image, index, column.name), "cdc_v", body)


def _typed(image: Column, columns: Sequence[TableColumn], time_zone: str) -> list[Column]:
    """The typed columns of an image given as a Column: each column's SQL over a lambda
    variable standing for the image."""
    images, unused = F.array(image), F.array(F.lit(None))
    return [
        F.get(
            F.call_function("zip_with", images, unused,
                            F.expr(f"(cdc_img, cdc_unused0) -> {_column_sql('cdc_img', i, c, time_zone)}")),
            0,
        ).alias(c.name)
        for i, c in enumerate(columns)
    ]


__all__ = [
    "DELETE", "INSERT", "KIND_COLUMN", "METADATA_COLUMNS", "UPDATE_AFTER", "UPDATE_BEFORE", "changelog",
    "row_images", "table_columns", "typed_columns", "typed_sql", "zero_date_counts",
]
