"""debezium's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.10 and 1.13): a
Java decoder and batch encoder in a package of their own, using only the framework's public classes."""

from __future__ import annotations

import json

import cdcwire
from cdcwire.plugin_api import ColumnFlag, JvmCodec
from cdcwire.sinks.sink import open_sink
from cdcwire.testing.strategies import all_types_table
from cdcwire_debezium.codec import DebeziumCodec
from cdcwire_debezium.jvm_reading import decoder_config, reading_table
from cdcwire_debezium.jvm_writing import encoder_config, field_table

QUERY = "protocol=debezium&enable-tidb-extension=true"


def test_the_codec_declares_a_java_decoder_its_own_sources_define():
    jvm = DebeziumCodec.jvm
    assert isinstance(jvm, JvmCodec)
    assert jvm.encoder is None  # one message a row, but made by a BatchEncoder (it takes a row or leaves it)
    source = jvm.sources.joinpath(*jvm.decoder.split(".")).with_suffix(".java")
    assert "public final class DebeziumDecoder implements MessageDecoder" in source.read_text(encoding="utf-8")


def test_its_java_lives_in_its_own_package_not_the_frameworks():
    for path in DebeziumCodec.jvm.sources.rglob("*.java"):
        assert path.read_text(encoding="utf-8").startswith("package io.cdcwire.debezium;"), path


def test_its_sources_are_among_those_the_core_compiles():
    from cdcwire.spark.jvm.jar import source_roots

    assert DebeziumCodec.jvm.sources in source_roots()


def test_compression_is_refused_in_one_line_and_every_other_setting_is_served():
    jvm = DebeziumCodec.jvm
    compressed = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=snappy").config
    assert jvm.decoder_refusal(compressed) == "debezium's large-message compression is decoded in Python only"
    for query in (QUERY, "protocol=debezium", f"{QUERY}&debezium-disable-schema=true&debezium-output-old-value=false"):
        assert jvm.decoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_the_reading_table_has_every_tidb_type_the_encoder_writes():
    uri = f"file:///tmp/t?{QUERY}"
    written = set()
    for event in _one_row_per_type():
        for message in cdcwire.encode(uri, [event]):
            after = json.loads(message.value)["schema"]["fields"][1]["fields"]
            written |= {field["tidb_type"] for field in after}
    table = reading_table()
    assert written and written <= set(table)
    assert table["bigint unsigned"]["rule"] == "u64" and table["varbinary"]["rule"] == "base64"


def test_the_decoders_configuration_is_its_reading_table():
    config = decoder_config(open_sink(f"file:///tmp/t?{QUERY}").config)
    assert config == {"readings": reading_table()}


def _one_row_per_type():
    """One row of a table with a column of every kind (COLUMN_KINDS), all NULL but its key."""
    from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent

    spec = all_types_table()
    key = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")
    columns = [Column(f"c_{k.label}", k.type, spec.flags(i), None, k.mysql_type) for i, k in enumerate(spec.kinds)]
    yield RowChangedEvent(1 << 20, spec.schema, spec.table, (key, *columns), None)


def test_the_codec_declares_a_java_batch_encoder_its_own_sources_define():
    jvm = DebeziumCodec.jvm
    source = jvm.sources.joinpath(*jvm.batch_encoder.split(".")).with_suffix(".java")
    text = source.read_text(encoding="utf-8")
    assert "public final class DebeziumBatchEncoder extends RowMessages" in text


def test_compression_is_encoded_in_python_and_every_other_setting_in_java():
    jvm = DebeziumCodec.jvm
    compressed = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=snappy").config
    assert jvm.encoder_refusal(compressed) == "debezium's large-message compression is encoded in Python only"
    for query in (QUERY, "protocol=debezium", f"{QUERY}&debezium-disable-schema=true&debezium-output-old-value=false"):
        assert jvm.encoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_the_value_rules_java_gets_are_probed_from_the_encoder():
    """Flags combinations in the order BINARY, UNSIGNED, NULLABLE bits: 0 plain, 1 binary, 2 unsigned."""
    table = field_table(tidb_extension=True)
    assert [table["BIGINT"][i]["rule"] for i in (0, 2)] == ["same", "u64"]
    assert [table["VARCHAR"][i]["rule"] for i in (0, 1)] == ["same", "base64"]
    assert table["DECIMAL"][0]["rule"] == "decimal" and table["DOUBLE"][0]["rule"] == "double"
    assert table["INT"][0]["schema"] == '{"tidb_type":"int","type":"int32","optional":false,'
    rules = {t: {e["rule"] for e in entries if e is not None} for t, entries in table.items()}
    assert [rules[t] for t in ("DATE", "TIME", "DATETIME", "TIMESTAMP")] == [{"date"}, {"time"}, {"datetime"}, {"timestamp"}]
    assert [rules[t] for t in ("BIT", "ENUM", "SET", "FLOAT")] == [{"bit"}, {"enum"}, {"set"}, {"float32"}]
    assert "GEOMETRY" not in table and "NULL" not in table  # no debezium mapping: Python's error


def test_every_column_kind_of_the_workload_has_a_java_rule():
    from cdcwire.values.column_kinds import COLUMN_KINDS

    table = field_table(tidb_extension=False)
    nullable = 4  # the NULLABLE bit's place in the flags combination
    for kind in COLUMN_KINDS:
        combo = nullable | (1 if kind.flags & ColumnFlag.BINARY else 0) | (2 if kind.flags & ColumnFlag.UNSIGNED else 0)
        assert table[kind.type.name][combo] is not None, kind.label


def test_schemas_that_depend_on_the_type_text_come_per_variant_with_places_java_fills():
    table = field_table(tidb_extension=True)
    datetime, bit, enum, float_ = table["DATETIME"][4], table["BIT"][6], table["ENUM"][4], table["FLOAT"][4]
    assert '"io.debezium.time.Timestamp"' in datetime["schema"]
    assert '"io.debezium.time.MicroTimestamp"' in datetime["micro"]
    assert '"type":"boolean"' in bit["schema"] and '"parameters":{"length":"@length@"}' in bit["bits"]
    assert '"parameters":{"allowed":"@allowed@"}' in enum["allowed"]
    assert '"type":"float"' in float_["schema"] and '"type":"double"' in float_["scaled"]


def test_the_texts_java_fills_in_are_the_encoders_with_placeholders():
    config = encoder_config(open_sink(f"file:///tmp/t?{QUERY}&debezium-cluster-id=c1").config)
    source = json.loads(config["templates"]["source"])
    assert (source["db"], source["table"], source["cluster_id"]) == ("@db@", "@table@", "c1")
    assert str(source["commit_ts"]) == config["probe_ts"] and str(source["ts_ms"]) == config["probe_ms"]
    assert config["templates"]["value_schema"].count('"@fields@"') == 2


def test_the_watermark_java_fills_in_is_the_encoders_with_its_numbers_in_place():
    from cdcwire_debezium.jvm_writing import watermark
    from cdcwire_debezium.options import DebeziumOptions

    assert watermark(DebeziumOptions(tidb_extension=False)) is None  # no message: Python's
    texts = watermark(DebeziumOptions(tidb_extension=True, cluster_id="c1"))
    value = json.loads(texts["value"].replace("@ts@", "1").replace("@ms@", "2").replace("@now@", "3"))
    assert value["payload"]["op"] == "m" and value["payload"]["ts_ms"] == 3
    assert (value["payload"]["source"]["commit_ts"], value["payload"]["source"]["ts_ms"]) == (1, 2)
    assert json.loads(texts["key"])["schema"]["name"] == "c1.watermark.Key"


def test_probe_numbers_the_cluster_id_shows_are_not_taken():
    from cdcwire_debezium.jvm_writing import PROBE_TS, probes
    from cdcwire_debezium.options import DebeziumOptions

    assert probes(DebeziumOptions())[0] == PROBE_TS
    ts, now = probes(DebeziumOptions(cluster_id=f"x{PROBE_TS >> 18}"))
    assert ts != PROBE_TS and str(ts >> 18) not in f"x{PROBE_TS >> 18}"
