"""``/server gm_role | clear_gm_role | defaults | forget``: the server's settings and data, for Manage Server.

Discord shows the whole ``/server`` group only to members with Manage Server (its default
permissions); a server may still let others see it, so each command that changes something checks
again. The server's GM role decides who may start a fight or be handed one (``/encounter start``,
``/encounter gm``); its defaults are the rulings and table habits a new fight starts with (the same
options as ``/encounter options``; a running fight keeps its own). What these change is in
:mod:`bot.server_settings`.

``/server forget`` deletes everything Pommel keeps about the server (:meth:`bot.store.Store.forget_guild`),
once confirmed with a button. When Pommel is removed from a server, its data is kept
:data:`~bot.store.KEPT_AFTER_LEAVING` (30 days, in case it is invited back), then deleted by a sweep
that runs every :data:`SWEEP_HOURS`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import discord
from discord import app_commands
from discord.ext import commands

from bot import server_settings
from bot.app import Pommel
from bot.button_kinds import ForgetButton
from bot.encounter.document import Encounter
from bot.events import FightForgotten, announce
from bot.interactions.actors import actor_of, encounter_place
from bot.interactions.answering import answer, answer_by_editing
from bot.option_parameters import SetsOptions, options_command
from bot.rules.errors import RulesError
from bot.store import KEPT_AFTER_LEAVING, log_entries
from bot.ui.encounter_views import defaults_changed_reply, defaults_embed, gm_role_reply
from bot.ui.server_views import KEPT, forget_confirmation, forgotten_reply

log = logging.getLogger(__name__)

SWEEP_HOURS = 6
"""How often the servers Pommel left are looked at: their data goes within hours of its 30 days."""
SWEEP = "departures' sweep"
"""The sweep's key in the bot's scheduler."""


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class Server(
    SetsOptions,
    commands.GroupCog,
    group_name="server",
    group_description="Manage Server: who may run fights here, and how new ones start",
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        self.every = SWEEP_HOURS * 3600.0
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.buttons.route(ForgetButton, self.forget_button)
        self.bot.scheduler.every(self.every, SWEEP, self.sweep, first=self.bot.wait_until_ready)

    async def cog_unload(self) -> None:
        self.bot.buttons.unroute(ForgetButton)
        await self.bot.scheduler.stop(SWEEP)

    @app_commands.command(
        name="gm_role", description="Only members with this role (or Manage Server) may run fights here"
    )
    @app_commands.describe(role="Members with it may start fights and be handed them")
    async def gm_role(self, interaction: discord.Interaction, role: discord.Role) -> None:
        await self._set_gm_role(interaction, server_settings.Role(role.id, role.name))

    @app_commands.command(name="clear_gm_role", description="Let anyone on this server run fights again")
    async def clear_gm_role(self, interaction: discord.Interaction) -> None:
        await self._set_gm_role(interaction, None)

    async def _set_gm_role(self, interaction: discord.Interaction, role: server_settings.Role | None) -> None:
        guild_id, channel_id = encounter_place(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        done = server_settings.set_gm_role(
            settings, actor_of(interaction), interaction.user.display_name, role
        )
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
        done = server_settings.set_defaults(settings, actor, interaction.user.display_name, rules, table)
        changes = done.result.changes
        if changes:
            events = log_entries(done, guild_id, channel_id, interaction.user.id)
            await self.bot.store.save_guild_settings(done.result.settings, events=events)
        await answer(interaction, defaults_changed_reply(changes), ephemeral=not changes)

    # ------------------------------------------------------------------------------ the server's data

    @app_commands.command(
        name="forget",
        description="Delete every fight, log, character and setting Pommel keeps here (asks first)",
    )
    async def forget(self, interaction: discord.Interaction) -> None:
        guild_id, _ = encounter_place(interaction)
        server_settings.require_may_forget(actor_of(interaction))
        content, view = forget_confirmation(guild_id)
        await answer(interaction, content, view=view, ephemeral=True)

    async def forget_button(self, interaction: discord.Interaction, button: ForgetButton) -> None:
        """The answer to the question: "Keep it" deletes nothing; "Delete" deletes the server's data, for
        a member who still has Manage Server."""
        guild_id, _ = encounter_place(interaction)
        if button.guild_id != guild_id:
            raise RulesError("This question was asked on another server: ask again with `/server forget`.")
        if button.action == "keep":
            await answer_by_editing(interaction, content=KEPT, view=None)
            return
        server_settings.require_may_forget(actor_of(interaction))
        running = await self._running_fights(guild_id)
        forgotten = await self.bot.store.forget_guild(guild_id)
        self.bot.catalogs.forget(guild_id)
        log.info("forgot guild %s at the request of user %s: %s", guild_id, interaction.user.id, forgotten)
        await answer_by_editing(interaction, content=forgotten_reply(forgotten), view=None)
        for fight in running:  # their trackers and requests no longer offer what nothing would accept
            announce(FightForgotten(fight))

    async def _running_fights(self, guild_id: int) -> list[Encounter]:
        """The guild's running fights (a channel another guild's is skipped without reading it)."""
        fights: list[Encounter] = []
        for channel_id in await self.bot.store.fight_channels():
            channel = self.bot.get_channel(channel_id)
            if channel is not None and getattr(getattr(channel, "guild", None), "id", guild_id) != guild_id:
                continue
            fight = await self.bot.store.load_encounter(channel_id)
            if fight is not None and fight.guild_id == guild_id:
                fights.append(fight)
        return fights

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server (kicked, or the server deleted): its data goes in 30 days."""
        await self.bot.store.guild_left(guild.id, datetime.now(UTC))
        log.info(
            "left guild %s: its data is deleted after %s unless Pommel comes back",
            guild.id,
            KEPT_AFTER_LEAVING,
        )

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.store.guild_returned(guild.id)

    async def sweep(self, now: datetime | None = None) -> list[int]:
        """Delete the data of the servers this process served that Pommel left more than 30 days before
        ``now``; a server it is in again (invited back while it was offline) keeps its data. Returns the
        servers forgotten."""
        cutoff = (now or datetime.now(UTC)) - KEPT_AFTER_LEAVING
        forgotten: list[int] = []
        for guild_id in await self.bot.store.guilds_left_before(cutoff):
            if not self.bot.owns(guild_id):
                continue  # another process's shard: it sweeps its own
            if self.bot.get_guild(guild_id) is not None:
                await self.bot.store.guild_returned(guild_id)
                continue
            deleted = await self.bot.store.forget_guild(guild_id)
            self.bot.catalogs.forget(guild_id)
            log.info("forgot guild %s, left more than %s ago: %s", guild_id, KEPT_AFTER_LEAVING, deleted)
            forgotten.append(guild_id)
        return forgotten


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Server(bot))
