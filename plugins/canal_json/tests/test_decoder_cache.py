"""The decoder checks a table's mysqlType, sqlType and pkNames in full once and then only
compares: a message that differs in any of them is read (or rejected) as a fresh decoder would.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from cdcwire import ColumnFlag, ColumnType, DecodeError, Message
from cdcwire_canal_json import CanalJSONDecoder, CanalOptions
from cdcwire.sinks.sink import open_sink

from canal_cases import canal_config, tp_int_insert

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def _good() -> dict[str, Any]:
    config = canal_config()
    return json.loads(next(open_sink(config).codec.encoder(config, "t", 0).encode([tp_int_insert()])).value)


def _decode(decoder: CanalJSONDecoder, doc: dict[str, Any]) -> Any:
    (event,) = decoder.decode(Message("t", 0, None, json.dumps(doc).encode()))
    return event


def _variant(change) -> dict[str, Any]:
    doc = copy.deepcopy(_good())
    change(doc)
    return doc


def _warm_and_cold(doc: dict[str, Any]) -> tuple[Any, Any]:
    """The outcome of ``doc`` on a decoder that just read the good message, and on a fresh one."""
    outcomes = []
    for warm in (True, False):
        decoder = CanalJSONDecoder(CanalOptions())
        if warm:
            _decode(decoder, _good())
        try:
            outcomes.append(_decode(decoder, doc))
        except DecodeError as exc:
            outcomes.append(("DecodeError", str(exc)))
    return outcomes[0], outcomes[1]


def _set(path: str, value: Any):
    field, _, name = path.partition(".")

    def change(doc: dict[str, Any]) -> None:
        target = doc[field][0] if field in ("data", "old") and isinstance(doc[field], list) else doc[field]
        if name:
            target[name] = value
        else:
            doc[field] = value
    return change


CHANGES = {
    "mysqlType text": _set("mysqlType.c_int", "bigint"),
    "mysqlType unsigned": _set("mysqlType.c_int", "int unsigned"),
    "mysqlType unknown": _set("mysqlType.c_int", "hugeint"),
    "mysqlType not a string": _set("mysqlType.c_int", 4),
    "mysqlType a list": _set("mysqlType", ["int"]),
    "mysqlType extra column": _set("mysqlType.extra", "int"),
    "sqlType a boolean equal to 1": _set("sqlType.c_int", True),
    "sqlType a float equal to 4": _set("sqlType.c_int", 4.0),
    "sqlType a string": _set("sqlType.c_int", "4"),
    "sqlType names another column": lambda doc: doc["sqlType"].update(other=doc["sqlType"].pop("c_int")),
    "sqlType null": _set("sqlType", None),
    "pkNames changed": _set("pkNames", ["c_int"]),
    "pkNames null": _set("pkNames", None),
    "pkNames not names": _set("pkNames", [1]),
    "pkNames repeated": _set("pkNames", ["id", "id"]),
    "data reordered": lambda doc: doc["data"].__setitem__(0, dict(reversed(doc["data"][0].items()))),
    "data without a column": lambda doc: doc["data"][0].pop("c_int"),
    "data with an unknown column": _set("data.zz", "1"),
    "table renamed": _set("table", "other"),
}


@pytest.mark.parametrize("sql_type", [{}, None])
def test_a_table_without_columns_reads_the_same_every_time(sql_type):
    doc = _variant(lambda d: d.update(mysqlType=None, sqlType=sql_type, pkNames=None, data=[{}]))
    decoder = CanalJSONDecoder(CanalOptions())
    first, second = _decode(decoder, doc), _decode(decoder, doc)
    assert first == second and first.columns == ()
    assert _warm_and_cold(doc) == (first, first)


@pytest.mark.parametrize("change", CHANGES)
def test_a_warm_decoder_reads_a_changed_message_as_a_fresh_one_does(change):
    warm, cold = _warm_and_cold(_variant(CHANGES[change]))
    assert warm == cold


def test_a_changed_mysql_type_changes_the_decoded_type():
    decoder = CanalJSONDecoder(CanalOptions())
    first = _decode(decoder, _good())
    second = _decode(decoder, _variant(_set("mysqlType.c_int", "int unsigned")))
    c_int = next(c for c in first.columns if c.name == "c_int")
    changed = next(c for c in second.columns if c.name == "c_int")
    assert c_int.flags == ColumnFlag(0) and changed.flags == ColumnFlag.UNSIGNED
    assert _decode(decoder, _good()) == first


def test_sql_type_booleans_and_floats_are_rejected_even_after_the_same_table_was_read():
    decoder = CanalJSONDecoder(CanalOptions())
    _decode(decoder, _good())
    for bad in (True, 4.0):
        with pytest.raises(DecodeError, match=r"'sqlType.c_int' must be an integer"):
            _decode(decoder, _variant(_set("sqlType.c_int", bad)))


def test_pk_names_and_key_only_deletes_set_the_key_flags_per_message():
    decoder = CanalJSONDecoder(CanalOptions(delete_handle_key_only=True))
    insert = _decode(decoder, _good())
    delete = _decode(decoder, _variant(_set("type", "DELETE")))
    no_pk = _decode(decoder, _variant(_set("pkNames", None)))
    assert insert.columns[0].flags == KEY and insert.columns[1].flags == ColumnFlag(0)
    assert all(c.flags & ColumnFlag.HANDLE_KEY for c in delete.pre_columns)
    assert all(c.flags == ColumnFlag(0) for c in no_pk.columns)


def test_columns_come_in_the_order_of_data_whatever_the_order_of_mysql_type():
    decoder = CanalJSONDecoder(CanalOptions())
    _decode(decoder, _good())
    reordered = _decode(decoder, _variant(CHANGES["data reordered"]))
    assert [c.name for c in reordered.columns] == list(reversed(_good()["data"][0]))
    assert [c.type for c in reordered.columns][-2:] == [ColumnType.TINYINT, ColumnType.INT]


@pytest.mark.parametrize("mysql_type", ["int", "varchar", "double", "float", "blob", "decimal", "enum", "null"])
@pytest.mark.parametrize("value", [1, 1.5, True, [], {}, ["1"]])
def test_a_value_that_is_not_a_string_is_rejected_for_every_kind_of_column(mysql_type, value):
    doc = _variant(_set("mysqlType.c_int", mysql_type))
    doc["data"][0]["c_int"] = value
    for warm in (False, True):
        decoder = CanalJSONDecoder(CanalOptions())
        if warm:
            _decode(decoder, _variant(_set("mysqlType.c_int", mysql_type)) if mysql_type != "null" else _good())
        with pytest.raises(DecodeError, match=r"'data\[0\].c_int' must be a string or null"):
            _decode(decoder, doc)


def _update(old_changes: dict[str, Any]) -> dict[str, Any]:
    doc = _variant(_set("type", "UPDATE"))
    doc["old"] = [dict(doc["data"][0], **old_changes)]
    return doc


def test_an_update_reads_its_unchanged_columns_exactly_as_the_new_image():
    decoder = CanalJSONDecoder(CanalOptions())
    event = _decode(decoder, _update({"c_int": "5", "c_tinyint": None}))
    fresh = _decode(CanalJSONDecoder(CanalOptions()), _update({"c_int": "5", "c_tinyint": None}))
    assert event == fresh
    old = {c.name: c.value for c in event.pre_columns}
    new = {c.name: c.value for c in event.columns}
    assert old == dict(new, c_int=5, c_tinyint=None)
    assert [c.name for c in event.pre_columns] == [c.name for c in event.columns]


@pytest.mark.parametrize("bad,message", [
    ("12x", r"'old\[0\].c_int' is not a INT value"),
    (12, r"'old\[0\].c_int' must be a string or null, got a number"),
    ([], r"'old\[0\].c_int' must be a string or null, got a list"),
])
def test_a_bad_old_value_is_named_beside_unchanged_columns(bad, message):
    for warm in (False, True):
        decoder = CanalJSONDecoder(CanalOptions())
        if warm:
            _decode(decoder, _update({}))
        with pytest.raises(DecodeError, match=message):
            _decode(decoder, _update({"c_int": bad}))
