"""Shutdown, through the fake Discord: the commands in progress finish and answer first, then the
trackers are drawn, then the bot disconnects; what arrives meanwhile is refused, changing nothing."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from typing import Any

from bot.interactions import answering
from bot.interactions.in_flight import ShuttingDown
from bot.store import open_store

from .fake_discord import FakeDiscord, World
from .processes import BotProcess, answered, send, slash
from .test_errors import alice_in_a_fight, hurt_alice
from .test_round_trips import ORIGINAL

RESTARTING = ShuttingDown().message


async def test_closing_lets_the_commands_in_progress_answer_first(world: World, start_bot: Any) -> None:
    """At SIGTERM (or a lost lease) the connection to Discord closed while commands were still running:
    their changes were committed and never answered. Now the bot waits for them (and refuses what
    arrives meanwhile) before it disconnects."""
    pommel = await alice_in_a_fight(world, start_bot)
    async with pommel.bot.store.lock(world.table.id):  # the three wait for the channel meanwhile
        waiting = [asyncio.create_task(hurt_alice(pommel, world)) for _ in range(3)]
        while len(pommel.bot.in_flight) < 3:
            await asyncio.sleep(0.01)
        closing = asyncio.create_task(pommel.close())
        while not pommel.bot.in_flight.closing:
            await asyncio.sleep(0.01)
        refused = await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20"})
    results = await asyncio.gather(*waiting)
    await closing
    assert refused.ephemeral
    assert refused.content == RESTARTING
    shown = sorted(re.search(r"HP 1?\d → \*\*(\d+)\*\*/14", result.content)[1] for result in results)  # type: ignore[index]
    assert shown == ["10", "12", "8"]
    assert all(not result.ephemeral for result in results)


async def test_sigterm_in_the_middle_of_a_burst_answers_every_command_it_took(
    fake_discord: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """A burst of rolls waits for the database (another program holds its write lock) when SIGTERM
    arrives: each is logged once the lock is let go, and each is answered before the process exits."""
    database = tmp_path / "pommel.sqlite3"
    store = await open_store(str(database))
    await store.close()
    process = BotProcess(fake_discord, str(database), [0], 1, tmp_path / "bot.log")
    try:
        await process.start()
        probe = slash(
            fake_discord, "roll dice", user=world.gm, channel=world.table, options={"expression": "1d1"}
        )
        assert await send(fake_discord, probe), process.log_tail()

        holder = sqlite3.connect(database, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the burst's rolls wait to be logged
        try:
            rolls = [
                slash(
                    fake_discord,
                    "roll dice",
                    user=world.player,
                    channel=world.table,
                    options={"expression": f"1d20+{n}"},
                )
                for n in range(1, 9)
            ]
            for inter in rolls:
                await fake_discord.send_interaction(inter)
            await asyncio.sleep(1.0)  # all arrived, each waiting for the database
            assert not any(answered(inter) for inter in rolls)
            assert process.process is not None
            process.process.terminate()  # SIGTERM
            await asyncio.sleep(0.5)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert await process.stop() == 0
        unanswered = [inter.id for inter in rolls if not answered(inter)]
        assert unanswered == [], process.log_tail()
        assert all(inter.original is not None and "rolls `1d20+" in inter.original.content for inter in rolls)
        log = process.log_path.read_text()
        assert "waiting for 8 commands in progress to finish" in log
        assert "Traceback" not in log, process.log_tail()
    finally:
        await process.close()
    store = await open_store(str(database))
    try:
        logged = [e for e in await store.read_log(channel_id=world.table.id, limit=100) if e.kind == "roll"]
    finally:
        await store.close()
    assert len(logged) == 1 + 8


async def test_closing_waits_for_the_note_that_says_where_a_late_answer_is(
    world: World, start_bot: Any
) -> None:
    """A command deferred privately answers for everyone below, then its thinking message says so
    (:data:`~bot.interactions.answering.LATE_PUBLIC_NOTE`). When the bot stopped just after the answer,
    that last edit was cut off with the connection, and the user's note went on saying "⏳ ... the answer
    comes here, or below" for good. Now closing waits for it before it disconnects."""
    pommel = await alice_in_a_fight(world, start_bot)
    async with pommel.bot.store.lock(world.table.id):  # the command waits for the channel, and is deferred
        waiting = asyncio.create_task(hurt_alice(pommel, world))
        await asyncio.sleep(answering.DEFER_AFTER + 0.5)
        [*_, deferred] = pommel.fake.interactions.values()
        assert deferred.original is not None
        assert deferred.original.content == answering.WAITING_NOTE
        pommel.fake.fail("PATCH", ORIGINAL, "delay", delay=1.0)  # the note's edit is slow on its way
        closing = asyncio.create_task(pommel.close())
        while not pommel.bot.in_flight.closing:
            await asyncio.sleep(0.01)
    result = await waiting
    await closing
    assert "HP 14 → **12**/14" in result.followups[0].content
    assert result.content == answering.LATE_PUBLIC_NOTE
