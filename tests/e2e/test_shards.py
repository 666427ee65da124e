"""The fake Discord's shards, and a sharded Pommel in this process against it.

The fake recommends ``shard_count`` shards (``GET /gateway/bot``), refuses an IDENTIFY whose shard
Discord would refuse, and sends each guild's events only to the sessions of its shard
(``(guild_id >> 22) % shard_count``; direct messages to shard 0). Several bot processes against one
PostgreSQL are in ``test_processes.py``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import pytest

from bot.app import shard_of
from bot.encounter.document import Encounter
from bot.table_options import TableOptions

from .fake_discord import FakeDiscord, FakeGuild, World
from .fights import StackedDice, character
from .harness import BotRunner


def hall(fake: FakeDiscord, world: World, shard: int) -> FakeGuild:
    """A guild on ``shard`` with a #table and the world's GM and players."""
    guild = fake.create_guild(f"Shard {shard} Hall", owner=world.owner, shard=shard)
    guild.create_text_channel("table")
    for user in (world.gm, world.player, world.player2):
        guild.add_member(user)
    return guild


async def identify(fake: FakeDiscord, shard: Any) -> int | None:
    """IDENTIFY on a raw websocket with ``shard`` (left out when None); the close code it gets, or None
    when READY came."""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{fake.gateway_url}?v=10&encoding=json") as ws,
    ):
        await ws.receive_json()  # HELLO
        data: dict[str, Any] = {"token": fake.token, "intents": 1, "properties": {}}
        if shard is not None:
            data["shard"] = shard
        await ws.send_str(json.dumps({"op": 2, "d": data}))
        message = await ws.receive()
        if message.type is aiohttp.WSMsgType.TEXT and json.loads(message.data)["t"] == "READY":
            return None
        return ws.close_code


async def test_gateway_bot_recommends_the_fakes_shard_count(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    fake_discord.shard_count = 3
    pommel = await start_bot(settings={"shard_count": 3, "shard_ids": [0]})
    shards, url, _ = await pommel.bot.http.get_bot_gateway()
    assert shards == 3
    assert url.startswith("ws://127.0.0.1:")


@pytest.mark.parametrize(
    ("shard_count", "shard", "closed"),
    [
        (2, None, 4011),  # sharding required
        (2, [2, 2], 4010),  # no such shard
        (2, [0, 3], 4010),  # another count than Discord's
        (2, [1, 2], None),
        (1, None, None),
    ],
)
async def test_an_identify_with_a_shard_discord_would_refuse_is_closed(
    fake_discord: FakeDiscord, world: World, shard_count: int, shard: Any, closed: int | None
) -> None:
    fake_discord.shard_count = shard_count
    assert await identify(fake_discord, shard) == closed
    refused = fake_discord.take_problems("gateway")
    assert len(refused) == (0 if closed is None else 1)


async def test_each_guilds_events_go_only_to_the_bot_of_its_shard(
    fake_discord: FakeDiscord, world: World, bot_runner: BotRunner
) -> None:
    fake_discord.shard_count = 2
    zero, one = hall(fake_discord, world, 0), hall(fake_discord, world, 1)
    assert (shard_of(zero.id, 2), shard_of(one.id, 2)) == (0, 1)
    # The process of shard 0 syncs the commands; the one of shard 1 does not.
    first = await bot_runner.start_bot(settings={"shard_count": 2, "shard_ids": [0]})
    assert len(fake_discord.command_syncs) == 1
    await first.close()
    second = await bot_runner.start_bot(settings={"shard_count": 2, "shard_ids": [1]})
    assert len(fake_discord.command_syncs) == 1
    session = fake_discord.active_sessions[-1]
    assert session.shard == (1, 2)
    assert one.id in {guild.id for guild in second.bot.guilds}
    assert zero.id not in {guild.id for guild in second.bot.guilds}
    assert all(shard_of(guild.id, 2) == 1 for guild in second.bot.guilds)

    answered = await second.slash(
        "roll dice", user=world.player, channel=one.text_channels[0], options={"expression": "1d20+1"}
    )
    assert "1d20+1" in answered.content
    before = len(session.buffer)
    inter = fake_discord.new_interaction(
        type=2, user=world.player, channel=zero.text_channels[0], data=None, command_name="roll dice"
    )
    await fake_discord.send_interaction(inter)
    assert len(session.buffer) == before  # shard 0's guild: not for this session
    assert second.bot.owns(one.id)
    assert not second.bot.owns(zero.id)


async def test_a_process_reminds_only_the_fights_of_its_own_shards(
    fake_discord: FakeDiscord, world: World, bot_runner: BotRunner
) -> None:
    fake_discord.shard_count = 2
    zero, one = hall(fake_discord, world, 0), hall(fake_discord, world, 1)
    pommel = await bot_runner.start_bot(settings={"shard_count": 2, "shard_ids": [1]})
    catalog = pommel.bot.catalog
    for guild in (zero, one):
        table = guild.text_channels[0]
        encounter = Encounter(channel_id=table.id, guild_id=guild.id, gm_id=world.gm.id)
        sheet = character("Alice")
        encounter.join(world.player.id, sheet, catalog.armor(sheet.armor))
        encounter.table = TableOptions(remind_after_hours=6)
        encounter.deal(StackedDice(["KS"]))
        await pommel.bot.store.save_encounter(encounter)
    sweeper: Any = pommel.bot.get_cog("Reminders")
    now = datetime.now(UTC)
    await sweeper.sweep(now)
    await sweeper.sweep(now + timedelta(hours=7))
    [reminder] = one.text_channels[0].history
    assert "it has been 7 hours since your turn (**Alice**, K♠) began" in reminder.content
    assert zero.text_channels[0].history == []  # the process of shard 0 reminds that one
    untouched = await pommel.bot.store.load_encounter(zero.text_channels[0].id)
    assert untouched is not None
    assert untouched.reminded == []
