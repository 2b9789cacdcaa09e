"""canal-json for cdcwire: TiCDC's flavour of Alibaba Canal's JSON change messages.

Install ``cdcwire-canal-json`` and use ``protocol=canal-json``::

    msgs = cdcwire.encode("file:///tmp/out/orders?protocol=canal-json&enable-tidb-extension=true", events)
    events = cdcwire.decode("canal-json", msgs)

One row change, DDL or watermark per message; the key is empty (None). DDL goes
to partition 0 only; watermarks (resolved events) exist only with
``enable-tidb-extension=true`` and go to every partition.

Commit timestamps. Without the extension a message carries only ``es``, the
commit's physical time in milliseconds (``commit_ts >> 18``); the TSO itself is
lost. The decoder does not invent one and says so:

- decoded events get ``commit_ts = es << 18`` (logical part zero): it orders
  events and keeps their millisecond, nothing more;
- ``CanalJSONCodec.exact_commit_ts(config)`` and ``decoder.exact_commit_ts`` are
  False; with the extension they are True and every row and DDL message must
  carry ``_tidb.commitTs`` (a message without it is a DecodeError). A message
  that carries ``_tidb.commitTs`` is always read exactly;
- ``CanalJSONCodec.carried(config, event)`` applies the same rule.

What else the protocol drops (flags, type details, DDL types, table ids) is
listed in :mod:`cdcwire_canal_json.carried`.
"""

from __future__ import annotations

from .codec import CanalJSONCodec
from .decoder import CanalJSONDecoder
from .encoder import CanalJSONEncoder
from .options import CanalOptions

__all__ = ["CanalJSONCodec", "CanalJSONDecoder", "CanalJSONEncoder", "CanalOptions"]
