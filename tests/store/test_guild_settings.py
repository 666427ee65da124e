"""Guild settings: defaults for a guild that never saved any, and a round trip for one that did."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.encounter.document import TableOptions
from bot.guild_settings import GuildSettings
from bot.rules.options import DEFAULT_OPTIONS, CriticalDamage, RuleOptions
from bot.store import LogEntry, Store, open_store


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    opened = await open_store(":memory:")
    yield opened
    await opened.close()


async def test_a_guild_that_never_saved_gets_the_defaults(store: Store) -> None:
    settings = await store.guild_settings(10)
    assert settings == GuildSettings(guild_id=10)
    assert settings.gm_role_id is None
    assert settings.options == DEFAULT_OPTIONS


async def test_saved_settings_read_back_equal_and_replace_the_old(store: Store) -> None:
    await store.save_guild_settings(GuildSettings(guild_id=10, gm_role_id=5))
    chosen = GuildSettings(
        guild_id=10,
        gm_role_id=777,
        options=RuleOptions(critical_damage=CriticalDamage.SIMPLE_D10, joker_bonus=3),
    )
    await store.save_guild_settings(chosen)
    assert await store.guild_settings(10) == chosen


async def test_each_guild_has_its_own(store: Store) -> None:
    await store.save_guild_settings(GuildSettings(guild_id=10, gm_role_id=777))
    assert await store.guild_settings(11) == GuildSettings(guild_id=11)


async def test_a_restart_keeps_them(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    chosen = GuildSettings(guild_id=10, gm_role_id=777, options=RuleOptions(dynamic_criticals=False))
    store = await open_store(path)
    await store.save_guild_settings(chosen)
    await store.close()
    store = await open_store(path)
    try:
        assert await store.guild_settings(10) == chosen
    finally:
        await store.close()


async def test_settings_and_their_log_line_are_written_together(store: Store) -> None:
    event = LogEntry(guild_id=10, channel_id=20, user_id=1, kind="settings", text="set the GM role")
    await store.save_guild_settings(GuildSettings(guild_id=10, gm_role_id=5), events=[event])
    assert (await store.guild_settings(10)).gm_role_id == 5
    assert [entry.text for entry in await store.read_log(channel_id=20)] == ["set the GM role"]


async def test_the_table_habits_of_new_fights_are_kept(store: Store) -> None:
    chosen = GuildSettings(guild_id=10, table=TableOptions(repost_tracker=True, defense_timeout_minutes=0))
    await store.save_guild_settings(chosen)
    assert await store.guild_settings(10) == chosen


async def test_settings_saved_before_the_table_habits_still_read(tmp_path: Path) -> None:
    """A row written before ``table`` existed has none: it reads with the default habits."""
    path = tmp_path / "pommel.sqlite3"
    store = await open_store(path)
    await store.close()
    old = '{"guild_id": 10, "gm_role_id": 777, "options": ' + DEFAULT_OPTIONS.model_dump_json() + "}"
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO guild_settings (guild_id, document, updated_at) VALUES (?, ?, ?)",
            (10, old, "2024-01-01T00:00:00+00:00"),
        )
    db.close()
    store = await open_store(path)
    try:
        read = await store.guild_settings(10)
        assert read == GuildSettings(guild_id=10, gm_role_id=777)
        assert read.table == TableOptions()
    finally:
        await store.close()
