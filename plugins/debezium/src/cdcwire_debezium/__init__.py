"""debezium for cdcwire: TiCDC's flavour of Debezium's JSON change events.

Install ``cdcwire-debezium`` and use ``protocol=debezium``::

    msgs = cdcwire.encode("file:///tmp/out/orders?protocol=debezium&enable-tidb-extension=true", events)
    events = cdcwire.decode("debezium?enable-tidb-extension=true", msgs)

One message per row change, DDL and (with the extension) watermark; key and value are
Kafka Connect JsonConverter documents, ``{"payload": ..., "schema": ...}``. Reading rows
back needs the schema part and the extension (``tidb_type`` of each column), as TiCDC's own
decoder does. What a reader gets back is modelled in :mod:`cdcwire_debezium.carried`.
"""

from __future__ import annotations

from .codec import DebeziumCodec
from .decoder import DebeziumDecoder
from .encoder import DebeziumEncoder
from .options import DebeziumOptions

__all__ = ["DebeziumCodec", "DebeziumDecoder", "DebeziumEncoder", "DebeziumOptions"]
