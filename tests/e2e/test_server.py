"""``/server`` end to end: the server's GM role and the defaults of new fights, set by Manage Server only.

Discord hides a command from members without its default permissions per top-level command, so the
whole ``/server`` group asks for Manage Server; a server that shows it to others anyway still has
their requests refused.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest

from bot.guild_settings import GuildSettings
from bot.store import LogEntry
from tests.sheets import character

from .fake_discord import CommandNotVisible, FakeDiscord, World
from .fights import fight_of, start, tracker_message
from .harness import RunningBot

OTHER_GUILD = 4242
"""Another server's id: its data must outlive this one's."""


async def a_servers_life(pommel: RunningBot, world: World) -> None:
    """This server: a fight running in #table, one ended in #lobby, rolls, a character and settings; and
    another server's data beside it."""
    await start(pommel, world)
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20"})
    await pommel.slash("server gm_role", user=world.admin, options={"role": world.gm_role})
    await pommel.slash("encounter start", user=world.gm, channel=world.lobby)
    store = pommel.bot.store
    lobby = await store.load_encounter(world.lobby.id)
    assert lobby is not None
    await store.delete_encounter(lobby)
    await store.create_character(world.guild.id, world.player.id, character("Ansel"))
    await store.create_character(OTHER_GUILD, world.player.id, character("Ansel"))
    await store.save_guild_settings(GuildSettings(guild_id=OTHER_GUILD, gm_role_id=7))
    other_line = LogEntry(guild_id=OTHER_GUILD, channel_id=99, user_id=world.player.id, kind="roll", text="9")
    await store.append_logs([other_line])


async def nothing_of_this_server_is_left(pommel: RunningBot, world: World) -> None:
    store = pommel.bot.store
    assert await store.load_encounter(world.table.id) is None
    assert await store.ended_encounters(world.lobby.id) == []
    assert await store.read_log_backwards(guild_id=world.guild.id) == []
    assert await store.characters(world.guild.id, world.player.id) == []
    assert await store.guild_settings(world.guild.id) == GuildSettings(guild_id=world.guild.id)
    # The other server's data is whole.
    assert [c.name for c in await store.characters(OTHER_GUILD, world.player.id)] == ["Ansel"]
    assert (await store.guild_settings(OTHER_GUILD)).gm_role_id == 7
    assert [entry.text for entry in await store.read_log_backwards(guild_id=OTHER_GUILD)] == ["9"]


async def test_the_server_settings_are_offered_only_to_members_with_manage_server(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    """Discord hides a command per top-level command: all of /server asks for Manage Server (32)."""
    await start_bot()
    server = fake_discord.find_command("server", world.guild)
    assert server["default_member_permissions"] == str(discord.Permissions(manage_guild=True).value) == "32"
    assert {sub["name"] for sub in server["options"]} == {"gm_role", "clear_gm_role", "defaults", "forget"}
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


async def test_server_forget_deletes_this_servers_data_once_confirmed(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await a_servers_life(pommel, world)
    with pytest.raises(CommandNotVisible, match="manage_guild"):
        await pommel.slash("server forget", user=world.gm)
    refused = await pommel.slash("server forget", user=world.gm, enforce_permissions=False)
    assert refused.ephemeral
    assert "Only members with the Manage Server permission can delete this server's data." in refused.content

    asked = await pommel.slash("server forget", user=world.admin)
    assert asked.ephemeral
    assert "**Delete everything Pommel keeps about this server?**" in asked.content
    assert asked.message is not None
    _, keep = asked.message.custom_ids()
    kept = await pommel.click(asked, keep, user=world.admin)
    assert "Nothing was deleted" in kept.content
    assert await pommel.bot.store.load_encounter(world.table.id) is not None
    assert await pommel.bot.store.characters(world.guild.id, world.player.id) != []

    lines = len(await pommel.bot.store.read_log_backwards(guild_id=world.guild.id))
    assert lines >= 4  # two starts, a roll, the GM role set
    asked = await pommel.slash("server forget", user=world.admin)
    assert asked.message is not None
    done = await pommel.click(asked, asked.message.custom_ids()[0], user=world.admin)
    assert done.content == (
        f"🗑️ Deleted everything Pommel kept about this server: 1 running fight, 1 ended fight, {lines} log"
        " lines, 1 character, the server's settings. A fight started from now on starts afresh, with the"
        " default settings."
    )
    assert done.message is not None
    assert done.message.components == []
    await nothing_of_this_server_is_left(pommel, world)
    # The channel plays on: a new fight starts afresh.
    assert not (await start(pommel, world)).ephemeral


async def test_server_forget_closes_the_trackers_of_the_fights_it_deleted(
    world: World, start_bot: Any
) -> None:
    """The running fight was deleted, but its tracker went on showing "Round 1, Now: Alice" with live
    Next, Hold and Act buttons, which answered "There is no fight in this channel"."""
    pommel = await start_bot()
    await start(pommel, world)
    await pommel.slash("init deal", user=world.gm)
    tracker = tracker_message(world.table)
    assert tracker.custom_ids()
    asked = await pommel.slash("server forget", user=world.admin)
    assert asked.message is not None
    await pommel.click(asked, asked.message.custom_ids()[0], user=world.admin)
    assert tracker.custom_ids() == []
    assert "This fight was deleted with the rest of the server's data" in tracker.embed_text
    assert await pommel.bot.store.load_encounter(world.table.id) is None


async def test_a_server_pommel_left_is_forgotten_after_30_days(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    pommel = await start_bot()
    await a_servers_life(pommel, world)
    await fake_discord.dispatch("GUILD_DELETE", {"id": str(world.guild.id)})
    store = pommel.bot.store
    later = datetime.now(UTC) + timedelta(days=1)
    for _ in range(500):  # the removal is an event of its own: the bot records it when it comes
        if await store.guilds_left_before(later):
            break
        await asyncio.sleep(0.02)
    assert await store.guilds_left_before(later) == [world.guild.id]
    assert pommel.bot.get_guild(world.guild.id) is None
    cog = pommel.bot.get_cog("Server")
    assert await cog.sweep(now=datetime.now(UTC) + timedelta(days=29)) == []  # kept for now
    assert await store.characters(world.guild.id, world.player.id) != []
    assert await cog.sweep(now=datetime.now(UTC) + timedelta(days=31)) == [world.guild.id]
    await nothing_of_this_server_is_left(pommel, world)
    assert await store.guilds_left_before(datetime.now(UTC) + timedelta(days=365)) == []
