"""Make ``simple_cases`` importable under --import-mode=importlib, and let the tests run from
a checkout where ``cdcwire-simple`` is not installed: when no ``simple`` entry point loaded,
the plugin is added to the process registry as the entry point would add it."""

from __future__ import annotations

import os
import sys
from typing import Iterator

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture(autouse=True, scope="session")
def simple_registered() -> Iterator[None]:
    from cdcwire.sinks import installed
    from cdcwire.contract.registry import PluginInfo

    import cdcwire_simple.plugin

    registry = installed.get_registry()
    if all(codec.name != "simple" for codec, _ in registry.codecs()):
        registry.add_plugin(cdcwire_simple.plugin, PluginInfo("simple", "cdcwire-simple", "0.1.0"))
    yield
