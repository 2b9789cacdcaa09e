"""simple for cdcwire: TiCDC's self-describing simple protocol, JSON or Avro.

Install ``cdcwire-simple`` and use ``protocol=simple``::

    msgs = cdcwire.encode("file:///tmp/out/orders?protocol=simple", events)
    events = cdcwire.decode("simple", msgs)

One message per row change, DDL and watermark, no key; BOOTSTRAP messages carry each table's
schema, and rows name the schema version they were written with. The decoder keeps the
schemas and holds back rows whose schema has not arrived (see :mod:`cdcwire_simple.decoder`).
"""

from __future__ import annotations

from .codec import SimpleCodec
from .decoder import SimpleDecoder
from .encoder import SimpleEncoder
from .options import SimpleOptions

__all__ = ["SimpleCodec", "SimpleDecoder", "SimpleEncoder", "SimpleOptions"]
