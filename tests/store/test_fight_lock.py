"""PostgreSQL's lock of a fight (migration 0012): a change takes it with its read and lets it go with its
write's commit, two round trips; on every other path (a change refused, a write that fails, a caller
cancelled, a connection lost) the driver lets it go or ends the connection, so no connection of the
pool goes back holding it and the next change of the fight never waits for a lock nobody uses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.encounter.document import Encounter
from bot.rules.errors import RulesError
from bot.store import EncounterChange, LogEntry, StoreBusy
from bot.store.postgres import PostgresStore
from tests.postgres import fresh_schema

CHANNEL = 100
GUILD = 10
GM = 1


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with fresh_schema() as selected:
        yield selected


@pytest.fixture
async def store(url: str) -> AsyncIterator[PostgresStore]:
    """A store with a short lock timeout, a fight in :data:`CHANNEL` changed once (so read ahead)."""
    opened = await PostgresStore.open(url, pool_size=2, lock_timeout_ms=1000)
    await opened.save_encounter(Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM))
    await opened.update_encounter(CHANNEL, next_round)
    yield opened
    await opened.close()


def next_round(current: Encounter | None) -> EncounterChange:
    assert current is not None
    current.initiative.round += 1
    line = LogEntry(guild_id=GUILD, channel_id=CHANNEL, user_id=GM, kind="round", text="next")
    return EncounterChange(current, events=(line,))


async def lock_is_free(url: str, channel_id: int = CHANNEL) -> bool:
    """Whether another session gets the fight's lock at once (then lets it go)."""
    outside = await asyncpg.connect(url)
    try:
        taken = bool(await outside.fetchval("SELECT pg_try_advisory_lock(pommel_fight_lock($1))", channel_id))
        if taken:
            await outside.execute("SELECT pg_advisory_unlock(pommel_fight_lock($1))", channel_id)
        return taken
    finally:
        await outside.close()


async def rounds(url: str) -> tuple[int, int]:
    """The stored fight's version and the log's length."""
    outside = await asyncpg.connect(url)
    try:
        version = await outside.fetchval("SELECT version FROM encounters WHERE channel_id = $1", CHANNEL)
        lines = await outside.fetchval("SELECT count(*) FROM log")
    finally:
        await outside.close()
    return int(version), int(lines)


async def test_a_change_lets_the_lock_go_with_its_commit(store: PostgresStore, url: str) -> None:
    saved = await store.update_encounter(CHANNEL, next_round)
    assert saved is not None
    assert saved.version == 3
    assert await lock_is_free(url)
    assert await rounds(url) == (3, 2)


async def test_a_refused_change_lets_the_lock_go(store: PostgresStore, url: str) -> None:
    def refuse(current: Encounter | None) -> EncounterChange:
        raise RulesError("Not your turn.")

    with pytest.raises(RulesError):
        await store.update_encounter(CHANNEL, refuse)
    assert await lock_is_free(url)
    assert await rounds(url) == (2, 1)


async def test_a_change_that_writes_nothing_or_ends_the_fight_lets_the_lock_go(
    store: PostgresStore, url: str
) -> None:
    assert await store.update_encounter(CHANNEL + 1, lambda current: EncounterChange(None)) is None
    assert await lock_is_free(url, CHANNEL + 1)
    assert await store.update_encounter(CHANNEL, lambda current: EncounterChange(None)) is None
    assert await lock_is_free(url)
    assert await store.load_encounter(CHANNEL) is None


async def test_a_write_the_server_refuses_lets_the_lock_go(store: PostgresStore, url: str) -> None:
    """A fault inside the write's call (before its commit): rolled back whole, the lock let go."""
    outside = await asyncpg.connect(url)
    try:
        await outside.execute("ALTER TABLE encounters ADD CONSTRAINT fault CHECK (version < 3) NOT VALID")
        with pytest.raises(asyncpg.CheckViolationError):
            await store.update_encounter(CHANNEL, next_round)
        assert await lock_is_free(url)
        assert await rounds(url) == (2, 1)
        await outside.execute("ALTER TABLE encounters DROP CONSTRAINT fault")
    finally:
        await outside.close()
    saved = await store.update_encounter(CHANNEL, next_round)
    assert saved is not None
    assert saved.initiative.round == 2
    assert await rounds(url) == (3, 2)


async def test_a_fight_locked_elsewhere_is_busy_and_a_cancelled_caller_leaves_no_lock(
    store: PostgresStore, url: str
) -> None:
    holder = await asyncpg.connect(url)
    try:
        await holder.execute("SELECT pg_advisory_lock(pommel_fight_lock($1))", CHANNEL)
        with pytest.raises(StoreBusy):
            await store.update_encounter(CHANNEL, next_round)
        waiting = asyncio.ensure_future(store.update_encounter(CHANNEL, next_round))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await holder.execute("SELECT pg_advisory_unlock(pommel_fight_lock($1))", CHANNEL)
    finally:
        await holder.close()
    assert await lock_is_free(url)
    assert await rounds(url) == (2, 1)
    saved = await store.update_encounter(CHANNEL, next_round)
    assert saved is not None
    assert saved.version == 3


async def test_a_connection_lost_holding_the_lock_frees_it_and_the_pool_goes_on(
    store: PostgresStore, url: str
) -> None:
    """The write waits for the row another session holds; the server then ends Pommel's connection: the
    lock ends with it, and the next change takes another connection."""
    outside = await asyncpg.connect(url)
    try:
        locker = outside.transaction()
        await locker.start()
        await outside.execute("SELECT 1 FROM encounters WHERE channel_id = $1 FOR UPDATE", CHANNEL)
        waiting = asyncio.ensure_future(store.update_encounter(CHANNEL, next_round))
        for _ in range(100):  # until Pommel's write waits for the row
            await asyncio.sleep(0.01)
            pid = await outside.fetchval(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'CALL%'"
            )
            if pid is not None:
                break
        assert pid is not None
        await outside.execute("SELECT pg_terminate_backend($1)", pid)
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, ConnectionError)):
            await waiting
        await locker.rollback()
    finally:
        await outside.close()
    assert await lock_is_free(url)
    assert await rounds(url) == (2, 1)
    saved = await store.update_encounter(CHANNEL, next_round)
    assert saved is not None
    assert saved.version == 3


async def test_a_release_that_fails_ends_the_connection(store: PostgresStore, url: str) -> None:
    """The driver's last resort: when the release itself fails on a connection still open, the connection
    is ended (the server frees its locks with it) rather than given back to the pool holding the lock."""
    from bot.store import fights_sql
    from bot.store.sql import run_postgres_held

    class ReleaseFails:
        def __init__(self, db: asyncpg.Connection) -> None:
            self.db = db
            self.terminated = False

        def __getattr__(self, name: str) -> object:
            return getattr(self.db, name)

        async def execute(self, text: str, *params: object) -> object:
            if "pg_advisory_unlock" in text:
                raise OSError("the release was lost")
            return await self.db.execute(text, *params)

        def terminate(self) -> None:
            self.terminated = True
            self.db.terminate()

    def refuse(current: Encounter | None) -> EncounterChange:
        raise RulesError("Not your turn.")

    db = ReleaseFails(await asyncpg.connect(url))
    with pytest.raises(OSError, match="release was lost"):
        await run_postgres_held(db, fights_sql.update(CHANNEL, refuse, store))
    assert db.terminated
    assert db.db.is_closed()
    for _ in range(100):  # the server ends the session (and its lock) as the connection closes
        if await lock_is_free(url):
            break
        await asyncio.sleep(0.01)
    assert await lock_is_free(url)
