"""The large-message parameters of one sink, read and checked once into a frozen record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..foundation.errors import SinkURIError
from .claim_check import ClaimCheckStore, claim_check_store
from .compression import DEFAULT_DECOMPRESSED_LIMIT, Compression
from .storage import Storage


@dataclass(frozen=True, slots=True)
class LargeMessageOptions:
    """``mode``: none, handle-key-only or claim-check. ``storage_uri`` is kept out of the repr:
    an S3 URI may hold keys."""

    mode: str = "none"
    compression: Compression = Compression()
    storage_uri: Optional[str] = field(default=None, repr=False)
    raw_value: bool = False

    @classmethod
    def from_config(cls, config: Any) -> "LargeMessageOptions":
        """The options of a sink config; parameters a codec does not declare read as their defaults."""
        return cls(
            mode=config.get("large-message-handle-option") or "none",
            compression=Compression(
                config.get("large-message-handle-compression") or "none",
                config.get("max-decompressed-bytes") or DEFAULT_DECOMPRESSED_LIMIT,
            ),
            storage_uri=config.get("claim-check-storage-uri"),
            raw_value=bool(config.get("claim-check-raw-value")),
        )

    @property
    def handle_key_only(self) -> bool:
        return self.mode == "handle-key-only"

    @property
    def claim_check(self) -> bool:
        return self.mode == "claim-check"

    def check(self, protocol: str, raw_value_supported: bool = True) -> None:
        """The reference's checks of the combination (``Codec.validate`` calls this), each a
        SinkURIError naming the parameter."""
        if self.claim_check and not self.storage_uri:
            raise SinkURIError(
                "parameter 'large-message-handle-option': claim-check needs claim-check-storage-uri"
                " (file:///dir or s3://bucket/prefix?endpoint=...)", "claim-check-storage-uri",
            )
        if self.storage_uri:
            Storage.parse(self.storage_uri)  # a bad URI is refused now, not at the first large row
        if self.raw_value and not raw_value_supported:
            raise SinkURIError(
                f"parameter 'claim-check-raw-value': {protocol} stores the whole message, key and"
                " value (its key says what the value holds), so it cannot store the raw value; as the"
                " reference, it is refused", "claim-check-raw-value",
            )

    def store(self) -> Optional[ClaimCheckStore]:
        """The claim-check store, when a storage URI is set (writers in claim-check mode; readers
        whenever one is configured, to resolve what a claim-checking writer sent)."""
        if not self.storage_uri:
            return None
        return claim_check_store(self.storage_uri, self.raw_value)
