"""An undo of the running fight (/encounter undo): the fight as it was some changes back, made safe to
save as a new version.

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
from .records import Exchange


def restored(earlier: Encounter, current: Encounter, *, now: datetime | None = None) -> Encounter:
    """``earlier`` (the document ``steps`` changes back) as the fight to save in place of ``current``.

    A defense the undone steps answered is asked again: with a timeout, ``now`` gives it its whole time
    once more (its old deadline may be long past), and its request is to be posted anew, so the message
    it was asked in is no longer its own.
    """
    fight = earlier.model_copy(deep=True)
    fight.version = current.version
    fight.flow.step = max(earlier.flow.step, current.flow.step) + 1
    fight.next_exchange = max(earlier.next_exchange, current.next_exchange)
    moved_on = {exchange.id: exchange.step for exchange in current.exchanges}
    for exchange in fight.exchanges:
        step = moved_on.get(exchange.id)
        if step is not None and step != exchange.step:
            exchange.step = max(step, exchange.step) + 1
            if exchange.pending:
                _ask_again(exchange, now)
    return fight


def _ask_again(exchange: Exchange, now: datetime | None) -> None:
    if exchange.deadline is not None and now is not None:
        exchange.deadline = now + (exchange.deadline - exchange.asked_at)
    exchange.message_id = None


def asked_again(before: Encounter, after: Encounter) -> list[Exchange]:
    """The defenses an undo (``before`` → ``after``) left waiting whose request is not on the channel
    any more: answered in the undone steps, or dropped by them, so they are to be asked anew."""
    open_before = {(exchange.id, exchange.step) for exchange in before.exchanges if exchange.pending}
    return [e for e in after.exchanges if e.pending and (e.id, e.step) not in open_before]


def superseded(before: Encounter, after: Encounter) -> list[Exchange]:
    """The exchanges of ``before`` whose message (a request for a defense, or the result it became) an
    undo (``before`` → ``after``) made untrue: their attack was undone, or their defense is asked anew.
    Only those whose message is known (:attr:`Exchange.message_id`) can be told."""
    now = {exchange.id: exchange.step for exchange in after.exchanges}
    return [
        exchange
        for exchange in before.exchanges
        if exchange.message_id is not None and now.get(exchange.id) != exchange.step
    ]
