"""Declared sink-URI parameters: a name, a type, a default and the checks on it.

The core declares the parameters every sink shares; codecs and transports
declare their own with the same class, so one parser validates them all and
every error names the parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

from .errors import SinkURIError

#: The one boolean rule of every URI parameter, core and plugins alike (and of any other
#: boolean option text, such as a claim-check storage's ``force-path-style``): ``true`` or
#: ``false`` in any case, or ``1`` / ``0`` (which Go's strconv.ParseBool, TiCDC's parser, also
#: takes). Nothing else: ``yes``, ``on``, ``t`` would each be a second spelling of one idea.
_TRUE = {"true", "1"}
_FALSE = {"false", "0"}
#: What the error of a value outside the rule says is accepted: exactly ``_TRUE`` and ``_FALSE``.
BOOLEAN_FORMS = "true or false (any case), or 1 or 0"
#: What Go's strconv.Atoi (TiCDC's parser) takes: an optional sign and ASCII digits, nothing else.
#: Python's int() would also take '1_0', ' 10 ' and Arabic-Indic digits: none of them is a number here.
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: Longer digit strings are out of any range; they are refused without converting them.
_MAX_DIGITS = 30
#: How much of a bad value an error quotes.
_SHOWN_CHARS = 60


def parse_boolean(raw: str) -> bool:
    """``raw`` as a boolean by the one rule (:data:`BOOLEAN_FORMS`); ValueError saying what is accepted."""
    low = raw.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"must be {BOOLEAN_FORMS}, got {shown_value(raw)}")


def shown_value(raw: str) -> str:
    """``raw`` quoted for an error message, cut short so a 400-character value does not flood it."""
    if len(raw) <= _SHOWN_CHARS:
        return repr(raw)
    return f"{raw[:_SHOWN_CHARS]!r}... ({len(raw)} characters)"


@dataclass(frozen=True, slots=True)
class Parameter:
    """A URI query parameter.

    ``kind`` is one of ``bool``, ``int``, ``str``, ``choice``; ``secret`` marks
    values that must never be printed (passwords, tokens, URLs with credentials).
    """

    name: str
    kind: str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] = ()
    minimum: Optional[int] = None
    maximum: Optional[int] = None
    secret: bool = False
    check: Optional[Callable[[Any], Optional[str]]] = field(default=None, compare=False)

    def supporting(self, *choices: str) -> "Parameter":
        """This choice parameter as a codec that implements more ``choices`` declares it: a
        plugin adds a mode to a shared parameter without the core knowing of it."""
        if self.kind != "choice":
            raise TypeError(f"parameter {self.name!r} has no choices to extend")
        return replace(self, choices=self.choices + tuple(c for c in choices if c not in self.choices))

    def parse(self, raw: str) -> Any:
        """Turn the raw text of the URI into a typed value, or raise SinkURIError naming the parameter."""
        shown = "<redacted>" if self.secret else shown_value(raw)
        if "\0" in raw:
            # C libraries (librdkafka) cut a string at a NUL and file systems refuse one:
            # a password or a path holding %00 would silently be another one, or fail late.
            where = "" if self.secret else f" at position {raw.index(chr(0))}"
            raise SinkURIError(
                f"parameter {self.name!r} holds a NUL byte (%00){where}: no value can hold one", self.name
            )
        if self.kind == "bool":
            low = raw.strip().lower()
            if low not in _TRUE and low not in _FALSE:
                raise SinkURIError(f"parameter {self.name!r} must be {BOOLEAN_FORMS}, got {shown}", self.name)
            value: Any = parse_boolean(raw)
        elif self.kind == "int":
            value = self._integer(raw, shown)
        elif self.kind == "choice":
            value = raw.strip().lower()
            if value not in self.choices:
                raise SinkURIError(
                    f"parameter {self.name!r} must be one of {', '.join(self.choices)}; got {shown}",
                    self.name,
                )
        else:
            value = raw
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise SinkURIError(f"parameter {self.name!r}: {problem}", self.name)
        return value

    def _integer(self, raw: str, shown: str) -> int:
        if not _INTEGER.fullmatch(raw):
            raise SinkURIError(
                f"parameter {self.name!r} must be an integer (ASCII digits), got {shown}", self.name
            )
        if len(raw.lstrip("+-").lstrip("0")) > _MAX_DIGITS:
            bound = f"<= {self.maximum}" if self.maximum is not None else f"at most {_MAX_DIGITS} digits long"
            raise SinkURIError(f"parameter {self.name!r} must be {bound}, got {shown}", self.name)
        value = int(raw, 10)
        if self.minimum is not None and value < self.minimum:
            raise SinkURIError(f"parameter {self.name!r} must be >= {self.minimum}, got {value}", self.name)
        if self.maximum is not None and value > self.maximum:
            raise SinkURIError(f"parameter {self.name!r} must be <= {self.maximum}, got {value}", self.name)
        return value


# --- parameters every sink shares --------------------------------------------------------

PROTOCOL = Parameter("protocol", "str", None, "codec name: any installed protocol plugin")
PARTITION_NUM = Parameter(
    "partition-num", "int", 3,
    "partitions to use: 3 for a new topic; more than an existing topic has is an error",
    minimum=1, maximum=1 << 20,
)
MAX_MESSAGE_BYTES = Parameter(
    "max-message-bytes", "int", 10 * 1024 * 1024,
    "upper bound for one message: key + value + the overhead the reference reserves"
    " (at most 1000000000, librdkafka's message.max.bytes ceiling)",
    minimum=64, maximum=1_000_000_000,
)
COMPRESSION = Parameter(
    "compression", "choice", "none", "Kafka producer compression",
    choices=("none", "gzip", "snappy", "lz4", "zstd"),
)
PARTITION_RULE = Parameter(
    "partition", "choice", "default", "partition rule for every table (rules file overrides)",
    choices=("default", "table", "ts", "index-value", "rowid", "columns"),
)
PARTITION_COLUMNS = Parameter(
    "partition-columns", "str", None, "comma-separated column names for partition=columns"
)
TOPIC_RULE = Parameter("topic-rule", "str", None, "topic expression, e.g. cdc_{schema}_{table}")
DISPATCH_RULES = Parameter(
    "dispatch-rules", "str", None, "path of a TOML file of [[dispatchers]] and [[column-selectors]]"
)
OUTPUT_RAW_CHANGE_EVENT = Parameter(
    "output-raw-change-event", "bool", False,
    "a key-changing update stays one update, dispatched by its new image (default: delete + insert,"
    " each by its own key)",
)

SHARED_PARAMETERS: tuple[Parameter, ...] = (
    PROTOCOL,
    PARTITION_NUM,
    MAX_MESSAGE_BYTES,
    COMPRESSION,
    PARTITION_RULE,
    PARTITION_COLUMNS,
    TOPIC_RULE,
    DISPATCH_RULES,
    OUTPUT_RAW_CHANGE_EVENT,
)

# --- parameters several codecs declare (each codec lists the ones it honours) ------------

MAX_BATCH_SIZE = Parameter(
    "max-batch-size", "int", 16, "most events in one message", minimum=1, maximum=1 << 20
)
ENABLE_TIDB_EXTENSION = Parameter(
    "enable-tidb-extension", "bool", False, "add TiDB fields (commit ts, watermarks)"
)
ONLY_OUTPUT_UPDATED_COLUMNS = Parameter(
    "only-output-updated-columns", "bool", False, "drop unchanged columns from the old image"
)
DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS = Parameter(
    "delete-only-output-handle-key-columns", "bool", False, "deletes carry only handle-key columns"
)
#: Its choices beyond ``none`` come from the codecs: each declares
#: ``LARGE_MESSAGE_HANDLE_OPTION.supporting(...)`` with the modes it implements.
LARGE_MESSAGE_HANDLE_OPTION = Parameter(
    "large-message-handle-option", "choice", "none",
    "what to do with an event larger than max-message-bytes",
    choices=("none",),
)
LARGE_MESSAGE_HANDLE_COMPRESSION = Parameter(
    "large-message-handle-compression", "choice", "none",
    "compress every message value (snappy block, lz4 frame) before the size check; readers decompress"
    " every value with the same setting",
    choices=("none", "snappy", "lz4"),
)
MAX_DECOMPRESSED_BYTES = Parameter(
    "max-decompressed-bytes", "int", 64 * 1024 * 1024,
    "readers: the most one compressed value may decompress to; a value that says it holds more is"
    " refused before it is decompressed (a decompression bomb)",
    minimum=1,
)
CLAIM_CHECK_STORAGE_URI = Parameter(
    "claim-check-storage-uri", "str", None,
    "where large-message-handle-option=claim-check stores whole messages (file:///dir or"
    " s3://bucket/prefix?endpoint=...), URL-encoded; readers fetch claim-checked messages from it",
)
CLAIM_CHECK_RAW_VALUE = Parameter(
    "claim-check-raw-value", "bool", False,
    "store the raw message value instead of the {key, value} JSON object (not for open-protocol)",
)
#: What a codec that implements claim-check and compression declares, beside
#: ``LARGE_MESSAGE_HANDLE_OPTION.supporting(...)``.
LARGE_MESSAGE_PARAMETERS: tuple[Parameter, ...] = (
    LARGE_MESSAGE_HANDLE_COMPRESSION,
    MAX_DECOMPRESSED_BYTES,
    CLAIM_CHECK_STORAGE_URI,
    CLAIM_CHECK_RAW_VALUE,
)
