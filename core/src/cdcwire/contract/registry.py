"""The plugin registry: codecs and transports, filled by plugins through pluggy hooks.

Plugins are found in the ``cdcwire`` entry-point group. ``CDCWIRE_PLUGINS``
(a comma-separated list of entry-point names) restricts which load. The core's own
transports come in as a plugin too, added by :mod:`cdcwire.sinks.installed` (which builds the
process-wide registry): this module knows no transport, so it sits below them.

An installed plugin that cannot load (no or another plugin API declaration, an import
error, a hook that fails) is left out with one warning, not allowed to stop every
command: the other protocols keep working, and its refusal is raised when what it
would provide (its entry-point name, usually its protocol) is asked for.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Optional

import pluggy

from . import hookspecs
from .codec import Codec
from ..foundation.errors import PluginError, SinkURIError
from .api_version import PLUGIN_API_ATTRIBUTE, PLUGIN_API_VERSION
from .transport import Transport

ENTRY_POINT_GROUP = "cdcwire"
ALLOW_ENV = "CDCWIRE_PLUGINS"

log = logging.getLogger(__name__)
#: Refusals already warned about: once per process, however often a registry is built.
_WARNED: set[str] = set()


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """Where a registered codec or transport came from."""

    name: str
    distribution: str
    version: str


@dataclass(frozen=True, slots=True)
class RefusedPlugin:
    """An installed plugin left out: ``reason`` is the refusal, ``names`` the protocol names
    and URI schemes (lower case) it would have provided, as far as they are known."""

    plugin: PluginInfo
    reason: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Registered:
    item: Any
    plugin: PluginInfo


class Registry:
    """Holds the codecs and transports of the loaded plugins."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self._codecs: dict[str, Registered] = {}
        self._aliases: dict[str, str] = {}
        self._transports: dict[str, Registered] = {}
        self.plugins: list[PluginInfo] = []
        self.refused: list[RefusedPlugin] = []

    # -- loading -------------------------------------------------------------------------

    def add_plugin(self, plugin: object, info: PluginInfo) -> None:
        """Register one plugin object and collect what its hooks register: all of it, or,
        when it is refused (PluginError) or a hook fails, none of it."""
        check_plugin_api(plugin, info)
        saved = (dict(self._codecs), dict(self._aliases), dict(self._transports))
        try:
            self.pm.register(plugin, name=f"{info.distribution}:{info.name}")
            self.pm.check_pending()
            others = [p for p in self.pm.get_plugins() if p is not plugin]
            self.pm.subset_hook_caller("register_codecs", others)(
                register=lambda codec: self._add_codec(codec, info)
            )
            self.pm.subset_hook_caller("register_transports", others)(
                register=lambda transport: self._add_transport(transport, info)
            )
        except BaseException:
            self._codecs, self._aliases, self._transports = saved
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
            raise
        self.plugins.append(info)

    def refuse(self, info: PluginInfo, reason: str, names: tuple[str, ...] = ()) -> None:
        """Leave a plugin out: remember why and what it would have provided, warn once."""
        self.refused.append(RefusedPlugin(info, reason, tuple(n.lower() for n in names)))
        if reason not in _WARNED:
            _WARNED.add(reason)
            log.warning("cdcwire left a plugin out: %s (see `cdcwire plugins`)", reason)

    def load_entry_points(self) -> None:
        allow = os.environ.get(ALLOW_ENV)
        allowed = None if allow is None else {n.strip() for n in allow.split(",") if n.strip()}
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if allowed is not None and ep.name not in allowed:
                continue
            dist = ep.dist.name if ep.dist is not None else "?"
            version = ep.dist.version if ep.dist is not None else "?"
            info = PluginInfo(ep.name, dist, version)
            try:
                plugin = ep.load()
            except Exception as exc:  # a broken plugin must say which one it is
                self.refuse(info, f"plugin {ep.name!r} from {dist} {version} failed to load: {_one_line(exc)}", (ep.name,))
                continue
            try:
                self.add_plugin(plugin, info)
            except PluginError as exc:
                self.refuse(info, str(exc), (ep.name,))
            except Exception as exc:  # a hook of the plugin failed
                self.refuse(info, f"plugin {ep.name!r} from {dist} {version} failed to register: {_one_line(exc)}", (ep.name,))

    def _add_codec(self, codec: Codec, info: PluginInfo) -> None:
        if not isinstance(codec, Codec):
            raise PluginError(f"{info.distribution} registered {codec!r}, which is not a cdcwire Codec")
        for name in (codec.name, *codec.aliases):
            key = name.lower()
            owner = self._aliases.get(key)
            if owner is not None:
                first = self._codecs[owner].plugin
                raise PluginError(
                    f"protocol {name!r} is registered twice: by {first.distribution} {first.version}"
                    f" and by {info.distribution} {info.version}"
                )
            self._aliases[key] = codec.name
        self._codecs[codec.name] = Registered(codec, info)

    def _add_transport(self, transport: Transport, info: PluginInfo) -> None:
        if not isinstance(transport, Transport):
            raise PluginError(f"{info.distribution} registered {transport!r}, which is not a cdcwire Transport")
        key = transport.scheme.lower()
        if key in self._transports:
            first = self._transports[key].plugin
            raise PluginError(
                f"transport scheme {key!r} is registered twice: by {first.distribution}"
                f" and by {info.distribution}"
            )
        self._transports[key] = Registered(transport, info)

    # -- lookup --------------------------------------------------------------------------

    def protocol_names(self) -> list[str]:
        return sorted(self._codecs)

    def codec(self, name: str) -> Codec:
        key = self._aliases.get(name.strip().lower())
        if key is None:
            self._raise_refusal(name)
            installed = ", ".join(self.protocol_names()) or "none"
            raise SinkURIError(
                f"unknown protocol {name!r}{self._did_you_mean(name)}; installed protocols: {installed}"
                f"{self._refused_note()}", "protocol"
            )
        return self._codecs[key].item

    def _did_you_mean(self, name: str) -> str:
        """``; did you mean 'canal-json'?`` for a near miss (``canal_json``), as a misspelt parameter gets."""
        import difflib

        key = name.strip().lower()
        close = difflib.get_close_matches(key.replace("_", "-"), list(self._aliases), n=1, cutoff=0.75)
        return f"; did you mean {close[0]!r}?" if close else ""

    def _raise_refusal(self, name: str) -> None:
        """Raise the refusal of the left-out plugin that would have provided ``name``, if one would."""
        key = name.strip().lower()
        for refused in self.refused:
            if key in refused.names:
                raise PluginError(refused.reason)

    def _refused_note(self) -> str:
        if not self.refused:
            return ""
        left_out = ", ".join(f"{r.plugin.distribution} {r.plugin.version}" for r in self.refused)
        return f"; plugins left out (see `cdcwire plugins`): {left_out}"

    def codec_info(self, name: str) -> PluginInfo:
        return self._codecs[self.codec(name).name].plugin

    def codecs(self) -> list[tuple[Codec, PluginInfo]]:
        return [(r.item, r.plugin) for _, r in sorted(self._codecs.items())]

    def transport(self, scheme: str) -> Transport:
        reg = self._transports.get(scheme.lower())
        if reg is None:
            self._raise_refusal(scheme)
            known = ", ".join(sorted(self._transports)) or "none"
            raise SinkURIError(
                f"unknown URI scheme {scheme!r}; installed transports: {known}{self._refused_note()}", "scheme"
            )
        return reg.item

    def transports(self) -> list[tuple[Transport, PluginInfo]]:
        return [(r.item, r.plugin) for _, r in sorted(self._transports.items())]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _version(text: str) -> Optional[tuple[int, int]]:
    major, _, minor = text.partition(".")
    if major.isascii() and major.isdigit() and (minor == "" or minor.isascii() and minor.isdigit()):
        return int(major), int(minor or 0)
    return None


def check_plugin_api(plugin: object, info: PluginInfo) -> None:
    """Refuse a plugin written for another plugin API than this core's (see
    :mod:`cdcwire.plugin_api`): same major version, a minor version no newer than ours."""
    declared = getattr(plugin, PLUGIN_API_ATTRIBUTE, None)
    where = f"plugin {info.name!r} from {info.distribution} {info.version}"
    if declared is None:
        raise PluginError(
            f"{where} does not say which cdcwire plugin API it was written for: its entry-point module"
            f" must set {PLUGIN_API_ATTRIBUTE} = {PLUGIN_API_VERSION!r} (this core's version) and import"
            " only from cdcwire.plugin_api"
        )
    wanted = _version(str(declared))
    ours = _version(PLUGIN_API_VERSION)
    assert ours is not None
    if wanted is None:
        raise PluginError(
            f"{where} declares {PLUGIN_API_ATTRIBUTE} = {declared!r}, not a MAJOR.MINOR version"
        )
    if wanted[0] != ours[0] or wanted[1] > ours[1]:
        raise PluginError(
            f"{where} was written for cdcwire plugin API {declared}, this cdcwire offers"
            f" {PLUGIN_API_VERSION}: install a version of {info.distribution} made for plugin API"
            f" {ours[0]}.x, or a cdcwire that"
            f" offers {declared}"
        )
