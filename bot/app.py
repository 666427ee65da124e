"""The Bot: validates the equipment data, opens and migrates the store, loads the cogs, syncs."""

from __future__ import annotations

import logging
import pkgutil
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import cogs

from .catalog import Catalog, load_catalog
from .config import Settings
from .interactions import ButtonRoutes
from .option_checks import CheckedTree
from .rules.dice import DiceSource, RandomDice
from .store import Store, open_store
from .trackers import TrackerBoard
from .ui.errors import answer_failure

log = logging.getLogger(__name__)


def cog_modules() -> list[str]:
    """Every feature module under ``cogs/``."""
    return [f"cogs.{module.name}" for module in pkgutil.iter_modules(cogs.__path__)]


class Pommel(commands.Bot):
    """Slash commands only; every message defaults to pinging nobody (names typed by users are text).

    ``dice`` is where every die and shuffle comes from: ``SystemRandom`` unless a test injects
    fixed faces. ``catalog`` is the validated ``data/`` (read at start-up unless one is given: the
    catalog is read-only, so tests share one instead of parsing the YAML at every bot start).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        dice: DiceSource | None = None,
        catalog: Catalog | None = None,
        **options: Any,
    ) -> None:
        # Pommel never joins voice, so discord.py's start-up warnings about voice libraries are noise.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            tree_cls=CheckedTree,  # every slash command's options are checked before it runs
            **options,
        )
        self.settings = settings
        self.dice: DiceSource = dice if dice is not None else RandomDice.system()
        self.catalog: Catalog = catalog if catalog is not None else load_catalog()
        self._store: Store | None = None
        self.trackers = TrackerBoard(self, lambda: self.store)
        self.buttons = ButtonRoutes(self)
        self.tree.error(self.on_app_command_error)

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store opens at login, before any command can run")
        return self._store

    async def login(self, token: str) -> None:
        """Open and migrate the store first: a bad DATABASE_PATH fails before Discord is contacted."""
        if self._store is None:
            self._store = await open_store(self.settings.database_path)
            log.info("store open at %s", self.settings.database_path)
        await super().login(token)

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

    async def on_message(self, message: discord.Message) -> None:
        """Pommel answers slash commands only: a message, even one that mentions it, is not a command."""

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guilds", self.user, len(self.guilds))

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await answer_failure(interaction, error)

    async def close(self) -> None:
        """Disconnect, then close the store. Safe to call again, or before the store ever opened.

        The store closes even if disconnecting fails: its thread would otherwise keep the process alive.
        """
        try:
            await super().close()
        finally:
            store, self._store = self._store, None
            if store is not None:
                await store.close()
