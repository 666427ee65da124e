"""Who acts (for :mod:`bot.encounter.permissions`), and which channel's fight an interaction is about."""

from __future__ import annotations

from typing import cast

import discord

from ..encounter.document import Encounter
from ..encounter.permissions import Actor
from ..rules.errors import RulesError
from .client import PommelClient


def actor_of(interaction: discord.Interaction) -> Actor:
    """The user, whether they have Manage Server here, and their role ids (none in DMs)."""
    user = interaction.user
    roles = frozenset(role.id for role in user.roles) if isinstance(user, discord.Member) else frozenset()
    return Actor(
        user_id=user.id,
        manages_server=interaction.guild_id is not None and interaction.permissions.manage_guild,
        role_ids=roles,
    )


def member_actor(member: discord.Member) -> Actor:
    """Another member, as :mod:`bot.encounter.permissions` sees them (server-wide permissions)."""
    return Actor(
        user_id=member.id,
        manages_server=member.guild_permissions.manage_guild,
        role_ids=frozenset(role.id for role in member.roles),
    )


def encounter_place(interaction: discord.Interaction) -> tuple[int, int]:
    """The guild and the channel (or thread) whose fight a command is about; fights run in servers."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise RulesError("Fights run in a server channel, not in direct messages.")
    return interaction.guild_id, interaction.channel_id


def encounter_channel(interaction: discord.Interaction) -> int:
    return encounter_place(interaction)[1]


async def channel_encounter(interaction: discord.Interaction) -> Encounter | None:
    """The fight of the interaction's channel as stored, or None (none there, or a direct message).

    For reads and autocomplete; a change goes through :meth:`bot.store.Store.change`."""
    if interaction.guild_id is None or interaction.channel_id is None:
        return None
    return await cast("PommelClient", interaction.client).store.load_encounter(interaction.channel_id)
