"""The plugin API's version: what a plugin declares, and what the registry checks it against.

Here, in the contract's room, because the registry checks it; :mod:`cdcwire.plugin_api`
hands both names on to plugins with the rest of the API.
"""

#: The version of this API, ``MAJOR.MINOR``: a new name raises the minor, a changed or
#: removed one the major. A plugin written for 1.0 loads on any 1.x core.
#: 1.1: the columnar capability (BatchEncoder, BatchDecoder, EventBatch, ImageShape).
#: 1.2: large messages: RowChangedEvent.handle_key_only and EventBatch.key_only (a columnar
#: encoder sends those rows through its Event path), LargeMessageOptions, Compression,
#: ClaimCheckStore and their errors, the claim-check and compression parameters,
#: PointerPayload and in_order_once_stored (objects stored side by side, pointers in order).
#: 1.3: parse_boolean, the one boolean rule of URI parameters, for a plugin that reads a
#: boolean outside a ``Parameter("...", "bool")`` (which already applies it); and the one
#: reading of MySQL type texts (TypeText, parse_type_text, type_text_problem).
#: 1.4: OffsetsCapability (consumer groups and offsets for a time, offered by Transport.offsets).
#: 1.5: statement_ddl_type, the DDL type of a statement read from its text (canal-json's and
#: debezium's decoders: their messages carry only a coarse kind).
#: 1.6: the end of a bounded read: FinishingDecoder, a decoder's optional ``finish()``, which the
#: core calls once when a finite input ends (rows a stateful decoder still holds are given or
#: refused, never dropped), and ``Codec.stateful_decoding`` (a partition is decoded whole, in order).
#: 1.7: the table schema (TableSchema, ColumnSchema, IndexSchema): RowChangedEvent.table_schema,
#: DDLEvent.table_schema and pre_table_schema (optional, not part of equality), filled by decoders
#: that read one; derive_table_schema, table_schema_of, row_schema_columns and charset_of, the one
#: derivation from a row's columns for encoders that write a schema no DDL gave; TiDB's type names
#: (TYPE_NAMES, BINARY_TYPE_NAMES, type_name: ``TypeToStr``), once for every plugin that writes them.
#: 1.8: tables' announcements: ``EventPolicy.announce_tables`` and TableAnnouncement, given to
#: the encoders of every partition of a table's topic (or the first) before the table's first
#: row, for a codec that describes tables in messages of their own (simple's BOOTSTRAP to every
#: partition, as TiCDC's send-bootstrap-to-all-partition).
#: 1.9: HeldRowsRefused, the DecodeError of a message that released held rows some of which do not
#: decode: the rest are given, each refused one is skipped, kept malformed or fails at its own place.
#: 1.10: a codec's JVM tier: ``Codec.jvm`` and JvmCodec (its Java sources, MessageDecoder and
#: MessageEncoder classes and their configuration), compiled with the core's Java framework;
#: INTEGER_RANGES, the one table of integer types' ranges (its glue's probes).
#: 1.11: the Java framework a JVM tier builds on grew: ``MessageDecoder.read(key, value)`` (a
#: format whose key carries part of the message, as debezium's), and RecordChecks,
#: ColumnEntry.decoded, FloatText, JsonText and JsonBytes public, so a plugin's Java lives in its
#: own package. No Python name is new; a plugin whose Java uses them needs a 1.11 core.
#: 1.12: ``MessageDecoder.readAll(key, value)``, the events of a message that packs a batch
#: (open-protocol's, craft's), each its own row in the message's place, and JsonBytes' checks of a range
#: of a message's bytes (a length-prefixed document). No Python name is new.
#: 1.13: ``JvmCodec.batch_encoder``, a Java ``BatchEncoder`` for a format that packs several events
#: into one message (open-protocol's, craft's): the core's BatchEncoding feeds it a topic-partition's
#: events in order and places each message it closes on its last event's row; a batch it is not sure
#: of goes to the Python encoder whole. ColumnEntry's fields public (what an encoder reads of an
#: image, fieldsSet among them), and the framework's SureJson (a JSON document read only where orjson
#: reads it alike) and ConfigText (a configuration text's parts). No other Python name is new.
#: 1.14: ``ColumnEntry.sparkColumn``, one column of an event image as a Java decoder gives it in the
#: Spark event row (the struct every decoder built field by field). No Python name is new.
#: 1.15: StagedRun, ``WriteJob.staging_area`` and ``MessageWriter.take_staged`` (both optional, with
#: defaults): a transport whose jobs stage partition files in the file transport's format (``file``)
#: lets Spark's Java tier stage the messages it made there itself, and takes them as its writers' own.
#: 1.16: the framework's Java ``RowMessages``, a ``BatchEncoder`` for a format that writes one message
#: per row event (debezium's, avro's): a plugin writes ``row`` and calls ``close(key, value)``; a null
#: value is a tombstone (avro's delete), which the file transport's staging frames as none. No Python
#: name is new.
#: 1.17: a ``BatchEncoder`` may close a message of 0 events (simple's BOOTSTRAP, a table's schema
#: before a row) together with the message after it: BatchEncoding places it on that message's first
#: row (``_cdc_messages_before``), and the encoding stage and FramedStaging write it first; and one
#: whose ``encodesDdl()`` makes DDL events' messages itself (``ddl(...)``, simple's, whose tables'
#: state a DDL changes) instead of leaving them to Python. No Python name is new.
#: 1.18: ``BatchEncoder.handOver()`` (Java, default null): the state a batching Java encoder hands to
#: its Python twin when it leaves it events; BatchEncoding puts it on the first row left to Python
#: (``_cdc_encoder_state``) and the encoding stage gives it to the Python encoder's
#: ``adopt_handed_state(text)`` (optional; called only where the Java twin hands a state over) before
#: that row. simple's: its encoder gives each message as it makes it, not a partition's at its end.
PLUGIN_API_VERSION = "1.18"

#: The attribute of a plugin's entry-point module that says which version it was written for.
PLUGIN_API_ATTRIBUTE = "cdcwire_plugin_api"
