"""The Bot: validates the equipment data, opens and migrates the store, loads the cogs, syncs."""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket

from .catalog import Catalog, load_catalog
from .config import Settings
from .encounter.document import Encounter
from .events import Bus, FightChanged, FightEnded, FightForgotten, FightReopened, TrackerAsked
from .fight_messages import FightMessageBoard
from .heartbeat import Heartbeat
from .http_buckets import sweep_seldom
from .interactions.answering import finish_notes
from .interactions.failures import fail
from .interactions.in_flight import InFlight
from .interactions.routes import ButtonRoutes
from .option_checks import CheckedTree
from .permissions import invite_url
from .request_budget import (
    REQUESTS_AT_ONCE,
    REQUESTS_PER_SECOND,
    BudgetedConnector,
    PriorityBudget,
    in_background,
    processes_sharing,
)
from .rules.dice import DiceSource, RandomDice
from .scheduler import Scheduler
from .server_catalogs import ServerCatalogs
from .store import Store, open_store
from .store.bookkeeping import NOTES_CHECKED_EVERY, NOTES_WAIT
from .trackers import TrackerBoard
from .ui.fight_log import fight_summary
from .ui.server_views import FORGOTTEN_FIGHT

log = logging.getLogger(__name__)


INITIAL_EXTENSIONS = (
    "cogs.attack",
    "cogs.character",
    "cogs.combatant",
    "cogs.encounter",
    "cogs.help",
    "cogs.homebrew",
    "cogs.init",
    "cogs.join",
    "cogs.maneuvers",
    "cogs.morale",
    "cogs.npc",
    "cogs.odds",
    "cogs.reminders",
    "cogs.roll",
    "cogs.server",
    "cogs.situation",
    "cogs.spirit",
    "cogs.stats",
)
"""The feature modules the bot loads at start-up, one a command (or a family of small ones): a module
in ``cogs/`` that is not named here is not loaded."""

NOTES_JOB = "fights' bookkeeping"
"""The scheduler's key of the job writing the bookkeeping no change carried (:mod:`bot.store.bookkeeping`)."""


_poll_event = DiscordWebSocket.poll_event


async def _poll_event_then_let_others_run(self: DiscordWebSocket) -> None:
    """discord.py's reading of one gateway event, then a turn of the event loop for the rest: with many
    events already received (a burst over thousands of channels), discord.py read and parsed them all
    before any command they started could go on, so that no answer left before the last was read."""
    await _poll_event(self)
    await asyncio.sleep(0)


DiscordWebSocket.poll_event = _poll_event_then_let_others_run  # type: ignore[method-assign]


_start_up_frozen = False


YOUNG_COLLECTED_AFTER = 10_000
"""The garbage collector's first threshold once the bot is ready (Python's default: 700). An action makes
thousands of short-lived objects (a fight's models, a message's parts); at 700, collections ran in the
middle of actions, found them still alive and moved them on to the older generations, whose collections
then walked them again. Measured over ``bench/cpu.py``'s 1,500 commands: 363 young, 33 middle and 3 full
collections took 0.36 s of CPU; at 10,000, 18 young and 1 middle took 0.14 s. What cycles there are wait
at most 10,000 allocations longer to be freed."""


def freeze_start_up() -> None:
    """Once a process, when the bot is first ready: what start-up made (modules, the catalog, the guilds'
    cache) lives as long as the process, so it is moved out of the garbage collector's sight
    (``gc.freeze``) and a full collection no longer walks it: measured, pauses of 50 to 70 ms every few
    hundred commands were a p99 four times the p50. A reconnect's new cache is collected as usual. The
    young generation is collected less often from then on (:data:`YOUNG_COLLECTED_AFTER`)."""
    global _start_up_frozen
    if _start_up_frozen:
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTED_AFTER, *gc.get_threshold()[1:])
    _start_up_frozen = True


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard whose gateway connection gets a guild's events (Discord's formula); direct messages go
    to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


class Pommel(commands.AutoShardedBot):
    """Slash commands only; every message defaults to pinging nobody (names typed by users are text).

    Sharded (``SHARD_COUNT``, ``SHARD_IDS``; one shard when not set): this process serves the guilds of
    its shards, claimed in the store at login (:meth:`~bot.store.Store.claim_shards`), and fires the
    timeouts and reminders of their fights only (:meth:`owns`). The process with shard 0 syncs the
    commands.

    ``dice`` is where every die and shuffle comes from: ``SystemRandom`` unless a test injects
    fixed faces. ``catalog`` is the validated ``bot/data/`` (read at start-up unless one is given: the
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
        self.shard_total, self.own_shards = settings.shards
        options.setdefault("shard_count", self.shard_total)
        options.setdefault("shard_ids", list(self.own_shards))
        super().__init__(
            command_prefix=commands.when_mentioned,
            # Only the guilds (channels and roles, for permissions): interactions come whatever the
            # intents, and Pommel reads no messages, so it asks Discord for no message events (each one
            # would be parsed into a discord.Message for nothing: two to three for every command).
            intents=discord.Intents(guilds=True),
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            tree_cls=CheckedTree,  # every slash command's options are checked before it runs
            # No message cache: Pommel edits its messages by id (partial messages) and reads nothing
            # back, and discord.py searches the cache from its end for every message event it gets.
            max_messages=None,
            **options,
        )
        self.settings = settings
        sharing = processes_sharing(self.shard_total, self.own_shards)
        self.requests: PriorityBudget | None = PriorityBudget(
            REQUESTS_PER_SECOND / sharing, max(1, REQUESTS_AT_ONCE // sharing)
        )
        """Every request under Discord's global limit takes from it as it leaves, a command's first
        (:mod:`bot.request_budget`, through the bot's connector, made at :meth:`login`); the processes
        sharing the token share the limit evenly. None: no limit (a benchmark against a Discord without
        limits, measuring the bot's own work)."""
        sweep_seldom(self.http)  # a burst over a thousand channels walked every bucket at each new one
        self.dice: DiceSource = dice if dice is not None else RandomDice.system()
        self.catalog: Catalog = catalog if catalog is not None else load_catalog()
        """The shipped tables; a server's own entries are laid over them in :attr:`catalogs`."""
        self._store: Store | None = None
        self._stopping: asyncio.Task[None] | None = None
        self.lease_lost = False
        """Whether the bot stopped because its shards' lease ended (the process then exits non-zero, so a
        supervisor restarts it and the shards are served again)."""
        self.command_ids: dict[str, int] = {}
        """Each top-level command's id, by name, from the sync (for clickable mentions in ``/help``)."""
        self.catalogs = ServerCatalogs(lambda: self.catalog, lambda: self.store)
        """Each server's catalog: the shipped tables with its homebrew over them."""
        self.trackers = TrackerBoard(self, lambda: self.store)
        self.fight_messages = FightMessageBoard(self, lambda: self.store, lambda: self.catalog)
        self.events = Bus()
        """What a change announces (:mod:`bot.events`), handled once its command has answered."""
        self.follow_fights()
        self.buttons = ButtonRoutes(self)
        self.scheduler = Scheduler("pommel")
        """Every timer: the defenses' timeouts, the sweeps, the heartbeat (cancelled at :meth:`close`)."""
        self.heartbeat = (
            Heartbeat(settings.heartbeat_path, self.connected, scheduler=self.scheduler)
            if settings.heartbeat_path is not None
            else None
        )
        self.in_flight = InFlight()
        self.tree.error(self.on_app_command_error)

    def follow_fights(self) -> None:
        """The one place where the trackers and the fights' messages follow what happened to a fight: at
        every change, each message of the fight gets the buttons the fight accepts now, then its tracker
        is drawn; at its end, both lose their buttons."""

        async def drawn(encounter: Encounter, *, repost: bool) -> None:
            with in_background():  # after the answer: a command's own requests go first
                as_drawn = await self.fight_messages.redraw(encounter)  # knowing its messages' ids
                await self.trackers.publish(as_drawn or encounter, repost=repost)

        async def closed(encounter: Encounter, summary: str) -> None:
            with in_background():
                await self.fight_messages.close(encounter)
                await self.trackers.close(encounter, summary)

        async def changed(event: FightChanged) -> None:
            await drawn(event.encounter, repost=event.repost)

        async def asked(event: TrackerAsked) -> None:
            await drawn(event.encounter, repost=True)

        async def reopened(event: FightReopened) -> None:
            self.trackers.reopened(event.encounter)
            self.fight_messages.reopened(event.encounter)
            await drawn(event.encounter, repost=True)

        async def ended(event: FightEnded) -> None:
            await closed(event.encounter, fight_summary(event.ended))

        async def forgotten(event: FightForgotten) -> None:
            await closed(event.encounter, FORGOTTEN_FIGHT)

        self.events.subscribe(FightChanged, changed)
        self.events.subscribe(FightForgotten, forgotten)
        self.events.subscribe(TrackerAsked, asked)
        self.events.subscribe(FightReopened, reopened)
        self.events.subscribe(FightEnded, ended)

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store opens at login, before any command can run")
        return self._store

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process serves the guild (its shard is one of this process's)."""
        return shard_of(guild_id, self.shard_total) in self.own_shards

    async def login(self, token: str) -> None:
        """Open and migrate the store and claim the shards first: a bad DATABASE_PATH, or shards another
        process serves, fail before Discord is contacted."""
        if self._store is None:
            store = await open_store(self.settings.database)
            try:
                await store.claim_shards(self.shard_total, self.own_shards, on_lost=self._lease_lost)
            except BaseException:
                await store.close()
                raise
            self._store = store
            log.info("store open: %s; shards %s of %d", store, list(self.own_shards), self.shard_total)
        if self.http.connector is discord.utils.MISSING:  # as discord.py's own, with the budget's turn
            self.http.connector = BudgetedConnector(self, limit=0)
        await super().login(token)

    def _lease_lost(self) -> None:
        """Another process may claim the shards now: stop serving them at once."""
        log.error("the database connection holding this process's shards ended: stopping")
        self.lease_lost = True
        self._stopping = asyncio.get_running_loop().create_task(self.close(), name="pommel-lease-lost")

    def connected(self) -> bool:
        """Ready, and every shard of this process connected to Discord's gateway."""
        return (
            self.is_ready()
            and not self.is_closed()
            and all(not shard.is_closed() for shard in self.shards.values())
        )

    async def setup_hook(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.start()
        self.scheduler.every(NOTES_CHECKED_EVERY, NOTES_JOB, self._write_notes, first=self.wait_until_ready)
        for extension in INITIAL_EXTENSIONS:
            await self.load_extension(extension)
        if 0 not in self.own_shards:
            log.info("the commands are synced by the process serving shard 0")
            return
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        self.command_ids = {command.name: command.id for command in synced}
        log.info("synced %d slash commands", len(synced))

    async def _write_notes(self) -> None:
        """The fights' bookkeeping no change carried within :data:`~bot.store.bookkeeping.NOTES_WAIT`
        seconds, written alone: a crash loses at most :data:`~bot.store.bookkeeping.NOTES_KEPT_AT_MOST`
        seconds of it (:mod:`bot.store.bookkeeping`)."""
        if self._store is not None:
            await self._store.write_notes(older_than=NOTES_WAIT)

    async def on_message(self, message: discord.Message) -> None:
        """Pommel answers slash commands only: a message, even one that mentions it, is not a command."""

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guilds", self.user, len(self.guilds))
        if self.application_id is not None:
            log.info("invite Pommel to a server with %s", invite_url(self.application_id))
        freeze_start_up()

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await fail(interaction, error)

    async def close(self) -> None:
        """Let the commands in progress finish and answer (:meth:`InFlight.drain`, refusing new ones) and
        their notes be written (:func:`~bot.interactions.answering.finish_notes`), cancel every timer,
        draw the trackers still due, disconnect, then write the fights' bookkeeping still noted
        (:meth:`Store.write_notes`) and close the store. Safe to call again, or before the store ever
        opened.

        The store closes even if disconnecting fails: its thread would otherwise keep the process alive.
        """
        if not hasattr(self, "_AutoShardedClient__queue"):
            # discord.py makes the shards' event queue at login, and its close() puts into it: a close
            # before login (the store or the shards refused) would fail there (discord.py 2.7.1).
            self._AutoShardedClient__queue: asyncio.PriorityQueue[Any] = asyncio.PriorityQueue()
        try:
            if self.heartbeat is not None:
                await self.heartbeat.stop()  # a stopping bot is no longer alive
            await self.in_flight.drain()
            await finish_notes()
            await self.scheduler.close()
            await self.trackers.finish()
            await super().close()
        finally:
            store, self._store = self._store, None
            if store is not None:
                try:
                    await store.write_notes()
                finally:
                    await store.close()
