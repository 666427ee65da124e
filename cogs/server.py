"""``/server gm_role | clear_gm_role | defaults``: the server's settings, for Manage Server.

Discord shows the whole ``/server`` group only to members with Manage Server (its default
permissions); a server may still let others see it, so each command that changes something checks
again. The server's GM role decides who may start a fight or be handed one (``/encounter start``,
``/encounter gm``); its defaults are the rulings and table habits a new fight starts with (the same
options as ``/encounter options``; a running fight keeps its own). What these change is in
:mod:`bot.encounter.roster`.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter import roster
from bot.interactions import actor_of, answer, encounter_place
from bot.option_parameters import SetsOptions, options_command
from bot.store import log_entries
from bot.ui.encounter_views import defaults_changed_reply, defaults_embed, gm_role_reply


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class ServerCog(
    SetsOptions,
    commands.GroupCog,
    group_name="server",
    group_description="Manage Server: who may run fights here, and how new ones start",
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="gm_role", description="Only members with this role (or Manage Server) may run fights here"
    )
    @app_commands.describe(role="Members with it may start fights and be handed them")
    async def gm_role(self, interaction: discord.Interaction, role: discord.Role) -> None:
        await self._set_gm_role(interaction, roster.Role(role.id, role.name))

    @app_commands.command(name="clear_gm_role", description="Let anyone on this server run fights again")
    async def clear_gm_role(self, interaction: discord.Interaction) -> None:
        await self._set_gm_role(interaction, None)

    async def _set_gm_role(self, interaction: discord.Interaction, role: roster.Role | None) -> None:
        guild_id, channel_id = encounter_place(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        done = roster.set_gm_role(settings, actor_of(interaction), interaction.user.display_name, role)
        events = log_entries(done, guild_id, channel_id, interaction.user.id)
        await self.bot.store.save_guild_settings(done.result, events=events)
        await answer(interaction, gm_role_reply(done.result.gm_role_id))

    defaults = options_command("defaults", "The rulings and table habits new fights here start with")

    async def set_options(
        self, interaction: discord.Interaction, rules: dict[str, object], table: dict[str, object]
    ) -> None:
        guild_id, channel_id = encounter_place(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        actor = actor_of(interaction)
        if not rules and not table:
            await answer(interaction, embed=defaults_embed(settings), ephemeral=True)
            return
        done = roster.set_defaults(settings, actor, interaction.user.display_name, rules, table)
        changes = done.result.changes
        if changes:
            events = log_entries(done, guild_id, channel_id, interaction.user.id)
            await self.bot.store.save_guild_settings(done.result.settings, events=events)
        await answer(interaction, defaults_changed_reply(changes), ephemeral=not changes)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(ServerCog(bot))
