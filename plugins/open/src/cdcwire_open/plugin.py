"""Entry point ``open-protocol`` in the ``cdcwire`` group: registers the codec."""

from __future__ import annotations

from typing import Callable

from cdcwire import hookimpl

from .codec import OpenProtocolCodec


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(OpenProtocolCodec())
