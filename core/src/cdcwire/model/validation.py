"""The one validation of an event: what every encoder may assume and every decoder must give.

The event model's constructors check almost nothing (``build_column`` and
``build_row_event`` skip even that, for the hot paths that build millions of
events), so an event is only known to be valid once it has passed
:func:`check_event`. The core calls it where events cross a codec
(:mod:`cdcwire.api.codec_calls`): on the way into every encoder and on the way out of
every decoder, so that a plugin, built-in or third-party, never sees an event the
others would refuse and never hands one out. The event JSON reader calls it too.

The rules:

- a row event's images fit its kind (insert: columns only; delete: pre_columns
  only; update: both), each a non-empty tuple of Columns with unique names;
- commit ts and resolved ts are unsigned 64-bit ints, table_id None or a signed one;
- schema, table and column names are valid text: str, UTF-8 encodable (no lone
  surrogate), no NUL;
- a column's type is a ColumnType, its flags an int in 0..2^63-1, its mysql_type
  None or valid text;
- a value is None or of its type's Python kind (:data:`cdcwire.model.events.Value`):
  integers within their type's signed or unsigned range, finite floats (FLOAT
  within float32), bytes for binary strings and BLOBs, valid text for the rest,
  DECIMAL text a decimal number, dates and times in MySQL's form with valid
  fields and a day their month has (zero dates such as ``0000-00-00`` and zero parts
  such as ``2024-00-10`` are TiDB's and pass), JSON text a JSON document;
- a mysql_type is a type text :mod:`cdcwire.values.type_text` reads (within MySQL's limits), of
  the column's type code, and the value fits what it says (ENUM and SET elements, BIT
  width, DECIMAL precision and scale);
- a DDL event's ddl_type is a DDLType and its query valid text.

Speed: this runs on every event of every encode and decode, so it has a fast path
(:func:`_image_ok`) that only says "valid": per image one C-level set of the column
names (unique, all seen valid before); per column one dict lookup of its (type, flags,
mysql_type), remembered once the slow path found them valid, then an in-place range
comparison for integers, an ASCII test for plain text, or one call of the type's value
check (dates and times: a cache of texts already matched, else a compiled ASCII regular
expression, measured cheaper in CPython than slicing their fields). Anything else goes
to the slow path (:func:`_check_image`), which finds and words the first broken rule.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator, Optional

from ..foundation.bounded_cache import BoundedCache
from ..values.type_codes import BLOB_TYPES, STRING_TYPES, ColumnFlag, ColumnType, DDLType
from ..foundation.errors import InvalidEventError
from .events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent
from .table_announcement import TableAnnouncement
from ..values.type_text import TypeText, parse_type_text

U64_MAX = (1 << 64) - 1
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
#: The largest finite float32, as a float64.
FLOAT32_MAX = 3.4028234663852886e38
#: Flags are bit sets of at most 63 bits: every protocol carries them as a signed or unsigned 64-bit int.
FLAGS_LIMIT = 1 << 63

#: (signed range, unsigned range) of each integer type's values; YEAR, ENUM, SET and BIT are
#: unsigned whatever their flags (ENUM is the 1-based index, 0 for the invalid value '').
INTEGER_RANGES: dict[ColumnType, tuple[tuple[int, int], tuple[int, int]]] = {
    ColumnType.TINYINT: ((-(1 << 7), (1 << 7) - 1), (0, (1 << 8) - 1)),
    ColumnType.SMALLINT: ((-(1 << 15), (1 << 15) - 1), (0, (1 << 16) - 1)),
    ColumnType.MEDIUMINT: ((-(1 << 23), (1 << 23) - 1), (0, (1 << 24) - 1)),
    ColumnType.INT: ((-(1 << 31), (1 << 31) - 1), (0, (1 << 32) - 1)),
    ColumnType.BIGINT: ((I64_MIN, I64_MAX), (0, U64_MAX)),
    ColumnType.YEAR: ((0, 2155), (0, 2155)),
    ColumnType.ENUM: ((0, 65535), (0, 65535)),
    ColumnType.SET: ((0, U64_MAX), (0, U64_MAX)),
    ColumnType.BIT: ((0, U64_MAX), (0, U64_MAX)),
}

_UNSIGNED = int(ColumnFlag.UNSIGNED)
_BINARY = int(ColumnFlag.BINARY)

#: A value check: None when the value is fine, else why it is not.
ValueCheck = Callable[[Any], Optional[str]]


# --- text ----------------------------------------------------------------------------------


def text_problem(text: Any) -> Optional[str]:
    """Why ``text`` is not valid text (a str UTF-8 can carry), or None."""
    if not isinstance(text, str):
        return f"must be a string, got {type(text).__name__}"
    if text.isascii():
        return None
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        return f"holds a lone surrogate {text[exc.start]!r} at character {exc.start}: not valid Unicode text"
    return None


def name_problem(name: Any) -> Optional[str]:
    """Why ``name`` is not a valid schema, table or column name (valid text without NUL), or None."""
    problem = text_problem(name)
    if problem is None and "\x00" in name:
        return f"holds a NUL character at character {name.index(chr(0))}"
    return problem


#: Names already found valid (schema, table and column names repeat on every event).
#: A set, not a BoundedCache (a dict): the fast path tests an image's names with a set's C
#: subset test, under half what a dict's keys view takes, and ``in`` on a dict subclass goes
#: through a slot wrapper (measured: check_events 3-4% slower as a BoundedCache). It empties
#: itself when full, as a BoundedCache does.
_GOOD_NAMES: set[str] = set()
_GOOD_NAMES_LIMIT = 1 << 16
_NAME = attrgetter("name")


def _name_ok(name: Any) -> Optional[str]:
    problem = name_problem(name)
    if problem is None and name.__class__ is str:
        if len(_GOOD_NAMES) >= _GOOD_NAMES_LIMIT:
            _GOOD_NAMES.clear()
        _GOOD_NAMES.add(name)
    return problem


# --- values --------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return type(value).__name__


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters: a 401-digit number stays readable."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def _integers(ctype: ColumnType, unsigned: bool) -> ValueCheck:
    signed_range, unsigned_range = INTEGER_RANGES[ctype]
    lo, hi = unsigned_range if unsigned else signed_range
    label = f"{ctype.name} UNSIGNED" if unsigned and signed_range != unsigned_range else ctype.name

    def check(v: Any) -> Optional[str]:
        if v.__class__ is int and lo <= v <= hi or v is None:
            return None
        if v.__class__ is not int:
            return f"a value of a {ctype.name} column must be an integer, got {_kind(v)} {shown(v)}"
        return f"{shown(v)} is outside {lo}..{hi}, the range of {label}"

    return check


def _floats(ctype: ColumnType) -> ValueCheck:
    limit = FLOAT32_MAX if ctype == ColumnType.FLOAT else 1.7976931348623157e308
    what = "float32" if ctype == ColumnType.FLOAT else "float64"

    def check(v: Any) -> Optional[str]:
        if v.__class__ is float and -limit <= v <= limit or v is None:
            return None
        if v.__class__ is not float:
            return f"a value of a {ctype.name} column must be a float, got {_kind(v)} {shown(v)}"
        if v != v or v in (float("inf"), float("-inf")):
            return f"a value of a {ctype.name} column must be finite, got {v!r}"
        return f"{v!r} is outside the range of {ctype.name} ({what})"

    return check


def _texts(ctype: ColumnType) -> ValueCheck:
    def check(v: Any) -> Optional[str]:
        if v.__class__ is str and v.isascii() or v is None:
            return None
        if v.__class__ is not str:
            return f"a {ctype.name} value without the BINARY flag must be str, got {_kind(v)}"
        return text_problem(v)

    return check


def _bytes(ctype: ColumnType) -> ValueCheck:
    def check(v: Any) -> Optional[str]:
        if v.__class__ is bytes or v is None:
            return None
        return f"a {ctype.name} value with the BINARY flag must be bytes, got {_kind(v)}"

    return check


def _geometry(v: Any) -> Optional[str]:
    if v.__class__ is bytes or v is None:
        return None
    if v.__class__ is str:
        return text_problem(v)
    return f"a GEOMETRY value must be bytes or str, got {_kind(v)}"


def _null(v: Any) -> Optional[str]:
    return None if v is None else f"a NULL-type column can only hold None, got {_kind(v)} {v!r}"


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def decimal_problem(text: str) -> Optional[str]:
    """Why ``text`` is not a DECIMAL value's text (a finite decimal number), or None."""
    body = text[1:] if text[:1] in ("-", "+") else text
    whole, _, fraction = body.partition(".")
    if (whole or fraction) and (not whole or _digits(whole)) and (not fraction or _digits(fraction)):
        return None
    # the rare exponent form ("1.5E+3"); no spaces, underscores, NaN or infinity
    try:
        ok = text.isascii() and text.strip() == text and "_" not in text and Decimal(text).is_finite()
    except (InvalidOperation, ValueError):
        ok = False
    return None if ok else f"{shown(text)} is not a decimal number"


_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
#: A date whose day exists in its month (February 29 only in leap years); month and day may be
#: 00 (TiDB's zero dates ``0000-00-00`` and zero-in-date parts like ``2024-00-10``).
_DATE = (
    "(?:[0-9]{4}-(?:(?:0[013578]|1[02])-(?:[0-2][0-9]|3[01])|(?:0[469]|11)-(?:[0-2][0-9]|30)"
    f"|02-(?:[01][0-9]|2[0-8]))|{_LEAP_YEAR}-02-29)"
)
_CLOCK = ":[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,6})?"
#: The MySQL text form of each date and time type, as a regular expression (Python's and
#: RE2's syntax alike: the Spark record checks use the same ones): a compiled match of a
#: short ASCII pattern is the cheapest exact check of these in CPython.
TIME_PATTERNS: dict[ColumnType, str] = {
    ColumnType.DATE: _DATE,
    ColumnType.NEWDATE: _DATE,
    ColumnType.DATETIME: f"{_DATE} (?:[01][0-9]|2[0-3]){_CLOCK}",
    ColumnType.TIMESTAMP: f"{_DATE} (?:[01][0-9]|2[0-3]){_CLOCK}",
    ColumnType.TIME: f"-?(?:[0-9]{{2}}|[0-7][0-9]{{2}}|8[0-2][0-9]|83[0-8]){_CLOCK}",
}
_TIME_FORMS: dict[ColumnType, str] = {
    ColumnType.DATE: "YYYY-MM-DD",
    ColumnType.NEWDATE: "YYYY-MM-DD",
    ColumnType.DATETIME: "YYYY-MM-DD HH:MM:SS[.ffffff]",
    ColumnType.TIMESTAMP: "YYYY-MM-DD HH:MM:SS[.ffffff]",
    ColumnType.TIME: "[-]HHH:MM:SS[.ffffff], hours up to 838",
}


#: Date and time texts already matched, per type (a column's values repeat: a day's dates,
#: a batch's second), so that most checks are one lookup: of the cache's bound ``get``, which
#: CPython calls as fast as ``in`` on a set (``in`` on a dict subclass takes a slot wrapper).
_GOOD_TIMES: dict[ColumnType, BoundedCache[str, bool]] = {
    t: BoundedCache(_GOOD_NAMES_LIMIT) for t in TIME_PATTERNS
}


def _times(ctype: ColumnType) -> ValueCheck:
    matches = re.compile(TIME_PATTERNS[ctype]).fullmatch
    form = _TIME_FORMS[ctype]
    good = _GOOD_TIMES[ctype]
    known = good.get

    def check(v: Any) -> Optional[str]:
        if v.__class__ is str and known(v) or v is None:
            return None
        if v.__class__ is not str:
            return f"a {ctype.name} value must be str, got {_kind(v)}"
        if matches(v) is None:
            return f"{shown(v)} is not a {ctype.name} of the form {form} with valid fields (a day its month has)"
        good.remember(v, True)
        return None

    return check


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json(v: Any) -> Optional[str]:
    if v is None:
        return None
    if v.__class__ is not str:
        return f"a JSON value must be str, got {_kind(v)}"
    problem = text_problem(v)
    if problem is not None:
        return problem
    try:
        json.loads(v, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        return f"{shown(v)} is not a JSON document ({str(exc).splitlines()[0][:80]})"
    return None


def _decimals(v: Any) -> Optional[str]:
    if v is None:
        return None
    if v.__class__ is not str:
        return f"a DECIMAL value must be str, got {_kind(v)}"
    return decimal_problem(v)


def value_check(ctype: ColumnType, flags: int) -> ValueCheck:
    """The check of values of a column of this type and flags."""
    if ctype in INTEGER_RANGES:
        return _integers(ctype, bool(flags & _UNSIGNED))
    if ctype in (ColumnType.FLOAT, ColumnType.DOUBLE):
        return _floats(ctype)
    if ctype == ColumnType.DECIMAL:
        return _decimals
    if ctype == ColumnType.JSON:
        return _json
    if ctype in _TIME_FORMS:
        return _times(ctype)
    if ctype == ColumnType.NULL:
        return _null
    if ctype == ColumnType.GEOMETRY:
        return _geometry
    if (ctype in BLOB_TYPES or ctype in STRING_TYPES) and flags & _BINARY:
        return _bytes(ctype)
    return _texts(ctype)  # TEXT family, CHAR/VARCHAR


def type_text_bound(ctype: ColumnType, parsed: TypeText) -> Optional[int]:
    """The largest value a column of an ENUM, SET or BIT type text takes, when the text says:
    ENUM the number of its elements (an index; 0 is the invalid value ''), SET the mask of all
    its elements, BIT all ones of its width. None when the text does not bound the value."""
    if ctype == ColumnType.ENUM and parsed.elements is not None:
        return len(parsed.elements)
    if ctype == ColumnType.SET and parsed.elements is not None:
        return (1 << len(parsed.elements)) - 1
    if ctype == ColumnType.BIT and parsed.length is not None:
        return (1 << parsed.length) - 1
    return None


def decimal_fit_problem(text: str, precision: int, scale: int) -> Optional[str]:
    """Why a valid DECIMAL text does not fit ``decimal(precision,scale)``, or None: at most
    ``precision - scale`` digits before the point and ``scale`` after it."""
    body = text.lstrip("+-")
    if "e" in body or "E" in body:
        exponent = Decimal(text).as_tuple().exponent
        value = Decimal(text)
        whole = 0 if abs(value) < 1 else value.adjusted() + 1
        fraction = max(0, -int(exponent))
    else:
        head, _, tail = body.partition(".")
        whole, fraction = len(head.lstrip("0")), len(tail)
    if whole > precision - scale or fraction > scale:
        return (f"{shown(text)} does not fit decimal({precision},{scale}): at most {precision - scale}"
                f" digits before the point and {scale} after it")
    return None


def _fitted(ctype: ColumnType, check: ValueCheck, parsed: TypeText, mysql_type: str) -> ValueCheck:
    """``check`` and the bounds the column's type text sets on its values (item of the rule:
    where the type text is known, the value must fit it)."""
    bound = type_text_bound(ctype, parsed)
    if bound is not None:
        def bounded(v: Any) -> Optional[str]:
            problem = check(v)
            if problem is None and v is not None and v > bound:
                return f"{shown(v)} is past {bound}, the largest value of {ctype.name} {shown(mysql_type)}"
            return problem

        return bounded
    if ctype == ColumnType.DECIMAL and parsed.length is not None:
        precision, scale = parsed.length, parsed.scale or 0

        def fits(v: Any) -> Optional[str]:
            problem = check(v)
            if problem is None and v is not None:
                return decimal_fit_problem(v, precision, scale)
            return problem

        return fits
    return check


def column_problem(ctype: ColumnType, flags: int, mysql_type: Optional[str], value: Any) -> Optional[str]:
    """Why a column of this (valid) type and flags cannot have this type text and value, or None:
    the record checks of :mod:`cdcwire.spark.rows.record_checks` judge their suspects with it."""
    check = value_check(ctype, flags)
    if mysql_type is not None:
        problem = text_problem(mysql_type) or _type_text_problem(ctype, mysql_type)
        if problem is not None:
            return problem
        check = _fitted(ctype, check, parse_type_text(mysql_type), mysql_type)  # type: ignore[arg-type]
    return check(value)


def _type_text_problem(ctype: ColumnType, mysql_type: str) -> Optional[str]:
    """Why a valid text ``mysql_type`` is not a type text of type code ``ctype``, or None."""
    parsed = parse_type_text(mysql_type)
    if isinstance(parsed, str):
        return parsed
    if ctype not in parsed.codes:
        return (f"type code {ctype.name} and type text {shown(mysql_type)} disagree (a {parsed.base.upper()}"
                f" is carried as {' or '.join(sorted(c.name for c in parsed.codes))})")
    return None


_CACHE_LIMIT = 4096
#: The value check of every valid (type, flags) pair met so far, by value.
_CHECKS: BoundedCache[tuple[int, int], ValueCheck] = BoundedCache(_CACHE_LIMIT)
#: Everything the fast path needs of a column's valid (type, flags, mysql_type), keyed by
#: those and the classes of type and flags (so 3 or 10.0 never pass for ColumnType.INT or
#: ColumnFlag(10)): (check, int bounds or None, whether any str UTF-8 carries passes).
#: IntEnum and IntFlag hash as ints, in C: one lookup is cheaper than any per-field check.
_COLUMN_ENTRIES: BoundedCache[tuple[Any, ...], tuple[ValueCheck, Optional[int], Optional[int], bool]] = (
    BoundedCache(_CACHE_LIMIT)
)
#: Its bound ``get``, the plain dict's: CPython specialises a call of it, not of the method
#: looked up on a dict subclass (about 20 ns less a column on the fast path).
_column_entry = _COLUMN_ENTRIES.get


def _column_check(column: Column) -> tuple[Optional[ValueCheck], str, str]:
    """The value check of a column's (type, flags) pair, or None with the field and rule broken.
    A valid (type, flags, mysql_type) is remembered for the fast path."""
    ctype, flags, mysql_type = column.type, column.flags, column.mysql_type
    if ctype.__class__ is not ColumnType:
        return None, "type", f"must be a ColumnType, got {_kind(ctype)} {shown(ctype)}"
    if not isinstance(flags, int) or isinstance(flags, bool) or not 0 <= flags < FLAGS_LIMIT:
        text = int(flags) if isinstance(flags, int) else shown(flags)
        return None, "flags", f"must be an int bit set in 0..2^63-1, got {text}"
    bits = int(flags)
    key = (int(ctype), bits)
    check = _CHECKS.get(key)
    if check is None:
        check = _CHECKS.remember(key, value_check(ctype, bits))
    bound = None
    if mysql_type is not None:
        problem = text_problem(mysql_type)
        if problem is not None:
            return None, "mysql_type", f"mysql_type {problem}"
        problem = _type_text_problem(ctype, mysql_type)
        if problem is not None:
            return None, "mysql_type", problem
        parsed: TypeText = parse_type_text(mysql_type)  # type: ignore[assignment]
        check = _fitted(ctype, check, parsed, mysql_type)
        bound = type_text_bound(ctype, parsed)
    if flags.__class__ is ColumnFlag or flags.__class__ is int:
        lo = hi = None
        if ctype in INTEGER_RANGES:
            lo, hi = INTEGER_RANGES[ctype][1 if bits & _UNSIGNED else 0]
            if bound is not None:
                hi = min(hi, bound)
        plain_text = (ctype in BLOB_TYPES or ctype in STRING_TYPES) and not bits & _BINARY
        entry_key = (ctype, flags, mysql_type, ColumnType, flags.__class__)
        _COLUMN_ENTRIES.remember(entry_key, (check, lo, hi, plain_text))
    return check, "", ""


def _image_ok(columns: tuple[Any, ...]) -> bool:
    """True when every column of a non-empty image passes; False sends the image to
    :func:`_check_image`, which finds what is wrong (or, for what it has not seen yet, that
    nothing is and remembers it). The fast path per column: one dict lookup of its type,
    flags and MySQL type, then a comparison (integers), an ASCII test (text) or one call."""
    entry_of = _column_entry
    try:
        names = set(map(_NAME, columns))  # a C loop: unique names, all known to be good
        if len(names) != len(columns) or not names <= _GOOD_NAMES:
            return False
        for c in columns:
            if c.__class__ is not Column:
                return False
            ctype = c.type
            flags = c.flags
            entry = entry_of((ctype, flags, c.mysql_type, ctype.__class__, flags.__class__))
            if entry is None:
                return False
            value = c.value
            if value is not None:
                lo = entry[1]
                if lo is not None:  # an integer type: compare in place
                    if not (value.__class__ is int and lo <= value <= entry[2]):
                        return False
                elif entry[3]:  # plain text: an ASCII str passes without a call
                    if not (value.__class__ is str and value.isascii()) and entry[0](value) is not None:
                        return False
                elif entry[0](value) is not None:
                    return False
    except (TypeError, AttributeError):  # an unhashable field, not a Column: the slow path names it
        return False
    return True


# --- events --------------------------------------------------------------------------------


def where(event: Any) -> str:
    """The event as errors name it: ``schema.table@ts``, ``ddl schema.table@ts``, ``resolved@ts``;
    names that are not plain text are shown escaped, so that the message always prints."""
    if isinstance(event, ResolvedEvent):
        return f"resolved@{shown(event.ts)}"
    if isinstance(event, (RowChangedEvent, DDLEvent)):
        schema, table = event.schema, event.table
        names = [n if n.__class__ is str and n.isprintable() else repr(n) for n in (schema, table)]
        prefix = "ddl " if isinstance(event, DDLEvent) else ""
        return f"{prefix}{names[0]}.{names[1]}@{shown(event.commit_ts)}"
    return f"a {type(event).__name__}"


def _fail(event: Any, field: str, rule: str, column: Optional[str] = None) -> InvalidEventError:
    return InvalidEventError(rule, where(event), field, column)


def _u64(value: Any) -> bool:
    return value.__class__ is int and 0 <= value <= U64_MAX


def _check_image(event: RowChangedEvent, columns: Any, field: str) -> None:
    """Raise InvalidEventError for the first column that breaks a rule (the slow, exact path)."""
    if columns.__class__ is not tuple:
        raise _fail(event, field, f"must be a tuple of Columns, got {_kind(columns)}")
    if not columns:
        raise _fail(event, field, "is an empty image: a row image has at least one column")
    seen: list[Any] = []
    for i, c in enumerate(columns):
        if c.__class__ is not Column:
            raise _fail(event, f"{field}[{i}]", f"must be a Column, got {_kind(c)}")
        name = c.name
        problem = _name_ok(name)
        if problem is not None:
            raise _fail(event, f"{field}[{i}].name", f"column name {problem}", shown(name))
        if name in seen:
            rule = f"column {name!r} appears twice in the image"
            raise _fail(event, f"{field}[{i}].name", rule, repr(name))
        seen.append(name)
        check, part, rule = _column_check(c)
        if check is None:
            raise _fail(event, f"{field}[{i}].{part}", rule, repr(name))
        problem = check(c.value)
        if problem is not None:
            raise _fail(event, f"{field}[{i}].value", problem, repr(name))


def _check_names(event: Any) -> None:
    for field in ("schema", "table"):
        problem = _name_ok(getattr(event, field))
        if problem is not None:
            raise _fail(event, field, f"{field} name {problem}")


def _check_key_only(event: Any) -> None:
    """A key-only row (see RowChangedEvent.handle_key_only) carries its handle key and nothing else."""
    if event.handle_key_only is not True:
        raise _fail(event, "handle_key_only", f"must be True or False, got {shown(event.handle_key_only)}")
    for field in ("columns", "pre_columns"):
        for column in getattr(event, field) or ():
            if not column.flags & ColumnFlag.HANDLE_KEY:
                rule = f"column {column.name!r} of a handle-key-only row is not a handle-key column"
                raise _fail(event, field, rule)


def check_event(event: Any) -> None:
    """Raise InvalidEventError naming the event, the field (and column) and the rule it breaks."""
    cls = event.__class__
    if cls is RowChangedEvent:
        ts = event.commit_ts
        if not (ts.__class__ is int and 0 <= ts <= U64_MAX):
            raise _fail(event, "commit_ts", f"must be an int in 0..2^64-1, got {shown(ts)}")
        try:
            known = event.schema in _GOOD_NAMES and event.table in _GOOD_NAMES
        except TypeError:
            known = False
        if not known:
            _check_names(event)
        table_id = event.table_id
        if table_id is not None and not (table_id.__class__ is int and I64_MIN <= table_id <= I64_MAX):
            rule = f"must be None or a signed 64-bit int (-2^63..2^63-1), got {shown(table_id)}"
            raise _fail(event, "table_id", rule)
        columns, pre_columns = event.columns, event.pre_columns
        if columns is None and pre_columns is None:
            raise _fail(event, "columns", "a row event needs columns (insert/update) or pre_columns (delete)")
        if columns is not None and not (columns.__class__ is tuple and columns and _image_ok(columns)):
            _check_image(event, columns, "columns")
        if pre_columns is not None and not (
            pre_columns.__class__ is tuple and pre_columns and _image_ok(pre_columns)
        ):
            _check_image(event, pre_columns, "pre_columns")
        if event.handle_key_only is not False:
            _check_key_only(event)
    elif cls is ResolvedEvent:
        if not _u64(event.ts):
            raise _fail(event, "ts", f"must be an int in 0..2^64-1, got {shown(event.ts)}")
    elif cls is DDLEvent:
        if not _u64(event.commit_ts):
            raise _fail(event, "commit_ts", f"must be an int in 0..2^64-1, got {shown(event.commit_ts)}")
        _check_names(event)
        if event.ddl_type.__class__ is not DDLType:
            rule = f"must be a DDLType, got {_kind(event.ddl_type)} {shown(event.ddl_type)}"
            raise _fail(event, "ddl_type", rule)
        problem = text_problem(event.query)
        if problem is not None:
            raise _fail(event, "query", f"query {problem}")
    elif cls is TableAnnouncement:  # routed by the dispatcher to codecs that ask (announce_tables)
        check_event(event.row)
    else:
        raise InvalidEventError(
            f"not a cdcwire event: a {_kind(event)} (RowChangedEvent, DDLEvent or ResolvedEvent)",
            where(event),
        )


def check_events(events: Iterable[Event]) -> None:
    """:func:`check_event` on each event, in order."""
    for event in events:
        check_event(event)


def checked(events: Iterable[Event]) -> Iterator[Event]:
    """The events, each checked as it is taken (a stream stays a stream)."""
    for event in events:
        check_event(event)
        yield event


def is_valid(event: Any) -> bool:
    """True when :func:`check_event` passes."""
    try:
        check_event(event)
    except InvalidEventError:
        return False
    return True
