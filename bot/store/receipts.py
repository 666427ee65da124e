"""What the running command has already committed, so that a failure after the commit is told as one.

A command's task sets :data:`committed` when its change is written (:meth:`bot.store.Store.change`);
the one error handler (:func:`bot.error_replies.answer_failure`) reads it: a reply that Discord did not
take after the change was saved must say that it was saved (the user must not do it again), never
"nothing was changed". Each interaction runs in a task of its own, with a context of its own, so the
mark of one command never reaches another.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Literal

Record = Literal["fight", "roll"]
"""Where a committed change can be read again: a fight's (its tracker and log), or the server's rolls."""

committed: ContextVar[str | None] = ContextVar("pommel_committed", default=None)
"""The first log line of the change this task committed (or a plain "your change"); None before."""
committed_to: ContextVar[Record] = ContextVar("pommel_committed_to", default="fight")
"""Where the change this task committed is kept (:data:`Record`)."""


def mark_committed(log: tuple[str, ...] | list[str] | None, *, to: Record = "fight") -> None:
    """Remember, for this task, that its change is written, how its log tells it, and where it is kept."""
    committed.set(log[0] if log else "your change")
    committed_to.set(to)
