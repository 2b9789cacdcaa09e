"""Sink URIs: ``scheme://location/topic?protocol=NAME&param=value``, taken apart and typed.

Two steps, both plain data: :func:`split_sink_uri` takes a URI apart into a
:class:`SinkURI` (syntax only: no registry, no file), and :meth:`SinkConfig.typed`
types its parameters against the ones the core, the codec and the transport declare.
:mod:`cdcwire.sinks.sink` joins them with the registry into a :class:`~cdcwire.sinks.sink.Sink`
(config + codec + transport), and is the one place a URI becomes one: this module reads
no registry. Every error names the parameter; nothing printed ever
holds a password.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Optional
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit

from .topics import topic_name_problem
from ..foundation.errors import SinkURIError
from ..foundation.params import SHARED_PARAMETERS, Parameter, shown_value
from ..foundation.redact import MASK, inner_url, redact_url

def _shown(name: str, value: Any, secret: frozenset[str]) -> Any:
    """A parameter value as a repr may show it: secret ones masked, URLs with their
    credentials masked (``claim-check-storage-uri=s3://b/p?secret-access-key=...``)."""
    if value is None:
        return None
    if name in secret:
        return MASK
    inner = inner_url(value) if isinstance(value, str) else None
    return value if inner is None else redact_url(inner)


class ParameterValues(Mapping[str, Any]):
    """The typed parameter values of a sink: a read-only mapping whose repr masks the
    values of secret parameters (``Parameter.secret``), so printing it leaks nothing."""

    __slots__ = ("_values", "_secret")

    def __init__(self, values: dict[str, Any], secret: frozenset[str]) -> None:
        self._values = values
        self._secret = secret

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def secret_names(self) -> frozenset[str]:
        return self._secret

    def __repr__(self) -> str:
        shown = {k: _shown(k, v, self._secret) for k, v in self._values.items()}
        return f"ParameterValues({shown!r})"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class SinkURI:
    """A sink URI taken apart, nothing looked up: the scheme, where (``location``: a
    directory for ``file``, ``host:port,...`` for ``kafka``), the topic, the query's raw
    values in order, and the user info (never shown)."""

    scheme: str
    location: str
    topic: str
    query: Mapping[str, str]
    username: Optional[str] = field(default=None, repr=False)
    password: Optional[str] = field(default=None, repr=False, compare=False)
    uri: str = field(default="", repr=False, compare=False)

    def __repr__(self) -> str:
        return f"SinkURI({redact_url(self.uri)})"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class SinkConfig:
    """A sink's (or source's) settings as plain data: what codecs and transports read.

    ``params`` holds a typed value for every declared parameter (defaults filled in);
    ``given`` names the parameters that the URI set explicitly. A config for a bare
    protocol name (decoding messages a caller already holds) has no scheme, location or
    topic. It holds no live object, so it pickles to Spark's executors as it is.
    """

    scheme: str
    location: str
    topic: str
    protocol: str
    params: Mapping[str, Any]
    given: frozenset[str]
    username: Optional[str] = field(default=None, repr=False)
    password: Optional[str] = field(default=None, repr=False, compare=False)
    uri: str = field(default="", repr=False, compare=False)
    #: The dispatch rules in match order (file rules, the URI's own rule); see cdcwire.dispatch.rules.
    #: Filled when the sink is resolved (reading a rules file is not parsing).
    dispatch_rules: tuple = field(default=(), repr=False, compare=False)

    @classmethod
    def typed(cls, parts: SinkURI, protocol: str, parameters: Iterable[Parameter]) -> "SinkConfig":
        """The URI's values typed against the declared ``parameters`` (the shared ones are
        added first): an unknown parameter or a bad value is a SinkURIError naming it."""
        declared: dict[str, Parameter] = {}
        for p in (*SHARED_PARAMETERS, *parameters):
            declared.setdefault(p.name, p)
        for name in parts.query:
            if name not in declared:
                close = difflib.get_close_matches(name, declared, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                over = f" over {parts.scheme}://" if parts.scheme else ""
                raise SinkURIError(f"unknown parameter {name!r} for protocol {protocol!r}{over}{hint}", name)
        params: dict[str, Any] = {}
        for name, p in declared.items():
            params[name] = p.parse(parts.query[name]) if name in parts.query else p.default
        params["protocol"] = protocol
        secret = frozenset(name for name, p in declared.items() if p.secret)
        return cls(
            scheme=parts.scheme,
            location=parts.location,
            topic=parts.topic,
            protocol=protocol,
            params=ParameterValues(params, secret),
            given=frozenset(parts.query),
            username=parts.username,
            password=parts.password,
            uri=parts.uri,
        )

    def __getitem__(self, name: str) -> Any:
        try:
            return self.params[name]
        except KeyError:
            over = f" over {self.scheme}://" if self.scheme else ""
            raise SinkURIError(
                f"parameter {name!r} is not declared for protocol {self.protocol!r}{over}", name
            ) from None

    def get(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)

    @property
    def redacted_uri(self) -> str:
        if not self.uri:
            return f"protocol={self.protocol}"
        return redact_url(self.uri, getattr(self.params, "secret_names", ()), self.params)

    def __repr__(self) -> str:
        return f"SinkConfig({self.redacted_uri})"

    __str__ = __repr__


def split_sink_uri(uri: str) -> SinkURI:
    """Take a sink URI apart, checking its syntax: no registry is asked, no file is read."""
    if not isinstance(uri, str) or "://" not in uri and not uri.startswith("file:"):
        raise SinkURIError(f"not a sink URI (expected scheme://...): {redact_url(str(uri))}")
    try:
        parts = urlsplit(uri)
    except ValueError as exc:
        raise SinkURIError(f"malformed URI {redact_url(uri)}: {exc}") from None
    _refuse_split_userinfo(parts)
    if parts.fragment or uri.endswith("#"):
        # an unencoded '#' cuts the URI short: 'dir/my#topic' would write topic 'my', and
        # 'sasl-password=ab#cd' would log in with 'ab'. The rest is not shown: it may be a secret.
        raise SinkURIError(
            "the URI holds an unencoded '#', which ends it early: percent-encode '#' as %23 in a path or"
            " value; the part after it is not shown because it may be a secret",
            "uri",
        )
    scheme = parts.scheme.lower()
    raw: dict[str, str] = {}
    for name, value in query_pairs(parts.query):
        if name in raw:
            raise SinkURIError(f"parameter {name!r} is given twice", name)
        raw[name] = value
    location, topic, username, password = _split_location(scheme, parts)
    return SinkURI(scheme, location, topic, raw, username, password, uri)


def query_pairs(query: str) -> list[tuple[str, str]]:
    """``name=value`` pairs of the query, percent-decoded as UTF-8 strictly: ``parse_qsl`` would
    turn an invalid sequence (``%FF``) into U+FFFD, a password or a path silently different."""
    pairs = []
    for field_text in query.split("&"):
        if not field_text:
            continue
        name_text, _, value_text = field_text.partition("=")
        name = _decoded(name_text, "a parameter name")
        pairs.append((name, _decoded(value_text, f"parameter {name!r}", name)))
    return pairs


def _decoded(text: str, what: str, parameter: Optional[str] = None) -> str:
    """``text`` percent-decoded (``+`` is a space, as in any query) or SinkURIError saying which
    part is not UTF-8; the text itself is not quoted, it may be a secret."""
    try:
        return unquote_plus(text, errors="strict")
    except UnicodeDecodeError as exc:
        raise SinkURIError(
            f"{what} is not UTF-8 once percent-decoded (byte {exc.start} of the decoded value)", parameter
        ) from None


def _refuse_split_userinfo(parts: Any) -> None:
    """A password holding an unencoded ``/``, ``?`` or ``#`` ends the host part early, and the
    rest of it (``...@host``) lands in the path, the query or the fragment. Say so without
    echoing any of it: an error that quoted the "topic" or the "broker" would print the secret."""
    query_names = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)]
    if "@" in parts.path or "@" in parts.fragment or any("@" in name for name in query_names):
        raise SinkURIError(
            "the URI's user info holds an unencoded '/', '?' or '#': percent-encode the password"
            " (%2F, %3F, %23); the URI is not shown because it holds a secret",
            "userinfo",
        )


def _split_location(scheme: str, parts: Any) -> tuple[str, str, Optional[str], Optional[str]]:
    netloc = parts.netloc
    username = password = None
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, sep, pw = userinfo.partition(":")
        try:
            username = unquote(user, errors="strict")
            password = unquote(pw, errors="strict") if sep else None
        except UnicodeDecodeError:
            raise SinkURIError(
                "the URI's user info is not UTF-8 once percent-decoded; the URI is not shown because"
                " it holds a secret",
                "userinfo",
            ) from None
        if "\0" in username or "\0" in (password or ""):
            raise SinkURIError(
                "the URI's user info holds a NUL byte (%00), which the Kafka client would cut the"
                " user name or password at; the URI is not shown because it holds a secret",
                "userinfo",
            )
    try:
        path = unquote(parts.path, errors="strict")
    except UnicodeDecodeError as exc:
        raise SinkURIError(
            f"the URI's path {parts.path!r} is not UTF-8 once percent-decoded"
            f" (byte {exc.start} of the decoded path)",
            "path",
        ) from None
    if scheme == "file":
        directory, topic = _file_directory_and_topic(netloc, path)
    else:
        directory = netloc
        topic = path.strip("/")
        if "/" in topic:
            raise SinkURIError(f"the topic is one path segment, got {shown_value(topic)}", "topic")
        if not netloc:
            raise SinkURIError(f"{scheme}:// URI needs host:port before the topic", "host")
    if not topic:
        raise SinkURIError("the URI names no topic: put it as the last path segment", "topic")
    problem = topic_name_problem(topic)
    if problem:
        raise SinkURIError(f"topic {shown_value(topic)} is not a valid topic name: {problem}", "topic")
    return directory, topic, username, password


def _file_directory_and_topic(netloc: str, path: str) -> tuple[str, str]:
    """``file:///abs/dir/topic``, ``file://./rel/dir/topic`` or ``file:rel/dir/topic``.

    The topic is the last path segment; a path ending in ``/`` names a directory and no topic,
    which is refused rather than taking the directory's last part for the topic.
    """
    full = (netloc + path) if netloc not in ("", "localhost") else path
    bad = next((c for c in full if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:
        raise SinkURIError(
            f"the file path {full!r} holds the control character {bad!r} at position {full.index(bad)}",
            "path",
        )
    if full.endswith("/"):
        raise SinkURIError(
            f"the URI names no topic after the directory {shown_value(full)}: put the topic as the last"
            " path segment (file:///dir/TOPIC), without a trailing '/'",
            "topic",
        )
    directory, sep, topic = full.rpartition("/")
    if not sep:
        directory = "."
    elif not directory:
        directory = "/"  # file:///topic
    return directory, topic

