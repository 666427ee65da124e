"""Keeps every message that shows a step of a fight true for its whole life.

The fight knows its messages (:attr:`~bot.encounter.document.Encounter.messages`: requests, results,
the morale proposals) and the buttons each carries. After any change (a command, a click, a timeout,
an undo or a redo, the next deal, the end) :meth:`FightMessageBoard.redraw` compares, for each, the
buttons it carries with those the fight accepts now (:func:`bot.ui.message_buttons.message_buttons`)
and edits the ones that differ: a button never stays live after its moment, and a button the fight
accepts is never missing. A request for a defense that is missing from the channel (its reply was
never delivered, or a moderator deleted it) is posted again, pinging whoever must answer.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import TypeVar

import discord
from discord.http import handle_message_parameters

from .catalog import Catalog
from .encounter import attacks, messages
from .encounter.document import Encounter
from .encounter.done import Done
from .encounter.kept_entries import fight_catalog
from .encounter.permissions import player_of
from .encounter.records import Exchange, FightMessage
from .events import redrawn_after
from .recent import Recent
from .rules.errors import RulesError
from .store import Store
from .ui.attack_views.lines import clip
from .ui.attack_views.request import defense_buttons, request_content
from .ui.buttons import view_of
from .ui.errors import DISCORD_FAILURES
from .ui.message_buttons import custom_ids, message_buttons

log = logging.getLogger(__name__)

Result = TypeVar("Result")

REMEMBERED_SECONDS = 900.0
"""How long the board remembers the newest state it drew of a channel's fight, and the fights it closed:
longer than any command stays in flight (a command gives up within Discord's 15 minutes)."""

MISSING_REQUEST = "📨 This attack waits for its defense; its request was not on the channel any more:"
"""The first line of a request posted again (its reply never came through, or it was deleted)."""


def _unlabelled(exchange_id: int) -> int:
    """The passive defense where only the buttons' custom ids are wanted: it shows in a label alone
    (:func:`~bot.ui.attack_views.request.defense_buttons`), and reckoning it is an exchange's whole
    waiting report, so a message is compared by its ids without it, and drawn with it."""
    return 0


class FightMessageBoard:
    """Edits the messages of a fight so their buttons are those the fight accepts now; one channel at a
    time (a lock each), from the fight as stored (never an older state over a newer one)."""

    def __init__(self, client: discord.Client, store: Callable[[], Store], catalog: Callable[[], Catalog]):
        self.client = client
        self.store = store
        self.catalog = catalog
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._shown: dict[int, dict[int, list[str]]] = {}
        """Messages a command has just drawn itself (a click's edit), by channel: id -> their buttons,
        so that they are not edited a second time to the same buttons."""
        self._newest: Recent[int, tuple[str, int]] = Recent(REMEMBERED_SECONDS)
        """Channel -> the fight (its tag) and the version of the newest state of it this board drew or
        saved: a state handed over at least as new is drawn as it is, an older one read anew."""
        self._ended: Recent[str, bool] = Recent(REMEMBERED_SECONDS)
        """The fights (by tag) whose messages were closed: a late redraw never gives them buttons again."""
        self._unsaved: dict[int, tuple[str, list[FightMessage]]] = {}
        """Messages a command sent that the fight is to know, by channel (with the fight's tag): the
        channel's redraw, due once the command's unit of work is over, notes them with the buttons it
        draws (:meth:`remember_after`)."""

    def _lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    @property
    def _bot_id(self) -> int:
        return self.client.user.id if self.client.user else 0

    def shown(self, channel_id: int, message_id: int, view: discord.ui.View | None) -> None:
        """A command drew ``view`` on a message itself (a click's answer edits its message): the next
        :meth:`redraw` of the channel knows it."""
        rows = [[item] for item in view.children] if view is not None else []
        self._shown.setdefault(channel_id, {})[message_id] = custom_ids(rows)

    def drawing(
        self, message_id: int | None, operation: Callable[[Encounter], Done[Result]]
    ) -> Callable[[Encounter], Done[Result]]:
        """``operation`` (a click's), then the buttons the fight accepts on message ``message_id`` noted as
        drawn there, in the same change: the click's answer draws them on its own message, so the redraw
        after it has nothing to write for it (:meth:`shown` still tells it what the answer drew)."""
        if message_id is None:
            return operation

        def drawn(fight: Encounter) -> Done[Result]:
            done = operation(fight)
            if not done.end:
                for message in fight.messages:
                    if message.id == message_id:
                        wanted = custom_ids(message_buttons(fight, message, _unlabelled))
                        messages.note_drawn(fight, {message_id: wanted})
                        break
            return done

        return drawn

    async def remember(
        self, encounter: Encounter, message: FightMessage, view: discord.ui.View | None
    ) -> Encounter:
        """The fight now knows ``message``, which a command sent with ``view`` (a transaction of its own:
        a message's id is known only once it is sent). Returns the fight as saved (as given, when it
        ended meanwhile)."""
        rows = [[item] for item in view.children] if view is not None else []
        message.drawn = custom_ids(rows)
        try:
            saved = await self._change(encounter.channel_id, lambda fight: messages.remember(fight, message))
        except RulesError:
            return encounter  # the fight ended meanwhile
        return saved

    async def remember_after(
        self, encounter: Encounter, message: FightMessage, view: discord.ui.View | None
    ) -> Encounter:
        """:meth:`remember`, left to the redraw the running unit of work has coming for this fight (a
        change of it that is news), which notes it with whatever else it draws, for the fight's next change
        to write (:mod:`bot.store.bookkeeping`); at once (:meth:`remember`) when none is coming. Returns
        the fight as saved so far."""
        if not redrawn_after(encounter):
            return await self.remember(encounter, message, view)
        rows = [[item] for item in view.children] if view is not None else []
        message.drawn = custom_ids(rows)
        tag, unsaved = self._unsaved.get(encounter.channel_id, (encounter.tag, []))
        if tag != encounter.tag:
            unsaved = []  # of a fight that ended: not this one's
        unsaved = [m for m in unsaved if m.id != message.id]
        self._unsaved[encounter.channel_id] = (encounter.tag, [*unsaved, message])
        return encounter

    async def redraw(self, encounter: Encounter) -> Encounter | None:
        """Bring every message of the channel's fight up to date (``encounter``: a state of it, drawn as
        it is when no newer state of it was drawn or saved here; else the fight is read again, so a late
        call never draws an older state), and note the messages left to it (:meth:`remember_after`) and
        the buttons drawn as the fight's bookkeeping, which its next change writes (no write of its own:
        :mod:`bot.store.bookkeeping`). Returns the fight as drawn, knowing what is noted of its messages
        (for its tracker to link them), if it drew."""
        channel_id = encounter.channel_id
        if not encounter.messages and channel_id not in self._shown and channel_id not in self._unsaved:
            return None  # nothing to redraw (a later state that has messages redraws them)
        bookkeeping = self.store().bookkeeping
        async with self._lock(channel_id):
            newest = self._newest.get(channel_id)
            fight: Encounter | None = encounter
            if newest is not None and newest[0] == encounter.tag and newest[1] > encounter.version:
                fight = await self.store().load_encounter(channel_id)
            shown = self._shown.pop(channel_id, {})
            tag, unsaved = self._unsaved.pop(channel_id, (encounter.tag, []))
            if fight is None or fight.tag != encounter.tag or self._ended.get(fight.tag):
                return None
            if tag != fight.tag:
                unsaved = []  # of a fight that ended: not this one's
            self._newest.set(channel_id, (fight.tag, fight.version))
            bookkeeping.note(channel_id, fight.tag, unsaved)
            fight = bookkeeping.applied(fight)  # drawn as it will be saved
            drawn: dict[int, list[str]] = {}
            gone: list[int] = []
            try:
                for message in fight.messages:
                    wanted = custom_ids(message_buttons(fight, message, _unlabelled))
                    carries = shown.get(message.id, message.drawn)
                    if wanted == carries:
                        if wanted != message.drawn:
                            drawn[message.id] = wanted
                        continue
                    rows = message_buttons(fight, message, self._passive(fight))
                    try:
                        await self._edit_buttons(channel_id, message.id, view_of(rows))
                    except discord.NotFound:
                        gone.append(message.id)
                        continue
                    except DISCORD_FAILURES:
                        log.warning("could not redraw message %s in channel %s", message.id, channel_id)
                        continue
                    drawn[message.id] = wanted
            finally:
                bookkeeping.note(channel_id, fight.tag, drawn=drawn)
        for message_id in gone:
            await self.message_gone(channel_id, message_id)
        return fight

    async def _edit_buttons(self, channel_id: int, message_id: int, view: discord.ui.View | None) -> None:
        """Give a message the buttons of ``view`` (none: None), without reading back the message Discord
        answers with (:meth:`discord.PartialMessage.edit` parses it into a :class:`discord.Message` the
        board never looks at). Pommel's views are stopped (:func:`bot.ui.buttons.button_view`): discord.py
        keeps none to forget."""
        with handle_message_parameters(view=view) as params:
            await self.client.http.edit_message(channel_id, message_id, params=params)

    async def close(self, encounter: Encounter) -> None:
        """The fight ended: none of its messages keeps a button (a reopen draws them again)."""
        async with self._lock(encounter.channel_id):
            self._ended.set(encounter.tag, True)
            encounter = self.store().bookkeeping.applied(encounter)  # what was drawn since its last write
            self.store().bookkeeping.drop(encounter.channel_id, encounter.tag)
            for message in encounter.messages:
                if not message.drawn:
                    continue
                try:
                    await self._edit_buttons(encounter.channel_id, message.id, None)
                except DISCORD_FAILURES:
                    log.warning("could not close message %s in channel %s", message.id, encounter.channel_id)

    def reopened(self, encounter: Encounter) -> None:
        """An ended fight was brought back: its messages carry no button since the end (:meth:`close`),
        whatever the fight kept of them (the store brings it back exactly as it ended), so the next
        :meth:`redraw` gives each the buttons the fight accepts again."""
        self._ended.pop(encounter.tag)
        self._shown.setdefault(encounter.channel_id, {}).update({m.id: [] for m in encounter.messages})

    async def check_requests(self, encounter: Encounter) -> Encounter:
        """Every defense the fight waits for has its request on the channel: one that is missing (never
        delivered, or deleted by a moderator) is posted again. Returns the fight as it now stands."""
        channel = self.client.get_partial_messageable(encounter.channel_id)
        for exchange in encounter.exchanges:
            if exchange.pending and exchange.message_id is not None:
                try:
                    await channel.fetch_message(exchange.message_id)
                except discord.NotFound:
                    encounter = (
                        await self.message_gone(encounter.channel_id, exchange.message_id) or encounter
                    )
                except DISCORD_FAILURES:
                    log.warning("could not check the request of exchange %s", exchange.id, exc_info=True)
        return await self.post_missing_requests(encounter)

    async def message_gone(self, channel_id: int, message_id: int) -> Encounter | None:
        """A message was deleted: the fight forgets it, and a defense it asked for is asked again.
        Returns the fight as saved (None: no fight knew it)."""
        fight = await self.store().load_encounter(channel_id)
        if fight is None or not any(m.id == message_id for m in fight.messages):
            return None
        try:
            fight = await self._change(channel_id, lambda current: messages.forget(current, message_id))
        except RulesError:
            return None
        return await self.post_missing_requests(fight)

    async def post_missing_requests(self, encounter: Encounter) -> Encounter:
        """Post again every request for a defense that is not on the channel (no message carries it),
        pinging whoever must answer; the fight knows the new messages. Returns the fight as saved."""
        for exchange in encounter.exchanges:
            if exchange.pending and exchange.message_id is None:
                encounter = await self._post_request(encounter, exchange)
        return encounter

    async def _post_request(self, encounter: Encounter, exchange: Exchange) -> Encounter:
        defender = encounter.combatant(exchange.defender)
        asked = encounter.gm_id if exchange.gm_pinged else player_of(encounter, defender)
        passive = self._passive(encounter)(exchange.id)
        weapon = fight_catalog(self.catalog(), encounter).weapon(exchange.weapon).name
        content = clip(f"{MISSING_REQUEST}\n{request_content(encounter, exchange, weapon, passive)}")
        if exchange.gm_pinged:
            content = clip(f"<@{encounter.gm_id}>: its time ran out, so you decide.\n{content}")
        message = FightMessage(
            id=0, exchange=exchange.id, attacker=exchange.attacker, defender=exchange.defender
        )
        view = view_of(defense_buttons(encounter, exchange, passive))
        channel = self.client.get_partial_messageable(encounter.channel_id)
        try:
            sent = await channel.send(
                content,
                view=view or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(asked)]),
            )
        except DISCORD_FAILURES:
            log.warning("could not post the request of exchange %s again", exchange.id, exc_info=True)
            return encounter
        message.id = sent.id
        return await self.remember(encounter, message, view)

    def _passive(self, fight: Encounter) -> Callable[[int], int]:
        def passive(exchange_id: int) -> int:
            report = attacks.waiting_report(fight, fight_catalog(self.catalog(), fight), exchange_id)
            return report.passive if report.passive is not None else 0

        return passive

    async def _change(self, channel_id: int, operation: Callable[[Encounter], Done[None]]) -> Encounter:
        """A change of the fight's messages (a transaction of its own); the fight as saved, the newest
        state of it this board knows (a state handed over older than it is read anew)."""
        saved, _ = await self.store().change(channel_id, self._bot_id, operation)
        self._newest.set(channel_id, (saved.tag, saved.version))
        return saved
