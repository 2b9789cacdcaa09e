"""Entry point of the ``craft`` plugin: registers the codec with cdcwire."""

from __future__ import annotations

from typing import Callable

from cdcwire.plugin_api import hookimpl

from .codec import CraftCodec

#: The plugin API this plugin was written for (see cdcwire.plugin_api).
cdcwire_plugin_api = "1.17"


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(CraftCodec())
