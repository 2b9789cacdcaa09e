"""TiCDC's craft protocol (compact, columnar, binary) as a cdcwire codec plugin.

    import cdcwire
    msgs = cdcwire.encode("file:///tmp/out/orders?protocol=craft&max-batch-size=64", events)
    back = cdcwire.decode("craft", msgs)
"""

from __future__ import annotations

from .codec import CraftCodec
from .decoder import CraftDecoder
from .encoder import CraftEncoder

__all__ = ["CraftCodec", "CraftDecoder", "CraftEncoder"]
