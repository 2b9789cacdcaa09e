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

from .foundation.bounded_cache import BoundedCache
from .contract.codec import (
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
from .values.type_codes import (
    BLOB_TYPES,
    FLOAT_TYPES,
    INTEGER_TYPES,
    STRING_TYPES,
    TEXTUAL_TYPES,
    ColumnFlag,
    ColumnType,
    DDLType,
)
from .foundation.errors import (
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
from .values.ddl_statements import statement_ddl_type
from .model.event_batch import EventBatch, ImageShape
from .model.event_json import from_json, to_json
from .model.events import (
    Column,
    Columns,
    DDLEvent,
    Event,
    ResolvedEvent,
    RowChangedEvent,
    build_column,
    build_row_event,
)
from .contract.hookspecs import hookimpl
from .model.message import MESSAGE_OVERHEAD, Message, Payload
from .large_messages import ClaimCheckStore, Compression, LargeMessageOptions
from .large_messages.compression import DecompressionFailed
from .large_messages.storage import ObjectMissing, StorageError
from .large_messages.uploads import PointerPayload, in_order_once_stored
from .foundation.params import (
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
from .uris.sink_uri import SinkConfig
from .model.table_announcement import TableAnnouncement
from .model.table_schema import (
    ColumnSchema,
    IndexSchema,
    TableSchema,
    charset_of,
)
from .model.row_schemas import derive_table_schema, row_schema_columns, table_schema_of
from .contract.transport import MessageReader, MessageWriter, OffsetsCapability, StagedRun, Transport, WriteJob
from .contract.api_version import PLUGIN_API_ATTRIBUTE, PLUGIN_API_VERSION
from .contract.jvm_codec import JvmCodec
from .model.validation import INTEGER_RANGES
from .values.type_names import BINARY_TYPE_NAMES, TYPE_NAMES, type_name
from .values.type_text import TypeText, parse_type_text, type_text_problem
from .values.value_kinds import ValueKind, canonical_value, holds_bytes, to_float32, value_kind
from .model.value_text import float32_text, float64_text

#: The plugin API version that introduced each name (from the version notes in
#: :mod:`cdcwire.contract.api_version` and the history of
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
    **dict.fromkeys([
        "JvmCodec", "INTEGER_RANGES",
    ], "1.10"),
    **dict.fromkeys([
        "StagedRun",
    ], "1.15"),
}

__all__ = list(INTRODUCED_IN)
