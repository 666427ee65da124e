"""The store's transactions as plain steps, with no database in them: each ``yield``s its statements.

A transaction (in :mod:`bot.store.fights_sql`, :mod:`bot.store.log_sql`, :mod:`bot.store.guilds_sql`) is
a generator function: it ``yield``s a :class:`Sql`, receives what the statement gave (the rows, one row,
one value or the count of rows it changed, as its ``returns`` says), decides, ``yield``s the next, and
``return``s its value. So each transaction's steps and its SQL are written once, and a driver only runs
statements:

* SQLite (:mod:`bot.store.sqlite`) drives it synchronously with :func:`run_sqlite` on the connection's
  thread, inside the group commit's savepoint, in one round trip from the event loop;
* PostgreSQL (:mod:`bot.store.postgres`) drives it with ``await`` on an asyncpg connection inside
  ``connection.transaction()``; a change of a fight, with :func:`run_postgres_held`, under the fight's
  lock instead, in two round trips (see :class:`Routine`).

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
    holds: Sql | None = None
    """For a routine that takes the fight's lock of the session (PostgreSQL's change of a fight, see
    :func:`run_postgres_held`): the statement that releases it, which the driver sends when the steps end
    without the routine that releases it (a change refused, failed, or that wrote no fight)."""
    releases: bool = False
    """A routine that commits its own work, then releases the lock a ``holds`` routine took: the call
    cannot run inside a transaction (PostgreSQL's procedure commits), so one open runs ``steps``."""


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


def _sqlite_params(params: Sequence[Any]) -> list[Any]:
    return [value.isoformat() if isinstance(value, datetime) else value for value in params]


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


async def _run_statement(db: Any, sql: Sql) -> Any:
    """One statement on an asyncpg connection; what it gave, as ``sql.returns`` says."""
    if sql.many is not None:
        if sql.many:
            await db.executemany(sql.text, sql.many)
        return None
    match sql.returns:
        case "rows":
            return await db.fetch(sql.text, *sql.params)
        case "one":
            return await db.fetchrow(sql.text, *sql.params)
        case "value":
            return await db.fetchval(sql.text, *sql.params)
        case "count":
            # The command's status: "UPDATE 2", "DELETE 1", "INSERT 0 1".
            return int(str(await db.execute(sql.text, *sql.params)).rsplit(" ", 1)[-1])
        case "none":
            await db.execute(sql.text, *sql.params)
            return None


async def run_postgres(db: Any, steps: Steps[T]) -> T:
    """Run a transaction's (or a read's) statements on an asyncpg connection ``db`` as they come; what
    it returns. The transaction around it is the caller's: a routine of the fight's lock
    (:attr:`Routine.holds`, :attr:`Routine.releases`) runs as its plain steps, the transaction's row
    locks being lock enough."""
    result: Any = None
    try:
        while True:
            sql = steps.send(result)
            if isinstance(sql, Routine):
                if sql.holds is not None or sql.releases:
                    result = await run_postgres(db, sql.steps())
                else:
                    result = sql.read(await db.fetchrow(sql.call.text, *sql.call.params))
                continue
            result = await _run_statement(db, sql)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def run_postgres_held(db: Any, steps: Steps[T]) -> T:
    """Run a change of a fight on ``db`` in as few round trips as its routines allow, with no
    transaction around it: a routine that ``holds`` the fight's lock (a session advisory lock, so it
    outlives the statement) reads the fight, the change is worked out here, and a routine that
    ``releases`` it writes the fight, commits and lets go, two round trips in all. A plain statement
    opens a transaction (committed when the steps end, or rolled back), and a releasing routine met
    inside one runs its steps in it.

    The lock is released on every path: when the steps end (or raise) while it is held, the driver
    sends the holding routine's release after the transaction's end; if that fails, the connection is
    terminated (the server frees its session locks with it), so no connection goes back to the pool
    holding one. Held from the take's call on: a take that fails may have taken it first."""
    release: Sql | None = None
    transaction: Any = None
    try:
        result: Any = None
        try:
            while True:
                step = steps.send(result)
                if isinstance(step, Routine) and step.holds is not None:
                    release = step.holds
                    result = step.read(await db.fetchrow(step.call.text, *step.call.params))
                elif isinstance(step, Routine) and step.releases and transaction is None:
                    row = await db.fetchrow(step.call.text, *step.call.params)
                    release = None  # committed and let go by the call itself
                    result = step.read(row)
                else:
                    if transaction is None:
                        transaction = db.transaction()
                        await transaction.start()
                    if isinstance(step, Routine):
                        result = await run_postgres(db, _one(step))
                    else:
                        result = await _run_statement(db, step)
        except StopIteration as done:
            value: T = done.value
        if transaction is not None:
            transaction, started = None, transaction
            await started.commit()
        return value
    finally:
        try:
            if transaction is not None and not db.is_closed():
                await transaction.rollback()
            if release is not None and not db.is_closed():  # (a connection lost took its locks along)
                await db.execute(release.text, *release.params)
        except BaseException:
            db.terminate()
            raise


def _one(routine: Routine) -> Steps[Any]:
    """The routine alone as steps, for :func:`run_postgres` to run inside the transaction already open."""
    return (yield routine)
