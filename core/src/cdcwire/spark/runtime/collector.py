"""Python's cyclic garbage collector, set for the executors' per-event loops.

Turning a batch into events makes hundreds of thousands of small objects (columns,
events, message parts) that refcounting frees on its own: none of them forms a cycle.
With the default thresholds the collector still runs a young-generation pass every 700
allocations and promotes the survivors of a batch into older generations, whose passes
scan everything; measured on a generated workload, that was about 30% of the time spent
decoding and re-encoding events. Within a stage the collector runs a hundred times less
often; the objects alive before it starts (modules, caches) are frozen out of its scans.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

#: Young-generation allocations between collections inside a stage (default 700).
STAGE_THRESHOLD = 100_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's threshold for the body, then put everything back as it was."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(STAGE_THRESHOLD, before[1], before[2])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
