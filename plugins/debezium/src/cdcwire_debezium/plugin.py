"""Entry point of the ``debezium`` protocol plugin."""

from __future__ import annotations

from typing import Callable

from cdcwire.plugin_api import hookimpl

from .codec import DebeziumCodec

#: The plugin API this plugin was written for (see cdcwire.plugin_api).
cdcwire_plugin_api = "1.17"


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(DebeziumCodec())
