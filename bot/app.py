"""The Bot: loads the equipment catalog and the cogs, then syncs the slash commands."""

from __future__ import annotations

import logging
import pkgutil

import discord
from discord.ext import commands

import cogs

from .catalog import Catalog, load_catalog
from .config import Settings

log = logging.getLogger(__name__)


def cog_modules() -> list[str]:
    """Every feature module under ``cogs/``."""
    return [f"cogs.{module.name}" for module in pkgutil.iter_modules(cogs.__path__)]


class Pommel(commands.Bot):
    def __init__(self, settings: Settings) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.settings = settings
        self.catalog: Catalog = load_catalog()

    async def setup_hook(self) -> None:
        for module in cog_modules():
            await self.load_extension(module)
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d slash commands", len(synced))

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guilds", self.user, len(self.guilds))
