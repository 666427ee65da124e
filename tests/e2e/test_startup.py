"""Start-up and shutdown of the real bot against the fake Discord, and its store under contention."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
from typing import Any

import discord
import pytest
from discord import app_commands

from bot import app
from bot.__main__ import serve
from bot.app import Pommel
from bot.encounter.document import Encounter
from bot.store import EncounterChange, StaleEncounter
from bot.store.sqlite import SqliteStore

from .fake_discord import FakeDiscord, World
from .harness import HANG_GUARD, BotRunner, RunningBot


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_signal_shuts_down_cleanly_even_when_sent_twice(
    fake_discord: FakeDiscord,
    world: World,
    bot_runner: BotRunner,
    signum: signal.Signals,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    handler_before = signal.getsignal(signum)
    bot = Pommel(bot_runner.settings_for())
    bot._connection.guild_ready_timeout = 0.01
    ready = asyncio.Event()

    async def on_ready() -> None:
        ready.set()

    bot.add_listener(on_ready, "on_ready")
    close = bot.close

    async def close_while_signalled_again() -> None:
        """An impatient second Ctrl-C in the middle of closing must not interrupt it."""
        os.kill(os.getpid(), signum)
        await asyncio.sleep(0.01)
        await close()

    monkeypatch.setattr(bot, "close", close_while_signalled_again)
    caplog.set_level(logging.INFO, logger="bot")
    serving = asyncio.create_task(serve(bot, fake_discord.token))
    await asyncio.wait_for(ready.wait(), HANG_GUARD)
    store = bot.store

    os.kill(os.getpid(), signum)
    await asyncio.wait_for(serving, HANG_GUARD)

    assert bot.is_closed()
    assert "already shutting down" in caplog.text
    assert not store._db._thread.is_alive()  # type: ignore[attr-defined]  # nothing keeps the process up
    assert signal.getsignal(signum) == handler_before
    await close()  # idempotent: nothing left to close, no error
    await store.close()


async def test_once_ready_what_start_up_made_is_out_of_the_collector_s_sight(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full collections walking the whole start-up heap paused the bot 50 to 70 ms every few hundred
    commands. Once ready, it is frozen (``gc.freeze``), once a process, and the young generation is
    collected less often (``app.YOUNG_COLLECTED_AFTER``)."""
    monkeypatch.setattr(app, "_start_up_frozen", False)
    gc.unfreeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(700, *thresholds[1:])
    try:
        await start_bot()
        loop = asyncio.get_running_loop()
        hang_guard = loop.time() + HANG_GUARD
        # on_ready is a task of its own: it may run just after start_bot returns
        while not app._start_up_frozen and loop.time() < hang_guard:
            await asyncio.sleep(0.01)
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the modules, the catalog, discord.py's state
        assert gc.get_threshold() == (app.YOUNG_COLLECTED_AFTER, *thresholds[1:])
        app.freeze_start_up()  # a reconnect's READY: nothing more is frozen (some frozen may have died)
        assert gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


async def test_start_up_migrates_the_database_before_commands_run(world: World, pommel: RunningBot) -> None:
    """A fresh file is migrated in setup_hook: the store answers before any command needed it."""
    assert await pommel.bot.store.read_log() == []
    assert pommel.bot.settings.database_path.exists()


async def test_two_writers_from_one_version_one_wins_the_other_fails_loudly(
    world: World, pommel: RunningBot
) -> None:
    store = pommel.bot.store
    created = await store.save_encounter(
        Encounter(channel_id=world.table.id, guild_id=world.guild.id, gm_id=world.gm.id)
    )
    first = created.model_copy(update={"gm_id": world.player.id})
    second = created.model_copy(update={"gm_id": world.player2.id})

    outcomes = await asyncio.gather(
        store.save_encounter(first), store.save_encounter(second), return_exceptions=True
    )

    saved = [o for o in outcomes if isinstance(o, Encounter)]
    refused = [o for o in outcomes if isinstance(o, StaleEncounter)]
    assert len(saved) == 1
    assert len(refused) == 1
    assert "nothing was changed" in refused[0].message
    stored = await store.load_encounter(world.table.id)
    assert stored == saved[0]


async def test_two_processes_updating_one_encounter_lose_nothing(
    world: World, pommel: RunningBot, bot_runner: BotRunner
) -> None:
    """A second store on the same file stands in for an outside writer: every update lands, by retry."""
    store = pommel.bot.store
    other = await SqliteStore.open(bot_runner.database_path, exclusive=False)  # an outside writer
    await store.save_encounter(Encounter(channel_id=world.table.id, guild_id=world.guild.id, gm_id=1))

    def next_round(encounter: Encounter | None) -> EncounterChange:
        assert encounter is not None
        initiative = encounter.initiative.model_copy(update={"round": encounter.initiative.round + 1})
        return EncounterChange(encounter.model_copy(update={"initiative": initiative}))

    async def bump(target: Any) -> None:
        await target.update_encounter(world.table.id, next_round, attempts=50)

    try:
        await asyncio.gather(*(bump(store if i % 2 else other) for i in range(20)))
        stored = await store.load_encounter(world.table.id)
    finally:
        await other.close()
    assert stored is not None
    assert stored.initiative.round == 20
    assert stored.version == 21


async def stale_write(interaction: discord.Interaction) -> None:
    """A command whose encounter was changed by someone else between its load and its save."""
    assert isinstance(interaction.client, Pommel)
    assert interaction.channel_id is not None
    store = interaction.client.store
    loaded = await store.load_encounter(interaction.channel_id)
    assert loaded is not None
    await store.save_encounter(loaded.model_copy(update={"gm_id": 1}))  # the other writer wins
    await store.save_encounter(loaded.model_copy(update={"gm_id": 2}))
    await interaction.response.send_message("saved")


def add_stale_writer(bot: Pommel) -> None:
    bot.tree.add_command(
        app_commands.Command(name="e2e-stale", description="Lose a compare-and-set", callback=stale_write)
    )


async def test_a_lost_compare_and_set_is_an_ephemeral_refusal_and_keeps_the_winner(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(setup=add_stale_writer)
    await pommel.bot.store.save_encounter(
        Encounter(channel_id=world.table.id, guild_id=world.guild.id, gm_id=world.gm.id)
    )
    result = await pommel.slash("e2e-stale", user=world.gm)
    assert result.ephemeral
    assert "changed while your command ran; nothing was changed" in result.content
    assert result.errors == []  # a refusal, not a bug
    stored = await pommel.bot.store.load_encounter(world.table.id)
    assert stored is not None
    assert stored.gm_id == 1
    assert stored.version == 2


async def test_pommel_asks_for_no_message_events(
    fake_discord: FakeDiscord, world: World, pommel: RunningBot
) -> None:
    """Pommel has slash commands only, so it identifies without the message intents: a message, even
    one mentioning it, never reaches it (and its own replies cost no MESSAGE_CREATE to parse)."""
    [session] = fake_discord.active_sessions
    asked = discord.Intents._from_value(session.intents)
    assert asked.guilds
    assert not asked.guild_messages
    assert not asked.dm_messages
    await fake_discord.send_user_message(world.player, world.table, f"<@{fake_discord.bot_user.id}> hello")
    result = await pommel.slash("roll dice", user=world.player, options={"expression": "1d20"})
    assert not result.ephemeral
    sent = [frame["t"] for _, frame in session.buffer]
    assert "INTERACTION_CREATE" in sent
    assert not [event for event in sent if event.startswith("MESSAGE_")]


async def test_a_token_discord_refuses_ends_serve_with_login_failure(
    fake_discord: FakeDiscord, world: World, bot_runner: BotRunner
) -> None:
    """``main`` turns this LoginFailure into one line and status 2; the store is closed again."""
    bot = Pommel(bot_runner.settings_for())
    with pytest.raises(discord.LoginFailure):
        await asyncio.wait_for(serve(bot, "not-the-token"), HANG_GUARD)
    assert bot._store is None
    assert fake_discord.take_problems("auth")
