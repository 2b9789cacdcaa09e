"""TiCDC Open Protocol for cdcwire: ``protocol=open-protocol`` (alias ``default``).

Key = u64 BE version 1, then per event [u64 BE length, key JSON]; value = per
event [u64 BE length, value JSON]. See docs/sink-uris.md for parameters and choices.
"""

from __future__ import annotations

from .codec import OpenProtocolCodec
from .decoder import OpenProtocolDecoder
from .encoder import OpenProtocolEncoder
from .options import ENABLE_OLD_VALUE, OpenOptions

__all__ = ["ENABLE_OLD_VALUE", "OpenOptions", "OpenProtocolCodec", "OpenProtocolDecoder", "OpenProtocolEncoder"]
