"""A Spark job resolves its sink once on the driver: what the driver resolved is what it plans with."""

from __future__ import annotations

import cdcwire
from cdcwire import Message
from cdcwire.sinks import installed as registry_module
from cdcwire.contract.registry import PluginInfo, Registry
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.message_ranges import MessageRange, plan_message_ranges


def test_planning_ranges_uses_the_sink_the_driver_resolved_without_resolving_its_uri_again(tmp_path, monkeypatch):
    uri = f"file://{tmp_path}/orders?protocol=echo-json&partition-num=1"
    cdcwire.write(uri, [Message("orders", 0, None, b"a"), Message("orders", 0, None, b"b")])
    sink = open_sink(uri)
    from cdcwire.transports import builtin

    without_echo = Registry()  # resolving the URI again from here would fail: no echo-json
    without_echo.add_plugin(builtin, PluginInfo("builtin", "cdcwire", "test"))
    monkeypatch.setattr(registry_module, "_REGISTRY", without_echo)
    assert plan_message_ranges(sink) == [MessageRange("orders", 0, 0, 2)]
