"""Entry point of the ``eventlines`` protocol plugin (``[project.entry-points.cdcwire]``)."""

from __future__ import annotations

from typing import Callable

from cdcwire.plugin_api import hookimpl

from .codec import EventLinesCodec

#: The plugin API this plugin was written for: its Java uses SureJson (1.13).
cdcwire_plugin_api = "1.14"


@hookimpl
def register_codecs(register: Callable[..., None]) -> None:
    register(EventLinesCodec())
