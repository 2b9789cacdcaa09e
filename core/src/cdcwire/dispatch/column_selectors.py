"""Column selectors: ``[[column-selectors]]`` in the rules file, which columns of a table's rows
a sink sends (TiCDC's ``[[sink.column-selectors]]``, tiflow
``cdc/sink/dmlsink/mq/transformer/columnselector``).

A selector is ``{matcher: ["schema.table glob", ...], columns: ["pattern", ...]}``. The first
selector whose matcher takes a row's table applies (TiDB table-filter syntax, as dispatch
rules); a table no selector takes keeps every column. Both images of a row keep only the
columns the patterns keep. Column patterns are TiDB's column filter (``ParseColumnFilter``):
case-insensitive globs (``*``, ``?``, ``[a-z]``, ``[!a-z]``, ``\\`` escapes a punctuation
character), ``/regexp/`` (searched, not anchored), ``"quoted"`` or ```quoted``` literal
names, ``!`` to exclude, ``#`` a comment; the last pattern that matches a column decides, and a
column no pattern matches is dropped.

What the reference refuses, cdcwire refuses, naming the table, the selector and the column
(:class:`ColumnSelectorError`):

- a column that a ``partition = "columns"`` rule of the table hashes, dropped (tiflow's
  ``VerifyTables``: "the filtered out column is used in the column dispatcher");
- the row's key dropped. TiCDC asks for the whole primary key or one whole unique index
  (``verifyIndices``); events carry key flags, not index definitions, so cdcwire asks for
  the handle key: the primary key, or the unique index TiCDC uses in its place. That keeps
  what dispatch (``index-value``, the split of key-changing updates) and the protocols
  (handle-key-only messages, deletes with keys only) read from a row the same with or
  without the selector;
- a row left with no column at all (cdcwire's event model has no empty image).

Selection happens before the partition is computed, as in the reference (the transformer
runs before ``GetPartitionForRowChange``); with the checks above, a row lands in the same
partition with or without its selector.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional, Sequence

from ..foundation.bounded_cache import BoundedCache
from ..foundation.errors import DispatchError
from ..model.events import Column, Columns, RowChangedEvent, build_row_event
from .table_filter import TableFilter, TableFilterError
from ..values.type_codes import ColumnFlag

_HANDLE_KEY = int(ColumnFlag.HANDLE_KEY)


class ColumnSelectorError(DispatchError):
    """A column selector drops what a row cannot do without: its key, a column its partition
    rule hashes, or every column. A configuration error, never a bad record: it fails a write
    (the Spark pipeline does not dead-letter it), as TiCDC fails the changefeed."""


class ColumnPatternError(DispatchError):
    """A column pattern is not TiDB column-filter syntax."""


# --- TiDB column filter ---------------------------------------------------------------------

#: The reference's character class: ``[``, an optional ``!``, then escaped punctuation or
#: anything but a backslash or ``]``, then ``]``.
_RANGE = re.compile(r"\[!?(?:\\[^0-9a-zA-Z]|[^\\\]])+\]")
_REGEXP = re.compile(r"/(?:\\.|[^/])+/", re.S)
_DOUBLE_QUOTED = re.compile(r'"(?:""|[^"])+"', re.S)
_BACK_QUOTED = re.compile(r"`(?:``|[^`])+`", re.S)

Match = Callable[[str], bool]


def _ascii_alnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


def _regexp(text: str, anchored: bool) -> Match:
    try:
        rx = re.compile(text, re.I | re.S)
    except re.error as exc:
        raise ColumnPatternError(f"invalid pattern: {exc}") from None
    if anchored:
        return lambda name: rx.fullmatch(name) is not None
    return lambda name: rx.search(name) is not None


def _wildcard(text: str) -> Match:
    """A glob or a literal name (tidb ``parseWildcardPattern``, with no schema/table dot)."""
    literal: list[str] = []
    regex: list[str] = []
    is_literal = True
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i == len(text) - 1:
                raise ColumnPatternError("cannot place \\ at the end of a pattern")
            esc = text[i + 1]
            if _ascii_alnum(esc):
                raise ColumnPatternError(f"cannot escape a letter or number (\\{esc})")
            literal.append(esc)
            regex.append(re.escape(esc))
            i += 2
        elif c == "*":
            is_literal = False
            regex.append(".*")
            i += 1
        elif c == "?":
            is_literal = False
            regex.append(".")
            i += 1
        elif c == "[":
            is_literal = False
            m = _RANGE.match(text, i)
            if m is None:
                raise ColumnPatternError("cannot parse the character class")
            body = text[i + 1 : m.end()]
            if body.startswith("!"):
                regex.append("[^" + body[1:])
            elif body.startswith("^"):  # '[^' is not special in a glob
                regex.append("[\\^" + body[1:])
            else:
                regex.append("[" + body)
            i = m.end()
        elif c in "$_" or _ascii_alnum(c) or ord(c) >= 0x80:
            literal.append(c)
            regex.append(re.escape(c))
            i += 1
        else:
            raise ColumnPatternError(f"unexpected special character {c!r}")
    if is_literal:
        name = "".join(literal).lower()
        return name.__eq__
    if regex == [".*"]:
        return lambda _name: True
    return _regexp("".join(regex), anchored=True)


def _quoted(text: str, rx: re.Pattern[str], quote: str) -> tuple[Match, str]:
    m = rx.match(text)
    if m is None:
        raise ColumnPatternError("incomplete quoted name")
    name = m.group()[1:-1].replace(quote * 2, quote).lower()
    return name.__eq__, text[m.end() :]


def parse_column_pattern(text: str) -> Optional[tuple[bool, Match]]:
    """(keeps, match) of one pattern, or None for a blank line or a ``#`` comment. ``match``
    takes a lower-cased column name."""
    text = text.strip(" \t")
    if not text or text.startswith("#"):
        return None
    positive = True
    if text.startswith("!"):
        positive, text = False, text[1:]
    elif text.startswith("@"):
        raise ColumnPatternError("importing a filter file ('@path') is not supported: list the patterns")
    if not text:
        raise ColumnPatternError("missing pattern")
    if text.startswith("/"):
        m = _REGEXP.match(text)
        if m is None:
            raise ColumnPatternError("incomplete regexp")
        match, rest = _regexp(m.group()[1:-1], anchored=False), text[m.end() :]
    elif text.startswith('"'):
        match, rest = _quoted(text, _DOUBLE_QUOTED, '"')
    elif text.startswith("`"):
        match, rest = _quoted(text, _BACK_QUOTED, "`")
    else:
        match, rest = _wildcard(text), ""
    if rest:
        raise ColumnPatternError("stray characters after the column pattern")
    return positive, match


class ColumnFilter:
    """TiDB's column filter: the last pattern that matches a name decides; no match drops it.
    Names match case-insensitively (MySQL column names are)."""

    __slots__ = ("patterns", "_rules", "_kept")

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        rules = []
        for p in self.patterns:
            try:
                parsed = parse_column_pattern(p)
            except ColumnPatternError as exc:
                raise ColumnPatternError(f"column pattern {p!r}: {exc}") from None
            if parsed is not None:
                rules.append(parsed)
        self._rules = tuple(reversed(rules))
        self._kept: BoundedCache[str, bool] = BoundedCache()

    @property
    def keeps_some_column(self) -> bool:
        """False when no pattern keeps (none given, or only exclusions): every column is dropped."""
        return any(positive for positive, _ in self._rules)

    def keeps(self, name: str) -> bool:
        kept = self._kept.get(name)
        if kept is None:
            low = name.lower()
            kept = next((positive for positive, match in self._rules if match(low)), False)
            self._kept.remember(name, kept)
        return kept

    def __reduce__(self) -> tuple[Any, ...]:
        return (ColumnFilter, (self.patterns,))


# --- selectors ------------------------------------------------------------------------------


class ColumnSelector:
    """One ``[[column-selectors]]`` table; ``name`` says which in errors (``column-selectors[0]``)."""

    __slots__ = ("matchers", "columns", "name", "_tables", "_columns")

    def __init__(self, matchers: Sequence[str], columns: Sequence[str], name: str = "selector") -> None:
        self.matchers = tuple(matchers)
        self.columns = tuple(columns)
        self.name = name
        try:
            self._tables = TableFilter(self.matchers)
        except TableFilterError as exc:
            raise DispatchError(str(exc).replace("table pattern", "matcher")) from None
        self._columns = ColumnFilter(self.columns)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ColumnSelector, (self.matchers, self.columns, self.name))

    def __repr__(self) -> str:
        return f"ColumnSelector({self.name}, matcher={list(self.matchers)}, columns={list(self.columns)})"

    @property
    def label(self) -> str:
        return f"column selector {self.name} (matcher {list(self.matchers)})"

    def matches(self, schema: str, table: str) -> bool:
        return self._tables.matches(schema, table)

    def keeps(self, column: str) -> bool:
        return self._columns.keeps(column)

    @property
    def keeps_some_column(self) -> bool:
        return self._columns.keeps_some_column

    # errors, worded once for the Event path and the columnar one

    def hashed_column_dropped(self, schema: str, table: str, column: str) -> ColumnSelectorError:
        return ColumnSelectorError(
            f"{self.label} drops column {column!r} of table {schema}.{table}, which the table's dispatch rule"
            f" (partition = \"columns\") hashes: keep it in the selector's 'columns'"
        )

    def key_dropped(self, schema: str, table: str, column: str) -> ColumnSelectorError:
        return ColumnSelectorError(
            f"{self.label} drops handle-key column {column!r} of table {schema}.{table}: a row's key"
            " (its primary key, or the unique index that stands for it) must stay; keep it in the"
            " selector's 'columns'"
        )

    def nothing_kept(self, schema: str, table: str, names: Sequence[str]) -> ColumnSelectorError:
        return ColumnSelectorError(
            f"{self.label} keeps no column of table {schema}.{table} (columns: {', '.join(names)}):"
            " a row needs at least one"
        )

    def check_hashed(self, schema: str, table: str, columns: Sequence[str]) -> None:
        """Refuse dropping a column that the table's ``columns`` partition rule hashes."""
        for column in columns:
            if not self.keeps(column):
                raise self.hashed_column_dropped(schema, table, column)

    def _image(self, row: RowChangedEvent, image: Optional[Columns], select: bool) -> Optional[Columns]:
        if image is None:
            return None
        keeps = self.keeps
        kept: list[Column] = []
        for c in image:
            if keeps(c.name):
                kept.append(c)
            elif c.flags & _HANDLE_KEY:
                raise self.key_dropped(row.schema, row.table, c.name)
        if not select or len(kept) == len(image):
            return image
        if not kept:
            raise self.nothing_kept(row.schema, row.table, [c.name for c in image])
        return tuple(kept)

    def apply(self, row: RowChangedEvent, select: bool = True) -> RowChangedEvent:
        """The row with only the kept columns in both images (the row itself when it loses none).
        A row that loses columns loses its ``table_schema`` too, which would name columns it no
        longer has: an encoder derives the schema of the kept ones.

        ``select=False`` only checks that the key stays (what routing on key columns alone can
        check; the columns themselves are then dropped in Arrow, see cdcwire.spark.writer.column_selection).
        """
        columns = self._image(row, row.columns, select)
        pre_columns = self._image(row, row.pre_columns, select)
        if columns is row.columns and pre_columns is row.pre_columns:
            return row
        return build_row_event(
            row.commit_ts, row.schema, row.table, columns, pre_columns, row.table_id, row.handle_key_only
        )


def selector_from_mapping(entry: Any, where: str, name: str) -> ColumnSelector:
    """Build a selector from one ``[[column-selectors]]`` table; errors say ``where``."""
    if not isinstance(entry, dict):
        raise DispatchError(f"{where}: a column selector must be a table, got {type(entry).__name__}")
    unknown = set(entry) - {"matcher", "columns"}
    if unknown:
        raise DispatchError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))} (a column selector has matcher and columns)"
        )
    matcher = entry.get("matcher")
    if isinstance(matcher, str):
        matcher = [matcher]
    if not matcher or not isinstance(matcher, list) or not all(isinstance(m, str) and m for m in matcher):
        raise DispatchError(f"{where}: 'matcher' must be a non-empty list of 'schema.table' globs")
    columns = entry.get("columns")
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",") if c.strip()]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise DispatchError(
            f"{where}: 'columns' must be a list of column patterns (e.g. [\"id\", \"name\", \"a*\"])"
        )
    try:
        selector = ColumnSelector(tuple(matcher), tuple(columns), name)
    except DispatchError as exc:
        raise DispatchError(f"{where}: {exc}") from None
    if not selector.keeps_some_column:
        raise DispatchError(
            f"{where}: 'columns' keeps no column (no pattern without '!'): a selector must keep"
            " at least a row's key"
        )
    return selector


def selectors_from_entries(entries: Any, where: str) -> tuple[ColumnSelector, ...]:
    """The ``column-selectors`` array of a rules file."""
    if not isinstance(entries, list):
        raise DispatchError(f"{where}: 'column-selectors' must be an array of tables ([[column-selectors]])")
    return tuple(
        selector_from_mapping(e, f"{where}: column-selectors[{i}]", f"column-selectors[{i}]")
        for i, e in enumerate(entries)
    )


def first_selector(selectors: Sequence[ColumnSelector], schema: str, table: str) -> Optional[ColumnSelector]:
    """The selector that applies to a table: the first that matches it, or None (keep every column)."""
    return next((s for s in selectors if s.matches(schema, table)), None)
