"""Claim-check objects stored side by side, each pointer held back until its object is stored.

One object at a time makes a claim-checking write as slow as the storage's round trip
(a PUT to S3 takes milliseconds; a row takes microseconds to encode). The encoder instead
starts each object's upload and goes on encoding; :func:`in_order_once_stored` lets the
messages out in their order, each only when the object of every pointer up to it is
stored. So the promise stays: no reader ever sees a pointer to an object not yet there,
and an upload that fails stops the stream before its pointer (and anything after it)
is sent.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from ..model.message import Payload

#: Uploads in flight in one process (``CDCWIRE_CLAIM_CHECK_THREADS`` overrides, read when the
#: first upload starts); pointers waiting on them before the oldest is awaited.
UPLOAD_THREADS = 8
PENDING_POINTERS = 32
#: Messages held behind a pending pointer before the pointer is awaited (bounds memory).
PENDING_MESSAGES = 4096

_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def upload_pool() -> ThreadPoolExecutor:
    """The process's upload threads, started at the first upload (so a forked Spark worker
    starts its own, never inheriting a parent's dead ones)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            threads = int(os.environ.get("CDCWIRE_CLAIM_CHECK_THREADS") or UPLOAD_THREADS)
            _pool = ThreadPoolExecutor(max(1, threads), thread_name_prefix="cdcwire-claim-check")
        return _pool


def _reset_after_fork() -> None:
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_reset_after_fork)


@dataclass(frozen=True, slots=True)
class PointerPayload(Payload):
    """A claim-check pointer whose object is still being stored (``stored`` completes, or
    raises the storage's error, when it is). Only :func:`in_order_once_stored` sees one."""

    stored: Optional[Future] = field(default=None, compare=False, repr=False)


def in_order_once_stored(payloads: Iterable[Payload]) -> Iterator[Payload]:
    """``payloads`` in their order, as plain Payloads, each released once the objects of all
    pointers up to it are stored; the first failed upload raises where its pointer stood."""
    held: deque[Payload] = deque()
    pointers = 0
    for payload in payloads:
        held.append(payload)
        if payload.__class__ is PointerPayload:
            pointers += 1
        while held and (held[0].__class__ is not PointerPayload or held[0].stored.done()  # type: ignore[attr-defined]
                        or pointers >= PENDING_POINTERS or len(held) >= PENDING_MESSAGES):
            first = held.popleft()
            if first.__class__ is PointerPayload:
                pointers -= 1
            yield _released(first)
    while held:
        yield _released(held.popleft())


def _released(payload: Payload) -> Payload:
    if payload.__class__ is not PointerPayload:
        return payload
    payload.stored.result()  # type: ignore[attr-defined,union-attr]  # waits; raises the upload's error
    return Payload(payload.key, payload.value, payload.events)
