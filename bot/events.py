"""What happened to a fight, announced by the store at commit, and the one place that follows from it.

A change says what happened (:func:`announce`: the store does it once its transaction is committed,
never for a change that raised); the command's unit of work (:meth:`Bus.collecting`, opened by the
command framework around a command, a click, a timeout or a reminder) collects what was announced,
and once the work is over, after its answer, the :class:`Bus` hands each event to the handlers
registered at start-up (:mod:`bot.app`: the tracker board and the fight's messages). No command
redraws anything itself, so none can forget to.

The model is cosmicpython's message bus (``collect_new_events`` from the unit of work). The events are
collected per task (a context variable, as :mod:`bot.store.receipts` marks a commit): one command's
events never reach another's handling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TypeVar

from .encounter.document import Encounter
from .encounter.lifecycle import EndedFight

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FightChanged:
    """A change of the fight was committed: ``encounter`` as saved. ``repost``: its tracker is posted anew
    at the bottom of the channel (the operation's :attr:`~bot.encounter.done.Done.repost`, or a fight
    brought back)."""

    encounter: Encounter
    repost: bool = False
    bookkeeping: bool = False
    """The change logged nothing (where a message of the fight now is): no news on its own, it is only
    the latest state of a change of the same unit of work (:func:`coalesced`)."""


@dataclass(frozen=True, slots=True)
class FightEnded:
    """The fight ended (``encounter`` as it was last; ``ended`` what its end says of it)."""

    encounter: Encounter
    ended: EndedFight


@dataclass(frozen=True, slots=True)
class FightReopened:
    """An ended fight was brought back, as it ended (``/encounter reopen``)."""

    encounter: Encounter


@dataclass(frozen=True, slots=True)
class FightRestored:
    """An undo or a redo by ``by`` put the fight back, from ``before`` to ``encounter`` (as saved)."""

    before: Encounter
    encounter: Encounter
    by: int


@dataclass(frozen=True, slots=True)
class FightForgotten:
    """The fight was deleted with its server's data (``/server forget``): ``encounter`` as it was last."""

    encounter: Encounter


@dataclass(frozen=True, slots=True)
class TrackerAsked:
    """Someone asked for the fight's tracker at the bottom of the channel, unchanged (``/init show``)."""

    encounter: Encounter


Event = FightChanged | FightEnded | FightReopened | FightRestored | FightForgotten | TrackerAsked
E = TypeVar("E", FightChanged, FightEnded, FightReopened, FightRestored, FightForgotten, TrackerAsked)
Handler = Callable[[E], Awaitable[None]]

_collected: ContextVar[list[Event] | None] = ContextVar("pommel_events", default=None)
"""The events of the unit of work running in this task; None outside one (and while its events are
handled: the handlers' own bookkeeping, such as where a tracker now is, is no news)."""


def announce(event: Event) -> None:
    """Tell the running unit of work what happened (after the commit). Outside one, nobody listens:
    a store used on its own (a test, a maintenance script) redraws nothing."""
    collected = _collected.get()
    if collected is not None:
        collected.append(event)


def redrawn_after(encounter: Encounter) -> bool:
    """Whether the running unit of work has announced a change of ``encounter``'s fight that is news (not
    bookkeeping), so the fight's messages are redrawn once the work is over; False outside one."""
    collected = _collected.get()
    if not collected:
        return False
    fight = (encounter.channel_id, encounter.tag)
    drawn = False
    for event in collected:
        if (event.encounter.channel_id, event.encounter.tag) != fight:
            continue
        if isinstance(event, FightEnded | FightForgotten):
            drawn = False
        elif isinstance(event, FightChanged) and not event.bookkeeping:
            drawn = True
    return drawn


def coalesced(events: list[Event]) -> list[Event]:
    """The events to handle: every one but the changes, in order, then each fight's changes as one (its
    latest state, reposted when any of them asked it), so that a fight is drawn once, after all else
    its unit of work brought about (an undo's requests asked again are on its messages). A fight that
    ended or was forgotten meanwhile is not drawn, nor one whose changes were all bookkeeping."""
    others: list[Event] = []
    changes: dict[tuple[int, str], FightChanged] = {}
    for event in events:
        fight = (event.encounter.channel_id, event.encounter.tag)
        if not isinstance(event, FightChanged):
            if isinstance(event, FightEnded | FightForgotten):
                changes.pop(fight, None)
            others.append(event)
            continue
        earlier = changes.get(fight)
        if earlier is None:
            changes[fight] = event
            continue
        latest = event if event.encounter.version >= earlier.encounter.version else earlier
        changes[fight] = replace(
            latest,
            repost=earlier.repost or event.repost,
            bookkeeping=earlier.bookkeeping and event.bookkeeping,
        )
    return [*others, *(change for change in changes.values() if not change.bookkeeping)]


class Bus:
    """Hands each event collected by a unit of work to the handlers of its kind, once the work is over."""

    def __init__(self) -> None:
        self._handlers: dict[type, list[Callable[[Event], Awaitable[None]]]] = {}

    def subscribe(self, kind: type[E], handler: Handler[E]) -> None:
        """``handler`` follows every event of ``kind`` (registered once, at start-up)."""
        self._handlers.setdefault(kind, []).append(handler)  # type: ignore[arg-type]  # keyed by its kind

    def unsubscribe(self, kind: type[E], handler: Handler[E]) -> None:
        """``handler`` no longer follows ``kind`` (its cog unloaded)."""
        self._handlers[kind].remove(handler)  # type: ignore[arg-type]  # keyed by its kind

    @contextlib.asynccontextmanager
    async def collecting(self) -> AsyncIterator[None]:
        """A unit of work: what its changes announce is handled when it is over, whether it returned or
        raised (what was committed before a failure is true all the same: its tracker shows it)."""
        events: list[Event] = []
        token = _collected.set(events)
        try:
            yield
        finally:
            _collected.reset(token)
            await self.handle(events)

    async def beside(self, step: Awaitable[object]) -> None:
        """Hand on what the current unit of work has announced so far (its tracker, its messages) while
        ``step`` runs (what follows a command's answer: the channel told, the summary posted), instead of
        after it: both then come one round trip after the answer, not one after the other. What the unit
        announces later is handled when it is over, as ever. Outside a unit of work, ``step`` alone runs."""
        collected = _collected.get()
        ready: list[Event] = []
        if collected:
            ready, collected[:] = list(collected), []
        drawing = asyncio.ensure_future(self.handle(ready))
        try:
            await step
        finally:
            await drawing

    async def handle(self, events: list[Event]) -> None:
        """Hand each event (:func:`coalesced`) to its handlers, in order; a handler's failure is logged,
        and the others still run. What the handlers change themselves announces nothing."""
        if not events:
            return
        token = _collected.set(None)
        try:
            for event in coalesced(events):
                for handler in self._handlers.get(type(event), ()):
                    try:
                        await handler(event)
                    except Exception:
                        kind, channel = type(event).__name__, event.encounter.channel_id
                        log.exception("handling %s of channel %s failed", kind, channel)
        finally:
            _collected.reset(token)
