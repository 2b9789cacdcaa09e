"""The core's own plugin: it registers the built-in transports through the same hooks as everyone."""

from __future__ import annotations

from ..contract.hookspecs import hookimpl
from ..plugin_api import PLUGIN_API_VERSION
from .file.transport import FileTransport
from .kafka.transport import KafkaTransport

#: The core's own plugin is written for the plugin API it ships.
cdcwire_plugin_api = PLUGIN_API_VERSION


@hookimpl
def register_transports(register) -> None:
    register(FileTransport())
    register(KafkaTransport())
