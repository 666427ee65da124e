"""The messages that show a step of a fight (:class:`~bot.encounter.records.FightMessage`): the fight
knows each of them, so that any change (a click, a command, a timeout, an undo or a redo, the next
deal) can bring its buttons up to date in one place (:mod:`bot.fight_messages`) instead of each command
remembering which messages it made untrue.

What is kept here is bookkeeping: it logs nothing, so it is no step of the fight's history (an undo
takes back the change before it, and a redo stays possible).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .document import Encounter
from .done import Done
from .records import FightMessage

KEPT_MESSAGES = 40
"""At most this many messages with buttons are known (the oldest go first: a click on one is still
refused as out of date, it only keeps its buttons)."""

UNKNOWN = ["?"]
"""What a message carries when the fight cannot know it (an undo brought back a message the undone
steps redrew): it is drawn anew at the next change."""


def remember(encounter: Encounter, message: FightMessage) -> Done[None]:
    """The fight now knows ``message`` (as drawn): it replaces what was known of the same message. A
    message about an exchange becomes that exchange's message (the one a timeout or an undo edits)."""
    for exchange in encounter.exchanges:
        if exchange.id == message.exchange:
            exchange.message_id = message.id
    encounter.messages = [m for m in encounter.messages if m.id != message.id]
    encounter.messages.append(message)
    _forget_idle(encounter)
    return Done(None)


def remembered(encounter: Encounter, sent: Sequence[FightMessage]) -> Encounter:
    """The fight as it reads once it remembers ``sent`` (:func:`remember`, one after the other): a copy
    sharing all but what remembering changes; ``encounter`` itself is left as it is."""
    asked = {message.exchange for message in sent}
    fight = encounter.model_copy(
        update={"exchanges": [e.model_copy() if e.id in asked else e for e in encounter.exchanges]}
    )
    for message in sent:
        remember(fight, message)
    return fight


def note_drawn(encounter: Encounter, drawn: Mapping[int, Sequence[str]]) -> Done[None]:
    """The buttons these messages now carry (by message id), as :mod:`bot.fight_messages` drew them."""
    for message in encounter.messages:
        if message.id in drawn:
            message.drawn = list(drawn[message.id])
    _forget_idle(encounter)
    return Done(None)


def forget(encounter: Encounter, message_id: int) -> Done[None]:
    """The message is gone from the channel (deleted): nothing is drawn on it any more."""
    encounter.messages = [m for m in encounter.messages if m.id != message_id]
    for exchange in encounter.exchanges:
        if exchange.message_id == message_id:
            exchange.message_id = None
    return Done(None)


def _forget_idle(encounter: Encounter) -> None:
    """A message without buttons offers nothing more (the moment it showed has passed for good, or an
    undo brings the message back with the rest of the fight), unless it asks for a defense still open:
    a request must stay reachable."""
    asking = {e.message_id for e in encounter.exchanges if e.pending}
    kept = [m for m in encounter.messages if m.drawn or m.id in asking]
    encounter.messages = kept[-KEPT_MESSAGES:]


def carried_over(earlier: Encounter, current: Encounter) -> list[FightMessage]:
    """The messages a fight put back by an undo or a redo (``earlier``, saved in place of ``current``)
    knows: those of both, each as it is drawn on the channel now (``current`` knows that; one only
    ``earlier`` knew was redrawn since, so it is drawn anew)."""
    now = {message.id: message for message in current.messages}
    messages = [
        message.model_copy(update={"drawn": list(now[message.id].drawn) if message.id in now else UNKNOWN})
        for message in earlier.messages
    ]
    known = {message.id for message in messages}
    messages += [message.model_copy() for message in current.messages if message.id not in known]
    return messages[-KEPT_MESSAGES:]
