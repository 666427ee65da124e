"""``/server`` end to end: the server's GM role and the defaults of new fights, set by Manage Server only.

Discord hides a command from members without its default permissions per top-level command, so the
whole ``/server`` group asks for Manage Server; a server that shows it to others anyway still has
their requests refused.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest

from .fake_discord import CommandNotVisible, FakeDiscord, World
from .fights import fight_of, start


async def test_the_server_settings_are_offered_only_to_members_with_manage_server(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    """Discord hides a command per top-level command: all of /server asks for Manage Server (32)."""
    await start_bot()
    server = fake_discord.find_command("server", world.guild)
    assert server["default_member_permissions"] == str(discord.Permissions(manage_guild=True).value) == "32"
    assert {sub["name"] for sub in server["options"]} == {"gm_role", "clear_gm_role", "defaults"}
    assert fake_discord.find_command("encounter", world.guild)["default_member_permissions"] is None


async def test_the_servers_gm_role_decides_who_may_run_fights(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    with pytest.raises(CommandNotVisible, match="manage_guild"):
        await pommel.slash("server gm_role", user=world.player, options={"role": world.gm_role})
    # A server may let others see /server (its integration settings): the command refuses them itself.
    refused = await pommel.slash(
        "server gm_role", user=world.player, options={"role": world.gm_role}, enforce_permissions=False
    )
    assert refused.ephemeral
    assert "Manage Server" in refused.content
    assert (await pommel.bot.store.guild_settings(world.guild.id)).gm_role_id is None
    assert await pommel.bot.store.read_log(guild_id=world.guild.id) == []

    result = await pommel.slash("server gm_role", user=world.admin, options={"role": world.gm_role})
    assert not result.ephemeral
    assert f"<@&{world.gm_role.id}>" in result.content
    assert result.message is not None
    assert result.message.mention_roles == []
    assert (await pommel.bot.store.guild_settings(world.guild.id)).gm_role_id == world.gm_role.id

    no_role = await start(pommel, world, world.player)
    assert no_role.ephemeral
    assert f"only members with the <@&{world.gm_role.id}> role" in no_role.content
    assert await pommel.bot.store.load_encounter(world.table.id) is None

    assert not (await start(pommel, world, world.gm)).ephemeral
    handed = await pommel.slash("encounter gm", user=world.gm, options={"member": world.player})
    assert handed.ephemeral
    assert "can't run fights here" in handed.content
    assert (await fight_of(pommel, world)).gm_id == world.gm.id

    cleared = await pommel.slash("server clear_gm_role", user=world.admin)
    assert "Anyone on this server" in cleared.content
    assert (await pommel.bot.store.guild_settings(world.guild.id)).gm_role_id is None
    settings_log = [
        entry.text
        for entry in await pommel.bot.store.read_log(guild_id=world.guild.id)
        if entry.kind == "settings"
    ]
    assert settings_log == [
        f"{world.admin.global_name} set the server's GM role to {world.gm_role.name}",
        f"{world.admin.global_name} cleared the server's GM role",
    ]
    assert not (await pommel.slash("encounter start", user=world.player, channel=world.lobby)).ephemeral


async def test_the_servers_defaults_are_what_new_fights_start_with(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    chosen = {"joker_bonus": 4, "hide_npc_cards": True, "defense_policy": "passive"}
    with pytest.raises(CommandNotVisible, match="manage_guild"):
        await pommel.slash("server defaults", user=world.player, options=chosen)
    refused = await pommel.slash(
        "server defaults", user=world.player, options=chosen, enforce_permissions=False
    )
    assert refused.ephemeral
    assert "Manage Server" in refused.content
    assert (await pommel.bot.store.guild_settings(world.guild.id)).options.joker_bonus == 2

    await start(pommel, world)  # a fight already running keeps its own
    result = await pommel.slash("server defaults", user=world.admin, options=chosen)
    assert not result.ephemeral
    assert "New fights on this server now start with" in result.content
    assert "joker bonus: 2 → **4**" in result.content
    assert "hide npc cards: off → **on**" in result.content
    running = await fight_of(pommel, world)
    assert (running.options.joker_bonus, running.table.hide_npc_cards) == (2, False)
    settings_log = [
        entry.text
        for entry in await pommel.bot.store.read_log(guild_id=world.guild.id)
        if entry.kind == "settings"
    ]
    assert settings_log == [
        f"{world.admin.global_name} changed the server's defaults for new fights: joker bonus 2 → 4; "
        "hide npc cards off → on; defense policy ask the GM → passive"
    ]

    again = await pommel.slash("server defaults", user=world.admin, options={"joker_bonus": 4})
    assert again.ephemeral
    assert "nothing changed" in again.content
    shown = await pommel.slash("server defaults", user=world.admin)
    assert shown.ephemeral
    assert "joker bonus: **4** (default 2)" in shown.embeds[0]["description"]

    assert not (await pommel.slash("encounter start", user=world.gm, channel=world.lobby)).ephemeral
    new_fight = await pommel.bot.store.load_encounter(world.lobby.id)
    assert new_fight is not None
    assert (new_fight.options.joker_bonus, new_fight.table.hide_npc_cards) == (4, True)
    assert new_fight.table.defense_policy.value == "passive"


async def test_a_preset_as_the_servers_default_is_what_new_fights_start_with(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    result = await pommel.slash(
        "server defaults", user=world.admin, options={"preset": "play-by-post", "remind_after_hours": 24}
    )
    assert not result.ephemeral, result.content
    assert "remind after hours: 0 → **24**" in result.content
    assert "defense timeout minutes: 10 → **1440**" in result.content
    await start(pommel, world)
    table = (await fight_of(pommel, world)).table
    assert (table.repost_tracker, table.claim_pause.value) == (True, "held cards")
    assert (table.defense_timeout_minutes, table.remind_after_hours) == (1440, 24)
