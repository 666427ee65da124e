"""The store in one SQLite file, through one aiosqlite connection.

Every transaction is one function run on aiosqlite's connection thread: ``BEGIN IMMEDIATE``, its
statements, ``COMMIT`` (or ``ROLLBACK`` when anything raises), in one round trip from the event loop.
That thread runs queued calls one at a time, in order, so a transaction can never interleave with
another coroutine's statements and a read never sees uncommitted writes, with no lock on the event
loop's side. (Statement by statement, a transaction cost three or more round trips, each waiting for a
turn of a busy event loop; that was most of a command's time in ``bench/latency.py``.)

Group commit: the changes queued while one COMMIT runs are written together, each in a ``SAVEPOINT`` of
one ``BEGIN IMMEDIATE ... COMMIT``, so many channels' changes share one fsync. A change that raises rolls
back to its savepoint alone; a COMMIT that fails fails every change of the group. No caller hears of its
change before the COMMIT that holds it has returned (``synchronous=FULL``: after its fsync).

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
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from pydantic import JsonValue, TypeAdapter

from ..characters import Character, name_key
from ..encounter.document import Encounter
from ..events import FightChanged, announce
from ..guild_settings import GuildSettings
from .base import (
    ENDED_KEPT,
    HISTORY_KEPT,
    CharacterTaken,
    DatabaseDamaged,
    DatabaseInUse,
    DatabaseTooNew,
    DiceTally,
    EncounterChange,
    EndedEncounter,
    EndedGone,
    ForgottenGuild,
    HistoryStep,
    LogEntry,
    MigrationFailed,
    NothingToRedo,
    NothingToUndo,
    Redoable,
    SetAsideFight,
    SetAsideGone,
    StaleCharacter,
    StaleEncounter,
    StoreBusy,
)
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
from .shared import (
    FORGET_GUILD_COUNTED,
    FORGET_GUILD_FIRST,
    FORGET_GUILD_LOG,
    DocumentStore,
    Unreadable,
    character_document,
    character_from,
    characters_from,
    check_page,
    checked_change,
    past_fight,
    readable_fight,
    refuse_newer_settings,
    settings_document,
    settings_from,
    step_user,
    undone_fight,
)

__all__ = ["Migration", "SqliteStore", "bundled_migrations", "check_numbering", "sql_statements"]

if sys.platform != "win32":
    import fcntl

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
"""How long a transaction waits for another process's write lock before failing."""
MEMORY = ":memory:"
FIGHTS_READ_AHEAD = 64
"""Channels whose fight, as its last change here wrote it, is kept parsed for the next change, so that
change skips reading the document it finds (the last 64 channels changed: about 3 MB for fights of eight
fighters; an idle server's channels leave it as others are changed)."""
GROUP_MOST = 32
"""Changes one group commit holds at most. A change's own work (a command's rules, its document read and
written) is a millisecond or two, the fsync about one: from a few changes on, the fsync is shared, and a
group of 32 is answered within some 50 ms, where a burst's hundreds at once would all wait for the last."""

_LOG_DATA: TypeAdapter[dict[str, JsonValue]] = TypeAdapter(dict[str, JsonValue])

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


class SqliteStore(DocumentStore):
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
        self._read_ahead: OrderedDict[int, tuple[int, str, Encounter]] = OrderedDict()
        """:data:`FIGHTS_READ_AHEAD`: channel -> (version, document, the fight read from that document in
        the check before it was written). Used on the connection's thread only, inside the transaction
        that finds that very version and document stored; a fight taken from it is the change's own."""

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

    # ------------------------------------------------------------------------------ fights

    async def _stored_fight(self, channel_id: int) -> tuple[int, str] | None:
        rows = await self._fetch_all(
            "SELECT version, document FROM encounters WHERE channel_id = ?", (channel_id,)
        )
        return (int(rows[0][0]), rows[0][1]) if rows else None

    async def fight_channels(self) -> list[int]:
        return [int(row[0]) for row in await self._fetch_all("SELECT channel_id FROM encounters")]

    async def _save_fight(self, encounter: Encounter, document: str, events: Sequence[LogEntry]) -> None:
        rows = _log_rows(events)
        await self._transaction(lambda db: _write_fight(db, encounter, document, rows))

    async def delete_encounter(self, encounter: Encounter, *, events: Sequence[LogEntry] = ()) -> None:
        rows = _log_rows(events)
        await self._transaction(lambda db: _delete_fight(db, encounter, rows))

    async def update_encounter(
        self,
        channel_id: int,
        change: Callable[[Encounter | None], EncounterChange],
        *,
        attempts: int = 3,
    ) -> Encounter | None:
        """The read, the change and the write in one transaction, in one round trip to the database.

        ``change`` runs on the connection's thread inside ``BEGIN IMMEDIATE``, which holds the file's
        write lock from the read to the commit: no other process can write in between, so ``change``
        runs exactly once and ``attempts`` is never needed. (The change is the rules core's work: pure
        Python that touches nothing of the event loop's.)
        """
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")

        def work(db: sqlite3.Connection) -> Encounter | None:
            row = db.execute(
                "SELECT version, document FROM encounters WHERE channel_id = ?", (channel_id,)
            ).fetchone()
            current = None if row is None else self._stored_as_read(channel_id, int(row[0]), row[1])
            wanted = change(current)
            rows = _log_rows(wanted.events)
            wanted_fight = checked_change(channel_id, wanted)
            if wanted.encounter is not None and wanted_fight is not None:
                document, read_back = wanted_fight
                log_ids = _write_fight(db, wanted.encounter, document, rows)
                self._read_ahead[channel_id] = (wanted.encounter.version + 1, document, read_back)
                if len(self._read_ahead) > FIGHTS_READ_AHEAD:
                    self._read_ahead.popitem(last=False)
                # A change that logs nothing (a message id kept, a reminder marked) is bookkeeping, not
                # a step of the fight: an undo of the step before it takes it back too.
                if row is not None and log_ids and wanted.encounter.version == int(row[0]):
                    _keep_step(db, channel_id, int(row[0]), row[1], step_user(wanted), log_ids)
                # The fight the change made was read inside this call and is nobody else's: it is
                # returned as saved (with its new version) instead of read back from its JSON.
                return wanted.encounter.model_copy(update={"version": wanted.encounter.version + 1})
            if current is not None:
                _delete_fight(db, current, rows)
            else:
                _insert_log(db, rows)
            return None

        async with self.lock(channel_id):
            while True:
                try:
                    return await self._transaction(work)
                except Unreadable as unreadable:
                    # Rolled back; set aside in a transaction of its own, so it stays set aside whatever
                    # the change then does with no fight (a command refusing with NoFight, say).
                    await self._set_aside(channel_id, unreadable)

    def _stored_as_read(self, channel_id: int, version: int, document: str) -> Encounter:
        """The stored fight (``version``, ``document``) for a change to make its own: the one read ahead
        when it is that very version and document (no other write came between), else read now. On the
        connection's thread. The fight read ahead is taken out, and put back only by a write."""
        ahead = self._read_ahead.pop(channel_id, None)
        if ahead is not None and ahead[0] == version and ahead[1] == document:
            return ahead[2].model_copy(update={"version": version})
        return readable_fight(version, document)

    async def _move_aside(self, unreadable: Unreadable, channel_id: int) -> int | None:
        document = unreadable.document
        row = (unreadable.gm_id, unreadable.reason, _now(), channel_id, unreadable.version, document)

        def move(db: sqlite3.Connection) -> int | None:
            cursor = db.execute(
                "INSERT INTO set_aside_encounters"
                " (channel_id, guild_id, gm_id, version, document, reason, set_aside_at)"
                " SELECT channel_id, guild_id, ?, version, document, ?, ? FROM encounters"
                " WHERE channel_id = ? AND version = ? AND document = ?",
                row,
            )
            if cursor.rowcount != 1:
                return None  # set aside by another, or written anew meanwhile
            db.execute("DELETE FROM encounters WHERE channel_id = ? AND version = ?", row[3:5])
            return cursor.lastrowid

        return await self._transaction(move)

    # ------------------------------------------------------------------------------ ended fights

    async def ended_encounters(self, channel_id: int, limit: int = ENDED_KEPT) -> list[EndedEncounter]:
        rows = await self._fetch_all(
            f"SELECT {_ENDED_COLUMNS} FROM ended_encounters WHERE channel_id = ? ORDER BY id DESC LIMIT ?",
            (channel_id, limit),
        )
        return [_ended(row) for row in rows]

    async def _ended_document(self, ended_id: int) -> tuple[EndedEncounter, str] | None:
        rows = await self._fetch_all(
            f"SELECT {_ENDED_COLUMNS}, document FROM ended_encounters WHERE id = ?", (ended_id,)
        )
        return (_ended(rows[0]), rows[0][-1]) if rows else None

    async def _reopen(self, ended: EndedEncounter, events: Sequence[LogEntry]) -> str:
        rows = _log_rows(events)
        version = ended.version + 1

        def reopen(db: sqlite3.Connection) -> str:
            kept = db.execute("SELECT document FROM ended_encounters WHERE id = ?", (ended.id,)).fetchone()
            if kept is None:
                raise EndedGone()
            cursor = db.execute(
                "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel_id) DO NOTHING",
                (ended.channel_id, ended.guild_id, version, kept[0], _now()),
            )
            if cursor.rowcount != 1:
                running = db.execute(
                    "SELECT version FROM encounters WHERE channel_id = ?", (ended.channel_id,)
                ).fetchone()
                raise StaleEncounter(ended.channel_id, 0, None if running is None else int(running[0]))
            db.execute("DELETE FROM ended_encounters WHERE id = ?", (ended.id,))
            _insert_log(db, rows)
            return str(kept[0])

        return await self._transaction(reopen)

    # ---------------------------------------------------------------------- the running fight's history

    async def history(self, channel_id: int, steps: int = HISTORY_KEPT) -> list[HistoryStep]:
        rows = await self._fetch_all(
            "SELECT version, user_id, at, first_log_id, last_log_id FROM encounter_history"
            " WHERE channel_id = ? AND undone_by IS NULL ORDER BY id DESC LIMIT ?",
            (channel_id, steps),
        )
        return await self._with_lines(channel_id, rows)

    async def redoable(self, channel_id: int) -> Redoable | None:
        rows = await self._fetch_all(
            "SELECT version, user_id, at, first_log_id, last_log_id, undone_by FROM encounter_history"
            " WHERE undone_by = (SELECT max(undo_log_id) FROM encounter_undos WHERE channel_id = ?)"
            " ORDER BY id DESC",
            (channel_id,),
        )
        if not rows:
            return None
        return Redoable(int(rows[0][5]), await self._with_lines(channel_id, rows))

    async def _with_lines(
        self, channel_id: int, rows: Sequence[sqlite3.Row | tuple[Any, ...]]
    ) -> list[HistoryStep]:
        lines = await self._fetch_all(
            "SELECT id, text FROM log WHERE channel_id = ? AND id BETWEEN ? AND ? ORDER BY id",
            (channel_id, min((r[3] for r in rows), default=0), max((r[4] for r in rows), default=0)),
        )
        return [_step(row, lines) for row in rows]

    async def undo(
        self,
        channel_id: int,
        steps: int,
        expected_version: int,
        restore: Callable[[Encounter, Encounter], Encounter],
        line: Callable[[Sequence[HistoryStep]], LogEntry],
    ) -> tuple[Encounter, list[HistoryStep]]:
        if steps < 1:
            raise ValueError(f"an undo takes back at least one step, not {steps}")

        def work(db: sqlite3.Connection) -> tuple[Encounter, list[HistoryStep]]:
            stored = db.execute(
                "SELECT version, document FROM encounters WHERE channel_id = ?", (channel_id,)
            ).fetchone()
            if stored is None or int(stored[0]) != expected_version:
                raise StaleEncounter(channel_id, expected_version, None if stored is None else int(stored[0]))
            current = readable_fight(int(stored[0]), stored[1])
            kept = db.execute(
                "SELECT version, user_id, at, first_log_id, last_log_id, id, document FROM encounter_history"
                " WHERE channel_id = ? AND undone_by IS NULL ORDER BY id DESC LIMIT ?",
                (channel_id, steps),
            ).fetchall()
            if len(kept) < steps:
                raise NothingToUndo(len(kept))
            first, last = min(r[3] for r in kept), max(r[4] for r in kept)
            lines = db.execute(
                "SELECT id, text FROM log WHERE channel_id = ? AND id BETWEEN ? AND ? ORDER BY id",
                (channel_id, first, last),
            ).fetchall()
            undone = [_step(r, lines) for r in kept]
            earlier = past_fight(int(kept[-1][0]), kept[-1][6])
            fight, document, saved = undone_fight(restore, earlier, current)
            (undo_id,) = _write_fight(db, fight, document, _log_rows([line(undone)]))
            db.executemany(
                "INSERT INTO log_undone (log_id, undo_log_id) SELECT id, ? FROM log"
                " WHERE channel_id = ? AND id BETWEEN ? AND ? AND id NOT IN (SELECT log_id FROM log_undone)",
                [(undo_id, channel_id, r[3], r[4]) for r in kept if r[3]],
            )
            db.execute(
                f"UPDATE encounter_history SET undone_by = ? WHERE id IN ({', '.join('?' for _ in kept)})",
                [undo_id, *(r[5] for r in kept)],
            )
            db.execute(
                "INSERT INTO encounter_undos (undo_log_id, channel_id, version, document)"
                " VALUES (?, ?, ?, ?)",
                (undo_id, channel_id, int(stored[0]), stored[1]),
            )
            return saved, undone

        async with self.lock(channel_id):
            saved, undone = await self._transaction(work)
        announce(FightChanged(saved))
        return saved, undone

    async def redo(
        self,
        channel_id: int,
        undo_id: int,
        restore: Callable[[Encounter, Encounter], Encounter],
        line: Callable[[Sequence[HistoryStep]], LogEntry],
    ) -> tuple[Encounter, list[HistoryStep]]:
        def work(db: sqlite3.Connection) -> tuple[Encounter, list[HistoryStep]]:
            stored = db.execute(
                "SELECT version, document FROM encounters WHERE channel_id = ?", (channel_id,)
            ).fetchone()
            undo = db.execute(
                "SELECT undo_log_id, version, document FROM encounter_undos WHERE channel_id = ?"
                " ORDER BY undo_log_id DESC LIMIT 1",
                (channel_id,),
            ).fetchone()
            if stored is None or undo is None or int(undo[0]) != undo_id:
                raise NothingToRedo()
            current = readable_fight(int(stored[0]), stored[1])
            kept = db.execute(
                "SELECT version, user_id, at, first_log_id, last_log_id FROM encounter_history"
                " WHERE undone_by = ? ORDER BY id DESC",
                (undo_id,),
            ).fetchall()
            lines = db.execute(
                "SELECT id, text FROM log WHERE channel_id = ? AND id BETWEEN ? AND ? ORDER BY id",
                (channel_id, min((r[3] for r in kept), default=0), max((r[4] for r in kept), default=0)),
            ).fetchall()
            redone = [_step(r, lines) for r in kept]
            later = past_fight(int(undo[1]), undo[2])
            fight, document, saved = undone_fight(restore, later, current)
            _write_fight(db, fight, document, _log_rows([line(redone)]))
            db.execute("UPDATE encounter_history SET undone_by = NULL WHERE undone_by = ?", (undo_id,))
            db.execute("DELETE FROM log_undone WHERE undo_log_id = ?", (undo_id,))
            db.execute("DELETE FROM encounter_undos WHERE undo_log_id = ?", (undo_id,))
            return saved, redone

        async with self.lock(channel_id):
            saved, redone = await self._transaction(work)
        announce(FightChanged(saved))
        return saved, redone

    async def set_aside_fight(self, channel_id: int) -> tuple[SetAsideFight, str] | None:
        rows = await self._fetch_all(
            "SELECT id, channel_id, guild_id, gm_id, version, reason, set_aside_at, acknowledged_at, document"
            " FROM set_aside_encounters WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
            (channel_id,),
        )
        if not rows:
            return None
        id_, channel, guild_id, gm_id, version, reason, at, acknowledged, document = rows[0]
        kept = SetAsideFight(
            id=id_,
            channel_id=channel,
            guild_id=guild_id,
            gm_id=gm_id,
            version=version,
            reason=reason,
            set_aside_at=datetime.fromisoformat(at),
            acknowledged=acknowledged is not None,
        )
        return kept, document

    async def _restore_aside(
        self, set_aside_id: int, encounter: Encounter, document: str, events: Sequence[LogEntry]
    ) -> None:
        rows = _log_rows(events)

        def restore(db: sqlite3.Connection) -> None:
            _write_fight(db, encounter, document, rows)
            if db.execute("DELETE FROM set_aside_encounters WHERE id = ?", (set_aside_id,)).rowcount != 1:
                raise SetAsideGone()

        await self._transaction(restore)

    async def pending_set_aside(self, channel_id: int) -> SetAsideFight | None:
        rows = await self._fetch_all(
            "SELECT id, channel_id, guild_id, gm_id, version, reason, set_aside_at, acknowledged_at"
            " FROM set_aside_encounters WHERE channel_id = ? AND acknowledged_at IS NULL"
            " ORDER BY id DESC LIMIT 1",
            (channel_id,),
        )
        if not rows:
            return None
        id_, channel, guild_id, gm_id, version, reason, at, acknowledged = rows[0]
        return SetAsideFight(
            id=id_,
            channel_id=channel,
            guild_id=guild_id,
            gm_id=gm_id,
            version=version,
            reason=reason,
            set_aside_at=datetime.fromisoformat(at),
            acknowledged=acknowledged is not None,
        )

    async def acknowledge_set_aside(self, set_aside_id: int) -> bool:
        # The channel was told of this one: the older ones of the channel need no telling either.
        acknowledged = await self._transaction(
            lambda db: (
                db.execute(
                    "UPDATE set_aside_encounters SET acknowledged_at = ? WHERE acknowledged_at IS NULL AND"
                    " id <= ? AND channel_id = (SELECT channel_id FROM set_aside_encounters WHERE id = ?)",
                    (_now(), set_aside_id, set_aside_id),
                ).rowcount
            )
        )
        return acknowledged > 0

    # ------------------------------------------------------------------------------ the log

    async def append_logs(self, entries: Sequence[LogEntry]) -> list[LogEntry]:
        rows = _log_rows(entries)
        ids = await self._transaction(lambda db: _insert_log(db, rows))
        return [entry.model_copy(update={"id": id_}) for entry, id_ in zip(entries, ids, strict=True)]

    async def read_log(
        self,
        *,
        channel_id: int | None = None,
        guild_id: int | None = None,
        after_id: int = 0,
        limit: int = 100,
    ) -> list[LogEntry]:
        check_page(limit)
        conditions = ["id > ?"]
        parameters: list[Any] = [after_id]
        if channel_id is not None:
            conditions.append("channel_id = ?")
            parameters.append(channel_id)
        if guild_id is not None:
            conditions.append("guild_id = ?")
            parameters.append(guild_id)
        parameters.append(limit)
        rows = await self._fetch_all(
            f"SELECT {_LOG_COLUMNS} FROM log WHERE {' AND '.join(conditions)} ORDER BY id LIMIT ?",
            parameters,
        )
        return [_log_entry(row) for row in rows]

    # ------------------------------------------------------------------------------ characters

    async def save_character(
        self, guild_id: int, user_id: int, character: Character, *, replacing: str | None = None
    ) -> None:
        row = (guild_id, user_id, character.key, character_document(character), _now())
        old_key = name_key(replacing) if replacing is not None else None

        def save(db: sqlite3.Connection) -> None:
            if old_key is not None and old_key != character.key:
                db.execute(
                    "DELETE FROM characters WHERE guild_id = ? AND user_id = ? AND name_key = ?",
                    (guild_id, user_id, old_key),
                )
            db.execute(
                "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id, name_key)"
                " DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at",
                row,
            )

        await self._transaction(save)

    async def create_character(self, guild_id: int, user_id: int, character: Character) -> None:
        row = (guild_id, user_id, character.key, character_document(character), _now())

        def create(db: sqlite3.Connection) -> None:
            cursor = db.execute(
                "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id, name_key) DO NOTHING",
                row,
            )
            if cursor.rowcount != 1:
                taken = _stored_character(db, guild_id, user_id, character.key)
                raise CharacterTaken(taken.name if taken is not None else character.name)

        await self._transaction(create)

    async def replace_character(
        self, guild_id: int, user_id: int, before: Character, after: Character
    ) -> None:
        document = character_document(after)

        def replace(db: sqlite3.Connection) -> None:
            # Compared as models, not as JSON text: a document written before a field with a default was
            # added reads back equal to what the caller loaded, while its text differs from a new dump.
            stored = _stored_character(db, guild_id, user_id, before.key)
            if stored != before:
                raise StaleCharacter(before.name, deleted=stored is None)
            if after.key != before.key:
                taken = _stored_character(db, guild_id, user_id, after.key)
                if taken is not None:
                    raise CharacterTaken(taken.name)
                db.execute(
                    "DELETE FROM characters WHERE guild_id = ? AND user_id = ? AND name_key = ?",
                    (guild_id, user_id, before.key),
                )
                db.execute(
                    "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (guild_id, user_id, after.key, document, _now()),
                )
            else:
                db.execute(
                    "UPDATE characters SET document = ?, updated_at = ?"
                    " WHERE guild_id = ? AND user_id = ? AND name_key = ?",
                    (document, _now(), guild_id, user_id, before.key),
                )

        await self._transaction(replace)

    async def character(self, guild_id: int, user_id: int, name: str) -> Character | None:
        rows = await self._fetch_all(
            "SELECT document FROM characters WHERE guild_id = ? AND user_id = ? AND name_key = ?",
            (guild_id, user_id, name_key(name)),
        )
        return character_from(rows[0][0], name) if rows else None

    async def characters(self, guild_id: int, user_id: int) -> list[Character]:
        rows = await self._fetch_all(
            "SELECT document FROM characters WHERE guild_id = ? AND user_id = ? ORDER BY name_key",
            (guild_id, user_id),
        )
        return characters_from([row[0] for row in rows], guild_id, user_id)

    async def delete_character(self, guild_id: int, user_id: int, name: str) -> bool:
        key = (guild_id, user_id, name_key(name))
        deleted = await self._transaction(
            lambda db: (
                db.execute(
                    "DELETE FROM characters WHERE guild_id = ? AND user_id = ? AND name_key = ?", key
                ).rowcount
            )
        )
        return deleted == 1

    # ------------------------------------------------------------------------------ guild settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        rows = await self._fetch_all("SELECT document FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if not rows:
            return GuildSettings(guild_id=guild_id)
        return settings_from(guild_id, rows[0][0])

    async def save_guild_settings(self, settings: GuildSettings, *, events: Sequence[LogEntry] = ()) -> None:
        document = settings_document(settings)
        row = (settings.guild_id, document, _now())
        rows = _log_rows(events)

        def save(db: sqlite3.Connection) -> None:
            stored = db.execute(
                "SELECT document FROM guild_settings WHERE guild_id = ?", (settings.guild_id,)
            ).fetchone()
            refuse_newer_settings(None if stored is None else stored[0])
            db.execute(
                "INSERT INTO guild_settings (guild_id, document, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET document = excluded.document,"
                " updated_at = excluded.updated_at",
                row,
            )
            _insert_log(db, rows)

        await self._transaction(save)

    # ------------------------------------------------------------------------------ a server's data

    async def forget_guild(self, guild_id: int) -> ForgottenGuild:
        guild = {"g": guild_id}

        def forget(db: sqlite3.Connection) -> ForgottenGuild:
            for statement in FORGET_GUILD_FIRST:
                db.execute(statement.format(g=":g"), guild)
            counts = {
                what: sum(
                    db.execute(f"DELETE FROM {table} WHERE guild_id = :g", guild).rowcount for table in tables
                )
                for what, tables in FORGET_GUILD_COUNTED.items()
            }
            mark, lines, unmark = (statement.format(g=":g") for statement in FORGET_GUILD_LOG)
            db.execute(mark, guild)
            log_lines = db.execute(lines, guild).rowcount
            db.execute(unmark, guild)
            return ForgottenGuild(
                fights=counts["fights"],
                ended=counts["ended"],
                log_lines=log_lines,
                characters=counts["characters"],
                settings=counts["settings"] > 0,
            )

        return await self._transaction(forget)

    async def guild_left(self, guild_id: int, at: datetime) -> None:
        row = (guild_id, at.astimezone(UTC).isoformat())
        await self._transaction(
            lambda db: db.execute(
                "INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?) ON CONFLICT DO NOTHING", row
            )
        )

    async def guild_returned(self, guild_id: int) -> None:
        await self._transaction(
            lambda db: db.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
        )

    async def guilds_left_before(self, cutoff: datetime) -> list[int]:
        rows = await self._fetch_all(
            "SELECT guild_id, left_at FROM guild_departures ORDER BY left_at, guild_id", ()
        )
        return [int(row[0]) for row in rows if datetime.fromisoformat(row[1]) < cutoff]

    # ------------------------------------------------------------------------------ the log, newest first

    async def read_log_backwards(
        self,
        *,
        channel_id: int | None = None,
        guild_id: int | None = None,
        user_id: int | None = None,
        kinds: Sequence[str] = (),
        before_id: int | None = None,
        limit: int = 100,
    ) -> list[LogEntry]:
        check_page(limit)
        conditions = ["id < ?"] if before_id is not None else ["1"]
        parameters: list[Any] = [before_id] if before_id is not None else []
        for column, value in (("channel_id", channel_id), ("guild_id", guild_id), ("user_id", user_id)):
            if value is not None:
                conditions.append(f"{column} = ?")
                parameters.append(value)
        if kinds:
            conditions.append(f"kind IN ({', '.join('?' for _ in kinds)})")
            parameters.extend(kinds)
        rows = await self._fetch_all(
            f"SELECT {_LOG_COLUMNS} FROM log WHERE {' AND '.join(conditions)} ORDER BY id DESC LIMIT ?",
            [*parameters, limit],
        )
        return [_log_entry(row) for row in rows]

    # ------------------------------------------------------------------------------ the d20 faces rolled

    async def tally_d20(
        self,
        *,
        guild_id: int,
        channel_id: int | None = None,
        user_id: int | None = None,
        since: datetime | None = None,
        through_id: int | None = None,
        viewer: int | None = None,
        gm: bool = False,
    ) -> DiceTally:
        # log_d20 (migration 0005) has one row per roll, its faces counted when it was logged.
        conditions = ["guild_id = ?"]
        parameters: list[Any] = [guild_id]
        for column, value in (("channel_id", channel_id), ("user_id", user_id), ("log_id", through_id)):
            if value is not None:
                conditions.append(f"{column} {'<=' if column == 'log_id' else '='} ?")
                parameters.append(value)
        if since is not None:
            conditions.append("at >= ?")
            parameters.append(since.astimezone(UTC).isoformat())
        where = " AND ".join(conditions)
        visible = "(private = 0 OR ? OR user_id IS ?)"
        seen = [int(gm), viewer]
        [counted] = await self._fetch_all(
            f"SELECT COUNT(*), {_FACE_SUMS} FROM log_d20 WHERE {where} AND {visible}",
            [*parameters, *seen],
            long=True,
        )
        [hidden] = await self._fetch_all(
            f"SELECT COUNT(*) FROM log_d20 WHERE {where} AND NOT {visible}", [*parameters, *seen], long=True
        )
        return DiceTally(tuple(int(times or 0) for times in counted[1:]), int(counted[0]), int(hidden[0]))


# ---------------------------------------------------------------------------- on the connection's thread


def _write_fight(
    db: sqlite3.Connection, encounter: Encounter, document: str, rows: list[_LogRow]
) -> list[int]:
    """Compare-and-set: create the fight (version 0) or replace the version it was read at; log ``rows``."""
    if encounter.version == 0:
        cursor = db.execute(
            "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at)"
            " VALUES (?, ?, 1, ?, ?) ON CONFLICT (channel_id) DO NOTHING",
            (encounter.channel_id, encounter.guild_id, document, _now()),
        )
    else:
        cursor = db.execute(
            "UPDATE encounters SET guild_id = ?, version = ?, document = ?, updated_at = ?"
            " WHERE channel_id = ? AND version = ?",
            (
                encounter.guild_id,
                encounter.version + 1,
                document,
                _now(),
                encounter.channel_id,
                encounter.version,
            ),
        )
    if cursor.rowcount != 1:
        raise _stale(db, encounter)
    if encounter.version == 0:
        db.execute("DELETE FROM encounter_history WHERE channel_id = ?", (encounter.channel_id,))
        db.execute("DELETE FROM encounter_undos WHERE channel_id = ?", (encounter.channel_id,))
    return _insert_log(db, rows)


def _keep_step(
    db: sqlite3.Connection, channel_id: int, version: int, document: str, user_id: int, log_ids: list[int]
) -> None:
    """Keep the running fight as it was before a change (at ``version``), with who made the change and
    the log lines it wrote; the channel keeps its last :data:`HISTORY_KEPT` steps."""
    db.execute(
        "INSERT INTO encounter_history"
        " (channel_id, version, document, user_id, at, first_log_id, last_log_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (channel_id, version, document, user_id, _now(), min(log_ids, default=0), max(log_ids, default=0)),
    )
    _forget_undos(db, channel_id)
    # The step HISTORY_KEPT back from the newest, and any older (at most one, steps being kept one by one),
    # found along the channel's index: nothing when the channel has no more than that.
    db.execute(
        "DELETE FROM encounter_history WHERE channel_id = ? AND id <="
        " (SELECT id FROM encounter_history WHERE channel_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
        (channel_id, channel_id, HISTORY_KEPT),
    )


def _forget_undos(db: sqlite3.Connection, channel_id: int) -> None:
    """A new step of the fight: what was undone can no longer be redone."""
    db.execute("DELETE FROM encounter_history WHERE channel_id = ? AND undone_by IS NOT NULL", (channel_id,))
    db.execute("DELETE FROM encounter_undos WHERE channel_id = ?", (channel_id,))


def _step(row: sqlite3.Row | tuple[Any, ...], lines: Sequence[sqlite3.Row | tuple[Any, ...]]) -> HistoryStep:
    """A history row (``version, user_id, at, first_log_id, last_log_id``) with its log lines' texts."""
    first, last = int(row[3]), int(row[4])
    texts = tuple(str(text) for log_id, text in lines if first and first <= log_id <= last)
    return HistoryStep(
        version=int(row[0]), user_id=int(row[1]), at=datetime.fromisoformat(row[2]), lines=texts
    )


def _delete_fight(db: sqlite3.Connection, encounter: Encounter, rows: list[_LogRow]) -> None:
    """End the fight (compare-and-set on its version) and log ``rows``; the fight, its document as
    stored, is kept in ``ended_encounters`` with the channel's last log id, and the channel keeps its
    last :data:`ENDED_KEPT` ended fights."""
    _insert_log(db, rows)
    channel_id, version = encounter.channel_id, encounter.version
    last_log_id = db.execute(
        "SELECT COALESCE(MAX(id), 0) FROM log WHERE channel_id = ?", (channel_id,)
    ).fetchone()[0]
    ended_at = rows[-1][0] if rows else _now()
    cursor = db.execute(
        "INSERT INTO ended_encounters"
        " (channel_id, guild_id, gm_id, started_at, ended_at, rounds, version, last_log_id, document)"
        " SELECT channel_id, guild_id, ?, ?, ?, ?, version, ?, document FROM encounters"
        " WHERE channel_id = ? AND version = ?",
        (
            encounter.gm_id,
            encounter.started_at.isoformat(),
            ended_at,
            encounter.initiative.round,
            last_log_id,
            channel_id,
            version,
        ),
    )
    if cursor.rowcount != 1:
        raise _stale(db, encounter)
    db.execute("DELETE FROM encounters WHERE channel_id = ? AND version = ?", (channel_id, version))
    db.execute("DELETE FROM encounter_history WHERE channel_id = ?", (channel_id,))
    db.execute("DELETE FROM encounter_undos WHERE channel_id = ?", (channel_id,))
    db.execute(
        "DELETE FROM ended_encounters WHERE channel_id = ? AND id NOT IN"
        " (SELECT id FROM ended_encounters WHERE channel_id = ? ORDER BY id DESC LIMIT ?)",
        (channel_id, channel_id, ENDED_KEPT),
    )


_ENDED_COLUMNS = "id, channel_id, guild_id, gm_id, started_at, ended_at, rounds, version, last_log_id"


def _ended(row: sqlite3.Row) -> EndedEncounter:
    """A row of ``ended_encounters`` (:data:`_ENDED_COLUMNS` first), without its document."""
    return EndedEncounter(
        id=row[0],
        channel_id=row[1],
        guild_id=row[2],
        gm_id=row[3],
        started_at=datetime.fromisoformat(row[4]),
        ended_at=datetime.fromisoformat(row[5]),
        rounds=row[6],
        version=row[7],
        last_log_id=row[8],
    )


def _stored_character(db: sqlite3.Connection, guild_id: int, user_id: int, key: str) -> Character | None:
    row = db.execute(
        "SELECT document FROM characters WHERE guild_id = ? AND user_id = ? AND name_key = ?",
        (guild_id, user_id, key),
    ).fetchone()
    return None if row is None else character_from(row[0], key)


def _is_busy(error: sqlite3.OperationalError) -> bool:
    """The write lock could not be had within ``busy_timeout`` (SQLITE_BUSY: "database is locked")."""
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY or "locked" in str(error)


def _in_group(
    db: sqlite3.Connection, works: Sequence[Callable[[sqlite3.Connection], Any]]
) -> list[tuple[bool, Any]]:
    """One write transaction holding ``works``, each in a savepoint of its own; for each, ``(True, what
    it returned)`` once committed, or ``(False, what it raised)`` (rolled back to its savepoint)."""
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


_LogRow = tuple[str, int | None, int, int, str, str, str]


def _log_rows(entries: Iterable[LogEntry]) -> list[_LogRow]:
    """Rows for the log table, serialized on the event loop before the transaction starts."""
    return [
        (
            entry.at.isoformat(),
            entry.guild_id,
            entry.channel_id,
            entry.user_id,
            entry.kind,
            entry.text,
            _LOG_DATA.dump_json(entry.data).decode(),
        )
        for entry in entries
    ]


def _insert_log(db: sqlite3.Connection, rows: Iterable[_LogRow]) -> list[int]:
    ids = []
    for row in rows:
        cursor = db.execute(
            "INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            row,
        )
        assert cursor.lastrowid is not None  # an INSERT into a rowid table always sets it
        ids.append(cursor.lastrowid)
    return ids


def _stale(db: sqlite3.Connection, encounter: Encounter) -> StaleEncounter:
    """The refusal of a compare-and-set that matched no row, saying which version is stored."""
    row = db.execute(
        "SELECT version FROM encounters WHERE channel_id = ?", (encounter.channel_id,)
    ).fetchone()
    return StaleEncounter(encounter.channel_id, encounter.version, None if row is None else int(row[0]))


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


_FACE_SUMS = ", ".join(f"SUM(f{face})" for face in range(1, 21))
"""How often each face came up, in the rows of log_d20 read (f1 ... f20: each roll's dice showing it)."""

_LOG_COLUMNS = (
    "id, at, guild_id, channel_id, user_id, kind, text, data,"
    " (SELECT undo_log_id FROM log_undone WHERE log_undone.log_id = log.id)"
)


def _log_entry(row: sqlite3.Row) -> LogEntry:
    """A row of the log table (:data:`_LOG_COLUMNS`: ``id, at, guild_id, channel_id, user_id, kind, text,
    data`` and the undo that took it back) as an entry."""
    return LogEntry(
        id=row[0],
        at=datetime.fromisoformat(row[1]),
        guild_id=row[2],
        channel_id=row[3],
        user_id=row[4],
        kind=row[5],
        text=row[6],
        data=_LOG_DATA.validate_json(row[7]),
        undone_by=row[8],
    )
