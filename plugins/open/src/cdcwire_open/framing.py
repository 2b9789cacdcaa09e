"""The open-protocol message frame: an 8-byte version, then length-prefixed JSON parts.

Key = u64 BE version (1), then per event [u64 BE length, key JSON];
value = per event [u64 BE length, value JSON]. Sizes are checked the way the
reference checks them: a message costs key + value + 36 bytes of Kafka record
overhead, and each event adds 16 bytes of length prefixes.
"""

from __future__ import annotations

import struct

from cdcwire.plugin_api import MESSAGE_OVERHEAD

VERSION = 1
VERSION_BYTES = struct.pack(">Q", VERSION)
LENGTH = struct.Struct(">Q")
#: Two u64 length prefixes per event, one in the key and one in the value.
EVENT_FRAMING = 16


def single_event_cost(key_json: bytes, value_json: bytes) -> int:
    """What a message holding only this event counts against max-message-bytes."""
    return len(key_json) + len(value_json) + EVENT_FRAMING + len(VERSION_BYTES) + MESSAGE_OVERHEAD
