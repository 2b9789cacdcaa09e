"""Dispatch rules: ``{matcher: [globs], partition: RULE, topic: EXPR}``, first match wins.

They come from a TOML file (``[[dispatchers]]`` tables) and from the sink URI's
``partition`` / ``partition-columns`` / ``topic-rule`` parameters; an implicit
``*.*`` → ``default`` rule ends the list. The same file may hold ``[[column-selectors]]``
(see :mod:`cdcwire.dispatch.column_selectors`): they travel with the rules, as
:class:`DispatchRules`.
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from ..foundation.errors import DispatchError, SinkURIError
from .table_filter import TableFilter, TableFilterError
from .column_selectors import ColumnSelector, selectors_from_entries
from .partitioners import PARTITION_RULES, Partitioner, partitioner
from ..uris.topics import TopicExpression

log = logging.getLogger("cdcwire.dispatch")


@dataclass(frozen=True, slots=True)
class DispatchRule:
    """One rule; ``partition`` is kept lower-case (rule names are case-insensitive)."""

    matchers: tuple[str, ...]
    partition: str = "default"
    columns: tuple[str, ...] = ()
    topic: Optional[TopicExpression] = None
    _filter: TableFilter = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "partition", self.partition.lower())
        # fail at load time, not on the first row
        partitioner(self.partition, self.columns)
        try:
            object.__setattr__(self, "_filter", TableFilter(self.matchers))
        except TableFilterError as exc:
            raise DispatchError(str(exc).replace("table pattern", "matcher")) from None

    @property
    def hashes_named_columns(self) -> bool:
        """Whether placing a row needs columns beyond its handle key."""
        return self.partition == "columns"

    def matches(self, schema: str, table: str) -> bool:
        """TiDB table-filter semantics (see :mod:`cdcwire.dispatch.table_filter`)."""
        return self._filter.matches(schema, table)

    def make_partitioner(self) -> Partitioner:
        return partitioner(self.partition, self.columns)


def rule_from_mapping(entry: Any, where: str) -> DispatchRule:
    """Build a rule from one ``[[dispatchers]]`` table; errors say ``where``.

    A partition rule the reference does not know falls back to ``default`` with a warning,
    as every reference version does: one typo must not refuse a rules file TiCDC runs with.
    """
    if not isinstance(entry, dict):
        raise DispatchError(f"{where}: a dispatcher must be a table, got {type(entry).__name__}")
    unknown = set(entry) - {"matcher", "partition", "dispatcher", "topic", "columns", "index"}
    if unknown:
        raise DispatchError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    matcher = entry.get("matcher")
    if isinstance(matcher, str):
        matcher = [matcher]
    if not matcher or not isinstance(matcher, list) or not all(isinstance(m, str) and m for m in matcher):
        raise DispatchError(f"{where}: 'matcher' must be a non-empty list of 'schema.table' globs")
    if "partition" in entry and "dispatcher" in entry:
        raise DispatchError(
            f"{where}: give 'partition' or its old name 'dispatcher', not both (TiCDC refuses both too)"
        )
    # 'dispatcher' is the key's name before TiCDC 6.1; TiCDC still reads it
    partition = entry.get("partition", entry.get("dispatcher", "default"))
    if not isinstance(partition, str):
        raise DispatchError(f"{where}: 'partition' must be a string, got {type(partition).__name__}")
    columns = entry.get("columns", ())
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",") if c.strip()]
    if not isinstance(columns, (list, tuple)) or not all(isinstance(c, str) and c for c in columns):
        raise DispatchError(f"{where}: 'columns' must be a list of column names")
    if "index" in entry:
        raise DispatchError(
            f"{where}: 'index' (a named unique index) is not supported: events do not carry index"
            " definitions; use partition = \"columns\" with the index's columns"
        )
    topic = entry.get("topic")
    if topic is not None and not isinstance(topic, str):
        raise DispatchError(f"{where}: 'topic' must be a string, got {type(topic).__name__}")
    if partition.lower() not in PARTITION_RULES:
        log.warning(
            "%s: unknown partition rule %r for matcher %s; using 'default' as TiCDC does (rules: %s)",
            where, partition, list(matcher), ", ".join(PARTITION_RULES),
        )
        partition = "default"
    try:
        return DispatchRule(
            tuple(matcher),
            partition,
            tuple(columns),
            TopicExpression(topic) if topic else None,
        )
    except DispatchError as exc:
        raise DispatchError(f"{where}: {exc}") from None


class DispatchRules(tuple):
    """A sink's dispatch rules in match order, with the column selectors of its rules file.

    A tuple of :class:`DispatchRule` (what ``SinkConfig.dispatch_rules`` has always held, so
    every reader of the rules reads them as before) that also carries ``column_selectors``:
    the rules file holds both, and both decide what a table's rows become on the wire.
    """

    column_selectors: tuple[ColumnSelector, ...]

    def __new__(cls, rules: Sequence[DispatchRule] = (), column_selectors: Sequence[ColumnSelector] = ()):
        self = super().__new__(cls, rules)
        self.column_selectors = tuple(column_selectors)
        return self

    def __getnewargs__(self) -> tuple[Any, ...]:  # type: ignore[override]
        return (tuple(self), self.column_selectors)

    def __add__(self, other: Any) -> "DispatchRules":  # type: ignore[override]
        return DispatchRules((*self, *other), self.column_selectors)


def column_selectors_of(rules: Sequence[DispatchRule]) -> tuple[ColumnSelector, ...]:
    """The column selectors that came with a rule list (none for a plain list)."""
    return getattr(rules, "column_selectors", ())


def load_rules_file(path: str | Path) -> DispatchRules:
    """Read ``[[dispatchers]]`` and ``[[column-selectors]]`` from a TOML file; any problem is a
    SinkURIError naming ``dispatch-rules`` and the path."""
    p = Path(path)
    data = _read_toml(p)
    entries = data.get("dispatchers")
    selectors = data.get("column-selectors")
    if entries is None and selectors is None:
        nested = data.get("sink")
        hint = ""
        if isinstance(nested, dict) and ({"dispatchers", "column-selectors"} & set(nested)):
            hint = " (TiCDC's [[sink.dispatchers]] and [[sink.column-selectors]] go at the top level here)"
        raise SinkURIError(
            f"dispatch rules file {str(p)!r} has no [[dispatchers]] or [[column-selectors]] tables{hint}",
            "dispatch-rules",
        )
    if entries is not None and not isinstance(entries, list):
        raise SinkURIError(f"{str(p)!r}: 'dispatchers' must be an array of tables", "dispatch-rules")
    rules = [rule_from_mapping(e, f"{p}: dispatchers[{i}]") for i, e in enumerate(entries or ())]
    return DispatchRules(rules, selectors_from_entries(selectors, str(p)) if selectors is not None else ())


def _read_toml(p: Path) -> dict[str, Any]:
    """The file's TOML, or one SinkURIError per way it can fail, each saying what to fix
    (never an OSError, and never a read that does not end, as from ``/dev/zero``)."""

    def refused(why: str) -> SinkURIError:
        return SinkURIError(f"dispatch rules file {str(p)!r} {why}", "dispatch-rules")

    if "\0" in str(p):
        raise refused("cannot be a path: it holds a NUL byte")
    try:
        if p.is_dir():
            raise refused("is a directory, not a TOML file")
        if p.exists() and not p.is_file():
            raise refused("is not a regular file")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise refused("does not exist") from None
    except PermissionError:
        raise refused("is not readable (permission denied)") from None
    except UnicodeDecodeError as exc:
        raise refused(f"is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise refused(f"cannot be read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise refused(f"is not valid TOML: {exc}") from None


def rules_from_params(params: Any) -> DispatchRules:
    """The rule list of a sink: file rules, then the URI's own rule, then the catch-all; with the
    rules file's column selectors."""
    rules: list[DispatchRule] = []
    selectors: tuple[ColumnSelector, ...] = ()
    if params.get("dispatch-rules"):
        try:
            from_file = load_rules_file(params["dispatch-rules"])
        except (DispatchError, SinkURIError) as exc:  # a refused value names its parameter
            raise SinkURIError(f"parameter 'dispatch-rules': {exc}", "dispatch-rules") from None
        rules.extend(from_file)
        selectors = from_file.column_selectors
    columns: Sequence[str] = ()
    if params.get("partition-columns"):
        columns = tuple(c.strip() for c in params["partition-columns"].split(",") if c.strip())
    partition = params.get("partition") or "default"
    if partition == "columns" and not columns:
        raise SinkURIError("partition=columns needs partition-columns=a,b,...", "partition-columns")
    if columns and partition != "columns":
        raise SinkURIError("partition-columns is only used with partition=columns", "partition-columns")
    topic = params.get("topic-rule")
    try:
        expression = TopicExpression(topic) if topic else None
        rules.append(DispatchRule(("*.*",), partition, tuple(columns), expression))
    except DispatchError as exc:
        raise SinkURIError(f"parameter 'topic-rule': {exc}", "topic-rule") from None
    return DispatchRules(rules, selectors)
