"""Entry point of the ``simple`` protocol plugin."""

from __future__ import annotations

from typing import Callable

from cdcwire.plugin_api import hookimpl

from .codec import SimpleCodec

#: The plugin API this plugin was written for (see cdcwire.plugin_api).
cdcwire_plugin_api = "1.18"


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(SimpleCodec())
