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

from .document import Encounter


def restored(earlier: Encounter, current: Encounter) -> Encounter:
    """``earlier`` (the document ``steps`` changes back) as the fight to save in place of ``current``."""
    fight = earlier.model_copy(deep=True)
    fight.version = current.version
    fight.flow.step = max(earlier.flow.step, current.flow.step) + 1
    fight.next_exchange = max(earlier.next_exchange, current.next_exchange)
    moved_on = {exchange.id: exchange.step for exchange in current.exchanges}
    for exchange in fight.exchanges:
        now = moved_on.get(exchange.id)
        if now is not None and now != exchange.step:
            exchange.step = max(now, exchange.step) + 1
    return fight
