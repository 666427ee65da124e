"""The trackers in the channels: one message per fight, posted, edited in place or reposted at the bottom.

What a tracker says is :mod:`bot.ui.tracker`'s; this board puts it on Discord and remembers where it
is (in the fight's document), never drawing an older state over a newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import discord
import orjson
from discord.http import MultipartParameters, handle_message_parameters

from .channel_access import RefusedPosts
from .drawing_budget import TRACKER_DRAWS_PER_SECOND, Budget
from .encounter.document import Encounter, TrackerMessage
from .encounter.done import Done
from .recent import Recent
from .request_budget import background_task
from .rules.errors import RulesError
from .store import Store
from .ui.errors import DISCORD_FAILURES, cannot_post_here, may_pass
from .ui.tracker import clip, tracker_embeds, tracker_view

log = logging.getLogger(__name__)

REMEMBERED_SECONDS = 900.0
"""How long the board remembers what it drew of a fight: longer than any command stays in flight (a
command gives up within Discord's 15 minutes), so a late one never draws an older state over a newer."""


TRACKER_SPACING = 1.0
"""Seconds at least from one drawing of a channel's tracker to the next: whatever comes in between is
drawn once, as its latest state. One edit a second per channel stays within Discord's per-channel
limits on editing messages (5 in 5 s)."""


RETRY_FIRST = 2.0
"""Seconds before a tracker whose drawing failed for a passing reason (:func:`~bot.ui.errors.may_pass`:
the connection, Discord's own trouble, a rate limit) is drawn again, as the fight stands then; each
failure in a row doubles it, up to :data:`RETRY_MOST`. Every try takes from the global budget like any
drawing, and a change meanwhile is drawn by the retry, not before it."""
RETRY_MOST = 60.0


SHUTDOWN_SECONDS = 5.0
"""At shutdown, how long past a tracker's spacing the trackers still due may take to be drawn."""

KEPT_WHILE_WAITING = 50
"""While the budget holds the drawings back, the first this many channels waiting their turn keep the
fight their command handed over, drawn as it is rather than read and parsed again from the store (they
are drawn within two seconds at :data:`~bot.drawing_budget.TRACKER_DRAWS_PER_SECOND`); the channels
behind them keep none, so that thousands waiting in a burst cost a few bytes each, not a fight each
(some 50 KB for eight NPC groups)."""


@dataclass(slots=True)
class _Due:
    """What is yet to be drawn on a channel: the newest state asked for (its fight's start and version,
    and the fight itself as the command that changed it handed it over, drawn as it is rather than read
    and parsed again from the store; but None while the channel waits its turn for the budget behind
    :data:`KEPT_WHILE_WAITING` others, so that thousands of channels waiting cost a few bytes each, and
    for a drawing tried again: those read the fight as it stands when drawn), whether any asker wanted
    the tracker reposted, and the future the askers since the last drawing wait on."""

    started_at: datetime
    version: int
    encounter: Encounter | None
    repost: bool
    drawn: asyncio.Future[None] | None


def _showing(params: MultipartParameters) -> bytes:
    """A digest of what a tracker message shows (its embeds and components in the JSON Discord gets,
    :func:`_payload`, drawn once for the edit and the digest): two drawings that show the same are one
    edit. A digest, not the JSON, so that a thousand trackers remembered cost 16 bytes each."""
    payload = params.payload or {}
    shown = orjson.dumps([payload["embeds"], payload["components"]])
    return hashlib.blake2b(shown, digest_size=16).digest()


def _payload(
    embeds: list[discord.Embed], view: discord.ui.View, mentions: discord.AllowedMentions | None
) -> MultipartParameters:
    """What an edit of the tracker sends (no file, so nothing to close after)."""
    return handle_message_parameters(
        content=None, embeds=embeds, view=view, previous_allowed_mentions=mentions
    )


def _newer(encounter: Encounter, than: _Due) -> bool:
    """Whether ``encounter`` is a later state than the one due: a later fight, or the same one saved
    later."""
    if encounter.started_at != than.started_at:
        return encounter.started_at > than.started_at
    return encounter.version >= than.version


class TrackerBoard:
    """Posts and edits the trackers, never drawing an older state over a newer one, and coalescing.

    A channel's tracker is drawn by one drawing task at a time, at most once every ``spacing`` seconds
    (:data:`TRACKER_SPACING`), and what is asked meanwhile is coalesced: the newest state asked wins
    and is drawn once, when the spacing is over. A burst of clicks on one table so costs two edits (the
    first state at once, then the last), not one per click. One request at a time per channel also
    keeps discord.py's rate limiting in front of every edit (it reads the limits Discord sends and
    waits when a bucket is empty, while newer states keep coalescing), so a tracker does not run into
    a 429. A :meth:`publish` leaves its state to the channel's drawing task and returns at once, so a
    command never waits for its tracker (a drawing that fails is logged); with no spacing (the tests'),
    it returns once drawn.

    Over all channels together, drawings start at most ``per_second`` a second (a
    :class:`~bot.drawing_budget.Budget` of :data:`~bot.drawing_budget.TRACKER_DRAWS_PER_SECOND`, within
    Discord's global limit): in a burst over many channels, each waits its turn, still coalescing.

    A per-channel lock orders the drawing with :meth:`close`, and the version last drawn of each fight
    is remembered: a command that finishes late does not overwrite the tracker a later command already
    drew, and a fight that ended is never drawn again (a fight is known by its channel and its start).
    Both are remembered for :data:`REMEMBERED_SECONDS` (and a lock, a due state and a drawing task
    while in use), so memory does not grow with the fights the process ever drew.
    """

    def __init__(
        self,
        client: discord.Client,
        store: Callable[[], Store],
        *,
        spacing: float = TRACKER_SPACING,
        per_second: float | None = TRACKER_DRAWS_PER_SECOND,
    ) -> None:
        self.client = client
        self.store = store
        self.refusals = RefusedPosts(client)
        """Whose GM was told that Discord refuses the fight's posts (the tracker's, and others')."""
        self.spacing = spacing
        self.budget = Budget(per_second) if per_second is not None else None
        """:data:`~bot.drawing_budget.TRACKER_DRAWS_PER_SECOND` over all channels; None: no limit."""
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._drawn: Recent[tuple[int, datetime], int] = Recent(REMEMBERED_SECONDS)
        self._ended: Recent[tuple[int, datetime], bool] = Recent(REMEMBERED_SECONDS)
        self._due: dict[int, _Due] = {}
        self._shown: Recent[int, bytes] = Recent(REMEMBERED_SECONDS)
        """Tracker message id -> what it was last drawn showing (:func:`_showing`), so that a change
        that shows nothing new costs no edit."""
        self._drawers: dict[int, asyncio.Task[None]] = {}
        """The channels being drawn (or waiting out their spacing after a drawing)."""
        self._waiting: deque[int] = deque()
        """The channels with a state due and no drawing task, in the order they asked: the dispatcher
        starts their drawings as the budget allows."""
        self._dispatcher: asyncio.Task[None] | None = None
        self._rationed = False
        """Whether the dispatcher waits for the budget: a channel that asks meanwhile waits its turn, and
        keeps no fight while it does behind :data:`KEPT_WHILE_WAITING` others (it is read back from the
        store when drawn)."""
        self._closers: set[asyncio.Task[None]] = set()
        """The trackers of ended fights to be closed again (Discord failed it for a reason that may pass)."""
        self._failures: dict[int, int] = {}
        """Channel -> how many of its drawings in a row failed for a passing reason (while it retries)."""

    def _lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    async def publish(self, encounter: Encounter, *, repost: bool = False) -> None:
        """Draw ``encounter`` on its tracker: edited in place, or posted anew at the bottom of the
        channel when ``repost`` (or when the old one is gone), by the channel's drawing task. With a
        spacing (the bot's own), returns at once: the command does not wait for its tracker, which is
        drawn as soon as the spacing and the budget allow (a drawing that fails is logged). With none
        (the tests'), returns once it, or a newer state of the channel that replaced it, is drawn."""
        channel = encounter.channel_id
        waits = self.spacing <= 0
        due = self._due.get(channel)
        kept = encounter if waits or not self._rationed or len(self._waiting) < KEPT_WHILE_WAITING else None
        if due is None:
            due = self._due[channel] = _Due(encounter.started_at, encounter.version, kept, repost, None)
            if channel not in self._drawers:
                self._enqueue(channel)
        else:
            if _newer(encounter, due):
                due.started_at, due.version, due.encounter = encounter.started_at, encounter.version, kept
            due.repost = due.repost or repost
        if not waits:
            return
        if due.drawn is None:
            due.drawn = asyncio.get_running_loop().create_future()
        # Shielded: an asker cancelled (its command given up) leaves the drawing to go on for the rest.
        await asyncio.shield(due.drawn)

    def _enqueue(self, channel: int) -> None:
        """The channel waits its turn with the dispatcher (started when none runs)."""
        self._waiting.append(channel)
        if self._dispatcher is None:
            self._dispatcher = asyncio.create_task(self._dispatch(), name="pommel-trackers")

    def _busy(self) -> list[asyncio.Task[None]]:
        dispatcher = [self._dispatcher] if self._dispatcher is not None else []
        return [*self._drawers.values(), *dispatcher, *self._closers]

    async def idle(self) -> None:
        """Wait until nothing is left to draw on any channel, its spacing waited out too."""
        while busy := self._busy():
            await asyncio.gather(*busy, return_exceptions=True)

    async def finish(self, timeout: float | None = None) -> None:
        """Before the bot disconnects: draw what is still due (a command's state left to its channel's
        drawing task), for at most ``timeout`` seconds (the spacing and :data:`SHUTDOWN_SECONDS` by
        default); then stop the drawing that is left."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout if timeout is not None else self.spacing + SHUTDOWN_SECONDS)
        while (busy := self._busy()) and (left := deadline - loop.time()) > 0:
            await asyncio.wait(busy, timeout=left)  # cancels none of them
        if not self._busy():
            return
        log.warning(
            "%d trackers were still to be drawn at shutdown; the next change of their fights draws them",
            len(self._due),
        )
        if self._closers:
            log.warning("%d trackers of ended fights were left unclosed at shutdown", len(self._closers))
        for task in self._busy():
            task.cancel()
        await asyncio.gather(*self._busy(), return_exceptions=True)

    async def _dispatch(self) -> None:
        """Start the drawings of the channels waiting, in turn, as the budget allows."""
        background_task()  # this task's, and the drawings' it starts: a command's requests go first
        try:
            while self._waiting:
                if self.budget is not None and not self.budget.available():
                    self._rationed = True  # the channels waiting far back keep no fight meanwhile
                    for waiting in itertools.islice(self._waiting, KEPT_WHILE_WAITING, None):
                        if (due := self._due.get(waiting)) is not None and self.spacing > 0:
                            due.encounter = None
                    try:
                        await self.budget.take()  # meanwhile, newer states of the channels coalesce
                    finally:
                        self._rationed = False
                elif self.budget is not None:
                    await self.budget.take()
                channel = self._waiting.popleft()
                self._drawers[channel] = asyncio.create_task(self._draw_due(channel), name="pommel-tracker")
        finally:
            self._dispatcher = None  # done, or cancelled (the bot is closing)

    async def _draw_due(self, channel: int) -> None:
        """A channel's drawing: draws the newest state due, then waits out the spacing; a state that
        came meanwhile waits its turn again."""
        loop = asyncio.get_running_loop()
        again = False
        try:
            due = self._due.pop(channel, None)
            if due is None:
                return
            started = loop.time()
            retry = False
            try:
                encounter = (
                    due.encounter if due.encounter is not None else await self._fight_now(channel, due)
                )
                if encounter is not None:
                    retry = not await self._draw_latest(encounter, repost=due.repost)
            except asyncio.CancelledError:
                if due.drawn is not None:
                    due.drawn.cancel()
                raise
            except Exception as error:  # a bug: logged here, and raised to whoever waits on it
                log.error("drawing the tracker in channel %s failed", channel, exc_info=error)
                if due.drawn is not None:
                    due.drawn.set_exception(error)
                    due.drawn.exception()  # retrieved: asyncio need not warn when nobody waited
            else:
                if due.drawn is not None:
                    due.drawn.set_result(None)
            wait = self.spacing
            if retry:  # the fight as it stands then is drawn again after a while, unless newer is due
                failures = self._failures[channel] = self._failures.get(channel, 0) + 1
                wait = max(wait, min(RETRY_FIRST * 2 ** (failures - 1), RETRY_MOST))
            else:
                self._failures.pop(channel, None)
            if wait > 0:  # what comes meanwhile waits, and is drawn once, as its latest state
                await asyncio.sleep(started + wait - loop.time())
            if retry and channel not in self._due:
                self._due[channel] = _Due(due.started_at, due.version, None, due.repost, None)
            again = True
        finally:
            del self._drawers[channel]
            if again and channel in self._due:
                self._enqueue(channel)
            elif not again:
                self._failures.pop(channel, None)
                left = self._due.pop(channel, None)  # cancelled: nobody will draw it now
                if left is not None and left.drawn is not None and not left.drawn.done():
                    left.drawn.cancel()

    async def _fight_now(self, channel: int, due: _Due) -> Encounter | None:
        """The fight due, as the store has it now (the same fight, at its version or later); None when
        it ended or another started (its end closed the tracker)."""
        fight = await self.store().load_encounter(channel)
        if fight is None or fight.started_at != due.started_at:
            return None
        return fight

    async def _draw_latest(self, encounter: Encounter, *, repost: bool) -> bool:
        """Draw ``encounter`` unless a later state was drawn or the fight ended; False when Discord
        failed it for a reason that may pass (it is then tried again, :data:`RETRY_FIRST`)."""
        fight = (encounter.channel_id, encounter.started_at)
        async with self._lock(encounter.channel_id):
            drawn = self._drawn.get(fight)
            if self._ended.get(fight) or (drawn is not None and drawn > encounter.version):
                return True
            self._drawn.set(fight, encounter.version)
            try:
                await self._draw(encounter, repost=repost)
            except DISCORD_FAILURES as error:
                # The fight is saved (telling the user "nothing changed" would be wrong); its tracker
                # is drawn again after a while, or by the next change, or not at all where Discord
                # refuses Pommel the channel.
                if cannot_post_here(error):
                    await self.cannot_draw(encounter, error)
                    return True
                log.warning("could not draw the tracker in channel %s", encounter.channel_id, exc_info=True)
                return not may_pass(error)
            else:
                self.refusals.posted(encounter)
        return True

    async def cannot_draw(self, encounter: Encounter, error: BaseException) -> None:
        """Discord refuses Pommel the channel of a fight's tracker (:func:`~bot.ui.errors.cannot_post_here`,
        the permissions changed mid-fight or the channel is gone): it is not tried again (the next change
        tries once more), and the fight's GM is told, once (:class:`~bot.channel_access.RefusedPosts`)."""
        await self.refusals.refused(encounter, "the fight's tracker", error)

    async def _draw(self, encounter: Encounter, *, repost: bool) -> None:
        embeds = tracker_embeds(encounter)
        view = tracker_view(encounter)
        params = _payload(embeds, view, self.client.allowed_mentions)
        shows = _showing(params)
        old = encounter.tracker
        if old is not None and not repost:
            if self._shown.get(old.message_id) == shows:
                return  # the change shows nothing new (a miss, say): no edit
            try:
                await self._edit(old, params)
                self._shown.set(old.message_id, shows)
                return
            except discord.NotFound:
                old = None
            await self._spend()  # the edit was one request; posting anew is another
        channel = self.client.get_partial_messageable(encounter.channel_id)
        sent = await channel.send(embeds=embeds, view=view)
        self._shown.set(sent.id, shows)
        if old is not None:
            await self._spend()
            with contextlib.suppress(discord.NotFound):
                await channel.get_partial_message(old.message_id).delete()
        posted = TrackerMessage(channel_id=sent.channel.id, message_id=sent.id)
        saved = await self._remember(encounter, posted)
        if saved is not None and saved.version > encounter.version + 1:
            # Someone changed the fight between this drawing and saving where the tracker now is; their
            # own drawing will be skipped as older than that save, so draw the fight as it stands.
            params = _payload(tracker_embeds(saved), tracker_view(saved), self.client.allowed_mentions)
            await self._spend()
            await self._edit(posted, params)
            self._shown.set(sent.id, _showing(params))

    async def _edit(self, tracker: TrackerMessage, params: MultipartParameters) -> None:
        """Edit the tracker message in place with ``params`` (:func:`_payload`), without reading back the
        message Discord answers with (:meth:`discord.PartialMessage.edit` parses it into a
        :class:`discord.Message` the board never looks at). Its view is stopped
        (:func:`bot.ui.buttons.button_view`): discord.py keeps none."""
        await self.client.http.edit_message(tracker.channel_id, tracker.message_id, params=params)

    async def _spend(self) -> None:
        """A drawing's request past its first (the dispatcher paid that one) takes from the budget too:
        a repost is two requests, the post and the old tracker's deletion."""
        if self.budget is not None:
            await self.budget.take()

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
            self._shown.pop(encounter.tracker.message_id)
            message = self.client.get_partial_messageable(encounter.tracker.channel_id).get_partial_message(
                encounter.tracker.message_id
            )
            embed = tracker_embeds(encounter)[-1]  # the step in its footer
            embed.title = "⚔️ Fight over"
            embed.description = clip([summary])
            if not await self._close(fight, message, embed):
                closing = asyncio.create_task(self._close_later(fight, message, embed), name="pommel-tracker")
                self._closers.add(closing)
                closing.add_done_callback(self._closers.discard)

    async def _close(
        self, fight: tuple[int, datetime], message: discord.PartialMessage, embed: discord.Embed
    ) -> bool:
        """One try at closing a tracker; False when Discord failed it for a reason that may pass."""
        try:
            await message.edit(embeds=[embed], view=None)
        except DISCORD_FAILURES as error:
            if cannot_post_here(error):  # an ended fight's: nothing left to tell its GM
                log.warning("cannot close the tracker in channel %s: %s", fight[0], error)
                return True
            log.warning("could not close the tracker in channel %s", fight[0], exc_info=True)
            return not may_pass(error)
        return True

    async def _close_later(
        self, fight: tuple[int, datetime], message: discord.PartialMessage, embed: discord.Embed
    ) -> None:
        """Close the tracker of an ended fight again until it is closed (the waits as a drawing's, taking
        from the same budget); not once the fight was reopened, nor after :data:`REMEMBERED_SECONDS`."""
        background_task()
        loop = asyncio.get_running_loop()
        given_up_at = loop.time() + REMEMBERED_SECONDS
        failures = 1
        while loop.time() < given_up_at:
            await asyncio.sleep(min(RETRY_FIRST * 2 ** (failures - 1), RETRY_MOST))
            if self.budget is not None:
                await self.budget.take()
            async with self._lock(fight[0]):
                if not self._ended.get(fight) or await self._close(fight, message, embed):
                    return
            failures += 1
