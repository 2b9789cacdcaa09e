"""A storage sink's location and parameters, as TiCDC's sink URI writes them.

``s3://bucket/prefix?protocol=csv&endpoint=...&access-key=...`` reads as TiCDC's own sink
URI (its S3 options are the claim-check storage's: :mod:`cdcwire.large_messages.storage`,
the one place ``s3://`` and local paths are opened). A local directory is
``local:///abs/dir?protocol=csv``: TiCDC writes ``file:///dir``, but cdcwire's ``file://``
is its own framed message log (``file:///dir/topic?protocol=...``), so the storage layout
takes TiCDC's other spelling of a local storage, ``local://``.

The csv options of TiCDC's changefeed config (``[sink.csv]``, ``[sink] terminator``,
``date-separator``) are URI parameters here, under TiCDC's names.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import unquote, urlencode, urlsplit

from ...foundation.errors import SinkURIError
from ...large_messages.storage import S3_PARAMETERS, Storage
from ...foundation.params import Parameter, shown_value
from ...foundation.redact import redact_url
from ...uris.sink_uri import query_pairs

log = logging.getLogger(__name__)

#: The layouts already warned of (by display and parameter): the write-time warning is said once.
_WARNED: set[tuple[str, str]] = set()

#: The schemes that name a storage-sink layout.
STORAGE_SCHEMES = ("s3", "local")

_DELIMITER_CHARS = 3


def _delimiter_problem(value: str) -> str | None:
    if not 1 <= len(value) <= _DELIMITER_CHARS:
        return f"must be 1 to {_DELIMITER_CHARS} characters (TiCDC's rule), got {shown_value(value)}"
    if any(c in "\r\n" for c in value):
        return "must not hold a line break"
    return None


def _quote_problem(value: str) -> str | None:
    if len(value) > 1:
        return f"must be one character or empty (no quoting), got {shown_value(value)}"
    return None


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("protocol", "choice", None, "the storage sink's file format", choices=("csv", "canal-json")),
    Parameter("date-separator", "choice", "day", "date directories under each table version (TiCDC's default: day)",
              choices=("none", "year", "month", "day")),
    Parameter("use-table-id-as-path", "bool", False, "data under <tableID>/<version>/ instead of <schema>/<table>/"),
    Parameter("enable-partition-separator", "bool", True, "a partitioned table's partitions in directories of their own"),
    Parameter("file-index-digit", "int", 20, "digits of a data file's index (CDC000001.csv: 6)", minimum=6, maximum=20),
    Parameter("delimiter", "str", ",", "csv field delimiter, 1 to 3 characters", check=_delimiter_problem),
    Parameter("quote", "str", '"', "csv quote character; empty: no quoting, backslash escapes", check=_quote_problem),
    Parameter("null", "str", "\\N", "csv text of NULL"),
    Parameter("include-commit-ts", "bool", False, "csv rows carry the commit ts after the schema name"),
    Parameter("output-old-value", "bool", False, "csv rows carry is-update; an update is a D row then an I row"),
    Parameter("output-field-header", "bool", False, "each csv file starts with a header record"),
    Parameter("binary-encoding-method", "choice", "base64", "csv text of binary values", choices=("base64", "hex")),
    Parameter("terminator", "str", "\r\n", "the line terminator TiCDC wrote ([sink] terminator)"),
    Parameter("enable-tidb-extension", "bool", True, "canal-json rows carry _tidb.commitTs (the consumer needs it)"),
    Parameter("worker-count", "int", 16, "TiCDC's write side; not used to read", minimum=1),
    Parameter("flush-interval", "str", "5s", "TiCDC's write side; not used to read"),
    Parameter("file-size", "int", 64 << 20, "bytes of a written data file: a row that would take a file past it"
              " starts the next CDC<index> (a larger row gets a file of its own); not used to read", minimum=1),
)
_DECLARED = {p.name: p for p in PARAMETERS}
_SECRETS = ("access-key", "secret-access-key", "session-token")


def shown(storage: Storage) -> str:
    """A layout's root for messages, in the spelling its URI uses: ``local:///dir`` (a ``file://``
    would read as cdcwire's own message log) or ``s3://bucket/prefix`` with its keys masked."""
    return f"local://{storage.root}" if storage.scheme == "file" else storage.display()


def shown_uri(uri: str) -> str:
    """The URI for messages and for a record of where a read came from: keys masked."""
    return redact_url(uri, _SECRETS, known_names=(*_DECLARED, *S3_PARAMETERS))


def is_storage_uri(uri: object) -> bool:
    """True for a URI of a scheme this room reads (``s3://``, ``local://``)."""
    return isinstance(uri, str) and uri.split("://", 1)[0].lower() in STORAGE_SCHEMES and "://" in uri


@dataclass(frozen=True, slots=True)
class StorageLocation:
    """The layout's root (a :class:`Storage`) and the typed parameters; no secret in its repr."""

    storage: Storage
    params: Mapping[str, Any]

    @property
    def protocol(self) -> str:
        return self.params["protocol"]

    @property
    def extension(self) -> str:
        """The data files' extension: ``.csv`` or ``.json`` (canal-json)."""
        return ".csv" if self.protocol == "csv" else ".json"

    def __getitem__(self, name: str) -> Any:
        return self.params[name]

    def commit_ts_parameter(self) -> str | None:
        """The parameter this URI turns off that puts each row's commit ts in the files (None: the
        rows carry it). A read that continues (materialize, a stream) needs it: the commit ts
        orders a key's changes and tells the rows read before from the ones not read yet."""
        needed = "include-commit-ts" if self.protocol == "csv" else "enable-tidb-extension"
        return None if self.params[needed] else needed

    def warn_if_not_continuable(self) -> None:
        """Said once per layout when it is written without each row's commit ts: ``materialize`` and
        a storage stream refuse such a layout when they read it later, so the writer hears it now."""
        needed = self.commit_ts_parameter()
        key = (self.display(), needed or "")
        if needed is None or key in _WARNED:
            return
        _WARNED.add(key)
        log.warning("%s is written without %s=true: cdcwire materialize and a storage stream cannot read it later"
                    " (they need each row's commit ts); write it with %s=true to keep that open",
                    self.display(), needed, needed)

    def display(self) -> str:
        """The location for messages: its root as its URI spells it, keys masked."""
        return shown(self.storage)

    def __repr__(self) -> str:
        return f"StorageLocation({self.display()}, protocol={self.protocol})"

    @classmethod
    def parse(cls, uri: str) -> "StorageLocation":
        """The location a storage-sink URI names, or a SinkURIError naming the parameter (never a secret)."""
        shown = shown_uri(uri)
        try:
            parts = urlsplit(uri)
        except ValueError as exc:
            raise SinkURIError(f"malformed URI {shown}: {exc}") from None
        scheme = parts.scheme.lower()
        if scheme not in STORAGE_SCHEMES:
            raise SinkURIError(f"{shown} is not a storage-sink location: use s3://bucket/prefix or local:///dir", "uri")
        layout: dict[str, str] = {}
        s3: dict[str, str] = {}
        for name, value in query_pairs(parts.query):
            if name in layout or name in s3:
                raise SinkURIError(f"parameter {name!r} is given twice", name)
            if name in S3_PARAMETERS and scheme == "s3":
                s3[name] = value
            elif name in _DECLARED:
                layout[name] = value
            else:
                known = sorted(_DECLARED) + (sorted(S3_PARAMETERS) if scheme == "s3" else [])
                raise SinkURIError(
                    f"unknown parameter {name!r} for a {scheme}:// storage-sink location (known: {', '.join(known)})",
                    name,
                )
        if "protocol" not in layout:
            raise SinkURIError(
                f"parameter 'protocol' is required for a storage-sink location: protocol=csv or protocol=canal-json"
                f" ({shown})", "protocol",
            )
        params = {name: p.parse(layout[name]) if name in layout else p.default for name, p in _DECLARED.items()}
        path = unquote(parts.path)
        if scheme == "local":
            if parts.netloc not in ("", "localhost") or not path.startswith("/"):
                raise SinkURIError(f"a local:// location needs an absolute path (local:///dir), got {shown}", "path")
            storage = Storage("file", path.rstrip("/") or "/")
        else:
            if not parts.netloc:
                raise SinkURIError(f"an s3:// location needs a bucket (s3://bucket/prefix), got {shown}", "bucket")
            root = f"s3://{parts.netloc}/{parts.path.strip('/')}"
            storage = Storage.parse(root + ("?" + urlencode(s3) if s3 else ""), "uri")
        return cls(storage, params)
