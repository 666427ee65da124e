"""What the running command has already committed, so that a failure after the commit is told as one.

A command's task sets :data:`committed` when its change is written (:meth:`bot.store.Store.change`);
the one error handler (:func:`bot.ui.errors.answer_failure`) reads it: a reply that Discord did not
take after the change was saved must say that it was saved (the user must not do it again), never
"nothing was changed". Each interaction runs in a task of its own, with a context of its own, so the
mark of one command never reaches another.
"""

from __future__ import annotations

from contextvars import ContextVar

committed: ContextVar[str | None] = ContextVar("pommel_committed", default=None)
"""The first log line of the change this task committed (or a plain "your change"); None before."""


def mark_committed(log: tuple[str, ...] | list[str] | None) -> None:
    """Remember, for this task, that its change is written, and how its log tells it."""
    committed.set(log[0] if log else "your change")
