"""Entry point of the ``canal-json`` protocol plugin."""

from __future__ import annotations

from typing import Callable

from cdcwire import hookimpl

from .codec import CanalJSONCodec


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(CanalJSONCodec())
