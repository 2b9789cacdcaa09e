"""The default write job of a delivering transport: its task writers write with the config
the driver resolved, as it is; nothing below :mod:`cdcwire.sinks.sink` opens a URI again."""

from __future__ import annotations

import pickle

from cdcwire.model.message import Message
from cdcwire.plugin_api import PLUGIN_API_VERSION, MessageReader, MessageWriter, SinkConfig, Transport, hookimpl
from cdcwire.contract.registry import PluginInfo, Registry
from cdcwire.sinks.sink import open_sink
from echo_codec import EchoPlugin

#: What the "listing" transport's writers were given, by config (one process: no pickling to tasks here).
WRITTEN: list[tuple[SinkConfig, Message]] = []


class ListingWriter(MessageWriter):
    def __init__(self, config: SinkConfig) -> None:
        self.config = config

    def write(self, message: Message) -> None:
        WRITTEN.append((self.config, message))

    def flush(self) -> None:
        pass


class ListingTransport(Transport):
    """A delivering transport that keeps the default write job (``begin_write`` not overridden)."""

    scheme = "listing"

    def writer(self, config: SinkConfig) -> MessageWriter:
        return ListingWriter(config)

    def reader(self, config: SinkConfig) -> MessageReader:
        raise NotImplementedError("the listing transport only writes")


class ListingPlugin:
    cdcwire_plugin_api = PLUGIN_API_VERSION

    @hookimpl
    def register_transports(self, register) -> None:
        register(ListingTransport())


def test_a_task_writer_of_the_default_write_job_writes_with_the_drivers_config():
    """The transport is in a registry of the caller's own, not the process-wide one: a task
    writer that opened the URI again would not find the scheme."""
    registry = Registry()
    registry.add_plugin(ListingPlugin(), PluginInfo("listing", "cdcwire-listing-test", "1.0"))
    registry.add_plugin(EchoPlugin(), PluginInfo("echo-json", "cdcwire-echo-test", "1.0"))
    sink = open_sink("listing://here/orders?protocol=echo-json&partition-num=2", registry)
    job = pickle.loads(pickle.dumps(sink.needs_transport().begin_write(sink.config, sink.config.uri)))
    WRITTEN.clear()
    with job.task_writer() as writer:
        writer.write(Message("orders", 1, b"k", b"v"))
    assert [(config, message.partition) for config, message in WRITTEN] == [(sink.config, 1)]
