"""Builders the simple tests share: the docs' ``simple.user`` table and encoders with a stopped clock."""

from __future__ import annotations

from typing import Optional

from cdcwire.plugin_api import Column, ColumnFlag, ColumnType, SinkConfig
from cdcwire.sinks.sink import open_sink

from cdcwire_simple.encoder import SimpleEncoder
from cdcwire_simple.decoder import SimpleDecoder
from cdcwire_simple.options import SimpleOptions

F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def options(query: str = "") -> SimpleOptions:
    config: SinkConfig = open_sink(f"file:///tmp/simple-tests/t?protocol=simple{'&' + query if query else ''}").config
    return SimpleOptions.from_config(config)


class Clock:
    """A clock the test moves: ``buildTs`` and the bootstrap interval read it."""

    def __init__(self, ms: int = 1_700_000_000_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def encoder(query: str = "", clock: Optional[Clock] = None, partition: int = 0) -> SimpleEncoder:
    return SimpleEncoder(options(query), partition, clock or Clock())


def decoder(query: str = "") -> SimpleDecoder:
    return SimpleDecoder(options(query))


def user_columns(id_: int, name: str, age: int, score: float) -> tuple[Column, ...]:
    """The docs' ``simple.user``: id int primary key, name varchar(255), age int, score float."""
    return (
        Column("id", T.INT, KEY, id_, "int(11)"),
        Column("name", T.VARCHAR, F.NULLABLE, name, "varchar(255)"),
        Column("age", T.INT, F.NULLABLE, age, "int(11)"),
        Column("score", T.FLOAT, F.NULLABLE, score, "float"),
    )
