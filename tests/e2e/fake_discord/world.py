"""The default world most tests need."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from .model import FakeChannel, FakeGuild, FakeRole, FakeUser
from .server import FakeDiscord


@dataclass
class World:
    """The cast most tests need: one guild, two text channels, a GM, two players and an admin."""

    guild: FakeGuild
    table: FakeChannel
    """The channel where games are played."""
    lobby: FakeChannel
    gm_role: FakeRole
    admin_role: FakeRole
    gm: FakeUser
    """A game master: has the GM role, no special Discord permissions."""
    player: FakeUser
    player2: FakeUser
    admin: FakeUser
    """Has Manage Server (manage_guild), not the owner."""
    owner: FakeUser


def build_world(fake: FakeDiscord) -> World:
    owner = fake.create_user("owner")
    guild = fake.create_guild("Pommel Test Hall", owner=owner)
    gm_role = guild.create_role("GM", 0, mentionable=True)
    admin_role = guild.create_role("Admin", discord.Permissions(manage_guild=True, manage_messages=True))
    table = guild.create_text_channel("table", topic="where fights happen")
    lobby = guild.create_text_channel("lobby")
    gm = fake.create_user("gamemaster", global_name="Gamemaster")
    player = fake.create_user("alice")
    player2 = fake.create_user("bob")
    admin = fake.create_user("admin")
    guild.add_member(gm, [gm_role])
    guild.add_member(player)
    guild.add_member(player2)
    guild.add_member(admin, [admin_role])
    return World(guild, table, lobby, gm_role, admin_role, gm, player, player2, admin, owner)
