"""Pommel knows what it may do in a channel: a command that would have it post there (a tracker) says
privately what Pommel lacks and where to grant it, and changes nothing; an answer to a command needs no
permission (Discord takes it, embeds and files included); a post refused mid-fight is told to the GM
once, in a direct message.

The fake applies the channel's overwrites to the bot as Discord does, computes ``app_permissions`` from
them, and refuses a post with 403 (50013 Missing Permissions).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest

from bot.rules.dice import ScriptedDice

from .fake_discord import FakeChannel, FakeDiscord, World
from .fights import StackedDice, fight_of, join, seed_fight, start

GRANT = "Edit Channel → Permissions → Pommel's role"


def deny(fake: FakeDiscord, channel: FakeChannel, **permissions: bool) -> None:
    """The channel denies the bot these permissions (an overwrite for its member)."""
    channel.set_overwrite(fake.bot_user, deny=discord.Permissions(**permissions))


@pytest.mark.parametrize(
    ("denied", "named"),
    [
        ({"send_messages": True}, "**Send Messages**"),
        ({"embed_links": True}, "**Embed Links**"),
        ({"send_messages": True, "embed_links": True}, "**Send Messages** and **Embed Links**"),
        ({"view_channel": True}, "**View Channel** here"),
    ],
)
async def test_a_command_that_would_post_a_tracker_where_pommel_may_not_says_so_privately(
    world: World, start_bot: Any, fake_discord: FakeDiscord, denied: dict[str, bool], named: str
) -> None:
    pommel = await start_bot()
    # With everything granted, a fight starts and its tracker is posted; then it ends.
    await start(pommel, world)
    ending = await pommel.slash("encounter end", user=world.gm)
    assert ending.message is not None
    await pommel.click(ending, ending.message.custom_ids()[0], user=world.gm)
    before = list(world.table.history)

    deny(fake_discord, world.table, **denied)
    started = await pommel.slash("encounter start", user=world.gm)
    assert started.ephemeral
    assert started.content.startswith(
        f"Pommel can't post this fight's tracker in this channel: it lacks {named}"
    )
    assert "so nothing was done" in started.content
    assert GRANT in started.content
    assert "round 1" not in started.content
    assert await pommel.bot.store.load_encounter(world.table.id) is None
    reopened = await pommel.slash("encounter reopen", user=world.gm)
    assert reopened.ephemeral
    assert f"Pommel can't post the fight's tracker in this channel: it lacks {named}" in reopened.content
    assert await pommel.bot.store.load_encounter(world.table.id) is None
    assert world.table.history == before  # nothing posted, nothing refused
    assert not started.channel_messages
    assert not reopened.channel_messages

    # Granted again: the same commands work, the tracker is posted.
    world.table.overwrites.clear()
    assert not (await pommel.slash("encounter reopen", user=world.gm)).ephemeral
    assert (await fight_of(pommel, world)).tracker is not None

    # A running fight whose channel then refuses: /init show says so instead of promising the tracker.
    deny(fake_discord, world.table, **denied)
    shown = await pommel.slash("init show", user=world.gm)
    assert shown.ephemeral
    assert shown.content.startswith(f"Pommel can't post the tracker in this channel: it lacks {named}")
    assert "at the bottom" not in shown.content
    assert not shown.channel_messages
    private = await pommel.slash("init show", user=world.gm, options={"private": True})
    assert private.ephemeral
    assert private.embeds  # shown privately: an answer needs no permission in the channel


async def test_answers_need_no_permission_and_attach_files_is_never_needed(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    """Without Attach Files (and Embed Links), a chart and the end of a fight come as answers: Discord
    takes an interaction's answer, embeds and files included, whatever the bot may do in the channel."""
    pommel = await start_bot()
    deny(fake_discord, world.table, attach_files=True)
    started = await start(pommel, world)
    assert not started.ephemeral  # the tracker needs no file
    assert (await fight_of(pommel, world)).tracker is not None
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20"})
    stats = await pommel.slash("stats dice", user=world.player)
    assert not stats.ephemeral
    assert stats.message is not None
    assert [picture.filename for picture in stats.message.attachments] == ["d20-faces.png"]
    ending = await pommel.slash("encounter end", user=world.gm)
    assert ending.message is not None
    ended = await pommel.click(ending, ending.message.custom_ids()[0], user=world.gm)
    summary = [m for m in ended.followups if m.attachments]
    assert summary
    assert "can't post" not in ended.text


async def test_in_a_thread_pommel_needs_send_messages_in_threads(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    pommel = await start_bot()
    thread = world.guild.create_thread(world.table, "skirmish")
    deny(fake_discord, world.table, send_messages_in_threads=True)
    refused = await pommel.slash("encounter start", user=world.gm, channel=thread)
    assert refused.ephemeral
    assert refused.content.startswith(
        "Pommel can't post this fight's tracker in this thread: it lacks **Send Messages in Threads** here"
    )
    assert "the thread's channel's settings" in refused.content
    assert await pommel.bot.store.load_encounter(thread.id) is None
    # Send Messages is not what a thread needs: denied in the channel, a fight runs in its thread.
    deny(fake_discord, world.table, send_messages=True)
    started = await pommel.slash("encounter start", user=world.gm, channel=thread)
    assert not started.ephemeral
    fight = await pommel.bot.store.load_encounter(thread.id)
    assert fight is not None
    assert fight.tracker is not None
    assert fight.tracker.message_id in thread.messages


async def test_a_tracker_refused_mid_fight_is_told_to_the_gm_once(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit"})
    deny(fake_discord, world.table, send_messages=True, embed_links=True)
    await fake_discord.update_channel(world.table)
    hurt = await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit", "change": "-1"})
    assert not hurt.ephemeral  # the answer is the interaction's: it is posted
    told = fake_discord.dm_channel(world.gm).history
    assert len(told) == 1
    [note] = told
    assert note.content.startswith(
        f"⚠️ Pommel could not post the fight's tracker in <#{world.table.id}>, where you run a fight: "
        "it lacks **Send Messages** and **Embed Links** there."
    )
    assert GRANT in note.content
    assert "`/init show` in that channel brings the tracker back" in note.content
    # The next refusals of the same fight are not told again, nor retried in a loop.
    for _ in range(2):
        await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit", "change": "-1"})
    assert len(fake_discord.dm_channel(world.gm).history) == 1
    refused = fake_discord.take_problems("forbidden")
    assert 1 <= len(refused) <= 3  # one attempt per change, no more
    # Granted again: /init show brings the tracker back; refused again later, the GM hears it again.
    world.table.overwrites.clear()
    await fake_discord.update_channel(world.table)
    assert "at the bottom" in (await pommel.slash("init show", user=world.gm)).content
    deny(fake_discord, world.table, embed_links=True)
    await fake_discord.update_channel(world.table)
    await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit", "change": "-1"})
    assert len(fake_discord.dm_channel(world.gm).history) == 2
    assert "it lacks **Embed Links** there" in fake_discord.dm_channel(world.gm).history[-1].content
    fake_discord.take_problems("forbidden")


async def test_a_defense_timeout_the_channel_refuses_is_saved_and_told_to_the_gm_once(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    """Alice lets her defense's time run out in a channel that no longer lets Pommel post: the GM is
    handed the decision all the same (saved), hears by direct message why the channel does not show it,
    and nothing fails."""
    pommel = await start_bot(dice=ScriptedDice([15, 4]))
    encounter = await seed_fight(
        pommel, world, players=[(world.player, "Alice")], npcs=[("bandit", 1, "Bandit")]
    )
    encounter.deal(StackedDice(["2C", "KS"]))
    await pommel.bot.store.save_encounter(encounter)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert "If nobody picks by" in asked.content
    fight = await fight_of(pommel, world)
    fight.exchanges[0].deadline = datetime.now(UTC) - timedelta(seconds=1)
    await pommel.bot.store.save_encounter(fight)
    deny(fake_discord, world.table, send_messages=True)
    await fake_discord.update_channel(world.table)
    before = list(world.table.history)
    combat: Any = pommel.bot.get_cog("Attack")
    await combat.run_timeout(world.table.id, 1)  # what the timer does when the deadline comes
    assert world.table.history == before
    assert (await fight_of(pommel, world)).exchanges[0].gm_pinged  # the GM decides, as saved
    [note] = fake_discord.dm_channel(world.gm).history
    assert note.content.startswith(
        f"⚠️ Pommel could not post the end of a defense's wait in <#{world.table.id}>, where you run a "
        # Without Send Messages, Embed Links is no use either (discord.py's reckoning, as Discord's).
        "fight: it lacks **Send Messages** and **Embed Links** there."
    )
    assert len(fake_discord.take_problems("forbidden")) == 1
