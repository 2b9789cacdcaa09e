"""The state a batching Java encoder hands to its Python twin as it leaves it events (plugin API
1.18): the encoding stage gives it to the Python encoder's ``adopt_handed_state`` just before the row
that carries it (``_cdc_encoder_state``), after the rows before it, so the Python encoder continues
where Java stopped."""

from __future__ import annotations

import pyarrow as pa

from cdcwire.spark.writer.encoding import handed_over
from cdcwire.spark.writer.jvm_encoding import STATE_COLUMN


class Continuing:
    """An encoder that counts rows from the count it adopts, as a stateful encoder continues."""

    def __init__(self) -> None:
        self.count = 0
        self.seen: list[tuple[int, int]] = []

    def adopt_handed_state(self, state: str) -> None:
        self.count = int(state)

    def take(self, piece: pa.RecordBatch) -> None:
        for seq in piece.column("seq").to_pylist():
            self.count += 1
            self.seen.append((seq, self.count))


def rows(states: list) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array(range(len(states)), pa.int64()), pa.array(states, pa.string())],
                                      names=["seq", STATE_COLUMN])


def test_the_encoder_adopts_the_state_just_before_the_row_that_carries_it():
    encoder = Continuing()
    for piece in handed_over(encoder, rows([None, None, "10", None])):
        encoder.take(piece)
    assert encoder.seen == [(0, 1), (1, 2), (2, 11), (3, 12)]


def test_rows_without_a_state_are_one_piece_and_the_encoder_is_never_asked_to_adopt():
    batch = rows([None, None])
    assert list(handed_over(object(), batch)) == [batch]  # an encoder without adopt_handed_state
