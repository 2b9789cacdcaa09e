"""Large rows through the Spark pipeline and Kafka: claim-check on S3 (moto), handle-key-only.

A claim-checked stream written by ``cs.write`` to the broker reads back whole with
``cs.read`` and with ``cdcwire.decode``; a deleted object is an error naming its place
(a malformed row when read permissively); a storage that cannot be reached fails the
write naming it, and leaves no pointer to nothing in the topic.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import cdcwire
from cdcwire import CdcwireError, Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.model.event_json import write_jsonl
from fixtures.s3_server import SECRET_KEY, S3Bucket

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
T = ColumnType


def _row(i: int, size: int) -> RowChangedEvent:
    return RowChangedEvent(
        1000 + i, "shop", "doc", (Column("id", T.BIGINT, KEY, i), Column("body", T.VARCHAR, ColumnFlag.NULLABLE, f"{i}:" + "x" * size))
    )


#: 40 rows, every fifth one too large for max-message-bytes=2000, then a resolved event.
EVENTS = [_row(i, 3000 if i % 5 == 0 else 20) for i in range(40)] + [ResolvedEvent(2000)]
BIG_IDS = {i for i in range(40) if i % 5 == 0}


def _frame(spark, directory: Path):
    path = directory / "events.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        write_jsonl(EVENTS, out)
    return cs.read_events(spark, str(path))


def _rows(df) -> dict[int, tuple[str, bool]]:
    """id -> (body, handle_key_only) of every row event read back."""
    out = {}
    for r in df.where("kind = 'insert'").collect():
        values = {c["name"]: c["value"] for c in r["columns"]}
        body = values["body"]["string"] if "body" in values else None
        out[values["id"]["int"]] = (body, r["handle_key_only"])
    return out


@pytest.fixture(scope="module")
def bucket(s3_endpoint: str) -> S3Bucket:
    made = S3Bucket(s3_endpoint, f"cdcwire-spark-{uuid.uuid4().hex[:8]}")
    made.client().create_bucket(Bucket=made.name)
    return made


@pytest.fixture(scope="module")
def claim_checked(spark, kafka_broker, bucket, tmp_path_factory) -> str:
    """A topic cs.write filled with claim-checked canal-json; its URI."""
    topic = f"cc-{uuid.uuid4().hex[:8]}"
    uri = kafka_broker.uri(
        topic, "canal-json", partition_num=2, enable_tidb_extension=True, max_message_bytes=2000,
        large_message_handle_option="claim-check", claim_check_storage_uri=bucket.storage_uri(),
    )
    summary = cs.write(_frame(spark, tmp_path_factory.mktemp("cc")), uri)
    assert summary.reconciles
    return uri


def test_a_claim_checked_stream_reads_back_whole_with_cs_read(spark, claim_checked, bucket) -> None:
    rows = _rows(cs.read(spark, claim_checked))
    assert sorted(rows) == list(range(40))
    assert all(body == f"{i}:" + "x" * (3000 if i in BIG_IDS else 20) for i, (body, _) in rows.items())
    assert not any(key_only for _, key_only in rows.values())
    assert len(bucket.keys()) == len(BIG_IDS)


def test_a_claim_checked_stream_reads_back_whole_with_cdcwire_decode(claim_checked) -> None:
    events = [e for e in cdcwire.decode(claim_checked, cdcwire.read(claim_checked)) if isinstance(e, RowChangedEvent)]
    assert sorted(e.columns[0].value for e in events) == list(range(40))
    assert {len(e.columns[1].value) for e in events if e.columns[0].value in BIG_IDS} == {3002, 3003}


def test_an_object_deleted_before_the_read_fails_it_naming_the_object_and_the_message(spark, kafka_broker, bucket, tmp_path) -> None:
    topic = f"cc-del-{uuid.uuid4().hex[:8]}"
    uri = kafka_broker.uri(
        topic, "open-protocol", partition_num=1, max_message_bytes=2000,
        large_message_handle_option="claim-check", claim_check_storage_uri=bucket.storage_uri(topic),
    )
    cs.write(_frame(spark, tmp_path), uri)
    gone = bucket.keys(topic)[0]
    bucket.client().delete_object(Bucket=bucket.name, Key=gone)
    with pytest.raises(Exception) as info:  # an action's failure: Spark's exception, the cdcwire error's text in it
        cs.read(spark, uri).collect()
    assert gone.rsplit("/", 1)[1] in str(info.value) and f"{topic}/0/" in str(info.value)
    malformed = cs.read(spark, uri, permissive=True).where("_malformed is not null").collect()
    assert len(malformed) == 1 and malformed[0]["_malformed"]["source"].startswith(f"{topic}/0/")
    assert "missing" in malformed[0]["_malformed"]["reason"]


def test_handle_key_only_rows_read_back_marked_in_the_event_dataframe(spark, kafka_broker, tmp_path) -> None:
    topic = f"hko-{uuid.uuid4().hex[:8]}"
    uri = kafka_broker.uri(topic, "open-protocol", partition_num=2, max_message_bytes=2000,
                           large_message_handle_option="handle-key-only")
    cs.write(_frame(spark, tmp_path), uri)
    rows = _rows(cs.read(spark, uri))
    assert {i for i, (_, key_only) in rows.items() if key_only} == BIG_IDS
    assert all(body is None for i, (body, _) in rows.items() if i in BIG_IDS)


def test_an_unreachable_storage_fails_the_write_naming_it_and_leaves_no_dangling_pointer(spark, kafka_broker, tmp_path) -> None:
    topic = f"cc-dead-{uuid.uuid4().hex[:8]}"
    dead = f"s3://nowhere/p?endpoint=http://127.0.0.1:9&access-key=a&secret-access-key={SECRET_KEY}"
    uri = kafka_broker.uri(topic, "open-protocol", partition_num=1, max_message_bytes=2000,
                           large_message_handle_option="claim-check", claim_check_storage_uri=dead)
    with pytest.raises(CdcwireError) as info:
        cs.write(_frame(spark, tmp_path), uri)
    text = str(info.value)
    assert "s3://nowhere/p" in text and SECRET_KEY not in text
    # what the failed write delivered decodes without touching the storage: no pointer was sent
    # for a row whose object could not be stored (at least once: a retry sends the rest)
    delivered = [e for e in cdcwire.decode(uri, cdcwire.read(uri)) if isinstance(e, RowChangedEvent)]
    assert all(e.columns[0].value not in BIG_IDS for e in delivered)
