"""Claim check: a message too large for the topic is stored whole, the topic gets a pointer.

The stored object is what the reference's claim-check writer stores: JSON
``{"key": ..., "value": ...}`` with the message's key and value as Go encodes byte
slices (base64 text, ``null`` for none), one ``.json`` object per message named by a
fresh UUID; or, with ``claim-check-raw-value=true``, the value's bytes alone.

The object is written before the message that points at it is sent, so a reader that
sees the pointer finds the object (unless someone removed it). A retried write stores a
new object and sends a new pointer; the old object is an orphan, never a wrong answer.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from concurrent.futures import Future
from typing import Optional

from ..foundation.bounded_cache import BoundedCache
from .storage import ObjectMissing, Storage, StorageError, object_name
from .uploads import upload_pool

__all__ = [
    "ClaimCheckStore", "ObjectMissing", "StorageError", "claim_check_object", "read_claim_check_object",
]


def claim_check_object(key: Optional[bytes], value: Optional[bytes]) -> bytes:
    """The JSON the reference stores for a message (Go's ``json.Marshal`` of two []byte)."""
    def encoded(data: Optional[bytes]) -> Optional[str]:
        return None if data is None else base64.b64encode(data).decode("ascii")

    return json.dumps({"key": encoded(key), "value": encoded(value)}, separators=(",", ":")).encode()


def read_claim_check_object(data: bytes) -> tuple[Optional[bytes], Optional[bytes]]:
    """(key, value) of a stored object; ValueError saying what is wrong with it."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a claim-check object (JSON {{key, value}}): {exc}") from None
    if not isinstance(doc, dict) or "value" not in doc:
        raise ValueError("not a claim-check object: a JSON object with \"key\" and \"value\" was expected")

    def decoded(field: str) -> Optional[bytes]:
        text = doc.get(field)
        if text is None:
            return None
        if not isinstance(text, str):
            raise ValueError(f"claim-check object's {field!r} must be base64 text or null")
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error as exc:
            raise ValueError(f"claim-check object's {field!r} is not base64: {exc}") from None

    return decoded("key"), decoded("value")


class ClaimCheckStore:
    """Stores messages in one storage and fetches them back by the name a location ends in."""

    def __init__(self, storage: Storage, raw_value: bool = False) -> None:
        self.storage = storage
        self.raw_value = raw_value

    def __repr__(self) -> str:
        return f"ClaimCheckStore({self.storage.display()!r}, raw_value={self.raw_value})"

    def store(self, key: Optional[bytes], value: Optional[bytes]) -> str:
        """Store one message; the location its pointer carries. StorageError when the storage
        cannot take it (nothing is sent then)."""
        name, data = self._object(key, value)
        self.storage.put(name, data)
        return self.storage.location(name)

    def store_in_background(
        self, key: Optional[bytes], value: Optional[bytes], what: str = "a message"
    ) -> tuple[str, Future]:
        """Start storing one message; its location now, and a future that completes when the
        object is stored or raises StorageError naming ``what`` (see :mod:`.uploads`: the
        pointer must wait for it)."""
        name, data = self._object(key, value)
        storage = self.storage

        def put() -> None:
            try:
                storage.put(name, data)
            except StorageError as exc:
                raise StorageError(f"cannot store {what} in the claim-check storage: {exc}") from None

        return storage.location(name), upload_pool().submit(put)

    def _object(self, key: Optional[bytes], value: Optional[bytes]) -> tuple[str, bytes]:
        name = f"{uuid.uuid4()}.json"
        return name, (value or b"") if self.raw_value else claim_check_object(key, value)

    def fetch(self, location: str) -> tuple[Optional[bytes], Optional[bytes]]:
        """(key, value) of the message a pointer names, read from this store's own storage by
        the location's file name (never by following the location). ObjectMissing, StorageError,
        or ValueError for an object that is not what the store writes."""
        name = object_name(location)
        if name is None:
            raise ValueError(f"claim-check location {location!r} names no object")
        data = self.storage.get(name)
        if self.raw_value:
            return None, data
        return read_claim_check_object(data)


_STORES: BoundedCache[tuple[str, bool], ClaimCheckStore] = BoundedCache()


def claim_check_store(uri: str, raw_value: bool = False) -> ClaimCheckStore:
    """The store of a ``claim-check-storage-uri`` (one per URI and mode in a process)."""
    key = (uri, raw_value)
    store = _STORES.get(key)
    if store is None:
        store = _STORES.remember(key, ClaimCheckStore(Storage.parse(uri), raw_value))
    return store
