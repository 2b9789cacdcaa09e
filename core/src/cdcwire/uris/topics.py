"""Topic names and topic expressions: ``[prefix][{schema}][middle][{table}][suffix]``.

Both follow the reference (tiflow >= 7.5, ticdc): ``{schema}`` is optional, an expression
without a placeholder is a fixed topic, characters Kafka forbids in a substituted name become
``_``, a result of exactly ``.`` or ``..`` becomes ``_`` or ``__`` (a topic ``..`` would also be
a path outside a file sink's directory), and no topic is longer than 249 characters.
"""

from __future__ import annotations

import re
from typing import Optional

from ..foundation.errors import DispatchError

#: Kafka's limit on a topic name's length.
MAX_TOPIC_LENGTH = 249
_LEGAL = "letters, digits, '.', '_' and '-'"
_PLAIN = r"[A-Za-z0-9._-]*"
_EXPR_RE = re.compile(rf"{_PLAIN}(?:\{{schema\}})?(?:{_PLAIN}\{{table\}})?{_PLAIN}", re.ASCII)
_TOPIC_RE = re.compile(r"[A-Za-z0-9._-]+", re.ASCII)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]", re.ASCII)
_SHOWN_HALF = 40
#: The names Kafka forbids although their characters are legal, and what the reference makes of them.
_DOTS = {".": "_", "..": "__"}


def topic_name_problem(name: str) -> Optional[str]:
    """Why ``name`` cannot be a topic (Kafka's rules), or None when it can."""
    if not name:
        return "a topic name cannot be empty"
    if len(name) > MAX_TOPIC_LENGTH:
        return f"a topic name is at most {MAX_TOPIC_LENGTH} characters, this one has {len(name)}"
    if not _TOPIC_RE.fullmatch(name):
        return f"a topic name is made of {_LEGAL}"
    if name in _DOTS:
        return "a topic cannot be named '.' or '..'"
    return None


def _table_name(schema: str, table: str) -> str:
    """``schema.table`` for an error, its middle cut out when it is too long to read."""
    name = f"{schema}.{table}"
    if len(name) <= 2 * _SHOWN_HALF:
        return name
    return f"{name[:_SHOWN_HALF]}...{name[-_SHOWN_HALF:]} ({len(name)} characters)"


class TopicExpression:
    """A validated topic expression that renders a topic name for a schema and table."""

    __slots__ = ("text", "has_schema", "has_table")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str) or not _EXPR_RE.fullmatch(text):
            raise DispatchError(
                f"topic expression {text!r} is invalid: it must look like"
                " [prefix][{schema}][middle][{table}][suffix] with prefix, middle and suffix"
                f" made of {_LEGAL}"
            )
        fixed = len(text.replace("{schema}", "").replace("{table}", ""))
        if fixed > MAX_TOPIC_LENGTH:
            raise DispatchError(
                f"topic expression {text[:40]!r}... has {fixed} characters besides its placeholders;"
                f" a topic name is at most {MAX_TOPIC_LENGTH}"
            )
        self.text = text
        self.has_schema = "{schema}" in text
        self.has_table = "{table}" in text

    @property
    def is_fixed(self) -> bool:
        """An expression without placeholders names one topic for every table (``hard_code_topic``)."""
        return not (self.has_schema or self.has_table)

    def render(self, schema: str, table: str) -> str:
        """The topic of ``schema.table``; DispatchError naming them when it would pass 249 characters."""
        # names are made safe before they go in, so a schema named '{table}' is not substituted again
        safe_schema, safe_table = _UNSAFE.sub("_", schema), _UNSAFE.sub("_", table)
        topic = self.text.replace("{schema}", safe_schema).replace("{table}", safe_table)
        topic = _DOTS.get(topic, topic)
        if not topic or len(topic) > MAX_TOPIC_LENGTH:
            raise DispatchError(
                f"topic expression {self.text!r} gives table {_table_name(schema, table)} a topic of"
                f" {len(topic)} characters; a topic name has 1 to {MAX_TOPIC_LENGTH}"
            )
        return topic

    def __repr__(self) -> str:
        return f"TopicExpression({self.text!r})"
