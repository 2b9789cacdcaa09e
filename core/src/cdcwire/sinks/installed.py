"""The process-wide plugin registry: the core's built-in transports and the installed plugins.

It sits above :mod:`cdcwire.contract.registry` and :mod:`cdcwire.transports`, so the registry
(what a plugin registers into) never imports the transports that register into it: the
built-in ones are added here as one more plugin, through the same hooks as everyone's,
and they always load (``CDCWIRE_PLUGINS`` restricts the entry-point plugins only).
"""

from __future__ import annotations

from importlib import metadata
from typing import Optional

from ..contract.registry import PluginInfo, Registry
from ..transports import builtin

_REGISTRY: Optional[Registry] = None


def core_info() -> PluginInfo:
    """The core's own plugin, as ``cdcwire plugins`` lists it."""
    try:
        version = metadata.version("cdcwire")
    except metadata.PackageNotFoundError:  # running from a source tree
        version = "0+unknown"
    return PluginInfo("builtin", "cdcwire", version)


def build_registry() -> Registry:
    """A fresh registry: built-in transports plus the allowed entry-point plugins."""
    reg = Registry()
    reg.add_plugin(builtin, core_info())
    reg.load_entry_points()
    return reg


def get_registry() -> Registry:
    """The process-wide registry, built on first use."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = build_registry()
    return _REGISTRY


def reset_registry() -> None:
    """Forget the loaded plugins (tests that install a plugin or change CDCWIRE_PLUGINS)."""
    global _REGISTRY
    _REGISTRY = None
