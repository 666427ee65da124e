"""A server's data deleted whole (``/server forget``, or 30 days after Pommel left it): every row of that
guild in every table, and nothing of another; the log stays append-only otherwise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.history import restored
from bot.guild_settings import GuildSettings
from bot.store import EncounterChange, ForgottenGuild, LogEntry, Store
from tests.sheets import character

from .conftest import Database

FORGOTTEN, KEPT = 10, 11
"""Two servers, each with a channel of running fight, a channel of ended fights and a DM-free log."""

TABLES = (
    "encounters",
    "set_aside_encounters",
    "ended_encounters",
    "encounter_history",
    "encounter_undos",
    "log",
    "log_undone",
    "log_d20",
    "characters",
    "guild_settings",
    "guild_departures",
    "guilds_being_forgotten",
)
"""Every table that holds something of a server (the migrations' tables but the bookkeeping ones)."""


def line(guild_id: int, channel_id: int, text: str, **data: Any) -> LogEntry:
    kind = "roll" if data else "encounter"
    return LogEntry(guild_id=guild_id, channel_id=channel_id, user_id=1, kind=kind, text=text, data=data)


async def fill(store: Store, database: Database, guild_id: int) -> None:
    """A server's life: a running fight with its history and an undo, an ended fight, a fight set aside,
    rolls with d20 faces, two characters, its settings, and a departure."""
    running, ended = guild_id * 100, guild_id * 100 + 1

    def next_round(current: Encounter | None) -> EncounterChange:
        assert current is not None
        current.initiative.round += 1
        return EncounterChange(current, (line(guild_id, running, f"round {current.initiative.round}"),))

    await store.save_encounter(Encounter(channel_id=running, guild_id=guild_id, gm_id=1))
    for _ in range(3):
        saved = await store.update_encounter(running, next_round)
    assert saved is not None
    await store.undo(running, 1, saved.version, restored, lambda steps: line(guild_id, running, "undo"))
    over = await store.save_encounter(Encounter(channel_id=ended, guild_id=guild_id, gm_id=1))
    await store.delete_encounter(over, events=[line(guild_id, ended, "fight over")])
    await store.append_logs([line(guild_id, running, "a roll", faces=[20, 3])])
    await store.create_character(guild_id, 1, character("Ansel"))
    await store.create_character(guild_id, 2, character("Brun"))
    await store.save_guild_settings(GuildSettings(guild_id=guild_id, gm_role_id=5))
    await store.guild_left(guild_id, datetime(2026, 11, 1, tzinfo=UTC))
    at = datetime(2026, 11, 2, tzinfo=UTC)
    await database.fetch(
        "INSERT INTO set_aside_encounters"
        " (channel_id, guild_id, gm_id, version, document, reason, set_aside_at)"
        " VALUES (?, ?, 1, 1, '{}', 'unreadable', ?)",
        guild_id * 100 + 2,
        guild_id,
        at.isoformat() if database.kind == "sqlite" else at,
    )


async def rows(database: Database) -> dict[str, list[str]]:
    """Every row of every table, in a stable order."""
    return {table: sorted(map(repr, await database.fetch(f"SELECT * FROM {table}"))) for table in TABLES}


async def test_forgetting_a_server_deletes_every_row_of_it_and_nothing_of_another(database: Database) -> None:
    store = await database.open()
    try:
        await fill(store, database, KEPT)
        kept = await rows(database)
        await fill(store, database, FORGOTTEN)
        assert all(kept[table] != found for table, found in (await rows(database)).items() if kept[table])
        forgotten = await store.forget_guild(FORGOTTEN)
        assert forgotten == ForgottenGuild(fights=2, ended=1, log_lines=6, characters=2, settings=True)
        assert await rows(database) == kept
        assert await store.forget_guild(FORGOTTEN) == ForgottenGuild(0, 0, 0, 0, settings=False)
        # The other server plays on, its undo history whole.
        assert await store.load_encounter(KEPT * 100) is not None
        assert len(await store.history(KEPT * 100)) == 2
        assert await store.redoable(KEPT * 100) is not None
        assert await store.guild_settings(FORGOTTEN) == GuildSettings(guild_id=FORGOTTEN)
        assert await store.characters(FORGOTTEN, 1) == []
        assert (await store.tally_d20(guild_id=FORGOTTEN)).rolls == 0
        assert (await store.tally_d20(guild_id=KEPT)).rolls == 1
    finally:
        await store.close()


async def test_the_log_stays_append_only_for_everything_else(database: Database) -> None:
    store = await database.open()
    try:
        await store.append_logs([line(FORGOTTEN, 1000, "a line")])
    finally:
        await store.close()
    with pytest.raises(Exception, match="append-only"):
        await database.fetch("DELETE FROM log WHERE guild_id = ?", FORGOTTEN)


async def test_a_server_left_is_swept_after_its_time_unless_pommel_came_back(store: Store) -> None:
    now = datetime(2026, 12, 2, tzinfo=UTC)
    await store.guild_left(1, now - timedelta(days=31))
    await store.guild_left(2, now - timedelta(days=29))
    await store.guild_left(3, now - timedelta(days=40))
    await store.guild_left(3, now)  # left again before the sweep: the first departure counts
    await store.guild_left(4, now - timedelta(days=50))
    await store.guild_returned(4)
    assert await store.guilds_left_before(now - timedelta(days=30)) == [3, 1]
    await store.forget_guild(3)
    assert await store.guilds_left_before(now - timedelta(days=30)) == [1]
