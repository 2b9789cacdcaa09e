"""The event checks of the fast csv tier's typed columns: what :func:`cdcwire.model.validation.check_event`
would refuse in any row of a file, found per column with Arrow compute.

Why not the checks of any event batch (:func:`cdcwire.spark.rows.arrow_events.batch_problems`):
they judge every DECIMAL, ENUM, SET, BIT and JSON entry one by one, which took most of the fast
tier's time. Here each column's type is known once for the file, so ranges are one min/max,
text forms one regular expression, and only what those cannot tell (JSON documents, a DECIMAL
in exponent form, ENUM/SET/BIT values) goes to the validation's own judge, once per distinct
value. The rules and the judge are the validation's; these checks only ever say "maybe not
valid" too often, never too rarely, and a column that maybe is not makes the fast tier
refuse the file, so the reference tier words the error with its line.
"""

from __future__ import annotations

from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

from ...transports.storage.table_columns import ColumnSpec
from ...values.type_codes import BLOB_TYPES, FLOAT_TYPES, STRING_TYPES, ColumnFlag, ColumnType
from ...values.type_text import TypeText, parse_type_text
from ...model.validation import (FLOAT32_MAX, INTEGER_RANGES, TIME_PATTERNS, column_problem, name_problem,
                           type_text_bound, value_check)

I64_MAX = (1 << 63) - 1
_DECIMAL = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)$"
_TIME_FORMS = {t: f"^{p}$" for t, p in TIME_PATTERNS.items()}


def names_valid(specs: tuple[ColumnSpec, ...], schema: str, table: str) -> bool:
    """Schema, table and column names valid and unique, every type text valid for its type code."""
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        return False
    if any(name_problem(n) is not None for n in (schema, table, *names)):
        return False
    return all(column_problem(s.type, int(s.flags), s.mysql_type, None) is None for s in specs)


def values_valid(values: dict[str, pa.Array], spec: ColumnSpec) -> bool:
    """Every value of one column (its VALUE fields: int, uint, double, string, binary) valid for
    its type, flags and type text."""
    ctype, flags = spec.type, int(spec.flags)
    parsed = parse_type_text(spec.mysql_type) if spec.mysql_type is not None else None
    for field, array in values.items():
        if array.null_count == len(array):
            continue
        if not _field_valid(field, array, ctype, flags, spec, parsed):
            return False
    return True


def _field_valid(field: str, array: pa.Array, ctype: ColumnType, flags: int, spec: ColumnSpec,
                 parsed: Optional[object]) -> bool:
    bound = type_text_bound(ctype, parsed) if isinstance(parsed, TypeText) else None
    if field in ("int", "uint"):
        if ctype not in INTEGER_RANGES:
            return False
        lo, hi = INTEGER_RANGES[ctype][1 if flags & ColumnFlag.UNSIGNED else 0]
        if bound is not None:
            hi = min(hi, bound)
        low, high = pc.min_max(array).values()
        return lo <= low.as_py() and high.as_py() <= hi
    if field == "double":
        if ctype not in FLOAT_TYPES:
            return False
        limit = FLOAT32_MAX if ctype == ColumnType.FLOAT else 1.7976931348623157e308
        return bool(pc.all(pc.less_equal(pc.abs(array), limit)).as_py())  # NaN compares false
    if field == "binary":
        return ctype == ColumnType.GEOMETRY or bool(flags & ColumnFlag.BINARY) and (
            ctype in BLOB_TYPES or ctype in STRING_TYPES)
    if ctype in _TIME_FORMS:
        return _all_match(array, _TIME_FORMS[ctype])
    if ctype == ColumnType.DECIMAL:
        plain = pc.match_substring_regex(array, _DECIMAL)
        if isinstance(parsed, TypeText) and parsed.length is not None:
            whole, scale = parsed.length - (parsed.scale or 0), parsed.scale or 0
            fits = rf"^[-+]?0*[0-9]{{0,{whole}}}(\.[0-9]{{0,{scale}}})?$"
            plain = pc.and_(plain, pc.match_substring_regex(array, fits))
        others = array.filter(pc.invert(pc.fill_null(plain, True)))
        return _judged(others, ctype, flags, spec.mysql_type)  # the exponent form, or a bad value
    if ctype == ColumnType.JSON:  # no regular expression says JSON: each document is judged
        check = value_check(ctype, flags)
        return all(check(v) is None for v in pc.unique(array).to_pylist())
    if ctype == ColumnType.GEOMETRY:
        return True
    if ctype in BLOB_TYPES or ctype in STRING_TYPES:
        return not flags & ColumnFlag.BINARY  # text in a column of bytes is not valid
    return False


def _all_match(array: pa.Array, pattern: str) -> bool:
    return bool(pc.all(pc.match_substring_regex(array, pattern)).as_py())


def _judged(array: pa.Array, ctype: ColumnType, flags: int, mysql_type: Optional[str]) -> bool:
    """The validation's judge, once per distinct value."""
    return all(v is None or column_problem(ctype, flags, mysql_type, v) is None
               for v in pc.unique(array).to_pylist())
