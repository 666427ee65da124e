"""``/homebrew import | export | list | remove | npc``: a server's own weapons, armor, shields and monster
templates, laid over the shipped tables for that server only (docs/HOMEBREW.md).

Changing them is for Manage Server or the server's GM role; anyone may list and export them. A file is
checked whole before anything is written, and applied whole (:mod:`bot.homebrew`); a fight running
keeps the entries it started with (``Encounter.homebrew``).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import server_settings
from bot.app import Pommel
from bot.catalog import CatalogError
from bot.character_form_flow import form_step
from bot.homebrew import (
    HomebrewRefused,
    plan_import,
    read_file,
    read_quick_npc,
    remove_entry,
    save_quick_npc,
    too_large,
)
from bot.interactions.actors import actor_of
from bot.interactions.answering import answer
from bot.interactions.options import CatalogKey, homebrew_choices
from bot.option_checks import ANSWERS_WITH_A_MODAL
from bot.quick_npc_form import QuickNpcModal
from bot.rules.errors import RulesError
from bot.ui.homebrew_views import (
    NO_HOMEBREW_TO_EXPORT,
    entries_text,
    export_file,
    exported_reply,
    imported_reply,
    npc_saved_reply,
    refused_reply,
    removed_reply,
)


def _guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise RulesError("Homebrew belongs to a server: use /homebrew in one.")
    return interaction.guild_id


@app_commands.guild_only()
class Homebrew(
    commands.GroupCog,
    group_name="homebrew",
    group_description="This server's own weapons, armor, shields and monsters",
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def _require_may_brew(self, interaction: discord.Interaction) -> int:
        guild_id = _guild(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        server_settings.require_may_brew(settings, actor_of(interaction))
        return guild_id

    @app_commands.command(
        name="import",
        description="Manage Server or GM role: add this server's entries from a YAML or JSON file, "
        "all or nothing",
    )
    @app_commands.describe(file="A .yaml or .json file in the schema of docs/HOMEBREW.md (at most 256 KiB)")
    async def import_(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        guild_id = await self._require_may_brew(interaction)
        refused = too_large(file.size)  # before a byte is downloaded
        if refused is not None:
            raise HomebrewRefused(refused)
        data = await file.read()
        layer, problems = read_file(data, file.filename)
        try:
            done = await self.bot.catalogs.change(
                guild_id, lambda server: plan_import(self.bot.catalog, server, layer, problems, file.filename)
            )
        except CatalogError as error:
            raise HomebrewRefused(refused_reply(error.problems, file.filename)) from None
        await answer(interaction, imported_reply(done, file.filename))

    @app_commands.command(name="export", description="This server's entries as a file /homebrew import reads")
    async def export(self, interaction: discord.Interaction) -> None:
        guild_id = _guild(interaction)
        server = await self.bot.store.homebrew(guild_id)
        if not len(server):
            await answer(interaction, NO_HOMEBREW_TO_EXPORT, ephemeral=True)
            return
        await answer(interaction, exported_reply(server), file=export_file(server, guild_id), ephemeral=True)

    @app_commands.command(name="list", description="This server's own weapons, armor, shields and monsters")
    async def list_(self, interaction: discord.Interaction) -> None:
        server = await self.bot.store.homebrew(_guild(interaction))
        await answer(interaction, entries_text(server, self.bot.catalog), ephemeral=True)

    @app_commands.command(
        name="remove",
        description="Manage Server or GM role: remove one of this server's homebrew entries, by its key",
    )
    @app_commands.describe(key="The entry's key (as /homebrew list shows it)")
    @app_commands.autocomplete(key=homebrew_choices)
    async def remove(self, interaction: discord.Interaction, key: CatalogKey) -> None:
        guild_id = await self._require_may_brew(interaction)
        removed = await self.bot.catalogs.change(
            guild_id, lambda server: remove_entry(self.bot.catalog, server, key.strip())
        )
        await answer(interaction, removed_reply(removed))

    @app_commands.command(
        name="npc",
        description="Manage Server or GM role: save a monster template from a form (name, prowess, "
        "DEX, HP, gear)",
        extras={ANSWERS_WITH_A_MODAL: True},
    )
    async def npc(self, interaction: discord.Interaction) -> None:
        await self._require_may_brew(interaction)
        await interaction.response.send_modal(QuickNpcModal(interaction.user.id, self._npc_given))

    async def _npc_given(self, interaction: discord.Interaction, values: dict[str, str]) -> None:
        """The form is submitted: answered as a button's click is, a refusal privately."""
        await form_step(interaction, lambda: self._save_npc(interaction, values))

    async def _save_npc(self, interaction: discord.Interaction, values: dict[str, str]) -> None:
        guild_id = await self._require_may_brew(interaction)
        catalog = await self.bot.catalogs.of(guild_id)
        template = read_quick_npc(catalog, values)
        done = await self.bot.catalogs.change(
            guild_id, lambda server: save_quick_npc(self.bot.catalog, server, template)
        )
        await answer(interaction, npc_saved_reply(done))


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Homebrew(bot))
