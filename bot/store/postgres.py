"""The store in PostgreSQL, through a pool of asyncpg connections: many Pommel processes, one database.

The transactions themselves, and their SQL, are :class:`~bot.store.sql_store.SqlStore`'s, written once for
both stores (:mod:`bot.store.sql`); this driver runs them (:func:`~bot.store.sql.run_postgres`), and
connects, migrates and holds the shard leases.

Every write is one transaction on a connection of the pool. A fight's change takes the fight's lock (a
session advisory lock on the channel, migration 0012) and reads the fight in one call, so another
process's change of that channel waits instead of interleaving, and the change runs once; it writes it
back with ``UPDATE … WHERE version = $n``, the compare-and-set, with its log lines and the step of its
history, in a second call that commits and lets the lock go: two round trips, no ``BEGIN`` or ``COMMIT``
sent apart. The other writes of a fight read its row ``FOR UPDATE`` in a transaction. Reads are plain
statements: under MVCC they never wait behind a write. A write that waits longer than
:data:`LOCK_TIMEOUT_MS` for a lock another connection holds is refused as
:class:`~bot.store.base.StoreBusy`.

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
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from .errors import DatabaseTooNew, MigrationFailed, ShardTaken, StoreBusy, StoreUnavailable
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
from .sql import Work, run_postgres, run_postgres_held
from .sql_store import SqlStore

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_MS = 5000
"""How long a write waits for a row another connection has locked before it is refused."""
POOL_SIZE = 10
_MIGRATION_LOCK = 0x504D4D4C  # "PMML": the advisory lock class of the migrations (with the schema's hash)

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


class PostgresStore(SqlStore):
    """The :class:`Store` in a PostgreSQL database. Make one with :meth:`open`."""

    RETRIES_STALE = True

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
                reset=_kept_as_is,
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

        async def run(db: Connection) -> T:
            async with db.transaction():
                return await work(db)

        return await self._on_connection(run)

    async def _on_connection(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """Run ``work`` on a connection of the pool, to its end even if the caller is cancelled meanwhile
        (:meth:`close` waits for it); a lock waited for longer than the lock timeout is :class:`StoreBusy`."""
        self._check_open()

        async def run() -> T:
            async with self._pool.acquire() as db:
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

    async def _write(self, work: Work[T]) -> T:
        return await self._transaction(lambda db: run_postgres(db, work()))

    async def _change(self, work: Work[T]) -> T:
        """A change of a fight under the fight's lock (migration 0012), with no transaction sent apart: the
        lock taken and the fight read in one call, the write committed and the lock let go in another
        (:func:`~bot.store.sql.run_postgres_held`)."""
        return await self._on_connection(lambda db: run_postgres_held(db, work()))

    async def _read(self, work: Work[T], *, long: bool = False) -> T:
        """Reads are plain statements on a connection of the pool: under MVCC they never wait behind a
        write."""
        self._check_open()
        async with self._pool.acquire() as db:
            return await run_postgres(db, work())

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")


async def _kept_as_is(connection: Connection) -> None:
    """A connection given back to the pool needs no reset query (one round trip more per transaction and
    per read): the store sets nothing on a pool's connection and listens to nothing; it takes its advisory
    locks for a transaction only, but for a fight's lock, which :func:`~bot.store.sql.run_postgres_held`
    releases (or ends the connection) before the connection goes back (the shard leases have a connection
    of their own). asyncpg still rolls back a transaction left open before calling this."""


# ---------------------------------------------------------------------------- shard leases

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
