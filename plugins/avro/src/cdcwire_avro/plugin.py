"""Entry point of the ``avro`` plugin: registers the codec with cdcwire."""

from __future__ import annotations

from typing import Callable

from cdcwire import hookimpl

from .codec import AvroCodec


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(AvroCodec())
