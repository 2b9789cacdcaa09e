"""The plugin API: everything a codec or transport plugin may use from the core, in one place.

Plugins (the four in this repository and any third party's) import from this module
only. The rest of the core is free to change shape; what is named here changes only
with :data:`PLUGIN_API_VERSION`, which a plugin declares as the version it was written
for (``cdcwire_plugin_api = "1.0"`` in its entry-point module). The registry refuses a
plugin of another major version, or of a newer minor version than this core offers,
with an error naming the distribution: a plugin never fails later in some codec call
because a name it relies on moved.

The top-level ``cdcwire`` module stays the user's API (encode, decode, write, read);
``cdcwire.testing`` holds the conformance kits plugin tests run.
"""

from __future__ import annotations

from .bounded_cache import BoundedCache
from .codec import (
    BatchDecoder,
    BatchEncoder,
    Broadcast,
    Carrier,
    Codec,
    Decoder,
    Encoder,
    EventPolicy,
    FinishingDecoder,
)
from .type_codes import (
    BLOB_TYPES,
    FLOAT_TYPES,
    INTEGER_TYPES,
    STRING_TYPES,
    TEXTUAL_TYPES,
    ColumnFlag,
    ColumnType,
    DDLType,
)
from .errors import (
    CdcwireError,
    DecodeError,
    EncodeError,
    HeldRowsRefused,
    InvalidEventError,
    MessageTooLargeError,
    PluginError,
    SinkURIError,
    TransportError,
)
from .ddl_statements import statement_ddl_type
from .event_batch import EventBatch, ImageShape
from .event_json import from_json, to_json
from .events import (
    Column,
    Columns,
    DDLEvent,
    Event,
    ResolvedEvent,
    RowChangedEvent,
    build_column,
    build_row_event,
)
from .hookspecs import hookimpl
from .message import MESSAGE_OVERHEAD, Message, Payload
from .large_messages import ClaimCheckStore, Compression, LargeMessageOptions
from .large_messages.compression import DecompressionFailed
from .large_messages.storage import ObjectMissing, StorageError
from .large_messages.uploads import PointerPayload, in_order_once_stored
from .params import (
    CLAIM_CHECK_RAW_VALUE,
    CLAIM_CHECK_STORAGE_URI,
    DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS,
    ENABLE_TIDB_EXTENSION,
    LARGE_MESSAGE_HANDLE_COMPRESSION,
    LARGE_MESSAGE_HANDLE_OPTION,
    LARGE_MESSAGE_PARAMETERS,
    MAX_BATCH_SIZE,
    ONLY_OUTPUT_UPDATED_COLUMNS,
    Parameter,
    parse_boolean,
)
from .sink_uri import SinkConfig
from .table_announcement import TableAnnouncement
from .table_schema import (
    ColumnSchema,
    IndexSchema,
    TableSchema,
    charset_of,
    derive_table_schema,
    row_schema_columns,
    table_schema_of,
)
from .transport import MessageReader, MessageWriter, OffsetsCapability, Transport, WriteJob
from .type_names import BINARY_TYPE_NAMES, TYPE_NAMES, type_name
from .type_text import TypeText, parse_type_text, type_text_problem
from .value_kinds import ValueKind, canonical_value, holds_bytes, to_float32, value_kind
from .value_text import float32_text, float64_text

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
PLUGIN_API_VERSION = "1.9"

#: The attribute of a plugin's entry-point module that says which version it was written for.
PLUGIN_API_ATTRIBUTE = "cdcwire_plugin_api"

#: The plugin API version that introduced each name (from the notes above and the history of
#: this file: Carrier, ValueKind, canonical_value, holds_bytes and value_kind came while it was
#: still 1.0). A plugin's declared version must be at least that of every name it imports; the
#: plugins' tests hold them to it. Add a new name here with the version it raises to.
INTRODUCED_IN: dict[str, str] = {
    **dict.fromkeys([
        "BLOB_TYPES", "BoundedCache", "Broadcast", "Carrier", "CdcwireError", "Codec", "Column",
        "ColumnFlag", "ColumnType", "Columns", "DDLEvent", "DDLType",
        "DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS", "DecodeError", "Decoder", "ENABLE_TIDB_EXTENSION",
        "EncodeError", "Encoder", "Event", "EventPolicy", "FLOAT_TYPES", "INTEGER_TYPES",
        "InvalidEventError", "LARGE_MESSAGE_HANDLE_OPTION", "MAX_BATCH_SIZE", "MESSAGE_OVERHEAD", "Message",
        "MessageReader", "MessageTooLargeError", "MessageWriter", "ONLY_OUTPUT_UPDATED_COLUMNS",
        "PLUGIN_API_ATTRIBUTE", "PLUGIN_API_VERSION", "Parameter", "Payload", "PluginError", "ResolvedEvent",
        "RowChangedEvent", "STRING_TYPES", "SinkConfig", "SinkURIError", "TEXTUAL_TYPES", "Transport",
        "TransportError", "ValueKind", "WriteJob", "build_column", "build_row_event", "canonical_value",
        "float32_text", "float64_text", "from_json", "holds_bytes", "hookimpl", "to_float32", "to_json",
        "value_kind",
    ], "1.0"),
    **dict.fromkeys([
        "BatchDecoder", "BatchEncoder", "EventBatch", "ImageShape",
    ], "1.1"),
    **dict.fromkeys([
        "CLAIM_CHECK_RAW_VALUE", "CLAIM_CHECK_STORAGE_URI", "ClaimCheckStore", "Compression",
        "DecompressionFailed", "LARGE_MESSAGE_HANDLE_COMPRESSION", "LARGE_MESSAGE_PARAMETERS",
        "LargeMessageOptions", "ObjectMissing", "StorageError", "PointerPayload", "in_order_once_stored",
    ], "1.2"),
    **dict.fromkeys([
        "parse_boolean", "TypeText", "parse_type_text", "type_text_problem",
    ], "1.3"),
    **dict.fromkeys([
        "OffsetsCapability",
    ], "1.4"),
    **dict.fromkeys([
        "statement_ddl_type",
    ], "1.5"),
    **dict.fromkeys([
        "FinishingDecoder",
    ], "1.6"),
    **dict.fromkeys([
        "ColumnSchema", "IndexSchema", "TableSchema", "charset_of", "derive_table_schema",
        "row_schema_columns", "table_schema_of", "BINARY_TYPE_NAMES", "TYPE_NAMES", "type_name",
    ], "1.7"),
    **dict.fromkeys([
        "TableAnnouncement",
    ], "1.8"),
    **dict.fromkeys([
        "HeldRowsRefused",
    ], "1.9"),
}

__all__ = list(INTRODUCED_IN)
