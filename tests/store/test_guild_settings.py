"""Guild settings: defaults for a guild that never saved any, and a round trip for one that did."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.guild_settings import GuildSettings
from bot.rules.options import DEFAULT_OPTIONS, CriticalDamage, RuleOptions
from bot.store import LogEntry, Store
from bot.table_options import TableOptions

from .conftest import Database


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


async def test_a_restart_keeps_them(database: Database) -> None:
    chosen = GuildSettings(guild_id=10, gm_role_id=777, options=RuleOptions(dynamic_criticals=False))
    store = await database.open()
    await store.save_guild_settings(chosen)
    await store.close()
    store = await database.open()
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


async def test_settings_saved_before_the_table_habits_still_read(database: Database) -> None:
    """A row written before ``table`` existed has none: it reads with the default habits."""
    store = await database.open()
    await store.close()
    old = '{"guild_id": 10, "gm_role_id": 777, "options": ' + DEFAULT_OPTIONS.model_dump_json() + "}"
    await database.fetch(
        "INSERT INTO guild_settings (guild_id, document, updated_at) VALUES (?, ?, ?)",
        10,
        old,
        datetime(2024, 1, 1, tzinfo=UTC) if database.kind == "postgres" else "2024-01-01T00:00:00+00:00",
    )
    store = await database.open()
    try:
        read = await store.guild_settings(10)
        assert read == GuildSettings(guild_id=10, gm_role_id=777)
        assert read.table == TableOptions()
    finally:
        await store.close()
