"""The store's transactions as plain steps, with no database in them: each ``yield``s its statements.

A transaction (in :mod:`bot.store.fights_sql`, :mod:`bot.store.log_sql`, :mod:`bot.store.guilds_sql`) is
a generator function: it ``yield``s a :class:`Sql`, receives what the statement gave (the rows, one row,
one value or the count of rows it changed, as its ``returns`` says), decides, ``yield``s the next, and
``return``s its value. So each transaction's steps and its SQL are written once, and a driver only runs
statements:

* SQLite (:mod:`bot.store.sqlite`) drives it synchronously with :func:`run_sqlite` on the connection's
  thread, inside the group commit's savepoint, in one round trip from the event loop;
* PostgreSQL (:mod:`bot.store.postgres`) drives it with ``await`` on an asyncpg connection inside
  ``connection.transaction()``.

The SQL is written in PostgreSQL's style (``$1``, ``FOR UPDATE``, ``COLLATE "C"``, ``RETURNING``,
``ON CONFLICT``, ``FILTER``), which SQLite (3.35 or later) reads once :func:`sqlite_text` has made each
``$n`` its ``?n`` and taken away what SQLite has no use for: ``FOR UPDATE`` (``BEGIN IMMEDIATE`` has the
whole file locked already) and ``COLLATE "C"`` (SQLite's own order is by code point). A moment
(``datetime``) is a ``timestamptz`` to PostgreSQL and ISO text to SQLite: the SQLite driver writes a
``datetime`` parameter as ``isoformat()``, and :func:`moment` reads either back.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal, TypeVar

T = TypeVar("T")

Returns = Literal["none", "rows", "one", "value", "count"]


@dataclass(frozen=True, slots=True)
class Sql:
    """One statement of a transaction, and what the transaction wants back from it: ``rows`` (a list,
    each row indexable by column), ``one`` (the first row, or None), ``value`` (the first column of the
    first row, or None), ``count`` (the rows it changed) or ``none``. With ``many``, the statement runs
    once per parameter tuple of it (``params`` unused) and gives nothing back."""

    text: str
    params: Sequence[Any] = ()
    returns: Returns = "none"
    many: Sequence[Sequence[Any]] | None = None


@dataclass(frozen=True, slots=True)
class Routine:
    """Several statements of a transaction that PostgreSQL runs as one call of a function of its schema
    (one round trip instead of one per statement, see migration 0011): every other dialect runs
    ``steps`` (the statements as written for all), PostgreSQL runs ``call`` and gives its one row to
    ``read``, which returns what ``steps`` would (or raises what they would)."""

    steps: Callable[[], Steps[Any]]
    call: Sql
    read: Callable[[Any], Any]


Steps = Generator["Sql | Routine", Any, T]
"""A transaction (or a read): its statements yielded, its value returned."""

Work = Callable[[], Steps[T]]
"""What a driver is given: makes the transaction's steps afresh, on the thread (or connection) that runs
them."""


def moment(value: str | datetime) -> datetime:
    """A stored moment, as PostgreSQL gives it (a ``datetime``) or SQLite (ISO text)."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def placeholders(first: int, count: int) -> str:
    """``$first, $first+1, ...``: ``count`` parameters in a row, for an ``IN (...)`` or a ``VALUES``."""
    return ", ".join(f"${n}" for n in range(first, first + count))


# ---------------------------------------------------------------------------- SQLite


_PARAMETER = re.compile(r"\$(\d+)")


@lru_cache(maxsize=512)
def sqlite_text(text: str) -> str:
    """The statement as SQLite reads it (see the module's docstring). Cached: a statement's text is
    translated once."""
    text = text.replace(" FOR UPDATE", "").replace(' COLLATE "C"', "")
    return _PARAMETER.sub(r"?\1", text)


def _sqlite_params(params: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(value.isoformat() if isinstance(value, datetime) else value for value in params)


def run_sqlite(db: sqlite3.Connection, steps: Steps[T]) -> T:
    """Run a transaction's (or a read's) statements on ``db`` as they come, on the connection's thread;
    what it returns. The transaction around it is the caller's."""
    result: Any = None
    try:
        while True:
            sql = steps.send(result)
            if isinstance(sql, Routine):
                result = run_sqlite(db, sql.steps())
                continue
            text = sqlite_text(sql.text)
            if sql.many is not None:
                db.executemany(text, [_sqlite_params(params) for params in sql.many])
                result = None
                continue
            cursor = db.execute(text, _sqlite_params(sql.params))
            match sql.returns:
                case "rows":
                    result = cursor.fetchall()
                case "one":
                    result = cursor.fetchone()
                    cursor.fetchall()  # the rest of a RETURNING, so that the statement completes
                case "value":
                    row = cursor.fetchone()
                    cursor.fetchall()
                    result = None if row is None else row[0]
                case "count":
                    result = cursor.rowcount
                case "none":
                    result = None
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- PostgreSQL


async def run_postgres(db: Any, steps: Steps[T]) -> T:
    """Run a transaction's (or a read's) statements on an asyncpg connection ``db`` as they come; what
    it returns. The transaction around it is the caller's."""
    result: Any = None
    try:
        while True:
            sql = steps.send(result)
            if isinstance(sql, Routine):
                result = sql.read(await db.fetchrow(sql.call.text, *sql.call.params))
                continue
            if sql.many is not None:
                if sql.many:
                    await db.executemany(sql.text, sql.many)
                result = None
                continue
            match sql.returns:
                case "rows":
                    result = await db.fetch(sql.text, *sql.params)
                case "one":
                    result = await db.fetchrow(sql.text, *sql.params)
                case "value":
                    result = await db.fetchval(sql.text, *sql.params)
                case "count":
                    # The command's status: "UPDATE 2", "DELETE 1", "INSERT 0 1".
                    result = int(str(await db.execute(sql.text, *sql.params)).rsplit(" ", 1)[-1])
                case "none":
                    await db.execute(sql.text, *sql.params)
                    result = None
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
