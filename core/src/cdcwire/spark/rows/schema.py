"""The event DataFrame: the canonical event model as Spark columns, lossless for every type.

One row per event::

    kind         string          insert | update | delete | ddl | resolved
    commit_ts    decimal(20,0)   commit ts (unsigned 64-bit); a resolved event's ts
    schema       string          (row, ddl) database name
    table        string          (row, ddl) table name
    table_id     bigint          (row) physical table id of a partition, or null
    columns      array<COLUMN>   (row) new image: insert and update; null for a delete
    pre_columns  array<COLUMN>   (row) old image: update and delete; null for an insert
    ddl_type     string          (ddl) DDLType name, e.g. ADD_COLUMN
    query        string          (ddl) the statement
    handle_key_only boolean      (row) true: the row arrived with its handle key only (a large
                                 row under large-message-handle-option=handle-key-only or
                                 claim-check); its images are the key to look the row up by.
                                 Null on input means false.

    COLUMN = struct<name string, type string (ColumnType name), flags int (ColumnFlag bits),
                    value VALUE, mysql_type string>
    VALUE  = struct<int bigint, uint decimal(20,0), double double, string string, binary binary>

Exactly one field of VALUE is set, or none for SQL NULL: integers that fit a
signed 64-bit go to ``int``, larger unsigned ones (BIGINT UNSIGNED, BIT(64)) to
``uint``; FLOAT (float32, exact in a double) and DOUBLE to ``double``; text
(DECIMAL, dates, times, JSON, strings) to ``string``; bytes to ``binary``.
Why a tagged struct and not one text column: every value keeps its type, Spark
SQL can filter on it, and no value is parsed twice on the hot path.

A malformed input record read permissively has ``kind`` null and the
``_malformed`` column set (struct<source string, reason string, text string>);
``cdcwire.spark.write`` sends those to the dead-letter path or fails with them.

Read back from a sink, the DataFrame adds ``topic`` string, ``partition`` int and
``offset`` bigint; read permissively, a message that cannot be decoded is a row
with ``_malformed`` set (its source ``topic/partition/offset``) and null event columns.

Read through the data source (``spark.read.format("cdcwire")`` and
``spark.readStream.format("cdcwire")``, :data:`SOURCE_READ_EVENT_SCHEMA`), each row also
has ``timestamp`` (timestamp, after ``offset``): its message's Kafka record timestamp, as
Spark's own Kafka source gives it, null where the transport keeps none (``file://``). A
Python data source has one schema for batch and streaming reads, so both have it;
``cdcwire.spark.read`` and ``cdcwire.spark.decode`` keep :data:`READ_EVENT_SCHEMA`.

This module owns the event DataFrame's schema: it is a public contract (tables people
keep, SQL they write against it), so a change raises :data:`EVENT_SCHEMA_VERSION` and
gets a line in the "Format versions" table of docs/event-json.md.
"""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

#: The version of the event DataFrame schema: MAJOR.MINOR, a new nullable column raising the
#: minor, a changed or removed one the major.
EVENT_SCHEMA_VERSION = "1.2"

KINDS = ("insert", "update", "delete", "ddl", "resolved")

VALUE_TYPE = StructType(
    [
        StructField("int", LongType()),
        StructField("uint", DecimalType(20, 0)),
        StructField("double", DoubleType()),
        StructField("string", StringType()),
        StructField("binary", BinaryType()),
    ]
)
COLUMN_TYPE = StructType(
    [
        StructField("name", StringType()),
        StructField("type", StringType()),
        StructField("flags", IntegerType()),
        StructField("value", VALUE_TYPE),
        StructField("mysql_type", StringType()),
    ]
)
EVENT_FIELDS = [
    StructField("kind", StringType()),
    StructField("commit_ts", DecimalType(20, 0)),
    StructField("schema", StringType()),
    StructField("table", StringType()),
    StructField("table_id", LongType()),
    StructField("columns", ArrayType(COLUMN_TYPE)),
    StructField("pre_columns", ArrayType(COLUMN_TYPE)),
    StructField("ddl_type", StringType()),
    StructField("query", StringType()),
    StructField("handle_key_only", BooleanType()),
]
#: The event DataFrame's schema.
EVENT_SCHEMA = StructType(EVENT_FIELDS)
EVENT_COLUMNS = tuple(f.name for f in EVENT_FIELDS)
#: Columns added after 1.0 that an input may lack, and the value that stands for them then.
OPTIONAL_COLUMNS = {"handle_key_only": False}

MALFORMED_TYPE = StructType(
    [
        StructField("source", StringType()),
        StructField("reason", StringType()),
        StructField("text", StringType()),
    ]
)
#: Events as read permissively: malformed records are rows with ``_malformed`` set.
PERMISSIVE_EVENT_SCHEMA = StructType([*EVENT_FIELDS, StructField("_malformed", MALFORMED_TYPE)])

#: Events read back from a sink: where each one was found.
MESSAGE_FIELDS = [
    StructField("topic", StringType(), False),
    StructField("partition", IntegerType(), False),
    StructField("offset", LongType(), False),
]
READ_EVENT_SCHEMA = StructType([*EVENT_FIELDS, *MESSAGE_FIELDS])
#: Events read back permissively: undecodable messages are rows with ``_malformed`` set.
PERMISSIVE_READ_EVENT_SCHEMA = StructType(
    [*EVENT_FIELDS, *MESSAGE_FIELDS, StructField("_malformed", MALFORMED_TYPE)]
)

#: A range's messages as they are, undecoded (``format("cdcwire")`` with ``output=messages``),
#: for a decoder in the JVM (:mod:`cdcwire.spark.reader.jvm_decoding`).
MESSAGE_ROW_SCHEMA = StructType(
    [*MESSAGE_FIELDS, StructField("key", BinaryType()), StructField("value", BinaryType())]
)

#: A message's Kafka record timestamp (null where the transport keeps none, as ``file://``).
TIMESTAMP_FIELD = StructField("timestamp", TimestampType())
#: What the data source's reads give, batch and streaming: events, their place and timestamp.
SOURCE_READ_EVENT_SCHEMA = StructType([*EVENT_FIELDS, *MESSAGE_FIELDS, TIMESTAMP_FIELD])
#: The same read permissively: undecodable messages are rows with ``_malformed`` set.
PERMISSIVE_SOURCE_READ_EVENT_SCHEMA = StructType(
    [*EVENT_FIELDS, *MESSAGE_FIELDS, TIMESTAMP_FIELD, StructField("_malformed", MALFORMED_TYPE)]
)

# The same schemas as Arrow types, for the executors' batch conversion.
ARROW_VALUE = pa.struct(
    [
        pa.field("int", pa.int64()),
        pa.field("uint", pa.decimal128(20, 0)),
        pa.field("double", pa.float64()),
        pa.field("string", pa.string()),
        pa.field("binary", pa.binary()),
    ]
)
ARROW_COLUMN = pa.struct(
    [
        pa.field("name", pa.string()),
        pa.field("type", pa.string()),
        pa.field("flags", pa.int32()),
        pa.field("value", ARROW_VALUE),
        pa.field("mysql_type", pa.string()),
    ]
)
ARROW_EVENT_FIELDS = [
    pa.field("kind", pa.string()),
    pa.field("commit_ts", pa.decimal128(20, 0)),
    pa.field("schema", pa.string()),
    pa.field("table", pa.string()),
    pa.field("table_id", pa.int64()),
    pa.field("columns", pa.list_(ARROW_COLUMN)),
    pa.field("pre_columns", pa.list_(ARROW_COLUMN)),
    pa.field("ddl_type", pa.string()),
    pa.field("query", pa.string()),
    pa.field("handle_key_only", pa.bool_()),
]
ARROW_MALFORMED = pa.struct(
    [pa.field("source", pa.string()), pa.field("reason", pa.string()), pa.field("text", pa.string())]
)
ARROW_EVENT_SCHEMA = pa.schema(ARROW_EVENT_FIELDS)
ARROW_PERMISSIVE_EVENT_SCHEMA = pa.schema([*ARROW_EVENT_FIELDS, pa.field("_malformed", ARROW_MALFORMED)])
ARROW_MESSAGE_FIELDS = [
    pa.field("topic", pa.string(), False),
    pa.field("partition", pa.int32(), False),
    pa.field("offset", pa.int64(), False),
]
ARROW_READ_EVENT_SCHEMA = pa.schema([*ARROW_EVENT_FIELDS, *ARROW_MESSAGE_FIELDS])
ARROW_PERMISSIVE_READ_EVENT_SCHEMA = pa.schema(
    [*ARROW_EVENT_FIELDS, *ARROW_MESSAGE_FIELDS, pa.field("_malformed", ARROW_MALFORMED)]
)
ARROW_MESSAGE_ROW_SCHEMA = pa.schema(
    [*ARROW_MESSAGE_FIELDS, pa.field("key", pa.binary()), pa.field("value", pa.binary())]
)
#: Spark's timestamp as Arrow (microseconds, UTC), as Spark converts it.
ARROW_TIMESTAMP = pa.timestamp("us", tz="UTC")
ARROW_SOURCE_READ_EVENT_SCHEMA = pa.schema(
    [*ARROW_EVENT_FIELDS, *ARROW_MESSAGE_FIELDS, pa.field("timestamp", ARROW_TIMESTAMP)]
)
ARROW_PERMISSIVE_SOURCE_READ_EVENT_SCHEMA = pa.schema(
    [
        *ARROW_EVENT_FIELDS,
        *ARROW_MESSAGE_FIELDS,
        pa.field("timestamp", ARROW_TIMESTAMP),
        pa.field("_malformed", ARROW_MALFORMED),
    ]
)
