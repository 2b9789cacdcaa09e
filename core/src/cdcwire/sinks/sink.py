"""A sink: a plain :class:`~cdcwire.uris.sink_uri.SinkConfig` resolved with the plugin registry
into the codec and the transport that serve it.

The config is data (it pickles to Spark's executors, codecs and transports read it);
the codec and transport are live objects from the registry. Keeping them apart breaks
the loop a config holding its own codec made (a codec taking a config that holds a
codec), and lets an executor resolve a config with its own registry. Resolving is
where a rules file is read and where the codec and transport check the parameters'
combinations; taking the URI apart (:func:`~cdcwire.uris.sink_uri.split_sink_uri`) reads
nothing.

This module is the one place a URI (or a protocol name) becomes a :class:`Sink`: the
layers below it (sink_uri, codec, transport, registry, transports) take a resolved
:class:`SinkConfig` and never open a URI themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Optional, Union

from ..contract.codec import Codec
from ..dispatch.rules import rules_from_params
from ..foundation.errors import DispatchError, SinkURIError
from .installed import get_registry
from ..uris.sink_uri import SinkConfig, SinkURI, split_sink_uri
from ..contract.transport import Transport
from ..transports.storage.location import STORAGE_SCHEMES

if TYPE_CHECKING:
    from ..contract.registry import Registry


@dataclass(frozen=True, slots=True)
class Sink:
    """A config with the codec and the transport that serve it (``transport`` is None for a
    bare protocol name: decoding messages the caller already holds needs none)."""

    config: SinkConfig
    codec: Codec
    transport: Optional[Transport]

    @property
    def topic(self) -> str:
        return self.config.topic

    def needs_transport(self) -> Transport:
        """The transport, or a SinkURIError: a bare protocol name cannot write or read."""
        if self.transport is None:
            raise SinkURIError(
                f"protocol {self.config.protocol!r} alone names no place to write or read: give a sink URI"
                " (file:///dir/topic?protocol=... or kafka://host:port/topic?protocol=...)",
                "uri",
            )
        return self.transport

    def __repr__(self) -> str:
        return f"Sink({self.config.redacted_uri})"

    __str__ = __repr__


#: What names a sink: a URI or a bare protocol name (text), a config (say one pickled to an
#: executor) or a sink already opened. A taken-apart :class:`SinkURI` goes to :func:`resolve_sink`.
SinkLike = Union[str, SinkConfig, Sink]


def _registry(registry: Optional["Registry"]) -> "Registry":
    return registry if registry is not None else get_registry()


def open_sink(target: SinkLike, registry: Optional["Registry"] = None) -> Sink:
    """The sink a URI, a config or a bare protocol name names (a sink is given back as it is).

    A URI goes down once: taken apart (:func:`~cdcwire.uris.sink_uri.split_sink_uri`), its
    transport and codec looked up, its parameters typed against what those two declare, then
    built (rules file read, combinations checked). A :class:`SinkConfig` (say one pickled to an
    executor) is joined again with the codec and transport of ``registry`` (the process-wide
    one by default).
    """
    if isinstance(target, Sink):
        return target
    reg = _registry(registry)
    if isinstance(target, SinkConfig):
        transport = reg.transport(target.scheme) if target.scheme else None
        return Sink(target, reg.codec(target.protocol), transport)
    if isinstance(target, str) and ("://" in target or target.startswith("file:")):
        refuse_storage_location(target.split("://", 1)[0], reg)  # before it is taken apart as scheme://host/topic
        return resolve_sink(split_sink_uri(target), reg)
    if isinstance(target, str):
        return protocol_sink(target, reg)
    if isinstance(target, SinkURI):
        raise SinkURIError(
            "open_sink takes a sink URI, a SinkConfig, a Sink or a protocol name, not a taken-apart"
            " SinkURI: resolve that with cdcwire.sinks.sink.resolve_sink(parts, registry)"
        )
    raise SinkURIError(f"not a sink URI, config or protocol name: {type(target).__name__}")


def resolve_sink(parts: SinkURI, registry: "Registry") -> Sink:
    """A taken-apart URI's sink, in one pass down: its transport and codec looked up, its
    parameters typed against what those two declare, its rules file read, the combination
    checked by both."""
    refuse_storage_location(parts.scheme, registry)
    protocol = parts.query.get("protocol")
    if not protocol:
        raise SinkURIError(
            f"parameter 'protocol' is required; installed protocols: {', '.join(registry.protocol_names())}",
            "protocol",
        )
    if protocol == "csv" and protocol not in registry.protocol_names():
        raise SinkURIError(
            "protocol 'csv' is TiCDC's storage sink format (files, not messages): read a storage-sink directory"
            " as local:///dir?protocol=csv (TiCDC writes file:///dir, but cdcwire's file:// is its own message"
            " log) or s3://bucket/prefix?protocol=csv, with cdcwire.read_storage(uri)",
            "protocol",
        )
    transport, codec = registry.transport(parts.scheme), registry.codec(protocol)
    typed = SinkConfig.typed(parts, codec.name, (*transport.parameters, *codec.parameters))
    try:
        config = replace(typed, dispatch_rules=rules_from_params(typed.params))  # a tuple, with the column selectors
    except DispatchError as exc:
        raise SinkURIError(str(exc), "dispatch-rules") from None
    transport.validate(config)
    codec.validate(config)
    return Sink(config, codec, transport)


def protocol_sink(protocol: str, registry: Optional["Registry"] = None, **params: Any) -> Sink:
    """A sink for a bare protocol name: its codec with ``params`` (text values as in a URI),
    defaults for the rest, and no transport."""
    codec = _registry(registry).codec(protocol)
    parts = SinkURI("", "", "", {"protocol": protocol, **{k: str(v) for k, v in params.items()}})
    config = SinkConfig.typed(parts, codec.name, codec.parameters)
    codec.validate(config)
    return Sink(config, codec, None)


def refuse_storage_location(scheme: str, registry: "Registry") -> None:
    """A TiCDC storage-sink location (local://, s3://) where a message sink is wanted gets its
    own line, unless a plugin installed a transport for that scheme."""
    scheme = scheme.lower()
    if scheme in STORAGE_SCHEMES and scheme not in {t.scheme for t, _ in registry.transports()}:
        raise storage_is_not_a_sink(scheme)


def storage_is_not_a_sink(scheme: str) -> SinkURIError:
    """The one line for a TiCDC storage-sink location given where a message sink is wanted."""
    return SinkURIError(
        f"{scheme}:// names a TiCDC storage-sink location (files, not messages): read it with"
        " cdcwire.read_storage, cs.read or cdcwire.follow, write it with cdcwire.write_storage, cs.write or cdcwire run"
        " (see docs/storage-sink.md)",
        "uri",
    )


def parse_sink_uri(uri: str, registry: Optional["Registry"] = None) -> SinkConfig:
    """The typed, validated config of a sink URI: :func:`open_sink`'s config.
    ``registry``: the plugin registry to resolve it with (the process-wide one by default)."""
    return open_sink(uri, registry).config


def protocol_config(protocol: str, registry: Optional["Registry"] = None, **params: Any) -> SinkConfig:
    """The config of a bare protocol name (``decode("open-protocol", ...)``): no scheme,
    location or topic; defaults for every parameter but ``params``."""
    return protocol_sink(protocol, registry, **params).config
