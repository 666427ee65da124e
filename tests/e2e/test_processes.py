"""Two Pommel processes with disjoint shards against one PostgreSQL, one of them SIGKILLed mid-stream.

The fake Discord has two shards: the Shard 0 Hall is served by process A, the Shard 1 Hall by process B.
Both halls play at once (a stream of rolls each, whose modifiers tell every action apart); B is killed
with SIGKILL in the middle of its stream and started again. Then:

* every action a user saw answered is in the log exactly once, and none twice;
* each hall's pending defense times out exactly once, fired by the process of its shard: A, restarted
  while B is down, fires the Shard 0 Hall's and leaves the Shard 1 Hall's alone (not its guild);
  B fires that one when it is back;
* a button drawn before the kill still works on the restarted B (the confirmation of an end).

Runs only with a test PostgreSQL (``POMMEL_TEST_DATABASE_URL``; skipped saying so otherwise, failed
under CI); each run has a schema of its own.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.store import Store, open_store
from bot.table_options import DefensePolicy, TableOptions
from tests.postgres import fresh_schema

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, World
from .fights import StackedDice, character
from .harness import shipped_catalog
from .processes import BotProcess, answered, click, send, slash
from .test_shards import hall

TIMEOUT_NOTICE = "⏰ Nobody picked a defense in time"
ROLLS = 24
"""Rolls per hall in the stream; B is killed after a third of its own."""


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    async with fresh_schema() as url:
        yield url


async def seed(store: Store, world: World, channel: FakeChannel) -> Encounter:
    """Alice against the Bandit, the Bandit's turn; a player who does not answer in 5 minutes is
    defended passively."""
    assert channel.guild is not None
    catalog = shipped_catalog()
    encounter = Encounter(channel_id=channel.id, guild_id=channel.guild.id, gm_id=world.gm.id)
    sheet = character("Alice")
    encounter.join(world.player.id, sheet, catalog.armor(sheet.armor))
    template = catalog.monster("bandit")
    encounter.add_npcs(
        template, catalog.armor(template.armor) if template.armor else None, count=1, group="Bandit"
    )
    encounter.deal(StackedDice(["2C", "KS"]))
    encounter.table = TableOptions(defense_policy=DefensePolicy.PASSIVE, defense_timeout_minutes=5)
    return await store.save_encounter(encounter)


def timeout_notices(channel: FakeChannel) -> list[str]:
    return [m.content for m in channel.history if TIMEOUT_NOTICE in m.content]


async def stream(
    fake: FakeDiscord, world: World, guild: FakeGuild, base: int, started: asyncio.Event | None = None
) -> dict[int, bool]:
    """``ROLLS`` rolls in the hall's #table, 40 ms apart, each waited for on its own; modifier ->
    answered. ``started`` is set after a third of them were sent."""
    table = guild.text_channels[0]

    async def roll(modifier: int) -> tuple[int, bool]:
        inter = slash(
            fake, "roll dice", user=world.player, channel=table, options={"expression": f"1d20+{modifier}"}
        )
        return modifier, await send(fake, inter, timeout=8)

    sent = []
    for n in range(ROLLS):
        sent.append(asyncio.create_task(roll(base + n)))
        if started is not None and n == ROLLS // 3:
            started.set()
        await asyncio.sleep(0.04)
    return dict(await asyncio.gather(*sent))


async def logged_modifiers(store: Store, channel: FakeChannel) -> list[int]:
    """The modifier of every roll logged in the channel, in order (duplicates kept)."""
    found = []
    for entry in await store.read_log(channel_id=channel.id, limit=1000):
        if entry.kind == "roll" and entry.data.get("expression") != "1d1":  # not a readiness probe
            matched = re.search(r"\+\s*(\d+)\s*$", str(entry.data.get("expression")))
            assert matched, entry.data
            found.append(int(matched[1]))
    return found


async def until(check: Any, what: str, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)


async def test_two_processes_on_one_postgresql_lose_nothing_when_one_is_killed(
    fake_discord: FakeDiscord, world: World, database_url: str, tmp_path: Path
) -> None:
    fake = fake_discord
    fake.shard_count = 2
    halls = [hall(fake, world, 0), hall(fake, world, 1)]
    tables = [h.text_channels[0] for h in halls]
    lobby = halls[1].create_text_channel("lobby")
    store = await open_store(database_url)
    a = BotProcess(fake, database_url, [0], 2, tmp_path / "a.log")
    b = BotProcess(fake, database_url, [1], 2, tmp_path / "b.log")
    try:
        for table in tables:
            await seed(store, world, table)
        await store.save_encounter(Encounter(channel_id=lobby.id, guild_id=halls[1].id, gm_id=world.gm.id))
        await asyncio.gather(a.start(), b.start())

        async def ready(table: FakeChannel) -> bool:
            probe = slash(fake, "roll dice", user=world.gm, channel=table, options={"expression": "1d1"})
            return await send(fake, probe)

        assert all(await asyncio.gather(*(ready(t) for t in tables))), a.log_tail() + b.log_tail()

        # A pending defense in each hall (the Bandit attacks Alice), and the confirmation of an end.
        asks = [slash(fake, "attack", user=world.gm, channel=t, options={"target": "Alice"}) for t in tables]
        assert all(await asyncio.gather(*(send(fake, ask) for ask in asks)))
        for ask in asks:
            assert ask.original is not None
            assert "If nobody picks by" in ask.original.content
        ending = slash(fake, "encounter end", user=world.gm, channel=lobby)
        assert await send(fake, ending)
        assert ending.original is not None
        end_button = ending.original.custom_ids()[0]

        # Both halls play at once; B dies in the middle of its stream and comes back.
        halfway = asyncio.Event()

        async def kill_b_halfway() -> None:
            await halfway.wait()
            await b.kill()

        outcomes = await asyncio.gather(
            stream(fake, world, halls[0], 1000),
            stream(fake, world, halls[1], 2000, halfway),
            kill_b_halfway(),
        )
        answers = {**outcomes[0], **outcomes[1]}
        assert all(outcomes[0].values()), "A's hall is answered throughout"
        lost = [modifier for modifier, seen in outcomes[1].items() if not seen]
        assert lost, "some of B's rolls went unanswered while it was down"

        # The deadlines pass while B is down. A, restarted, fires its own hall's timeout, not B's.
        assert await a.stop() == 0
        for table in tables:
            fight = await store.load_encounter(table.id)
            assert fight is not None
            [exchange] = [e for e in fight.exchanges if e.pending]
            exchange.deadline = datetime.now(UTC) - timedelta(seconds=1)
            await store.save_encounter(fight)
        await a.start()
        await until(lambda: timeout_notices(tables[0]), "A to fire the Shard 0 Hall's timeout")
        await asyncio.sleep(1.5)  # time enough for A to fire the other one, were it to
        assert timeout_notices(tables[1]) == []
        await b.start()
        await until(lambda: timeout_notices(tables[1]), "B to fire the Shard 1 Hall's timeout")
        assert await ready(tables[1])

        # After the restart: more of B's hall, and the button drawn before the kill.
        after = await stream(fake, world, halls[1], 3000)
        assert all(after.values())
        answers.update(after)
        confirm = click(fake, ending.original, end_button, user=world.gm)
        assert await send(fake, confirm)
        await until(lambda: answered(confirm), "the end's confirmation")
        await asyncio.sleep(0.5)  # both processes settle: a timeout fired twice would show now

        for table in tables:
            assert len(timeout_notices(table)) == 1
            fight = await store.load_encounter(table.id)
            assert fight is not None
            assert [e.pending for e in fight.exchanges] == [False]
        logged = await logged_modifiers(store, tables[0]) + await logged_modifiers(store, tables[1])
        assert len(logged) == len(set(logged)), "an action was applied twice"
        acknowledged = {modifier for modifier, seen in answers.items() if seen}
        assert acknowledged <= set(logged), "an answered action is missing"
        assert set(logged) <= set(answers), "a roll nobody made"
        assert await store.load_encounter(lobby.id) is None
        assert len(await store.ended_encounters(lobby.id)) == 1
        for process in (a, b):
            log = process.log_path.read_text()
            assert " ERROR " not in log, process.log_tail()
            assert "Traceback" not in log, process.log_tail()
    finally:
        await a.close()
        await b.close()
        await store.close()


async def test_a_process_whose_shard_lease_ends_exits_non_zero_so_a_supervisor_restarts_it(
    fake_discord: FakeDiscord, world: World, database_url: str, tmp_path: Path
) -> None:
    """The lease's connection cut by the server (a failover, an admin's pg_terminate_backend): the process
    stops serving its shards and exits with status 3; it used to exit 0, which a supervisor restarting
    on failure takes for a wanted stop, leaving the shards unserved."""
    import asyncpg

    fake = fake_discord
    fake.shard_count = 1
    hall(fake, world, 0)
    process = BotProcess(fake, database_url, [0], 1, tmp_path / "pommel.log")
    try:
        await process.start()
        db = await asyncpg.connect(database_url)
        try:
            key = await db.fetchval("SELECT hashtext(current_schema() || ':pommel shards') & 2147483647")
            holder = await db.fetchval(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = 0",
                key,
            )
            assert holder is not None, "the process holds its shard's lease"
            assert await db.fetchval("SELECT pg_terminate_backend($1)", holder)
        finally:
            await db.close()
        assert process.process is not None
        status = await asyncio.wait_for(process.process.wait(), 30)
        assert status == 3, process.log_tail()
        assert "the database connection holding this process's shards ended" in process.log_tail()
    finally:
        await process.close()
