"""Core tests run without any protocol plugin: they see the built-in transports
and ``echo-json`` (see echo_codec.py) in a registry of their own."""

from __future__ import annotations

import pytest
from echo_codec import EchoPlugin

from cdcwire.sinks import installed
from cdcwire.contract.registry import PluginInfo, Registry


def registry_with_echo() -> Registry:
    from cdcwire.transports import builtin

    reg = Registry()
    reg.add_plugin(builtin, PluginInfo("builtin", "cdcwire", "test"))
    reg.add_plugin(EchoPlugin(), PluginInfo("echo-json", "cdcwire-echo-test", "1.0"))
    return reg


@pytest.fixture(autouse=True)
def echo_registry(monkeypatch: pytest.MonkeyPatch) -> Registry:
    """Every core test sees exactly the built-in transports and the echo-json codec."""
    reg = registry_with_echo()
    monkeypatch.setattr(installed, "_REGISTRY", reg)
    return reg
