"""The plugin hook specification of cdcwire (pluggy project name ``cdcwire``).

A plugin is a module or object with ``@hookimpl`` functions whose names match
the specs below; it is found through the ``cdcwire`` entry-point group.
"""

from __future__ import annotations

from typing import Callable

import pluggy

PROJECT = "cdcwire"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_codecs(register: Callable[..., None]) -> None:
    """Register wire protocols.

    Call ``register(codec)`` once per :class:`cdcwire.contract.codec.Codec` instance the
    plugin provides. The core owns the registry: a protocol name (or alias)
    registered twice is an error naming both distributions.
    """


@hookspec
def register_transports(register: Callable[..., None]) -> None:
    """Register message transports (sink-URI schemes such as ``file`` or ``kafka``).

    Call ``register(transport)`` once per :class:`cdcwire.contract.transport.Transport`
    instance; a scheme registered twice is an error naming both distributions.
    """
