"""``/help`` end to end: privately, what Pommel does, a first fight in six steps, and every command it
synced as a mention Discord makes clickable (with the id the sync returned), and the version."""

from __future__ import annotations

import importlib.metadata
from typing import Any

from .fake_discord import FakeDiscord, World


def every_command(fake: FakeDiscord, world: World) -> dict[str, int]:
    """Each slash command's full path ("encounter start"), with its top-level command's id."""
    found: dict[str, int] = {}
    for command in fake.commands_for(world.guild):
        if command.get("type", 1) != 1:
            continue
        subs = [o for o in command.get("options") or [] if o["type"] in (1, 2)]
        if not subs:
            found[command["name"]] = int(command["id"])
        for sub in subs:
            inner = [o for o in sub.get("options") or [] if o["type"] == 1] if sub["type"] == 2 else []
            for leaf in inner or [sub]:
                path = f"{command['name']} {sub['name']}" + (f" {leaf['name']}" if inner else "")
                found[path] = int(command["id"])
    return found


async def test_help_shows_every_command_as_a_clickable_mention_privately(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    pommel = await start_bot()
    result = await pommel.slash("help", user=world.player)
    assert result.ephemeral
    [embed] = result.embeds
    shown = embed["description"] + "".join(field["value"] for field in embed["fields"])
    assert "**A first fight in six steps**" in embed["description"]
    commands = every_command(fake_discord, world)
    assert len(commands) > 50
    missing = [path for path, command_id in commands.items() if f"</{path}:{command_id}>" not in shown]
    assert missing == []
    start = commands["encounter start"]
    assert f"2. </encounter start:{start}> — the GM starts a fight in the channel" in embed["description"]
    assert "docs/RULES.md in Pommel's repository" in shown
    assert embed["footer"]["text"] == f"Pommel {importlib.metadata.version('pommel')}"


async def test_help_answers_in_direct_messages_too(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    pommel = await start_bot()
    result = await pommel.slash("help", user=world.player, channel=fake_discord.dm_channel(world.player))
    assert result.ephemeral
    assert "</attack:" in result.embeds[0]["fields"][2]["value"]


async def test_a_process_that_did_not_sync_asks_discord_for_the_ids(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    synced = dict(pommel.bot.command_ids)
    pommel.bot.command_ids = {}  # as a process serving other shards than 0: it never synced
    result = await pommel.slash("help", user=world.player)
    assert f"</attack:{synced['attack']}>" in result.embeds[0]["fields"][2]["value"]
    assert pommel.bot.command_ids == synced
