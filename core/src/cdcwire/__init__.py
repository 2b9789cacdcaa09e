"""cdcwire: TiCDC's wire protocols (open-protocol, craft, canal-json, avro) for Python.

    import cdcwire
    msgs = cdcwire.encode("file:///tmp/out/orders?protocol=open-protocol", events)
    events = cdcwire.decode("open-protocol", msgs)
"""

from __future__ import annotations

from .api.functions import decode, encode, encode_partition, protocols, read, write
from .contract.codec import Broadcast, Codec, Decoder, Encoder, EventPolicy
from .values.type_codes import ColumnFlag, ColumnType, DDLType
from .foundation.errors import (
    CdcwireError,
    DecodeError,
    DispatchError,
    EncodeError,
    EventJSONError,
    InvalidEventError,
    MessageTooLargeError,
    PluginError,
    SinkURIError,
    TransportError,
)
from .model.event_json import from_json, read_jsonl, to_json, write_jsonl
from .model.events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent
from .api.following import follow
from .contract.hookspecs import hookimpl
from .model.message import Message, Payload
from .foundation.params import Parameter
from .api.poll_decoding import PollDecoder
from .sinks.sink import Sink, open_sink, parse_sink_uri
from .uris.sink_uri import SinkConfig
from .api.storage_reading import read_storage, read_storage_placed
from .api.storage_writing import write_storage

__all__ = [
    "Broadcast", "CdcwireError", "Codec", "Column", "ColumnFlag", "ColumnType", "DDLEvent", "DDLType",
    "DecodeError", "Decoder", "DispatchError", "EncodeError", "Encoder", "Event", "EventJSONError",
    "EventPolicy", "InvalidEventError", "Message", "MessageTooLargeError", "Parameter", "Payload",
    "PluginError", "PollDecoder", "ResolvedEvent", "RowChangedEvent", "Sink", "SinkConfig", "SinkURIError",
    "TransportError", "decode", "encode", "encode_partition", "follow", "from_json", "hookimpl", "open_sink",
    "parse_sink_uri", "protocols", "read", "read_jsonl", "read_storage", "read_storage_placed", "to_json", "write", "write_jsonl", "write_storage",
]
