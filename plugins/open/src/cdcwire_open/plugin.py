"""Entry point ``open-protocol`` in the ``cdcwire`` group: registers the codec."""

from __future__ import annotations

from typing import Callable

from cdcwire.plugin_api import hookimpl

from .codec import OpenProtocolCodec

#: The plugin API this plugin was written for (see cdcwire.plugin_api).
cdcwire_plugin_api = "1.17"


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(OpenProtocolCodec())
