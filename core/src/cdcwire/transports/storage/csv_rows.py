"""csv records to row events, typed by the table version's schema file.

A record is ``op, table, schema, [commit-ts], [is-update], col1..colN`` (TiCDC's
``csv_message.go``): ``I`` an insert, ``D`` a delete, ``U`` an update. TiCDC writes only the
new image of an update, so a ``U`` row's ``pre_columns`` are the key columns of that image
(the key that identifies the row), or the whole image for a table without a key. With
``output-old-value`` an update is two records, ``D`` then ``I``, both with is-update
``true``: they are read back as the one update they were. Without ``include-commit-ts`` the
rows carry no commit ts: they get the table version's (the schema's ts, a lower bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

from ...model.events import Column, Columns, RowChangedEvent, build_column, build_row_event
from ...values.type_codes import ColumnFlag
from .csv_fields import CsvDialect, CsvSyntaxError, Field, records
from .places import LayoutError, Place
from .table_columns import ColumnSpec

HEADER_META = ("ticdc-meta$operation", "ticdc-meta$table", "ticdc-meta$schema")
COMMIT_TS_HEADER = "ticdc-meta$commit-ts"
IS_UPDATE_HEADER = "ticdc-meta$is-update"


@dataclass(frozen=True, slots=True)
class CsvOptions:
    dialect: CsvDialect
    include_commit_ts: bool = False
    output_old_value: bool = False
    header: bool = False

    @property
    def meta_fields(self) -> int:
        return 3 + self.include_commit_ts + self.output_old_value

    def header_names(self, specs: tuple[ColumnSpec, ...]) -> list[str]:
        return self.header_names_of([s.name for s in specs])

    def header_names_of(self, columns: list[str]) -> list[str]:
        """TiCDC's header: the meta names, then the columns'."""
        names = list(HEADER_META)
        if self.include_commit_ts:
            names.append(COMMIT_TS_HEADER)
        if self.output_old_value:
            names.append(IS_UPDATE_HEADER)
        return names + columns


@dataclass(frozen=True, slots=True)
class Placed:
    """An event and where it came from."""

    place: Place
    event: RowChangedEvent


def csv_events(
    text: str, path: str, specs: tuple[ColumnSpec, ...], options: CsvOptions, default_ts: int,
    table_id: Optional[int] = None,
) -> Iterator[Placed]:
    """The row events of one csv data file, in file order; a LayoutError names path and line."""
    width = options.meta_fields + len(specs)
    pending: Optional[tuple[int, list[Field], Columns]] = None  # the D half of an old-value update
    try:
        rows = records(text, options.dialect)
        for number, (line, fields) in enumerate(rows):
            place = Place(path, line)
            if number == 0 and options.header:
                _check_header(fields, options.header_names(specs), place)
                continue
            if len(fields) != width:
                raise LayoutError(
                    place,
                    f"{len(fields)} fields, the schema file's {len(specs)} columns need {width}"
                    f" ({options.meta_fields} before them: check delimiter, include-commit-ts, output-old-value)",
                )
            op, table, schema = fields[0], fields[1], fields[2]
            if table is None or schema is None:
                raise LayoutError(place, "the table or schema field is NULL")
            commit_ts = _commit_ts(fields, options, place) if options.include_commit_ts else default_ts
            is_update = options.output_old_value and fields[options.meta_fields - 1] == "true"
            image = _image(fields[options.meta_fields:], specs, place)
            if pending is not None:
                if op != "I" or not is_update:
                    raise LayoutError(place, "the D row of an update (is-update true) is not followed by its I row")
                before = pending[2]
                pending = None
                yield Placed(place, build_row_event(commit_ts, schema, table, image, before, table_id))
                continue
            if op == "I":
                yield Placed(place, build_row_event(commit_ts, schema, table, image, None, table_id))
            elif op == "D" and is_update:
                pending = (line, fields, image)
            elif op == "D":
                yield Placed(place, build_row_event(commit_ts, schema, table, None, image, table_id))
            elif op == "U":
                yield Placed(place, build_row_event(commit_ts, schema, table, image, _key_image(image), table_id))
            else:
                raise LayoutError(place, f"operation {op!r} is none of I, U, D (is the delimiter right?)")
    except CsvSyntaxError as exc:
        raise LayoutError(Place(path, exc.line), str(exc)) from None
    if pending is not None:
        raise LayoutError(Place(path, pending[0]), "the file ends after the D row of an update, before its I row")


def _check_header(fields: list[Field], expected: list[str], place: Place) -> None:
    if fields != expected:
        got = ",".join("NULL" if f is None else f for f in fields)
        raise LayoutError(place, f"the header is {got[:200]!r}; the schema file says {','.join(expected)[:200]!r}")


def _commit_ts(fields: list[Field], options: CsvOptions, place: Place) -> int:
    text = fields[3]
    if text is None or not text.isdigit() or int(text) >= 1 << 64:
        raise LayoutError(place, f"commit ts {text!r} is not a ts (include-commit-ts=true: the 4th field)")
    return int(text)


def _image(values: list[Field], specs: tuple[ColumnSpec, ...], place: Place) -> Columns:
    out = []
    for spec, text in zip(specs, values):
        if text is None:
            value = None
        else:
            try:
                value = spec.read(text)
            except (ValueError, OverflowError) as exc:  # OverflowError: a FLOAT past float32
                raise LayoutError(place, f"column {spec.name!r} ({spec.mysql_type}): {exc}") from None
        out.append(build_column(spec.name, spec.type, spec.flags, value, spec.mysql_type))
    return tuple(out)


def _key_image(image: Columns) -> Columns:
    key = tuple(c for c in image if c.flags & ColumnFlag.HANDLE_KEY)
    return key or image


__all__ = ["Column", "CsvOptions", "Placed", "csv_events"]
