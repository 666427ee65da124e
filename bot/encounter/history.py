"""An undo of the running fight (/encounter undo), and a redo of an undo (/encounter redo): the fight as
it was some changes back (or before the undo), made safe to save as a new version.

A restored document keeps the counters of the fight that is undone past, so nothing drawn in an undone
step acts on it: its turn step goes past every step seen (a turn button of the undone steps, or of the
earlier state, is refused: the tracker is drawn anew), and its next exchange id past every id given (an
exchange of the undone steps is gone, so its buttons and its defense timeout are refused as no longer
open, and no new exchange ever takes its id); an exchange the undone steps moved on goes back to how it
was, at a step past any its buttons carried, so no button drawn for it, before or in the undone steps,
acts on it again.
"""

from __future__ import annotations

from datetime import datetime

from .document import Encounter
from .messages import carried_over
from .records import Exchange


def restored(earlier: Encounter, current: Encounter, *, now: datetime | None = None) -> Encounter:
    """``earlier`` (the fight some changes back, or the one an undo took back, for a redo) as the fight
    to save in place of ``current``.

    A defense that waits in ``earlier`` but not, at the same step, in ``current`` (the undone steps
    answered it, or the redone ones asked it) is asked again: at a step past any its buttons carried,
    with its whole timeout once more from ``now`` (its old deadline may be long past), and with no
    request message of its own yet (:func:`asked_again` says which to post). Any other exchange keeps
    the message ``current`` knows of it when ``earlier`` knew none: the id of a message is learnt after
    the change that sent it (bookkeeping, :mod:`bot.store.bookkeeping`), so a step kept before that
    may not know it, and the message is on the channel all the same (forgetting it would post the
    request a second time, and leave the message out of what an undo tells).
    """
    fight = earlier.model_copy(deep=True)
    fight.version = current.version
    fight.flow.step = max(earlier.flow.step, current.flow.step) + 1
    fight.next_exchange = max(earlier.next_exchange, current.next_exchange)
    fight.messages = carried_over(earlier, current)
    steps_now = {exchange.id: exchange.step for exchange in current.exchanges}
    messages_now = {exchange.id: exchange.message_id for exchange in current.exchanges}
    still_open = {(exchange.id, exchange.step) for exchange in current.exchanges if exchange.pending}
    for exchange in fight.exchanges:
        step = steps_now.get(exchange.id, exchange.step)
        if exchange.pending and (exchange.id, exchange.step) not in still_open:
            exchange.step = max(step, exchange.step) + 1
            _ask_again(exchange, now)
            continue
        if exchange.message_id is None:
            exchange.message_id = messages_now.get(exchange.id)
        if step != exchange.step:
            exchange.step = max(step, exchange.step) + 1
    return fight


def _ask_again(exchange: Exchange, now: datetime | None) -> None:
    if exchange.deadline is not None and now is not None:
        exchange.deadline = now + (exchange.deadline - exchange.asked_at)
    exchange.message_id = None


def asked_again(before: Encounter, after: Encounter) -> list[Exchange]:
    """The defenses an undo or a redo (``before`` → ``after``) left waiting whose request is not on the
    channel any more (:func:`restored` asked them again), so they are to be asked anew."""
    open_before = {(exchange.id, exchange.step) for exchange in before.exchanges if exchange.pending}
    return [e for e in after.exchanges if e.pending and (e.id, e.step) not in open_before]


def shown_again(before: Encounter, after: Encounter) -> list[Exchange]:
    """The exchanges of ``after`` (decided) whose message an undo or a redo (``before`` → ``after``)
    made theirs again, a message that said the defense was asked anew elsewhere: a redo of a defense
    whose undo had asked it again."""
    then = {exchange.id: exchange.message_id for exchange in before.exchanges}
    return [
        exchange
        for exchange in after.exchanges
        if not exchange.pending
        and exchange.message_id is not None
        and exchange.id in then
        and then[exchange.id] != exchange.message_id
    ]


def superseded(before: Encounter, after: Encounter) -> list[Exchange]:
    """The exchanges of ``before`` whose message (a request for a defense, or the result it became) an
    undo or a redo (``before`` → ``after``) made untrue: their attack was undone, their defense is
    asked anew, or their result stands again.
    Only those whose message is known (:attr:`Exchange.message_id`) can be told."""
    now = {exchange.id: exchange.step for exchange in after.exchanges}
    return [
        exchange
        for exchange in before.exchanges
        if exchange.message_id is not None and now.get(exchange.id) != exchange.step
    ]
