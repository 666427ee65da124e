"""Discord's rate limits in the fake: a bucket or the global limit spent answers 429 as Discord does, and
Pommel (discord.py's own bucket handling) waits and tries again, losing nothing.

The other tests run under the same limits with Discord's numbers: a 429 the bot caused fails them (a
``ratelimit`` problem) unless they take it, as these do.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from .fake_discord import FakeDiscord, RouteLimit, World
from .fake_discord.rate_limits import MESSAGE
from .fights import fight_of, seed_fight, stored_tracker
from .test_errors import alice_in_a_fight, hurt_alice

CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"


@pytest.fixture
async def as_the_bot(fake_discord: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    """Another client with the bot's token (as a second process of the bot would be)."""
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    async with aiohttp.ClientSession(fake_discord.api_base + "/", headers=headers) as session:
        yield session


async def test_a_channel_s_bucket_answers_429_as_discord_does(
    fake_discord: FakeDiscord, world: World, as_the_bot: aiohttp.ClientSession
) -> None:
    answers = []
    for number in range(6):
        async with as_the_bot.post(
            f"channels/{world.table.id}/messages", json={"content": f"#{number}"}
        ) as r:
            answers.append((r.status, dict(r.headers), await r.json()))
    statuses = [status for status, _, _ in answers]
    assert statuses == [200] * 5 + [429]
    buckets = {headers["X-RateLimit-Bucket"] for _, headers, _ in answers}
    assert len(buckets) == 1
    assert buckets != {""}
    for number, (_, headers, _) in enumerate(answers[:5]):
        assert headers["X-RateLimit-Limit"] == "5"
        assert headers["X-RateLimit-Remaining"] == str(4 - number)
        reset_after = float(headers["X-RateLimit-Reset-After"])
        assert 0 < reset_after <= 5
        assert float(headers["X-RateLimit-Reset"]) == pytest.approx(time.time() + reset_after, abs=1)

    _, headers, body = answers[5]
    assert set(body) == {"message", "retry_after", "global"}
    assert body["global"] is False
    assert 0 < body["retry_after"] <= 5
    assert int(headers["Retry-After"]) == math.ceil(body["retry_after"])
    assert headers["X-RateLimit-Scope"] == "user"
    assert headers["X-RateLimit-Remaining"] == "0"
    assert "Via" in headers  # without it discord.py takes the 429 for Cloudflare's ban
    assert len(world.table.history) == 5  # the refused message was not posted

    async with as_the_bot.post(f"channels/{world.lobby.id}/messages", json={"content": "here"}) as r:
        assert r.status == 200  # a bucket is a channel's: #lobby's is untouched

    hits = fake_discord.take_problems("ratelimit")
    assert len(hits) == 1
    assert len(fake_discord.rate_limit_hits) == 1
    assert fake_discord.rate_limit_hits[0].scope == "user"


async def test_the_global_limit_answers_429_with_global_true(
    fake_discord: FakeDiscord, world: World, as_the_bot: aiohttp.ClientSession
) -> None:
    fake_discord.rate_limits.global_per_second = 3  # Discord's 50, made small to be reached here
    statuses = []
    for _ in range(3):
        async with as_the_bot.get(f"channels/{world.table.id}") as r:
            statuses.append(r.status)
    async with as_the_bot.get(f"channels/{world.lobby.id}") as r:
        assert statuses == [200, 200, 200]
        assert r.status == 429
        body = await r.json()
        assert body["global"] is True
        assert 0 < body["retry_after"] <= 1
        assert r.headers["X-RateLimit-Global"] == "true"
        assert r.headers["X-RateLimit-Scope"] == "global"
        assert "Via" in r.headers
    assert [hit.scope for hit in fake_discord.rate_limit_hits] == ["global"]
    fake_discord.take_problems("ratelimit")


async def test_pommel_waits_out_a_429_on_the_tracker_s_channel_and_loses_nothing(
    world: World, start_bot: Any, as_the_bot: aiohttp.ClientSession
) -> None:
    """Another client spent #table's bucket of message edits: the tracker edit meets a 429, discord.py
    sleeps ``retry_after`` and sends it again, and the tracker shows the change."""
    pommel = await alice_in_a_fight(world, start_bot)
    await pommel.bot.trackers.idle()  # the tracker drawn: what follows is the change's only edit
    fake = pommel.fake
    fake.rate_limits.routes[("PATCH", MESSAGE)] = RouteLimit(2, 1.0)  # Discord's 5 per 5 s, shorter
    async with as_the_bot.post(f"channels/{world.table.id}/messages", json={"content": "other"}) as r:
        other = (await r.json())["id"]
    for _ in range(2):
        async with as_the_bot.patch(
            f"channels/{world.table.id}/messages/{other}", json={"content": "x"}
        ) as r:
            assert r.status == 200
    before = len(fake.requests)

    result = await hurt_alice(pommel, world)
    assert "HP 14 → **12**/14" in result.content
    await pommel.bot.trackers.idle()

    fight = await fight_of(pommel, world)
    assert fight.tracker is not None
    assert "HP 12/14" in stored_tracker(world, fight).embed_text
    edits = [r for r in fake.requests[before:] if r.template == MESSAGE and r.method == "PATCH"]
    assert [r.status for r in edits] == [429, 200]
    assert edits[1].at - edits[0].at >= fake.rate_limit_hits[0].retry_after - 0.05  # it waited
    assert [(hit.scope, hit.template) for hit in fake.rate_limit_hits] == [("user", MESSAGE)]
    assert len(fake.take_problems("ratelimit")) == 1


async def test_pommel_waits_out_the_global_limit_and_its_answers_are_exempt(
    world: World, start_bot: Any, as_the_bot: aiohttp.ClientSession
) -> None:
    """The global limit spent by another client: the answer to the interaction goes through (interaction
    endpoints are not bound to it), the tracker edit meets a global 429, discord.py holds every request
    for ``retry_after`` and sends it again."""
    pommel = await alice_in_a_fight(world, start_bot)
    await pommel.bot.trackers.idle()
    await asyncio.sleep(1.05)  # the bot's own requests out of the global second
    fake = pommel.fake
    fake.rate_limits.global_per_second = 2  # Discord's 50, made small to be spent here
    for _ in range(2):
        async with as_the_bot.get(f"channels/{world.lobby.id}") as r:
            assert r.status == 200
    before = len(fake.requests)

    result = await hurt_alice(pommel, world)
    assert "HP 14 → **12**/14" in result.content
    await pommel.bot.trackers.idle()

    assert "HP 12/14" in stored_tracker(world, await fight_of(pommel, world)).embed_text
    answered = [r for r in fake.requests[before:] if r.template == CALLBACK]
    assert len(answered) == 1
    assert answered[0].status in (200, 204)  # taken (204: no message asked back), never a 429
    edits = [r for r in fake.requests[before:] if r.template == MESSAGE and r.method == "PATCH"]
    assert edits[-1].status == 200
    assert 429 in [r.status for r in edits]
    assert {hit.scope for hit in fake.rate_limit_hits} == {"global"}
    assert all(hit.template != CALLBACK for hit in fake.rate_limit_hits)
    fake.take_problems("ratelimit")


# ------------------------------------------------------------------------- the bot's own global budget

MESSAGES = "/channels/{channel_id}/messages"


async def post_in_the_channel(interaction: discord.Interaction) -> None:
    """A command whose answer is the interaction's (exempt) and then a post in its channel (counted), as
    ``/init next``'s announcements are."""
    await interaction.response.send_message("posting")
    assert isinstance(interaction.channel, discord.abc.Messageable)
    await interaction.channel.send("a command's post")


async def test_a_burst_of_drawings_stays_under_the_global_limit_and_a_command_s_post_goes_first(
    world: World, start_bot: Any
) -> None:
    """A tracker posted in each of 120 channels at once (no drawing budget: every drawing starts at
    once): with Discord's 50 a second in the fake, the bot's request budget sends them within it (no
    global 429), and a command's post in the middle is not queued behind them."""
    posting: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="e2e-post", description="Post here", callback=post_in_the_channel
    )
    pommel = await start_bot(setup=lambda bot: bot.tree.add_command(posting))
    bot, fake = pommel.bot, pommel.fake
    channels = [world.guild.create_text_channel(f"burst-{n}") for n in range(120)]
    fights = [await seed_fight(pommel, world, players=[(world.player, "Alice")], channel=c) for c in channels]
    before = len(fake.requests)

    drawings = asyncio.gather(*(bot.trackers.publish(fight, repost=True) for fight in fights))
    while bot.requests.waiting()[1] < 40:  # the drawings queued for the budget
        await asyncio.sleep(0.01)
    result = await pommel.slash("e2e-post", user=world.gm, channel=world.table)
    assert result.content == "posting"
    await drawings
    await bot.trackers.idle()

    assert fake.rate_limit_hits == []
    posts = [r for r in fake.requests[before:] if r.method == "POST" and r.template == MESSAGES]
    trackers = [r for r in posts if r.path != f"/channels/{world.table.id}/messages"]
    assert len(trackers) == 120
    ours = next(n for n, r in enumerate(posts) if r.path == f"/channels/{world.table.id}/messages")
    assert ours < 120 - 30  # at least the 30 drawings still queued behind it went after it
    assert bot.requests.overtaken == 0  # no drawing took a token while the command's post waited
    assert bot.requests.taken[1] >= 120
