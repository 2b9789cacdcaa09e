"""Topic expressions: ``[prefix]{schema}[middle][{table}][suffix]``."""

from __future__ import annotations

import re

from ..errors import DispatchError

_PLAIN = r"[A-Za-z0-9._-]*"
_EXPR_RE = re.compile(rf"^{_PLAIN}\{{schema\}}(?:{_PLAIN}\{{table\}})?{_PLAIN}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class TopicExpression:
    """A validated topic expression that renders a topic name for a schema and table."""

    __slots__ = ("text", "has_table")

    def __init__(self, text: str) -> None:
        if not _EXPR_RE.match(text):
            raise DispatchError(
                f"topic expression {text!r} is invalid: it must look like"
                " [prefix]{schema}[middle][{table}][suffix] with prefix, middle and suffix"
                " made of letters, digits, '.', '_' and '-'"
            )
        self.text = text
        self.has_table = "{table}" in text

    def render(self, schema: str, table: str) -> str:
        topic = self.text.replace("{schema}", schema).replace("{table}", table)
        return _UNSAFE.sub("_", topic)

    def __repr__(self) -> str:
        return f"TopicExpression({self.text!r})"
