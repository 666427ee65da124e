"""What only the PostgreSQL store has: its migrations under an advisory lock, and its refusals."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.store import DatabaseTooNew, MigrationFailed, ShardTaken, StoreUnavailable, open_store
from bot.store.postgres import PostgresStore, holder_name, postgres_migrations, shown_url
from bot.store.schema import Migration, bundled_migrations
from tests.postgres import fresh_schema


@pytest.fixture
async def url() -> AsyncIterator[str]:
    """The URL of an empty schema of its own (skipped without a test database; failed under CI)."""
    async with fresh_schema() as selected:
        yield selected


async def tables(url: str) -> set[str]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    finally:
        await connection.close()
    return {row[0] for row in rows}


COUNTING = [
    Migration(1, "0001_first.sql", "CREATE TABLE applied (script INTEGER); INSERT INTO applied VALUES (1);"),
    Migration(2, "0002_second.sql", "SELECT pg_sleep(0.2); INSERT INTO applied VALUES (2);"),
]


def test_the_postgres_migrations_are_numbered_from_one_without_gaps() -> None:
    migrations = postgres_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert migrations[0].name == "0001_initial"


async def test_a_new_database_gets_the_tables_the_sqlite_store_has(url: str) -> None:
    store = await open_store(url)
    try:
        assert isinstance(store, PostgresStore)
        assert await store.schema_version() == len(postgres_migrations())
    finally:
        await store.close()
    with sqlite3.connect(":memory:") as db:
        for migration in bundled_migrations():
            db.executescript(migration.sql)
        sqlite_tables = {
            row[0]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith("sqlite_")
        }
    assert sqlite_tables <= await tables(url)


async def test_processes_starting_together_migrate_once(url: str) -> None:
    """Five stores opening at once: the advisory lock lets one apply the scripts; the others wait for it
    and find nothing left to do (without the lock, the second CREATE TABLE would fail)."""
    stores = await asyncio.gather(*(PostgresStore.open(url, migrations=COUNTING) for _ in range(5)))
    try:
        connection = await asyncpg.connect(url)
        try:
            applied = [row[0] for row in await connection.fetch("SELECT script FROM applied ORDER BY script")]
            recorded = await connection.fetchval("SELECT count(*) FROM schema_migrations")
        finally:
            await connection.close()
        assert applied == [1, 2]
        assert recorded == 2
    finally:
        for store in stores:
            await store.close()


async def test_reopening_applies_only_the_pending_scripts(url: str) -> None:
    store = await PostgresStore.open(url, migrations=COUNTING[:1])
    await store.close()
    for _ in range(2):
        store = await PostgresStore.open(url, migrations=COUNTING)
        await store.close()
    connection = await asyncpg.connect(url)
    try:
        assert [row[0] for row in await connection.fetch("SELECT script FROM applied ORDER BY script")] == [
            1,
            2,
        ]
    finally:
        await connection.close()


async def test_a_failing_script_leaves_the_database_as_it_was(url: str) -> None:
    store = await PostgresStore.open(url, migrations=COUNTING[:1])
    await store.close()
    broken = [*COUNTING, Migration(3, "0003_broken.sql", "CREATE TABLE half (x int); SELECT * FROM nowhere;")]
    with pytest.raises(MigrationFailed, match=r"0003_broken\.sql failed .*nowhere"):
        await PostgresStore.open(url, migrations=broken)
    assert "half" not in await tables(url)
    store = await PostgresStore.open(url, migrations=COUNTING[:1])
    try:
        assert await store.schema_version() == 1
    finally:
        await store.close()


async def test_a_renumbered_migration_is_not_applied_again(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Two branches merged: the second script became 0003, a new one took 0002 (the record's version is
    PostgreSQL's primary key, so the record is written again under the new numbers)."""
    store = await PostgresStore.open(url, migrations=COUNTING)
    await store.close()
    merged = [
        COUNTING[0],
        Migration(2, "0002_other_branch", "INSERT INTO applied VALUES (20);"),
        Migration(3, "0003_second.sql", COUNTING[1].sql),
    ]
    store = await PostgresStore.open(url, migrations=merged)
    await store.close()
    connection = await asyncpg.connect(url)
    try:
        applied = [row[0] for row in await connection.fetch("SELECT script FROM applied ORDER BY script")]
        recorded = [
            tuple(row) for row in await connection.fetch("SELECT version, name FROM schema_migrations")
        ]
    finally:
        await connection.close()
    assert applied == [1, 2, 20]
    assert sorted(recorded) == [(1, "0001_first.sql"), (2, "0002_other_branch"), (3, "0003_second.sql")]
    assert "migration 0002_second.sql recorded in" in caplog.text


async def test_a_database_newer_than_the_code_is_refused(url: str) -> None:
    store = await open_store(url)
    await store.close()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (99, '0099_later.sql')"
        )
    finally:
        await connection.close()
    with pytest.raises(DatabaseTooNew, match="schema version 99") as refused:
        await open_store(url)
    assert refused.value.known == len(postgres_migrations())


async def test_a_schema_that_does_not_exist_is_refused_in_one_line(url: str) -> None:
    missing = url.replace("search_path=", "search_path=no_such_schema_")
    with pytest.raises(StoreUnavailable) as refused:
        await open_store(missing)
    assert "no schema" in str(refused.value)
    assert "\n" not in str(refused.value)


async def test_a_server_that_does_not_answer_is_refused_in_one_line_without_the_password() -> None:
    with pytest.raises(StoreUnavailable) as refused:
        await open_store("postgresql://pommel:secret@127.0.0.1:9/pommel")
    message = str(refused.value)
    assert "\n" not in message
    assert "secret" not in message
    assert "DATABASE_URL" in message


def test_a_url_is_shown_without_its_password() -> None:
    assert shown_url("postgresql://me:pw@db:5432/x") == "postgresql://me:***@db:5432/x"
    assert shown_url("postgresql://db/x") == "postgresql://db/x"


# ---------------------------------------------------------------------------------- shard leases


async def test_a_second_process_claiming_a_shard_is_refused_naming_the_holder(url: str) -> None:
    first, second = await PostgresStore.open(url), await PostgresStore.open(url)
    try:
        await first.claim_shards(2, [0])
        with pytest.raises(ShardTaken) as refused:
            await second.claim_shards(2, [1, 0])
        message = str(refused.value)
        assert "Shard 0 (of 2) is already served by" in message
        assert holder_name() in message
        assert "SHARD_IDS" in message
        assert "\n" not in message
        await second.claim_shards(2, [1])  # the refusal let go of shard 1, taken first; it is free
    finally:
        await first.close()
        await second.close()


async def test_a_shard_is_free_again_once_its_store_is_closed(url: str) -> None:
    first = await PostgresStore.open(url)
    await first.claim_shards(1, [0])
    await first.close()
    second = await PostgresStore.open(url)
    try:
        await second.claim_shards(1, [0])
    finally:
        await second.close()


async def test_another_shard_count_than_a_live_holders_is_refused(url: str) -> None:
    first, second = await PostgresStore.open(url), await PostgresStore.open(url)
    try:
        await first.claim_shards(2, [0])
        with pytest.raises(ShardTaken, match=r"runs 3 shards in all .* serves shard 0 of 2"):
            await second.claim_shards(3, [1, 2])
    finally:
        await first.close()
    try:
        await second.claim_shards(3, [1, 2])  # its holder gone, the old count binds nobody
    finally:
        await second.close()


async def test_schemas_lease_their_shards_apart() -> None:
    """Two deployments (here: two test schemas) on one server do not share shard 0."""
    async with fresh_schema() as one, fresh_schema() as other:
        first, second = await PostgresStore.open(one), await PostgresStore.open(other)
        try:
            await first.claim_shards(1, [0])
            await second.claim_shards(1, [0])
        finally:
            await first.close()
            await second.close()


LEASING_PROCESS = """
import asyncio, sys
from bot.store.postgres import PostgresStore

async def main() -> None:
    store = await PostgresStore.open(sys.argv[1])
    await store.claim_shards(2, [1])
    print("claimed", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


async def test_the_shards_of_a_killed_process_can_be_claimed_at_once(url: str) -> None:
    """SIGKILL: no close, no cleanup; the server ends the dead process's session and its leases."""
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LEASING_PROCESS, url, stdout=asyncio.subprocess.PIPE
    )
    store = await PostgresStore.open(url)
    try:
        assert holder.stdout is not None
        assert (await asyncio.wait_for(holder.stdout.readline(), 30)).strip() == b"claimed"
        with pytest.raises(ShardTaken, match="Shard 1"):
            await store.claim_shards(2, [1])
        holder.kill()
        await holder.wait()
        deadline = asyncio.get_running_loop().time() + 60  # a hang guard: the server ends it at once
        while True:
            try:
                await store.claim_shards(2, [1])
                break
            except ShardTaken:
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.05)
    finally:
        if holder.returncode is None:
            holder.kill()
            await holder.wait()
        await store.close()


async def test_a_lease_whose_connection_ends_is_reported_lost(url: str) -> None:
    store = await PostgresStore.open(url)
    lost = asyncio.Event()
    try:
        await store.claim_shards(1, [0], on_lost=lost.set)
        admin = await asyncpg.connect(url)
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'pommel shard lease' AND pid = $1",
                store._lease.get_server_pid(),
            )
        finally:
            await admin.close()
        await asyncio.wait_for(lost.wait(), 60)  # a hang guard
    finally:
        await store.close()


async def test_closing_the_store_is_no_lost_lease(url: str) -> None:
    store = await PostgresStore.open(url)
    lost: list[bool] = []
    await store.claim_shards(1, [0], on_lost=lambda: lost.append(True))
    await store.close()
    await asyncio.sleep(0.05)
    assert lost == []
