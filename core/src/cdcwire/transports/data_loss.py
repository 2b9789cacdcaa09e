"""Stored offsets against a partition's current range: data loss is an error unless accepted.

A reader that resumes from offsets it kept (a Spark checkpoint, a consumer group's commits,
materialize's state) meets the partition as it is now, ``[low, high)``. Two ways the
offset can be outside it, both meaning messages the reader will never see:

- below ``low``: retention (or delete-records) removed offsets ``offset .. low-1``;
- past ``high``: the partition ends before where the reader stopped, so the topic was
  deleted and written again (its offsets restarted), and every message of the new topic
  below the stored offset would be skipped without a word.

Both are a :class:`DataLossError` by default, as Spark's Kafka source with
``failOnDataLoss=true``. Accepting the loss (``failOnDataLoss=false``,
``--fail-on-data-loss false``) resets to ``low`` and says so in one warning.
:func:`checked_offset` is the one place every such reader asks.
"""

from __future__ import annotations

import logging

from ..foundation.errors import CdcwireError
from ..foundation.params import Parameter

log = logging.getLogger("cdcwire")

#: How the option is parsed wherever it is taken (Spark option, follow and materialize).
FAIL_ON_DATA_LOSS = Parameter("failOnDataLoss", "bool", True)


class DataLossError(CdcwireError):
    """A stored offset lies outside what its partition holds now: messages were lost or skipped."""


def fail_on_data_loss(value: object) -> bool:
    """``failOnDataLoss`` as given (a bool, or text: true/false); None: the default, true."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    return bool(FAIL_ON_DATA_LOSS.parse(str(value)))


def checked_offset(
    topic: str, partition: int, offset: int, low: int, high: int, *, fail: bool = True, accept: str = "",
) -> int:
    """``offset`` when ``low <= offset <= high``; otherwise raise :class:`DataLossError` naming the
    topic, partition and both offsets (``fail``), or warn once and return ``low`` (the loss accepted).

    ``accept``: how the caller's user accepts the loss (``"set failOnDataLoss=false"``), for the error.
    """
    if low <= offset <= high:
        return offset
    where = f"{topic}/{partition}"
    if offset > high:
        what = (
            f"{where}: the stored offset {offset} is past the partition's end {high} (it holds {low}..{high - 1}):"
            " the topic was deleted and written again, or its offsets were reset"
        )
    else:
        what = (
            f"{where}: the stored offset {offset} is below the partition's first offset {low}:"
            f" offsets {offset}..{low - 1} are no longer held (retention or delete-records)"
        )
    if fail:
        how = f"; {accept}" if accept else ""
        raise DataLossError(f"{what}; data may have been lost{how} to accept the loss and read on from offset {low}")
    log.warning("%s; the loss is accepted (failOnDataLoss=false): reading on from offset %d", what, low)
    return low
