"""The trackers in the channels: one message per fight, posted, edited in place or reposted at the bottom.

What a tracker says is :mod:`bot.ui.tracker`'s; this board puts it on Discord and remembers where it
is (in the fight's document), never drawing an older state over a newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Generic, TypeVar

import discord

from .encounter.document import Encounter, TrackerMessage
from .encounter.done import Done
from .rules.errors import RulesError
from .store import Store
from .ui.errors import DISCORD_FAILURES
from .ui.tracker import clip, tracker_embed, tracker_view

log = logging.getLogger(__name__)

K = TypeVar("K")
V = TypeVar("V")

REMEMBERED_SECONDS = 900.0
"""How long the board remembers what it drew of a fight: longer than any command stays in flight (a
command gives up within Discord's 15 minutes), so a late one never draws an older state over a newer."""


class Recent(Generic[K, V]):
    """A map that forgets what was last set more than ``keep`` seconds ago, so a fight left idle costs
    nothing after a while."""

    def __init__(self, keep: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._keep = keep
        self._clock = clock
        self._items: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> V | None:
        item = self._items.get(key)
        if item is None or item[0] < self._clock() - self._keep:
            return None
        return item[1]

    def set(self, key: K, value: V) -> None:
        now = self._clock()
        self._items[key] = (now, value)
        self._items.move_to_end(key)
        while self._items:
            oldest = next(iter(self._items.values()))
            if oldest[0] >= now - self._keep:
                break
            self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)


class TrackerBoard:
    """Posts and edits the trackers, never drawing an older state over a newer one.

    A per-channel lock orders the drawing, and the version last drawn of each fight is remembered: a
    command that finishes late does not overwrite the tracker a later command already drew, and a
    fight that ended is never drawn again (a fight is known by its channel and its start). Both are
    remembered for :data:`REMEMBERED_SECONDS` (and a lock while it is in use), so memory does not grow
    with the fights the process ever drew.
    """

    def __init__(self, client: discord.Client, store: Callable[[], Store]) -> None:
        self.client = client
        self.store = store
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._drawn: Recent[tuple[int, datetime], int] = Recent(REMEMBERED_SECONDS)
        self._ended: Recent[tuple[int, datetime], bool] = Recent(REMEMBERED_SECONDS)

    def _lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    async def publish(self, encounter: Encounter, *, repost: bool = False) -> None:
        """Draw ``encounter`` on its tracker: edited in place, or posted anew at the bottom of the
        channel when ``repost`` (or when the old one is gone)."""
        fight = (encounter.channel_id, encounter.started_at)
        async with self._lock(encounter.channel_id):
            drawn = self._drawn.get(fight)
            if self._ended.get(fight) or (drawn is not None and drawn > encounter.version):
                return
            self._drawn.set(fight, encounter.version)
            try:
                await self._draw(encounter, repost=repost)
            except DISCORD_FAILURES:
                # The fight is saved; a tracker that could not be drawn is redrawn by the next change
                # or by /init show. Telling the user "nothing changed" would be wrong.
                log.warning("could not draw the tracker in channel %s", encounter.channel_id, exc_info=True)

    async def _draw(self, encounter: Encounter, *, repost: bool) -> None:
        embed = tracker_embed(encounter)
        view = tracker_view(encounter)
        old = encounter.tracker
        if old is not None and not repost:
            message = self.client.get_partial_messageable(old.channel_id).get_partial_message(old.message_id)
            try:
                await message.edit(content=None, embed=embed, view=view)
                return
            except discord.NotFound:
                old = None
        channel = self.client.get_partial_messageable(encounter.channel_id)
        sent = await channel.send(embed=embed, view=view)
        if old is not None:
            with contextlib.suppress(discord.NotFound):
                await channel.get_partial_message(old.message_id).delete()
        saved = await self._remember(
            encounter, TrackerMessage(channel_id=sent.channel.id, message_id=sent.id)
        )
        if saved is not None and saved.version > encounter.version + 1:
            # Someone changed the fight between this drawing and saving where the tracker now is; their
            # own drawing will be skipped as older than that save, so draw the fight as it stands.
            await sent.edit(embed=tracker_embed(saved), view=tracker_view(saved))

    async def _remember(self, encounter: Encounter, tracker: TrackerMessage) -> Encounter | None:
        """Save where the tracker now is; returns the fight as saved (None if it ended meanwhile)."""

        def point(current: Encounter) -> Done[None]:
            current.tracker = tracker
            return Done(None)

        bot_id = self.client.user.id if self.client.user else 0
        try:
            saved, _ = await self.store().change(encounter.channel_id, bot_id, point)
        except RulesError:
            return None  # the fight ended meanwhile: there is nothing left to point at
        if saved.started_at != encounter.started_at:
            return None  # ended, and another fight started: not ours to point at (left as it is)
        fight = (encounter.channel_id, encounter.started_at)
        self._drawn.set(fight, max(self._drawn.get(fight) or -1, saved.version))
        return saved

    def reopened(self, encounter: Encounter) -> None:
        """An ended fight was brought back (``/encounter reopen``): it may be drawn again."""
        self._ended.pop((encounter.channel_id, encounter.started_at))

    async def close(self, encounter: Encounter, summary: str) -> None:
        """The fight ended: its tracker shows the summary and loses its buttons, for good."""
        fight = (encounter.channel_id, encounter.started_at)
        async with self._lock(encounter.channel_id):
            self._ended.set(fight, True)
            self._drawn.pop(fight)
            if encounter.tracker is None:
                return
            message = self.client.get_partial_messageable(encounter.tracker.channel_id).get_partial_message(
                encounter.tracker.message_id
            )
            embed = tracker_embed(encounter)
            embed.title = "⚔️ Fight over"
            embed.description = clip([summary])
            try:
                await message.edit(embed=embed, view=None)
            except DISCORD_FAILURES:
                log.warning("could not close the tracker in channel %s", encounter.channel_id, exc_info=True)
