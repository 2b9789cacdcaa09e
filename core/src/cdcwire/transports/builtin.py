"""The core's own plugin: it registers the built-in transports through the same hooks as everyone."""

from __future__ import annotations

from ..hookspecs import hookimpl
from .file import FileTransport
from .kafka import KafkaTransport


@hookimpl
def register_transports(register) -> None:
    register(FileTransport())
    register(KafkaTransport())
