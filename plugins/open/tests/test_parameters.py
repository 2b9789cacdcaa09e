"""Each sink-URI parameter's effect on what open-protocol writes and carries."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent, SinkURIError
from cdcwire.testing.conformance import round_trip
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
URI = "file:///tmp/cdcwire-open/t?protocol=open-protocol"
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def config(**params: object):
    return cdcwire.parse_sink_uri(URI + "".join(f"&{k}={v}" for k, v in params.items()))


def value_json(event: RowChangedEvent, **params: object) -> dict:
    c = config(**params)
    [payload] = open_sink(c).codec.encoder(c, "t", 0).encode([event])
    return json.loads(payload.value[8:])


def read_back(event: RowChangedEvent, **params: object) -> RowChangedEvent:
    c = config(**params)
    _, [back] = round_trip(c, [event])
    assert back == open_sink(c).codec.carrier(c)(event)
    return back


def image(id_: int, a: str, b: int) -> tuple[Column, ...]:
    return (Column("id", T.INT, KEY, id_), Column("a", T.VARCHAR, F(0), a), Column("b", T.INT, F(0), b))


UPDATE = RowChangedEvent(10, "test", "t", image(1, "new", 5), image(1, "old", 5))
DELETE = RowChangedEvent(11, "test", "t", None, image(2, "gone", 9))


def test_update_carries_u_and_p_by_default() -> None:
    body = value_json(UPDATE)
    assert set(body) == {"u", "p"} and body["p"]["a"]["v"] == "old"
    assert read_back(UPDATE).is_update


def test_enable_old_value_false_drops_p_so_the_update_reads_back_as_an_upsert() -> None:
    assert set(value_json(UPDATE, **{"enable-old-value": "false"})) == {"u"}
    back = read_back(UPDATE, **{"enable-old-value": "false"})
    assert back.pre_columns is None and [c.value for c in back.columns] == [1, "new", 5]


def test_enable_old_value_false_cuts_deletes_to_handle_key_columns() -> None:
    assert list(value_json(DELETE, **{"enable-old-value": "false"})["d"]) == ["id"]


def test_delete_carries_every_column_by_default() -> None:
    assert list(value_json(DELETE)["d"]) == ["id", "a", "b"]
    assert [c.name for c in read_back(DELETE).pre_columns] == ["id", "a", "b"]


def test_delete_only_output_handle_key_columns_keeps_just_the_key() -> None:
    params = {"delete-only-output-handle-key-columns": "true"}
    assert value_json(DELETE, **params) == {"d": {"id": {"t": 3, "h": True, "f": 10, "v": 2}}}
    assert [c.name for c in read_back(DELETE, **params).pre_columns] == ["id"]


def test_delete_only_output_handle_key_columns_leaves_updates_whole() -> None:
    assert list(value_json(UPDATE, **{"delete-only-output-handle-key-columns": "true"})["p"]) == ["id", "a", "b"]


def test_only_output_updated_columns_keeps_changed_old_columns() -> None:
    params = {"only-output-updated-columns": "true"}
    body = value_json(UPDATE, **params)
    assert list(body["p"]) == ["a"] and list(body["u"]) == ["id", "a", "b"]
    assert [c.name for c in read_back(UPDATE, **params).pre_columns] == ["a"]


def test_only_output_updated_columns_with_nothing_changed_leaves_p_out_as_the_reference_does() -> None:
    same = RowChangedEvent(12, "test", "t", image(1, "x", 1), image(1, "x", 1))
    params = {"only-output-updated-columns": "true"}
    assert set(value_json(same, **params)) == {"u"}
    back = read_back(same, **params)
    assert back.is_insert and back.columns == same.columns  # an upsert of the same values


def test_only_output_updated_columns_does_not_touch_inserts_or_deletes() -> None:
    params = {"only-output-updated-columns": "true"}
    assert list(value_json(DELETE, **params)["d"]) == ["id", "a", "b"]


def test_max_batch_size_must_be_positive() -> None:
    with pytest.raises(SinkURIError) as info:
        config(**{"max-batch-size": 0})
    assert info.value.parameter == "max-batch-size"


def test_large_message_handle_option_rejects_unknown_modes() -> None:
    with pytest.raises(SinkURIError) as info:
        config(**{"large-message-handle-option": "split-in-two"})
    assert info.value.parameter == "large-message-handle-option"


def test_enable_old_value_must_be_a_boolean() -> None:
    with pytest.raises(SinkURIError) as info:
        config(**{"enable-old-value": "maybe"})
    assert info.value.parameter == "enable-old-value"


def test_canal_only_parameters_are_unknown_to_open_protocol() -> None:
    with pytest.raises(SinkURIError) as info:
        config(**{"enable-tidb-extension": "true"})
    assert info.value.parameter == "enable-tidb-extension"


def test_default_alias_selects_open_protocol() -> None:
    assert cdcwire.parse_sink_uri("file:///tmp/x/t?protocol=default").protocol == "open-protocol"


PARAMETER_SETS = [
    {"enable-old-value": "false"},
    {"only-output-updated-columns": "true"},
    {"delete-only-output-handle-key-columns": "true"},
    {"large-message-handle-option": "handle-key-only", "max-message-bytes": 700},  # every row cut to its key
    {"large-message-handle-option": "handle-key-only", "max-message-bytes": 2000},  # some rows cut, some whole
    {"only-output-updated-columns": "true", "large-message-handle-option": "handle-key-only", "max-message-bytes": 900,
     "max-batch-size": 2},
]


@pytest.mark.parametrize("params", PARAMETER_SETS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_round_trip_matches_carried_under_each_parameter(params: dict) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from cdcwire.testing.strategies import all_types_table, row_events

    c = config(**params)

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(row_events(all_types_table()), min_size=1, max_size=6))
    def check(events: list) -> None:
        _, got = round_trip(c, events)
        assert got == [open_sink(c).codec.carrier(c)(e) for e in events]

    check()
