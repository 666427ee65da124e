"""``pommel clear-commands``: after switching between ``DEV_GUILD_ID`` and global sync, a server shows
every command twice (its own copy and the global one) until one copy is removed."""

from __future__ import annotations

from typing import Any

from bot.__main__ import clear_commands

from .fake_discord import FakeDiscord, World


async def test_a_server_s_own_copies_go_and_the_global_commands_stay(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    first = await start_bot(timeout=30)  # global sync
    await first.close()
    globally = {command["name"] for command in fake_discord.global_commands.values()}
    assert "attack" in globally
    running = await start_bot(
        settings={"dev_guild_id": world.guild.id}, timeout=30
    )  # a switch to DEV_GUILD_ID
    await running.close()
    picker = [command["name"] for command in fake_discord.commands_for(world.guild)]
    assert picker.count("attack") == 2  # what the user sees until cleared

    cleared = await clear_commands(fake_discord.token, world.guild.id)

    assert cleared == len(globally)
    picker = [command["name"] for command in fake_discord.commands_for(world.guild)]
    assert picker.count("attack") == 1
    assert {command["name"] for command in fake_discord.global_commands.values()} == globally


async def test_the_global_commands_go_when_no_server_is_named(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    running = await start_bot(timeout=30)
    await running.close()
    assert fake_discord.global_commands
    assert await clear_commands(fake_discord.token, None) > 0
    assert fake_discord.global_commands == {}
