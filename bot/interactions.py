"""What an interaction brings to a command or a button: who is behind it (for
:mod:`bot.encounter.permissions`), which channel's encounter it is about, its combatant options
parsed once at the edge (with their autocomplete), and the base every Pommel button shares.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, Self, cast

import discord
from discord import app_commands
from discord.utils import MISSING

from .catalog import Catalog
from .encounter.document import Encounter
from .encounter.permissions import Actor
from .events import Bus
from .rules.errors import RulesError
from .store import Store
from .trackers import TrackerBoard
from .ui import equipment_choices
from .ui.character_sheet import character_choices, player_combatant_choices
from .ui.combatant_choices import (
    claimant_choices,
    combatant_choices,
    morale_subject_choices,
    npc_choices,
)
from .ui.errors import DISCORD_FAILURES, PUBLIC_THINKING, answer_failure, answer_turn


class PommelClient(Protocol):
    """What the edges need of the bot (:class:`bot.app.Pommel`): its store, its catalog and its button
    routes."""

    @property
    def store(self) -> Store: ...

    @property
    def catalog(self) -> Catalog: ...

    @property
    def buttons(self) -> ButtonRoutes: ...

    @property
    def in_flight(self) -> InFlight: ...

    @property
    def trackers(self) -> TrackerBoard: ...

    @property
    def events(self) -> Bus: ...


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


# ----------------------------------------------------------------------------- options


class CombatantOption(app_commands.Transformer):
    """A combatant of the channel's encounter, by id (picked from the list) or by name (typed).

    The value stays the text given: the encounter is looked up inside the command's transaction
    (:meth:`~bot.encounter.document.Encounter.combatant`), which says who is there when it is wrong.
    """

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return combatant_choices(encounter, current)

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return NAME_OPTION_LIMIT

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> str:
        return str(value)

    async def autocomplete(  # type: ignore[override]  # a string option's choices are strings
        self, interaction: discord.Interaction, value: str, /
    ) -> list[app_commands.Choice[str]]:
        return self.suggest(await channel_encounter(interaction), value)


NAME_OPTION_LIMIT = 100
"""A name, id or group picked from autocomplete; Discord refuses anything longer before we see it."""
CatalogKey = app_commands.Range[str, 1, NAME_OPTION_LIMIT]
"""A weapon, armor, shield or monster template of the catalog, by key or name (from its autocomplete)."""


class NpcOption(CombatantOption):
    """An NPC, or an NPC group of two or more (the whole group)."""

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return npc_choices(encounter, current)


class ClaimantOption(CombatantOption):
    """A card that may claim the next turn (a held card or a Joker, R3, R4)."""

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return claimant_choices(encounter, current)


class MoraleSubjectOption(CombatantOption):
    """An NPC group (the whole group checks, those with a proposed check first) or one combatant."""

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return morale_subject_choices(encounter, current)


CombatantName = app_commands.Transform[str, CombatantOption]
NpcName = app_commands.Transform[str, NpcOption]
ClaimantName = app_commands.Transform[str, ClaimantOption]
MoraleSubjectName = app_commands.Transform[str, MoraleSubjectOption]


# ----------------------------------------------------------------------------- answering in time

DEFER_AFTER = 2.0
"""Seconds a command may take before it is deferred: Discord forgets an interaction whose first answer
has not come within 3 s (the user sees "This interaction failed", though the change may be saved)."""
LATE_PUBLIC_NOTE = "✅ Done; it took a moment, so the answer is the message below."
"""What a deferred command's private "thinking" message becomes when its answer is for everyone."""

BUSY = 100
"""Interactions in progress at once from which one more is deferred as soon as it arrives, not after
:data:`DEFER_AFTER`: with so many ahead of it (a burst over hundreds of channels), its answer would
likely come after Discord's 3 s, and a timer set for 2 s fires late on an event loop that busy."""

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Load:
    in_progress: int = 0
    """Interactions whose clock is running: arrived, not yet answered (nor failed and answered). What a
    command does after its answer (bookkeeping, its tracker) does not count."""


_load = _Load()


@dataclass(slots=True)
class _Answering:
    """One interaction's answer: the lock its answer, the deferral and a failure's reply take turns on
    (:func:`bot.ui.errors.answer_turn`), and whether it was deferred (privately, for a command: its
    first follow-up then replaces the "thinking" message)."""

    lock: asyncio.Lock
    deferred: bool = False
    deferred_publicly: bool = False
    """Deferred by the command itself (:func:`defer_for`) with a "thinking" message everyone sees: its
    public answer replaces it in place."""
    clock: asyncio.TimerHandle | None = None
    """When the deferral is due: a timer, not a task, since nearly every answer comes first."""
    deferral: asyncio.Task[None] | None = None
    counted: bool = False
    """Whether it counts in :data:`_load` (from :func:`watch_the_clock` to :func:`stop_the_clock`)."""


def _answering(interaction: discord.Interaction[Any]) -> _Answering:
    state = interaction.extras.get("pommel_answer")
    if not isinstance(state, _Answering):
        state = interaction.extras["pommel_answer"] = _Answering(answer_turn(interaction))
    return state


async def watch_the_clock(interaction: discord.Interaction[Any]) -> None:
    """Defer ``interaction`` if it has not been answered :data:`DEFER_AFTER` seconds from now: a command
    that waits (behind other commands on its channel, for the database) still answers, late. With
    :data:`BUSY` others in progress already, it is deferred now, before its work begins."""
    state = _answering(interaction)
    if state.counted or state.clock is not None:
        return
    _load.in_progress += 1
    state.counted = True
    if _load.in_progress > BUSY:
        await _defer(interaction, state)
        return
    state.clock = asyncio.get_running_loop().call_later(DEFER_AFTER, _time_is_up, interaction, state)


def stop_the_clock(interaction: discord.Interaction[Any]) -> None:
    """The command or click is over (answered, or failed and answered): no deferral is due any more."""
    state = interaction.extras.get("pommel_answer")
    if isinstance(state, _Answering):
        if state.counted:
            _load.in_progress -= 1
            state.counted = False
        if state.clock is not None:
            state.clock.cancel()
        if state.deferral is not None and not state.deferral.done():
            state.deferral.cancel()


def _time_is_up(interaction: discord.Interaction[Any], state: _Answering) -> None:
    if not interaction.response.is_done():
        state.deferral = asyncio.create_task(_defer(interaction, state), name="pommel-answer-clock")


async def _defer(interaction: discord.Interaction[Any], state: _Answering) -> None:
    async with state.lock:
        if interaction.response.is_done():
            return
        try:
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()  # the click's message is edited when the answer comes
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
            state.deferred = True
        except DISCORD_FAILURES:
            log.warning("could not defer interaction %s", interaction.id, exc_info=True)


async def defer_for(interaction: discord.Interaction[Any], *, ephemeral: bool) -> None:
    """A command about to do something slow (drawing a chart) defers now, as the answer to come will be
    seen (privately or by everyone), rather than leaving it to :func:`watch_the_clock`'s 2 s: on a
    loaded machine the slow part plus the wait could pass Discord's 3 s, and a private "thinking"
    message cannot become a public answer with its attachment in place."""
    state = _answering(interaction)
    async with state.lock:
        if interaction.response.is_done():
            return
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        state.deferred = True
        state.deferred_publicly = not ephemeral
        if not ephemeral:
            interaction.extras[PUBLIC_THINKING] = True
        if state.clock is not None:
            state.clock.cancel()
            state.clock = None


async def answer(
    interaction: discord.Interaction[Any], content: Any = MISSING, *, ephemeral: bool = False, **message: Any
) -> int | None:
    """A command's answer: the interaction's response while it is in time, else (it was deferred by
    :func:`watch_the_clock`) a follow-up: a private answer replaces the "thinking" message, a public one
    is a message of its own (so its mentions ping) with the thinking message saying so. Returns the
    answer's message id when Discord gives it."""
    state = _answering(interaction)
    async with state.lock:
        if not interaction.response.is_done():
            sent = await interaction.response.send_message(content, ephemeral=ephemeral, **message)
            stop_the_clock(interaction)  # answered: what the command does after is not waited on
            return sent.message_id
    is_command = interaction.type is discord.InteractionType.application_command
    if state.deferred and is_command and not ephemeral and not state.deferred_publicly:
        await interaction.edit_original_response(content=LATE_PUBLIC_NOTE)
    followed = await interaction.followup.send(content, ephemeral=ephemeral, wait=True, **message)
    interaction.extras.pop(PUBLIC_THINKING, None)  # answered: the thinking message is the answer now
    stop_the_clock(interaction)
    return followed.id


async def answer_by_editing(interaction: discord.Interaction[Any], **message: Any) -> None:
    """A button's answer: its own message edited, in the response while in time, else after the
    deferral (:func:`watch_the_clock` defers a click as an update of its message)."""
    state = _answering(interaction)
    async with state.lock:
        if not interaction.response.is_done():
            await interaction.response.edit_message(**message)
            stop_the_clock(interaction)
            return
    await interaction.edit_original_response(**message)
    stop_the_clock(interaction)


DRAIN_SECONDS = 5.0
"""At shutdown, how long the commands and clicks in progress may take to finish (and answer) before the
bot disconnects: nearly all take well under a second; one waiting for the database gives up sooner."""


class ShuttingDown(RulesError, app_commands.CheckFailure):
    """A command or click that arrives once shutdown has begun: refused, changing nothing (a check
    failure, so that discord.py hands it to ``tree.on_error``)."""

    def __init__(self) -> None:
        super().__init__("Pommel is restarting, so nothing was done: try again in a minute.")


class InFlight:
    """The commands and clicks running, so that shutdown lets them finish first: a change they commit
    is then answered, not left unanswered by a connection to Discord closed under them. Once
    :meth:`drain` has begun, a new one is refused (:meth:`refuse_if_closing`)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closing = False

    def __len__(self) -> int:
        return len(self._tasks)

    def refuse_if_closing(self) -> None:
        if self.closing:
            raise ShuttingDown()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Around a command's or a click's whole work (its answer, and what follows it)."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Refuse new commands from now on, and wait up to ``timeout`` seconds for those running."""
        self.closing = True
        running = [task for task in self._tasks if task is not asyncio.current_task()]
        if not running:
            return
        log.info("waiting for %d commands in progress to finish", len(running))
        _, left = await asyncio.wait(running, timeout=timeout)
        if left:
            log.warning("%d commands were still running at shutdown; their answers may be lost", len(left))


async def fail(interaction: discord.Interaction[Any], error: Exception) -> None:
    """A command or click failed: its one answer says what went wrong (:func:`answer_failure`). A change
    it saved before the failure (Discord did not take its reply) is drawn all the same, after this
    answer: its unit of work (:meth:`bot.events.Bus.collecting`) hands what it announced on."""
    await answer_failure(interaction, error)


# ----------------------------------------------------------------------------- autocomplete callbacks

Choices = list[app_commands.Choice[str]]


def _catalog(interaction: discord.Interaction) -> Catalog:
    return cast("PommelClient", interaction.client).catalog


async def weapon_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.weapon_choices(_catalog(interaction), current)


async def armor_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.armor_choices(_catalog(interaction), current)


async def shield_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.shield_choices(_catalog(interaction), current)


async def shield_or_nothing_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.shield_or_nothing_choices(_catalog(interaction), current)


async def off_hand_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.off_hand_choices(_catalog(interaction), current)


async def monster_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.monster_choices(_catalog(interaction), current)


async def own_character_choices(interaction: discord.Interaction, current: str) -> Choices:
    """The user's characters in this server (another member's, when the command has a ``member``
    option and it is filled in)."""
    if interaction.guild_id is None:
        return []
    member = getattr(interaction.namespace, "member", None)
    user_id = member.id if member is not None else interaction.user.id
    store = cast("PommelClient", interaction.client).store
    return character_choices(await store.characters(interaction.guild_id, user_id), current)


async def own_combatant_choices(interaction: discord.Interaction, current: str) -> Choices:
    """The user's own characters in this channel's fight."""
    return player_combatant_choices(await channel_encounter(interaction), interaction.user.id, current)


# ----------------------------------------------------------------------------- buttons

ButtonHandler = Callable[[discord.Interaction, Any], Awaitable[None]]


class ButtonRoutes:
    """Which cog method answers which kind of button: a cog routes its button types when it loads
    (:meth:`route`), and :class:`PommelButton` dispatches a click by the button's type."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._handlers: dict[type[Any], ButtonHandler] = {}

    def route(self, kind: type[PommelButton], handler: ButtonHandler) -> None:
        self._handlers[kind] = handler
        self.client.add_dynamic_items(kind)  # type: ignore[arg-type]  # every PommelButton is a DynamicItem

    def unroute(self, kind: type[PommelButton]) -> None:
        self._handlers.pop(kind, None)
        self.client.remove_dynamic_items(kind)  # type: ignore[arg-type]

    def handler(self, kind: type[Any]) -> ButtonHandler:
        handler = self._handlers.get(kind)
        if handler is None:
            raise RulesError("Pommel is starting up; try again in a moment.")
        return handler


class PommelButton:
    """The base of every Pommel button, mixed in before ``discord.ui.DynamicItem``: the custom id says
    everything (so a button works after a restart), :meth:`from_custom_id` builds the button from its
    match, and a click goes to the handler routed for its type, its failures answered once, the way
    ``tree.on_error`` answers a command's (a button has no command tree)."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(discord.ui.Button(custom_id=match.group(0)))  # type: ignore[call-arg]  # DynamicItem
        self.match = match

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast("PommelClient", interaction.client)
        with client.in_flight.running():
            async with client.events.collecting():  # what the click changed is drawn after its answer
                try:
                    client.in_flight.refuse_if_closing()
                    await watch_the_clock(interaction)
                    await client.buttons.handler(type(self))(interaction, self)
                except Exception as error:
                    await fail(interaction, error)
                finally:
                    stop_the_clock(interaction)
