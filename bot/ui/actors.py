"""Who is behind an interaction, as :mod:`bot.permissions` sees them."""

from __future__ import annotations

import discord

from ..permissions import Actor


def actor_of(interaction: discord.Interaction) -> Actor:
    """The user, whether they have Manage Server here, and their role ids (none in DMs)."""
    user = interaction.user
    roles = frozenset(role.id for role in user.roles) if isinstance(user, discord.Member) else frozenset()
    return Actor(
        user_id=user.id,
        manages_server=interaction.guild_id is not None and interaction.permissions.manage_guild,
        role_ids=roles,
    )
