"""What an operation on an encounter returns: its result for the reply, and what it adds to the log.

Every operation of this package is plain work on the document it is given; the store runs it in one
transaction and writes the encounter and these log lines together (:meth:`bot.store.Store.change`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..rules.dice import D20Witness

Result = TypeVar("Result")

D20_KEY = "d20"
"""Where a fight's log line keeps the d20 faces its step rolled (attacks, defenses, morale, spirits), for
``/stats dice of:fight``; as ``/roll dice`` keeps its own."""


@dataclass(slots=True)
class Done(Generic[Result]):
    """An operation's result, and the log lines it adds to the encounter's log (in order)."""

    result: Result
    log: Sequence[str] = ()
    """Plain-text log lines; each becomes one log entry of ``kind``."""
    kind: str = "encounter"
    data: dict[str, object] = field(default_factory=dict)
    end: bool = False
    """True ends the encounter: it is deleted, and these log lines are its last."""
    repost: bool = False
    """True: after this change the fight's tracker is posted anew at the bottom of the channel (a turn, at
    a play-by-post table), instead of edited in place."""

    def rolled(self, witness: D20Witness) -> Done[Result]:
        """Keep the d20 faces the operation rolled (``witness`` saw them) in its log lines' data: every
        die rolled counts in ``/stats dice``, even when its step is undone later."""
        if witness.d20s:
            self.data = {**self.data, D20_KEY: list(witness.d20s)}
        return self
