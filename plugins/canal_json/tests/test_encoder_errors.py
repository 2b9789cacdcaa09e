"""A bad event is an EncodeError naming the table, the image and the column, never a message.

The encoder formats a whole image in one fast pass and only on failure looks for the
column to blame; these tests check that every kind of bad value gets there.
"""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, EncodeError, RowChangedEvent
from cdcwire_canal_json import CanalJSONEncoder, CanalOptions

T, F = ColumnType, ColumnFlag
KEY = F.HANDLE_KEY | F.PRIMARY_KEY
MODES = [CanalOptions(), CanalOptions(tidb_extension=True), CanalOptions(only_updated_columns=True, content_compatible=True)]


def _row(column: Column) -> tuple[Column, ...]:
    return (Column("id", T.INT, KEY, 1, "int(11)"), column, Column("z", T.VARCHAR, F(0), "z", "varchar(4)"))


# (column type, flags, a value of the wrong Python type)
BAD_VALUES = [
    (T.INT, F(0), 1.5),
    (T.BIGINT, F.UNSIGNED, "1"),
    (T.ENUM, F(0), [1]),
    (T.FLOAT, F(0), True),
    (T.FLOAT, F(0), "1.5"),
    (T.FLOAT, F(0), 1e300),  # past the float32 range
    (T.DOUBLE, F(0), "1.5"),
    (T.DOUBLE, F(0), 10**400),  # no float64 holds it
    (T.VARCHAR, F(0), b"bytes"),
    (T.DECIMAL, F(0), 1.5),
    (T.VARCHAR, F.BINARY, "text"),
    (T.BLOB, F.BINARY, bytearray(b"x")),
    (T.NULL, F(0), 1),
]


@pytest.mark.parametrize("ctype,flags,value", BAD_VALUES)
@pytest.mark.parametrize("options", MODES)
def test_a_value_of_the_wrong_type_names_its_column_and_image(ctype, flags, value, options):
    bad = _row(Column("c", ctype, flags, value))
    good = _row(Column("c", ctype, flags, None))
    encoder = CanalJSONEncoder(options)
    cases = {
        "columns": [RowChangedEvent(1, "s", "t", bad, None), RowChangedEvent(1, "s", "t", bad, good)],
        "pre_columns": [RowChangedEvent(1, "s", "t", None, bad), RowChangedEvent(1, "s", "t", good, bad)],
    }
    for image, events in cases.items():
        for event in events:
            with pytest.raises(EncodeError, match=rf"s\.t {image} column 'c' \({ctype.name}\): cannot write"):
                encoder.encode_event(event)


def test_a_lone_surrogate_is_an_encode_error():
    event = RowChangedEvent(1, "s", "t", _row(Column("c", T.VARCHAR, F(0), "a\ud800")), None)
    with pytest.raises(EncodeError, match="U\\+D800"):
        CanalJSONEncoder(CanalOptions()).encode_event(event)


def test_update_images_must_name_the_same_columns():
    new = _row(Column("c", T.INT, F(0), 1))
    old = (new[0], Column("other", T.INT, F(0), 1), new[2])
    for options in MODES:
        with pytest.raises(EncodeError, match="same columns in the same order"):
            CanalJSONEncoder(options).encode_event(RowChangedEvent(1, "s", "t", new, old))


@pytest.mark.parametrize("ts", [-1, 1 << 64, 1.0, True])
def test_commit_ts_must_be_an_unsigned_64_bit_integer(ts):
    with pytest.raises(EncodeError, match="not an unsigned 64-bit integer"):
        CanalJSONEncoder(CanalOptions()).encode_event(RowChangedEvent(ts, "s", "t", _row(Column("c", T.INT, F(0), 1)), None))


def test_a_good_row_after_a_bad_one_of_the_same_table_is_written():
    encoder = CanalJSONEncoder(CanalOptions())
    with pytest.raises(EncodeError):
        encoder.encode_event(RowChangedEvent(1, "s", "t", _row(Column("c", T.INT, F(0), "x")), None))
    assert b'"c":"7"' in encoder.encode_event(RowChangedEvent(1, "s", "t", _row(Column("c", T.INT, F(0), 7)), None))


def test_a_tinyint_whose_type_text_is_varchar_is_refused_not_sent_as_a_varchar():
    event = RowChangedEvent(5, "s", "t", (Column("c", ColumnType.TINYINT, ColumnFlag(0), 1, "varchar(10)"),))
    with pytest.raises(EncodeError, match="type code TINYINT and type text 'varchar.10.' disagree"):
        cdcwire.encode("canal-json", [event])
