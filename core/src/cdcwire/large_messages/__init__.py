"""TiCDC's large-message handling, shared by every codec that declares it.

- :mod:`.compression`: ``large-message-handle-compression`` (snappy block, lz4 frame);
- :mod:`.claim_check`: the claim-check object format and its store (``claim-check-storage-uri``);
- :mod:`.storage`: the storage URIs a claim-check store is opened on (``file://``, ``s3://``);
- :mod:`.options`: the parameters, read once per sink into :class:`LargeMessageOptions`.

A codec chooses what a too-large message becomes (its handle key only, or a pointer to
the stored message); this package does the rest, the same way for every codec.
"""

from .claim_check import ClaimCheckStore, claim_check_object, read_claim_check_object
from .compression import Compression
from .options import LargeMessageOptions

__all__ = ["ClaimCheckStore", "Compression", "LargeMessageOptions", "claim_check_object", "read_claim_check_object"]
