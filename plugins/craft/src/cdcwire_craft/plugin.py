"""Entry point of the ``craft`` plugin: registers the codec with cdcwire."""

from __future__ import annotations

from typing import Callable

from cdcwire import hookimpl

from .codec import CraftCodec


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(CraftCodec())
