"""Start-up and shutdown of the real bot against the fake Discord, and its store under contention."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

from bot.__main__ import serve
from bot.app import Pommel
from bot.encounter import Encounter
from bot.store import EncounterChange, StaleEncounter, open_store

from .fake_discord import FakeDiscord, World
from .harness import BotRunner, RunningBot


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_signal_shuts_down_cleanly_and_closing_again_is_harmless(
    fake_discord: FakeDiscord, world: World, bot_runner: BotRunner, signum: signal.Signals
) -> None:
    bot = Pommel(bot_runner.settings_for())
    bot._connection.guild_ready_timeout = 0.01
    ready = asyncio.Event()

    async def on_ready() -> None:
        ready.set()

    bot.add_listener(on_ready, "on_ready")
    serving = asyncio.create_task(serve(bot, fake_discord.token))
    await asyncio.wait_for(ready.wait(), 10)
    store = bot.store

    os.kill(os.getpid(), signum)
    await asyncio.wait_for(serving, 10)

    assert bot.is_closed()
    with pytest.raises(RuntimeError, match="closed"):
        await store.read_log()
    await bot.close()  # idempotent: nothing left to close, no error
    await store.close()


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
    """A second store on the same file stands in for a second process: every update lands, by retry."""
    store = pommel.bot.store
    other = await open_store(bot_runner.database_path)
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
