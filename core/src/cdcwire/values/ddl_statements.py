"""The DDL type of a statement, read from its text as the reference's decoders do.

A canal-json DDL message carries only a coarse ``type`` word (ALTER covers adding a
column, dropping one, partitioning, ...) and a debezium one only CREATE/ALTER/DROP, so
the reference's decoders parse the query (ticdc ``GetDDLActionType``) to say what the
statement did; plugins reach this through :mod:`cdcwire.plugin_api`. This module does
the same without a full SQL grammar: it splits the statement into tokens (so case, whitespace,
comments, quoted strings and backquoted names cannot mislead it), then reads the verb,
the object and, for ``ALTER TABLE``, each comma-separated change. A statement it does
not recognise gives None and the caller falls back to the ``type`` word.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from .type_codes import DDLType

D = DDLType


@dataclass(frozen=True, slots=True)
class Token:
    """``kind`` is "word" (a keyword or bare name, lower-cased), "name" (backquoted),
    "string" (quoted text) or "punct" (one character); ``raw`` is a word as written (MySQL keeps
    a bare column name's case: ``ADD COLUMN Price INT`` adds ``Price``)."""

    kind: str
    text: str
    raw: str = ""

    @property
    def name(self) -> str:
        """The token as an identifier: a bare word in its written case, a backquoted name as is."""
        return self.raw or self.text

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text in words


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_$")


def tokens(query: str) -> list[Token]:
    """The tokens of the first statement in ``query``.

    Comments (``-- ``, ``#``, ``/* */``) are skipped; the body of an executable comment
    (``/*! ... */``, ``/*!50100 ... */``, TiDB's ``/*T![feature] ... */``) is read as
    code, as MySQL and TiDB run it. Reading stops at a top-level ``;``.
    """
    out: list[Token] = []
    text = query
    i, n = 0, len(text)
    in_code_comment = False
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "#" or (text.startswith("--", i) and (i + 2 == n or text[i + 2].isspace())):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            body = _code_comment_body(text, i)
            if body is None:
                end = text.find("*/", i + 2)
                i = n if end < 0 else end + 2
            else:
                in_code_comment, i = True, body
        elif in_code_comment and text.startswith("*/", i):
            in_code_comment, i = False, i + 2
        elif ch in "`'\"":
            end, value = _quoted(text, i)
            out.append(Token("name" if ch == "`" else "string", value))
            i = end
        elif ch.lower() in _WORD_CHARS or ch.isalpha() or ord(ch) > 127:
            j = i + 1
            while j < n and (text[j].lower() in _WORD_CHARS or text[j].isalpha() or ord(text[j]) > 127):
                j += 1
            out.append(Token("word", text[i:j].lower(), text[i:j]))
            i = j
        elif ch == ";":
            break
        else:
            out.append(Token("punct", ch))
            i += 1
    return out


def _code_comment_body(text: str, start: int) -> Optional[int]:
    """Where the code of an executable comment opening at ``start`` begins, or None."""
    i = start + 2
    if text.startswith("T!", i):
        i += 2
        if text.startswith("[", i):
            close = text.find("]", i)
            i = len(text) if close < 0 else close + 1
        return i
    if text.startswith("!", i):
        i += 1
        while i < len(text) and text[i].isdigit():
            i += 1
        return i
    return None


def _quoted(text: str, start: int) -> tuple[int, str]:
    """(index after the closing quote, the unescaped content) of a quoted token."""
    quote = text[start]
    parts: list[str] = []
    i, n = start + 1, len(text)
    while i < n:
        ch = text[i]
        if ch == quote:
            if i + 1 < n and text[i + 1] == quote:  # a doubled quote stands for itself
                parts.append(quote)
                i += 2
                continue
            return i + 1, "".join(parts)
        if ch == "\\" and quote != "`" and i + 1 < n:
            parts.append(text[i + 1])
            i += 2
            continue
        parts.append(ch)
        i += 1
    return n, "".join(parts)


def statement_ddl_type(query: str) -> Optional[DDLType]:
    """The DDL type of ``query``, or None when the statement is not one this reader knows."""
    toks = tokens(query)
    if not toks or toks[0].kind != "word":
        return None
    verb, rest = toks[0].text, toks[1:]
    reader = _VERBS.get(verb)
    return reader(rest) if reader is not None else None


def _words(toks: Sequence[Token], count: int) -> list[str]:
    """The first ``count`` tokens as text (keywords lower-cased), "" past the end."""
    out = [t.text if t.kind == "word" else "" for t in toks[:count]]
    return out + [""] * (count - len(out))


def _create(rest: Sequence[Token]) -> Optional[DDLType]:
    # Modifiers before the object: OR REPLACE, TEMPORARY, GLOBAL, UNIQUE, ALGORITHM = x,
    # DEFINER = user, SQL SECURITY x. The first object keyword decides.
    for i, t in enumerate(rest):
        if t.kind != "word":
            continue
        if t.text == "table":
            return D.CREATE_TABLE
        if t.text in ("database", "schema"):
            return D.CREATE_SCHEMA
        if t.text == "index":
            vector = i > 0 and rest[i - 1].is_word("vector")
            return D.ADD_VECTOR_INDEX if vector else D.ADD_INDEX
        if t.text == "view":
            return D.CREATE_VIEW
        if t.text == "sequence":
            return D.CREATE_SEQUENCE
        if t.text == "placement":
            return D.CREATE_PLACEMENT_POLICY
        if t.text == "resource":
            return D.CREATE_RESOURCE_GROUP
        if t.text in ("user", "role", "function", "procedure", "trigger", "binding", "statistics"):
            return None
    return None


def _drop(rest: Sequence[Token]) -> Optional[DDLType]:
    first, second = _words(rest, 2)
    if first == "temporary":
        first = second
    if first in ("table", "tables"):
        return D.DROP_TABLE
    if first == "view":
        return D.DROP_VIEW
    if first in ("database", "schema"):
        return D.DROP_SCHEMA
    if first == "index":
        names = [t for t in rest[1:] if not t.is_word("if", "exists")]
        if names and names[0].kind in ("name", "word") and names[0].text.lower() == "primary":
            return D.DROP_PRIMARY_KEY  # DROP INDEX `PRIMARY` ON t
        return D.DROP_INDEX
    if first == "sequence":
        return D.DROP_SEQUENCE
    if first == "placement":
        return D.DROP_PLACEMENT_POLICY
    if first == "resource":
        return D.DROP_RESOURCE_GROUP
    return None


def _alter(rest: Sequence[Token]) -> Optional[DDLType]:
    i = 0
    while i < len(rest) and rest[i].is_word("online", "offline", "ignore"):
        i += 1
    if i >= len(rest) or rest[i].kind != "word":
        return None
    target = rest[i].text
    if target == "table":
        return _alter_table(rest[i + 1:])
    if target in ("database", "schema"):
        has_placement = any(t.is_word("placement") for t in rest[i + 1:])
        return D.MODIFY_SCHEMA_DEFAULT_PLACEMENT if has_placement else D.MODIFY_SCHEMA_CHARSET_AND_COLLATE
    if target == "sequence":
        return D.ALTER_SEQUENCE
    if target == "placement":
        return D.ALTER_PLACEMENT_POLICY
    if target == "resource":
        return D.ALTER_RESOURCE_GROUP
    return None


def _rename(rest: Sequence[Token]) -> Optional[DDLType]:
    if not rest or not rest[0].is_word("table", "tables"):
        return None
    pairs = 1 + sum(1 for t in _top_level(rest[1:]) if t.kind == "punct" and t.text == ",")
    return D.RENAME_TABLES if pairs > 1 else D.RENAME_TABLE


@dataclass(frozen=True, slots=True)
class TableName:
    """A table as a statement names it: ``schema`` None when the name is bare (the statement's
    current database). Bare words come lower-cased; compare with :meth:`names` (TiDB compares
    table names without case)."""

    schema: Optional[str]
    table: str

    def names(self, schema: str, table: str) -> bool:
        return self.table.lower() == table.lower() and (self.schema is None or self.schema.lower() == schema.lower())


def renamed_tables(query: str) -> list[tuple[TableName, TableName]]:
    """The (old, new) pairs of a ``RENAME TABLE a TO b[, c TO d]`` or an ``ALTER TABLE a RENAME
    [TO|AS] b``; [] for any other statement, or one whose names this reader cannot take apart."""
    toks = tokens(query)
    if len(toks) > 2 and toks[0].is_word("alter") and toks[1].is_word("table"):
        old, rest = _table_name(toks[2:])
        if old is None or not rest or not rest[0].is_word("rename"):
            return []
        rest = rest[1:]
        if rest and rest[0].is_word("to", "as"):
            rest = rest[1:]
        new, rest = _table_name(rest)
        return [(old, new)] if new is not None and not rest else []
    if len(toks) < 2 or not toks[0].is_word("rename") or not toks[1].is_word("table", "tables"):
        return []
    pairs: list[tuple[TableName, TableName]] = []
    for spec in _specs(toks[2:]):
        if not spec:
            return []
        old, rest = _table_name(spec)
        if old is None or not rest or not rest[0].is_word("to"):
            return []
        new, rest = _table_name(rest[1:])
        if new is None or rest:
            return []
        pairs.append((old, new))
    return pairs


def _table_name(toks: Sequence[Token]) -> tuple[Optional[TableName], Sequence[Token]]:
    """The (possibly schema-qualified) table name at the start of ``toks``, and the tokens after it."""
    if not toks or toks[0].kind not in ("word", "name"):
        return None, toks
    if len(toks) > 2 and toks[1].kind == "punct" and toks[1].text == "." and toks[2].kind in ("word", "name"):
        return TableName(toks[0].text, toks[2].text), toks[3:]
    return TableName(None, toks[0].text), toks[1:]


def recovered_table(query: str) -> Optional[TableName]:
    """The dropped table a ``RECOVER TABLE t`` or ``FLASHBACK TABLE t [TO t2]`` names; None for
    ``RECOVER TABLE BY JOB n`` and any other statement."""
    toks = tokens(query)
    if len(toks) > 2 and toks[0].is_word("recover", "flashback") and toks[1].is_word("table") and not toks[2].is_word("by"):
        return _table_name(toks[2:])[0]
    return None


def _truncate(rest: Sequence[Token]) -> Optional[DDLType]:
    if any(t.is_word("partition") for t in rest):
        return D.TRUNCATE_TABLE_PARTITION
    return D.TRUNCATE_TABLE


def _flashback(rest: Sequence[Token]) -> Optional[DDLType]:
    first = _words(rest, 1)[0]
    if first == "table":
        return D.RECOVER_TABLE
    if first in ("database", "schema"):
        return D.RECOVER_SCHEMA
    if first == "cluster":
        return D.FLASHBACK_CLUSTER
    return None


def _recover(rest: Sequence[Token]) -> Optional[DDLType]:
    return D.RECOVER_TABLE if _words(rest, 1)[0] == "table" else None


def _lock(rest: Sequence[Token]) -> Optional[DDLType]:
    return D.LOCK_TABLE if _words(rest, 1)[0] in ("table", "tables") else None


def _unlock(rest: Sequence[Token]) -> Optional[DDLType]:
    return D.UNLOCK_TABLE if _words(rest, 1)[0] in ("table", "tables") else None


def _admin(rest: Sequence[Token]) -> Optional[DDLType]:
    return D.REPAIR_TABLE if _words(rest, 2) == ["repair", "table"] else None


_VERBS = {
    "create": _create,
    "drop": _drop,
    "alter": _alter,
    "rename": _rename,
    "truncate": _truncate,
    "flashback": _flashback,
    "recover": _recover,
    "lock": _lock,
    "unlock": _unlock,
    "admin": _admin,
}


# -- ALTER TABLE ------------------------------------------------------------------------------


def _top_level(toks: Sequence[Token]) -> list[Token]:
    """The tokens outside parentheses."""
    depth, out = 0, []
    for t in toks:
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(t)
    return out


def _specs(toks: Sequence[Token]) -> list[list[Token]]:
    """The comma-separated changes of an ALTER TABLE (commas inside parentheses do not split)."""
    specs: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and t.kind == "punct" and t.text == ",":
            specs.append([])
            continue
        specs[-1].append(t)
    return [s for s in specs if s]


def _skip_table_name(toks: Sequence[Token]) -> Sequence[Token]:
    """``toks`` after a (possibly schema-qualified) table name."""
    i = 1
    if len(toks) > 2 and toks[1].kind == "punct" and toks[1].text == ".":
        i = 3
    return toks[i:]


def alter_table_change_types(query: str) -> list[Optional[DDLType]]:
    """The DDL type of each change of an ``ALTER TABLE`` (None: one this reader does not know),
    in order: what a multi-schema change is made of; [] for any other statement."""
    toks = tokens(query)
    i = 1
    while i < len(toks) and toks[i].is_word("online", "offline", "ignore"):
        i += 1
    if not toks or not toks[0].is_word("alter") or i + 1 >= len(toks) or not toks[i].is_word("table"):
        return []
    return [_spec_type(s) for s in _change_specs(toks[i + 1:])]


def _change_specs(rest: Sequence[Token]) -> list[list[Token]]:
    specs: list[list[Token]] = []
    for spec in _specs(_skip_table_name(rest)):
        if specs and (_is_bare_name(spec) or _names_partition(specs[-1]) and _is_bare_name(spec[:1])):
            # DROP PARTITION p0, p1 and REORGANIZE PARTITION p0, p1 INTO (...): a list of
            # partition names, not another change
            specs[-1].extend(spec)
        elif not spec[0].is_word("algorithm", "lock"):
            specs.append(spec)
    return specs


def _alter_table(rest: Sequence[Token]) -> Optional[DDLType]:
    if not rest:
        return None
    specs = _change_specs(rest)
    if not specs:
        # The reference's answer: TiCDC rewrites ``ALTER TABLE t TTL_ENABLE='ON'`` for the
        # downstream into a bare ``ALTER TABLE t``.
        return D.ALTER_TTL_INFO
    kinds = [_spec_type(s) for s in specs]
    if len(kinds) == 1:
        return kinds[0]
    if all(k == D.MODIFY_TABLE_CHARSET_AND_COLLATE for k in kinds):
        return D.MODIFY_TABLE_CHARSET_AND_COLLATE  # CHARSET x, COLLATE y: one change in TiDB
    if any(k is None for k in kinds):
        return None
    return D.MULTI_SCHEMA_CHANGE


def _names_partition(spec: Sequence[Token]) -> bool:
    """Whether a change is ``<verb> PARTITION name``, which a list of more names may follow."""
    return len(spec) > 2 and spec[1].is_word("partition") and spec[0].kind == "word" and spec[0].text in _SPEC_VERBS


def _is_bare_name(spec: Sequence[Token]) -> bool:
    if len(spec) != 1:
        return False
    t = spec[0]
    return t.kind == "name" or (t.kind == "word" and t.text not in _SPEC_VERBS and t.text not in _OPTIONS)


def _spec_type(spec: Sequence[Token]) -> Optional[DDLType]:
    """The DDL type of one change of an ALTER TABLE statement."""
    head = spec[0]
    if head.kind != "word":
        return None
    reader = _SPEC_VERBS.get(head.text)
    if reader is not None:
        return reader(spec[1:])
    return _table_options(spec)


def _after_if_exists(rest: Sequence[Token]) -> list[str]:
    words = [t for t in rest if not t.is_word("if", "not", "exists")]
    return _words(words, 3)


def _spec_add(rest: Sequence[Token]) -> Optional[DDLType]:
    first, second, third = _after_if_exists(rest)
    if rest and rest[0].kind == "punct" and rest[0].text == "(":
        return D.ADD_COLUMN  # ADD (a INT, b INT)
    if first == "constraint":  # ADD CONSTRAINT [name] PRIMARY KEY | FOREIGN KEY | UNIQUE | CHECK
        first = second if second in ("primary", "foreign", "unique", "check", "index", "key") else third
    if first == "column":
        return D.ADD_COLUMN
    if first == "primary":
        return D.ADD_PRIMARY_KEY
    if first == "foreign":
        return D.ADD_FOREIGN_KEY
    if first == "check":
        return D.ADD_CHECK_CONSTRAINT
    if first in ("index", "key", "unique", "fulltext", "spatial"):
        return D.ADD_INDEX
    if first == "vector" and second in ("index", "key"):
        return D.ADD_VECTOR_INDEX
    if first == "partition":
        return D.ADD_TABLE_PARTITION
    if first == "stats_extended":
        return None
    return D.ADD_COLUMN  # ADD [COLUMN] name type


def _spec_drop(rest: Sequence[Token]) -> Optional[DDLType]:
    first, _, _ = _after_if_exists(rest)
    if first == "column":
        return D.DROP_COLUMN
    if first in ("index", "key"):
        names = [t for t in rest[1:] if not t.is_word("if", "exists")]
        if names and names[0].kind in ("name", "word") and names[0].text.lower() == "primary":
            return D.DROP_PRIMARY_KEY  # DROP INDEX `PRIMARY`
        return D.DROP_INDEX
    if first == "primary":
        return D.DROP_PRIMARY_KEY
    if first == "foreign":
        return D.DROP_FOREIGN_KEY
    if first == "partition":
        return D.DROP_TABLE_PARTITION
    if first in ("check", "constraint"):
        return D.DROP_CHECK_CONSTRAINT
    if first == "stats_extended":
        return None
    return D.DROP_COLUMN  # DROP [COLUMN] name


def _spec_alter(rest: Sequence[Token]) -> Optional[DDLType]:
    first = _words(rest, 1)[0]
    if first in ("index", "key"):
        return D.ALTER_INDEX_VISIBILITY
    if first in ("check", "constraint"):
        return D.ALTER_CHECK_CONSTRAINT
    return D.SET_DEFAULT_VALUE  # ALTER [COLUMN] name SET DEFAULT x | DROP DEFAULT


def _spec_rename(rest: Sequence[Token]) -> Optional[DDLType]:
    first = _words(rest, 1)[0]
    if first in ("index", "key"):
        return D.RENAME_INDEX
    if first == "column":
        return D.MODIFY_COLUMN  # TiDB runs RENAME COLUMN as a modify-column job
    return D.RENAME_TABLE  # RENAME [TO | AS] name


def _spec_partition(rest: Sequence[Token]) -> Optional[DDLType]:
    first = _words(rest, 1)[0]
    if first == "by":
        return D.ALTER_TABLE_PARTITIONING
    words = {t.text for t in _top_level(rest) if t.kind == "word"}
    if "attributes" in words:
        return D.ALTER_TABLE_PARTITION_ATTRIBUTES
    if "placement" in words:
        return D.ALTER_TABLE_PARTITION_PLACEMENT
    return None


def _spec_remove(rest: Sequence[Token]) -> Optional[DDLType]:
    first = _words(rest, 1)[0]
    if first == "partitioning":
        return D.REMOVE_PARTITIONING
    if first == "ttl":
        return D.ALTER_TTL_REMOVE
    return None


def _spec_set(rest: Sequence[Token]) -> Optional[DDLType]:
    return D.SET_TIFLASH_REPLICA if _words(rest, 2) == ["tiflash", "replica"] else None


_SpecReader = Callable[[Sequence[Token]], Optional[DDLType]]


def _fixed(ddl_type: DDLType) -> _SpecReader:
    """A reader for a change whose first keyword alone decides its type."""
    return lambda rest: ddl_type


_SPEC_VERBS: dict[str, _SpecReader] = {
    "add": _spec_add,
    "drop": _spec_drop,
    "modify": _fixed(D.MODIFY_COLUMN),
    "change": _fixed(D.MODIFY_COLUMN),
    "alter": _spec_alter,
    "rename": _spec_rename,
    "truncate": _fixed(D.TRUNCATE_TABLE_PARTITION),
    "exchange": _fixed(D.EXCHANGE_TABLE_PARTITION),
    "reorganize": _fixed(D.REORGANIZE_PARTITION),
    "coalesce": _fixed(D.REORGANIZE_PARTITION),  # TiDB runs COALESCE PARTITION as a reorganize job
    "first": _fixed(D.DROP_TABLE_PARTITION),  # FIRST PARTITION LESS THAN (x): interval partitioning
    "last": _fixed(D.ADD_TABLE_PARTITION),  # LAST PARTITION LESS THAN (x)
    "partition": _spec_partition,
    "remove": _spec_remove,
    "set": _spec_set,
    "attributes": _fixed(D.ALTER_TABLE_ATTRIBUTES),
    "cache": _fixed(D.ALTER_CACHE_TABLE),
    "nocache": _fixed(D.ALTER_NO_CACHE_TABLE),
}

#: Table options an ALTER TABLE can change, by the option's first keyword.
_OPTIONS = {
    "auto_increment": D.REBASE_AUTO_ID,
    "auto_random_base": D.REBASE_AUTO_RANDOM_BASE,
    "comment": D.MODIFY_TABLE_COMMENT,
    "charset": D.MODIFY_TABLE_CHARSET_AND_COLLATE,
    "character": D.MODIFY_TABLE_CHARSET_AND_COLLATE,
    "collate": D.MODIFY_TABLE_CHARSET_AND_COLLATE,
    "ttl": D.ALTER_TTL_INFO,
    "ttl_enable": D.ALTER_TTL_INFO,
    "ttl_job_interval": D.ALTER_TTL_INFO,
    "auto_id_cache": D.MODIFY_TABLE_AUTO_ID_CACHE,
    "shard_row_id_bits": D.SHARD_ROW_ID,
    "placement": D.ALTER_TABLE_PLACEMENT,
    "stats_buckets": D.ALTER_TABLE_STATS_OPTIONS,
    "stats_topn": D.ALTER_TABLE_STATS_OPTIONS,
    "stats_cmsketch_depth": D.ALTER_TABLE_STATS_OPTIONS,
    "stats_cmsketch_width": D.ALTER_TABLE_STATS_OPTIONS,
    "stats_sample_rate": D.ALTER_TABLE_STATS_OPTIONS,
    "stats_col_choice": D.ALTER_TABLE_STATS_OPTIONS,
    "stats_col_list": D.ALTER_TABLE_STATS_OPTIONS,
}


def _option_start(spec: Sequence[Token], i: int) -> bool:
    t = spec[i]
    if t.is_word("default"):
        return i + 1 < len(spec) and spec[i + 1].kind == "word" and spec[i + 1].text in _OPTIONS
    return t.kind == "word" and t.text in _OPTIONS


def _table_options(spec: Sequence[Token]) -> Optional[DDLType]:
    """``[DEFAULT] name [=] value`` repeated; one kind of option gives its type, several a
    multi-schema change (CHARSET with COLLATE is one change), an unknown one None."""
    kinds: set[DDLType] = set()
    i, n = 0, len(spec)
    while i < n:
        if spec[i].is_word("default"):
            i += 1
        if i >= n or spec[i].kind != "word" or spec[i].text not in _OPTIONS:
            return None
        name = spec[i].text
        kinds.add(_OPTIONS[name])
        i += 1
        if name == "character" and i < n and spec[i].is_word("set"):
            i += 1
        if name == "placement" and i < n and spec[i].is_word("policy"):
            i += 1
        if i < n and spec[i].kind == "punct" and spec[i].text == "=":
            i += 1
        i += 1  # the value, then whatever else belongs to it (TTL = ts + INTERVAL 1 DAY)
        while i < n and not _option_start(spec, i):
            i += 1
    if len(kinds) == 1:
        return kinds.pop()
    return D.MULTI_SCHEMA_CHANGE if kinds else None


# -- the column changes of an ALTER TABLE ------------------------------------------------------

#: Words after ``ADD`` / ``DROP`` that name something other than a column.
_NOT_COLUMNS = ("index", "key", "unique", "primary", "constraint", "partition", "foreign", "fulltext", "check",
                "spatial", "vector", "stats_extended")
#: Words that end a column's type in its definition (the attributes that follow it).
_TYPE_ENDS = ("not", "null", "default", "comment", "auto_increment", "primary", "unique", "key", "first", "after",
              "collate", "character", "charset", "generated", "as", "references", "check", "constraint",
              "on", "invisible", "visible", "auto_random", "column_format", "storage", "srid")
_INT32_WORDS = ("tinyint", "smallint", "mediumint", "int", "integer", "year")


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One column change of an ``ALTER TABLE``: ``verb`` "add" (with ``default`` and
    ``type_text``), "drop", "rename" (to ``new``) or "modify" (to ``type_text``). Names as the
    statement writes them (MySQL keeps a bare name's case); ``type_text`` as MySQL writes a column's
    type (``decimal(10,2)``, ``int unsigned``, ``varchar(3)``), "" when the statement gives none."""

    verb: str
    column: str
    new: str = ""
    default: Optional[object] = None
    type_text: str = ""

    @property
    def type_word(self) -> str:
        """The type's base word, ``bigint`` for a 32-bit-or-narrower UNSIGNED one (its values need 64 bits)."""
        words = self.type_text.split("(")[0].split()
        word = words[0] if words else ""
        return "bigint" if "unsigned" in self.type_text.split() and word in _INT32_WORDS else word


def column_changes(query: str) -> list[ColumnSpec]:
    """Every column change of an ``ALTER TABLE``, in the statement's order: ``ADD [COLUMN] a INT
    DEFAULT 1``, ``ADD COLUMN (a INT, b INT)``, ``DROP [COLUMN] [IF EXISTS] b``, ``RENAME COLUMN c
    TO d``, ``MODIFY [COLUMN] e BIGINT``, ``CHANGE [COLUMN] f g TYPE`` (a rename when the names
    differ, then a modify of ``g``). Changes of indexes, keys, partitions and options give
    nothing; [] for any other statement."""
    toks = tokens(query)
    if len(toks) < 3 or not (toks[0].is_word("alter") and toks[1].is_word("table")):
        return []
    out: list[ColumnSpec] = []
    for spec in _specs(_skip_table_name(toks[2:])):
        first = spec[0].text if spec[0].kind == "word" else ""
        second = spec[1].text if len(spec) > 1 and spec[1].kind == "word" else ""
        body = spec[2:] if second == "column" else spec[1:]
        if first == "add" and second not in _NOT_COLUMNS and body:
            if body[0].kind == "punct" and body[0].text == "(":  # ADD COLUMN (a INT, b INT)
                out += [ColumnSpec("add", s[0].name, default=_default(s), type_text=_type_text(s[1:]))
                        for s in _specs(body[1:-1]) if s]
            else:
                out.append(ColumnSpec("add", body[0].name, default=_default(body), type_text=_type_text(body[1:])))
        elif first == "drop" and second not in _NOT_COLUMNS and body:
            body = body[2:] if body[0].is_word("if") else body
            if body:
                out.append(ColumnSpec("drop", body[0].name))
        elif first == "rename" and second == "column" and len(spec) > 4:
            out.append(ColumnSpec("rename", spec[2].name, spec[4].name))
        elif first == "modify" and body:
            out.append(ColumnSpec("modify", body[0].name, type_text=_type_text(body[1:])))
        elif first == "change" and len(body) > 1:
            if body[0].text.lower() != body[1].text.lower():
                out.append(ColumnSpec("rename", body[0].name, body[1].name))
            out.append(ColumnSpec("modify", body[1].name, type_text=_type_text(body[2:])))
    return out


def _type_text(toks: Sequence[Token]) -> str:
    """A column's type as text, from the tokens after its name up to its first attribute."""
    parts: list[str] = []
    depth = 0
    for t in toks:
        if depth == 0 and t.kind == "word" and t.text in _TYPE_ENDS:
            break
        if t.kind == "punct":
            depth += {"(": 1, ")": -1}.get(t.text, 0)
            parts.append(t.text)
        else:
            text = "'" + t.text.replace("'", "''") + "'" if t.kind == "string" else t.text
            parts.append(text if not parts or parts[-1] in "(," else " " + text)
    return "".join(parts).strip()


def _default(spec: Sequence[Token]) -> Optional[object]:
    """A column definition's DEFAULT as MySQL writes it into the rows before it: a number or a
    quoted text; an expression (``CURRENT_TIMESTAMP``), NULL or none gives None."""
    for i, t in enumerate(spec[:-1]):
        if t.is_word("default"):
            value = spec[i + 1]
            if value.kind == "punct" and value.text in "-+" and i + 2 < len(spec):
                number = _number(spec[i + 2].text)
                return -number if number is not None and value.text == "-" else number
            if value.kind == "string":
                return value.text
            return _number(value.text) if value.kind == "word" else None
    return None


def _number(text: str):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


# -- partitions ----------------------------------------------------------------------------------

#: How rows map to partitions, as a JSON-able dict: ``{"kind": "range" | "list", "column": name,
#: "expr": "" (the column's value) | "year" (YEAR(column)), "parts": [[name, bound], ...]}``; a
#: RANGE bound is the ``LESS THAN`` value (None: MAXVALUE), a LIST bound the list of values
#: (None: NULL). Values are ints, floats or texts as the statement writes them.
Partitioning = dict


def partitioning_of(query: str) -> Optional[Partitioning]:
    """The partitioning a ``CREATE TABLE ... PARTITION BY`` or ``ALTER TABLE ... PARTITION BY``
    gives its table; None when the statement has none, or one this reader does not take apart
    (HASH, KEY, several columns, an expression other than YEAR(column), INTERVAL)."""
    toks = tokens(query)
    top = _top_indexes(toks)
    for n, i in enumerate(top[:-1]):
        if toks[i].is_word("partition") and toks[top[n + 1]].is_word("by"):
            return _partitioning(toks[top[n + 1] + 1:])
    return None


def partition_change(query: str) -> Optional[tuple]:
    """What an ``ALTER TABLE`` does to partitions: ``("truncate", [names])`` (``["all"]`` for
    ALL), ``("drop", [names])``, ``("add", [[name, bound], ...])``, ``("reorganize", [names],
    [[name, bound], ...])``, ``("exchange", name, "schema.table" or "table")``, ``("remove",)``,
    ``("partition by", partitioning or None)``; None for any other statement."""
    toks = tokens(query)
    if len(toks) < 3 or not toks[0].is_word("alter") or not toks[1].is_word("table"):
        return None
    for spec in _change_specs(toks[2:]):
        words = [t.text.lower() if t.kind in ("word", "name") else t.text for t in spec]
        if len(spec) > 2 and spec[1].is_word("partition") and spec[0].is_word("truncate", "drop"):
            names = [t.text for t in spec[2:] if t.kind in ("word", "name") and not t.is_word("if", "exists")]
            return (spec[0].text, names)
        if len(spec) > 1 and spec[0].is_word("add") and spec[1].is_word("partition"):
            body = spec[2:]
            return ("add", _partition_defs(body[1:-1]) if body and body[0].text == "(" else None)
        if spec and spec[0].is_word("reorganize") and "into" in words:
            at = words.index("into")
            names = [t.text for t in spec[2:at] if t.kind in ("word", "name")]
            body = spec[at + 1:]
            return ("reorganize", names, _partition_defs(body[1:-1]) if body and body[0].text == "(" else None)
        if len(spec) > 5 and spec[0].is_word("exchange") and spec[1].is_word("partition"):
            rest = spec[3:]
            if rest and rest[0].is_word("with") and len(rest) > 2 and rest[1].is_word("table"):
                name, _ = _table_name(rest[2:])
                if name is not None:
                    return ("exchange", spec[2].text, f"{name.schema}.{name.table}" if name.schema else name.table)
        if len(spec) > 1 and spec[0].is_word("remove") and spec[1].is_word("partitioning"):
            return ("remove",)
        if len(spec) > 1 and spec[0].is_word("partition") and spec[1].is_word("by"):
            return ("partition by", _partitioning(spec[2:]))
    return None


def _top_indexes(toks: Sequence[Token]) -> list[int]:
    depth, out = 0, []
    for i, t in enumerate(toks):
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(i)
    return out


def _group(toks: Sequence[Token], start: int) -> tuple[list[Token], int]:
    """The tokens inside the parentheses opening at ``start``, and the index after them."""
    depth = 0
    for i in range(start, len(toks)):
        if toks[i].kind == "punct" and toks[i].text == "(":
            depth += 1
        elif toks[i].kind == "punct" and toks[i].text == ")":
            depth -= 1
            if depth == 0:
                return list(toks[start + 1:i]), i + 1
    return list(toks[start + 1:]), len(toks)


def _partitioning(toks: Sequence[Token]) -> Optional[Partitioning]:
    i = 0
    if i < len(toks) and toks[i].is_word("linear"):
        return None
    if i >= len(toks) or not toks[i].is_word("range", "list"):
        return None
    kind = toks[i].text
    i += 1
    if i < len(toks) and toks[i].is_word("columns"):
        i += 1
    if i >= len(toks) or toks[i].text != "(":
        return None
    expr, i = _group(toks, i)
    column, how = _partition_expr(expr)
    if column is None:
        return None
    while i < len(toks) and toks[i].text != "(":
        if toks[i].is_word("interval"):
            return None
        i += 1
    if i >= len(toks):
        return None
    body, _ = _group(toks, i)
    parts = _partition_defs(body)
    if parts is None or any(isinstance(b, list) != (kind == "list") for _, b in parts if b is not None):
        return None
    return {"kind": kind, "column": column, "expr": how, "parts": parts}


def _partition_expr(expr: Sequence[Token]) -> tuple[Optional[str], str]:
    if len(expr) == 1 and expr[0].kind in ("word", "name"):
        return expr[0].text, ""
    if (len(expr) == 4 and expr[0].is_word("year") and expr[1].text == "(" and expr[2].kind in ("word", "name")
            and expr[3].text == ")"):
        return expr[2].text, "year"
    return None, ""


def _partition_defs(body: Sequence[Token]) -> Optional[list]:
    """[[name, bound], ...] of ``PARTITION p VALUES LESS THAN (x) | MAXVALUE`` / ``VALUES IN (...)``."""
    out = []
    for spec in _specs(body):
        if len(spec) < 4 or not spec[0].is_word("partition") or not spec[2].is_word("values"):
            return None
        name, rest = spec[1].text, spec[3:]
        if len(rest) > 2 and rest[0].is_word("less") and rest[1].is_word("than"):
            if rest[2].is_word("maxvalue"):
                out.append([name, None])
                continue
            inner, _ = _group(rest, 2)
            if len(inner) == 1 and inner[0].is_word("maxvalue"):  # RANGE COLUMNS: LESS THAN (MAXVALUE)
                out.append([name, None])
                continue
            values = _values(inner)
            if values is None or len(values) != 1:
                return None
            out.append([name, values[0]])
        elif len(rest) > 1 and rest[0].is_word("in") and rest[1].text == "(":
            inner, _ = _group(rest, 1)
            values = _values(inner)
            if values is None:
                return None
            out.append([name, values])
        else:
            return None
    return out


def _values(toks: Sequence[Token]) -> Optional[list]:
    """The literal values of a comma-separated list: numbers, texts, NULL (None); None when one
    is something else (an expression, a tuple of several columns)."""
    out = []
    for spec in _specs(toks):
        sign = 1
        if spec and spec[0].kind == "punct" and spec[0].text in "-+":
            sign = -1 if spec[0].text == "-" else 1
            spec = spec[1:]
        if len(spec) != 1:
            return None
        t = spec[0]
        if t.kind == "string":
            out.append(t.text)
        elif t.is_word("null"):
            out.append(None)
        elif t.kind == "word" and _number(t.text) is not None:
            out.append(sign * _number(t.text))
        else:
            return None
    return out
