"""Running one change of a channel's fight through the store: load, change, log, save, in one go.

Cogs hand :func:`update_fight` a plain function that changes the fight and says what happened; the
store runs it under the channel's lock and saves the fight and its log lines in one transaction
(retrying on a write from another process). A :class:`~bot.rules.errors.RulesError` raised by the
change leaves everything as it was.

The SQLite store runs the change on its database thread, between the read and the write of one
transaction, so a change must be plain work on the fight it is given: the rules core, the dice, the
catalog. It must not await, touch Discord or the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from .encounter import Encounter
from .permissions import require_fight
from .store import EncounterChange, LogEntry, Store

Result = TypeVar("Result")


@dataclass(slots=True)
class Outcome(Generic[Result]):
    """What a change returns: its result for the reply, and the lines it adds to the fight's log."""

    result: Result
    log: Sequence[str] = ()
    """Log lines, in order; each becomes one log entry of ``kind``."""
    kind: str = "encounter"
    data: dict[str, object] = field(default_factory=dict)
    end: bool = False
    """True ends the fight: it is deleted, and the log lines are its last."""


async def update_fight(
    store: Store,
    channel_id: int,
    user_id: int,
    change: Callable[[Encounter], Outcome[Result]],
) -> tuple[Encounter, Result]:
    """Apply ``change`` to the channel's fight and save it with its log lines, atomically.

    Returns the fight as saved (for an ended fight: as it was last) and the change's result. Raises
    :class:`~bot.permissions.NoFight` when the channel has no fight.
    """
    outcomes: list[tuple[Encounter, Outcome[Result]]] = []

    def apply(current: Encounter | None) -> EncounterChange:
        encounter = require_fight(current)
        outcome = change(encounter)
        outcomes.append((encounter, outcome))
        events = tuple(
            LogEntry(
                guild_id=encounter.guild_id,
                channel_id=channel_id,
                user_id=user_id,
                kind=outcome.kind,
                text=line,
                data=dict(outcome.data),
            )
            for line in outcome.log
        )
        return EncounterChange(None if outcome.end else encounter, events)

    saved = await store.update_encounter(channel_id, apply)
    encounter, outcome = outcomes[-1]
    return (saved if saved is not None else encounter), outcome.result
