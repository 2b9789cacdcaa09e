"""Claim-check objects stored side by side: messages leave in order, a pointer only once its
object is stored, and a failed upload stops the stream where its pointer stood."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

import pytest

from cdcwire.large_messages.storage import StorageError
from cdcwire.large_messages.uploads import PointerPayload, in_order_once_stored
from cdcwire.model.message import Payload


def stored_later(delay: float, error: Exception | None = None) -> Future:
    future: Future = Future()

    def finish() -> None:
        time.sleep(delay)
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

    threading.Thread(target=finish, daemon=True).start()
    return future


def test_messages_leave_in_their_order_as_plain_payloads() -> None:
    slow, fast = stored_later(0.2), stored_later(0.0)
    given = [Payload(b"a", b"1"), PointerPayload(b"b", b"2", 1, slow), Payload(b"c", b"3"), PointerPayload(b"d", b"4", 1, fast)]
    out = list(in_order_once_stored(given))
    assert out == [Payload(b"a", b"1"), Payload(b"b", b"2"), Payload(b"c", b"3"), Payload(b"d", b"4")]
    assert all(type(p) is Payload for p in out)


def test_no_pointer_and_nothing_after_it_leaves_before_its_object_is_stored() -> None:
    upload = stored_later(0.2)
    for payload in in_order_once_stored([PointerPayload(b"k", b"v", 1, upload), Payload(b"x", b"y")]):
        assert upload.done()


def test_a_failed_upload_raises_where_its_pointer_stood() -> None:
    failed = stored_later(0.05, StorageError("cannot write x.json to s3://b/p: down"))
    released = []
    with pytest.raises(StorageError, match="down"):
        for payload in in_order_once_stored([Payload(b"a", b"1"), PointerPayload(b"b", b"2", 1, failed), Payload(b"c", b"3")]):
            released.append(payload.key)
    assert released == [b"a"]
