"""``/help``: what Pommel does and how a first fight goes, privately, with every command a click away.

The commands' ids (for the clickable mentions) are those the sync returned at start-up; a process that
does not sync (it serves shards other than 0) asks Discord for them once, at the first ``/help``.
"""

from __future__ import annotations

import importlib.metadata
import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.interactions.answering import answer, defer_for
from bot.ui.help_views import help_embed

log = logging.getLogger(__name__)


def pommel_version() -> str:
    try:
        return importlib.metadata.version("pommel")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown: not installed as a package)"


class Help(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    @app_commands.command(
        name="help", description="What Pommel does, a first fight in six steps, every command"
    )
    async def help(self, interaction: discord.Interaction) -> None:
        if not self.bot.command_ids:
            await defer_for(interaction, ephemeral=True)  # the ids are asked of Discord first
        await answer(
            interaction, embed=help_embed(await self.command_ids(), pommel_version()), ephemeral=True
        )

    async def command_ids(self) -> dict[str, int]:
        if not self.bot.command_ids:
            guild_id = self.bot.settings.dev_guild_id
            try:
                fetched = await self.bot.tree.fetch_commands(
                    guild=discord.Object(guild_id) if guild_id is not None else None
                )
            except discord.HTTPException:
                log.warning("could not fetch the commands' ids for /help", exc_info=True)
                return {}
            self.bot.command_ids = {command.name: command.id for command in fetched}
        return self.bot.command_ids


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Help(bot))
