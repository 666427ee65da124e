"""A fight's bookkeeping kept in memory until the fight's next change writes it, in that change's own
transaction.

What :mod:`bot.fight_messages` learns once a change has been answered (the id of a message a command
sent, the buttons a redraw left on the fight's messages) logs nothing and decides no action: it is
bookkeeping (:mod:`bot.encounter.messages`). Written in a transaction of its own after every command, it
made every ``/attack``, click and ``/init next`` two writes. It is kept here instead, as notes per
channel and fight (its tag): :meth:`~bot.store.base.Store.change` applies the channel's notes to the
fight it reads, before the command's own operation and inside its transaction, and takes them off once
that transaction is committed (they stay when it fails or is refused); an undo and a redo apply them to
the fight they put back (:meth:`Bookkeeping.restoring`); a read of the fight
(:meth:`~bot.store.base.Store.load_encounter`, and the redraw of a fight handed over) sees them. Notes no
change carried are written alone once :data:`NOTES_WAIT` old (:meth:`~bot.store.base.Store.write_notes`,
a job of the bot's scheduler), all of them when the bot closes, and a channel's when ``/encounter end``
asks (an ended fight is kept as stored, and a reopen brings it back so).

What a crash (a kill, a power cut) can lose is therefore at most the last :data:`NOTES_KEPT_AT_MOST`
seconds of bookkeeping, never an action (each is committed before it is answered): a message whose
buttons the fight no longer knows is drawn anew at the fight's next change, and a button that stayed on
it acts only if the fight still accepts it (a stale ⏭️ Next, or any button of a passed step, is refused
as out of date); a request whose message id the fight never learnt still acts by its buttons, and
``/encounter show`` posts it again.

The notes are read inside a transaction, which SQLite runs on its connection's thread: a lock of their
own guards them (held for a few dictionary operations, never across an ``await``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..encounter import messages
from ..encounter.document import Encounter
from ..encounter.records import FightMessage
from .records import EncounterChange

NOTES_WAIT = 50.0
"""Seconds a note may wait for a change of its fight to carry it before it is written alone."""
NOTES_CHECKED_EVERY = 10.0
"""Seconds between the bot's looks for notes that waited :data:`NOTES_WAIT`."""
NOTES_KEPT_AT_MOST = NOTES_WAIT + NOTES_CHECKED_EVERY
"""The most a note stays unwritten (in seconds): what a crash can lose of the fights' bookkeeping."""


Update = Callable[[int, Callable[[Encounter | None], EncounterChange]], Awaitable[Encounter | None]]
"""How a fight is changed: the store's :meth:`~bot.store.base.Store.update_encounter`."""


@dataclass(slots=True)
class _Notes:
    """One channel's unwritten bookkeeping, for its fight ``tag``."""

    tag: str
    since: float
    """When (``time.monotonic``) the oldest note still unwritten was made."""
    remembered: dict[int, FightMessage] = field(default_factory=dict)
    """Messages a command sent that the fight is to know (:func:`bot.encounter.messages.remember`)."""
    drawn: dict[int, list[str]] = field(default_factory=dict)
    """The buttons last drawn on messages the fight knows (:func:`bot.encounter.messages.note_drawn`)."""


@dataclass(frozen=True, slots=True)
class Carried:
    """The notes a change applied, to take off once it committed: each by identity, so that a newer note
    made meanwhile of the same message stays."""

    channel_id: int
    remembered: tuple[FightMessage, ...]
    drawn: tuple[tuple[int, list[str]], ...]


class Bookkeeping:
    """The unwritten notes of every channel's fight; see the module's docstring."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._notes: dict[int, _Notes] = {}

    def __len__(self) -> int:
        return len(self._notes)

    def note(
        self,
        channel_id: int,
        tag: str,
        remembered: Sequence[FightMessage] = (),
        drawn: Mapping[int, Sequence[str]] | None = None,
    ) -> None:
        """The fight ``tag`` of the channel knows ``remembered`` (as drawn), then carries ``drawn`` (by
        message id): newer than whatever was noted of the same messages. A note of another fight of the
        channel (one that ended) goes."""
        if not remembered and not drawn:
            return
        with self._lock:
            notes = self._notes.get(channel_id)
            if notes is None or notes.tag != tag:
                notes = self._notes[channel_id] = _Notes(tag, self._clock())
            for message in remembered:
                notes.remembered[message.id] = message
                notes.drawn.pop(message.id, None)  # drawn as remembered
            for message_id, buttons in (drawn or {}).items():
                notes.drawn[message_id] = list(buttons)

    def apply(self, fight: Encounter) -> Carried | None:
        """Apply the channel's notes of this fight to ``fight`` (changed in place, as a change changes the
        fight it read); what was applied, for :meth:`taken`, or None when there was nothing."""
        with self._lock:
            notes = self._notes.get(fight.channel_id)
            if notes is None or notes.tag != fight.tag:
                return None
            carried = Carried(fight.channel_id, tuple(notes.remembered.values()), tuple(notes.drawn.items()))
        for message in carried.remembered:  # copies: the fight's messages are its own to change
            messages.remember(fight, message.model_copy(update={"drawn": list(message.drawn)}))
        if carried.drawn:
            messages.note_drawn(fight, dict(carried.drawn))
        return carried

    def applied(self, fight: Encounter) -> Encounter:
        """``fight`` as it reads with the channel's notes applied: ``fight`` itself when there are none,
        else a copy (``fight`` is left as it is: it may be shared, as an event's)."""
        with self._lock:
            notes = self._notes.get(fight.channel_id)
            if notes is None or notes.tag != fight.tag:
                return fight
        copy = fight.model_copy(
            update={
                "exchanges": [exchange.model_copy() for exchange in fight.exchanges],
                "messages": [message.model_copy() for message in fight.messages],
            }
        )
        self.apply(copy)
        return copy

    def taken(self, carried: Carried | None) -> None:
        """The change that applied ``carried`` committed: those notes are written (a newer note of the
        same message, made meanwhile, stays)."""
        if carried is None:
            return
        with self._lock:
            notes = self._notes.get(carried.channel_id)
            if notes is None:
                return
            for message in carried.remembered:
                if notes.remembered.get(message.id) is message:
                    del notes.remembered[message.id]
            for message_id, buttons in carried.drawn:
                if notes.drawn.get(message_id) is buttons:
                    del notes.drawn[message_id]
            if not notes.remembered and not notes.drawn:
                del self._notes[carried.channel_id]

    def drop(self, channel_id: int, tag: str) -> None:
        """Forget the channel's notes of fight ``tag``: it is no longer the channel's fight."""
        with self._lock:
            notes = self._notes.get(channel_id)
            if notes is not None and notes.tag == tag:
                del self._notes[channel_id]

    def waiting(self, older_than: float = 0.0, channel_id: int | None = None) -> list[tuple[int, str]]:
        """The channels (with their fight's tag) whose oldest note has waited ``older_than`` seconds (only
        ``channel_id`` when given)."""
        now = self._clock()
        with self._lock:
            return [
                (channel, notes.tag)
                for channel, notes in self._notes.items()
                if now - notes.since >= older_than and channel_id in (None, channel)
            ]

    async def write_alone(self, channel_id: int, tag: str, update: Update) -> bool:
        """Write the channel's notes of fight ``tag`` in a transaction of their own, by ``update`` (the
        store's :meth:`~bot.store.base.Store.update_encounter`): whether they were written. Notes of a
        fight no longer the channel's go; notes a change of the fight carried meanwhile are not written
        twice."""
        carried: list[Carried | None] = []

        def keep(current: Encounter | None) -> EncounterChange:
            if current is None or current.tag != tag:
                raise _NotTheFight()
            carried.append(self.apply(current))
            if carried[-1] is None:
                raise _NotTheFight()  # written meanwhile by a change of the fight
            return EncounterChange(current)

        try:
            await update(channel_id, keep)
        except _NotTheFight:
            if not carried:
                self.drop(channel_id, tag)
            return False
        self.taken(carried[-1])
        return True

    def restoring(self, restore: Callable[[Encounter, Encounter], Encounter]) -> Restoring:
        """``restore`` (of :meth:`~bot.store.base.Store.undo` or ``redo``) applying the notes to the
        current fight first, so that what it carries over (its messages, as drawn) sees them; call
        :meth:`Restoring.taken` once the undo committed."""
        return Restoring(self, restore)


class Restoring:
    """An undo's or a redo's ``restore(earlier, current)`` that applies the notes to ``current`` first."""

    def __init__(self, bookkeeping: Bookkeeping, restore: Callable[[Encounter, Encounter], Encounter]):
        self._bookkeeping = bookkeeping
        self._restore = restore
        self._carried: Carried | None = None

    def __call__(self, earlier: Encounter, current: Encounter) -> Encounter:
        self._carried = self._bookkeeping.apply(current)
        return self._restore(earlier, current)

    def taken(self) -> None:
        """The undo or redo committed: the notes it applied are written."""
        self._bookkeeping.taken(self._carried)


class _NotTheFight(Exception):
    """:meth:`Bookkeeping.write_alone` has nothing to write in the channel (its notes are of another
    fight, or were written meanwhile): nothing is written."""
