"""SQLite keeps the fight its last change wrote, parsed, for the next change of that channel: used only
while the stored version and document are still exactly the ones it wrote."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.encounter.document import Encounter
from bot.store import EncounterChange, SqliteStore, sql_store
from bot.store.shared import readable_fight
from bot.store.sql_store import FIGHTS_READ_AHEAD

GUILD = 10
GM = 1


def next_round(current: Encounter | None) -> EncounterChange:
    assert current is not None
    current.initiative.round += 1
    return EncounterChange(current)


@pytest.fixture
async def store(path: Path) -> AsyncIterator[SqliteStore]:
    """A SQLite file store with a fight in channel 1, changed once (so one fight is read ahead)."""
    opened = await SqliteStore.open(path)
    await opened.save_encounter(Encounter(channel_id=1, guild_id=GUILD, gm_id=GM))
    await opened.update_encounter(1, next_round)
    yield opened
    await opened.close()


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The versions of every stored fight the SQLite store parses inside a change."""
    seen: list[int] = []
    parse = readable_fight

    def counted(version: int, document: str) -> Encounter:
        seen.append(version)
        return parse(version, document)

    monkeypatch.setattr(sql_store, "readable_fight", counted)
    return seen


async def test_a_change_starts_from_the_fight_the_last_one_wrote(path: Path, parses: list[int]) -> None:
    store = await SqliteStore.open(path)
    try:
        await store.save_encounter(Encounter(channel_id=1, guild_id=GUILD, gm_id=GM))
        for _ in range(4):
            saved = await store.update_encounter(1, next_round)
        assert saved is not None
        assert (saved.version, saved.initiative.round) == (5, 4)
        assert parses == [1]  # the saved fight, once; each change after it starts from the one before
        assert await store.load_encounter(1) == saved
    finally:
        await store.close()


async def test_a_document_written_by_another_is_read_again(
    store: SqliteStore, path: Path, parses: list[int]
) -> None:
    """Another program rewrites the document without changing its version: the change sees its fight."""
    with sqlite3.connect(path) as outside:
        outside.execute(
            "UPDATE encounters SET document = json_set(document, '$.initiative.round', 40)"
            " WHERE channel_id = 1"
        )
    outside.close()
    saved = await store.update_encounter(1, next_round)
    assert saved is not None
    assert (saved.version, saved.initiative.round) == (3, 41)
    assert parses == [2]


async def test_a_change_that_raises_leaves_nothing_read_ahead(store: SqliteStore, parses: list[int]) -> None:
    def spoil_then_refuse(current: Encounter | None) -> EncounterChange:
        assert current is not None
        current.initiative.round = 99  # changed in place, then refused
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await store.update_encounter(1, spoil_then_refuse)
    saved = await store.update_encounter(1, next_round)
    assert saved is not None
    assert saved.initiative.round == 2  # not 100: the spoiled fight was not kept
    assert parses == [2]


async def test_only_the_last_channels_changed_are_kept(path: Path, parses: list[int]) -> None:
    store = await SqliteStore.open(path)
    try:
        channels = range(FIGHTS_READ_AHEAD + 1)
        for channel in channels:
            await store.save_encounter(Encounter(channel_id=channel, guild_id=GUILD, gm_id=GM))
            await store.update_encounter(channel, next_round)
        assert len(store._read_ahead) == FIGHTS_READ_AHEAD
        parses.clear()
        await store.update_encounter(0, next_round)  # the oldest, no longer kept
        await store.update_encounter(FIGHTS_READ_AHEAD, next_round)  # the newest, kept
        assert parses == [2]
    finally:
        await store.close()
