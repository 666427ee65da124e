"""The store in PostgreSQL, through a pool of asyncpg connections: many Pommel processes, one database.

Every write is one transaction on a connection of the pool. A fight's change reads its row ``FOR UPDATE``
(the row stays locked until the commit, so another process's change of that channel waits instead of
interleaving, and the change runs once) and writes it back with ``UPDATE … WHERE version = $n``, the
compare-and-set, with its log lines in the same transaction. Reads are plain statements: under MVCC they
never wait behind a write. A write that waits longer than :data:`LOCK_TIMEOUT_MS` for a lock another
connection holds is refused as :class:`~bot.store.base.StoreBusy`.

The schema comes from numbered scripts ``migrations/NNNN_name.postgres.sql`` (the same sequence as
SQLite's), recorded by name and checksum in ``schema_migrations`` (:mod:`bot.store.schema`). They are
applied in one transaction that first takes a transaction-level advisory lock of the schema, so of
several processes starting together one migrates and the others wait for it, then find nothing left to
do. ``DATABASE_URL`` may name a schema (``?search_path=pommel``); tests give
each run a schema of its own.

Unlike SQLite's one process per file, any number of processes may open the store: the shard leases
(:meth:`PostgresStore.claim_shards`) keep two of them from serving the same guilds.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from pydantic import JsonValue, TypeAdapter

from ..characters import Character, name_key
from ..encounter.document import Encounter
from ..events import FightChanged, announce
from ..guild_settings import GuildSettings
from .base import (
    ENDED_KEPT,
    HISTORY_KEPT,
    CharacterTaken,
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
    ShardTaken,
    StaleCharacter,
    StaleEncounter,
    StoreBusy,
    StoreUnavailable,
)
from .schema import (
    Migration,
    Plan,
    Recorded,
    bundled_migrations,
    check_numbering,
    legacy_postgres,
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

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_MS = 5000
"""How long a write waits for a row another connection has locked before it is refused."""
POOL_SIZE = 10
_MIGRATION_LOCK = 0x504D4D4C  # "PMML": the advisory lock class of the migrations (with the schema's hash)

_LOG_DATA: TypeAdapter[dict[str, JsonValue]] = TypeAdapter(dict[str, JsonValue])

T = TypeVar("T")
Connection = Any
"""An asyncpg connection (asyncpg ships no type hints)."""


def postgres_migrations() -> list[Migration]:
    """The PostgreSQL dialect of the migrations shipped in ``bot/store/migrations``, in order."""
    return bundled_migrations("postgres")


RECORD_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
    " applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), checksum TEXT)"
)
"""The migrations applied, by name and checksum (see :mod:`bot.store.schema`); ``version`` is where
older Pommels read the last number. A record from before the checksums has none (and old names)."""


async def recorded_migrations(db: Connection, migrations: Sequence[Migration]) -> Plan:
    """What the database records of its migrations, against ``migrations``; a record from before the
    checksums is read as the scripts it names (:func:`~bot.store.schema.legacy_postgres`)."""
    columns = {
        row[0]
        for row in await db.fetch(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = 'schema_migrations'"
        )
    }
    if not columns:
        return plan(migrations, [])
    checksum = "checksum" if "checksum" in columns else "NULL"
    rows = await db.fetch(
        f"SELECT version, name, {checksum}, applied_at::text FROM schema_migrations ORDER BY version"
    )
    recorded = [Recorded(row[0], row[1], row[2], row[3]) for row in rows]
    if any(entry.checksum is None for entry in recorded):
        return plan(migrations, legacy_postgres(recorded), adopted=True)
    return plan(migrations, recorded)


def shown_url(url: str) -> str:
    """The URL without its password, to name in messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def _now() -> datetime:
    return datetime.now(UTC)


class PostgresStore(DocumentStore):
    """The :class:`Store` in a PostgreSQL database. Make one with :meth:`open`."""

    def __init__(self, pool: Any, url: str) -> None:
        super().__init__()
        self._pool = pool
        self._url = url
        self._closed = False
        self._pending: set[asyncio.Future[Any]] = set()
        self._lease: Any = None
        """The connection holding this process's shard leases (see :meth:`claim_shards`)."""

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        migrations: Sequence[Migration] | None = None,
        pool_size: int = POOL_SIZE,
        lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    ) -> PostgresStore:
        """Connect, bring the schema up to date (under the migrations' advisory lock) and return the store.

        Raises :class:`StoreUnavailable` when the server cannot be reached or refuses, or when the schema
        the URL names does not exist, and :class:`DatabaseTooNew` when the database was migrated further
        than these scripts go.
        """
        where = shown_url(url)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=pool_size,
                server_settings={"lock_timeout": str(int(lock_timeout_ms)), "application_name": "pommel"},
            )
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreUnavailable(
                f"Can't reach the PostgreSQL database {where}: {error}. Check DATABASE_URL and that the "
                "server is running."
            ) from error
        store = cls(pool, url)
        try:
            schema = await pool.fetchval("SELECT current_schema()")
            if schema is None:
                raise StoreUnavailable(
                    f"The database {where} has no schema to keep Pommel's tables in (the search_path names "
                    "none that exists). Create it, or fix the search_path in DATABASE_URL."
                )
            await store._migrate(postgres_migrations() if migrations is None else migrations)
        except BaseException:
            await store.close()
            raise
        return store

    async def _migrate(self, migrations: Sequence[Migration]) -> None:
        check_numbering(migrations)

        async def migrate(db: Connection) -> Plan:
            # Taken first, held to the commit: two processes starting together migrate one after the
            # other, and the second finds every script applied.
            await db.execute("SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))", _MIGRATION_LOCK)
            found = await recorded_migrations(db, migrations)
            if found.unknown:
                known = migrations[-1].version if migrations else 0
                names = [entry.name for entry in found.unknown]
                raise DatabaseTooNew(shown_url(self._url), found.found, known, names)
            await db.execute(RECORD_TABLE)
            await db.execute("ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum TEXT")
            if found.rewrite:
                await db.execute("DELETE FROM schema_migrations")
                await db.executemany(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at)"
                    " VALUES ($1, $2, $3, COALESCE($4::text::timestamptz, now()))",
                    [(m.version, m.name, m.checksum, entry.applied_at) for m, entry in found.applied],
                )
            for migration in found.pending:
                try:
                    if not migration.does_nothing:
                        await db.execute(migration.sql)
                except asyncpg.PostgresError as error:
                    raise MigrationFailed(
                        shown_url(self._url), migration.name, f"{error} (PostgreSQL)"
                    ) from error
                await db.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    migration.version,
                    migration.name,
                    migration.checksum,
                )
            return found

        told_of(await self._transaction(migrate), str(self), logger)

    async def schema_version(self) -> int:
        """The number of the last migration applied."""
        return int(await self._pool.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # The transactions in progress end first (committed or rolled back, never half-way).
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        try:
            await self._release_lease()
        finally:
            await self._pool.close()

    # ------------------------------------------------------------------------------ shard leases

    async def claim_shards(
        self, shard_count: int, shard_ids: Sequence[int], *, on_lost: Callable[[], None] | None = None
    ) -> None:
        """Take a session advisory lock per shard on a connection of its own, kept while the store is open.

        The server ends the locks with the connection, so a process that dies (SIGKILL included) frees
        its shards at once, and a successor can claim them; one that is alive keeps them, and a second
        process claiming one is refused with :class:`ShardTaken`, naming the holder (``shard_leases``).
        Every process must run the same shard count: a count unlike the one a live holder runs would
        give a guild two owners, and is refused too.
        """
        self._check_open()
        if self._lease is not None:
            raise RuntimeError("this store has claimed its shards already")
        lease = await asyncpg.connect(self._url, server_settings={"application_name": "pommel shard lease"})
        try:
            key = int(await lease.fetchval(f"SELECT {_LEASE_KEY}"))
            for shard in shard_ids:
                if not await lease.fetchval("SELECT pg_try_advisory_lock($1, $2)", key, shard):
                    raise await _shard_taken(lease, shard, shard_count)
            await _check_shard_count(lease, key, shard_count)
            await lease.executemany(
                "INSERT INTO shard_leases (shard_id, shard_count, holder, since) VALUES ($1, $2, $3, now())"
                " ON CONFLICT (shard_id) DO UPDATE SET shard_count = excluded.shard_count,"
                " holder = excluded.holder, since = excluded.since",
                [(shard, shard_count, holder_name()) for shard in shard_ids],
            )
        except BaseException:
            await lease.close()  # and with it every lock taken so far
            raise
        self._lease = lease

        def lost(connection: Any) -> None:
            if self._lease is connection:  # not closed by close()
                self._lease = None
                logger.error("the connection holding shards %s ended: their leases are lost", list(shard_ids))
                if on_lost is not None:
                    on_lost()

        lease.add_termination_listener(lost)
        logger.info("claimed shards %s of %d in %s", list(shard_ids), shard_count, self)

    async def _release_lease(self) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            await lease.close()

    def __repr__(self) -> str:
        return f"PostgresStore({shown_url(self._url)!r})"

    # ------------------------------------------------------------------------------ transactions

    async def _transaction(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction on a connection of the pool: committed when it returns, rolled
        back when it raises. A caller cancelled meanwhile does not stop it: the transaction still ends
        whole before the cancellation goes on, and :meth:`close` waits for it."""
        self._check_open()

        async def run() -> T:
            async with self._pool.acquire() as db, db.transaction():
                return await work(db)

        task = asyncio.ensure_future(run())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        try:
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                # The caller gives up only once the transaction has ended, so what it reads next is
                # the whole change or none of it, as in SQLite.
                await asyncio.wait([task])
                raise
        except asyncpg.LockNotAvailableError as error:
            raise StoreBusy() from error

    async def _fetch(self, sql: str, *parameters: Any) -> list[Any]:
        self._check_open()
        return list(await self._pool.fetch(sql, *parameters))

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")

    # ------------------------------------------------------------------------------ fights

    async def _stored_fight(self, channel_id: int) -> tuple[int, str] | None:
        rows = await self._fetch("SELECT version, document FROM encounters WHERE channel_id = $1", channel_id)
        return (int(rows[0][0]), rows[0][1]) if rows else None

    async def fight_channels(self) -> list[int]:
        return [int(row[0]) for row in await self._fetch("SELECT channel_id FROM encounters")]

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
        """The read, the change and the write in one transaction: the row is read ``FOR UPDATE``, so no
        other process writes the fight between the read and the commit and ``change`` runs once. Only a
        new fight started by another process at the same moment (there was no row to lock) makes the
        write stale; the change is then run again on that fight, up to ``attempts`` times in all."""
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")

        async def work(db: Connection) -> Encounter | None:
            row = await db.fetchrow(
                "SELECT version, document FROM encounters WHERE channel_id = $1 FOR UPDATE", channel_id
            )
            current = None if row is None else readable_fight(int(row[0]), row[1])
            wanted = change(current)
            rows = _log_rows(wanted.events)
            wanted_fight = checked_change(channel_id, wanted)
            if wanted.encounter is not None and wanted_fight is not None:
                document, _ = wanted_fight
                log_ids = await _write_fight(db, wanted.encounter, document, rows)
                # A change that logs nothing is bookkeeping, not a step of the fight (as in SQLite).
                if row is not None and log_ids and wanted.encounter.version == int(row[0]):
                    await _keep_step(db, channel_id, int(row[0]), row[1], step_user(wanted), log_ids)
                return wanted.encounter.model_copy(update={"version": wanted.encounter.version + 1})
            if current is not None:
                await _delete_fight(db, current, rows)
            else:
                await _insert_log(db, rows)
            return None

        async with self.lock(channel_id):
            attempt = 1
            while True:
                try:
                    return await self._transaction(work)
                except Unreadable as unreadable:
                    await self._set_aside(channel_id, unreadable)
                except StaleEncounter:
                    if attempt >= attempts:
                        raise
                    attempt += 1

    async def _move_aside(self, unreadable: Unreadable, channel_id: int) -> int | None:
        document = unreadable.document

        async def move(db: Connection) -> int | None:
            # The DELETE is the compare-and-set (it waits for a writer of the row and checks again): the
            # fight is moved only if it is still that version and document.
            moved = await db.fetchval(
                "WITH gone AS (DELETE FROM encounters"
                " WHERE channel_id = $4 AND version = $5 AND document = $6"
                " RETURNING channel_id, guild_id, version, document)"
                " INSERT INTO set_aside_encounters"
                " (channel_id, guild_id, gm_id, version, document, reason, set_aside_at)"
                " SELECT channel_id, guild_id, $1, version, document, $2, $3 FROM gone RETURNING id",
                unreadable.gm_id,
                unreadable.reason,
                _now(),
                channel_id,
                unreadable.version,
                document,
            )
            return None if moved is None else int(moved)  # None: set aside by another, or written anew

        return await self._transaction(move)

    # ------------------------------------------------------------------------------ ended fights

    async def ended_encounters(self, channel_id: int, limit: int = ENDED_KEPT) -> list[EndedEncounter]:
        rows = await self._fetch(
            f"SELECT {_ENDED_COLUMNS} FROM ended_encounters WHERE channel_id = $1 ORDER BY id DESC LIMIT $2",
            channel_id,
            limit,
        )
        return [_ended(row) for row in rows]

    async def _ended_document(self, ended_id: int) -> tuple[EndedEncounter, str] | None:
        rows = await self._fetch(
            f"SELECT {_ENDED_COLUMNS}, document FROM ended_encounters WHERE id = $1", ended_id
        )
        return (_ended(rows[0]), rows[0]["document"]) if rows else None

    async def _reopen(self, ended: EndedEncounter, events: Sequence[LogEntry]) -> str:
        rows = _log_rows(events)
        version = ended.version + 1

        async def reopen(db: Connection) -> str:
            kept = await db.fetchval(
                "DELETE FROM ended_encounters WHERE id = $1 RETURNING document", ended.id
            )
            if kept is None:
                raise EndedGone()
            inserted = await db.fetchval(
                "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at)"
                " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (channel_id) DO NOTHING RETURNING version",
                ended.channel_id,
                ended.guild_id,
                version,
                kept,
                _now(),
            )
            if inserted is None:
                running = await db.fetchval(
                    "SELECT version FROM encounters WHERE channel_id = $1", ended.channel_id
                )
                raise StaleEncounter(ended.channel_id, 0, running)
            await _insert_log(db, rows)
            return str(kept)

        return await self._transaction(reopen)

    # ---------------------------------------------------------------------- the running fight's history

    async def history(self, channel_id: int, steps: int = HISTORY_KEPT) -> list[HistoryStep]:
        rows = await self._fetch(
            "SELECT version, user_id, at, first_log_id, last_log_id FROM encounter_history"
            " WHERE channel_id = $1 AND undone_by IS NULL ORDER BY id DESC LIMIT $2",
            channel_id,
            steps,
        )
        return await self._with_lines(channel_id, rows)

    async def redoable(self, channel_id: int) -> Redoable | None:
        rows = await self._fetch(
            "SELECT version, user_id, at, first_log_id, last_log_id, undone_by FROM encounter_history"
            " WHERE undone_by = (SELECT max(undo_log_id) FROM encounter_undos WHERE channel_id = $1)"
            " ORDER BY id DESC",
            channel_id,
        )
        if not rows:
            return None
        return Redoable(int(rows[0][5]), await self._with_lines(channel_id, rows))

    async def _with_lines(self, channel_id: int, rows: Sequence[Any]) -> list[HistoryStep]:
        lines = await self._fetch(
            "SELECT id, text FROM log WHERE channel_id = $1 AND id BETWEEN $2 AND $3 ORDER BY id",
            channel_id,
            min((r[3] for r in rows), default=0),
            max((r[4] for r in rows), default=0),
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

        async def work(db: Connection) -> tuple[Encounter, list[HistoryStep]]:
            stored = await db.fetchrow(
                "SELECT version, document FROM encounters WHERE channel_id = $1 FOR UPDATE", channel_id
            )
            if stored is None or int(stored[0]) != expected_version:
                raise StaleEncounter(channel_id, expected_version, None if stored is None else int(stored[0]))
            current = readable_fight(int(stored[0]), stored[1])
            kept = await db.fetch(
                "SELECT version, user_id, at, first_log_id, last_log_id, id, document FROM encounter_history"
                " WHERE channel_id = $1 AND undone_by IS NULL ORDER BY id DESC LIMIT $2",
                channel_id,
                steps,
            )
            if len(kept) < steps:
                raise NothingToUndo(len(kept))
            lines = await db.fetch(
                "SELECT id, text FROM log WHERE channel_id = $1 AND id BETWEEN $2 AND $3 ORDER BY id",
                channel_id,
                min(r[3] for r in kept),
                max(r[4] for r in kept),
            )
            undone = [_step(r, lines) for r in kept]
            earlier = past_fight(int(kept[-1][0]), kept[-1][6])
            fight, document, saved = undone_fight(restore, earlier, current)
            (undo_id,) = await _write_fight(db, fight, document, _log_rows([line(undone)]))
            await db.executemany(
                "INSERT INTO log_undone (log_id, undo_log_id) SELECT id, $1 FROM log"
                " WHERE channel_id = $2 AND id BETWEEN $3 AND $4"
                " AND id NOT IN (SELECT log_id FROM log_undone)",
                [(undo_id, channel_id, r[3], r[4]) for r in kept if r[3]],
            )
            await db.execute(
                "UPDATE encounter_history SET undone_by = $1 WHERE id = ANY($2::bigint[])",
                undo_id,
                [r[5] for r in kept],
            )
            await db.execute(
                "INSERT INTO encounter_undos (undo_log_id, channel_id, version, document)"
                " VALUES ($1, $2, $3, $4)",
                undo_id,
                channel_id,
                int(stored[0]),
                stored[1],
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
        async def work(db: Connection) -> tuple[Encounter, list[HistoryStep]]:
            stored = await db.fetchrow(
                "SELECT version, document FROM encounters WHERE channel_id = $1 FOR UPDATE", channel_id
            )
            undo = await db.fetchrow(
                "SELECT undo_log_id, version, document FROM encounter_undos WHERE channel_id = $1"
                " ORDER BY undo_log_id DESC LIMIT 1",
                channel_id,
            )
            if stored is None or undo is None or int(undo[0]) != undo_id:
                raise NothingToRedo()
            current = readable_fight(int(stored[0]), stored[1])
            kept = await db.fetch(
                "SELECT version, user_id, at, first_log_id, last_log_id FROM encounter_history"
                " WHERE undone_by = $1 ORDER BY id DESC",
                undo_id,
            )
            lines = await db.fetch(
                "SELECT id, text FROM log WHERE channel_id = $1 AND id BETWEEN $2 AND $3 ORDER BY id",
                channel_id,
                min((r[3] for r in kept), default=0),
                max((r[4] for r in kept), default=0),
            )
            redone = [_step(r, lines) for r in kept]
            later = past_fight(int(undo[1]), undo[2])
            fight, document, saved = undone_fight(restore, later, current)
            await _write_fight(db, fight, document, _log_rows([line(redone)]))
            await db.execute("UPDATE encounter_history SET undone_by = NULL WHERE undone_by = $1", undo_id)
            await db.execute("DELETE FROM log_undone WHERE undo_log_id = $1", undo_id)
            await db.execute("DELETE FROM encounter_undos WHERE undo_log_id = $1", undo_id)
            return saved, redone

        async with self.lock(channel_id):
            saved, redone = await self._transaction(work)
        announce(FightChanged(saved))
        return saved, redone

    # ------------------------------------------------------------------------------ dice statistics

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
        # log_d20 (migration 0004) has one row per roll, its faces counted when it was logged.
        conditions = ["guild_id = $1"]
        parameters: list[Any] = [guild_id]
        for column, value in (("channel_id", channel_id), ("user_id", user_id), ("log_id", through_id)):
            if value is not None:
                parameters.append(value)
                conditions.append(f"{column} {'<=' if column == 'log_id' else '='} ${len(parameters)}")
        if since is not None:
            parameters.append(since)
            conditions.append(f"at >= ${len(parameters)}")
        parameters += [gm, viewer]
        visible = (
            f"(NOT private OR ${len(parameters) - 1}::boolean"
            f" OR user_id IS NOT DISTINCT FROM ${len(parameters)}::bigint)"
        )
        sums = ", ".join(f"COALESCE(SUM(f{n}) FILTER (WHERE {visible}), 0)" for n in range(1, 21))
        [row] = await self._fetch(
            f"SELECT COUNT(*) FILTER (WHERE {visible}), COUNT(*) FILTER (WHERE NOT {visible}), {sums}"
            f" FROM log_d20 WHERE {' AND '.join(conditions)}",
            *parameters,
        )
        return DiceTally(tuple(int(row[2 + n]) for n in range(20)), int(row[0]), int(row[1]))

    async def set_aside_fight(self, channel_id: int) -> tuple[SetAsideFight, str] | None:
        rows = await self._fetch(
            "SELECT id, channel_id, guild_id, gm_id, version, reason, set_aside_at, acknowledged_at, document"
            " FROM set_aside_encounters WHERE channel_id = $1 ORDER BY id DESC LIMIT 1",
            channel_id,
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
            set_aside_at=at,
            acknowledged=acknowledged is not None,
        )
        return kept, document

    async def _restore_aside(
        self, set_aside_id: int, encounter: Encounter, document: str, events: Sequence[LogEntry]
    ) -> None:
        rows = _log_rows(events)

        async def restore(db: Connection) -> None:
            await _write_fight(db, encounter, document, rows)
            deleted = await db.execute("DELETE FROM set_aside_encounters WHERE id = $1", set_aside_id)
            if _count(deleted) != 1:
                raise SetAsideGone()

        await self._transaction(restore)

    async def pending_set_aside(self, channel_id: int) -> SetAsideFight | None:
        rows = await self._fetch(
            "SELECT id, channel_id, guild_id, gm_id, version, reason, set_aside_at, acknowledged_at"
            " FROM set_aside_encounters WHERE channel_id = $1 AND acknowledged_at IS NULL"
            " ORDER BY id DESC LIMIT 1",
            channel_id,
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
            set_aside_at=at,
            acknowledged=acknowledged is not None,
        )

    async def acknowledge_set_aside(self, set_aside_id: int) -> bool:
        async def acknowledge(db: Connection) -> str:
            return str(
                await db.execute(
                    "UPDATE set_aside_encounters SET acknowledged_at = $1 WHERE acknowledged_at IS NULL AND"
                    " id <= $2 AND channel_id = (SELECT channel_id FROM set_aside_encounters WHERE id = $2)",
                    _now(),
                    set_aside_id,
                )
            )

        return _count(await self._transaction(acknowledge)) > 0

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
        conditions = ["id > $1"]
        parameters: list[Any] = [after_id]
        for column, value in (("channel_id", channel_id), ("guild_id", guild_id)):
            if value is not None:
                parameters.append(value)
                conditions.append(f"{column} = ${len(parameters)}")
        parameters.append(limit)
        rows = await self._fetch(
            f"SELECT {_LOG_COLUMNS} FROM log WHERE {' AND '.join(conditions)} ORDER BY id"
            f" LIMIT ${len(parameters)}",
            *parameters,
        )
        return [_log_entry(row) for row in rows]

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
        conditions = ["TRUE"]
        parameters: list[Any] = []
        for column, value in (
            ("id <", before_id),
            ("channel_id =", channel_id),
            ("guild_id =", guild_id),
            ("user_id =", user_id),
        ):
            if value is not None:
                parameters.append(value)
                conditions.append(f"{column} ${len(parameters)}")
        if kinds:
            parameters.append(list(kinds))
            conditions.append(f"kind = ANY(${len(parameters)}::text[])")
        parameters.append(limit)
        rows = await self._fetch(
            f"SELECT {_LOG_COLUMNS} FROM log WHERE {' AND '.join(conditions)} ORDER BY id DESC"
            f" LIMIT ${len(parameters)}",
            *parameters,
        )
        return [_log_entry(row) for row in rows]

    # ------------------------------------------------------------------------------ characters

    async def save_character(
        self, guild_id: int, user_id: int, character: Character, *, replacing: str | None = None
    ) -> None:
        document = character_document(character)
        old_key = name_key(replacing) if replacing is not None else None

        async def save(db: Connection) -> None:
            if old_key is not None and old_key != character.key:
                await db.execute(
                    "DELETE FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3",
                    guild_id,
                    user_id,
                    old_key,
                )
            await db.execute(
                "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
                " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (guild_id, user_id, name_key)"
                " DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at",
                guild_id,
                user_id,
                character.key,
                document,
                _now(),
            )

        await self._transaction(save)

    async def create_character(self, guild_id: int, user_id: int, character: Character) -> None:
        document = character_document(character)

        async def create(db: Connection) -> None:
            created = await db.fetchval(
                "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
                " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (guild_id, user_id, name_key) DO NOTHING"
                " RETURNING name_key",
                guild_id,
                user_id,
                character.key,
                document,
                _now(),
            )
            if created is None:
                taken = await _stored_character(db, guild_id, user_id, character.key)
                raise CharacterTaken(taken.name if taken is not None else character.name)

        await self._transaction(create)

    async def replace_character(
        self, guild_id: int, user_id: int, before: Character, after: Character
    ) -> None:
        document = character_document(after)

        async def replace(db: Connection) -> None:
            # FOR UPDATE: the row stays as read until the commit, so of two edits racing one is refused.
            stored = await _stored_character(db, guild_id, user_id, before.key, lock=True)
            if stored != before:
                raise StaleCharacter(before.name, deleted=stored is None)
            if after.key != before.key:
                taken = await _stored_character(db, guild_id, user_id, after.key)
                if taken is not None:
                    raise CharacterTaken(taken.name)
                await db.execute(
                    "DELETE FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3",
                    guild_id,
                    user_id,
                    before.key,
                )
                inserted = await db.fetchval(
                    "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
                    " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING name_key",
                    guild_id,
                    user_id,
                    after.key,
                    document,
                    _now(),
                )
                if inserted is None:  # created by another process since the look above
                    taken = await _stored_character(db, guild_id, user_id, after.key)
                    raise CharacterTaken(taken.name if taken is not None else after.name)
            else:
                await db.execute(
                    "UPDATE characters SET document = $1, updated_at = $2"
                    " WHERE guild_id = $3 AND user_id = $4 AND name_key = $5",
                    document,
                    _now(),
                    guild_id,
                    user_id,
                    before.key,
                )

        await self._transaction(replace)

    async def character(self, guild_id: int, user_id: int, name: str) -> Character | None:
        rows = await self._fetch(
            "SELECT document FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3",
            guild_id,
            user_id,
            name_key(name),
        )
        return character_from(rows[0][0], name) if rows else None

    async def characters(self, guild_id: int, user_id: int) -> list[Character]:
        # COLLATE "C": the keys sorted by code point, as SQLite sorts them, whatever the server's locale.
        rows = await self._fetch(
            "SELECT document FROM characters WHERE guild_id = $1 AND user_id = $2"
            ' ORDER BY name_key COLLATE "C"',
            guild_id,
            user_id,
        )
        return characters_from([row[0] for row in rows], guild_id, user_id)

    async def delete_character(self, guild_id: int, user_id: int, name: str) -> bool:
        async def delete(db: Connection) -> str:
            return str(
                await db.execute(
                    "DELETE FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3",
                    guild_id,
                    user_id,
                    name_key(name),
                )
            )

        return _count(await self._transaction(delete)) == 1

    # ------------------------------------------------------------------------------ guild settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        rows = await self._fetch("SELECT document FROM guild_settings WHERE guild_id = $1", guild_id)
        if not rows:
            return GuildSettings(guild_id=guild_id)
        return settings_from(guild_id, rows[0][0])

    async def save_guild_settings(self, settings: GuildSettings, *, events: Sequence[LogEntry] = ()) -> None:
        document = settings_document(settings)
        rows = _log_rows(events)

        async def save(db: Connection) -> None:
            stored = await db.fetchval(
                "SELECT document FROM guild_settings WHERE guild_id = $1 FOR UPDATE", settings.guild_id
            )
            refuse_newer_settings(stored)
            await db.execute(
                "INSERT INTO guild_settings (guild_id, document, updated_at) VALUES ($1, $2, $3)"
                " ON CONFLICT (guild_id) DO UPDATE SET document = excluded.document,"
                " updated_at = excluded.updated_at",
                settings.guild_id,
                document,
                _now(),
            )
            await _insert_log(db, rows)

        await self._transaction(save)

    # ------------------------------------------------------------------------------ a server's data

    async def forget_guild(self, guild_id: int) -> ForgottenGuild:
        async def forget(db: Connection) -> ForgottenGuild:
            for statement in FORGET_GUILD_FIRST:
                await db.execute(statement.format(g="$1"), guild_id)
            counts: dict[str, int] = {}
            for what, tables in FORGET_GUILD_COUNTED.items():
                counts[what] = 0
                for table in tables:
                    counts[what] += _count(
                        await db.execute(f"DELETE FROM {table} WHERE guild_id = $1", guild_id)
                    )
            mark, lines, unmark = (statement.format(g="$1") for statement in FORGET_GUILD_LOG)
            await db.execute(mark, guild_id)
            log_lines = _count(await db.execute(lines, guild_id))
            await db.execute(unmark, guild_id)
            return ForgottenGuild(
                fights=counts["fights"],
                ended=counts["ended"],
                log_lines=log_lines,
                characters=counts["characters"],
                settings=counts["settings"] > 0,
            )

        return await self._transaction(forget)

    async def guild_left(self, guild_id: int, at: datetime) -> None:
        async def leave(db: Connection) -> None:
            await db.execute(
                "INSERT INTO guild_departures (guild_id, left_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                guild_id,
                at,
            )

        await self._transaction(leave)

    async def guild_returned(self, guild_id: int) -> None:
        async def come_back(db: Connection) -> None:
            await db.execute("DELETE FROM guild_departures WHERE guild_id = $1", guild_id)

        await self._transaction(come_back)

    async def guilds_left_before(self, cutoff: datetime) -> list[int]:
        rows = await self._fetch(
            "SELECT guild_id FROM guild_departures WHERE left_at < $1 ORDER BY left_at, guild_id", cutoff
        )
        return [int(row[0]) for row in rows]


# ---------------------------------------------------------------------------- inside a transaction

_LogRow = tuple[datetime, int | None, int, int, str, str, str]


def _log_rows(entries: Sequence[LogEntry]) -> list[_LogRow]:
    return [
        (
            entry.at,
            entry.guild_id,
            entry.channel_id,
            entry.user_id,
            entry.kind,
            entry.text,
            _LOG_DATA.dump_json(entry.data).decode(),
        )
        for entry in entries
    ]


async def _insert_log(db: Connection, rows: Sequence[_LogRow]) -> list[int]:
    """Insert the rows in one statement; their ids grow in the order given."""
    if not rows:
        return []
    columns = list(zip(*rows, strict=True))
    inserted = await db.fetch(
        "INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data)"
        " SELECT at, guild_id, channel_id, user_id, kind, text, data::jsonb FROM unnest("
        "$1::timestamptz[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[]"
        ") WITH ORDINALITY AS line (at, guild_id, channel_id, user_id, kind, text, data, n)"
        " ORDER BY n RETURNING id",
        *(list(column) for column in columns),
    )
    return sorted(int(row[0]) for row in inserted)


async def _write_fight(db: Connection, encounter: Encounter, document: str, rows: list[_LogRow]) -> list[int]:
    """Compare-and-set: create the fight (version 0) or replace the version it was read at; log ``rows``."""
    if encounter.version == 0:
        written = await db.fetchval(
            "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at)"
            " VALUES ($1, $2, 1, $3, $4) ON CONFLICT (channel_id) DO NOTHING RETURNING version",
            encounter.channel_id,
            encounter.guild_id,
            document,
            _now(),
        )
    else:
        written = await db.fetchval(
            "UPDATE encounters SET guild_id = $1, version = $2, document = $3, updated_at = $4"
            " WHERE channel_id = $5 AND version = $6 RETURNING version",
            encounter.guild_id,
            encounter.version + 1,
            document,
            _now(),
            encounter.channel_id,
            encounter.version,
        )
    if written is None:
        raise await _stale(db, encounter)
    if encounter.version == 0:
        await db.execute("DELETE FROM encounter_history WHERE channel_id = $1", encounter.channel_id)
        await db.execute("DELETE FROM encounter_undos WHERE channel_id = $1", encounter.channel_id)
    return await _insert_log(db, rows)


async def _keep_step(
    db: Connection, channel_id: int, version: int, document: str, user_id: int, log_ids: list[int]
) -> None:
    await db.execute(
        "INSERT INTO encounter_history"
        " (channel_id, version, document, user_id, at, first_log_id, last_log_id)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        channel_id,
        version,
        document,
        user_id,
        _now(),
        min(log_ids, default=0),
        max(log_ids, default=0),
    )
    # A new step of the fight: what was undone can no longer be redone.
    await db.execute(
        "DELETE FROM encounter_history WHERE channel_id = $1 AND undone_by IS NOT NULL", channel_id
    )
    await db.execute("DELETE FROM encounter_undos WHERE channel_id = $1", channel_id)
    # As in SQLite: the step HISTORY_KEPT back from the newest and any older, along the channel's index.
    await db.execute(
        "DELETE FROM encounter_history WHERE channel_id = $1 AND id <="
        " (SELECT id FROM encounter_history WHERE channel_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
        channel_id,
        HISTORY_KEPT,
    )


def _step(row: Any, lines: Sequence[Any]) -> HistoryStep:
    first, last = int(row[3]), int(row[4])
    texts = tuple(str(text) for log_id, text in lines if first and first <= log_id <= last)
    return HistoryStep(version=int(row[0]), user_id=int(row[1]), at=row[2], lines=texts)


async def _delete_fight(db: Connection, encounter: Encounter, rows: list[_LogRow]) -> None:
    """End the fight (compare-and-set on its version), log ``rows`` and keep it among the ended ones."""
    await _insert_log(db, rows)
    channel_id, version = encounter.channel_id, encounter.version
    last_log_id = await db.fetchval("SELECT COALESCE(MAX(id), 0) FROM log WHERE channel_id = $1", channel_id)
    ended_at = rows[-1][0] if rows else _now()
    # The DELETE is the compare-and-set (it waits for a writer of the row and checks the version again).
    kept = await db.fetchval(
        "WITH gone AS (DELETE FROM encounters WHERE channel_id = $6 AND version = $7"
        " RETURNING channel_id, guild_id, version, document)"
        " INSERT INTO ended_encounters"
        " (channel_id, guild_id, gm_id, started_at, ended_at, rounds, version, last_log_id, document)"
        " SELECT channel_id, guild_id, $1, $2, $3, $4, version, $5, document FROM gone RETURNING id",
        encounter.gm_id,
        encounter.started_at,
        ended_at,
        encounter.initiative.round,
        last_log_id,
        channel_id,
        version,
    )
    if kept is None:
        raise await _stale(db, encounter)
    await db.execute("DELETE FROM encounter_history WHERE channel_id = $1", channel_id)
    await db.execute("DELETE FROM encounter_undos WHERE channel_id = $1", channel_id)
    await db.execute(
        "DELETE FROM ended_encounters WHERE channel_id = $1 AND id NOT IN"
        " (SELECT id FROM ended_encounters WHERE channel_id = $1 ORDER BY id DESC LIMIT $2)",
        channel_id,
        ENDED_KEPT,
    )


_ENDED_COLUMNS = "id, channel_id, guild_id, gm_id, started_at, ended_at, rounds, version, last_log_id"


def _ended(row: Any) -> EndedEncounter:
    return EndedEncounter(
        id=row[0],
        channel_id=row[1],
        guild_id=row[2],
        gm_id=row[3],
        started_at=row[4],
        ended_at=row[5],
        rounds=row[6],
        version=row[7],
        last_log_id=row[8],
    )


async def _stored_character(
    db: Connection, guild_id: int, user_id: int, key: str, *, lock: bool = False
) -> Character | None:
    document = await db.fetchval(
        "SELECT document FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3"
        + (" FOR UPDATE" if lock else ""),
        guild_id,
        user_id,
        key,
    )
    return None if document is None else character_from(document, key)


async def _stale(db: Connection, encounter: Encounter) -> StaleEncounter:
    found = await db.fetchval("SELECT version FROM encounters WHERE channel_id = $1", encounter.channel_id)
    return StaleEncounter(encounter.channel_id, encounter.version, found)


def _count(status: str) -> int:
    """The row count of a command's status ("UPDATE 2", "DELETE 1")."""
    return int(status.rsplit(" ", 1)[-1])


_LOG_COLUMNS = (
    "id, at, guild_id, channel_id, user_id, kind, text, data::text,"
    " (SELECT undo_log_id FROM log_undone WHERE log_undone.log_id = log.id)"
)


def _log_entry(row: Any) -> LogEntry:
    return LogEntry(
        id=row[0],
        at=row[1],
        guild_id=row[2],
        channel_id=row[3],
        user_id=row[4],
        kind=row[5],
        text=row[6],
        data=_LOG_DATA.validate_json(row[7]),
        undone_by=row[8],
    )


_LEASE_KEY = "hashtext(current_schema() || ':pommel shards') & 2147483647"
"""The first key of the shards' advisory locks (the shard is the second): one per schema, positive so
that ``pg_locks.classid`` shows it as is."""


async def _shard_taken(lease: Connection, shard: int, shard_count: int) -> ShardTaken:
    row = await lease.fetchrow(
        "SELECT holder, since, shard_count FROM shard_leases WHERE shard_id = $1", shard
    )
    holder = f"{row['holder']} (since {row['since']:%Y-%m-%d %H:%M} UTC)" if row else "another process"
    return ShardTaken(
        f"Shard {shard} (of {shard_count}) is already served by {holder} on this database: two processes "
        "on one shard would answer every command twice. Stop that process first, or give this one "
        "other SHARD_IDS."
    )


async def _check_shard_count(lease: Connection, key: int, shard_count: int) -> None:
    """Refuse a shard count unlike the one a live holder of another shard runs."""
    other = await lease.fetchrow(
        "SELECT shard_id, shard_count, holder FROM shard_leases WHERE shard_count <> $2 AND EXISTS"
        " (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2"
        " AND classid = $1::int4::oid AND objid = shard_id::oid AND pid <> pg_backend_pid()"
        " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
        " ORDER BY shard_id LIMIT 1",
        key,
        shard_count,
    )
    if other is not None:
        raise ShardTaken(
            f"This process runs {shard_count} shards in all (SHARD_COUNT), but {other['holder']} serves "
            f"shard {other['shard_id']} of {other['shard_count']} on this database: with two counts a "
            "guild would have two owners. Give every process the same SHARD_COUNT."
        )


def holder_name() -> str:
    """Who this process is, as a lease names it: its pid and host."""
    return f"pid {os.getpid()} on {socket.gethostname()}"
