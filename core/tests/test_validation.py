"""The one validation of an event (cdcwire.model.validation), and where the core applies it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import cdcwire
from cdcwire.api.codec_calls import CheckedDecoder, CheckedEncoder
from cdcwire.values.type_codes import ColumnFlag as F
from cdcwire.values.type_codes import ColumnType as T
from cdcwire.values.type_codes import DDLType
from cdcwire.foundation.errors import DecodeError, EncodeError, InvalidEventError
from cdcwire.model.events import Column, DDLEvent, ResolvedEvent, RowChangedEvent
from cdcwire.model.message import Message
from cdcwire.testing import strategies
from cdcwire.testing.broken_events import broken_row_events
from cdcwire.model.validation import check_event, is_valid

U = F.UNSIGNED
B = F.BINARY


def row(*columns: Column, schema: str = "s", table: str = "t", ts: int = 5) -> RowChangedEvent:
    return RowChangedEvent(ts, schema, table, tuple(columns))


def col(type_: T, value, flags: F = F(0), name: str = "c") -> Column:
    return Column(name, type_, flags, value)


@settings(max_examples=200, deadline=None)
@given(strategies.events())
def test_every_generated_event_is_valid(event):
    check_event(event)


@pytest.mark.parametrize(
    "column",
    [
        col(T.TINYINT, -128),
        col(T.TINYINT, 255, U),
        col(T.BIGINT, (1 << 64) - 1, U),
        col(T.YEAR, 0),
        col(T.FLOAT, 3.4028234663852886e38),
        col(T.DOUBLE, -0.0),
        col(T.DECIMAL, "-12.50"),
        col(T.DECIMAL, ".5"),
        col(T.DECIMAL, "1.5E+3"),
        col(T.DATE, "0000-00-00"),
        col(T.DATE, "2024-00-00"),
        col(T.DATETIME, "2024-02-29 23:59:59.123456"),
        col(T.TIMESTAMP, "0000-00-00 00:00:00"),
        col(T.TIME, "-838:59:59"),
        col(T.TIME, "12:00:00.5"),
        col(T.VARCHAR, "caf\u00e9 \x00 nul is a character"),
        col(T.VARCHAR, b"\xff\x00", B),
        col(T.GEOMETRY, b"\x00\x01"),
        col(T.NULL, None),
        col(T.JSON, '{"a": 1}', B),
    ],
    ids=repr,
)
def test_values_of_their_types_kind_and_range_pass(column):
    check_event(row(column))


@pytest.mark.parametrize(
    "column, field, words",
    [
        (col(T.TINYINT, 300), "columns[0].value", "300 is outside -128..127, the range of TINYINT"),
        (col(T.TINYINT, 99999), "columns[0].value", "outside -128..127"),
        (col(T.INT, -1, U), "columns[0].value", "the range of INT UNSIGNED"),
        (col(T.BIGINT, 1 << 64, U), "columns[0].value", "outside 0..18446744073709551615"),
        (col(T.INT, True), "columns[0].value", "must be an integer, got bool"),
        (col(T.INT, "1"), "columns[0].value", "must be an integer, got str"),
        (col(T.DOUBLE, float("nan")), "columns[0].value", "must be finite"),
        (col(T.DOUBLE, float("-inf")), "columns[0].value", "must be finite"),
        (col(T.FLOAT, 1e39), "columns[0].value", "outside the range of FLOAT (float32)"),
        (col(T.DOUBLE, 1), "columns[0].value", "must be a float, got int"),
        (col(T.VARCHAR, b"\xff"), "columns[0].value", "without the BINARY flag must be str, got bytes"),
        (col(T.BLOB, "text", B), "columns[0].value", "with the BINARY flag must be bytes, got str"),
        (col(T.VARCHAR, "a\ud800"), "columns[0].value", "lone surrogate '\\ud800' at character 1"),
        (col(T.DECIMAL, "abc"), "columns[0].value", "'abc' is not a decimal number"),
        (col(T.DECIMAL, "NaN"), "columns[0].value", "is not a decimal number"),
        (col(T.DECIMAL, " 1"), "columns[0].value", "is not a decimal number"),
        (col(T.DATE, "2024-13-45"), "columns[0].value", "'2024-13-45' is not a DATE of the form YYYY-MM-DD"),
        (col(T.DATE, "999-01-01"), "columns[0].value", "is not a DATE"),
        (col(T.DATETIME, "2024-01-01 24:00:00"), "columns[0].value", "is not a DATETIME"),
        (col(T.DATETIME, "2024-01-01 00:00:00.1234567"), "columns[0].value", "is not a DATETIME"),
        (col(T.TIME, "839:00:00"), "columns[0].value", "hours up to 838"),
        (col(T.NULL, 0), "columns[0].value", "can only hold None"),
        (col(T.INT, 1, F(1 << 63)), "columns[0].flags", "0..2^63-1, got 9223372036854775808"),
        (col(T.INT, 1, -1), "columns[0].flags", "0..2^63-1, got -1"),
        (col(999, 1), "columns[0].type", "must be a ColumnType, got int 999"),
        (col(3, 1), "columns[0].type", "must be a ColumnType, got int 3"),
        (col(T.INT, 1, name="a\x00b"), "columns[0].name", "NUL character at character 1"),
        (col(T.INT, 1, name=7), "columns[0].name", "must be a string, got int"),
        (Column("c", T.INT, F(0), 1, "int\udc00"), "columns[0].mysql_type", "mysql_type holds a lone"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_a_column_breaking_a_rule_is_named_with_the_field_and_the_rule(column, field, words):
    with pytest.raises(InvalidEventError) as info:
        check_event(row(column))
    assert info.value.field == field
    assert info.value.event == "s.t@5"
    assert info.value.column == "'c'" or field == "columns[0].name"
    assert words in str(info.value)


def test_a_column_name_twice_in_one_image_is_refused():
    with pytest.raises(InvalidEventError, match=r"columns\[1\]\.name .*column 'a' appears twice"):
        check_event(row(col(T.INT, 1, name="a"), col(T.INT, 2, name="a")))


def test_the_same_name_in_the_old_and_the_new_image_is_fine():
    image = (col(T.INT, 1, name="a"),)
    check_event(RowChangedEvent(1, "s", "t", image, image))


@pytest.mark.parametrize(
    "event, field, words",
    [
        (RowChangedEvent(-1, "s", "t", (col(T.INT, 1),)), "commit_ts", "0..2^64-1, got -1"),
        (RowChangedEvent(1 << 64, "s", "t", (col(T.INT, 1),)), "commit_ts", "0..2^64-1"),
        (RowChangedEvent(1, "s\ud800", "t", (col(T.INT, 1),)), "schema", "lone surrogate"),
        (RowChangedEvent(1, "s", "t\x00", (col(T.INT, 1),)), "table", "NUL character"),
        (RowChangedEvent(1, "s", "t", ()), "columns", "empty image"),
        (RowChangedEvent(1, "s", "t", None, ()), "pre_columns", "empty image"),
        (RowChangedEvent(1, "s", "t", [col(T.INT, 1)]), "columns", "must be a tuple of Columns, got list"),
        (RowChangedEvent(1, "s", "t", ("x",)), "columns[0]", "must be a Column, got str"),
        (RowChangedEvent(1, "s", "t", (col(T.INT, 1),), table_id=1 << 63), "table_id", "signed 64-bit"),
        (DDLEvent(1, "s", "t", None, DDLType.CREATE_TABLE), "query", "query must be a string, got NoneType"),
        (DDLEvent(1, "s", "t", "q\ud800", DDLType.CREATE_TABLE), "query", "lone surrogate"),
        (DDLEvent(1, "s", "t", "q", 999), "ddl_type", "must be a DDLType, got int 999"),
        (DDLEvent(-5, "", "", "q", DDLType.CREATE_TABLE), "commit_ts", "0..2^64-1"),
        (ResolvedEvent(1 << 64), "ts", "0..2^64-1"),
        (ResolvedEvent(-1), "ts", "0..2^64-1"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_an_event_breaking_a_rule_is_named_with_the_field_and_the_rule(event, field, words):
    with pytest.raises(InvalidEventError) as info:
        check_event(event)
    assert info.value.field == field
    assert words in str(info.value)


def test_a_ddl_event_may_have_empty_schema_and_table():
    check_event(DDLEvent(1, "", "", "CREATE DATABASE x", DDLType.CREATE_SCHEMA))


def test_something_that_is_not_an_event_is_refused():
    with pytest.raises(InvalidEventError, match="not a cdcwire event: a dict"):
        check_event({"type": "row"})


def test_an_error_names_an_unprintable_table_escaped_so_it_always_prints():
    with pytest.raises(InvalidEventError) as info:
        check_event(RowChangedEvent(1, "s", "t\ud800", (col(T.INT, 1),)))
    assert str(info.value).startswith("s.'t\\ud800'@1: table:")
    str(info.value).encode()  # printable: no lone surrogate in the message itself


def test_a_huge_number_is_shown_cut_in_the_error():
    with pytest.raises(InvalidEventError) as info:
        check_event(row(col(T.BIGINT, 10**400)))
    assert len(str(info.value)) < 200
    assert "(401 characters)" in str(info.value)


def test_is_valid_says_whether_the_check_passes():
    assert is_valid(row(col(T.TINYINT, 1)))
    assert not is_valid(row(col(T.TINYINT, 300)))


# --- where the core applies it -------------------------------------------------------------


class LooseDecoder:
    """A third-party decoder that gives whatever its message says, checked or not."""

    def decode(self, message: Message) -> list:
        return [row(col(T.TINYINT, int(message.value or b"0")))]


def test_encode_refuses_an_invalid_event_with_an_invalid_event_error_that_is_an_encode_error():
    words = r"s\.t@5: columns\[0\]\.value \(column 'c'\): 300 is outside"
    with pytest.raises(EncodeError, match=words) as info:
        cdcwire.encode("echo-json", [row(col(T.TINYINT, 300))])
    assert isinstance(info.value, InvalidEventError)


def test_encode_refuses_a_lone_surrogate_in_a_schema_name():
    with pytest.raises(InvalidEventError, match="schema name holds a lone surrogate"):
        cdcwire.encode("echo-json", [row(col(T.INT, 1), schema="s\ud800")])


def test_a_decoded_invalid_event_is_a_decode_error_naming_the_event_and_the_rule():
    decoder = CheckedDecoder(LooseDecoder())
    assert decoder.decode(Message("t", 0, None, b"7")) == [row(col(T.TINYINT, 7))]
    with pytest.raises(DecodeError, match=r"decodes to an invalid event: s\.t@5: .*999 is outside -128..127"):
        decoder.decode(Message("t", 0, None, b"999"))


def test_decode_names_the_message_of_an_invalid_event():
    line = (
        '{"type":"row","commit_ts":1,"schema":"s","table":"t",'
        '"columns":[{"name":"c","type":"INT","value":1}]}'
    )
    bad = line.replace('"value":1', '"value":1},{"name":"c","type":"INT","value":2')
    with pytest.raises(DecodeError, match=r"^t/0/3: .*column 'c' appears twice"):
        cdcwire.decode("echo-json", [Message("t", 0, None, bad.encode(), 3)])


class QuotingDecoder:
    """A third-party decoder that quotes what it read in its error, lone surrogates and all."""

    def decode(self, message: Message) -> list:
        table = (message.value or b"").decode("utf-8", "surrogatepass")
        raise DecodeError(f"unknown table {table}", 4, "value")


def test_a_decode_error_quoting_a_lone_surrogate_is_escaped_so_it_prints():
    decoder = CheckedDecoder(QuotingDecoder())
    with pytest.raises(DecodeError) as info:
        decoder.decode(Message("t", 0, None, "t\ud800".encode("utf-8", "surrogatepass")))
    assert str(info.value) == "unknown table t\\ud800 (at value byte 4)"
    assert info.value.offset == 4


# --- the columnar counterpart: malformed rows of an event DataFrame ---------------------------


def arrow_carries(event) -> bool:
    """Arrow strings are UTF-8 and its integers 64-bit: some broken events cannot be in a batch."""
    from cdcwire.spark.rows.arrow_events import events_to_batch

    try:
        events_to_batch([event])
    except (UnicodeEncodeError, OverflowError, TypeError, ValueError):
        return False
    except Exception as exc:  # pyarrow's own conversion errors
        return type(exc).__module__.startswith("pyarrow")
    return True


@settings(max_examples=80, deadline=None)
@given(broken_row_events())
def test_a_batch_row_breaking_a_rule_is_malformed_with_the_validations_reason(broken):
    pytest.importorskip("pyarrow")
    from cdcwire.spark.rows.arrow_events import checked_events, events_to_batch

    if not arrow_carries(broken.event):
        return
    batch = events_to_batch([broken.event, broken.event])
    for keys_only in (False, True):
        events, problems = checked_events(batch, keys_only=keys_only)
        assert events == [None, None]
        assert broken.rule in problems[0] or "appears twice" in problems[0], problems[0]


@settings(max_examples=50, deadline=None)
@given(strategies.event_batches())
def test_batch_rows_of_valid_events_are_never_malformed(events):
    pytest.importorskip("pyarrow")
    from cdcwire.spark.rows.arrow_events import checked_events, events_to_batch

    for keys_only in (False, True):
        _, problems = checked_events(events_to_batch(events), keys_only=keys_only)
        assert problems == {}


def test_an_encoder_for_events_checked_already_takes_them_unchecked():
    sink = cdcwire.open_sink("file:///tmp/cdcwire-validation/t?protocol=echo-json")
    from cdcwire.api.codec_calls import encoder_for

    assert isinstance(encoder_for(sink, "t", 0), CheckedEncoder)
    assert not isinstance(encoder_for(sink, "t", 0, events_checked=True), CheckedEncoder)


def typed(type_: T, value, mysql_type: str, flags: F = F(0)) -> Column:
    return Column("c", type_, flags, value, mysql_type)


@pytest.mark.parametrize(
    "column",
    [col(T.DATE, "2024-02-30"), col(T.DATE, "2023-02-29"), col(T.DATE, "1900-02-29"), col(T.DATE, "2024-06-31"),
     col(T.DATETIME, "2023-02-29 10:00:00", B), col(T.TIMESTAMP, "2024-04-31 00:00:00", B)],
    ids=["feb-30", "feb-29-not-leap", "feb-29-century", "jun-31", "datetime", "timestamp"],
)
def test_a_day_its_month_does_not_have_is_refused(column):
    with pytest.raises(InvalidEventError, match="with valid fields"):
        check_event(row(column))


@pytest.mark.parametrize("text", ["2024-02-29", "2000-02-29", "0000-00-00", "2024-00-10", "2024-02-00", "0000-02-29"])
def test_leap_days_and_tidbs_zero_dates_pass(text):
    check_event(row(col(T.DATE, text)))


@pytest.mark.parametrize(
    "column, words",
    [
        (typed(T.ENUM, 3, "enum('a','b')"), "3 is past 2"),
        (typed(T.SET, 4, "set('a','b')"), "4 is past 3"),
        (typed(T.BIT, 1 << 12, "bit(12)", U), "4096 is past 4095"),
        (typed(T.DECIMAL, "123456.5", "decimal(6,1)"), "does not fit decimal"),
        (typed(T.DECIMAL, "1.25", "decimal(6,1)"), "does not fit decimal"),
        (typed(T.DECIMAL, "1E+6", "decimal(6,1)"), "does not fit decimal"),
        (col(T.JSON, "{"), "is not a JSON document"),
        (col(T.JSON, "NaN"), "is not a JSON document"),
    ],
    ids=["enum", "set", "bit", "decimal-whole", "decimal-scale", "decimal-exponent", "json", "json-nan"],
)
def test_a_value_beyond_its_type_text_is_refused(column, words):
    with pytest.raises(InvalidEventError, match=words):
        check_event(row(column))


@pytest.mark.parametrize(
    "column",
    [typed(T.ENUM, 2, "enum('a','b')"), typed(T.ENUM, 0, "enum('a','b')"), typed(T.SET, 3, "set('a','b')"),
     typed(T.BIT, 4095, "bit(12)", U), typed(T.DECIMAL, "-12345.5", "decimal(6,1)"),
     typed(T.DECIMAL, "0.5", "decimal(1,1)"), typed(T.ENUM, 9, "enum"), col(T.JSON, '{"a": [1, null]}')],
)
def test_a_value_within_its_type_text_passes(column):
    check_event(row(column))


@pytest.mark.parametrize(
    "mysql_type, words",
    [("decimal(100000000,2)", "more than DECIMAL's limit of 65"), ("decimal(10,31)", "more than"),
     ("decimal(5,6)", "scale 6 is more than the precision 5"), ("bit(65)", "limit of 64"), ("bit(0)", "1..64"),
     ("varchar(70000)", "limit of 65535"), ("datetime(7)", "limit of 6"), ("json(3)", "does not take"),
     ("frobnicate", "does not start with a MySQL type name"), ("int(11) unsigned )", "not attribute words")],
)
def test_a_type_text_past_mysqls_limits_is_refused_quickly(mysql_type, words):
    base = mysql_type.split("(")[0]
    ctype = {"decimal": T.DECIMAL, "bit": T.BIT, "varchar": T.VARCHAR, "datetime": T.DATETIME, "json": T.JSON}
    with pytest.raises(InvalidEventError, match=r"mysql_type \(column 'c'\).*" + words.replace("(", r"\(")):
        check_event(row(typed(ctype.get(base, T.INT), None, mysql_type)))


def test_a_set_of_65_elements_is_refused():
    elements = ",".join(f"'e{i}'" for i in range(65))
    with pytest.raises(InvalidEventError, match="65 elements, more than SET's 64"):
        check_event(row(typed(T.SET, 1, f"set({elements})")))


def test_a_type_code_and_a_type_text_that_disagree_are_refused():
    with pytest.raises(InvalidEventError, match="type code TINYINT and type text 'varchar.10.' disagree"):
        check_event(row(typed(T.TINYINT, 1, "varchar(10)")))

