"""The store in one SQLite file, through one aiosqlite connection.

The transactions themselves, and their SQL, are :class:`~bot.store.sql_store.SqlStore`'s, written once for
both stores (:mod:`bot.store.sql`); this driver runs them, and opens, locks and migrates the file.

Every transaction is one function run on aiosqlite's connection thread (:func:`~bot.store.sql.run_sqlite`
driving the transaction's statements as it yields them): ``BEGIN IMMEDIATE``, its
statements, ``COMMIT`` (or ``ROLLBACK`` when anything raises), in one round trip from the event loop.
That thread runs queued calls one at a time, in order, so a transaction can never interleave with
another coroutine's statements and a read never sees uncommitted writes, with no lock on the event
loop's side. (Statement by statement, a transaction cost three or more round trips, each waiting for a
turn of a busy event loop; that was most of a command's time in ``bench/latency.py``.)

Group commit: the changes queued while one COMMIT runs are written together, each in a ``SAVEPOINT`` of
one ``BEGIN IMMEDIATE ... COMMIT``, so many channels' changes share one fsync (a lone change, the usual
case, needs no savepoint). A change that raises rolls back to its savepoint alone; a COMMIT that fails
fails every change of the group. No caller hears of its change before the COMMIT that holds it has
returned (``synchronous=FULL``: after its fsync).

Transactions are explicit (``isolation_level=None``, so sqlite3 opens none of its own); IMMEDIATE takes
the write lock up front, so two processes on one file queue on ``busy_timeout`` instead of failing
half-way through.

The schema comes from numbered scripts ``migrations/NNNN_name.sqlite.sql``, recorded by name and
checksum in ``schema_migrations`` (:mod:`bot.store.schema`; ``PRAGMA user_version`` keeps the last
number, for older Pommels). Every pending script is applied in one transaction with its record, so a
failing script leaves the database exactly as it was.

Opening refuses what it must not run on, before changing anything: a file another Pommel process has
open (an exclusive ``flock`` on ``<database>.lock`` beside it, held while the store is open and gone with
the process however it ends; two processes would apply every action twice), and a damaged file or one
that is not a database (``PRAGMA quick_check``).

Every document is checked before it is written (:func:`~bot.store.documents.checked`), and a stored fight
that no longer reads is moved to ``set_aside_encounters`` when it is read, with a warning naming its
channel, so one bad document never stops the bot nor its channel.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from .errors import DatabaseDamaged, DatabaseInUse, DatabaseTooNew, MigrationFailed, StoreBusy
from .schema import (
    Migration,
    Plan,
    Recorded,
    bundled_migrations,
    check_numbering,
    legacy_sqlite,
    plan,
    told_of,
)
from .sql import Work, run_sqlite
from .sql_store import SqlStore

__all__ = ["Migration", "SqliteStore", "bundled_migrations", "check_numbering", "sql_statements"]

if sys.platform != "win32":
    import fcntl

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
"""How long a transaction waits for another process's write lock before failing."""
MEMORY = ":memory:"
GROUP_MOST = 32
"""Changes one group commit holds at most. A change's own work (a command's rules, its document read and
written) is a millisecond or two, the fsync about one: from a few changes on, the fsync is shared, and a
group of 32 is answered within some 50 ms, where a burst's hundreds at once would all wait for the last."""

T = TypeVar("T")


def sql_statements(script: str) -> list[str]:
    """Split a script into single statements for ``execute``.

    ``executescript`` would do it, but it commits first, which breaks the one-transaction migration.
    Cutting at every ``;`` is wrong too: a trigger's body has several, and so may a comment or a string.
    So pieces are joined until SQLite itself says the statement is complete.
    """
    statements = []
    pending = ""
    pieces = script.split(";")
    for piece in pieces[:-1]:
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if not _only_comments(pending):
                statements.append(pending.strip())
            pending = ""
    pending += pieces[-1]
    if not _only_comments(pending):
        raise ValueError(f"the script ends in an incomplete statement: {pending.strip()[:80]!r}")
    return statements


def _only_comments(sql: str) -> bool:
    """True for text with nothing to execute: blanks, ``;`` and ``--`` comments (block comments too)."""
    without_blocks = re.sub(r"/\*.*?\*/", "", sql, flags=re.DOTALL)
    without_lines = re.sub(r"--[^\n]*", "", without_blocks)
    return not without_lines.replace(";", "").strip()


RECORD_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER NOT NULL, name TEXT PRIMARY KEY,"
    " checksum TEXT NOT NULL, applied_at TEXT NOT NULL)"
)
"""The migrations applied, by name and checksum (see :mod:`bot.store.schema`)."""


def recorded_migrations(db: sqlite3.Connection, migrations: Sequence[Migration]) -> Plan:
    """What the database records of its migrations, against ``migrations``: its ``schema_migrations``,
    or a record by count (``PRAGMA user_version``, before there was one) read as the scripts it ran."""
    has_record = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if has_record:
        rows = db.execute(
            "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version"
        )
        return plan(migrations, [Recorded(*row) for row in rows])
    counted = int(db.execute("PRAGMA user_version").fetchone()[0])
    if counted == 0:
        return plan(migrations, [])
    has_log_d20 = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'log_d20'").fetchone() is not None
    history = {row[1] for row in db.execute("PRAGMA table_info(encounter_history)")}
    return plan(
        migrations,
        legacy_sqlite(counted, has_log_d20=has_log_d20, has_redo="undone_by" in history),
        adopted=True,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat()


class SqliteStore(SqlStore):
    """The :class:`Store` in one SQLite file (or ``":memory:"``). Make one with :meth:`open`."""

    def __init__(self, connection: aiosqlite.Connection, location: str, lock: int | None = None) -> None:
        super().__init__()
        self._db = connection
        self._reader: aiosqlite.Connection | None = None
        """Reads go through a connection (and a thread) of their own, so a write waiting for the file's
        write lock never holds up a read: WAL readers do not wait for writers. (None: reads share the
        writer, for ":memory:", whose every connection is a database of its own.)"""
        self._counter: aiosqlite.Connection | None = None
        """The long reads (:meth:`tally_d20`: up to half a second on a year of a busy server's rolls) have
        a connection and a thread of their own too, so the other commands' reads never queue behind one.
        (None: they share the reader, in memory.)"""
        self._location = location
        self._lock = lock
        self._closed = False
        self._queued: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        """Transactions waiting for the next group commit (see :meth:`_transaction`)."""
        self._committing: asyncio.Task[None] | None = None
        """The task that commits the queued transactions, group after group, while there are any."""

    @classmethod
    async def open(
        cls,
        path: Path | str,
        *,
        migrations: Sequence[Migration] | None = None,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        exclusive: bool = True,
    ) -> SqliteStore:
        """Open (or create) the database, check it, set it up and bring its schema up to date.

        ``migrations`` replaces the bundled scripts (for tests). Raises :class:`DatabaseInUse` when
        another store (another Pommel process) has the file open, :class:`DatabaseDamaged` when the file
        is damaged or not a database, and :class:`DatabaseTooNew` when the database was migrated further
        than these scripts go. ``exclusive=False`` takes no lock: for a test standing in for a writer
        from outside Pommel, which the compare-and-set still guards against.
        """
        location = str(path)
        lock = _lock_beside(location) if exclusive and location != MEMORY else None
        pending = aiosqlite.connect(location, isolation_level=None)
        try:
            connection = await pending
        except BaseException:
            _unlock(lock)
            # aiosqlite stops its thread without waiting for it; if the event loop closed first, the
            # thread would print a traceback ("Event loop is closed") under our one-line error.
            await asyncio.to_thread(pending._thread.join, 5)
            raise
        store = cls(connection, location, lock)
        try:
            try:
                await store._configure(busy_timeout_ms)
                await store._migrate(bundled_migrations() if migrations is None else migrations)
                if location != MEMORY:
                    store._reader = await _read_only(location, busy_timeout_ms)
                    store._counter = await _read_only(location, busy_timeout_ms)
            except sqlite3.DatabaseError as error:
                if not _is_damage(error):
                    raise
                raise DatabaseDamaged(location, str(error), not_a_database=_not_a_database(error)) from None
        except BaseException:
            await store.close()
            raise
        return store

    async def _configure(self, busy_timeout_ms: int) -> None:
        # First, so that switching the journal mode waits for another process instead of failing.
        await self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        # Before anything writes (the journal mode is kept in the file): a damaged file is left as it is.
        await self._check_integrity()
        # WAL: readers never block the writer nor the writer them, and a commit is one append.
        async with self._db.execute("PRAGMA journal_mode = WAL") as cursor:
            row = await cursor.fetchone()
        mode = row[0] if row else None
        if mode != "wal" and self._location != ":memory:":
            logger.warning(
                "SQLite refused WAL for %s (journal mode %s); writers will block readers", self, mode
            )
        # FULL, not NORMAL: in WAL mode NORMAL already survives a crash of the bot, but a commit can be
        # lost to a power cut or an OS crash. One fsync per group commit (a lone command's, or a burst's
        # shared) costs about a millisecond, and an acknowledged action survives those too.
        await self._db.execute("PRAGMA synchronous = FULL")
        await self._db.execute("PRAGMA foreign_keys = ON")

    async def _check_integrity(self) -> None:
        """``PRAGMA quick_check``: every page and b-tree of the file is sound (it skips only the check
        that indexes match their tables). About 10 ms (40 ms from a cold disk cache) for a 5.6 MB
        database of 10,000 log lines and 1,000 six-fighter fights, once per start."""
        found = [str(row[0]) for row in await self._db.execute_fetchall("PRAGMA quick_check")]
        if found != ["ok"]:
            lines = [line for row in found for line in row.splitlines() if not line.startswith("*** in")]
            first = lines[0] if lines else "no details"
            more = f" and {len(lines) - 1} more problems" if len(lines) > 1 else ""
            raise DatabaseDamaged(self._location, f"the check found: {first[:120]}{more}")

    async def _migrate(self, migrations: Sequence[Migration]) -> None:
        check_numbering(migrations)

        def migrate(db: sqlite3.Connection) -> Plan:
            # Read inside the transaction: two processes starting together cannot both apply a script.
            found = recorded_migrations(db, migrations)
            if found.unknown:
                known = migrations[-1].version if migrations else 0
                names = [entry.name for entry in found.unknown]
                raise DatabaseTooNew(self._location, found.found, known, names)
            db.execute(RECORD_TABLE)
            now = _now()
            if found.rewrite:
                db.execute("DELETE FROM schema_migrations")
                db.executemany(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                    [(m.version, m.name, m.checksum, entry.applied_at or now) for m, entry in found.applied],
                )
            for migration in found.pending:
                try:
                    for statement in sql_statements(migration.sql):
                        db.execute(statement)
                except sqlite3.Error as error:
                    if isinstance(error, sqlite3.DatabaseError) and _is_damage(error):
                        raise
                    raise MigrationFailed(self._location, migration.name, f"{error} (SQLite)") from error
                db.execute(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                    (migration.version, migration.name, migration.checksum, now),
                )
            if found.pending or found.rewrite:
                # Where Pommels before the record looked: they refuse a database numbered past theirs.
                last = max((m.version for m in [*found.pending, *(m for m, _ in found.applied)]), default=0)
                db.execute(f"PRAGMA user_version = {int(last)}")
            return found

        told_of(await self._transaction(migrate), str(self), logger)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            # The transactions already queued are committed (or fail) before the connections close.
            while self._committing is not None:
                await asyncio.shield(self._committing)
            # aiosqlite closes after the calls already queued, so a transaction in progress finishes first.
            for connection in (self._counter, self._reader, self._db):
                if connection is not None:
                    await connection.close()
                    # aiosqlite returns before its thread has ended; wait for it, so that nothing of the
                    # store keeps the process up once close() has returned.
                    await asyncio.to_thread(connection._thread.join, 5)
        finally:
            _unlock(self._lock)
            self._lock = None

    def __repr__(self) -> str:
        return f"SqliteStore({self._location!r})"

    # ------------------------------------------------------------------------------ transactions

    async def _transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` as one write transaction on the connection's thread, in the next group commit.

        Committed when ``work`` returns (with whatever else that commit holds), rolled back when it
        raises. A caller cancelled meanwhile does not stop it: the transaction still ends whole,
        committed or rolled back, never half-way.
        """
        self._check_open()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()
        self._queued.append((work, done))
        if self._committing is None:
            self._committing = loop.create_task(self._commit_queued())
        return await done

    async def _commit_queued(self) -> None:
        """Commit what is queued, in groups: one group while the one before it is being written."""
        try:
            while self._queued:
                group, self._queued = self._queued[:GROUP_MOST], self._queued[GROUP_MOST:]
                works = [work for work, _ in group]
                try:
                    # aiosqlite has no public call for "run this function on the connection's thread";
                    # _execute is how its own methods do it (aiosqlite is pinned exactly for this reason).
                    outcomes = await self._db._execute(_in_group, self._db._conn, works)  # type: ignore[no-untyped-call]
                except asyncio.CancelledError:
                    for _, done in group:
                        done.cancel()
                    raise
                except BaseException as error:  # BEGIN or COMMIT failed: nothing of the group was saved
                    outcomes = [(False, error)] * len(group)
                for (_, done), (committed, value) in zip(group, outcomes, strict=True):
                    if done.done():
                        continue  # its caller was cancelled; the transaction ended whole all the same
                    if committed:
                        done.set_result(value)
                    elif isinstance(value, sqlite3.OperationalError) and _is_busy(value):
                        busy = StoreBusy()
                        busy.__cause__ = value
                        done.set_exception(busy)
                    else:
                        done.set_exception(value)
        finally:
            self._committing = None

    async def _fetch_all(
        self, sql: str, parameters: Iterable[Any] = (), *, long: bool = False
    ) -> list[sqlite3.Row]:
        """A read: one call on the reader's thread (the writer's, in memory), so it never lands inside
        another's transaction and never waits behind a write; a ``long`` one on the counter's thread."""
        self._check_open()
        reader = self._counter if long and self._counter is not None else self._reader
        reader = reader if reader is not None else self._db
        return list(await reader.execute_fetchall(sql, tuple(parameters)))

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")

    async def _write(self, work: Work[T]) -> T:
        return await self._transaction(lambda db: run_sqlite(db, work()))

    async def _read(self, work: Work[T], *, long: bool = False) -> T:
        """A read: one call on the reader's thread (the writer's, in memory), so it never lands inside
        another's transaction and never waits behind a write; a ``long`` one on the counter's thread."""
        self._check_open()
        reader = self._counter if long and self._counter is not None else self._reader
        reader = reader if reader is not None else self._db
        # As in _commit_queued: aiosqlite's own way to run a function on its connection's thread.
        return await reader._execute(lambda: run_sqlite(reader._conn, work()))  # type: ignore[no-untyped-call,no-any-return]


# ---------------------------------------------------------------------------- on the connection's thread


def _is_busy(error: sqlite3.OperationalError) -> bool:
    """The write lock could not be had within ``busy_timeout`` (SQLITE_BUSY: "database is locked")."""
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY or "locked" in str(error)


def _in_group(
    db: sqlite3.Connection, works: Sequence[Callable[[sqlite3.Connection], Any]]
) -> list[tuple[bool, Any]]:
    """One write transaction holding ``works``, each in a savepoint of its own; for each, ``(True, what
    it returned)`` once committed, or ``(False, what it raised)`` (rolled back to its savepoint). A lone
    work needs no savepoint: its transaction is its own (:func:`_alone`)."""
    if len(works) == 1:
        return [_alone(db, works[0])]
    outcomes: list[tuple[bool, Any]] = []
    db.execute("BEGIN IMMEDIATE")
    try:
        for work in works:
            db.execute("SAVEPOINT change")
            try:
                outcomes.append((True, work(db)))
            except Exception as error:
                db.execute("ROLLBACK TO change")
                outcomes.append((False, error))
            db.execute("RELEASE change")
        db.execute("COMMIT")
    except BaseException:
        # rollback() does nothing when no transaction is open (COMMIT failed after ending it).
        db.rollback()
        raise
    return outcomes


def _alone(db: sqlite3.Connection, work: Callable[[sqlite3.Connection], Any]) -> tuple[bool, Any]:
    """One work in a write transaction of its own: ``(True, what it returned)`` once committed, or
    ``(False, what it raised)``, rolled back whole (as its savepoint would be, in a group: two
    statements fewer per change)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        try:
            value = work(db)
        except Exception as error:
            db.rollback()  # (nothing to do when a failed statement already ended the transaction)
            return (False, error)
        db.execute("COMMIT")
    except BaseException:
        db.rollback()
        raise
    return (True, value)


# ---------------------------------------------------------------------------- opening


async def _read_only(location: str, busy_timeout_ms: int) -> aiosqlite.Connection:
    """A connection of its own (and so a thread) for reads only."""
    connection = await aiosqlite.connect(location, isolation_level=None)
    await connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    await connection.execute("PRAGMA query_only = ON")
    return connection


def _lock_beside(location: str) -> int | None:
    """Take the exclusive lock on ``<database>.lock`` beside the database; returns its descriptor.

    ``flock`` belongs to the open file, so the lock ends when the store closes it or the process ends,
    however it ends; the file itself stays (removing it would race with another process opening it) and
    holds the pid of the last process that took it, for the refusal to name. Raises
    :class:`DatabaseInUse` when another store has the lock, in this process or another.
    """
    if sys.platform == "win32":  # no flock there: no lock
        return None
    lock_path = f"{Path(location).resolve()}.lock"
    descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip()
        os.close(descriptor)
        raise DatabaseInUse(location, int(holder) if holder.isdigit() else None) from None
    except BaseException:
        os.close(descriptor)
        raise
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return descriptor


def _unlock(lock: int | None) -> None:
    if lock is not None:
        os.close(lock)  # closing the file ends its flock


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    """SQLite found the file damaged ("malformed") or not a database at all."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _not_a_database(error: sqlite3.DatabaseError) -> bool:
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_NOTADB
