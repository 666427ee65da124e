"""Opening a database: pragmas, numbered migrations applied once and all or nothing, newer schemas refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import DatabaseTooNew, open_store
from bot.store.sqlite import Migration, SqliteStore, bundled_migrations, check_numbering, sql_statements


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


COUNTING = [
    Migration(1, "0001_first.sql", "CREATE TABLE applied (script INTEGER); INSERT INTO applied VALUES (1);"),
    Migration(2, "0002_second.sql", "INSERT INTO applied VALUES (2);"),
]


def test_the_bundled_migrations_are_numbered_from_one_without_gaps() -> None:
    migrations = bundled_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert migrations[0].name == "0001_initial.sql"


def test_a_gap_in_the_numbering_is_refused() -> None:
    with pytest.raises(ValueError, match="0002"):
        check_numbering([COUNTING[0], Migration(3, "0003_third.sql", "")])


async def test_a_new_database_gets_the_whole_schema(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await open_store(path)
    await store.close()
    assert user_version(path) == len(bundled_migrations())
    assert {"encounters", "log", "characters", "guild_settings"} <= tables(path)


async def test_reopening_applies_nothing_again(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    for _ in range(3):
        store = await SqliteStore.open(path, migrations=COUNTING)
        await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied ORDER BY script").fetchall() == [(1,), (2,)]
    assert user_version(path) == 2


async def test_only_the_pending_scripts_run(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path, migrations=COUNTING[:1])
    await store.close()
    store = await SqliteStore.open(path, migrations=COUNTING)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied ORDER BY script").fetchall() == [(1,), (2,)]


async def test_a_failing_script_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    """All pending scripts share one transaction: 0002 and a half-run 0003 are both undone."""
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path, migrations=COUNTING[:1])
    await store.close()
    broken = [
        *COUNTING,
        Migration(3, "0003_broken.sql", "CREATE TABLE half (x); INSERT INTO no_such_table VALUES (1);"),
    ]
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        await SqliteStore.open(path, migrations=broken)
    assert user_version(path) == 1
    assert "half" not in tables(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied").fetchall() == [(1,)]


async def test_a_failing_first_migration_leaves_an_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    broken = [COUNTING[0], Migration(2, "0002_broken.sql", "SELECT * FROM nowhere;")]
    with pytest.raises(sqlite3.OperationalError):
        await SqliteStore.open(path, migrations=broken)
    assert user_version(path) == 0
    assert tables(path) == set()


async def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await open_store(path)
    await store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(DatabaseTooNew, match="schema version 99") as refused:
        await open_store(path)
    assert refused.value.found == 99
    assert refused.value.known == len(bundled_migrations())
    assert user_version(path) == 99


async def test_the_database_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path)
    try:
        with sqlite3.connect(path) as outside:  # the journal mode is kept in the file itself
            assert outside.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        # The rest are per connection, so they are asked of the store's own writer.
        writer = store._db

        async def setting(pragma: str) -> int:
            [(value,)] = await writer.execute_fetchall(f"PRAGMA {pragma}")
            return int(value)

        assert await setting("synchronous") == 2  # FULL
        assert await setting("foreign_keys") == 1
        assert await setting("busy_timeout") > 0
        assert (await store._fetch_all("PRAGMA query_only"))[0][0] == 1  # reads go through a reader
    finally:
        await store.close()


def test_statements_are_split_without_cutting_triggers_or_comments() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    /* a block; comment */
    CREATE TRIGGER t_no_delete BEFORE DELETE ON t
    BEGIN
        SELECT RAISE(ABORT, 'no; never');
        SELECT 1;
    END;
    ;
    -- trailing; comment
    """
    statements = sql_statements(script)
    assert len(statements) == 2
    assert statements[0].endswith("CREATE TABLE t (x TEXT DEFAULT 'a;b');")
    assert statements[1].startswith("/* a block; comment */")
    assert statements[1].endswith("END;")


def test_a_script_ending_mid_statement_is_refused() -> None:
    with pytest.raises(ValueError, match="incomplete"):
        sql_statements("CREATE TABLE t (x); CREATE TABLE u (y)")
