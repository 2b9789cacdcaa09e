"""Following with a consumer group or from a time goes through the transport's optional
OffsetsCapability (any transport may offer it, none is named in the core), and the follow
parameters are read once into FollowOptions."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Optional, Sequence

import pytest

import cdcwire
from cdcwire.model.events import ResolvedEvent
from cdcwire.api.following import FollowError, FollowOptions, Follower, StartAt
from cdcwire.plugin_api import MessageReader, MessageWriter, OffsetsCapability, Transport
from cdcwire.contract.registry import PluginInfo
from cdcwire.transports.file.transport import FileReader

Key = tuple[str, int]


class RememberedOffsets(OffsetsCapability):
    """A third party's capability: commits kept in a dict shared by every follower of the test,
    times answered from a fixed table."""

    def __init__(self, store: dict, group: Optional[str], times: dict[Key, int]) -> None:
        self.store, self.group, self.times = store, group, times

    def committed(self, keys: Sequence[Key]) -> dict[Key, tuple[int, Optional[str]]]:
        return {k: self.store[(self.group, k)] for k in keys if (self.group, k) in self.store}

    def commit(self, positions: dict[Key, int], metadata: Optional[str] = None) -> None:
        for key, offset in positions.items():
            self.store[(self.group, key)] = (offset, metadata)

    def at_time(self, keys: Sequence[Key], ms: int) -> dict[Key, Optional[int]]:
        return {k: self.times.get(k) for k in keys}


class GroupedFiles(Transport):
    """``grouped://host/TOPIC``: reads what file:// wrote under :attr:`directory` and keeps consumer
    groups, as a third-party transport plugin would."""

    scheme = "grouped"
    directory = ""
    store: dict = {}
    times: dict[Key, int] = {}

    def writer(self, config) -> MessageWriter:
        raise NotImplementedError("the test writes through file://")

    def reader(self, config) -> MessageReader:
        return FileReader(self.directory)

    def offsets(self, config, group=None):
        return RememberedOffsets(self.store, group, self.times)


class GroupedPlugin:
    cdcwire_plugin_api = "1.4"

    @cdcwire.hookimpl
    def register_transports(self, register):
        register(GroupedFiles())


@pytest.fixture
def grouped(echo_registry, tmp_path):
    echo_registry.add_plugin(GroupedPlugin(), PluginInfo("grouped", "cdcwire-grouped-test", "1.0"))
    GroupedFiles.store, GroupedFiles.times, GroupedFiles.directory = {}, {}, str(tmp_path)
    written(f"file://{tmp_path}/t?protocol=echo-json&partition-num=1", 5)
    return "grouped://here/t?protocol=echo-json"


def written(uri: str, n: int) -> None:
    cdcwire.write(uri, cdcwire.encode(uri, [ResolvedEvent(ts=100 + i) for i in range(n)]))


def test_a_third_party_transport_with_offsets_serves_a_consumer_group(grouped):
    uri = grouped
    with cdcwire.follow(uri, group="g", count=2, poll_interval=0.01) as follower:
        first = [e.ts for e in follower]
    with cdcwire.follow(uri, group="g", count=3, poll_interval=0.01) as follower:
        rest = [e.ts for e in follower]
    assert (first, rest) == ([100, 101], [102, 103, 104])


def test_a_third_party_transport_with_offsets_starts_at_a_time(grouped):
    uri = grouped
    GroupedFiles.times = {("t", 0): 3}
    with cdcwire.follow(uri, start="@1700000000000", count=2, poll_interval=0.01) as follower:
        assert [e.ts for e in follower] == [103, 104]


def test_a_group_on_file_says_in_one_line_that_file_has_no_consumer_groups(tmp_path):
    uri = f"file://{tmp_path}/t?protocol=echo-json&partition-num=1"
    written(uri, 1)
    with pytest.raises(FollowError) as caught:
        cdcwire.follow(uri, group="g")
    assert str(caught.value).startswith("file:// has no consumer groups or message times, so a consumer group")
    assert "\n" not in str(caught.value)


def test_a_start_at_a_time_on_file_names_the_transport(tmp_path):
    uri = f"file://{tmp_path}/t?protocol=echo-json&partition-num=1"
    written(uri, 1)
    with pytest.raises(FollowError, match=r"^file:// has no consumer groups or message times, so a start at a time"):
        cdcwire.follow(uri, start="2024-01-01T00:00:00Z")


def test_follow_options_are_read_once_and_frozen():
    options = FollowOptions(start="-3", until="tso:42", partitions=[0, 2], poll_interval=1)
    assert (options.start, options.until, options.partitions, options.poll_interval) == (
        StartAt("offset", -3), 42, (0, 2), 1.0
    )
    with pytest.raises(FrozenInstanceError):
        options.count = 3  # type: ignore[misc]


def test_follow_options_refuse_a_bad_value_before_any_connection():
    with pytest.raises(FollowError, match="count must be at least 1, got 0"):
        FollowOptions(count=0)


def test_a_follower_takes_follow_options(tmp_path):
    uri = f"file://{tmp_path}/t?protocol=echo-json&partition-num=1"
    written(uri, 3)
    with Follower(uri, FollowOptions(start="-1", count=1, poll_interval=0.01)) as follower:
        assert [e.ts for e in follower] == [102]
