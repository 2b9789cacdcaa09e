"""Entry point of the ``avro`` plugin: registers the codec with cdcwire."""

from __future__ import annotations

from typing import Callable

from cdcwire.plugin_api import hookimpl

from .codec import AvroCodec

#: The plugin API this plugin was written for (see cdcwire.plugin_api).
cdcwire_plugin_api = "1.16"


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(AvroCodec())
