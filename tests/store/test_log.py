"""The append-only log of rolls and game events: order, filters, paging, and no way to change a line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from bot.store import MAX_LOG_PAGE, LogEntry, Store

from .conftest import Database


def line(text: str, *, channel_id: int = 100, guild_id: int | None = 10, user_id: int = 1) -> LogEntry:
    return LogEntry(guild_id=guild_id, channel_id=channel_id, user_id=user_id, kind="roll", text=text)


async def test_appended_lines_get_growing_ids_and_read_back_oldest_first(store: Store) -> None:
    first = await store.append_log(line("first"))
    second = await store.append_log(line("second"))
    assert first.id is not None
    assert second.id is not None
    assert first.id < second.id
    assert await store.read_log() == [first, second]


async def test_a_line_reads_back_exactly_as_written(store: Store) -> None:
    written = LogEntry(
        guild_id=None,
        channel_id=7,
        user_id=8,
        kind="roll",
        text="Ansel rolls 2d20: 17, 4 → 17 + 3 = 20",
        data={"dice": [17, 4], "kept": 17, "modifiers": {"Prowess": 3}, "hit": True, "note": None},
    )
    appended = await store.append_log(written)
    assert appended == written.model_copy(update={"id": appended.id})
    assert await store.read_log() == [appended]


async def test_a_batch_is_appended_in_order(store: Store) -> None:
    appended = await store.append_logs([line("a"), line("b"), line("c")])
    assert [entry.text for entry in appended] == ["a", "b", "c"]
    assert await store.read_log() == appended


async def test_reads_filter_by_channel_and_guild(store: Store) -> None:
    await store.append_logs(
        [
            line("g10 c100", channel_id=100, guild_id=10),
            line("g10 c101", channel_id=101, guild_id=10),
            line("g11 c200", channel_id=200, guild_id=11),
            line("dm c300", channel_id=300, guild_id=None),
            line("g10 c100 again", channel_id=100, guild_id=10),
        ]
    )

    async def texts(**filters: int) -> list[str]:
        return [entry.text for entry in await store.read_log(**filters)]

    assert await texts(channel_id=100) == ["g10 c100", "g10 c100 again"]
    assert await texts(guild_id=10) == ["g10 c100", "g10 c101", "g10 c100 again"]
    assert await texts(guild_id=11, channel_id=200) == ["g11 c200"]
    assert await texts(guild_id=11, channel_id=100) == []
    assert await texts(channel_id=300) == ["dm c300"]
    assert len(await texts()) == 5


async def test_reads_page_on_after_an_id(store: Store) -> None:
    await store.append_logs([line(str(n)) for n in range(10)])
    pages = []
    after = 0
    while page := await store.read_log(after_id=after, limit=4):
        pages.append([entry.text for entry in page])
        last = page[-1].id
        assert last is not None
        after = last
    assert pages == [["0", "1", "2", "3"], ["4", "5", "6", "7"], ["8", "9"]]


@pytest.mark.parametrize("limit", [0, -1, MAX_LOG_PAGE + 1])
async def test_a_page_size_out_of_bounds_is_refused(store: Store, limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        await store.read_log(limit=limit)


async def test_the_database_itself_refuses_to_change_or_remove_a_line(database: Database) -> None:
    store = await database.open()
    appended = await store.append_log(line("what happened"))
    await store.close()
    with pytest.raises(Exception, match="append-only"):
        await database.fetch("UPDATE log SET text = 'what did not happen'")
    with pytest.raises(Exception, match="append-only"):
        await database.fetch("DELETE FROM log")
    store = await database.open()
    try:
        assert await store.read_log() == [appended]
    finally:
        await store.close()


def test_the_store_offers_no_way_to_change_or_remove_a_line() -> None:
    names = {name for name in dir(Store) if "log" in name}
    assert names == {"append_log", "append_logs", "read_log", "read_log_backwards"}


async def test_a_restart_keeps_the_log_and_ids_keep_growing(database: Database) -> None:
    store = await database.open()
    before = await store.append_logs([line("one"), line("two")])
    await store.close()
    store = await database.open()
    try:
        after = await store.append_log(line("three"))
        assert await store.read_log() == [*before, after]
    finally:
        await store.close()


def test_a_line_is_stamped_now_in_utc() -> None:
    before = datetime.now(UTC)
    stamped = line("now")
    assert before <= stamped.at <= datetime.now(UTC)
    assert stamped.at.tzinfo == UTC


def test_a_time_in_another_zone_is_kept_in_utc() -> None:
    paris = timezone(timedelta(hours=1))
    entry = LogEntry(
        at=datetime(2025, 1, 1, 13, 0, tzinfo=paris),
        guild_id=1,
        channel_id=2,
        user_id=3,
        kind="roll",
        text="x",
    )
    assert entry.at == datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
    assert entry.at.tzinfo == UTC


def test_a_time_without_a_zone_is_refused() -> None:
    with pytest.raises(ValidationError):
        LogEntry(at=datetime(2025, 1, 1), guild_id=1, channel_id=2, user_id=3, kind="roll", text="x")


def test_details_that_are_not_json_are_refused() -> None:
    with pytest.raises(ValidationError):
        LogEntry(guild_id=1, channel_id=2, user_id=3, kind="roll", text="x", data={"when": object()})


def test_a_line_cannot_be_changed_after_it_is_made() -> None:
    entry = line("fixed")
    with pytest.raises(ValidationError):
        entry.text = "changed"  # type: ignore[misc]


async def test_reading_back_gives_the_newest_first_filtered_and_paged(store: Store) -> None:
    """What /roll log and an ended fight's log read: the latest lines, of a guild, channel, user, kinds."""
    written = [
        await store.append_log(line("a", user_id=1)),
        await store.append_log(line("b", channel_id=200, user_id=2)),
        await store.append_log(LogEntry(guild_id=10, channel_id=100, user_id=1, kind="encounter", text="c")),
        await store.append_log(line("d", guild_id=11, user_id=1)),
        await store.append_log(line("e", user_id=1)),
    ]
    texts = [entry.text for entry in await store.read_log_backwards()]
    assert texts == ["e", "d", "c", "b", "a"]
    assert await store.read_log_backwards(limit=1) == [written[-1]]
    assert [e.text for e in await store.read_log_backwards(guild_id=10, kinds=("roll",))] == ["e", "b", "a"]
    assert [e.text for e in await store.read_log_backwards(guild_id=10, user_id=1)] == ["e", "c", "a"]
    assert [e.text for e in await store.read_log_backwards(channel_id=200)] == ["b"]
    assert [e.text for e in await store.read_log_backwards(kinds=("encounter", "roll"), limit=2)] == [
        "e",
        "d",
    ]
    before = written[2].id
    assert [e.text for e in await store.read_log_backwards(before_id=before)] == ["b", "a"]
    with pytest.raises(ValueError, match="limit must be"):
        await store.read_log_backwards(limit=MAX_LOG_PAGE + 1)
