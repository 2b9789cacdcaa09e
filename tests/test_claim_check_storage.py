"""Claim-check storage on a real S3-compatible server (moto, on 127.0.0.1) and on file://.

The store is the one every codec uses (``cdcwire.large_messages``); these tests hold it
to S3 itself, and show the errors a writer and a reader get when the storage fails.
"""

from __future__ import annotations

import base64
import json
import logging
from urllib.parse import quote

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DecodeError, RowChangedEvent
from cdcwire.foundation.errors import TransportError
from cdcwire.large_messages.claim_check import claim_check_store
from cdcwire.large_messages.storage import ObjectMissing, Storage
from cdcwire.model.message import Message
from fixtures.s3_server import ACCESS_KEY, SECRET_KEY, S3Bucket

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
BIG = RowChangedEvent(
    10, "shop", "doc", (Column("id", ColumnType.BIGINT, KEY, 1), Column("body", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "x" * 3000))
)


def sink(protocol: str, storage_uri: str, **params: str) -> str:
    base = f"file:///tmp/cdcwire-claim-check/t?protocol={protocol}&max-message-bytes=1000"
    params = {"large-message-handle-option": "claim-check", "claim-check-storage-uri": storage_uri, **params}
    if protocol == "canal-json":
        params["enable-tidb-extension"] = "true"
    return base + "".join(f"&{k}={quote(v, safe='')}" for k, v in params.items())


def test_an_object_put_on_s3_reads_back_whole(s3_bucket: S3Bucket) -> None:
    storage = Storage.parse(s3_bucket.storage_uri("p/q"))
    storage.put("one.json", b"payload")
    assert s3_bucket.keys() == ["p/q/one.json"]
    assert storage.get("one.json") == b"payload"


def test_a_missing_s3_object_is_object_missing(s3_bucket: S3Bucket) -> None:
    with pytest.raises(ObjectMissing, match="nothing.json"):
        Storage.parse(s3_bucket.storage_uri()).get("nothing.json")


def test_the_store_writes_the_reference_object_to_s3(s3_bucket: S3Bucket) -> None:
    location = claim_check_store(s3_bucket.storage_uri()).store(b"k", b"v")
    [key] = s3_bucket.keys()
    assert location == f"s3://{s3_bucket.name}/{key}" and key.endswith(".json")
    body = s3_bucket.client().get_object(Bucket=s3_bucket.name, Key=key)["Body"].read()
    assert json.loads(body) == {"key": base64.b64encode(b"k").decode(), "value": base64.b64encode(b"v").decode()}


@pytest.mark.parametrize("protocol", ["open-protocol", "canal-json"])
def test_a_claim_checked_row_round_trips_through_s3(s3_bucket: S3Bucket, protocol: str) -> None:
    uri = sink(protocol, s3_bucket.storage_uri())
    messages = cdcwire.encode(uri, [BIG])
    assert len(s3_bucket.keys()) == 1
    [event] = cdcwire.decode(uri, messages)
    assert event.columns[1].value == "x" * 3000 and not event.handle_key_only


def test_an_s3_object_deleted_before_the_read_is_a_decode_error_naming_it(s3_bucket: S3Bucket) -> None:
    uri = sink("open-protocol", s3_bucket.storage_uri())
    [message] = cdcwire.encode(uri, [BIG])
    [key] = s3_bucket.keys()
    s3_bucket.client().delete_object(Bucket=s3_bucket.name, Key=key)
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(uri, [Message("t", 1, message.key, message.value, offset=7)])
    assert key.rsplit("/", 1)[1] in str(info.value) and "t/1/7" in str(info.value)


def test_an_unreachable_storage_fails_the_write_naming_it_and_no_secret() -> None:
    dead = f"s3://bucket/p?endpoint=http://127.0.0.1:9&access-key={ACCESS_KEY}&secret-access-key={SECRET_KEY}"
    with pytest.raises(TransportError) as info:
        cdcwire.encode(sink("open-protocol", dead), [BIG])
    text = str(info.value)
    assert "s3://bucket/p" in text and "127.0.0.1:9" in text
    assert SECRET_KEY not in text and ACCESS_KEY not in text


def test_the_storage_repr_and_errors_mask_the_keys(s3_bucket: S3Bucket) -> None:
    storage = Storage.parse(s3_bucket.storage_uri())
    assert SECRET_KEY not in repr(storage) and ACCESS_KEY not in repr(storage)
    assert SECRET_KEY not in repr(claim_check_store(s3_bucket.storage_uri()))


def test_a_file_storage_object_appears_whole_or_not_at_all(tmp_path) -> None:
    storage = Storage.parse(f"file://{tmp_path}")
    storage.put("a.json", b"x" * 100_000)
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]  # nothing left aside
    assert storage.get("a.json") == b"x" * 100_000


def test_the_storage_keys_are_masked_wherever_a_sink_is_shown(s3_bucket: S3Bucket) -> None:
    from cdcwire.large_messages import LargeMessageOptions
    from cdcwire.sinks.sink import open_sink

    config = cdcwire.parse_sink_uri(sink("open-protocol", s3_bucket.storage_uri()))
    shown = [repr(config), repr(config.params), config.redacted_uri, repr(open_sink(config)),
             repr(LargeMessageOptions.from_config(config))]
    assert not [text for text in shown if SECRET_KEY in text or ACCESS_KEY in text]


TOKEN = "cdcwire-test-session-token-never-shown"


def test_botocore_debug_logging_shows_no_key_and_no_session_token(s3_bucket: S3Bucket, caplog) -> None:
    storage = Storage.parse(s3_bucket.storage_uri() + f"&session-token={TOKEN}")
    with caplog.at_level(logging.DEBUG):
        storage.put("one.json", b"payload")
        assert storage.get("one.json") == b"payload"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "'X-Amz-Security-Token': b'***'" in logged  # the signed request headers were logged, masked
    assert ACCESS_KEY not in logged and SECRET_KEY not in logged and TOKEN not in logged


def test_a_storage_uri_encoded_twice_is_refused_and_shown_nowhere_with_its_keys(s3_bucket: S3Bucket) -> None:
    twice = quote(quote(s3_bucket.storage_uri() + f"&session-token={TOKEN}", safe=""), safe="")
    uri = sink("open-protocol", "x").replace(f"claim-check-storage-uri={quote('x')}", f"claim-check-storage-uri={twice}")
    with pytest.raises(cdcwire.SinkURIError, match="percent-encoded more than once") as info:
        cdcwire.parse_sink_uri(uri)
    from cdcwire.uris.sink_uri import split_sink_uri

    shown = [str(info.value), repr(split_sink_uri(uri))]
    assert not [text for text in shown if ACCESS_KEY in text or SECRET_KEY in text or TOKEN in text]
